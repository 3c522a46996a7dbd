//! Exhaustive enumeration, the reference `place` is tested against: every assignment of the
//! parts to slots and bays (identical parts not told apart, no rule applied beforehand), each
//! run through the real `check`; the best score among those with 0 errors. Exponential: for
//! small instances (tests) only.

use super::eval;
use super::{BayPick, Placement, Problem, Request, RequestError, Score, SlotPick, resolve, score};
use crate::platform::Catalog;

/// The best score and a placement that reaches it (`None`: nothing passes `check`), and how
/// many complete assignments were checked.
pub fn best(
    catalog: &Catalog,
    req: &Request,
    limit: u64,
) -> Result<(Option<(Score, Placement)>, u64), RequestError> {
    let prob = resolve(catalog, req)?;
    let mut best: Option<(Score, Placement)> = None;
    let mut count = 0u64;
    for opts in &prob.option_sets {
        let Some(space) = eval::space(catalog, &prob.platform, opts) else {
            continue;
        };
        let bays: Vec<u32> = space.groups.iter().flat_map(|g| g.bays.clone()).collect();
        // The cards the option ships with, as `place` adds them.
        let (with_cards, _) = super::with_option_cards(&prob, &space);
        let mut slot_sets: Vec<Vec<SlotPick>> = vec![Vec::new()];
        for (p, n) in &with_cards.cards {
            let mut next = Vec::new();
            for base in &slot_sets {
                let free: Vec<usize> = (0..space.slots.len())
                    .filter(|&i| !base.iter().any(|s| s.slot == space.slots[i].id))
                    .collect();
                for comb in combinations(free.len(), *n) {
                    let mut v = base.clone();
                    v.extend(comb.iter().map(|&i| SlotPick {
                        slot: space.slots[free[i]].id.clone(),
                        part: p.id.clone(),
                    }));
                    next.push(v);
                }
            }
            slot_sets = next;
        }
        let mut bay_sets: Vec<(Vec<u32>, Vec<BayPick>)> = vec![(Vec::new(), Vec::new())];
        for (p, n) in &prob.drives {
            let mut next = Vec::new();
            for (taken, base) in &bay_sets {
                let free: Vec<u32> = bays
                    .iter()
                    .copied()
                    .filter(|b| !taken.contains(b))
                    .collect();
                for comb in combinations(free.len(), *n) {
                    let nums: Vec<u32> = comb.iter().map(|&i| free[i]).collect();
                    let mut t = taken.clone();
                    t.extend(&nums);
                    let mut v = base.clone();
                    v.push(BayPick {
                        bays: super::compress(&nums),
                        part: p.id.clone(),
                    });
                    next.push((t, v));
                }
            }
            bay_sets = next;
        }
        for slots in &slot_sets {
            for (_, bays) in &bay_sets {
                count += 1;
                if count > limit {
                    return Ok((best, count));
                }
                let mut slots = slots.clone();
                slots.sort();
                let pl = Placement {
                    options: space.options.clone(),
                    slots,
                    bays: bays.clone(),
                };
                let text = pl.to_toml(&prob.platform.id, "enumerated");
                let Ok(e) = prob.evaluate("enumerated.toml", &text) else {
                    continue;
                };
                if e.has_errors() {
                    continue;
                }
                let (sc, _) = score(&prob, &space, &pl, &e);
                if best.as_ref().is_none_or(|(b, _)| sc.key() > b.key()) {
                    best = Some((sc, pl));
                }
            }
        }
    }
    let _: &Problem = &prob;
    Ok((best, count))
}

/// All k-subsets of 0..n, each in increasing order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(k);
    fn rec(n: usize, k: usize, from: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in from..n {
            if n - i < k - cur.len() {
                break;
            }
            cur.push(i);
            rec(n, k, i + 1, cur, out);
            cur.pop();
        }
    }
    rec(n, k, 0, &mut cur, &mut out);
    out
}
