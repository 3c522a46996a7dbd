//! The one model every source feeds and every view reads: a directed graph whose edges point
//! from the host side (sockets) towards the devices. Planned topologies (platform + build)
//! and live ones (sysfs, lspci dumps) are the same type, so an audit is a comparison of two
//! `Topology` values and every renderer works on both.
//!
//! Invariants:
//! * Node ids are unique, stable strings (`cpu1/stack1/slot1/card/p0/bay3/drive`, or a BDF
//!   for live nodes); `Topology::node_by_id` finds them.
//! * Every node but a socket has at most one parent through a PCIe, storage or attach edge:
//!   the graph minus inter-socket edges is a forest rooted at sockets. Inter-socket links are
//!   edges between socket nodes and are skipped by path queries.
//! * A `Pcie` edge carries the link that trains on it (`rate`) and what its ends can do
//!   (`max`). Passive parts on a path (riser, slot, cable, backplane, bay) are nodes whose
//!   `rated_gen` caps the link through them.

use crate::pcie::{Gen, LinkRate};
use foldhash::HashMap;
use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use serde::Serialize;

/// How sure a value is (platform-facts.md labels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, Default, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Read in a public source, named in `source`.
    #[default]
    Documented,
    /// A published vendor figure.
    Spec,
    /// Inferred from lane budgets where no source was found: verify on a real host.
    Inferred,
    /// Read off a live host.
    Measured,
    /// Confirmed by a real capture of the model (named in `source`, beside the source the
    /// value first came from): the best confidence.
    Confirmed,
}

impl Confidence {
    /// Marker appended to values users should verify.
    pub fn marker(self) -> &'static str {
        match self {
            Confidence::Inferred => " [inferred]",
            _ => "",
        }
    }
}

/// What a device is, coarse enough for lspci class codes and a parts catalogue alike.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, Hash, PartialOrd, Ord,
)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceClass {
    Nvme,
    SasDrive,
    SataDrive,
    Raid,
    Hba,
    Nic,
    Boot,
    Gpu,
    Extender,
    Other,
}

impl DeviceClass {
    /// Every class as files and `--class` spell it.
    pub const NAMES: [&'static str; 10] = [
        "nvme",
        "sas-drive",
        "sata-drive",
        "raid",
        "hba",
        "nic",
        "boot",
        "gpu",
        "extender",
        "other",
    ];

    pub fn is_drive(self) -> bool {
        matches!(
            self,
            DeviceClass::Nvme | DeviceClass::SasDrive | DeviceClass::SataDrive
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            DeviceClass::Nvme => "NVMe drive",
            DeviceClass::SasDrive => "SAS drive",
            DeviceClass::SataDrive => "SATA drive",
            DeviceClass::Raid => "RAID controller",
            DeviceClass::Hba => "HBA",
            DeviceClass::Nic => "NIC",
            DeviceClass::Boot => "boot card",
            DeviceClass::Gpu => "GPU",
            DeviceClass::Extender => "extender card",
            DeviceClass::Other => "device",
        }
    }
}

/// Performance spec of a part, per direction as the vendor states it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize, Default)]
pub struct Perf {
    /// Sequential read, GB/s (device to host).
    pub seq_read_gbs: f64,
    /// Sequential write, GB/s (host to device).
    pub seq_write_gbs: f64,
    /// 4K random read IOPS; 0 when the part's file gives none (a NIC): `null` in JSON.
    #[serde(default, serialize_with = "unknown_as_null")]
    pub rand_read_iops: f64,
    /// 4K random write IOPS; 0 when the part's file gives none: `null` in JSON.
    #[serde(default, serialize_with = "unknown_as_null")]
    pub rand_write_iops: f64,
}

/// An IOPS figure the parts file does not give is stored as 0 and written as `null`, so a
/// reader of the JSON never takes "unknown" for "does no I/O".
fn unknown_as_null<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if *v > 0.0 {
        s.serialize_f64(*v)
    } else {
        s.serialize_none()
    }
}

