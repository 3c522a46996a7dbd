//! The plan-against-chassis diff that `audit --redfish --against` runs: planned slots
//! matched to the chassis's by ordinal, else by label, and planned bays to the drives
//! [`placed_drives`](crate::host::placed::placed_drives) numbers (as `learn --redfish` does).

use super::{DiffEntry, DiffStatus, MatchMethod};
use crate::finding::{Code, Finding, Subject};
use crate::host::chassis::Chassis;
use crate::host::placed::{
    BayMethod, Bus, PlacedDrive, bay_groups, card_of, controller_label, drive_name, placed_drives,
    present,
};
use crate::plan::instantiate::{Plan, SlotInfo};

/// Compares a plan's slots and cards with a chassis: planned slots matched by their
/// `slot_number` to the slot ordinals, else by label; a card by its part's name against the
/// device model, its planned link against what the BMC says is in use.
pub fn diff(plan: &Plan, ch: &Chassis) -> (Vec<DiffEntry>, Vec<Finding>) {
    let t = &plan.topology;
    let mut entries = Vec::new();
    let mut findings = Vec::new();
    let (groups, _) = bay_groups(ch);
    let controllers: Vec<String> = groups
        .iter()
        .filter(|g| g.bus == Bus::Controller)
        .map(|g| controller_label(g.storage))
        .collect();
    for (id, info) in &plan.slots {
        diff_slot(t, ch, &controllers, (id, info), &mut entries, &mut findings);
    }
    diff_bays(plan, ch, &mut entries, &mut findings);
    (entries, findings)
}

/// One planned slot against the chassis: the storage-controller slot learn wrote matched by
/// the controller's label, else the slot by ordinal or label and its card by model.
fn diff_slot(
    t: &crate::topology::Topology,
    ch: &Chassis,
    controllers: &[String],
    (id, info): (&String, &SlotInfo),
    entries: &mut Vec<DiffEntry>,
    findings: &mut Vec<Finding>,
) {
    let slot_node = t.node(info.slot);
    let number = info.def.slot_number.as_ref().map(|v| *v.get_ref());
    let (found, method) = match number.and_then(|n| ch.slots.iter().find(|s| s.ordinal == Some(n)))
    {
        Some(s) => (Some(s), MatchMethod::PhysicalSlot),
        None => (
            ch.slots
                .iter()
                .find(|s| s.label.as_deref() == Some(slot_node.label.as_str())),
            MatchMethod::None,
        ),
    };
    let card = info.card.as_ref().map(|(ix, _)| t.node(*ix));
    // A storage-controller slot learn wrote: matched by the controller's label.
    if found.is_none()
        && let Some(label) = controllers
            .iter()
            .find(|l| l.as_str() == slot_node.label.as_str())
    {
        controller_slot(t, (id, info), number, label, entries, findings);
        return;
    }
    let dev = found.and_then(|s| card_of(ch, s));
    let mut problems = Vec::new();
    let status = match (card, found, dev) {
        (_, None, _) => {
            problems.push(format!(
                "{}: no slot with this number or label in the tree",
                slot_node.label
            ));
            DiffStatus::Missing
        }
        (None, Some(_), None) => DiffStatus::Empty,
        (None, Some(_), Some(d)) => {
            problems.push(format!(
                "{} holds {}, not planned",
                slot_node.label,
                d.model.as_deref().unwrap_or(&d.id)
            ));
            DiffStatus::Unexpected
        }
        (Some(c), Some(_), None) => {
            problems.push(format!(
                "{}: {} planned, the slot is empty",
                slot_node.label, c.label
            ));
            DiffStatus::Missing
        }
        (Some(c), Some(_), Some(d)) => {
            if d.model.as_deref() != Some(c.label.as_str()) {
                problems.push(format!(
                    "{}: {} planned, {} found",
                    slot_node.label,
                    c.label,
                    d.model.as_deref().unwrap_or("an unnamed device")
                ));
                DiffStatus::WrongPart
            } else {
                DiffStatus::Ok
            }
        }
    };
    if !problems.is_empty() {
        let c = match status {
            DiffStatus::Missing => Code::Missing,
            DiffStatus::WrongPart => Code::WrongPart,
            _ => Code::Unexpected,
        };
        findings.push(
            Finding::of(c, problems.join("; "))
                .about(Subject::Slot { id: id.clone() })
                .at_node(id.clone()),
        );
    }
    entries.push(DiffEntry {
        place: slot_node.label.clone(),
        subject: Subject::Slot { id: id.clone() },
        bay: None,
        slot: Some(id.clone()),
        slot_number: number,
        method,
        expected: card.map(|c| c.label.clone()),
        expected_part: info.card.as_ref().map(|(_, p)| p.clone()),
        expected_link: None,
        expected_socket: None,
        bdf: None,
        found: dev.map(|d| {
            d.model
                .clone()
                .or(d.name.clone())
                .unwrap_or_else(|| d.id.clone())
        }),
        found_part: None,
        found_ids: None,
        found_subsystem: None,
        found_link: dev.and_then(|d| d.link).map(|l| l.label()),
        found_rate: dev.and_then(|d| d.link),
        found_numa: None,
        status,
        problems,
        in_slot: None,
        found_class: None,
    });
}

