//! Bandwidth analysis: where is the bottleneck of a build?
//!
//! * [`net`]: capacities of every element (PCIe links per direction under a [`Model`],
//!   SAS/SATA links, node limits, controller specs, inter-socket links) and each device's
//!   demand and path to the memory its work targets.
//! * [`ceiling`]: each device alone: min over its spec and its path, and what caps it.
//! * [`maxflow`]: all devices at once: the aggregate ceiling (max-flow, petgraph `dinics`).
//! * [`fair`]: all devices at once: each device's max-min fair share (water-filling).
//! * [`findings`]: `LP02xx` findings.
//!
//! Read = device to memory, write = memory to device; computed separately. Each device,
//! element and aggregate has a *ceiling* (physics only: links, switches, lanes, root
//! complexes, inter-socket links; never a vendor spec) and an *expected* figure (the same
//! network with the specs added: the device's own, a transit controller's); see
//! docs/bandwidth.md.

pub mod ceiling;
pub mod fair;
pub mod findings;
pub mod maxflow;
pub mod net;
pub mod system;

use crate::finding::Finding;
use crate::pcie::{Model, TlpParams};
use crate::plan::Report;
use crate::plan::instantiate::Plan;
use crate::topology::{DeviceClass, NodeKind, Topology};
use net::{Element, ElementKind, Hints, Net, NetError};
use petgraph::stable_graph::NodeIndex;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Direction of traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    /// Device to memory (a drive's reads).
    Read,
    /// Memory to device (a drive's writes).
    Write,
}

impl Dir {
    pub const BOTH: [Dir; 2] = [Dir::Read, Dir::Write];
    pub fn name(self) -> &'static str {
        match self {
            Dir::Read => "read",
            Dir::Write => "write",
        }
    }
}

/// Whose memory the work targets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Memory {
    /// Each device's own socket.
    #[default]
    Local,
    /// Everything to one socket, named as the platform names it (its id or label, any case:
    /// `cpu2`, `CPU2`), crossing UPI/xGMI from the others. The one socket numbering is the
    /// platform's: the same CPU1/CPU2 the tables, trees and pictures print.
    Socket(String),
}

impl Memory {
    /// Whether `id`/`label` name the socket this targets.
    pub fn names(&self, id: &str, label: &str) -> bool {
        match self {
            Memory::Local => false,
            Memory::Socket(s) => s.eq_ignore_ascii_case(id) || s.eq_ignore_ascii_case(label),
        }
    }

    /// The socket of `t` this names (`None` for `Local` or a name no socket has).
    pub fn socket_in(&self, t: &Topology) -> Option<NodeIndex> {
        t.sockets()
            .into_iter()
            .find(|&s| self.names(&t.node(s).id, &t.node(s).label))
    }
}

impl FromStr for Memory {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("local") {
            return Ok(Memory::Local);
        }
        if s.is_empty() {
            return Err(
                "expected `local` or a socket as the platform names it (CPU1, CPU2)".into(),
            );
        }
        Ok(Memory::Socket(s.to_string()))
    }
}

impl fmt::Display for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Memory::Local => f.write_str("local"),
            Memory::Socket(k) => f.write_str(k),
        }
    }
}

impl Serialize for Memory {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// What each device's demand is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Workload {
    /// Sequential read/write spec, GB/s.
    #[default]
    #[serde(rename = "seq")]
    Seq,
    /// 4K random IOPS x 4 KiB.
    #[serde(rename = "4k")]
    Rand4k,
}

impl Workload {
    /// Every `--workload` value, as [`FromStr`] takes it.
    pub const NAMES: [&'static str; 2] = ["seq", "4k"];
}

impl FromStr for Workload {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "seq" => Ok(Workload::Seq),
            "4k" => Ok(Workload::Rand4k),
            _ => Err(format!("expected `seq` or `4k`, got `{s}`")),
        }
    }
}