/// PCI identity of a live function (empty for planned nodes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct PciIdent {
    /// `0000:3b:00.0`
    #[serde(serialize_with = "crate::pci::ser_bdf")]
    pub bdf: crate::pci::Bdf,
    pub vendor: u16,
    pub device: u16,
    pub class: u32,
    pub numa_node: Option<u32>,
    pub slot: Option<String>,
    pub driver: Option<String>,
}

/// A bay's number as its platform file names it (`bays = "0-23"`): 32 bits, so a generated
/// or very large chassis may have more than 65,536 bays (the lists stay bounded: see
/// `platform::schema::MAX_LIST_BAYS`).
pub type BayNumber = u32;

/// The kinds of node the model knows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum NodeKind {
    Socket {
        index: u8,
        /// PCIe lanes the socket offers for devices.
        lanes: u16,
        /// NUMA nodes (dies) of the socket.
        numa_nodes: Vec<u32>,
    },
    /// A group of lanes with its own root complex (an IIO stack, an EPYC x16 block, DMI).
    RootComplex {
        lanes: u16,
        numa_node: Option<u32>,
        generation: Gen,
    },
    RootPort {
        width: u8,
        generation: Gen,
    },
    Pch,
    /// A switch's upstream port (the switch itself).
    Switch {
        part: Option<String>,
    },
    /// A switch downstream port.
    SwitchPort {
        width: u8,
        generation: Gen,
        /// The downstream port's number on its switch (`Downstream port 3`), where the plan
        /// numbers it; `None` for an uplink port and a live port. Not serialised (the label
        /// says it).
        #[serde(skip)]
        number: Option<u32>,
    },
    /// A PCI bridge that is neither a root port nor a switch port (live only).
    Bridge,
    Riser,
    Slot {
        electrical: u8,
        mechanical: u8,
    },
    Backplane,
    /// A cable from a bifurcated slot's lanes to a bay: `port` is its x4 group on the card
    /// (0-based), the number people read (`Port 0`); not serialised (the label says it).
    Cable {
        #[serde(skip)]
        port: u8,
    },
    Bay {
        number: BayNumber,
    },
    Device {
        class: DeviceClass,
        part: Option<String>,
        perf: Option<Box<Perf>>,
    },
}

impl NodeKind {
    pub fn name(&self) -> &'static str {
        match self {
            NodeKind::Socket { .. } => "socket",
            NodeKind::RootComplex { .. } => "root complex",
            NodeKind::RootPort { .. } => "root port",
            NodeKind::Pch => "PCH",
            NodeKind::Switch { .. } => "switch",
            NodeKind::SwitchPort { .. } => "switch port",
            NodeKind::Bridge => "bridge",
            NodeKind::Riser => "riser",
            NodeKind::Slot { .. } => "slot",
            NodeKind::Backplane => "backplane",
            NodeKind::Cable { .. } => "cable",
            NodeKind::Bay { .. } => "bay",
            NodeKind::Device { .. } => "device",
        }
    }

    /// Ports where a link is negotiated afresh (link training ends here going upstream).
    pub fn is_link_partner(&self) -> bool {
        matches!(
            self,
            NodeKind::RootPort { .. }
                | NodeKind::SwitchPort { .. }
                | NodeKind::Bridge
                | NodeKind::Device { .. }
                | NodeKind::Switch { .. }
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    pub id: String,
    pub label: String,
    #[serde(flatten)]
    pub kind: NodeKind,
    /// Highest generation a passive part (riser, cable, backplane) carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rated_gen: Option<Gen>,
    pub confidence: Confidence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Boxed: most nodes (every planned one) have none, and nodes are many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pci: Option<Box<PciIdent>>,
    /// A remark for people (`reserved for the NVMe extender cards`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// A throughput limit of the node itself (a controller's SAS/SATA side, a root complex's
    /// stated limit); the bandwidth analysis (`flow`) counts it on every path through the node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<Box<NodeLimit>>,
}

/// A node's own throughput limit, per direction in GB/s, and what it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeLimit {
    /// Device to host.
    pub read_gbs: f64,
    /// Host to device.
    pub write_gbs: f64,
    /// What the limit is, for reports: `SAS side 8 x 12 Gb/s`.
    pub what: String,
}

