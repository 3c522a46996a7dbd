//! The one adapter between `place` and the planner. Everything `place` knows about a platform,
//! a part or a candidate build comes through here, and only through the planner's public
//! entry points: a build file written in memory -> `plan::check_build` (instantiate + check)
//! -> `flow::attach` (max-flow ceilings). If those signatures change, this file changes.

use crate::finding::{Finding, Severity};
use crate::flow::{self, Dir, FlowReport};
use crate::plan::{self, Report};
use crate::platform::Catalog;
use crate::platform::schema::{BuildFile, CardRule, Height, Interface, Length, SlotKind, Via};
use crate::source::{SourceFile, parse_toml};
use crate::topology::DeviceClass;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One option of a platform: its key, default and choices (file order).
#[derive(Debug, Clone)]
pub struct OptionSpec {
    pub key: String,
    pub default: String,
    pub values: Vec<String>,
    /// A host variant (risers): searched only when `--option` names it.
    pub host_variant: bool,
}

/// What `place` needs of a platform.
#[derive(Debug, Clone)]
pub struct PlatformSpec {
    pub id: String,
    pub name: String,
    pub options: Vec<OptionSpec>,
    pub card_rules: Vec<CardRule>,
    /// Slot ids in platform file order (vendor order for cards without a rule).
    pub slot_order: Vec<String>,
}

/// A slot with the chosen options.
#[derive(Debug, Clone)]
pub struct SlotSpec {
    pub id: String,
    pub label: String,
    pub kind: SlotKind,
    pub electrical: u8,
    pub mechanical: u8,
    pub height: Option<Height>,
    pub length: Option<Length>,
    /// The option value that reserves it for its extender cards.
    pub reserved_by: Option<String>,
    pub root_complex: String,
    /// Everything `check` and the flow read of the slot but its id and label: two slots with
    /// the same twin key are interchangeable (symmetry breaking).
    pub twin_key: String,
}

/// A group of bays that share one path (interchangeable bays).
#[derive(Debug, Clone)]
pub struct GroupSpec {
    pub bays: Vec<u32>,
    pub interfaces: Vec<Interface>,
    pub size: String,
    pub via: Via,
    /// Slot, switch or root complex id the group hangs from.
    pub to: String,
    /// The card the option ships in the `to` slot for these bays.
    pub card: Option<String>,
}

/// Slots and bay groups of a platform with one set of option values.
#[derive(Debug, Clone)]
pub struct Space {
    pub options: BTreeMap<String, String>,
    pub slots: Vec<SlotSpec>,
    pub groups: Vec<GroupSpec>,
}

/// What `place` needs of a part.
#[derive(Debug, Clone)]
pub struct PartSpec {
    pub id: String,
    pub name: String,
    pub class: DeviceClass,
    pub interface: Interface,
    pub size: Option<String>,
    pub fits: Vec<SlotKind>,
    pub mechanical: u8,
    pub height: Option<Height>,
    pub length: Option<Length>,
    pub double_width: bool,
    /// Sequential spec per direction (GB/s); infinite when the part states none (a bound
    /// that never prunes).
    pub read_gbs: f64,
    pub write_gbs: f64,
}

impl PartSpec {
    pub fn is_drive(&self) -> bool {
        self.class.is_drive()
    }
}

pub fn platform_spec(catalog: &Catalog, id: &str) -> Option<PlatformSpec> {
    let p = catalog.platform(id)?;
    let d = &p.def;
    Some(PlatformSpec {
        id: d.id.get_ref().clone(),
        name: d.name.clone(),
        options: d
            .options
            .iter()
            .map(|o| OptionSpec {
                key: o.key.get_ref().clone(),
                default: o.default.get_ref().clone(),
                values: o
                    .choices
                    .iter()
                    .map(|c| c.value.get_ref().clone())
                    .collect(),
                host_variant: o.host_variant,
            })
            .collect(),
        card_rules: d.card_rules.clone(),
        slot_order: d.slots.iter().map(|s| s.id.get_ref().clone()).collect(),
    })
}