/// Which devices offer traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// NVMe, SAS and SATA drives (the storage workload).
    #[default]
    Drives,
    /// Every device with a spec (NICs, GPUs, boot cards too).
    All,
    /// NVMe drives only (what a review that loads the NVMe bays measures).
    Nvme,
}

impl Scope {
    /// Every `--devices` value, as [`FromStr`] takes it.
    pub const NAMES: [&'static str; 3] = ["drives", "nvme", "all"];
}

impl FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "drives" => Ok(Scope::Drives),
            "all" => Ok(Scope::All),
            "nvme" => Ok(Scope::Nvme),
            _ => Err(format!("expected `drives`, `nvme` or `all`, got `{s}`")),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    pub model: Model,
    pub memory: Memory,
    pub workload: Workload,
    pub scope: Scope,
    /// MPS, MRRS, RCB and completion size (direction-aware model; the others read MPS).
    pub tlp: TlpParams,
}

/// What limits a device: itself, or an element of the network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limit {
    /// `device` or an element kind (`link`, `switch-uplink`, ...).
    pub kind: &'static str,
    /// The element's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// Borrowed for the common case (the device itself): four limits per device add up.
    pub label: std::borrow::Cow<'static, str>,
    /// The fix the platform names (a Gen4 backplane kit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Limit {
    fn device() -> Limit {
        Limit {
            kind: "device",
            element: None,
            label: "the device itself (its spec)".into(),
            fix: None,
        }
    }

    fn element(el: &Element) -> Limit {
        let mut label = el.label.clone();
        let mut fix = None;
        if let Some(d) = &el.downtrained {
            label = format!("{label} (max {}), held by {}", d.max, d.held_by);
            fix = d.fix.clone();
        }
        Limit {
            kind: kind_name(el.kind),
            element: Some(el.id.clone()),
            label: label.into(),
            fix,
        }
    }

    pub fn is_device(&self) -> bool {
        self.kind == "device"
    }

    /// A ceiling with nothing physical modelled on its path: the spec stands in.
    fn unmodelled() -> Limit {
        Limit {
            kind: "device",
            element: None,
            label: "no link modelled on its path (its spec stands in)".into(),
            fix: None,
        }
    }
}

pub fn kind_name(k: ElementKind) -> &'static str {
    match k {
        ElementKind::Link => "link",
        ElementKind::SwitchUplink => "switch-uplink",
        ElementKind::StorageLink => "storage-link",
        ElementKind::NodeLimit => "node-limit",
        ElementKind::Transit => "transit",
        ElementKind::Fabric => "fabric",
    }
}

/// One device in one direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceDir {
    /// Its demand under the workload (spec), GB/s.
    pub spec_gbs: f64,
    /// Its physical ceiling alone: the smallest physical capacity on its path (its own
    /// link, switch uplinks, lanes, root complex, inter-socket link), never a spec.
    pub ceiling_gbs: f64,
    /// The element that sets the ceiling.
    pub ceiling_by: Limit,
    /// Its expected figure alone: the ceiling capped by its spec and the specs of the
    /// controllers it passes. Below the ceiling means the drive (or a controller's spec)
    /// is the limit, not the path.
    pub alone_gbs: f64,
    pub capped_by: Limit,
    /// Its max-min fair share when every device runs at once.
    pub share_gbs: f64,
    pub share_limited_by: Limit,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceFlow {
    pub id: String,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    pub class: DeviceClass,
    /// Socket index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub socket: Option<u8>,
    /// `CPU1 > Slot 1 > Bay 12`.
    pub path: String,
    /// True when its traffic crosses an inter-socket link.
    pub crosses_sockets: bool,
    pub read: DeviceDir,
    pub write: DeviceDir,
    #[serde(skip)]
    pub node: NodeIndex,
}

impl DeviceFlow {
    pub fn dir(&self, d: Dir) -> &DeviceDir {
        match d {
            Dir::Read => &self.read,
            Dir::Write => &self.write,
        }
    }
}

