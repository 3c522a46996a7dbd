//! Each device alone: its ceiling is the smallest of its own spec and every element that
//! constrains its path; the element reaching that minimum (the nearest, on a tie) caps it,
//! and when nothing on the path is below its spec, the device itself is the limit. That is
//! the *expected* figure; [`ceilings`] gives the physical one (no spec in it).

use super::Dir;
use super::net::Net;

/// The ceiling of one source in one direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alone {
    pub gbs: f64,
    /// `None`: the device's own spec; otherwise the element that caps it.
    pub capped_by: Option<usize>,
}

/// Ceilings of every source of `net` in `dir`.
pub fn alone(net: &Net, dir: Dir) -> Vec<Alone> {
    net.sources
        .iter()
        .map(|s| {
            lowest(s.demand(dir).max(0.0), &s.path, |e| {
                net.elements[e].constraint(dir)
            })
        })
        .collect()
}

/// Physical ceilings of every source of `net` in `dir`: the smallest physical capacity on
/// its path (never a spec). `gbs` is infinite when nothing physical is modelled on the path.
pub fn ceilings(net: &Net, dir: Dir) -> Vec<Alone> {
    net.sources
        .iter()
        .map(|s| {
            lowest(f64::INFINITY, &s.path, |e| {
                net.elements[e].ceiling_constraint(dir)
            })
        })
        .collect()
}

/// The smallest of `start` and each element's `limit` along `path` (nearest first): on a
/// tie the nearer element caps it; `capped_by` is `None` when nothing is below `start`.
fn lowest(start: f64, path: &[usize], limit: impl Fn(usize) -> Option<f64>) -> Alone {
    let mut best = Alone {
        gbs: start,
        capped_by: None,
    };
    for &e in path {
        if let Some(c) = limit(e)
            && c < best.gbs
        {
            best = Alone {
                gbs: c,
                capped_by: Some(e),
            };
        }
    }
    best
}

/// Per element: the traffic that reaches it from below when every device runs alone up to
/// it (each source's demand capped by the elements below this one), summed.
pub fn offered(net: &Net, dir: Dir) -> Vec<f64> {
    let mut out = vec![0.0; net.elements.len()];
    for s in &net.sources {
        let mut run = s.demand(dir).max(0.0);
        for &e in &s.path {
            out[e] += run;
            if let Some(c) = net.elements[e].constraint(dir) {
                run = run.min(c);
            }
        }
    }
    out
}
