//! Max-min fair shares when every device runs at once: progressive filling (water-filling).
//!
//! All devices start at 0 and rise together. A device stops when it reaches its own demand,
//! or when an element on its path fills up; the others keep rising. The result is the unique
//! max-min fair allocation for the fixed paths of the network: no device can get more without
//! taking from one that has less.
//!
//! Event-driven, so it stays fast on large topologies: the fill level at which each element
//! saturates is `(capacity - frozen traffic) / unfrozen users`; a heap yields the next event
//! (a device reaching its demand, or an element saturating). Each device freezes once and
//! touches the elements on its path; an element's event is refreshed lazily, when it comes
//! out of the heap stale, since freezing can only raise its level: O(devices x path length)
//! plus O(log) per heap event.

use super::Dir;
use super::net::Net;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What stopped a device from rising further.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Its own demand (spec).
    Demand,
    /// An element of the network, by index.
    Element(usize),
}

/// Fair shares of one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct Shares {
    /// Per source, GB/s.
    pub rate: Vec<f64>,
    pub stop: Vec<Stop>,
    /// Traffic through each element, GB/s.
    pub load: Vec<f64>,
    pub total: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Event {
    level: f64,
    /// 0: device demand, 1: element saturation (demand first on ties: the device is
    /// then limited by itself).
    kind: u8,
    id: usize,
    version: u32,
}

impl Eq for Event {}
impl Ord for Event {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap.
        o.level
            .total_cmp(&self.level)
            .then(o.kind.cmp(&self.kind))
            .then(o.id.cmp(&self.id))
    }
}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

struct Fill<'a> {
    net: &'a Net,
    cap: Vec<Option<f64>>,
    unfrozen: Vec<u32>,
    frozen_sum: Vec<f64>,
    version: Vec<u32>,
    rate: Vec<f64>,
    stop: Vec<Stop>,
    frozen: Vec<bool>,
    heap: BinaryHeap<Event>,
    level: f64,
}

impl Fill<'_> {
    fn freeze(&mut self, i: usize, r: f64, why: Stop) {
        self.frozen[i] = true;
        self.rate[i] = r;
        self.stop[i] = why;
        for &e in &self.net.sources[i].path {
            if self.cap[e].is_none() {
                continue;
            }
            self.frozen_sum[e] += r;
            self.unfrozen[e] -= 1;
            // Its event in the heap is now a lower bound; it is brought up to date when it
            // comes out (see `shares`), not here: one push per freeze and element made the
            // heap most of the work on large topologies.
            self.version[e] += 1;
        }
    }

    /// The fill level at which element `e` saturates now.
    fn saturation(&self, e: usize) -> f64 {
        let c = self.cap[e].unwrap_or(f64::INFINITY);
        ((c - self.frozen_sum[e]) / f64::from(self.unfrozen[e])).max(self.level)
    }
}

/// Water-fills one direction of `net`.
pub fn shares(net: &Net, dir: Dir) -> Shares {
    let n = net.sources.len();
    let m = net.elements.len();
    let users = net.users();
    let cap: Vec<Option<f64>> = net.elements.iter().map(|e| e.constraint(dir)).collect();
    let mut unfrozen = vec![0u32; m];
    for (e, u) in users.iter().enumerate() {
        if cap[e].is_some() {
            unfrozen[e] = u.len() as u32;
        }
    }
    let mut heap = BinaryHeap::with_capacity(n + m);
    for (i, s) in net.sources.iter().enumerate() {
        heap.push(Event {
            level: s.demand(dir).max(0.0),
            kind: 0,
            id: i,
            version: 0,
        });
    }
    for e in 0..m {
        if let Some(c) = cap[e]
            && unfrozen[e] > 0
        {
            heap.push(Event {
                level: c.max(0.0) / f64::from(unfrozen[e]),
                kind: 1,
                id: e,
                version: 0,
            });
        }
    }
    let mut f = Fill {
        net,
        cap,
        unfrozen,
        frozen_sum: vec![0.0; m],
        version: vec![0; m],
        rate: vec![0.0; n],
        stop: vec![Stop::Demand; n],
        frozen: vec![false; n],
        heap,
        level: 0.0,
    };
    while let Some(ev) = f.heap.pop() {
        if ev.kind == 0 {
            if f.frozen[ev.id] {
                continue;
            }
            f.level = f.level.max(ev.level);
            f.freeze(ev.id, ev.level, Stop::Demand);
        } else {
            if f.unfrozen[ev.id] == 0 {
                continue;
            }
            if ev.version != f.version[ev.id] {
                // Devices froze below this element since the event was made, which can only
                // raise its saturation level (each froze at a level <= it): re-queue it there.
                let level = f.saturation(ev.id);
                f.heap.push(Event {
                    level,
                    kind: 1,
                    id: ev.id,
                    version: f.version[ev.id],
                });
                continue;
            }
            f.level = f.level.max(ev.level);
            for &i in &users[ev.id] {
                let i = i as usize;
                if !f.frozen[i] {
                    f.freeze(i, f.level, Stop::Element(ev.id));
                }
            }
        }
    }
    let (rate, stop) = (f.rate, f.stop);
    let mut load = vec![0.0f64; m];
    for (i, s) in net.sources.iter().enumerate() {
        for &e in &s.path {
            load[e] += rate[i];
        }
    }
    let total = rate.iter().fold(0.0, |a, b| a + b);
    Shares {
        rate,
        stop,
        load,
        total,
    }
}