/// One element in one direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ElementDir {
    /// `None`: no limit of its own.
    pub capacity_gbs: Option<f64>,
    /// Its physical ceiling: the capacity of a physical element, `None` for a vendor spec
    /// (a transit controller) or a passive element.
    pub ceiling_gbs: Option<f64>,
    /// Sum of the specs of the devices through it.
    pub demand_gbs: f64,
    /// demand / capacity (oversubscription).
    pub ratio: Option<f64>,
    /// What reaches it from below, each device capped by the elements below this one.
    pub offered_gbs: f64,
    /// Traffic through it under the fair shares.
    pub fair_gbs: f64,
    /// Traffic through it in the max-flow (an arbitrary maximum split).
    pub max_flow_gbs: f64,
    /// fair / capacity.
    pub utilization: Option<f64>,
    /// offered > capacity and it constrains: throughput is lost here.
    pub saturated: bool,
    /// offered - capacity when saturated.
    pub lost_gbs: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ElementFlow {
    #[serde(flatten)]
    pub element: Element,
    /// Devices whose traffic passes it.
    pub devices: usize,
    pub read: ElementDir,
    pub write: ElementDir,
}

impl ElementFlow {
    pub fn dir(&self, d: Dir) -> &ElementDir {
        match d {
            Dir::Read => &self.read,
            Dir::Write => &self.write,
        }
    }
}

/// Aggregate of one direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Aggregate {
    /// Sum of the device specs.
    pub demand_gbs: f64,
    /// Sum of the ceilings alone.
    pub alone_sum_gbs: f64,
    /// The aggregate ceiling: max-flow to memory with every device offering its physical
    /// ceiling, physical elements only.
    pub ceiling_gbs: f64,
    /// The aggregate expected figure: max-flow to memory with every device offering its
    /// spec and every element constraining (the same value as `max_flow_gbs`).
    pub expected_gbs: f64,
    /// Max-flow to memory of the specs (the expected aggregate).
    pub max_flow_gbs: f64,
    /// Sum of the fair shares (equals the max-flow when paths nest, as they do in a tree).
    pub fair_gbs: f64,
    /// Fair traffic per socket the devices sit on.
    pub per_socket: Vec<SocketShare>,
    /// Ids of the saturated elements, most oversubscribed first.
    pub bottlenecks: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SocketShare {
    /// Socket label.
    pub socket: String,
    pub gbs: f64,
}

/// The bandwidth report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowReport {
    pub model: Model,
    pub model_description: &'static str,
    /// The transaction-layer parameters the model used.
    pub tlp: TlpParams,
    pub memory: Memory,
    pub workload: Workload,
    pub scope: Scope,
    pub devices: Vec<DeviceFlow>,
    pub elements: Vec<ElementFlow>,
    pub read: Aggregate,
    pub write: Aggregate,
}

impl FlowReport {
    pub fn aggregate(&self, d: Dir) -> &Aggregate {
        match d {
            Dir::Read => &self.read,
            Dir::Write => &self.write,
        }
    }

    /// Elements most loaded first (by demand / capacity in `dir`), constraining ones only.
    pub fn most_loaded(&self, dir: Dir, n: usize) -> Vec<&ElementFlow> {
        let mut v: Vec<&ElementFlow> = self
            .elements
            .iter()
            .filter(|e| e.element.passive.is_none() && e.dir(dir).ratio.is_some())
            .collect();
        v.sort_by(|a, b| {
            let (ra, rb) = (
                a.dir(dir).ratio.unwrap_or(0.0),
                b.dir(dir).ratio.unwrap_or(0.0),
            );
            rb.total_cmp(&ra).then(a.element.id.cmp(&b.element.id))
        });
        v.truncate(n);
        v
    }
}

/// Whether a node is named in short paths: socket, slot, switch, controller and bay.
fn in_short_path(kind: &NodeKind) -> bool {
    match kind {
        NodeKind::Socket { .. }
        | NodeKind::Slot { .. }
        | NodeKind::Switch { .. }
        | NodeKind::Bay { .. } => true,
        NodeKind::Device { class, .. } => matches!(class, DeviceClass::Raid | DeviceClass::Hba),
        _ => false,
    }
}

