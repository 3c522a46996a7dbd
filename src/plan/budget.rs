//! Lane budgets: per root complex and per socket, what is available, what each consumer
//! takes, and what is left.

use super::instantiate::Plan;
use crate::topology::{DeviceClass, Link, NodeKind};
use petgraph::stable_graph::NodeIndex;
use serde::Serialize;

/// One user of lanes: a slot with its card, a switch uplink, a direct-cabled bay, a
/// built-in device.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Consumer {
    /// Where the lanes go: `Slot 1`, `Bay 3`, `rNDC`.
    pub port: String,
    /// What uses them, if anything is installed.
    pub part: Option<String>,
    pub class: Option<DeviceClass>,
    /// Lanes wired to the port.
    pub wired: u16,
    /// Lanes the installed part takes: its trained width, rounded up to the x4 a root port
    /// splits into at the finest (0 when empty).
    pub used: u16,
    /// The installed part's own trained width.
    pub trained: u16,
    /// NVMe drives these lanes carry.
    pub nvme_drives: u16,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RootComplexBudget {
    pub id: String,
    pub label: String,
    pub lanes: u16,
    pub wired: u16,
    pub used: u16,
    pub free: i32,
    /// False for DMI: beside the socket's PCIe lanes, not part of them.
    pub in_socket_budget: bool,
    pub inferred: bool,
    pub consumers: Vec<Consumer>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SocketBudget {
    /// The socket's index (0-based), what findings about it name.
    #[serde(skip)]
    pub index: u8,
    pub id: String,
    pub label: String,
    pub lanes: u16,
    pub used: u16,
    pub free: i32,
    pub root_complexes: Vec<RootComplexBudget>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Budget {
    pub sockets: Vec<SocketBudget>,
    pub total_lanes: u16,
    pub total_used: u16,
    /// Lanes used by NVMe drives (their share of extender cards, switches, direct ports).
    pub nvme_lanes: u16,
    pub nvme_drives: u16,
    /// Lanes outside the socket budgets (DMI).
    pub outside_budget: Vec<Consumer>,
}

/// Computes the budget of a plan.
pub fn budget(plan: &Plan) -> Budget {
    let t = &plan.topology;
    let mut sockets = Vec::new();
    let mut outside = Vec::new();
    let (mut nvme_lanes, mut nvme_drives) = (0u16, 0u16);
    for s in t.sockets() {
        let node = t.node(s);
        let NodeKind::Socket { lanes, index, .. } = node.kind else {
            continue;
        };
        let mut rcs = Vec::new();
        let mut used_socket = 0u16;
        for rc in t.children(s) {
            let rcn = t.node(rc);
            let NodeKind::RootComplex { lanes: rl, .. } = rcn.kind else {
                continue;
            };
            let def = plan.rc_defs.get(&rcn.id);
            let in_budget = def.map(|d| d.in_socket_budget).unwrap_or(true);
            let consumers: Vec<Consumer> = t
                .children(rc)
                .into_iter()
                .map(|port| consumer(plan, port))
                .collect();
            let wired: u16 = consumers.iter().map(|c| c.wired).sum();
            let used: u16 = consumers.iter().map(|c| c.used).sum();
            for c in &consumers {
                nvme_drives += c.nvme_drives;
                if c.nvme_drives > 0 {
                    nvme_lanes += c.used;
                }
            }
            if in_budget {
                used_socket += used;
            } else {
                outside.extend(consumers.iter().cloned());
            }
            rcs.push(RootComplexBudget {
                id: rcn.id.clone(),
                label: rcn.label.clone(),
                lanes: rl,
                wired,
                used,
                free: i32::from(rl) - i32::from(used),
                in_socket_budget: in_budget,
                inferred: rcn.confidence == crate::topology::Confidence::Inferred,
                consumers,
            });
        }
        sockets.push(SocketBudget {
            index,
            id: node.id.clone(),
            label: node.label.clone(),
            lanes,
            used: used_socket,
            free: i32::from(lanes) - i32::from(used_socket),
            root_complexes: rcs,
        });
    }
    Budget {
        total_lanes: sockets.iter().map(|s| s.lanes).sum(),
        total_used: sockets.iter().map(|s| s.used).sum(),
        sockets,
        nvme_lanes,
        nvme_drives,
        outside_budget: outside,
    }
}

/// What hangs below a root port, and the lanes it takes.
fn consumer(plan: &Plan, port: NodeIndex) -> Consumer {
    let t = &plan.topology;
    let wired = match t.node(port).kind {
        NodeKind::RootPort { width, .. } => u16::from(width),
        _ => 0,
    };
    // The label users know: the slot or the bay below the port, else the device on it (a
    // built-in's port), else the port's own label. Taken from the nodes, never from text.
    let mut label: Option<String> = None;
    let mut part = None;
    let mut class = None;
    let mut used = 0u16;
    let mut trained = 0u16;
    // First PCIe link below the port: its trained width is what the port uses.
    let mut stack = vec![port];
    let mut first_link_done = false;
    while let Some(ix) = stack.pop() {
        let n = t.node(ix);
        match &n.kind {
            NodeKind::Slot { .. } | NodeKind::Bay { .. } => label = Some(n.label.clone()),
            NodeKind::Switch { .. } if !first_link_done => {
                part = Some(n.label.clone());
            }
            NodeKind::Device { class: c, .. } if !first_link_done => {
                part = Some(n.label.clone());
                class = Some(*c);
            }
            NodeKind::Pch if !first_link_done => {
                part = Some(n.label.clone());
                class = Some(DeviceClass::Other);
            }
            _ => {}
        }
        if let Some((_, e)) = t.parent_edge(ix)
            && !first_link_done
            && let Link::Pcie { rate, .. } = &t.graph[e]
        {
            // Root ports split no finer than x4: an x1 or x2 device ties up four lanes.
            trained = u16::from(rate.width);
            used = u16::from(rate.width)
                .max(4)
                .min(wired.max(u16::from(rate.width)));
            first_link_done = true;
        }
        if !first_link_done {
            for c in t.children(ix).into_iter().rev() {
                stack.push(c);
            }
        }
    }
    let label = label
        .or_else(|| part.clone())
        .unwrap_or_else(|| t.node(port).label.clone());
    let nvme_drives = t
        .depth_first_from(port)
        .into_iter()
        .filter(|&d| {
            matches!(
                t.node(d).kind,
                NodeKind::Device {
                    class: DeviceClass::Nvme,
                    ..
                }
            )
        })
        .count() as u16;
    Consumer {
        port: label,
        part,
        class,
        wired,
        used,
        trained,
        nvme_drives,
    }
}
