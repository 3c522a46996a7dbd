//! The flow network: every element that can limit throughput (a PCIe link, a SAS/SATA link, a
//! node's own limit, a controller's spec, an inter-socket link), with its capacity per
//! direction, and every source device with its demand and the elements on its path to the
//! memory its work targets.
//!
//! Every link constrains, the one directly above a device included: its capacity under the
//! chosen model is a physical ceiling, and a vendor spec above it is capped by it. Two
//! figures come out of the same network (see docs/bandwidth.md): the *ceiling* uses only
//! physical elements (links, switches, SAS/SATA lanes, node limits, inter-socket links), the
//! *expected* figure adds the specs: each device's own and a transit controller's.
//! A bifurcated extender card (no switch on it) is passive: each of its ports is an x4 link
//! of its own, counted at the drive below.

use super::{Dir, Memory, Options, Scope, Workload};
use crate::pcie::{LinkRate, TlpParams, serial_lane_gbs};
use crate::topology::{DeviceClass, Link, NodeKind, Perf, Topology};
use foldhash::{HashMap, HashMapExt};
use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::{EdgeIndexable, EdgeRef, NodeIndexable};
use serde::Serialize;
use std::collections::VecDeque;

/// Bytes per small-block I/O for `--workload 4k`.
pub const SMALL_BLOCK_BYTES: f64 = 4096.0;

/// What an element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum ElementKind {
    /// A PCIe link.
    Link,
    /// The PCIe link above a switch: shared by every port below it.
    SwitchUplink,
    /// A SAS/SATA link between a controller and a drive.
    StorageLink,
    /// A node's own stated limit (controller SAS/SATA side, root complex).
    NodeLimit,
    /// A device other traffic passes through (a RAID controller), capped at its spec.
    Transit,
    /// Inter-socket links (UPI, xGMI).
    Fabric,
}

/// One element that can cap throughput.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Element {
    /// Stable id: `link:<parent id>><child id>`, `node:<id>`, `fabric:<a>~<b>`.
    pub id: String,
    pub kind: ElementKind,
    /// What a person calls it: `PCIe switch A (bays 0-11) uplink Gen3 x16`.
    pub label: String,
    /// GB/s device to host (`None`: no limit of its own).
    pub read_gbs: Option<f64>,
    /// GB/s host to device.
    pub write_gbs: Option<f64>,
    /// Why it constrains nothing although it has a capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passive: Option<&'static str>,
    /// For a link trained below what its ends can do: the maximum, what holds it back, and
    /// the fix the platform names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub downtrained: Option<Downtrain>,
    #[serde(skip)]
    pub edge: Option<EdgeIndex>,
    /// The node below the edge, or the node whose limit this is.
    #[serde(skip)]
    pub node: Option<NodeIndex>,
    /// The two sockets of a fabric element.
    #[serde(skip)]
    pub sockets: Option<(NodeIndex, NodeIndex)>,
    /// The node whose own label the label carries (its place, a switch, a limited node).
    #[serde(skip)]
    pub named: Option<NodeIndex>,
    /// What a link runs at, as its label ends: `Gen3 x4`, `12 Gb/s` (links only).
    #[serde(skip)]
    pub rate: Option<String>,
}

impl Element {
    /// True when the label already carries `ix`'s own label (set where the element is built).
    pub fn names_node(&self, ix: NodeIndex) -> bool {
        self.named == Some(ix)
    }

    pub fn cap(&self, dir: Dir) -> Option<f64> {
        match dir {
            Dir::Read => self.read_gbs,
            Dir::Write => self.write_gbs,
        }
    }

    /// Capacity that constrains the expected flows (`None`: passive or unlimited).
    pub fn constraint(&self, dir: Dir) -> Option<f64> {
        if self.passive.is_some() {
            None
        } else {
            self.cap(dir)
        }
    }

    /// True when its capacity is physics (a link, lanes, a node limit, an inter-socket
    /// link), false for a vendor spec (a transit controller's).
    pub fn is_physical(&self) -> bool {
        self.kind != ElementKind::Transit
    }