impl Node {
    pub fn new(id: impl Into<String>, label: impl Into<String>, kind: NodeKind) -> Self {
        Node {
            id: id.into(),
            label: label.into(),
            kind,
            rated_gen: None,
            confidence: Confidence::Documented,
            source: None,
            pci: None,
            note: None,
            limit: None,
        }
    }
}

/// Interconnect between sockets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum FabricKind {
    Upi,
    Xgmi,
    /// Intel QuickPath Interconnect (Xeon E5 v1-v4).
    Qpi,
}

impl std::fmt::Display for FabricKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FabricKind::Upi => "UPI",
            FabricKind::Xgmi => "xGMI",
            FabricKind::Qpi => "QPI",
        })
    }
}

/// Storage protocols below a controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageProtocol {
    Sas,
    Sata,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Link {
    /// A PCIe link: what trains (`rate`) and the most its ends could do (`max`).
    Pcie {
        rate: LinkRate,
        max: Option<LinkRate>,
    },
    /// SAS/SATA between a controller and a bay.
    Storage {
        protocol: StorageProtocol,
        gbps: f64,
    },
    /// Inter-socket links, bandwidth per direction in GB/s.
    Fabric {
        fabric: FabricKind,
        links: u8,
        gbs_per_direction: f64,
    },
    /// Containment without a link of its own (socket -> root complex, riser -> slot).
    Attach,
}

impl Link {
    pub fn pcie(&self) -> Option<&LinkRate> {
        match self {
            Link::Pcie { rate, .. } => Some(rate),
            _ => None,
        }
    }
}

/// The topology graph.
#[derive(Debug, Clone, Default)]
pub struct Topology {
    pub name: String,
    pub graph: StableDiGraph<Node, Link>,
    index: HashMap<String, NodeIndex>,
}

/// Adding a node whose id exists already.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("duplicate node id `{0}`")]
pub struct DuplicateId(pub String);

