//! `learn --redfish`: a platform, parts and build file from what a BMC says about the chassis
//! (an audit whose `chassis` a Redfish tree filled), and the plan-against-chassis diff that
//! `audit --redfish --against` runs.
//!
//! The platform: a socket per CPU the tree lists (its model), a root complex per slot (the
//! tree shows no root ports: `inferred`), each slot with its service label, ordinal
//! (`slot_number`), lanes and generation (`measured`: read off the BMC) and the socket of its
//! CPU affinity where an OEM block gives one. Bays come from drives with a
//! `PhysicalLocation` bay number. Every card in a slot becomes a part named by its model
//! (the tree has no PCI ids to find a catalogue part by). The diff matches planned slots to
//! the chassis's by ordinal, else by label.

use super::audit::Audit;
use super::chassis::{Chassis, ChassisDevice, ChassisSlot};
use crate::against::{DiffEntry, DiffStatus, MatchMethod};
use crate::finding::{Finding, Subject, code};
use crate::learn::{Learned, Summary};
use crate::plan::instantiate::Plan;
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// A TOML basic string.
fn q(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(o, "\\u{:04X}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// The slots that can be planned: labelled, each label once.
fn plannable(ch: &Chassis) -> Vec<(String, &ChassisSlot)> {
    let mut seen = BTreeMap::new();
    let mut out = Vec::new();
    for s in &ch.slots {
        let Some(label) = &s.label else { continue };
        let mut id = format!("slot-{}", slug(label).trim_start_matches("slot-"));
        if id == "slot-" {
            id = "slot".into();
        }
        let n = seen.entry(id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            id = format!("{id}-{n}");
        }
        out.push((id, s));
    }
    out
}

fn card_of<'a>(ch: &'a Chassis, s: &ChassisSlot) -> Option<&'a ChassisDevice> {
    s.devices
        .iter()
        .find_map(|id| ch.devices.iter().find(|d| &d.id == id))
}

fn part_id(d: &ChassisDevice) -> String {
    format!(
        "redfish-{}",
        slug(d.model.as_deref().or(d.name.as_deref()).unwrap_or("device"))
    )
}