    /// Capacity that bounds the ceilings: physical elements only.
    pub fn ceiling_constraint(&self, dir: Dir) -> Option<f64> {
        if self.is_physical() {
            self.constraint(dir)
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Downtrain {
    /// `Gen4 x4`.
    pub max: String,
    /// `Gen3 x4`.
    pub trained: String,
    /// `Front NVMe backplane (Gen3), NVMe cables from the board (Gen3)`.
    pub held_by: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// True when the generation dropped (false: only the width).
    pub gen_drop: bool,
}

/// A device that offers traffic.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub node: NodeIndex,
    pub read_gbs: f64,
    pub write_gbs: f64,
    /// Every element on the way to memory, nearest first (passive ones included).
    pub path: Vec<usize>,
    /// The element for the link directly above the device, if any.
    pub own_link: Option<usize>,
    pub socket: Option<NodeIndex>,
}

impl Source {
    pub fn demand(&self, dir: Dir) -> f64 {
        match dir {
            Dir::Read => self.read_gbs,
            Dir::Write => self.write_gbs,
        }
    }
}

/// Hints a plan gives beyond its topology: the fix for a bay's rated path.
#[derive(Debug, Clone, Default)]
pub struct Hints {
    /// Bay (or any passive node) -> the upgrade that lifts its rating.
    pub fixes: HashMap<NodeIndex, String>,
}

/// Elements and sources.
#[derive(Debug, Clone, Default)]
pub struct Net {
    pub elements: Vec<Element>,
    pub sources: Vec<Source>,
    /// Sockets whose memory the work targets.
    pub targets: Vec<NodeIndex>,
}

/// Demand of a device spec under a workload, GB/s (read, write).
pub fn demand(perf: &Perf, workload: Workload) -> (f64, f64) {
    match workload {
        Workload::Seq => (perf.seq_read_gbs, perf.seq_write_gbs),
        Workload::Rand4k => {
            // Devices without an IOPS figure (NICs, GPUs, controllers) keep their sequential one.
            let r = if perf.rand_read_iops > 0.0 {
                perf.rand_read_iops * SMALL_BLOCK_BYTES / 1e9
            } else {
                perf.seq_read_gbs
            };
            let w = if perf.rand_write_iops > 0.0 {
                perf.rand_write_iops * SMALL_BLOCK_BYTES / 1e9
            } else {
                perf.seq_write_gbs
            };
            (r, w)
        }
    }
}

fn device_perf(t: &Topology, ix: NodeIndex) -> Option<(DeviceClass, Option<Perf>)> {
    match &t.node(ix).kind {
        NodeKind::Device { class, perf, .. } => Some((*class, perf.as_deref().copied())),
        _ => None,
    }
}

/// The error of a flow request the topology cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    #[error("no socket {0} in this topology (sockets: {1}){2}")]
    NoSocket(String, String, String),
}

impl Net {
    /// Builds the network for `opts`.
    pub fn build(t: &Topology, opts: &Options, hints: &Hints) -> Result<Net, NetError> {
        let sockets = t.sockets();
        let targets = memory_targets(t, opts, &sockets)?;
        let order = t.depth_first();
        let below = has_device_below(t, &order);
        let mut b = Builder {
            t,
            opts,
            hints,
            path_mps: path_mps(t, opts, &order),
            suffix: vec![None; t.graph.node_bound()],
            edge_el: vec![None; t.graph.edge_bound()],
            by_fabric: HashMap::new(),
            routes: fabric_routes(t, &sockets, &targets),
            empty: std::rc::Rc::new((Vec::new(), None)),
            net: Net {
                targets,
                ..Default::default()
            },
        };
        // About one element per link, sized once rather than by doubling.
        b.net.elements.reserve(t.graph.edge_count());
        for &d in &order {
            if let Some((read_gbs, write_gbs)) = offer(t, opts, d, &below) {
                b.source(d, read_gbs, write_gbs);
            }
        }
        Ok(b.net)
    }

