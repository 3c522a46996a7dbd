//! Bandwidth findings (`LP02xx`):
//!
//! * `LP0201` warning: a switch uplink is oversubscribed and saturates (switched layouts).
//! * `LP0202` warning: a device trains below its maximum (a Gen4 drive on a Gen3 path) and
//!   loses bandwidth; names what holds it back and the fix the platform names.
//! * `LP0203` note (warning when the link saturates): traffic crosses sockets
//!   (`--memory CPU2`: a socket as the platform labels it).
//! * `LP0204` note: a device's spec is above its own link's ceiling (the link is the limit).
//! * `LP0205` warning: another shared element saturates (controller, SAS side, root
//!   complex, inter-socket link, a shared PCIe link).

use super::net::{Element, ElementKind, place_node};
use super::{Dir, ElementFlow, FlowReport, Memory, Options};
use crate::finding::{Code, Finding, Location, Severity};
use crate::topology::{BayNumber, NodeKind, Topology};
use foldhash::{HashMap, HashMapExt};
use petgraph::stable_graph::NodeIndex;
use std::collections::BTreeMap;

fn gbs(v: f64) -> String {
    format!("{v:.2} GB/s")
}

fn loc(t: &Topology, node: Option<NodeIndex>) -> Location {
    Location {
        node: node.map(|n| t.describe_path(n)),
        ..Default::default()
    }
}

