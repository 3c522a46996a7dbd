//! Aggregate ceiling: the maximum flow from a super-source (one edge per device, capacity =
//! its demand) through the topology to the memory of the target socket(s) (petgraph's
//! `dinics`). Capacities are integers in kB/s (10^-6 GB/s), so the algorithm is exact and
//! cannot loop on floating-point residues; results are within 1e-6 GB/s per edge of the
//! real-valued figure.
//!
//! Below each socket the paths form a tree, where the maximum flow is exact bottom-up: an
//! element passes `min(capacity, what arrives)`. [`max_flow`] reduces each socket's tree to
//! the most it can deliver, solves the small remaining network (sockets, inter-socket
//! links, memory) with `dinics`, and scales each tree's flow down to what its socket sends
//! (a feasible flow scaled down stays feasible). [`max_flow_reference`] runs `dinics` on the
//! whole network; tests check that both agree.
//!
//! The network is the topology read upwards (device to memory). A node with limits of its
//! own (a controller's spec, its SAS side, a root complex) is split in two, joined by an
//! edge carrying the smallest of them. Inter-socket links appear once per direction, so
//! with more than two sockets traffic may take any route; the fair shares use the shortest.

use super::Dir;
use super::net::Net;
use foldhash::{HashMap, HashMapExt};
use petgraph::algo::dinics;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex as GIx};

/// kB/s per GB/s.
pub const SCALE: f64 = 1e6;

fn units(gbs: f64) -> u64 {
    (gbs.max(0.0) * SCALE).floor() as u64
}

/// Max-flow result of one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct MaxFlow {
    pub total: f64,
    /// Flow through each element of the network, GB/s (one of the maximum flows: the split
    /// between devices is arbitrary; see `fair` for the fair one).
    pub load: Vec<f64>,
    /// Flow each source gets in this maximum flow.
    pub per_source: Vec<f64>,
}