    /// Source indices per element (each element's users).
    pub fn users(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.elements.len()];
        for (i, s) in self.sources.iter().enumerate() {
            for &e in &s.path {
                out[e].push(i as u32);
            }
        }
        out
    }
}

/// The sockets whose memory the work targets: every socket for local memory, else the one
/// named (an error with did-you-mean when the topology has none of that name).
fn memory_targets(
    t: &Topology,
    opts: &Options,
    sockets: &[NodeIndex],
) -> Result<Vec<NodeIndex>, NetError> {
    match &opts.memory {
        Memory::Local => Ok(sockets.to_vec()),
        m @ Memory::Socket(k) => match m.socket_in(t) {
            Some(s) => Ok(vec![s]),
            None => {
                let known: Vec<String> = sockets.iter().map(|&s| t.node(s).label.clone()).collect();
                let help = crate::suggest::did_you_mean(k, known.iter().map(String::as_str))
                    .map(|s| format!("; did you mean {s}?"))
                    .unwrap_or_default();
                Err(NetError::NoSocket(k.clone(), known.join(", "), help))
            }
        },
    }
}

/// Which nodes have a device below them (transit devices, switched extender cards), by
/// node index.
fn has_device_below(t: &Topology, order: &[NodeIndex]) -> Vec<bool> {
    let mut below = vec![false; t.graph.node_bound()];
    for &ix in order.iter().rev() {
        if (matches!(t.node(ix).kind, NodeKind::Device { .. }) || below[ix.index()])
            && let Some(p) = t.parent(ix)
        {
            below[p.index()] = true;
        }
    }
    below
}

/// The MPS that governs each node's link: the smallest along the path from the socket down
/// to it (a TLP crosses every link between the device and memory), and at most
/// `opts.tlp.mps`.
fn path_mps(t: &Topology, opts: &Options, order: &[NodeIndex]) -> Vec<u16> {
    let mut out = vec![opts.tlp.mps; t.graph.node_bound()];
    for &ix in order {
        if let Some((p, e)) = t.parent_edge(ix) {
            let mut m = out[p.index()];
            if let Link::Pcie { rate, .. } = &t.graph[e] {
                m = m.min(rate.mps);
            }
            out[ix.index()] = m;
        }
    }
    out
}

/// The demand (read, write GB/s) node `d` offers: `None` unless it is a device in scope
/// with a spec and no device below it.
fn offer(t: &Topology, opts: &Options, d: NodeIndex, below: &[bool]) -> Option<(f64, f64)> {
    let (class, perf) = device_perf(t, d)?;
    if below[d.index()] {
        return None;
    }
    if (opts.scope == Scope::Drives && !class.is_drive())
        || (opts.scope == Scope::Nvme && class != DeviceClass::Nvme)
    {
        return None;
    }
    Some(demand(&perf?, opts.workload))
}

/// The elements from a node (its own limits, then the link above it, and so on) up to its
/// socket, and the socket.
type Suffix = std::rc::Rc<(Vec<usize>, Option<NodeIndex>)>;

/// The walk that builds the network, with memos per node and per edge: every node is
/// walked once.
struct Builder<'a> {
    t: &'a Topology,
    opts: &'a Options,
    hints: &'a Hints,
    path_mps: Vec<u16>,
    suffix: Vec<Option<Suffix>>,
    edge_el: Vec<Option<Option<usize>>>,
    by_fabric: HashMap<(NodeIndex, NodeIndex), usize>,
    routes: HashMap<NodeIndex, Vec<NodeIndex>>,
    empty: Suffix,
    net: Net,
}

