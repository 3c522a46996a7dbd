//! Aggregate ceiling: the maximum flow from a super-source (one edge per device, capacity =
//! its demand) through the topology to the memory of the target socket(s) (petgraph's
//! `dinics`). Capacities are integers in kB/s (10^-6 GB/s), so the algorithm is exact and
//! cannot loop on floating-point residues; results are within 1e-6 GB/s per edge of the
//! real-valued figure.
//!
//! The network is the topology read upwards (device to memory). A node with limits of its
//! own (a controller's spec, its SAS side, a root complex) is split in two, joined by an
//! edge carrying the smallest of them. Inter-socket links appear once per direction, so
//! with more than two sockets traffic may take any route; the fair shares use the shortest.

use super::Dir;
use super::net::Net;
use petgraph::algo::dinics;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex as GIx};
use std::collections::HashMap;

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

/// Max-flow of one direction of `net`.
pub fn max_flow(net: &Net, dir: Dir) -> MaxFlow {
    let m = net.elements.len();
    let total_demand: f64 = net.sources.iter().map(|s| s.demand(dir).max(0.0)).fold(0.0, |a, b| a + b);
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