/// Max-flow of one direction of `net`, built on the whole network and solved by petgraph's
/// `dinics`. Its search restarts from the source for every augmenting path (O(nodes) each),
/// so it is quadratic in the device count: the reference for tests; [`max_flow`] is the
/// one to use.
pub fn max_flow_reference(net: &Net, dir: Dir) -> MaxFlow {
    let m = net.elements.len();
    let total_demand: f64 = net
        .sources
        .iter()
        .map(|s| s.demand(dir).max(0.0))
        .fold(0.0, |a, b| a + b);
    let inf = units(total_demand) + 1;
    let cap = |e: usize| -> u64 {
        net.elements[e]
            .constraint(dir)
            .map(units)
            .unwrap_or(inf)
            .min(inf)
    };

    let mut g: DiGraph<(), u64> = DiGraph::with_capacity(
        net.sources.len() * 2 + m * 2 + 2,
        net.sources.len() * 2 + m * 3 + 2,
    );
    let source = g.add_node(());
    let sink = g.add_node(());
    // Each element is an edge from its `bottom` node to its `top` node; the tops of the
    // elements below (or the devices) join its bottom. Paths form a tree below each socket,
    // so an element's successor is unique and joined once.
    let mut bottom: Vec<Option<GIx>> = vec![None; m];
    let mut top: Vec<Option<GIx>> = vec![None; m];
    let mut el_edge: Vec<Vec<EdgeIndex>> = vec![Vec::new(); m];
    let mut joined = vec![false; m];
    let mut socket_node: HashMap<petgraph::stable_graph::NodeIndex, GIx> = HashMap::new();
    let mut src_edges = Vec::with_capacity(net.sources.len());

    for s in &net.sources {
        let Some(sock) = s.socket else { continue };
        let dev = g.add_node(());
        src_edges.push(g.add_edge(source, dev, units(s.demand(dir))));
        let mut below = dev;
        let mut last: Option<usize> = None;
        for &e in &s.path {
            if net.elements[e].sockets.is_some() {
                continue;
            }
            let fresh = bottom[e].is_none();
            if fresh {
                let b = g.add_node(());
                let t = g.add_node(());
                el_edge[e].push(g.add_edge(b, t, cap(e)));
                bottom[e] = Some(b);
                top[e] = Some(t);
            }
            let b = bottom[e].unwrap_or(below);
            match last {
                Some(l) if joined[l] => {}
                Some(l) => {
                    g.add_edge(below, b, inf);
                    joined[l] = true;
                }
                None => {
                    g.add_edge(below, b, inf);
                }
            }
            below = top[e].unwrap_or(b);
            last = Some(e);
            if !fresh {
                // Shared from here up: the rest of the chain exists already.
                break;
            }
        }
        match last {
            Some(l) if joined[l] => {}
            Some(l) => {
                let sn = *socket_node.entry(sock).or_insert_with(|| g.add_node(()));
                g.add_edge(below, sn, inf);
                joined[l] = true;
            }
            None => {
                let sn = *socket_node.entry(sock).or_insert_with(|| g.add_node(()));
                g.add_edge(below, sn, inf);
            }
        }
    }
    // Memory: target sockets drain to the sink; fabric links join sockets both ways.
    for &t in &net.targets {
        let sn = *socket_node.entry(t).or_insert_with(|| g.add_node(()));
        g.add_edge(sn, sink, inf);
    }
    for (e, el) in net.elements.iter().enumerate() {
        if let Some((a, b)) = el.sockets {
            let na = *socket_node.entry(a).or_insert_with(|| g.add_node(()));
            let nb = *socket_node.entry(b).or_insert_with(|| g.add_node(()));
            el_edge[e].push(g.add_edge(na, nb, cap(e)));
            el_edge[e].push(g.add_edge(nb, na, cap(e)));
        }
    }

    let (total, flows) = dinics(&g, source, sink);
    // Fabric: traffic runs one way in a single-target analysis; count the larger direction.
    let load = el_edge
        .iter()
        .map(|edges| {
            edges
                .iter()
                .map(|x| flows[x.index()] as f64 / SCALE)
                .fold(0.0, f64::max)
        })
        .collect();
    let per_source = src_edges
        .iter()
        .map(|e| flows[e.index()] as f64 / SCALE)
        .collect();
    MaxFlow {
        total: total as f64 / SCALE,
        load,
        per_source,
    }
}