impl Builder<'_> {
    /// The element of edge `e`, made once (`None`: an edge that limits nothing).
    fn edge(&mut self, e: EdgeIndex) -> Option<usize> {
        *self.edge_el[e.index()].get_or_insert_with(|| {
            edge_element(
                self.t,
                e,
                self.opts,
                &self.path_mps,
                self.hints,
                &mut self.net.elements,
            )
        })
    }

    /// The suffix of `top`, memoizing it and every ancestor not yet walked.
    fn suffix_of(&mut self, top: NodeIndex) -> Suffix {
        let t = self.t;
        // The ancestors not yet memoized, nearest first.
        let mut chain = Vec::new();
        let mut cur = Some(top);
        while let Some(c) = cur {
            if self.suffix[c.index()].is_some() {
                break;
            }
            chain.push(c);
            cur = t.parent(c);
        }
        let mut acc = cur
            .and_then(|c| self.suffix[c.index()].clone())
            .unwrap_or_else(|| self.empty.clone());
        for &c in chain.iter().rev() {
            let mut v = node_elements(t, c, &mut self.net.elements);
            if let Some((_, e)) = t.parent_edge(c)
                && let Some(el) = self.edge(e)
            {
                v.push(el);
            }
            v.extend_from_slice(&acc.0);
            let sock = if matches!(t.node(c).kind, NodeKind::Socket { .. }) {
                Some(c)
            } else {
                acc.1
            };
            acc = std::rc::Rc::new((v, sock));
            self.suffix[c.index()] = Some(acc.clone());
        }
        self.suffix[top.index()]
            .clone()
            .unwrap_or_else(|| self.empty.clone())
    }

    /// Appends the inter-socket elements from socket `s` to the target's memory.
    fn fabric_path(&mut self, s: NodeIndex, path: &mut Vec<usize>) {
        let Some(route) = self.routes.get(&s) else {
            return;
        };
        for w in route.windows(2) {
            let key = if w[0] < w[1] {
                (w[0], w[1])
            } else {
                (w[1], w[0])
            };
            let el = *self
                .by_fabric
                .entry(key)
                .or_insert_with(|| fabric_element(self.t, key, &mut self.net.elements));
            path.push(el);
        }
    }

    /// Adds device `d` as a source offering `read_gbs` / `write_gbs`, with its path.
    fn source(&mut self, d: NodeIndex, read_gbs: f64, write_gbs: f64) {
        let t = self.t;
        let up = t.parent_edge(d);
        let own_link = up.and_then(|(_, e)| self.edge(e));
        let above = match up {
            Some((p, _)) => self.suffix_of(p),
            None => self.empty.clone(),
        };
        let mut path = Vec::with_capacity(above.0.len() + 2);
        path.extend(own_link);
        path.extend_from_slice(&above.0);
        let socket = if matches!(t.node(d).kind, NodeKind::Socket { .. }) {
            Some(d)
        } else {
            above.1
        };
        // Traffic of a device under no socket (a broken live capture) goes nowhere.
        let Some(s) = socket else {
            return;
        };
        self.fabric_path(s, &mut path);
        self.net.sources.push(Source {
            node: d,
            read_gbs,
            write_gbs,
            path,
            own_link,
            socket,
        });
    }
}

/// Shortest fabric route (socket list) from each non-target socket to a target socket.
fn fabric_routes(
    t: &Topology,
    sockets: &[NodeIndex],
    targets: &[NodeIndex],
) -> HashMap<NodeIndex, Vec<NodeIndex>> {
    let mut out = HashMap::new();
    if targets.len() != 1 {
        return out;
    }
    let target = targets[0];
    // Breadth-first from the target over fabric links, neighbours in socket order: stable.
    let mut adj: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
    for (a, b, _) in t.fabric_links() {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default().push(a);
    }
    for v in adj.values_mut() {
        v.sort();
        v.dedup();
    }
    let mut prev: HashMap<NodeIndex, NodeIndex> = HashMap::new();
    let mut queue = VecDeque::from([target]);
    let mut seen = vec![target];
    while let Some(s) = queue.pop_front() {
        for &n in adj.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
            if !seen.contains(&n) {
                seen.push(n);
                prev.insert(n, s);
                queue.push_back(n);
            }
        }
    }
    for &s in sockets {
        if s == target {
            continue;
        }
        let mut route = vec![s];
        let mut cur = s;
        while let Some(&p) = prev.get(&cur) {
            route.push(p);
            cur = p;
        }
        if cur == target {
            out.insert(s, route);
        }
    }
    out
}