/// A storage-controller slot learn wrote, matched by the controller's `label`: its planned
/// card against that label.
fn controller_slot(
    t: &crate::topology::Topology,
    (id, info): (&String, &SlotInfo),
    number: Option<u32>,
    label: &str,
    entries: &mut Vec<DiffEntry>,
    findings: &mut Vec<Finding>,
) {
    let slot_node = t.node(info.slot);
    let card = info.card.as_ref().map(|(ix, _)| t.node(*ix));
    let mut problems = Vec::new();
    let status = match card {
        Some(c) if c.label == *label => DiffStatus::Ok,
        Some(c) => {
            problems.push(format!(
                "{}: {} planned, {label} found",
                slot_node.label, c.label
            ));
            DiffStatus::WrongPart
        }
        None => DiffStatus::Empty,
    };
    if status == DiffStatus::WrongPart {
        findings.push(
            Finding::of(Code::WrongPart, problems.join("; "))
                .about(Subject::Slot { id: id.clone() })
                .at_node(id.clone()),
        );
    }
    entries.push(DiffEntry {
        place: slot_node.label.clone(),
        subject: Subject::Slot { id: id.clone() },
        bay: None,
        slot: Some(id.clone()),
        slot_number: number,
        method: MatchMethod::None,
        expected: card.map(|c| c.label.clone()),
        expected_part: info.card.as_ref().map(|(_, p)| p.clone()),
        expected_link: None,
        expected_socket: None,
        bdf: None,
        found: Some(label.to_string()),
        found_part: None,
        found_ids: None,
        found_subsystem: None,
        found_link: None,
        found_rate: None,
        found_numa: None,
        status,
        problems,
        in_slot: None,
        found_class: None,
    });
}

/// The bays: each planned bay against the tree's drive with that bay number (its
/// `PhysicalLocation`, else its place in the order its controller lists it, as learn numbers
/// them): present or absent, and its model against the planned part's name. A drive of the
/// tree in a bay the plan lacks is unexpected.
fn diff_bays(plan: &Plan, ch: &Chassis, entries: &mut Vec<DiffEntry>, findings: &mut Vec<Finding>) {
    let t = &plan.topology;
    let placed = placed_drives(ch);
    let at = |n: u32| placed.iter().find(|p| p.bay == n);
    let mut push = |n: u32, planned: Option<(String, String)>, found: Option<&PlacedDrive>| {
        let place = format!("Bay {n}");
        let drive = found.map(|p| p.drive).filter(|d| present(d));
        let mut problems = Vec::new();
        let status = match (&planned, found, drive) {
            (Some((name, _)), None, _) => {
                problems.push(format!("{name} planned; the tree has no drive in this bay"));
                DiffStatus::Missing
            }
            (Some((name, _)), Some(_), None) => {
                problems.push(format!(
                    "{name} planned; the tree says the bay is empty (Absent)"
                ));
                DiffStatus::Missing
            }
            (Some((name, _)), Some(_), Some(d)) => {
                if drive_name(d) == Some(name.as_str()) {
                    DiffStatus::Ok
                } else {
                    problems.push(format!(
                        "{name} planned, {} found",
                        drive_name(d).unwrap_or("an unnamed drive")
                    ));
                    DiffStatus::WrongPart
                }
            }
            (None, _, Some(d)) => {
                problems.push(format!(
                    "holds {}, not planned",
                    drive_name(d).unwrap_or("an unnamed drive")
                ));
                DiffStatus::Unexpected
            }
            (None, _, None) => DiffStatus::Empty,
        };
        if !problems.is_empty() {
            let f = match status {
                DiffStatus::Missing => {
                    Finding::of(Code::Missing, format!("{place}: {}", problems.join("; ")))
                }
                DiffStatus::WrongPart => {
                    Finding::of(Code::WrongPart, format!("{place}: {}", problems.join("; ")))
                }
                _ => Finding::of(
                    Code::Unexpected,
                    format!("{place}: {}", problems.join("; ")),
                ),
            };
            findings.push(f.about(Subject::Bay { number: n }).at_node(place.clone()));
        }
        entries.push(DiffEntry {
            place,
            subject: Subject::Bay { number: n },
            bay: Some(n),
            slot: None,
            slot_number: None,
            method: match found.map(|p| p.method) {
                Some(BayMethod::Location) => MatchMethod::PhysicalSlot,
                Some(BayMethod::ListOrder) => MatchMethod::AddressOrder,
                None => MatchMethod::None,
            },
            expected: planned.as_ref().map(|(n, _)| n.clone()),
            expected_part: planned.map(|(_, p)| p),
            expected_link: None,
            expected_socket: None,
            bdf: None,
            found: drive.map(|d| drive_name(d).unwrap_or(&d.id).to_string()),
            found_part: None,
            found_ids: None,
            found_subsystem: None,
            found_link: None,
            found_rate: None,
            found_numa: None,
            status,
            problems,
            in_slot: None,
            found_class: None,
        });
    };
    for (n, info) in &plan.bays {
        let planned = info
            .drive
            .as_ref()
            .map(|(d, part)| (t.node(*d).label.clone(), part.clone()));
        push(*n, planned, at(*n));
    }
    for p in placed
        .iter()
        .filter(|p| !plan.bays.contains_key(&p.bay) && present(p.drive))
    {
        push(p.bay, None, Some(p));
    }
}