pub fn part_spec(catalog: &Catalog, id: &str) -> Option<PartSpec> {
    let p = catalog.part(id)?;
    let d = &p.def;
    Some(PartSpec {
        id: id.to_string(),
        name: d.name.clone(),
        class: d.class,
        // instantiate reads a drive without an interface as SATA.
        interface: d.interface.unwrap_or(Interface::Sata),
        size: d.size.clone(),
        fits: p.fits(),
        mechanical: p.mechanical(),
        height: d.height,
        length: d.length,
        double_width: d.double_width,
        read_gbs: d.perf.map(|x| x.seq_read_gbs).unwrap_or(f64::INFINITY),
        write_gbs: d.perf.map(|x| x.seq_write_gbs).unwrap_or(f64::INFINITY),
    })
}

/// The slots and bay groups with these options (the planner's own view, empty build).
pub fn space(
    catalog: &Catalog,
    spec: &PlatformSpec,
    options: &BTreeMap<String, String>,
) -> Option<Space> {
    let opts: Vec<(String, String)> = options
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let report = plan::plan_platform(catalog, &spec.id, &opts).ok()?;
    let plan = &report.plan;
    let order = |id: &str| {
        spec.slot_order
            .iter()
            .position(|s| s == id)
            .unwrap_or(usize::MAX)
    };
    let mut slots: Vec<SlotSpec> = plan
        .slots
        .iter()
        .map(|(id, s)| SlotSpec {
            id: id.clone(),
            label: s.def.label.clone(),
            kind: s.def.kind.get_ref().clone(),
            electrical: s.def.electrical.get_ref().get(),
            mechanical: s.def.mechanical.get_ref().get(),
            height: s.def.height,
            length: s.def.length,
            reserved_by: s.reserved_by.clone(),
            root_complex: s.def.root_complex.get_ref().clone(),
            twin_key: format!(
                "{:?}|{}|{}|{:?}|{:?}|{:?}|{:?}|{}|{:?}",
                s.def.kind.get_ref(),
                s.def.electrical.get_ref().get(),
                s.def.mechanical.get_ref().get(),
                s.def.height,
                s.def.length,
                s.def.generation.as_ref().map(|g| g.get_ref()),
                s.def.riser,
                s.def.root_complex.get_ref(),
                s.reserved_by
            ),
        })
        .collect();
    slots.sort_by(|a, b| order(&a.id).cmp(&order(&b.id)).then(a.id.cmp(&b.id)));
    let mut groups: Vec<GroupSpec> = Vec::new();
    let mut last: Option<&std::sync::Arc<_>> = None;
    for (n, b) in &plan.bays {
        match last {
            Some(g) if std::sync::Arc::ptr_eq(g, &b.group) => {
                if let Some(cur) = groups.last_mut() {
                    cur.bays.push(*n);
                }
            }
            _ => groups.push(GroupSpec {
                bays: vec![*n],
                interfaces: b.group.interfaces.clone(),
                size: b.group.size.clone(),
                via: b.group.via,
                to: b.group.to.get_ref().clone(),
                card: b.group.card.clone(),
            }),
        }
        last = Some(&b.group);
    }
    Some(Space {
        options: options.clone(),
        slots,
        groups,
    })
}

/// A build as a build file (TOML text): what `-o` writes and what `evaluate` checks.
pub fn build_toml(
    platform: &str,
    name: &str,
    options: &BTreeMap<String, String>,
    slots: &[(String, String)],
    bays: &[(String, String)],
) -> String {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut out = String::new();
    let _ = writeln!(out, "platform = {}", q(platform));
    let _ = writeln!(out, "name = {}", q(name));
    if !options.is_empty() {
        let _ = writeln!(out, "\n[options]");
        for (k, v) in options {
            let _ = writeln!(out, "{} = {}", toml_key(k), q(v));
        }
    }
    for (slot, part) in slots {
        let _ = writeln!(out, "\n[[slot]]\nslot = {}\npart = {}", q(slot), q(part));
    }
    for (list, part) in bays {
        let _ = writeln!(out, "\n[[bay]]\nbays = {}\npart = {}", q(list), q(part));
    }
    out
}

