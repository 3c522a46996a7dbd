//! Graphviz DOT, written by hand (petgraph's `Dot` has no clusters): a cluster per socket and
//! per switch, PCIe edges labelled `Gen3 x16 · 12.99 GB/s` (the model's device-to-host
//! figure), edges coloured by utilization under the all-at-once read flow (fair shares).
//! Ids are quoted and every list is sorted, so the output is stable for snapshots.

use crate::flow::{FlowReport, net::ElementKind};
use crate::pcie::{Model, serial_lane_gbs};
use crate::topology::{Link, NodeKind, Topology};
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// Colours by utilization (read, fair shares): idle, under half, under 90 %, busy, saturated.
pub const COLOURS: [(&str, &str); 5] = [
    ("gray60", "no traffic"),
    ("#2e7d32", "under 50 %"),
    ("#f9a825", "50-90 %"),
    ("#ef6c00", "over 90 %"),
    ("#c62828", "saturated: throughput lost here"),
];

/// An edge that carries traffic but has no limit of its own to measure it against (a switch's
/// internal hop to its port, a path without a flow element).
pub const INTERNAL: (&str, &str) = ("gray30", "carries traffic, no limit of its own");

fn q(s: &str) -> String {
    crate::escape::dot(s)
}

fn colour(util: Option<f64>, saturated: bool) -> &'static str {
    if saturated {
        return COLOURS[4].0;
    }
    match util {
        None => COLOURS[0].0,
        Some(u) if u <= 0.0 => COLOURS[0].0,
        Some(u) if u < 0.5 => COLOURS[1].0,
        Some(u) if u < 0.9 => COLOURS[2].0,
        Some(_) => COLOURS[3].0,
    }
}

fn edge_label(link: &Link, model: Model) -> Option<String> {
    match link {
        Link::Pcie { rate, .. } => Some(format!(
            "{} · {:.2} GB/s",
            rate.short(),
            rate.to_host_gbs(model)
        )),
        Link::Storage { protocol, gbps } => Some(format!(
            "{} {gbps} Gb/s · {:.2} GB/s",
            format!("{protocol:?}").to_uppercase(),
            serial_lane_gbs(*gbps)
        )),
        // The fabric's own spelling (`xGMI`, `UPI`), never an upper-cased enum name.
        Link::Fabric {
            fabric,
            links,
            gbs_per_direction,
        } => Some(format!("{fabric} x{links} · {gbs_per_direction:.1} GB/s")),
        Link::Attach => None,
    }
}

/// Sort key that orders digit runs by value: `bay2` before `bay10`, as the chassis does.
fn natural(s: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut n = c.to_digit(10).unwrap_or(0) as u64;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(d as u64);
                chars.next();
            }
            key.push((std::mem::take(&mut text), n));
        } else {
            text.push(c);
        }
    }
    key.push((text, 0));
    key
}

/// The cluster a node belongs to: the nearest switch above or at it, else its socket.
fn cluster_of(t: &Topology, ix: NodeIndex) -> Option<NodeIndex> {
    t.ancestors(ix).find(|&n| {
        matches!(
            t.node(n).kind,
            NodeKind::Switch { .. } | NodeKind::Socket { .. }
        )
    })
}

/// DOT text for a topology, with the flow report's utilization when there is one.
pub fn dot(t: &Topology, flow: Option<&FlowReport>, model: Model) -> String {
    let marks = FlowMarks::of(t, flow);
    let groups = Clusters::of(t, &marks.node_extra);

    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", q(&t.name));
    let _ = writeln!(
        out,
        "  graph [rankdir=LR, fontname=\"Helvetica\", label={}, labelloc=t];",
        q(&format!("{} ({})", t.name, model.describe()))
    );
    let _ = writeln!(
        out,
        "  node [fontname=\"Helvetica\", fontsize=10, fillcolor=\"#f5f5f5\"];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=9];");
    groups.write(&mut out, t);
    edge_lines(&mut out, t, &marks, model);
    legend_line(&mut out);
    out.push_str("}\n");
    out
}

/// What the read flow marks on the picture.
struct FlowMarks {
    /// Edge -> (utilization, saturated) under the read flow.
    edge_util: HashMap<EdgeIndex, (Option<f64>, bool)>,
    /// Node -> its device or limit lines.
    node_extra: HashMap<NodeIndex, String>,
    fabric_util: Option<(Option<f64>, bool)>,
    /// Nodes on the path of some device's read traffic (the device and everything above it):
    /// an edge into one carries traffic even where it has no limit of its own.
    carries: std::collections::HashSet<NodeIndex>,
}