impl Topology {
    pub fn new(name: impl Into<String>) -> Self {
        Topology {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Makes room for about `nodes` more nodes (and as many edges, a tree's count).
    pub fn reserve(&mut self, nodes: usize) {
        self.graph.reserve_nodes(nodes);
        self.graph.reserve_edges(nodes);
        self.index.reserve(nodes);
    }

    pub fn add_node(&mut self, node: Node) -> Result<NodeIndex, DuplicateId> {
        if self.index.contains_key(&node.id) {
            return Err(DuplicateId(node.id));
        }
        let id = node.id.clone();
        let ix = self.graph.add_node(node);
        self.index.insert(id, ix);
        Ok(ix)
    }

    /// Links `child` below `parent`.
    pub fn link(&mut self, parent: NodeIndex, child: NodeIndex, link: Link) -> EdgeIndex {
        self.graph.add_edge(parent, child, link)
    }

    pub fn node_by_id(&self, id: &str) -> Option<NodeIndex> {
        self.index.get(id).copied()
    }

    pub fn node(&self, ix: NodeIndex) -> &Node {
        &self.graph[ix]
    }

    pub fn node_mut(&mut self, ix: NodeIndex) -> &mut Node {
        &mut self.graph[ix]
    }

    /// The edge from the parent of `ix`, skipping inter-socket links.
    pub fn parent_edge(&self, ix: NodeIndex) -> Option<(NodeIndex, EdgeIndex)> {
        self.graph
            .edges_directed(ix, Direction::Incoming)
            .find(|e| !matches!(e.weight(), Link::Fabric { .. }))
            .map(|e| (e.source(), e.id()))
    }

    pub fn parent(&self, ix: NodeIndex) -> Option<NodeIndex> {
        self.parent_edge(ix).map(|(p, _)| p)
    }

    /// Children in insertion order (stable output).
    pub fn children(&self, ix: NodeIndex) -> Vec<NodeIndex> {
        let mut kids = Vec::new();
        self.children_into(ix, &mut kids);
        kids.into_iter().map(|(_, n)| n).collect()
    }

    /// `ix`'s children with their edges, in insertion (edge) order, into `kids` (cleared
    /// first): the one definition of a child, for callers that reuse a buffer.
    fn children_into(&self, ix: NodeIndex, kids: &mut Vec<(EdgeIndex, NodeIndex)>) {
        kids.clear();
        kids.extend(
            self.graph
                .edges_directed(ix, Direction::Outgoing)
                .filter(|e| !matches!(e.weight(), Link::Fabric { .. }))
                .map(|e| (e.id(), e.target())),
        );
        kids.sort_unstable();
    }

    /// Sockets, ordered by index.
    pub fn sockets(&self) -> Vec<NodeIndex> {
        let mut s: Vec<(u8, NodeIndex)> = self
            .graph
            .node_indices()
            .filter_map(|ix| match self.graph[ix].kind {
                NodeKind::Socket { index, .. } => Some((index, ix)),
                _ => None,
            })
            .collect();
        s.sort();
        s.into_iter().map(|(_, ix)| ix).collect()
    }

    /// Roots of the forest (sockets for a plan; host bridges for a live tree).
    pub fn roots(&self) -> Vec<NodeIndex> {
        let mut r: Vec<NodeIndex> = self
            .graph
            .node_indices()
            .filter(|&ix| self.parent(ix).is_none())
            .collect();
        r.sort();
        r
    }

    /// The path from `ix` up to its root, `ix` first; each step carries the edge above it.
    pub fn path_to_root(&self, ix: NodeIndex) -> Vec<(NodeIndex, Option<EdgeIndex>)> {
        let mut out = Vec::new();
        let mut cur = ix;
        // A forest has no cycles, but a bad live capture might: bound the walk.
        for _ in 0..=self.graph.node_count() {
            let up = self.parent_edge(cur);
            out.push((cur, up.map(|(_, e)| e)));
            match up {
                Some((p, _)) => cur = p,
                None => break,
            }
        }
        out
    }

    /// `ix` and the nodes above it, nearest first, without allocating (searches that stop
    /// early need no whole path). Bounded like `path_to_root`.
    pub fn ancestors(&self, ix: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        std::iter::successors(Some(ix), move |&n| self.parent(n)).take(self.graph.node_count() + 1)
    }

    /// The socket above `ix`, if any.
    pub fn socket_of(&self, ix: NodeIndex) -> Option<NodeIndex> {
        self.ancestors(ix)
            .find(|&n| matches!(self.graph[n].kind, NodeKind::Socket { .. }))
    }

    /// Index of the socket above `ix`.
    pub fn socket_index_of(&self, ix: NodeIndex) -> Option<u8> {
        self.socket_of(ix).and_then(|s| match self.graph[s].kind {
            NodeKind::Socket { index, .. } => Some(index),
            _ => None,
        })
    }

    /// The nearest ancestor (not `ix` itself) matching `pred`.
    pub fn ancestor(&self, ix: NodeIndex, pred: impl Fn(&NodeKind) -> bool) -> Option<NodeIndex> {
        self.ancestors(ix)
            .skip(1)
            .find(|&n| pred(&self.graph[n].kind))
    }

    /// PCIe links on the path from `ix` to its socket, nearest first.
    pub fn pcie_path(&self, ix: NodeIndex) -> Vec<(EdgeIndex, LinkRate)> {
        self.path_to_root(ix)
            .into_iter()
            .filter_map(|(_, e)| e)
            .filter_map(|e| self.graph[e].pcie().map(|r| (e, *r)))
            .collect()
    }

    /// All devices, in a stable order (depth-first from the roots).
    pub fn devices(&self) -> Vec<NodeIndex> {
        self.depth_first()
            .into_iter()
            .filter(|&ix| matches!(self.graph[ix].kind, NodeKind::Device { .. }))
            .collect()
    }

    /// Every node depth-first from the roots, children in insertion order.
    pub fn depth_first(&self) -> Vec<NodeIndex> {
        self.walk(self.roots(), self.graph.node_count())
    }

    /// `ix` and everything below it, depth-first.
    pub fn depth_first_from(&self, ix: NodeIndex) -> Vec<NodeIndex> {
        // A subtree is usually small: sizing for the whole graph here made per-port walks
        // quadratic in allocation on large topologies.
        self.walk(vec![ix], 16)
    }

    fn walk(&self, start: Vec<NodeIndex>, capacity: usize) -> Vec<NodeIndex> {
        let mut out = Vec::with_capacity(capacity);
        let mut stack: Vec<NodeIndex> = start.into_iter().rev().collect();
        // One scratch buffer for every node's children: a Vec per node was most of a walk.
        let mut kids: Vec<(EdgeIndex, NodeIndex)> = Vec::new();
        // A tree visits each node once; more means a cycle (a bad live capture, or a bug):
        // stop rather than walk forever.
        let limit = self.graph.node_count();
        while let Some(ix) = stack.pop() {
            if out.len() >= limit {
                break;
            }
            out.push(ix);
            self.children_into(ix, &mut kids);
            stack.extend(kids.iter().rev().map(|&(_, n)| n));
        }
        out
    }

    /// Inter-socket links as (a, b, link).
    pub fn fabric_links(&self) -> Vec<(NodeIndex, NodeIndex, &Link)> {
        self.graph
            .edge_references()
            .filter(|e| matches!(e.weight(), Link::Fabric { .. }))
            .map(|e| (e.source(), e.target(), e.weight()))
            .collect()
    }

    /// A node's path as ids joined by `/`-free labels, for messages: `CPU1 > Slot 1 > Bay 3`.
    pub fn describe_path(&self, ix: NodeIndex) -> String {
        let mut labels: Vec<&str> = self
            .path_to_root(ix)
            .into_iter()
            .map(|(n, _)| self.graph[n].label.as_str())
            .collect();
        labels.reverse();
        labels.join(" > ")
    }
}

/// `[0,1,2,5]` -> `0-2, 5`.
pub fn compress_ranges(v: &[BayNumber]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> (Topology, NodeIndex) {
        let mut t = Topology::new("t");
        let s = t
            .add_node(Node::new(
                "cpu1",
                "CPU1",
                NodeKind::Socket {
                    index: 0,
                    lanes: 48,
                    numa_nodes: vec![0],
                },
            ))
            .unwrap();
        let rp = t
            .add_node(Node::new(
                "cpu1/rp",
                "Port 1A",
                NodeKind::RootPort {
                    width: 4,
                    generation: Gen::G3,
                },
            ))
            .unwrap();
        let d = t
            .add_node(Node::new(
                "cpu1/rp/nvme",
                "NVMe",
                NodeKind::Device {
                    class: DeviceClass::Nvme,
                    part: None,
                    perf: None,
                },
            ))
            .unwrap();
        t.link(s, rp, Link::Attach);
        t.link(
            rp,
            d,
            Link::Pcie {
                rate: LinkRate::new(Gen::G3, 4),
                max: None,
            },
        );
        (t, d)
    }

    #[test]
    fn path_queries_walk_to_the_socket() {
        let (t, d) = small();
        assert_eq!(t.socket_index_of(d), Some(0));
        assert_eq!(t.pcie_path(d).len(), 1);
        assert_eq!(t.describe_path(d), "CPU1 > Port 1A > NVMe");
        assert_eq!(t.devices(), vec![d]);
        assert_eq!(t.depth_first().len(), 3);
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let (mut t, _) = small();
        let err = t
            .add_node(Node::new("cpu1", "again", NodeKind::Pch))
            .unwrap_err();
        assert_eq!(err.to_string(), "duplicate node id `cpu1`");
    }
}