/// Max-flow of one direction of `net`: exact tree reduction below the sockets, `dinics` on
/// the sockets, inter-socket links and memory. O(elements log elements).
pub fn max_flow(net: &Net, dir: Dir) -> MaxFlow {
    let m = net.elements.len();
    let is_fabric = |e: usize| net.elements[e].sockets.is_some();
    // The element above each (non-fabric) element, each chain's socket, and depths.
    let mut up: Vec<Option<usize>> = vec![None; m];
    let mut top_socket: Vec<Option<petgraph::stable_graph::NodeIndex>> = vec![None; m];
    let mut depth = vec![0usize; m];
    let mut first: Vec<Option<usize>> = Vec::with_capacity(net.sources.len());
    for s in &net.sources {
        let chain: Vec<usize> = s.path.iter().copied().filter(|&e| !is_fabric(e)).collect();
        for (k, &e) in chain.iter().enumerate() {
            up[e] = chain.get(k + 1).copied();
            depth[e] = chain.len() - k;
        }
        if let Some(&last) = chain.last() {
            top_socket[last] = s.socket;
        }
        first.push(chain.first().copied());
    }
    let cap = |e: usize| net.elements[e].constraint(dir).unwrap_or(f64::INFINITY);

    // Bottom-up: what arrives at each element, what passes it, what reaches each socket.
    let mut inflow = vec![0.0f64; m];
    let mut out = vec![0.0f64; m];
    let mut supply: HashMap<petgraph::stable_graph::NodeIndex, f64> = HashMap::new();
    for (i, s) in net.sources.iter().enumerate() {
        let d = s.demand(dir).max(0.0);
        match first[i] {
            Some(f) => inflow[f] += d,
            None => {
                if let Some(sock) = s.socket {
                    *supply.entry(sock).or_default() += d;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..m).filter(|&e| !is_fabric(e)).collect();
    order.sort_by(|a, b| depth[*b].cmp(&depth[*a]).then(a.cmp(b)));
    for &e in &order {
        out[e] = inflow[e].min(cap(e));
        match up[e] {
            Some(p) => inflow[p] += out[e],
            None => {
                if let Some(sock) = top_socket[e] {
                    *supply.entry(sock).or_default() += out[e];
                }
            }
        }
    }

    // The sockets: super-source -> socket (its supply), fabric both ways, targets -> sink.
    let mut g: DiGraph<(), u64> = DiGraph::new();
    let source = g.add_node(());
    let sink = g.add_node(());
    let mut socks: Vec<petgraph::stable_graph::NodeIndex> = supply.keys().copied().collect();
    socks.extend(net.targets.iter().copied());
    for el in &net.elements {
        if let Some((a, b)) = el.sockets {
            socks.push(a);
            socks.push(b);
        }
    }
    socks.sort();
    socks.dedup();
    let node_of: HashMap<_, GIx> = socks.iter().map(|&s| (s, g.add_node(()))).collect();
    let total_supply: f64 = supply.values().fold(0.0, |a, b| a + b);
    let inf = units(total_supply) + 1;
    let mut supply_edge = HashMap::new();
    for s in &socks {
        if let Some(&v) = supply.get(s) {
            supply_edge.insert(*s, g.add_edge(source, node_of[s], units(v)));
        }
    }
    for &t in &net.targets {
        g.add_edge(node_of[&t], sink, inf);
    }
    let mut el_edges: Vec<(usize, EdgeIndex, EdgeIndex)> = Vec::new();
    for (e, el) in net.elements.iter().enumerate() {
        if let Some((a, b)) = el.sockets {
            let c = net.elements[e]
                .constraint(dir)
                .map(units)
                .unwrap_or(inf)
                .min(inf);
            let ab = g.add_edge(node_of[&a], node_of[&b], c);
            let ba = g.add_edge(node_of[&b], node_of[&a], c);
            el_edges.push((e, ab, ba));
        }
    }
    let (total, flows) = dinics(&g, source, sink);

    // Scale each socket's tree to what it sends, top-down.
    let socket_factor: HashMap<_, f64> = supply
        .iter()
        .map(|(s, &v)| {
            let sent = flows[supply_edge[s].index()] as f64 / SCALE;
            (*s, if v > 0.0 { (sent / v).min(1.0) } else { 0.0 })
        })
        .collect();
    let mut gfac = vec![0.0f64; m];
    let mut load = vec![0.0f64; m];
    for &e in order.iter().rev() {
        gfac[e] = match up[e] {
            Some(p) => {
                let r = if inflow[p] > 0.0 {
                    out[p] / inflow[p]
                } else {
                    0.0
                };
                gfac[p] * r
            }
            None => top_socket[e]
                .and_then(|s| socket_factor.get(&s).copied())
                .unwrap_or(0.0),
        };
        load[e] = out[e] * gfac[e];
    }
    for (e, ab, ba) in el_edges {
        load[e] = (flows[ab.index()].max(flows[ba.index()])) as f64 / SCALE;
    }
    let per_source = net
        .sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let d = s.demand(dir).max(0.0);
            match first[i] {
                Some(f) if inflow[f] > 0.0 => d * (out[f] / inflow[f]) * gfac[f],
                Some(_) => 0.0,
                None => {
                    d * s
                        .socket
                        .and_then(|k| socket_factor.get(&k).copied())
                        .unwrap_or(0.0)
                }
            }
        })
        .collect();
    MaxFlow {
        total: total as f64 / SCALE,
        load,
        per_source,
    }
}
