//! Sockets from the CPUs' own facts, and NUMA nodes as nodes of their socket.
//!
//! * A host or sysfs capture: `sys/devices/system/cpu/cpu*/topology/physical_package_id`
//!   (one socket per package id), and each node's socket from the package of the first CPU
//!   in `sys/devices/system/node/node*/cpulist`.
//! * An `lspci -vvnn` dump: the functions a CPU shows once per socket or die (AMD's data
//!   fabric at 00:18-1f, Intel's per-socket uncore registers), listed as data in
//!   `cpu-functions.toml` with how many one socket shows. The dump says which NUMA node each
//!   port is on but not which socket a node belongs to: nodes are dealt to sockets in order
//!   (firmware numbers them socket by socket), marked inferred.
//! * Neither: one socket per NUMA node, said so.

use crate::host::audit::FunctionReport;
use crate::host::fs::SysFs;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// What the CPUs show about the sockets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketFacts {
    /// Sockets, in order (package ids, or 0..n for a dump).
    pub count: usize,
    /// A node's socket (index into the sockets) where the source shows it.
    pub node_socket: BTreeMap<u32, usize>,
    /// What proves the count, for the files' `source` (`2 package ids in ...`).
    pub why: String,
    /// `physical_package_id` or `cpu-functions`.
    pub from: &'static str,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    function: Vec<CpuFunction>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CpuFunction {
    ids: String,
    per_socket: usize,
    name: String,
    #[allow(dead_code)]
    source: String,
}

fn table() -> Vec<CpuFunction> {
    toml::from_str::<Table>(include_str!("cpu-functions.toml"))
        .map(|t| t.function)
        .unwrap_or_default()
}

/// Sockets from the per-socket CPU functions of a dump, if it shows any listed.
pub fn from_functions(functions: &[FunctionReport]) -> Option<SocketFacts> {
    for m in table() {
        let seen: Vec<&FunctionReport> = functions
            .iter()
            .filter(|f| f.ids.is_some() && f.ids == crate::pci::PciIds::parse(&m.ids))
            .collect();
        if seen.is_empty() || m.per_socket == 0 {
            continue;
        }
        let count = seen.len().div_ceil(m.per_socket);
        let at: Vec<String> = seen.iter().map(|f| f.bdf.to_string()).collect();
        return Some(SocketFacts {
            count,
            node_socket: BTreeMap::new(),
            why: format!(
                "{count} socket{} from {} {} function{} ({}, {} per socket: {})",
                if count == 1 { "" } else { "s" },
                seen.len(),
                m.ids,
                if seen.len() == 1 { "" } else { "s" },
                m.name,
                m.per_socket,
                at.join(", ")
            ),
            from: "cpu-functions",
        });
    }
    None
}

/// Sockets from `physical_package_id`, and nodes' sockets from their CPU lists.
pub fn from_sysfs(fs: &SysFs) -> Option<SocketFacts> {
    let base = "sys/devices/system/cpu";
    let mut package_of: BTreeMap<u32, u32> = BTreeMap::new();
    for name in fs.list(base).ok()? {
        let Some(n) = name.strip_prefix("cpu").and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if let Ok(p) = fs.read(&format!("{base}/{name}/topology/physical_package_id"))
            && let Ok(p) = p.trim().parse::<u32>()
        {
            package_of.insert(n, p);
        }
    }
    let packages: BTreeSet<u32> = package_of.values().copied().collect();
    if packages.is_empty() {
        return None;
    }
    let index: BTreeMap<u32, usize> = packages.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let mut node_socket = BTreeMap::new();
    if let Ok(nodes) = fs.list("sys/devices/system/node") {
        for name in nodes {
            let Some(n) = name
                .strip_prefix("node")
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let first = fs
                .read(&format!("sys/devices/system/node/{name}/cpulist"))
                .ok()
                .and_then(|l| {
                    l.trim()
                        .split([',', '-'])
                        .next()
                        .and_then(|c| c.trim().parse::<u32>().ok())
                });
            if let Some(p) = first.and_then(|c| package_of.get(&c)) {
                node_socket.insert(n, index[p]);
            }
        }
    }
    let count = packages.len();
    Some(SocketFacts {
        count,
        node_socket,
        why: format!(
            "{count} socket{} from the physical_package_id of {} CPUs",
            if count == 1 { "" } else { "s" },
            package_of.len()
        ),
        from: "physical_package_id",
    })
}