/// Bay numbers as a build file's `bays` value (`0-3,8`).
pub fn bay_list(v: &[u32]) -> String {
    plan::instantiate::compress_ranges(v).replace(", ", ",")
}

fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        k.to_string()
    } else {
        toml::Value::String(k.to_string()).to_string()
    }
}

/// A checked candidate: the planner's report (findings include the bandwidth ones) and its
/// bandwidth.
#[derive(Debug, Clone)]
pub struct Evaluated {
    pub report: Report,
    pub flow: Option<FlowReport>,
    /// The cards' own figures, when asked for (`EvalOpts::cards`).
    pub cards: Vec<CardFigures>,
}

impl Evaluated {
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
    }
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }
}

/// What an evaluation measures besides `check`: which devices offer traffic to the
/// aggregates (`flow --devices`), and whether the cards' own figures (NICs, narrowed cards)
/// are wanted (a second flow with every device, read only for the cards).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EvalOpts {
    pub scope: flow::Scope,
    pub cards: bool,
}

/// Checks a build file text as `laneplan check` would (default flow options).
pub fn evaluate(catalog: &Catalog, name: &str, text: &str) -> Result<Evaluated, String> {
    evaluate_with(catalog, name, text, EvalOpts::default())
}

/// Checks a build file text as `laneplan check` would, the bandwidth with `opts`.
pub fn evaluate_with(
    catalog: &Catalog,
    name: &str,
    text: &str,
    opts: EvalOpts,
) -> Result<Evaluated, String> {
    let file = SourceFile::new(name, text.to_string());
    let build: BuildFile = parse_toml(&file).map_err(|e| format!("{e:?}"))?;
    let mut report = plan::check_build(catalog, &build, file).map_err(|e| format!("{e:?}"))?;
    let fo = flow::Options {
        scope: opts.scope,
        ..flow::Options::default()
    };
    let flow = flow::attach(&mut report, &fo).ok();
    let cards = if opts.cards
        && !report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Error)
    {
        card_figures(
            catalog,
            &report,
            flow.as_ref().filter(|_| opts.scope == flow::Scope::All),
        )
    } else {
        Vec::new()
    };
    Ok(Evaluated {
        report,
        flow,
        cards,
    })
}

/// One card's own traffic figures (every device offering traffic), per direction: the
/// device's expected figure alone (its spec capped by its path) and what it would reach at
/// its full edge width.
#[derive(Debug, Clone, PartialEq)]
pub struct CardFigures {
    pub slot: String,
    pub part: String,
    pub class: DeviceClass,
    /// Edge width and the width the slot gives it.
    pub edge: u8,
    pub electrical: u8,
    /// Expected alone (GB/s): toward memory (read) and from memory (write).
    pub read_gbs: f64,
    pub write_gbs: f64,
    /// What it loses by running narrower than its edge (GB/s, the larger direction); 0
    /// when the slot gives it every lane.
    pub narrow_loss_gbs: f64,
}

/// The cards' figures, from a flow with every device (`all`, reused when the evaluation's own
/// flow is one).
fn card_figures(catalog: &Catalog, report: &Report, all: Option<&FlowReport>) -> Vec<CardFigures> {
    let own;
    let f = match all {
        Some(f) => f,
        None => {
            let fo = flow::Options {
                scope: flow::Scope::All,
                ..flow::Options::default()
            };
            match flow::analyze_plan(&report.plan, &fo) {
                Ok((r, _)) => {
                    own = r;
                    &own
                }
                Err(_) => return Vec::new(),
            }
        }
    };
    let plan = &report.plan;
    let mut out = Vec::new();
    for (slot, info) in &plan.slots {
        let Some((node, part)) = &info.card else {
            continue;
        };
        let Some(d) = f.devices.iter().find(|d| d.node == *node) else {
            continue;
        };
        let electrical = info.def.electrical.get_ref().get();
        let edge = catalog
            .part(part)
            .map(|p| p.mechanical())
            .unwrap_or(electrical)
            .max(electrical);
        let loss = |x: &flow::DeviceDir| {
            if edge <= electrical || x.ceiling_by.kind != "link" {
                return 0.0;
            }
            let full = (x.ceiling_gbs * f64::from(edge) / f64::from(electrical)).min(x.spec_gbs);
            (full - x.alone_gbs).max(0.0)
        };
        out.push(CardFigures {
            slot: slot.clone(),
            part: part.clone(),
            class: d.class,
            edge,
            electrical,
            read_gbs: d.read.alone_gbs,
            write_gbs: d.write.alone_gbs,
            narrow_loss_gbs: loss(&d.read).max(loss(&d.write)),
        });
    }
    out
}

