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
            let mut best = Alone {
                gbs: s.demand(dir).max(0.0),
                capped_by: None,
            };
            for &e in &s.path {
                if let Some(c) = net.elements[e].constraint(dir)
                    && c < best.gbs
                {
                    best = Alone {
                        gbs: c,
                        capped_by: Some(e),
                    };
                }
            }
            best
        })
        .collect()
}

/// Physical ceilings of every source of `net` in `dir`: the smallest physical capacity on
/// its path (never a spec). `gbs` is infinite when nothing physical is modelled on the path.
pub fn ceilings(net: &Net, dir: Dir) -> Vec<Alone> {
    net.sources
        .iter()
        .map(|s| {
            let mut best = Alone {
                gbs: f64::INFINITY,
                capped_by: None,
            };
            for &e in &s.path {
                if let Some(c) = net.elements[e].ceiling_constraint(dir)
                    && c < best.gbs
                {
                    best = Alone {
                        gbs: c,
                        capped_by: Some(e),
                    };
                }
            }
            best
        })
        .collect()
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