impl FlowMarks {
    fn of(t: &Topology, flow: Option<&FlowReport>) -> Self {
        let mut m = FlowMarks {
            edge_util: HashMap::new(),
            node_extra: HashMap::new(),
            fabric_util: None,
            carries: std::collections::HashSet::new(),
        };
        if let Some(f) = flow {
            m.add_elements(f);
            m.add_devices(f);
            for d in f.devices.iter().filter(|d| d.read.share_gbs > 0.0) {
                m.carries.extend(t.ancestors(d.node));
            }
        }
        m
    }

    fn add_elements(&mut self, f: &FlowReport) {
        for e in &f.elements {
            let util = e.read.utilization.map(|u| {
                if e.element.passive.is_some() {
                    u.min(0.99)
                } else {
                    u
                }
            });
            let v = (util, e.read.saturated);
            if let Some(edge) = e.element.edge {
                self.edge_util.insert(edge, v);
            }
            if e.element.kind == ElementKind::Fabric {
                self.fabric_util = Some(v);
            }
            if matches!(
                e.element.kind,
                ElementKind::Transit | ElementKind::NodeLimit
            ) && let Some(n) = e.element.node
            {
                let line = format!(
                    "limit {:.2} GB/s{}",
                    e.read.capacity_gbs.unwrap_or(0.0),
                    if e.read.saturated { " (saturated)" } else { "" }
                );
                self.node_extra
                    .entry(n)
                    .and_modify(|s| {
                        s.push('\n');
                        s.push_str(&line)
                    })
                    .or_insert(line);
            }
        }
    }

    fn add_devices(&mut self, f: &FlowReport) {
        for d in &f.devices {
            self.node_extra.insert(
                d.node,
                format!(
                    "ceiling {:.2} / {:.2} GB/s r/w\nexpected {:.2} / {:.2}\nat once {:.2} / {:.2}",
                    d.read.ceiling_gbs,
                    d.write.ceiling_gbs,
                    d.read.alone_gbs,
                    d.write.alone_gbs,
                    d.read.share_gbs,
                    d.write.share_gbs
                ),
            );
        }
    }
}

/// Node lines per cluster (socket or switch), sorted by id (numbers by value) when written.
struct Clusters {
    clusters: BTreeMap<String, Vec<(String, String)>>,
    loose: Vec<(String, String)>,
    switch_parent: BTreeMap<String, String>,
    labels: BTreeMap<String, String>,
}

impl Clusters {
    fn of(t: &Topology, node_extra: &HashMap<NodeIndex, String>) -> Self {
        let mut g = Clusters {
            clusters: BTreeMap::new(),
            loose: Vec::new(),
            switch_parent: BTreeMap::new(),
            labels: BTreeMap::new(),
        };
        for ix in t.graph.node_indices() {
            let n = t.node(ix);
            let line = node_line(t, ix, node_extra.get(&ix));
            match cluster_of(t, ix) {
                Some(c) => {
                    let cid = t.node(c).id.clone();
                    if matches!(t.node(c).kind, NodeKind::Switch { .. }) {
                        let outer = t
                            .parent(c)
                            .and_then(|p| cluster_of(t, p))
                            .map(|p| t.node(p).id.clone())
                            .unwrap_or_default();
                        g.switch_parent.insert(cid.clone(), outer);
                    }
                    g.labels.insert(cid.clone(), t.node(c).label.clone());
                    g.clusters
                        .entry(cid)
                        .or_default()
                        .push((n.id.clone(), line));
                }
                None => g.loose.push((n.id.clone(), line)),
            }
        }
        g
    }

    /// Sockets first, each with its switch clusters nested; then switches whose socket is
    /// unknown (a loose subtree), then the loose nodes.
    fn write(mut self, out: &mut String, t: &Topology) {
        let mut sockets: Vec<String> = t.sockets().iter().map(|&s| t.node(s).id.clone()).collect();
        sockets.sort_by_cached_key(|id| natural(id));
        for s in &sockets {
            self.write_cluster(out, s, 1);
        }
        for (sw, parent) in &self.switch_parent {
            if parent.is_empty() {
                self.write_cluster(out, sw, 1);
            }
        }
        self.loose.sort_by_cached_key(|(id, _)| natural(id));
        for (_, l) in &self.loose {
            let _ = writeln!(out, "  {l}");
        }
    }