/// One NUMA node's traffic in a candidate (mean of read and write fair shares).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NumaShare {
    pub numa_node: u32,
    pub gbs: f64,
}

/// The measures a score is made of, read off an evaluated candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Measures {
    pub read_gbs: f64,
    pub write_gbs: f64,
    pub demand_read_gbs: f64,
    pub demand_write_gbs: f64,
    /// Every NUMA node of the platform's root complexes, with the drive traffic it serves.
    pub numa: Vec<NumaShare>,
    /// Largest demand / capacity over the elements drives share (1.0 when nothing is
    /// oversubscribed or no drive is placed).
    pub oversubscription: f64,
    /// Saturated elements of the read and write max-flow, most oversubscribed first (labels).
    pub bottlenecks: BTreeMap<&'static str, Vec<String>>,
    /// The most loaded element (label, read ratio), whether or not it saturates.
    pub most_loaded: Option<(String, f64)>,
}

pub fn measures(e: &Evaluated) -> Measures {
    let plan = &e.report.plan;
    let t = &plan.topology;
    let mut numa: BTreeMap<u32, f64> = plan
        .rc_defs
        .values()
        .filter_map(|r| r.numa_node)
        .map(|n| (n, 0.0))
        .collect();
    let rc_numa: foldhash::HashMap<_, u32> = plan
        .root_complexes
        .iter()
        .filter_map(|(id, ix)| {
            plan.rc_defs
                .get(id)
                .and_then(|d| d.numa_node)
                .map(|n| (*ix, n))
        })
        .collect();
    let Some(f) = &e.flow else {
        return Measures {
            read_gbs: 0.0,
            write_gbs: 0.0,
            demand_read_gbs: 0.0,
            demand_write_gbs: 0.0,
            numa: numa
                .into_iter()
                .map(|(numa_node, gbs)| NumaShare { numa_node, gbs })
                .collect(),
            oversubscription: 1.0,
            bottlenecks: BTreeMap::new(),
            most_loaded: None,
        };
    };
    for d in &f.devices {
        if let Some(n) = t.ancestors(d.node).find_map(|a| rc_numa.get(&a)) {
            *numa.entry(*n).or_insert(0.0) += (d.read.share_gbs + d.write.share_gbs) / 2.0;
        }
    }
    let label = |id: &str| {
        f.elements
            .iter()
            .find(|el| el.element.id == id)
            .map(|el| el.element.label.clone())
            .unwrap_or_else(|| id.to_string())
    };
    let mut bottlenecks = BTreeMap::new();
    let mut over: f64 = 1.0;
    for dir in Dir::BOTH {
        let agg = f.aggregate(dir);
        bottlenecks.insert(
            dir.name(),
            agg.bottlenecks.iter().map(|b| label(b)).collect(),
        );
        if let Some(el) = f.most_loaded(dir, 1).first() {
            over = over.max(el.dir(dir).ratio.unwrap_or(0.0));
        }
    }
    let most_loaded = f
        .most_loaded(Dir::Read, 1)
        .first()
        .map(|el| (el.element.label.clone(), el.read.ratio.unwrap_or(0.0)));
    Measures {
        read_gbs: f.read.max_flow_gbs,
        write_gbs: f.write.max_flow_gbs,
        demand_read_gbs: f.read.demand_gbs,
        demand_write_gbs: f.write.demand_gbs,
        numa: numa
            .into_iter()
            .map(|(numa_node, gbs)| NumaShare { numa_node, gbs })
            .collect(),
        oversubscription: over,
        bottlenecks,
        most_loaded,
    }
}
