//! Plan against host: which planned bay or slot each live function fills, and the per-bay and
//! per-slot diff (ok, empty, missing, unexpected, downtrained, wrong socket, wrong part).
//!
//! Matching uses the root complexes' `locator`s in the platform file (bus or address prefixes,
//! such as `0000:17` for an R740xd IIO stack). Within one root complex:
//! * NVMe positions (bays behind bifurcated extender cards, switches or direct cables) pair with
//!   the live ports (root ports and switch downstream ports) that hold an NVMe device or nothing,
//!   in address order: port k of a stack serves the k-th planned bay of that stack.
//! * Cards (controllers, NICs, boot cards) pair with live endpoints of the same device class.
//!
//! SAS/SATA bays sit behind a controller and are invisible to PCIe: they are reported as such.

use crate::finding::{Finding, Location};
use crate::host::audit::{Audit, FunctionReport};
use crate::host::model::LinkState;
use crate::host::tree::{FnKind, device_class};
use crate::pcie::LinkRate;
use crate::plan::instantiate::Plan;
use crate::topology::{DeviceClass, Link, NodeKind, Topology};
use petgraph::stable_graph::NodeIndex;
use serde::Serialize;

/// Codes of the plan-against-host diff.
pub mod codes {
    pub const MISSING: &str = "LP0320";
    pub const UNEXPECTED: &str = "LP0321";
    pub const DOWNTRAINED: &str = "LP0322";
    pub const WRONG_SOCKET: &str = "LP0323";
    pub const WRONG_PART: &str = "LP0324";
    pub const NOT_LOCATED: &str = "LP0325";
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiffStatus {
    /// Found as planned.
    Ok,
    /// Planned empty, found empty.
    Empty,
    /// Planned, not found.
    Missing,
    /// Found, not planned.
    Unexpected,
    /// Found, but its link trained below the plan.
    Downtrained,
    /// Found on another NUMA node than the plan's socket.
    WrongSocket,
    /// Found, but a different part.
    WrongPart,
    /// Behind a RAID controller or HBA: not visible on PCIe.
    NotVisible,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffEntry {
    /// `Bay 12`, `Slot 2`, or the BDF of something found where nothing was planned.
    pub place: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bay: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<String>,
    pub expected: Option<String>,
    pub expected_link: Option<String>,
    pub expected_socket: Option<String>,
    pub bdf: Option<String>,
    pub found: Option<String>,
    pub found_link: Option<String>,
    pub found_numa: Option<u32>,
    pub status: DiffStatus,
    pub problems: Vec<String>,
}

/// The diff and its findings.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub build: Option<String>,
    pub platform: String,
    pub entries: Vec<DiffEntry>,
    #[serde(skip)]
    pub findings: Vec<Finding>,
}

enum Position {
    Bay {
        bay: u16,
        drive: Option<NodeIndex>,
    },
    Card {
        slot: String,
        label: String,
        card: NodeIndex,
    },
    EmptySlot {
        label: String,
    },
}

/// Compares a plan with an audited host.
pub fn diff(plan: &Plan, audit: &Audit) -> Diff {
    let t = &plan.topology;
    let mut entries = Vec::new();
    let mut findings = Vec::new();
    for (rc_id, &rc) in &plan.root_complexes {
        let def = &plan.rc_defs[rc_id];
        let positions = positions(t, rc);
        if positions.is_empty() {
            continue;
        }
        if def.locator.is_empty() {
            findings.push(
                Finding::note(
                    codes::NOT_LOCATED,
                    format!(
                        "{} has no locator in the platform file: its {} planned position(s) are not compared",
                        def.label,
                        positions.len()
                    ),
                )
                .with_help("add `locator = [\"DDDD:BB\"]` to the root complex"),
            );
            continue;
        }
        let socket = t.socket_of(rc).map(|s| t.node(s));
        let numa: Vec<u32> = match socket.map(|s| &s.kind) {
            Some(NodeKind::Socket { numa_nodes, .. }) => numa_nodes.clone(),
            _ => Vec::new(),
        };
        let socket_label = socket.map(|s| s.label.clone());
        let located: Vec<&FunctionReport> = audit
            .functions
            .iter()
            .filter(|f| def.locator.iter().any(|l| f.bdf.starts_with(l.as_str())))
            .collect();
        let children_of = |bdf: &str| -> Vec<&FunctionReport> {
            audit
                .functions
                .iter()
                .filter(|f| f.parent.as_deref() == Some(bdf))
                .collect()
        };
        let is_nvme = |f: &FunctionReport| device_class(class_code(f)) == DeviceClass::Nvme;
        // Live NVMe positions: ports holding an NVMe device or nothing.
        let leaf_ports: Vec<&FunctionReport> = located
            .iter()
            .copied()
            .filter(|f| matches!(f.kind, FnKind::RootPort | FnKind::SwitchPort))
            .filter(|f| {
                let kids = children_of(&f.bdf);
                kids.is_empty() || kids.iter().any(|k| is_nvme(k))
            })
            .collect();
        let mut endpoints: Vec<&FunctionReport> = located
            .iter()
            .copied()
            .filter(|f| f.kind == FnKind::Device && f.bdf.ends_with(".0") && !is_nvme(f))
            .collect();
        // Endpoints one bridge below the located ports sit on other buses: add them.
        for p in located
            .iter()
            .filter(|f| matches!(f.kind, FnKind::RootPort | FnKind::SwitchPort))
        {
            for k in children_of(&p.bdf) {
                if k.kind == FnKind::Device
                    && k.bdf.ends_with(".0")
                    && !is_nvme(k)
                    && !endpoints.iter().any(|e| e.bdf == k.bdf)
                {
                    endpoints.push(k);
                }
            }
        }
        let mut nvme_i = 0;
        for pos in &positions {
            match pos {
                Position::Bay { bay, drive } => {
                    let port = leaf_ports.get(nvme_i).copied();
                    nvme_i += 1;
                    let found =
                        port.and_then(|p| children_of(&p.bdf).into_iter().find(|k| is_nvme(k)));
                    let expected = drive.map(|d| t.node(d).label.clone());
                    let planned_rate = drive.and_then(|d| rate_above(t, d));
                    let mut e = DiffEntry {
                        bay: Some(*bay),
                        expected: expected.clone(),
                        expected_link: planned_rate.map(|r| r.label()),
                        expected_socket: drive.and(socket_label.clone()),
                        ..DiffEntry::at(format!("Bay {bay}"), audit, found)
                    };
                    match (drive, found) {
                        (None, None) => e.status = DiffStatus::Empty,
                        (Some(_), None) => {
                            e.status = DiffStatus::Missing;
                            let why = match port {
                                Some(p) => format!("port {} is empty or its link is down", p.bdf),
                                None => {
                                    format!("no port found for it under {}", def.locator.join(", "))
                                }
                            };
                            e.problems.push(format!(
                                "missing: {} planned, {why}",
                                expected.clone().unwrap_or_default()
                            ));
                        }
                        (None, Some(f)) => {
                            e.status = DiffStatus::Unexpected;
                            e.problems.push(format!(
                                "unexpected: {} at {}",
                                found_name(audit, f),
                                f.bdf
                            ));
                        }
                        (Some(d), Some(f)) => {
                            judge(&mut e, t, *d, planned_rate, f, &numa, audit);
                        }
                    }
                    entries.push(e);
                }
                Position::Card { slot, label, card } => {
                    let class = match t.node(*card).kind {
                        NodeKind::Device { class, .. } => class,
                        _ => DeviceClass::Other,
                    };
                    let planned_rate = rate_above(t, *card);
                    let idx = endpoints
                        .iter()
                        .position(|f| classes_match(class, device_class(class_code(f))));
                    let found = idx.map(|i| endpoints.remove(i));
                    let mut e = DiffEntry {
                        slot: Some(slot.clone()),
                        expected: Some(t.node(*card).label.clone()),
                        expected_link: planned_rate.map(|r| r.label()),
                        expected_socket: socket_label.clone(),
                        ..DiffEntry::at(label.clone(), audit, found)
                    };
                    match found {
                        None => {
                            e.status = DiffStatus::Missing;
                            e.problems.push(format!(
                                "missing: {} planned, no {} found under {}",
                                t.node(*card).label,
                                class.name(),
                                def.locator.join(", ")
                            ));
                        }
                        Some(f) => judge(&mut e, t, *card, planned_rate, f, &numa, audit),
                    }
                    entries.push(e);
                }
                Position::EmptySlot { .. } => {}
            }
        }
        // Live NVMe ports beyond the plan, and cards nobody planned.
        for p in leaf_ports.iter().skip(nvme_i) {
            if let Some(f) = children_of(&p.bdf).into_iter().find(|k| is_nvme(k)) {
                entries.push(unexpected(audit, f, socket_label.clone()));
            }
        }
        let empty_slots: Vec<&str> = positions
            .iter()
            .filter_map(|p| match p {
                Position::EmptySlot { label } => Some(label.as_str()),
                _ => None,
            })
            .collect();
        for f in endpoints {
            let mut e = unexpected(audit, f, socket_label.clone());
            if !empty_slots.is_empty() {
                e.problems[0].push_str(&format!(
                    " (planned empty there: {})",
                    empty_slots.join(", ")
                ));
            }
            entries.push(e);
        }
    }
    // SAS/SATA drives behind controllers.
    for b in plan.bays.values() {
        if let Some((d, _)) = &b.drive
            && !matches!(
                t.parent_edge(*d).map(|(_, e)| &t.graph[e]),
                Some(Link::Pcie { .. })
            )
        {
            entries.push(DiffEntry {
                bay: Some(b.number),
                expected: Some(t.node(*d).label.clone()),
                status: DiffStatus::NotVisible,
                problems: vec!["behind a storage controller: not visible on PCIe".into()],
                ..DiffEntry::at(format!("Bay {}", b.number), audit, None)
            });
        }
    }
    entries.sort_by_key(|e| (e.bay.is_none(), e.bay, e.slot.clone(), e.bdf.clone()));
    for e in &entries {
        let code = match e.status {
            DiffStatus::Missing => codes::MISSING,
            DiffStatus::Unexpected => codes::UNEXPECTED,
            DiffStatus::Downtrained => codes::DOWNTRAINED,
            DiffStatus::WrongSocket => codes::WRONG_SOCKET,
            DiffStatus::WrongPart => codes::WRONG_PART,
            _ => continue,
        };
        let f = if e.status == DiffStatus::Unexpected {
            Finding::warning(code, format!("{}: {}", e.place, e.problems.join("; ")))
        } else {
            Finding::error(code, format!("{}: {}", e.place, e.problems.join("; ")))
        };
        let node = e.bdf.clone().unwrap_or_else(|| e.place.clone());
        findings.push(f.at(Location::node(node)));
    }
    Diff {
        build: plan.build_name.clone(),
        platform: plan.platform_id.clone(),
        entries,
        findings,
    }
}

/// Fills the audit's `bay` fields and `bays` array from the diff, and adds its findings.
pub fn apply(audit: &mut Audit, diff: &Diff) {
    for e in &diff.entries {
        let (Some(bdf), Some(bay)) = (&e.bdf, e.bay) else {
            continue;
        };
        let name = format!("Bay {bay}");
        if let Some(f) = audit.functions.iter_mut().find(|f| &f.bdf == bdf) {
            f.bay = Some(name.clone());
        }
        if let Some(d) = audit
            .drives
            .iter_mut()
            .find(|d| d.bdf.as_deref() == Some(bdf.as_str()))
        {
            d.bay = Some(name);
        }
    }
    audit.bays = diff
        .entries
        .iter()
        .filter_map(|e| serde_json::to_value(e).ok())
        .collect();
    audit.findings.extend(diff.findings.iter().cloned());
}

/// The diff as a table, one row per bay and slot.
pub fn render(diff: &Diff) -> String {
    use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    table.set_header(vec![
        "place",
        "status",
        "planned",
        "planned link",
        "found",
        "found link",
        "BDF",
        "NUMA",
    ]);
    for e in &diff.entries {
        let status = serde_json::to_value(e.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        table.add_row(vec![
            e.place.clone(),
            status,
            e.expected.clone().unwrap_or_else(|| "-".into()),
            e.expected_link.clone().unwrap_or_else(|| "-".into()),
            e.found.clone().unwrap_or_else(|| "-".into()),
            e.found_link.clone().unwrap_or_else(|| "-".into()),
            e.bdf.clone().unwrap_or_else(|| "-".into()),
            e.found_numa
                .map(|n| n.to_string())
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    let mut out = format!(
        "Against the plan: {} ({})\n",
        diff.build.clone().unwrap_or_else(|| diff.platform.clone()),
        diff.platform
    );
    out.push_str(&table.to_string());
    out.push('\n');
    for e in diff.entries.iter().filter(|e| !e.problems.is_empty()) {
        if e.status == DiffStatus::NotVisible {
            continue;
        }
        out.push_str(&format!("  {}: {}\n", e.place, e.problems.join("; ")));
    }
    out
}

fn class_code(f: &FunctionReport) -> Option<u32> {
    f.class
        .as_deref()
        .and_then(|c| u32::from_str_radix(c.trim_start_matches("0x"), 16).ok())
}

/// A planned class and a live class code are the same kind of card (a PERC is a RAID class
/// device; an HBA330 reports SAS; BOSS reports SATA).
fn classes_match(planned: DeviceClass, live: DeviceClass) -> bool {
    match planned {
        DeviceClass::Raid | DeviceClass::Hba | DeviceClass::Boot => {
            matches!(live, DeviceClass::Raid | DeviceClass::Hba)
        }
        other => other == live,
    }
}

fn link_label(l: LinkState) -> String {
    match l.speed {
        Some(g) if l.width > 0 => format!("{} x{}", g.sysfs_speed(), l.width),
        _ => "link down".into(),
    }
}

fn found_name(audit: &Audit, f: &FunctionReport) -> String {
    audit
        .drives
        .iter()
        .find(|d| d.bdf.as_deref() == Some(f.bdf.as_str()))
        .and_then(|d| d.model.clone())
        .unwrap_or_else(|| f.name.clone())
}

impl DiffEntry {
    /// An entry for `place` holding what the host has there, if anything; the plan's side
    /// and the verdict are filled in by the caller.
    fn at(place: String, audit: &Audit, found: Option<&FunctionReport>) -> DiffEntry {
        DiffEntry {
            place,
            bay: None,
            slot: None,
            expected: None,
            expected_link: None,
            expected_socket: None,
            bdf: found.map(|f| f.bdf.clone()),
            found: found.map(|f| found_name(audit, f)),
            found_link: found.and_then(|f| f.link).map(link_label),
            found_numa: found.and_then(|f| f.numa_node),
            status: DiffStatus::Ok,
            problems: Vec::new(),
        }
    }
}

fn unexpected(audit: &Audit, f: &FunctionReport, socket: Option<String>) -> DiffEntry {
    DiffEntry {
        slot: f.slot.clone(),
        expected_socket: socket,
        status: DiffStatus::Unexpected,
        problems: vec![format!(
            "unexpected: {} at {}, not in the plan",
            found_name(audit, f),
            f.bdf
        )],
        ..DiffEntry::at(f.bdf.clone(), audit, Some(f))
    }
}

/// The PCIe rate planned on the link above a device.
fn rate_above(t: &Topology, d: NodeIndex) -> Option<LinkRate> {
    t.parent_edge(d)
        .and_then(|(_, e)| t.graph[e].pcie().copied())
}

fn judge(
    e: &mut DiffEntry,
    t: &Topology,
    planned: NodeIndex,
    rate: Option<LinkRate>,
    f: &FunctionReport,
    numa: &[u32],
    audit: &Audit,
) {
    // Part: a model number token of the planned part (`9300`, `PE8010`) in what was found.
    let want = &t.node(planned).label;
    let got = found_name(audit, f);
    let tokens: Vec<&str> = want
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 4 && w.chars().any(|c| c.is_ascii_digit()))
        .collect();
    let is_drive = matches!(
        t.node(planned).kind,
        NodeKind::Device {
            class: DeviceClass::Nvme,
            ..
        }
    );
    if is_drive && !tokens.is_empty() && !tokens.iter().any(|tok| got.contains(tok)) {
        e.status = DiffStatus::WrongPart;
        e.problems
            .push(format!("wrong part: planned {want}, found {got}"));
    }
    if let (Some(n), false) = (f.numa_node, numa.is_empty())
        && !numa.contains(&n)
    {
        e.status = DiffStatus::WrongSocket;
        e.problems.push(format!(
            "wrong socket: planned on {}, found on NUMA node {n}",
            e.expected_socket.clone().unwrap_or_default()
        ));
    }
    if let (Some(r), Some(l)) = (rate, f.link) {
        let slow = l.speed.is_some_and(|g| g < r.generation);
        let narrow = l.width > 0 && l.width < r.width;
        if l.is_down() {
            e.status = DiffStatus::Missing;
            e.problems.push("present but its link is down".into());
        } else if slow || narrow {
            e.status = DiffStatus::Downtrained;
            e.problems.push(format!(
                "downtrained: {} where the plan expects {}",
                link_label(l),
                r.label()
            ));
        }
    }
}

/// The planned positions under a root complex, in port order.
fn positions(t: &Topology, rc: NodeIndex) -> Vec<Position> {
    let mut out = Vec::new();
    for port in t.children(rc) {
        collect(t, port, &mut out);
    }
    out
}

fn collect(t: &Topology, ix: NodeIndex, out: &mut Vec<Position>) {
    let n = t.node(ix);
    match &n.kind {
        NodeKind::Bay { number } => {
            let drive = t
                .children(ix)
                .into_iter()
                .find(|&c| matches!(t.node(c).kind, NodeKind::Device { .. }));
            out.push(Position::Bay {
                bay: *number,
                drive,
            });
        }
        NodeKind::Slot { .. } => {
            let card = t
                .children(ix)
                .into_iter()
                .find(|&c| matches!(t.node(c).kind, NodeKind::Device { .. }));
            match card {
                None => out.push(Position::EmptySlot {
                    label: n.label.clone(),
                }),
                Some(c) => match t.node(c).kind {
                    NodeKind::Device {
                        class: DeviceClass::Extender,
                        ..
                    } => {
                        for k in t.children(c) {
                            collect(t, k, out);
                        }
                    }
                    _ => out.push(Position::Card {
                        slot: n.id.clone(),
                        label: n.label.clone(),
                        card: c,
                    }),
                },
            }
        }
        // Controllers' backplanes hold SAS bays: not PCIe positions.
        NodeKind::Backplane => {}
        NodeKind::Device { .. } | NodeKind::Pch => {}
        _ => {
            for k in t.children(ix) {
                collect(t, k, out);
            }
        }
    }
}