/// Learns from an audit of a Redfish tree; `None` when it has no chassis.
pub fn learn(audit: &Audit, id: Option<&str>) -> Option<Learned> {
    let ch = audit.chassis.as_ref()?;
    let source = &audit.source;
    let id = id.map(str::to_string).unwrap_or_else(|| {
        match audit.product.as_deref().map(slug).filter(|s| !s.is_empty()) {
            Some(p) => format!("learned-{p}"),
            None => "learned-host".into(),
        }
    });
    let sockets = audit.sockets.unwrap_or(ch.cpus.len() as u32).clamp(1, 8) as usize;
    let slots = plannable(ch);
    let socket_of = |s: &ChassisSlot| {
        s.cpu
            .filter(|&c| c >= 1 && (c as usize) <= sockets)
            .map(|c| c as usize - 1)
            .unwrap_or(0)
    };
    let lanes_of = |s: &ChassisSlot| {
        s.lanes
            .filter(|&l| crate::pcie::valid_width(l))
            .unwrap_or(16)
    };
    let gen_of = |s: &ChassisSlot| s.generation.map(|g| g.number()).unwrap_or(3);

    let mut p = String::new();
    let _ = writeln!(
        p,
        "# What {source} says about the chassis, learned by `laneplan learn --redfish`."
    );
    let _ = writeln!(p, "id = {}", q(&id));
    let _ = writeln!(p, "name = {}", q(&format!("Host learned from {source}")));
    let _ = writeln!(
        p,
        "form = \"2U\" # inferred: Redfish does not give the height; check the chassis"
    );
    let _ = writeln!(p, "source = {}", q(source));
    for i in 0..sockets {
        let lanes: u32 = slots
            .iter()
            .filter(|(_, s)| socket_of(s) == i)
            .map(|(_, s)| u32::from(lanes_of(s)))
            .sum::<u32>()
            .max(1);
        let g = slots
            .iter()
            .filter(|(_, s)| socket_of(s) == i)
            .map(|(_, s)| gen_of(s))
            .max()
            .unwrap_or(3);
        let cpu = audit.cpu_model.clone().unwrap_or_else(|| "unknown".into());
        let _ = writeln!(p, "\n[[socket]]");
        let _ = writeln!(p, "id = \"cpu{}\"", i + 1);
        let _ = writeln!(p, "label = \"CPU {}\"", i + 1);
        let _ = writeln!(p, "index = {i}");
        let _ = writeln!(p, "cpu = {}", q(&cpu));
        let _ = writeln!(p, "lanes = {lanes}");
        let _ = writeln!(p, "gen = {g}");
        let _ = writeln!(
            p,
            "numa_nodes = [{i}] # inferred: Redfish gives no NUMA nodes"
        );
        let _ = writeln!(p, "confidence = \"inferred\"");
        let _ = writeln!(
            p,
            "source = \"the lanes of the slots the BMC lists on this CPU, not the CPU's total\""
        );
    }
    for (sid, s) in &slots {
        let label = s.label.as_deref().unwrap_or(sid);
        let lanes = lanes_of(s);
        let g = gen_of(s);
        let _ = writeln!(p, "\n[[root_complex]]");
        let _ = writeln!(p, "id = \"rc-{sid}\"");
        let _ = writeln!(p, "label = {}", q(&format!("Root complex of {label}")));
        let _ = writeln!(p, "socket = \"cpu{}\"", socket_of(s) + 1);
        let _ = writeln!(p, "lanes = {lanes}");
        let _ = writeln!(p, "gen = {g}");
        let _ = writeln!(p, "confidence = \"inferred\"");
        let _ = writeln!(
            p,
            "source = \"Redfish shows no root ports: one root complex per slot\""
        );
        let _ = writeln!(p, "\n[[slot]]");
        let _ = writeln!(p, "id = {}", q(sid));
        let _ = writeln!(p, "label = {}", q(label));
        let _ = writeln!(p, "root_complex = \"rc-{sid}\"");
        let _ = writeln!(p, "electrical = {lanes}");
        let _ = writeln!(
            p,
            "mechanical = {lanes} # inferred: the connector may be wider"
        );
        let _ = writeln!(p, "gen = {g}");
        if let Some(n) = s.ordinal {
            let _ = writeln!(p, "slot_number = {n}");
        }
        let measured = s.lanes.is_some() && s.generation.is_some();
        let _ = writeln!(
            p,
            "confidence = \"{}\"",
            if measured { "measured" } else { "inferred" }
        );
        let _ = writeln!(
            p,
            "source = {}",
            q(&format!(
                "read off the BMC: {} ({}), {}",
                s.chassis,
                label,
                if measured {
                    "its lanes and generation"
                } else {
                    "lanes or generation not given: x16 Gen3 assumed"
                }
            ))
        );
    }

    let mut parts = String::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut b = String::new();
    let _ = writeln!(
        b,
        "# What {source} holds, learned by `laneplan learn --redfish`."
    );
    let _ = writeln!(b, "platform = {}", q(&id));
    let _ = writeln!(b, "name = {}", q(&format!("As found on {source}")));
    for (sid, s) in &slots {
        let Some(d) = card_of(ch, s) else { continue };
        let pid = part_id(d);
        let max = d.link_max.or(d.link);
        let width = max
            .map(|l| l.width)
            .filter(|&w| crate::pcie::valid_width(w))
            .unwrap_or(lanes_of(s));
        let width = width.min(lanes_of(s));
        let g = max
            .and_then(|l| l.speed)
            .map(|g| g.number())
            .unwrap_or(gen_of(s));
        if seen.insert(pid.clone()) {
            let _ = writeln!(parts, "[[part]]");
            let _ = writeln!(parts, "id = {}", q(&pid));
            let _ = writeln!(
                parts,
                "name = {}",
                q(d.model.as_deref().or(d.name.as_deref()).unwrap_or("device"))
            );
            let _ = writeln!(
                parts,
                "class = \"other\" # inferred: Redfish gives no class here; set nvme, nic, raid, hba or gpu"
            );
            let _ = writeln!(parts, "gen = {g}");
            let _ = writeln!(parts, "width = {width}");
            let _ = writeln!(parts, "confidence = \"measured\"");
            let _ = writeln!(
                parts,
                "source = {}\n",
                q(&format!(
                    "read off the BMC: {} (PCIeInterface maximum)",
                    d.id
                ))
            );
        }
        let _ = writeln!(b, "\n[[slot]]");
        let _ = writeln!(b, "slot = {}", q(sid));
        let _ = writeln!(b, "part = {}", q(&pid));
    }
    Some(Learned {
        platform: p,
        parts: (!parts.is_empty()).then_some(parts),
        build: b,
        summary: Summary {
            sockets,
            root_complexes: slots.len(),
            slots: slots.len(),
            switches: 0,
            bays: 0,
            builtins: 0,
            parts_reused: 0,
            parts_new: seen.len(),
            skipped_ports: 0,
        },
        id,
    })
}

/// Compares a plan's slots and cards with a chassis: planned slots matched by their
/// `slot_number` to the slot ordinals, else by label; a card by its part's name against the
/// device model, its planned link against what the BMC says is in use.
pub fn diff(plan: &Plan, ch: &Chassis) -> (Vec<DiffEntry>, Vec<Finding>) {
    let t = &plan.topology;
    let mut entries = Vec::new();
    let mut findings = Vec::new();
    for (id, info) in &plan.slots {
        let slot_node = t.node(info.slot);
        let number = info.def.slot_number.as_ref().map(|v| *v.get_ref());
        let (found, method) =
            match number.and_then(|n| ch.slots.iter().find(|s| s.ordinal == Some(n))) {
                Some(s) => (Some(s), MatchMethod::PhysicalSlot),
                None => (
                    ch.slots
                        .iter()
                        .find(|s| s.label.as_deref() == Some(slot_node.label.as_str())),
                    MatchMethod::None,
                ),
            };
        let card = info.card.as_ref().map(|(ix, _)| t.node(*ix));
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
            let (c, f) = match status {
                DiffStatus::Missing => (
                    code::MISSING.code,
                    Finding::error as fn(&'static str, String) -> Finding,
                ),
                DiffStatus::WrongPart => (
                    code::WRONG_PART.code,
                    Finding::error as fn(&'static str, String) -> Finding,
                ),
                _ => (
                    code::UNEXPECTED.code,
                    Finding::warning as fn(&'static str, String) -> Finding,
                ),
            };
            findings.push(
                f(c, problems.join("; "))
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
        });
    }
    (entries, findings)
}