/// Short path of a node for tables (`CPU1 > Slot 4 > Bay 12`, the node itself left out).
pub fn short_path<'t>(t: &'t Topology, ix: NodeIndex, parts: &mut Vec<&'t str>) -> String {
    parts.clear();
    parts.extend(
        t.ancestors(ix)
            .skip(1)
            .map(|n| t.node(n))
            .filter(|n| in_short_path(&n.kind))
            .map(|n| n.label.as_str()),
    );
    parts.reverse();
    parts.join(" > ")
}

/// Analyses a topology: (report, findings).
pub fn analyze(
    t: &Topology,
    opts: &Options,
    hints: &Hints,
) -> Result<(FlowReport, Vec<Finding>), NetError> {
    let net = Net::build(t, opts, hints)?;
    let report = assemble(t, opts, net);
    let findings = findings::findings(t, opts, &report);
    Ok((report, findings))
}

/// Hints a plan knows beyond its topology (bay upgrades).
pub fn plan_hints(plan: &Plan) -> Hints {
    let mut h = Hints::default();
    for b in plan.bays.values() {
        if let (Some(node), Some(u)) = (b.node, &b.group.upgrade) {
            h.fixes.insert(node, u.clone());
        }
    }
    h
}

/// Analyses a plan.
pub fn analyze_plan(plan: &Plan, opts: &Options) -> Result<(FlowReport, Vec<Finding>), NetError> {
    analyze(&plan.topology, opts, &plan_hints(plan))
}

/// Analyses a checked plan and adds the bandwidth findings to the report's (kept sorted as
/// `check` sorts them). `file` locations point at the build file.
pub fn attach(report: &mut Report, opts: &Options) -> Result<FlowReport, NetError> {
    let (flow, mut found) = analyze_plan(&report.plan, opts)?;
    for f in &mut found {
        if f.location.file.is_none() {
            f.location.file = report.file.clone();
        }
    }
    report.findings.extend(found);
    report.findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(&b.code))
            .then(a.location.line.cmp(&b.location.line))
    });
    Ok(flow)
}

/// What the solvers find in one direction: each device alone, the offered loads, the fair
/// shares and the max-flow.
struct Solved {
    dir: Dir,
    alone: Vec<ceiling::Alone>,
    offered: Vec<f64>,
    shares: fair::Shares,
    mf: maxflow::MaxFlow,
}

impl Solved {
    /// Runs every solver over `net` in `dir`.
    fn of(net: &Net, dir: Dir) -> Solved {
        Solved {
            dir,
            alone: ceiling::alone(net, dir),
            offered: ceiling::offered(net, dir),
            shares: fair::shares(net, dir),
            mf: maxflow::max_flow(net, dir),
        }
    }
}

/// Takes the network by value: its elements move into the report instead of being copied.
fn assemble(t: &Topology, opts: &Options, mut net: Net) -> FlowReport {
    let users = net.users();
    let per_dir: Vec<Solved> = Dir::BOTH.into_iter().map(|d| Solved::of(&net, d)).collect();
    let ceil = device_ceilings(&net);
    let ceiling_total = ceiling_max_flow(&mut net, &ceil);
    let devices = device_flows(t, &net, &per_dir, &ceil);
    let moved = std::mem::take(&mut net.elements);
    let elements: Vec<ElementFlow> = moved
        .into_iter()
        .enumerate()
        .map(|(e, el)| element_flow(&net, &users[e], &per_dir, e, el))
        .collect();
    let read = aggregate(t, &net, &per_dir[0], &elements, ceiling_total[0]);
    let write = aggregate(t, &net, &per_dir[1], &elements, ceiling_total[1]);
    FlowReport {
        model: opts.model,
        model_description: opts.model.describe(),
        tlp: opts.tlp,
        memory: resolved_memory(t, &opts.memory),
        workload: opts.workload,
        scope: opts.scope,
        devices,
        elements,
        read,
        write,
    }
}