/// One socket to write: the NUMA nodes it holds.
pub struct PlannedSocket {
    pub nodes: Vec<u32>,
}

/// The sockets to write and each node's socket.
pub struct Plan {
    pub sockets: Vec<PlannedSocket>,
    node: BTreeMap<u32, usize>,
    /// The comment above each `[[socket]]`.
    pub comment: String,
    /// For each socket's `source`.
    pub why: String,
    pub confidence: &'static str,
    pub from: &'static str,
}

impl Plan {
    pub fn socket_of(&self, node: u32) -> usize {
        self.node.get(&node).copied().unwrap_or(0)
    }
}

/// Deals the NUMA nodes seen (`nodes`, sorted) to the sockets the facts show.
pub fn plan(facts: Option<&SocketFacts>, nodes: &[u32]) -> Plan {
    let Some(f) = facts.filter(|f| f.count > 0) else {
        return Plan {
            sockets: nodes.iter().map(|&n| PlannedSocket { nodes: vec![n] }).collect(),
            node: nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect(),
            comment: "inferred: the source shows no per-socket CPU fact, so one socket per NUMA node; a socket may hold several nodes (check `lscpu`)".into(),
            why: "one socket per NUMA node (no physical_package_id and no per-socket CPU function in the source)".into(),
            confidence: "inferred",
            from: "numa-nodes",
        };
    };
    let mut node = BTreeMap::new();
    let mut dealt = false;
    for (i, &n) in nodes.iter().enumerate() {
        let s = match f.node_socket.get(&n) {
            Some(&s) => s.min(f.count - 1),
            None => {
                dealt = true;
                // Nodes numbered socket by socket: node i of N on socket i * S / N.
                i * f.count / nodes.len().max(1)
            }
        };
        node.insert(n, s);
    }
    let sockets = (0..f.count)
        .map(|s| PlannedSocket {
            nodes: node
                .iter()
                .filter(|(_, v)| **v == s)
                .map(|(n, _)| *n)
                .collect(),
        })
        .collect();
    let (comment, confidence) = if dealt {
        (
            "measured: the socket count (the CPUs' own functions); inferred: which NUMA nodes each holds (dealt in order; check `lscpu`)",
            "inferred",
        )
    } else {
        (
            "measured: sockets and their NUMA nodes from the CPUs' topology",
            "measured",
        )
    };
    Plan {
        sockets,
        node,
        comment: comment.into(),
        why: f.why.clone(),
        confidence,
        from: f.from,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_loads_and_nodes_are_dealt_in_order() {
        assert!(table().len() >= 4);
        let f = SocketFacts {
            count: 2,
            node_socket: BTreeMap::new(),
            why: String::new(),
            from: "cpu-functions",
        };
        let p = plan(Some(&f), &[0, 1, 2, 3, 4, 5, 6, 7]);
        let nodes: Vec<Vec<u32>> = p.sockets.iter().map(|s| s.nodes.clone()).collect();
        assert_eq!(nodes, [vec![0, 1, 2, 3], vec![4, 5, 6, 7]]);
        // Two sockets, one node seen: the socket without a node is still written.
        let p = plan(Some(&f), &[0]);
        assert_eq!(p.sockets.len(), 2);
        assert_eq!(p.socket_of(0), 0);
        let p = plan(None, &[0, 3]);
        assert_eq!((p.sockets.len(), p.socket_of(3)), (2, 1));
    }
}
