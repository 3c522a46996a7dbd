//! Checks that need the whole plan: lane budgets, bifurcation, the service manual's card
//! rules, and generation drops along a path.

use super::budget::Budget;
use super::instantiate::Plan;
use crate::finding::{Code, Finding, Location, Subject};
use crate::topology::{DeviceClass, Link, NodeKind};

/// Findings about a plan whose pieces each fit (see `instantiate` for per-piece findings).
pub fn check(plan: &Plan, budget: &Budget, file: Option<&str>) -> Vec<Finding> {
    let mut out = Vec::new();
    let at_file = || Location {
        file: file.map(str::to_string),
        ..Default::default()
    };
    let t = &plan.topology;

    // Lanes per root complex and per socket.
    for s in &budget.sockets {
        for rc in &s.root_complexes {
            if rc.free < 0 {
                let users: Vec<String> = rc
                    .consumers
                    .iter()
                    .filter(|c| c.used > 0)
                    .map(|c| {
                        format!(
                            "{} x{} ({})",
                            c.port,
                            c.used,
                            c.part.clone().unwrap_or_default()
                        )
                    })
                    .collect();
                out.push(
                    Finding::of(
                        Code::RcOverBudget,
                        format!(
                            "{} needs {} lanes; it has {}{}",
                            rc.label,
                            rc.used,
                            rc.lanes,
                            if rc.inferred { " [inferred]" } else { "" }
                        ),
                    )
                    .with_help(format!(
                        "these share its lanes: {}; move a card to a slot on another root complex",
                        users.join(", ")
                    ))
                    .at(Location {
                        node: Some(format!("{} > {}", s.label, rc.label)),
                        ..last_card_on(plan, &rc.id).unwrap_or_else(at_file)
                    }),
                );
            }
        }
        if s.free < 0 {
            out.push(
                Finding::of(
                    Code::SocketOverBudget,
                    format!(
                        "{} needs {} PCIe lanes; it has {}",
                        s.label, s.used, s.lanes
                    ),
                )
                .at(Location {
                    node: Some(s.label.clone()),
                    ..at_file()
                }),
            );
        }
    }

    // Bifurcation: an extender card without a switch splits its slot into x4 ports.
    for info in plan.slots.values() {
        let Some((card, part_id)) = &info.card else {
            continue;
        };
        let NodeKind::Device {
            class: DeviceClass::Extender,
            ..
        } = t.node(*card).kind
        else {
            continue;
        };
        let has_switch = t
            .children(*card)
            .iter()
            .any(|&c| matches!(t.node(c).kind, NodeKind::Switch { .. }));
        if has_switch {
            continue;
        }
        let ports = t.children(*card).len();
        let width = usize::from(info.def.electrical.get_ref().get());
        let needed = format!("x4{}", "x4".repeat(ports.saturating_sub(1)));
        let rc = plan.rc_defs.get(info.def.root_complex.get_ref());
        let supported = rc.is_some_and(|r| {
            r.bifurcation
                .iter()
                .any(|b| b == &needed || (width == 16 && b == "x4x4x4x4" && ports <= 4))
        });
        if width < ports * 4 || !supported {
            out.push(
                Finding::of(
                    Code::Bifurcation,
                    format!(
                        "{} (`{part_id}`) needs {} split into {} x4 ports; {} is x{} on {} (splits: {})",
                        t.node(*card).label,
                        info.def.label,
                        ports,
                        info.def.label,
                        width,
                        rc.map(|r| r.label.as_str()).unwrap_or("?"),
                        rc.map(|r| r.bifurcation.join(", ")).unwrap_or_default()
                    ),
                )
                .with_help("put bridge extender cards in x16 slots, or use the switch variant")
                .at(Location {
                    node: Some(t.describe_path(*card)),
                    ..info.card_loc.clone()
                }),
            );
        }
    }

    // Service manual card rules: allowed slots and maximum counts.
    for rule in &plan.card_rules {
        let allowed: Vec<&str> = rule.slots.iter().map(|s| s.get_ref().as_str()).collect();
        let mut placed = Vec::new();
        for (id, info) in &plan.slots {
            let Some((card, _)) = &info.card else {
                continue;
            };
            let NodeKind::Device { class, .. } = &t.node(*card).kind else {
                continue;
            };
            if *class != rule.class {
                continue;
            }
            if rule.double_width && !plan.double_width_slots.contains(id) {
                continue;
            }
            placed.push((id.clone(), info.def.label.clone(), info.card_loc.clone()));
        }
        let labels = |ids: &[&str]| -> String {
            ids.iter()
                .map(|i| {
                    plan.slots
                        .get(*i)
                        .map(|s| s.def.label.clone())
                        .unwrap_or_else(|| i.to_string())
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (id, label, loc) in &placed {
            if !allowed.contains(&id.as_str()) {
                out.push(
                    Finding::of(
                        Code::OptionConflict,
                        format!(
                            "{} cards go in {} only; one is in {label}",
                            rule.class.name(),
                            labels(&allowed)
                        ),
                    )
                    .with_help(rule.source.clone().unwrap_or_default())
                    .about(Subject::Slot { id: id.clone() })
                    .at(loc.clone()),
                );
            }
        }
        if let Some(max) = rule.max
            && placed.len() > max
        {
            let where_: Vec<String> = placed.iter().map(|(_, l, _)| l.clone()).collect();
            // Point at the card that went over the limit, in the order the build lists them.
            let mut by_line: Vec<&Location> = placed.iter().map(|(_, _, l)| l).collect();
            by_line.sort_by_key(|l| l.line);
            let over = by_line
                .get(max)
                .map(|l| (*l).clone())
                .unwrap_or_else(at_file);
            out.push(
                Finding::of(
                    Code::OptionConflict,
                    format!(
                        "{} {}s installed ({}); {} allows at most {max}",
                        placed.len(),
                        if rule.double_width {
                            "double-width GPU".to_string()
                        } else {
                            rule.class.name().to_string()
                        },
                        where_.join(", "),
                        plan.platform_name
                    ),
                )
                .with_help(format!(
                    "priority: {}. {}",
                    labels(&allowed),
                    rule.source.clone().unwrap_or_default()
                ))
                .about(Subject::Slots {
                    ids: placed.iter().map(|(id, _, _)| id.clone()).collect(),
                })
                .at(over),
            );
        }
    }

    // Generation drops: a device trained below what it can do.
    for d in t.devices() {
        let Some((_, e)) = t.parent_edge(d) else {
            continue;
        };
        let Link::Pcie {
            rate,
            max: Some(max),
        } = &t.graph[e]
        else {
            continue;
        };
        if rate.generation >= max.generation {
            continue;
        }
        // Name the passive part that holds it back, and the fix the platform names.
        let mut culprit = None;
        for ix in t.ancestors(d).skip(1) {
            let n = t.node(ix);
            if n.rated_gen.is_some_and(|g| g < max.generation) {
                culprit = Some(ix);
                break;
            }
            if n.kind.is_link_partner() {
                break;
            }
        }
        let bay = t.ancestors(d).find_map(|ix| match t.node(ix).kind {
            NodeKind::Bay { number } => Some(number),
            _ => None,
        });
        let upgrade = bay
            .and_then(|b| plan.bays.get(&b))
            .and_then(|b| b.group.upgrade.clone());
        let what = match (culprit, bay) {
            (Some(c), Some(b)) => {
                let src = t.node(c).source.clone().unwrap_or_default();
                format!("the path to bay {b} is rated {}: {src}", rate.generation)
            }
            (Some(c), None) => format!("{} is rated {}", t.node(c).label, rate.generation),
            _ => format!("its port runs {}", rate.generation),
        };
        let mut f = Finding::of(
            Code::GenerationDrop,
            format!(
                "{} is a {} device but trains at {} ({}); {what}",
                t.node(d).label,
                max.generation,
                rate.generation,
                rate.label()
            ),
        )
        .at(Location {
            node: Some(t.describe_path(d)),
            ..at_file()
        });
        if let Some(b) = bay {
            f = f.about(Subject::Bay { number: b });
        }
        if let Some(u) = upgrade {
            f = f.with_help(format!("fit {u} to run it at {}", max.generation));
        }
        out.push(f);
    }
    out
}

/// The build-file location of the card placed last (by line) on a root complex.
fn last_card_on(plan: &Plan, rc: &str) -> Option<Location> {
    plan.slots
        .values()
        .filter(|s| s.card.is_some() && s.def.root_complex.get_ref() == rc)
        .map(|s| s.card_loc.clone())
        .filter(|l| l.line.is_some())
        .max_by_key(|l| l.line)
}