/// Ceilings: each device alone over the physical elements (read, write); a device nothing
/// physical caps offers its demand.
fn device_ceilings(net: &Net) -> [Vec<ceiling::Alone>; 2] {
    Dir::BOTH.map(|dir| {
        let mut c = ceiling::ceilings(net, dir);
        for (a, s) in c.iter_mut().zip(&net.sources) {
            if !a.gbs.is_finite() {
                a.gbs = s.demand(dir).max(0.0);
            }
        }
        c
    })
}

/// What caps a device: its own demand, or the element that does.
fn limit_of(net: &Net, c: Option<usize>) -> Limit {
    match c {
        None => Limit::device(),
        Some(e) => Limit::element(&net.elements[e]),
    }
}

/// Each source's flow: its figures per direction, its place and its socket.
fn device_flows(
    t: &Topology,
    net: &Net,
    per_dir: &[Solved],
    ceil: &[Vec<ceiling::Alone>; 2],
) -> Vec<DeviceFlow> {
    let socket_idx = |s: Option<NodeIndex>| {
        s.and_then(|s| match t.node(s).kind {
            NodeKind::Socket { index, .. } => Some(index),
            _ => None,
        })
    };
    let mut parts = Vec::new();
    net.sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let n = t.node(s.node);
            let (class, part) = match &n.kind {
                NodeKind::Device { class, part, .. } => (*class, part.clone()),
                _ => (DeviceClass::Other, None),
            };
            DeviceFlow {
                id: n.id.clone(),
                label: n.label.clone(),
                part,
                class,
                socket: socket_idx(s.socket),
                path: short_path(t, s.node, &mut parts),
                crosses_sockets: s.path.iter().any(|&e| net.elements[e].sockets.is_some()),
                read: device_dir(net, &per_dir[0], &ceil[0][i], i),
                write: device_dir(net, &per_dir[1], &ceil[1][i], i),
                node: s.node,
            }
        })
        .collect()
}

/// Source `i`'s figures in one direction: spec, ceiling, alone and fair share, each with
/// what caps it.
fn device_dir(net: &Net, d: &Solved, ceil: &ceiling::Alone, i: usize) -> DeviceDir {
    let s = &net.sources[i];
    let alone = &d.alone[i];
    DeviceDir {
        spec_gbs: s.demand(d.dir),
        ceiling_gbs: ceil.gbs,
        ceiling_by: match ceil.capped_by {
            None => Limit::unmodelled(),
            Some(e) => Limit::element(&net.elements[e]),
        },
        alone_gbs: alone.gbs,
        capped_by: limit_of(net, alone.capped_by),
        share_gbs: d.shares.rate[i],
        share_limited_by: match d.shares.stop[i] {
            fair::Stop::Demand => limit_of(net, alone.capped_by),
            fair::Stop::Element(e) => limit_of(net, Some(e)),
        },
    }
}

/// Element `e`'s flow, moved out of the network, with the sources that use it.
fn element_flow(
    net: &Net,
    users: &[u32],
    per_dir: &[Solved],
    e: usize,
    el: Element,
) -> ElementFlow {
    let read = element_dir(net, users, &per_dir[0], e, &el);
    let write = element_dir(net, users, &per_dir[1], e, &el);
    ElementFlow {
        element: el,
        devices: users.len(),
        read,
        write,
    }
}

