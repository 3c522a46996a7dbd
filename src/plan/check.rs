//! Checks that need the whole plan: lane budgets, bifurcation, the service manual's card
//! rules, and generation drops along a path.

use super::budget::Budget;
use super::instantiate::Plan;
use crate::finding::{Code, Finding, Location, Subject};
use crate::topology::{DeviceClass, Link, NodeKind};
use petgraph::stable_graph::NodeIndex;

/// What every rule reads: the plan, its lane budget and the build file's name.
pub struct Ctx<'a> {
    pub plan: &'a Plan,
    pub budget: &'a Budget,
    pub file: Option<&'a str>,
}

impl Ctx<'_> {
    /// The build file, where a finding has no line of its own.
    fn at_file(&self) -> Location {
        Location {
            file: self.file.map(str::to_string),
            ..Default::default()
        }
    }
}

/// One whole-plan rule: a name, the codes it may emit, and the function that finds them.
pub struct Rule {
    pub name: &'static str,
    pub codes: &'static [Code],
    pub check: fn(&Ctx) -> Vec<Finding>,
}

/// The rules, in the order they run (`run` sorts the findings afterwards). Adding a check:
/// a function below and a row here (docs/ARCHITECTURE.md, "Add a check").
pub const RULES: &[Rule] = &[
    Rule {
        name: "rc-budget",
        codes: &[Code::RcOverBudget],
        check: rc_budget,
    },
    Rule {
        name: "socket-budget",
        codes: &[Code::SocketOverBudget],
        check: socket_budget,
    },
    Rule {
        name: "bifurcation",
        codes: &[Code::Bifurcation],
        check: bifurcation,
    },
    Rule {
        name: "card-rules",
        codes: &[Code::OptionConflict],
        check: card_rules,
    },
    Rule {
        name: "generation-drop",
        codes: &[Code::GenerationDrop],
        check: generation_drops,
    },
];

/// Findings about a plan whose pieces each fit (see `instantiate` for per-piece findings).
pub fn check(plan: &Plan, budget: &Budget, file: Option<&str>) -> Vec<Finding> {
    let cx = Ctx { plan, budget, file };
    RULES.iter().flat_map(|r| (r.check)(&cx)).collect()
}

/// Lanes over budget on a root complex.
fn rc_budget(cx: &Ctx) -> Vec<Finding> {
    let plan = cx.plan;
    let mut out = Vec::new();
    for s in &cx.budget.sockets {
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
                    .about(Subject::RootComplex { id: rc.id.clone() })
                    .at(Location {
                        node: Some(format!("{} > {}", s.label, rc.label)),
                        ..last_card_on(plan, &rc.id).unwrap_or_else(|| cx.at_file())
                    }),
                );
            }
        }
    }
    out
}

/// Lanes over budget on a socket.
fn socket_budget(cx: &Ctx) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in &cx.budget.sockets {
        if s.free < 0 {
            out.push(
                Finding::of(
                    Code::SocketOverBudget,
                    format!(
                        "{} needs {} PCIe lanes; it has {}",
                        s.label, s.used, s.lanes
                    ),
                )
                .about(Subject::Socket { index: s.index })
                .at(Location {
                    node: Some(s.label.clone()),
                    ..cx.at_file()
                }),
            );
        }
    }
    out
}

/// Bifurcation: an extender card without a switch splits its slot into x4 ports.
fn bifurcation(cx: &Ctx) -> Vec<Finding> {
    let plan = cx.plan;
    let t = &plan.topology;
    let mut out = Vec::new();
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
                .about(Subject::Slot {
                    id: info.def.id.get_ref().clone(),
                })
                .at(Location {
                    node: Some(t.describe_path(*card)),
                    ..info.card_loc.clone()
                }),
            );
        }
    }
    out
}

/// The service manual's card rules: allowed slots and maximum counts.
fn card_rules(cx: &Ctx) -> Vec<Finding> {
    let plan = cx.plan;
    let t = &plan.topology;
    let mut out = Vec::new();
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
                .unwrap_or_else(|| cx.at_file());
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
    out
}

/// Generation drops: a device trained below what it can do.
fn generation_drops(cx: &Ctx) -> Vec<Finding> {
    let plan = cx.plan;
    let t = &plan.topology;
    let mut out = Vec::new();
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
            ..cx.at_file()
        });
        f = f.about(drop_subject(plan, d, bay));
        if let Some(u) = upgrade {
            f = f.with_help(format!("fit {u} to run it at {}", max.generation));
        }
        out.push(f);
    }
    out
}

/// What a generation drop is about: the bay the device sits in, else the slot above it,
/// else the device's node.
fn drop_subject(plan: &Plan, d: NodeIndex, bay: Option<u32>) -> Subject {
    if let Some(number) = bay {
        return Subject::Bay { number };
    }
    let t = &plan.topology;
    let slot = t.ancestors(d).find_map(|ix| {
        plan.slots
            .iter()
            .find(|(_, s)| s.slot == ix)
            .map(|(id, _)| id.clone())
    });
    match slot {
        Some(id) => Subject::Slot { id },
        None => Subject::Node {
            id: t.node(d).id.clone(),
        },
    }
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