fn fabric_element(t: &Topology, key: (NodeIndex, NodeIndex), els: &mut Vec<Element>) -> usize {
    let (a, b) = key;
    // Several fabric edges between the same pair add up.
    let mut gbs = 0.0;
    let mut name = String::new();
    let mut links = 0u32;
    for e in t
        .graph
        .edges_connecting(a, b)
        .chain(t.graph.edges_connecting(b, a))
    {
        if let Link::Fabric {
            fabric,
            links: l,
            gbs_per_direction,
        } = e.weight()
        {
            gbs += gbs_per_direction;
            links += u32::from(*l);
            name = format!("{fabric:?}").to_uppercase();
        }
    }
    let (la, lb) = (&t.node(a).label, &t.node(b).label);
    els.push(Element {
        id: format!("fabric:{}~{}", t.node(a).id, t.node(b).id),
        kind: ElementKind::Fabric,
        label: format!("{name} {la} <-> {lb} ({links} links)"),
        read_gbs: Some(gbs),
        write_gbs: Some(gbs),
        passive: None,
        downtrained: None,
        edge: None,
        node: None,
        sockets: Some((a, b)),
        named: None,
        rate: None,
    });
    els.len() - 1
}

/// Limits of a node itself: its stated limit, and a transit device's spec.
fn node_elements(t: &Topology, ix: NodeIndex, els: &mut Vec<Element>) -> Vec<usize> {
    let n = t.node(ix);
    let mut out = Vec::new();
    if let NodeKind::Device {
        perf: Some(perf), ..
    } = &n.kind
    {
        els.push(Element {
            id: format!("node:{}", n.id),
            kind: ElementKind::Transit,
            label: format!("{} (spec)", n.label),
            read_gbs: Some(perf.seq_read_gbs),
            write_gbs: Some(perf.seq_write_gbs),
            passive: None,
            downtrained: None,
            edge: None,
            node: Some(ix),
            sockets: None,
            named: Some(ix),
            rate: None,
        });
        out.push(els.len() - 1);
    }
    if let Some(l) = &n.limit {
        els.push(Element {
            id: format!("limit:{}", n.id),
            kind: ElementKind::NodeLimit,
            label: format!("{} {}", n.label, l.what),
            read_gbs: Some(l.read_gbs),
            write_gbs: Some(l.write_gbs),
            passive: None,
            downtrained: None,
            edge: None,
            node: Some(ix),
            sockets: None,
            named: Some(ix),
            rate: None,
        });
        out.push(els.len() - 1);
    }
    out
}

/// Where a node sits as users know it: its bay or slot, else the node itself.
pub fn place_node(t: &Topology, ix: NodeIndex) -> NodeIndex {
    t.ancestors(ix)
        .find(|&n| matches!(t.node(n).kind, NodeKind::Bay { .. } | NodeKind::Slot { .. }))
        .unwrap_or(ix)
}

fn is_switch_uplink(t: &Topology, child: NodeIndex) -> bool {
    match t.node(child).kind {
        NodeKind::Switch { .. } => true,
        NodeKind::Device {
            class: DeviceClass::Extender,
            ..
        } => t
            .graph
            .edges_directed(child, Direction::Outgoing)
            .any(|e| matches!(t.node(e.target()).kind, NodeKind::Switch { .. })),
        _ => false,
    }
}