/// Element `e`'s figures in one direction: capacity, demand, loads, and whether it
/// saturates.
fn element_dir(net: &Net, users: &[u32], d: &Solved, e: usize, el: &Element) -> ElementDir {
    let cap = el.cap(d.dir);
    let demand: f64 = users
        .iter()
        .map(|&i| net.sources[i as usize].demand(d.dir))
        .fold(0.0, |a, b| a + b);
    // Saturation is judged against physical ceilings only; a controller's spec caps the
    // expected figures without saturating.
    let constraint = el.ceiling_constraint(d.dir);
    let offered = d.offered[e];
    let saturated = constraint.is_some_and(|c| offered > c * (1.0 + 1e-9) + 1e-9);
    ElementDir {
        capacity_gbs: cap,
        ceiling_gbs: constraint,
        demand_gbs: demand,
        ratio: cap.filter(|&c| c > 0.0).map(|c| demand / c),
        offered_gbs: offered,
        fair_gbs: d.shares.load[e],
        max_flow_gbs: d.mf.load[e],
        utilization: cap.filter(|&c| c > 0.0).map(|c| d.shares.load[e] / c),
        saturated,
        lost_gbs: match constraint {
            Some(c) if saturated => offered - c,
            _ => 0.0,
        },
    }
}

/// The build's totals in one direction: demand, ceilings, flows, shares per socket and the
/// saturated elements most loaded first.
fn aggregate(
    t: &Topology,
    net: &Net,
    d: &Solved,
    elements: &[ElementFlow],
    ceiling_gbs: f64,
) -> Aggregate {
    let dir = d.dir;
    let per_socket: Vec<SocketShare> = t
        .sockets()
        .into_iter()
        .map(|s| SocketShare {
            socket: t.node(s).label.clone(),
            gbs: net
                .sources
                .iter()
                .enumerate()
                .filter(|(_, src)| src.socket == Some(s))
                .map(|(i, _)| d.shares.rate[i])
                .fold(0.0, |a, b| a + b),
        })
        .collect();
    let mut sat: Vec<&ElementFlow> = elements.iter().filter(|e| e.dir(dir).saturated).collect();
    sat.sort_by(|a, b| {
        b.dir(dir)
            .ratio
            .unwrap_or(0.0)
            .total_cmp(&a.dir(dir).ratio.unwrap_or(0.0))
            .then(a.element.id.cmp(&b.element.id))
    });
    Aggregate {
        demand_gbs: net
            .sources
            .iter()
            .map(|s| s.demand(dir))
            .fold(0.0, |a, b| a + b),
        alone_sum_gbs: d.alone.iter().map(|a| a.gbs).fold(0.0, |a, b| a + b),
        ceiling_gbs,
        expected_gbs: d.mf.total,
        max_flow_gbs: d.mf.total,
        fair_gbs: d.shares.total,
        per_socket,
        bottlenecks: sat.iter().map(|e| e.element.id.clone()).collect(),
    }
}

/// The aggregate ceilings (read, write): the max-flow with every device offering its
/// physical ceiling and transit controllers' specs set aside. Works on `net` in place and
/// restores it.
fn ceiling_max_flow(net: &mut Net, ceil: &[Vec<ceiling::Alone>; 2]) -> [f64; 2] {
    const SPEC: &str = "a vendor spec: not part of the ceiling";
    let saved: Vec<(f64, f64)> = net
        .sources
        .iter()
        .map(|s| (s.read_gbs, s.write_gbs))
        .collect();
    let mut set_aside = Vec::new();
    for (i, el) in net.elements.iter_mut().enumerate() {
        if !el.is_physical() && el.passive.is_none() {
            el.passive = Some(SPEC);
            set_aside.push(i);
        }
    }
    for (i, s) in net.sources.iter_mut().enumerate() {
        s.read_gbs = ceil[0][i].gbs;
        s.write_gbs = ceil[1][i].gbs;
    }
    let out = Dir::BOTH.map(|dir| maxflow::max_flow(net, dir).total);
    for (s, (r, w)) in net.sources.iter_mut().zip(saved) {
        s.read_gbs = r;
        s.write_gbs = w;
    }
    for i in set_aside {
        net.elements[i].passive = None;
    }
    out
}

/// The memory target as the platform labels it (`CPU2`, whatever case the flag used).
fn resolved_memory(t: &Topology, m: &Memory) -> Memory {
    m.socket_in(t)
        .map_or_else(|| m.clone(), |s| Memory::Socket(t.node(s).label.clone()))
}