/// Compact list of the places of `nodes`: `bays 0-2` when all sit in bays, else their
/// places' labels.
fn places(t: &Topology, nodes: &[NodeIndex]) -> String {
    let places: Vec<NodeIndex> = nodes.iter().map(|&n| place_node(t, n)).collect();
    let nums: Option<Vec<BayNumber>> = places
        .iter()
        .map(|&p| match t.node(p).kind {
            NodeKind::Bay { number } => Some(number),
            _ => None,
        })
        .collect();
    match nums {
        Some(mut n) if !n.is_empty() => {
            n.sort();
            let word = if n.len() == 1 { "bay" } else { "bays" };
            format!("{word} {}", crate::plan::instantiate::compress_ranges(&n))
        }
        _ => places
            .iter()
            .map(|&p| t.node(p).label.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// What every rule reads: the report, and the indices derived from it once.
struct Facts<'a> {
    t: &'a Topology,
    opts: &'a Options,
    r: &'a FlowReport,
    /// The link element directly above each node (edge elements carry the node below).
    link_above: HashMap<NodeIndex, usize>,
    /// Element ids of the links directly above a device.
    own_links: HashMap<&'a str, usize>,
    /// Fair read shares of the devices each element limits.
    limited: HashMap<&'a str, Vec<f64>>,
}

impl<'a> Facts<'a> {
    /// Derives the per-node and per-element indices the rules share.
    fn new(t: &'a Topology, opts: &'a Options, r: &'a FlowReport) -> Self {
        let link_above: HashMap<NodeIndex, usize> = r
            .elements
            .iter()
            .enumerate()
            .filter(|(_, el)| el.element.edge.is_some())
            .filter_map(|(i, el)| el.element.node.map(|n| (n, i)))
            .collect();
        let own_links: HashMap<&str, usize> = r
            .devices
            .iter()
            .enumerate()
            .filter_map(|(i, d)| {
                link_above
                    .get(&d.node)
                    .map(|&e| (r.elements[e].element.id.as_str(), i))
            })
            .collect();
        let mut limited: HashMap<&str, Vec<f64>> = HashMap::new();
        for d in &r.devices {
            if let Some(e) = d.read.share_limited_by.element.as_deref() {
                limited.entry(e).or_default().push(d.read.share_gbs);
            }
        }
        Facts {
            t,
            opts,
            r,
            link_above,
            own_links,
            limited,
        }
    }

    /// The flow of the link element directly above `node`, if any.
    fn link_above(&self, node: NodeIndex) -> Option<&'a ElementFlow> {
        self.link_above.get(&node).map(|&e| &self.r.elements[e])
    }
}

/// One finding rule: reads the facts, appends its findings in order.
type Rule = fn(&Facts, &mut Vec<Finding>);

/// The rules, in the order their findings appear.
const RULES: [Rule; 4] = [saturated, downtrained, cross_socket, spec_above_link];

/// The bandwidth findings of a flow report, rule by rule.
pub fn findings(t: &Topology, opts: &Options, r: &FlowReport) -> Vec<Finding> {
    let facts = Facts::new(t, opts, r);
    let mut out = Vec::new();
    for rule in RULES {
        rule(&facts, &mut out);
    }
    out
}

/// LP0201 / LP0205: saturated shared elements.
fn saturated(f: &Facts, out: &mut Vec<Finding>) {
    for el in &f.r.elements {
        if f.own_links.contains_key(el.element.id.as_str()) && el.devices <= 1 {
            continue;
        }
        let sat: Vec<Dir> = Dir::BOTH
            .into_iter()
            .filter(|&d| el.dir(d).saturated)
            .collect();
        if sat.is_empty() {
            continue;
        }
        let parts: Vec<String> = sat.iter().map(|&d| saturation_part(el, d)).collect();
        let (code, help) = saturation_code(el.element.kind);
        let each = each_share(f.limited.get(el.element.id.as_str()));
        out.push(
            Finding::of(
                code,
                format!(
                    "{} saturates with the {} devices below it: {}{each}",
                    el.element.label,
                    el.devices,
                    parts.join("; ")
                ),
            )
            .with_help(help)
            .at(loc(f.t, el.element.node)),
        );
    }
}

/// What one saturated direction of an element offers, carries and loses.
fn saturation_part(el: &ElementFlow, d: Dir) -> String {
    let x = el.dir(d);
    format!(
        "{} {} offered against {} ({:.2}:1 by spec), {} lost",
        d.name(),
        gbs(x.offered_gbs),
        gbs(x.capacity_gbs.unwrap_or(0.0)),
        x.ratio.unwrap_or(0.0),
        gbs(x.lost_gbs)
    )
}

/// The code and the help of a saturated element, by its kind.
fn saturation_code(kind: ElementKind) -> (Code, &'static str) {
    match kind {
        ElementKind::SwitchUplink => (
            Code::UplinkSaturates,
            "a switched layout trades bandwidth for bays: for bandwidth, spread the drives over more uplinks or choose a direct-attached layout",
        ),
        ElementKind::Fabric => (
            Code::SharedSaturates,
            "keep each device's work on its own socket's memory (NUMA-local), or spread the devices over both sockets",
        ),
        ElementKind::Transit | ElementKind::NodeLimit => (
            Code::SharedSaturates,
            "spread the drives over more controllers, or use NVMe bays for bandwidth",
        ),
        _ => (
            Code::SharedSaturates,
            "move devices below another port to spread the load",
        ),
    }
}

/// The tail naming the fair shares of the devices an element limits (empty: none).
fn each_share(limited: Option<&Vec<f64>>) -> String {
    let mut shares: Vec<f64> = limited.cloned().unwrap_or_default();
    shares.sort_by(f64::total_cmp);
    match (shares.first(), shares.last()) {
        (Some(a), Some(b)) if (a - b).abs() < 0.005 => {
            format!("; all at once each device gets {} read", gbs(*a))
        }
        (Some(a), Some(b)) => format!("; all at once the devices get {a:.2}-{b:.2} GB/s read"),
        _ => String::new(),
    }
}

/// A group of downtrained devices: part label, trained, max, held by, fix.
type DowntrainKey = (String, String, String, String, String);

/// LP0202: devices trained below their maximum that lose bandwidth, grouped.
fn downtrained(f: &Facts, out: &mut Vec<Finding>) {
    let r = f.r;
    let mut groups: BTreeMap<DowntrainKey, Vec<usize>> = BTreeMap::new();
    for (i, d) in r.devices.iter().enumerate() {
        let Some(el) = f.link_above(d.node) else {
            continue;
        };
        let Some(dt) = &el.element.downtrained else {
            continue;
        };
        if d.read.alone_gbs >= d.read.spec_gbs && d.write.alone_gbs >= d.write.spec_gbs {
            continue;
        }
        groups
            .entry((
                d.label.clone(),
                dt.trained.clone(),
                dt.max.clone(),
                dt.held_by.clone(),
                dt.fix.clone().unwrap_or_default(),
            ))
            .or_default()
            .push(i);
    }
    for (key, ids) in groups {
        out.push(downtrained_group(f, key, &ids));
    }
}

/// The LP0202 finding of one group of devices trained below their maximum.
fn downtrained_group(f: &Facts, key: DowntrainKey, ids: &[usize]) -> Finding {
    let (r, t) = (f.r, f.t);
    let (label, trained, max, held, fix) = key;
    let first = &r.devices[ids[0]];
    let lost = |dir: Dir| -> f64 {
        ids.iter()
            .map(|&i| {
                let x = r.devices[i].dir(dir);
                x.spec_gbs - x.alone_gbs
            })
            .fold(0.0, |a, b| a + b)
    };
    let nodes: Vec<NodeIndex> = ids.iter().map(|&i| r.devices[i].node).collect();
    let mut out = Finding::of(
        Code::LinkLosesBandwidth,
        format!(
            "{} x {label} ({}) train at {trained} instead of {max}, held by {held}: read ceiling {} each instead of {} ({} lost in all), write {} instead of {} ({} lost)",
            ids.len(),
            places(t, &nodes),
            gbs(first.read.alone_gbs),
            gbs(first.read.spec_gbs),
            gbs(lost(Dir::Read)),
            gbs(first.write.alone_gbs),
            gbs(first.write.spec_gbs),
            gbs(lost(Dir::Write)),
        ),
    )
    .at(loc(t, Some(first.node)));
    if !fix.is_empty() {
        out = out.with_help(format!("fit {fix} to run them at {max}"));
    }
    out
}

/// A socket's platform label (CPU1, CPU2): the one numbering everywhere.
fn socket_label(t: &Topology, index: u8) -> String {
    t.sockets()
        .into_iter()
        .map(|s| t.node(s))
        .find(|n| matches!(n.kind, NodeKind::Socket { index: i, .. } if i == index))
        .map_or_else(|| format!("socket {index}"), |n| n.label.clone())
}

/// LP0203: traffic crossing sockets, one finding per socket the devices sit on.
fn cross_socket(f: &Facts, out: &mut Vec<Finding>) {
    if !matches!(f.opts.memory, Memory::Socket(_)) {
        return;
    }
    let r = f.r;
    let mut by_socket: BTreeMap<u8, Vec<usize>> = BTreeMap::new();
    for (i, d) in r.devices.iter().enumerate() {
        if d.crosses_sockets {
            by_socket.entry(d.socket.unwrap_or(0)).or_default().push(i);
        }
    }
    for (s, ids) in by_socket {
        out.push(cross_socket_group(f, s, &ids));
    }
}

/// The LP0203 finding of the devices on socket `s` whose traffic crosses sockets.
fn cross_socket_group(f: &Facts, s: u8, ids: &[usize]) -> Finding {
    let r = f.r;
    // The report's memory target is already the platform's label.
    let k = r.memory.to_string();
    let sum = |dir: Dir| -> f64 {
        ids.iter()
            .map(|&i| r.devices[i].dir(dir).alone_gbs)
            .fold(0.0, |a, b| a + b)
    };
    let fabric: Vec<&str> = r
        .elements
        .iter()
        .filter(|e| e.element.kind == ElementKind::Fabric && e.devices > 0)
        .map(|e| e.element.label.as_str())
        .collect();
    let saturated = r
        .elements
        .iter()
        .any(|e| e.element.kind == ElementKind::Fabric && (e.read.saturated || e.write.saturated));
    let msg = format!(
        "{} devices on {} send their traffic to {k}'s memory over {}: {} read and {} write at their ceilings",
        ids.len(),
        socket_label(f.t, s),
        fabric.join(", "),
        gbs(sum(Dir::Read)),
        gbs(sum(Dir::Write)),
    );
    let out = if saturated {
        Finding::with_severity(Code::CrossSocket, Severity::Warning, msg)
    } else {
        Finding::of(Code::CrossSocket, msg)
    };
    out.with_help(
        "NUMA-local work (`--memory local`) keeps this traffic off the inter-socket links",
    )
    .at(loc(f.t, Some(r.devices[ids[0]].node)))
}

/// LP0204: a spec above what the device's own link carries, grouped by part and link.
fn spec_above_link(f: &Facts, out: &mut Vec<Finding>) {
    let r = f.r;
    let mut faster: BTreeMap<(String, String, bool), Vec<usize>> = BTreeMap::new();
    for (i, d) in r.devices.iter().enumerate() {
        let Some(el) = f
            .link_above(d.node)
            .filter(|el| el.element.downtrained.is_none())
        else {
            continue;
        };
        let over = Dir::BOTH.into_iter().any(|dir| {
            el.dir(dir)
                .capacity_gbs
                .is_some_and(|c| d.dir(dir).spec_gbs > c + 1e-9)
        });
        if over {
            let generic = link_name(&el.element);
            faster
                .entry((d.label.clone(), generic, el.element.passive.is_some()))
                .or_default()
                .push(i);
        }
    }
    for ((label, link, _), ids) in faster {
        out.push(spec_above_link_group(f, &label, &link, &ids));
    }
}

/// How LP0204 names a device's own link: its rate (`Gen4 x4`, `12 Gb/s`), else its label.
fn link_name(el: &Element) -> String {
    match (el.kind, &el.rate) {
        (ElementKind::Link | ElementKind::StorageLink, Some(rate)) => rate.clone(),
        _ => el.label.clone(),
    }
}

/// The LP0204 finding of one part whose spec is above its own `link`'s ceiling.
fn spec_above_link_group(f: &Facts, label: &str, link: &str, ids: &[usize]) -> Finding {
    let r = f.r;
    let d = &r.devices[ids[0]];
    let el = f
        .link_above(d.node)
        .map(|e| {
            (
                e.read.capacity_gbs.unwrap_or(0.0),
                e.write.capacity_gbs.unwrap_or(0.0),
                e.element.kind == ElementKind::Link,
            )
        })
        .unwrap_or_default();
    let model = if el.2 {
        format!(" under the {} model", r.model.name())
    } else {
        " at its line rate".to_string()
    };
    let msg = format!(
        "{label} ({} x): spec {} read / {} write, above the ceiling of its {link} link{model} ({} to host, {} to device): the link is the limit",
        ids.len(),
        gbs(d.read.spec_gbs),
        gbs(d.write.spec_gbs),
        gbs(el.0),
        gbs(el.1),
    );
    Finding::of(Code::SpecAboveLink, msg)
        .with_help("the expected figure is the link's ceiling: the spec is likely a dual-port, wider-link or rounded figure")
        .at(loc(f.t, Some(d.node)))
}