fn edge_element(
    t: &Topology,
    e: EdgeIndex,
    opts: &Options,
    path_mps: &[u16],
    hints: &Hints,
    els: &mut Vec<Element>,
) -> Option<usize> {
    let (parent, child) = t.graph.edge_endpoints(e)?;
    let id = format!("link:{}>{}", t.node(parent).id, t.node(child).id);
    let child_node = t.node(child);
    let el = match &t.graph[e] {
        Link::Attach | Link::Fabric { .. } => return None,
        Link::Storage { protocol, gbps } => {
            let gbs = serial_lane_gbs(*gbps);
            let rate = format!("{gbps} Gb/s");
            Element {
                id,
                kind: ElementKind::StorageLink,
                label: format!(
                    "{} {} link {rate}",
                    t.node(place_node(t, child)).label,
                    format!("{protocol:?}").to_uppercase(),
                ),
                read_gbs: Some(gbs),
                write_gbs: Some(gbs),
                passive: None,
                downtrained: None,
                edge: Some(e),
                node: Some(child),
                sockets: None,
                named: Some(place_node(t, child)),
                rate: Some(rate),
            }
        }
        Link::Pcie { rate, max } => {
            let tlp = TlpParams {
                mps: path_mps[child.index()],
                ..opts.tlp
            };
            let switch = is_switch_uplink(t, child);
            let bifurcated = matches!(
                child_node.kind,
                NodeKind::Device {
                    class: DeviceClass::Extender,
                    ..
                }
            ) && !switch;
            let down = max.filter(|m| rate.generation < m.generation || rate.width < m.width);
            let named = if switch { child } else { place_node(t, child) };
            let name = if switch {
                let sw = if matches!(child_node.kind, NodeKind::Switch { .. }) {
                    child_node.label.clone()
                } else {
                    format!("{} switch", child_node.label)
                };
                format!("{sw} uplink")
            } else {
                format!("{} link", t.node(named).label)
            };
            let passive = if bifurcated {
                Some("bifurcated slot: each port is an x4 link of its own, counted at its drive")
            } else {
                None
            };
            Element {
                id,
                kind: if switch {
                    ElementKind::SwitchUplink
                } else {
                    ElementKind::Link
                },
                label: format!("{name} {}", rate.short()),
                rate: Some(rate.short()),
                read_gbs: Some(rate.payload_gbs(opts.model, &tlp, true)),
                write_gbs: Some(rate.payload_gbs(opts.model, &tlp, false)),
                passive,
                downtrained: down.map(|m| downtrain(t, child, rate, &m, hints)),
                edge: Some(e),
                node: Some(child),
                sockets: None,
                named: Some(named),
            }
        }
    };
    els.push(el);
    Some(els.len() - 1)
}

/// What holds a link below its maximum: the passive part rated lower, or the narrower
/// slot/port, or the port itself.
fn downtrain(
    t: &Topology,
    dev: NodeIndex,
    rate: &LinkRate,
    max: &LinkRate,
    hints: &Hints,
) -> Downtrain {
    let gen_drop = rate.generation < max.generation;
    let mut held = None;
    let mut fix = None;
    for ix in t.ancestors(dev).skip(1) {
        let n = t.node(ix);
        if fix.is_none() {
            fix = hints.fixes.get(&ix).cloned();
        }
        if held.is_none() {
            if gen_drop && n.rated_gen.is_some_and(|g| g < max.generation) {
                held = Some(match (&n.kind, &n.source) {
                    (NodeKind::Bay { .. }, Some(src)) if !src.is_empty() => src.clone(),
                    _ => format!(
                        "{} (rated {})",
                        n.label,
                        n.rated_gen.unwrap_or(rate.generation)
                    ),
                });
            } else if !gen_drop
                && let NodeKind::Slot { electrical, .. } = n.kind
                && electrical < max.width
            {
                held = Some(format!("{} (wired x{electrical})", n.label));
            }
        }
        if let NodeKind::RootPort { width, generation }
        | NodeKind::SwitchPort {
            width, generation, ..
        } = n.kind
        {
            if held.is_none() {
                held = Some(format!("{} ({generation} x{width})", n.label));
            }
            break;
        }
    }
    Downtrain {
        max: max.short(),
        trained: rate.short(),
        held_by: held.unwrap_or_else(|| "its link partner".to_string()),
        fix,
        gen_drop,
    }
}