    fn write_cluster(&self, out: &mut String, id: &str, depth: usize) {
        let pad = "  ".repeat(depth);
        let _ = writeln!(out, "{pad}subgraph {} {{", q(&format!("cluster_{id}")));
        let _ = writeln!(
            out,
            "{pad}  label={};",
            q(self.labels.get(id).map(String::as_str).unwrap_or(id))
        );
        if let Some(nodes) = self.clusters.get(id) {
            let mut nodes = nodes.clone();
            nodes.sort_by_cached_key(|(id, _)| natural(id));
            for (_, l) in nodes {
                let _ = writeln!(out, "{pad}  {l}");
            }
        }
        for (sw, parent) in &self.switch_parent {
            if parent == id {
                self.write_cluster(out, sw, depth + 1);
            }
        }
        let _ = writeln!(out, "{pad}}}");
    }
}

/// A node's statement: its label (with the flow's lines), shape and style.
fn node_line(t: &Topology, ix: NodeIndex, extra: Option<&String>) -> String {
    let n = t.node(ix);
    let mut label = n.label.clone();
    if let Some(x) = extra {
        label = format!("{label}\n{x}");
    }
    let shape = match n.kind {
        NodeKind::Socket { .. } => "box3d",
        NodeKind::Device { .. } => "box",
        NodeKind::Switch { .. } => "hexagon",
        _ => "box",
    };
    let style = match n.kind {
        NodeKind::Device { .. } | NodeKind::Switch { .. } | NodeKind::Socket { .. } => "filled",
        _ => "rounded",
    };
    format!(
        "{} [label={}, shape={shape}, style={}];",
        q(&n.id),
        q(&label),
        q(style)
    )
}

/// Edges, sorted by (from, to).
fn edge_lines(out: &mut String, t: &Topology, marks: &FlowMarks, model: Model) {
    let mut edges: Vec<(String, String, String)> = Vec::new();
    for e in t.graph.edge_references() {
        let (a, b) = (&t.node(e.source()).id, &t.node(e.target()).id);
        let attrs = edge_attrs(e.weight(), e.id(), e.target(), marks, model);
        edges.push((a.clone(), b.clone(), attrs.join(", ")));
    }
    edges.sort_by_cached_key(|(a, b, _)| (natural(a), natural(b)));
    for (a, b, attrs) in edges {
        let _ = writeln!(out, "  {} -> {} [{attrs}];", q(&a), q(&b));
    }
}

/// An edge's attributes: its label and its colour under the read flow.
fn edge_attrs(
    link: &Link,
    id: EdgeIndex,
    target: NodeIndex,
    marks: &FlowMarks,
    model: Model,
) -> Vec<String> {
    let mut attrs = Vec::new();
    if let Some(l) = edge_label(link, model) {
        attrs.push(format!("label={}", q(&l)));
    }
    let busy = marks.carries.contains(&target);
    match link {
        Link::Attach if busy => attrs.push(format!(
            "color={}, arrowhead=none, tooltip=\"internal hop: carries traffic, no limit of its own\"",
            q(INTERNAL.0)
        )),
        Link::Attach => attrs.push("style=dashed, color=\"gray70\", arrowhead=none".into()),
        Link::Fabric { .. } => {
            let (u, s) = marks.fabric_util.unwrap_or((None, false));
            attrs.push(format!("dir=both, penwidth=2, color={}", q(colour(u, s))));
        }
        _ => {
            let (u, s) = marks.edge_util.get(&id).copied().unwrap_or((None, false));
            let c = if u.is_none() && busy {
                INTERNAL.0
            } else {
                colour(u, s)
            };
            attrs.push(format!("color={}", q(c)));
            if let Some(u) = u {
                attrs.push(format!(
                    "tooltip={}",
                    q(&format!("{:.0} % of the read capacity", u * 100.0))
                ));
            }
            if s {
                attrs.push("penwidth=2".into());
            }
        }
    }
    attrs
}

fn legend_line(out: &mut String) {
    let legend: Vec<String> = COLOURS
        .iter()
        .chain(std::iter::once(&INTERNAL))
        .map(|(c, what)| format!("<font color=\"{c}\">&#9632;</font> {what}"))
        .collect();
    let _ = writeln!(
        out,
        "  \"legend\" [shape=plaintext, label=<read utilization (all at once)<br/>{}>];",
        legend.join("<br/>")
    );
}
