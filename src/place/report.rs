//! Text and JSON for a placement outcome (schema: docs/place.md, docs/JSON.md).

use super::{Candidate, Difference, Outcome, Placement, Score};
use serde_json::{Value, json};
use std::fmt::Write;

pub const SCHEMA_VERSION: u32 = 3;

fn placement_lines(out: &mut String, p: &Placement, indent: &str) {
    if !p.options.is_empty() {
        let o: Vec<String> = p.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(out, "{indent}options  {}", o.join(" "));
    }
    for s in &p.slots {
        let _ = writeln!(out, "{indent}slot     {:<10} {}", s.slot, s.part);
    }
    for b in &p.bays {
        let _ = writeln!(out, "{indent}bays     {:<10} {}", b.bays, b.part);
    }
}

/// What the placement delivers end to end: served, drives, NICs, narrowed cards.
fn delivers(s: &Score) -> Option<String> {
    let nic = s.nic_tx_gbs?;
    let narrowed: Vec<String> = s
        .narrowed
        .iter()
        .map(|n| {
            format!(
                "{} in {} runs x{} of its x{} edge, losing {:.2} GB/s",
                n.part, n.slot, n.electrical, n.edge, n.loss_gbs
            )
        })
        .collect();
    Some(format!(
        "serves {:.2} GB/s to clients = min(drives read {:.2}, NICs send {:.2}){}",
        s.served_gbs.unwrap_or(0.0),
        s.read_gbs,
        nic,
        if narrowed.is_empty() {
            String::new()
        } else {
            format!("; {}", narrowed.join("; "))
        }
    ))
}

fn score_line(s: &Score) -> String {
    let numa: Vec<String> = s
        .numa
        .iter()
        .map(|n| format!("node {} {:.2}", n.numa_node, n.gbs))
        .collect();
    format!(
        "value {:.2}; read {:.2} GB/s, write {:.2} GB/s; NUMA imbalance {:.2} GB/s ({}); oversubscription {:.2}:1; free slot lanes {}; options off default {}; vendor distance {}",
        s.value,
        s.read_gbs,
        s.write_gbs,
        s.numa_imbalance_gbs,
        numa.join(", "),
        s.oversubscription,
        s.free_slot_lanes,
        s.non_default_options,
        s.vendor_distance
    )
}

fn diff_line(d: &Difference) -> String {
    format!("{} {} against {}", d.measure, num(d.best), num(d.other))
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e9 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

fn why(c: &Candidate) -> String {
    let b = &c.binding;
    if b.kind == "drives" {
        let ml = b
            .most_loaded
            .as_ref()
            .map(|(l, r)| format!("; the most loaded shared element is {l} at {r:.2}:1"))
            .unwrap_or_default();
        format!(
            "{}: every drive reaches its expected figure, its spec or its own link if lower ({:.2} of {:.2} GB/s offered): no shared element binds{ml}",
            b.direction, b.ceiling_gbs, b.demand_gbs
        )
    } else {
        let more = if b.elements.len() > 3 {
            format!(" and {} more", b.elements.len() - 3)
        } else {
            String::new()
        };
        format!(
            "{}: {:.2} of {:.2} GB/s offered; bound by {}{more}",
            b.direction,
            b.ceiling_gbs,
            b.demand_gbs,
            b.elements[..b.elements.len().min(3)].join(", ")
        )
    }
}

/// The progress line of a running search (the CLI draws it on a terminal's stderr).
pub fn progress_line(p: &super::Progress) -> String {
    format!(
        "place: {:.1} s, {} nodes, option set {} of {}, best {}",
        p.elapsed.as_secs_f64(),
        p.nodes,
        p.option_set,
        p.option_sets,
        p.best
            .map(|b| format!("{b:.2} GB/s"))
            .unwrap_or_else(|| "none yet".into())
    )
}

/// The human report.
pub fn text(o: &Outcome) -> String {
    text_painted(o, false)
}

/// [`text`], its warnings' severities in colour when `paint`.
pub fn text_painted(o: &Outcome, paint: bool) -> String {
    let mut out = String::new();
    header_lines(&mut out, o);
    let Some(best) = o.best() else {
        nothing_fits_lines(&mut out, o);
        return out;
    };
    best_lines(&mut out, o, best);
    why_lines(&mut out, o, best);
    tradeoff_lines(&mut out, o, best);
    // Painted text is fitted with `wrap_painted` (SGR kept): the text around the painted
    // warnings is escaped here, the warnings escape their own fields.
    let plain = |t: &str| -> String {
        if paint {
            crate::escape::terminal_plain(t).into_owned()
        } else {
            t.to_string()
        }
    };
    let mut done = String::new();
    if !best.warnings.is_empty() {
        // In the one diagnostic style, as `check` prints them.
        done = plain(&std::mem::take(&mut out));
        done.push('\n');
        done.push_str(crate::render::diag::findings_only(&best.warnings, None, paint).trim_end());
        done.push('\n');
    }
    top_lines(&mut out, o);
    vendor_lines(&mut out, o);
    done.push_str(&plain(&out));
    done
}

/// What is placed where, and how much was searched.
fn header_lines(out: &mut String, o: &Outcome) {
    let parts: Vec<String> = o.parts.iter().map(|(p, n)| format!("{n} x {p}")).collect();
    let _ = writeln!(
        out,
        "Placing on {} ({}), objective {}: {}",
        o.platform_name,
        o.platform,
        o.objective.name(),
        parts.join(", ")
    );
    let s = &o.stats;
    let _ = writeln!(
        out,
        "Search: {} option set(s), {} nodes explored, {} cut as infeasible, {} cut by the bound, {} complete candidates scored ({} planner runs); full space {:.0} assignments",
        s.option_sets,
        s.nodes_explored,
        s.pruned_infeasible,
        s.pruned_bound,
        s.leaves,
        s.evaluations,
        s.full_space
    );
}

/// The first constraints that fail, when nothing fits.
fn nothing_fits_lines(out: &mut String, o: &Outcome) {
    let _ = writeln!(out, "\nNothing fits. Constraints that fail:");
    for c in o.infeasible.iter().take(10) {
        let opts: Vec<String> = c.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(
            out,
            "  [{}] {}{}",
            c.code,
            if opts.is_empty() {
                String::new()
            } else {
                format!("with {}: ", opts.join(" "))
            },
            c.message
        );
    }
    if o.infeasible.len() > 10 {
        let _ = writeln!(
            out,
            "  ... and {} more (--json lists all)",
            o.infeasible.len() - 10
        );
    }
}

/// The best placement: whether it is proven, where the parts go, its score, the cards added.
fn best_lines(out: &mut String, o: &Outcome, best: &Candidate) {
    if o.proven_optimal {
        let _ = writeln!(out, "\nBest placement (proven optimal):");
    } else {
        let bound = match o.bound {
            Some(b) if b.is_finite() && o.gap_gbs.is_some_and(|g| g < 0.0005) => format!(
                "its value reaches the bound, {b:.2} GB/s from the parts' specs, so none does better on it; the tie-breakers are not all decided"
            ),
            Some(b) if b.is_finite() => format!(
                "no placement exceeds {b:.2} GB/s (the parts' specs): gap at most {:.2} GB/s",
                o.gap_gbs.unwrap_or(0.0)
            ),
            _ => "a drive states no spec, so no finite bound".to_string(),
        };
        let _ = writeln!(
            out,
            "\nBest placement found (not proven optimal: the {} budget ran out, {}):",
            match o.stopped {
                Some("nodes") => format!("{}-node", o.budget.nodes),
                _ => format!("{} ms", o.budget.time_ms),
            },
            bound
        );
    }
    placement_lines(out, &best.placement, "  ");
    let _ = writeln!(out, "  score    {}", score_line(&best.score));
    if let Some(d) = delivers(&best.score) {
        let _ = writeln!(out, "  delivers {d}");
    }
    if !o.implied_cards.is_empty() {
        let opts: Vec<String> = best
            .placement
            .options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let cards: Vec<String> = o
            .implied_cards
            .iter()
            .map(|(id, n)| format!("{n} x {id}"))
            .collect();
        let _ = writeln!(
            out,
            "  added    {} (not in the parts list: {} ships with them, and check requires them)",
            cards.join(", "),
            opts.join(" ")
        );
    }
}

/// Why the best placement wins: the slots every candidate shares, what the runner-up gives up.
fn why_lines(out: &mut String, o: &Outcome, best: &Candidate) {
    let _ = writeln!(out, "\nWhy it wins:");
    let _ = writeln!(out, "  {}", why(best));
    if !o.common_slots.is_empty() {
        let c: Vec<String> = o
            .common_slots
            .iter()
            .map(|x| format!("{} in {}", x.part, x.slot))
            .collect();
        let _ = writeln!(
            out,
            "  forced: all {} scored candidates{} put {}",
            o.stats.leaves,
            if o.stats.pruned_bound == 0 {
                " (every placement that passes check)"
            } else {
                ""
            },
            c.join(", ")
        );
    }
    if o.ranked.len() > 1 || !o.runner_up_gives_up.is_empty() {
        if o.runner_up_gives_up.is_empty() {
            let _ = writeln!(out, "  the runner-up scores the same on every measure");
        } else {
            let d: Vec<String> = o.runner_up_gives_up.iter().map(diff_line).collect();
            let _ = writeln!(
                out,
                "  the runner-up gives up (best against runner-up): {}",
                d.join("; ")
            );
        }
    } else {
        let _ = writeln!(out, "  it is the only placement that passes check");
    }
}

/// The best placement for the drives alone against the best one, when they differ.
fn tradeoff_lines(out: &mut String, o: &Outcome, best: &Candidate) {
    let Some(t) = &o.tradeoff else {
        return;
    };
    let c = &t.drives_best;
    let _ = writeln!(
        out,
        "\nTrade-off: the best placement for the drives alone (read{}) against this one:",
        if t.proven_optimal {
            ", proven"
        } else {
            ", best found"
        }
    );
    placement_lines(out, &c.placement, "  ");
    if let Some(d) = delivers(&c.score) {
        let _ = writeln!(out, "  delivers {d}");
    }
    let _ = writeln!(
        out,
        "  it reads {:.2} GB/s more from the drives and serves {:.2} GB/s less to clients",
        c.score.read_gbs - best.score.read_gbs,
        best.score.served_gbs.unwrap_or(0.0) - c.score.served_gbs.unwrap_or(0.0)
    );
}

/// The ranked candidates, when there is more than one.
fn top_lines(out: &mut String, o: &Outcome) {
    if o.ranked.len() > 1 {
        let _ = writeln!(out, "\nTop {}:", o.ranked.len());
        for (i, c) in o.ranked.iter().enumerate() {
            let _ = writeln!(out, "  #{} {}", i + 1, score_line(&c.score));
            placement_lines(out, &c.placement, "     ");
        }
    }
}

/// The placement in the vendor's order and what the optimum gains over it.
fn vendor_lines(out: &mut String, o: &Outcome) {
    let Some(v) = &o.vendor else {
        return;
    };
    let _ = writeln!(
        out,
        "\nVendor order (card priority lists, then slot order; bays in number order):"
    );
    if let Some(p) = &v.placement {
        placement_lines(out, p, "  ");
    }
    if let Some(sc) = &v.score {
        let _ = writeln!(out, "  score    {}", score_line(sc));
    }
    for e in &v.errors {
        let _ = writeln!(out, "  error {e}");
    }
    if v.score.is_some() {
        if v.gains.is_empty() {
            let _ = writeln!(
                out,
                "  the optimum gains nothing over it: it is optimal too"
            );
        } else {
            let d: Vec<String> = v.gains.iter().map(diff_line).collect();
            let _ = writeln!(out, "  the optimum against it: {}", d.join("; "));
        }
    }
}

/// The JSON document.
pub fn json(o: &Outcome) -> Value {
    let parts: Vec<Value> = o
        .parts
        .iter()
        .map(|(p, n)| json!({"part": p, "count": n}))
        .collect();
    json!({
        "schema_version": SCHEMA_VERSION,
        "platform": o.platform,
        "platform_name": o.platform_name,
        "objective": o.objective,
        "parts": parts,
        "devices": o.devices,
        "proven_optimal": o.proven_optimal,
        "stopped": o.stopped,
        "bound_gbs": o.bound.filter(|b| b.is_finite()),
        "gap_gbs": o.gap_gbs,
        "budget": {
            "time_ms": o.budget.time_ms,
            "nodes": (o.budget.nodes != u64::MAX).then_some(o.budget.nodes),
        },
        "stats": o.stats,
        "best": o.best(),
        "build_toml": o.best_toml(),
        "ranked": o.ranked,
        "runner_up_gives_up": o.runner_up_gives_up,
        "vendor": o.vendor,
        "infeasible": o.infeasible,
        "common_slots": o.common_slots,
        "tradeoff": o.tradeoff,
        "implied_cards": o
            .implied_cards
            .iter()
            .map(|(p, n)| json!({"part": p, "count": n}))
            .collect::<Vec<Value>>(),
    })
}
