//! `learn --redfish`: a platform, parts and build file from what a BMC says about the chassis
//! (an audit whose `chassis` a Redfish tree filled), and the plan-against-chassis diff that
//! `audit --redfish --against` runs.
//!
//! The platform: a socket per CPU the tree lists (its model), a root complex per slot (the
//! tree shows no root ports: `inferred`), each slot with its service label, ordinal
//! (`slot_number`), lanes and generation (`measured`: read off the BMC) and the socket of its
//! CPU affinity where an OEM block gives one. Bays: a group per storage controller and bus,
//! each drive at its `PhysicalLocation` or, where the tree gives none, by the order its
//! controller lists it ([`placed_drives`]; learn notes it). Every card in a slot becomes a
//! part named by its model (the tree has no PCI ids to find a catalogue part by); drives too,
//! unless the catalogue has a drive part of that name. The diff matches planned slots to the
//! chassis's by ordinal, else by label, and planned bays to the drives [`placed_drives`]
//! numbers the same way.

use super::audit::Audit;
use super::chassis::{Chassis, ChassisDevice, ChassisDrive, ChassisSlot};
use crate::against::{DiffEntry, DiffStatus, MatchMethod};
use crate::finding::{Code, Finding, Subject};
use crate::learn::{Learned, LearnedId, Summary};
use crate::plan::instantiate::Plan;
use crate::platform::Catalog;
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

/// How a drive's bay number was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BayMethod {
    /// Its `PhysicalLocation` (`LocationOrdinalValue`, or the `Bay=N` of its label).
    Location,
    /// The tree gives no location: the order its storage controller lists it.
    ListOrder,
}

/// A drive of the tree with the bay number learn and the diff give it.
#[derive(Debug, Clone, Copy)]
pub struct PlacedDrive<'a> {
    pub bay: u32,
    pub drive: &'a ChassisDrive,
    pub method: BayMethod,
}

/// Every drive with its bay: the located ones at their location (the first of two claiming
/// a number keeps it), then the rest in the order the tree lists them (storage controller by
/// storage controller), numbered from one past the highest located bay. Sorted by bay.
pub fn placed_drives(ch: &Chassis) -> Vec<PlacedDrive<'_>> {
    let mut used = std::collections::BTreeSet::new();
    let mut located = vec![false; ch.drives.len()];
    let mut out = Vec::new();
    for (i, d) in ch.drives.iter().enumerate() {
        if let Some(b) = d.bay.and_then(|b| u16::try_from(b).ok()).map(u32::from)
            && used.insert(b)
        {
            located[i] = true;
            out.push(PlacedDrive {
                bay: b,
                drive: d,
                method: BayMethod::Location,
            });
        }
    }
    let mut next = used
        .iter()
        .next_back()
        .map_or(Some(0), |b| b.checked_add(1));
    for (i, d) in ch.drives.iter().enumerate() {
        if located[i] {
            continue;
        }
        while let Some(n) = next
            && used.contains(&n)
        {
            next = n.checked_add(1);
        }
        let Some(n) = next else { break };
        used.insert(n);
        out.push(PlacedDrive {
            bay: n,
            drive: d,
            method: BayMethod::ListOrder,
        });
        next = n.checked_add(1);
    }
    out.sort_by_key(|p| p.bay);
    out
}

/// The bus a drive's protocol runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Bus {
    Nvme,
    /// SAS or SATA, through a storage controller.
    Controller,
}

fn bus_of(d: &ChassisDrive) -> Option<Bus> {
    match d.protocol.as_deref()? {
        "NVMe" => Some(Bus::Nvme),
        "SAS" | "SATA" => Some(Bus::Controller),
        _ => None,
    }
}

fn present(d: &ChassisDrive) -> bool {
    d.state.as_deref() != Some("Absent")
}

/// The storage subsystem a drive hangs from (the first that lists it).
fn storage_of(d: &ChassisDrive) -> Option<&str> {
    d.storage.first().map(String::as_str)
}

/// The storage controller's label: the last segment of its resource id
/// (`Storage RAIDIntegrated`), or a label saying the tree names none.
fn controller_label(storage: Option<&str>) -> String {
    match storage {
        Some(s) => format!(
            "Storage {}",
            s.trim_end_matches('/').rsplit('/').next().unwrap_or(s)
        ),
        None => "Storage controller (not named by the tree)".into(),
    }
}

/// A group of bays: the drives one storage controller lists on one bus.
struct BayGroup<'a> {
    storage: Option<&'a str>,
    bus: Bus,
    /// A slot (controller) or root complex (NVMe) id.
    id: String,
    drives: Vec<PlacedDrive<'a>>,
}

/// The bay groups: drives grouped by storage subsystem and bus; a drive with no protocol
/// (an absent one) joins its subsystem's bus when the subsystem has one. Returns the groups
/// and the bays left out (no bus known).
fn bay_groups(ch: &Chassis) -> (Vec<BayGroup<'_>>, Vec<u32>) {
    let placed = placed_drives(ch);
    let mut buses: BTreeMap<Option<&str>, std::collections::BTreeSet<Bus>> = BTreeMap::new();
    for p in &placed {
        if let Some(b) = bus_of(p.drive) {
            buses.entry(storage_of(p.drive)).or_default().insert(b);
        }
    }
    let mut groups: Vec<BayGroup> = Vec::new();
    let mut left = Vec::new();
    let mut ids = BTreeMap::new();
    for p in placed {
        let st = storage_of(p.drive);
        let bus = bus_of(p.drive).or_else(|| {
            let set = buses.get(&st)?;
            set.iter().next().copied().filter(|_| set.len() == 1)
        });
        let Some(bus) = bus else {
            left.push(p.bay);
            continue;
        };
        if let Some(g) = groups.iter_mut().find(|g| g.storage == st && g.bus == bus) {
            g.drives.push(p);
            continue;
        }
        let base = format!(
            "{}-{}",
            if bus == Bus::Nvme { "rc-bays" } else { "ctrl" },
            slug(&controller_label(st))
        );
        let n = ids.entry(base.clone()).or_insert(0);
        *n += 1;
        let id = if *n > 1 { format!("{base}-{n}") } else { base };
        groups.push(BayGroup {
            storage: st,
            bus,
            id,
            drives: vec![p],
        });
    }
    (groups, left)
}

fn drive_name(d: &ChassisDrive) -> Option<&str> {
    d.model.as_deref().or(d.name.as_deref())
}

fn drive_part_id(d: &ChassisDrive) -> String {
    format!("redfish-drive-{}", slug(drive_name(d).unwrap_or("drive")))
}

fn ranges(ns: &[u32]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ns.len() {
        let mut j = i;
        while j + 1 < ns.len() && ns[j + 1] == ns[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            ns[i].to_string()
        } else {
            format!("{}-{}", ns[i], ns[j])
        });
        i = j + 1;
    }
    out.join(",")
}

fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{v:.1} {} ({b} bytes)", UNITS[u])
    }
}

/// Learns from an audit of a Redfish tree; `None` when it has no chassis. Drive parts the
/// catalogue has (a part named as the drive's model) are reused.
pub fn learn(audit: &Audit, catalog: &Catalog, id: Option<&LearnedId>) -> Option<Learned> {
    let ch = audit.chassis.as_ref()?;
    let source = &audit.source;
    let learned_id = id.cloned().unwrap_or_else(|| {
        match audit.product.as_deref().filter(|p| !p.trim().is_empty()) {
            Some(p) => LearnedId::from_product(p),
            None => LearnedId::parse("learned-host").expect("a valid id"),
        }
    });
    let id = learned_id.as_str().to_string();
    let mut planned = 0usize;
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
    let (groups, left_out) = bay_groups(ch);
    let group_socket = |g: &BayGroup| {
        g.drives
            .iter()
            .find_map(|p| p.drive.cpu)
            .filter(|&c| c >= 1 && (c as usize) <= sockets)
            .map(|c| c as usize - 1)
            .unwrap_or(0)
    };
    // NVMe: x4 a bay (cabled direct); a controller: x8 (inferred).
    let group_lanes = |g: &BayGroup| -> u32 {
        match g.bus {
            Bus::Nvme => 4 * g.drives.len() as u32,
            Bus::Controller => 8,
        }
    };

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
            .saturating_add(
                groups
                    .iter()
                    .filter(|g| group_socket(g) == i)
                    .map(group_lanes)
                    .sum::<u32>(),
            )
            .max(1);
        let g = slots
            .iter()
            .filter(|(_, s)| socket_of(s) == i)
            .map(|(_, s)| gen_of(s))
            .chain(groups.iter().filter(|g| group_socket(g) == i).map(|_| 3))
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

    // Bays: a group per storage controller and bus, each hanging from what the tree says
    // holds them (a controller: a slot of kind storage-controller; NVMe: a root complex).
    let mut notes = Vec::new();
    if groups.iter().any(|g| g.bus == Bus::Controller) {
        let _ = writeln!(p, "\n[[slot_kind]]");
        let _ = writeln!(p, "id = \"storage-controller\"");
        let _ = writeln!(p, "label = \"Storage controller\"");
        let _ = writeln!(p, "short = \"Storage\"");
        let _ = writeln!(
            p,
            "source = \"a storage controller the BMC lists (Storage); where it attaches is not shown\""
        );
    }
    for g in &groups {
        let label = controller_label(g.storage);
        let numbers: Vec<u32> = g.drives.iter().map(|d| d.bay).collect();
        let by_order: Vec<u32> = g
            .drives
            .iter()
            .filter(|d| d.method == BayMethod::ListOrder)
            .map(|d| d.bay)
            .collect();
        let rc = match g.bus {
            Bus::Nvme => g.id.clone(),
            Bus::Controller => format!("rc-{}", g.id),
        };
        let _ = writeln!(p, "\n[[root_complex]]");
        let _ = writeln!(p, "id = {}", q(&rc));
        let _ = writeln!(p, "label = {}", q(&format!("Root complex of {label}")));
        let _ = writeln!(p, "socket = \"cpu{}\"", group_socket(g) + 1);
        let _ = writeln!(p, "lanes = {}", group_lanes(g));
        let _ = writeln!(p, "gen = 3");
        let _ = writeln!(p, "confidence = \"inferred\"");
        let _ = writeln!(
            p,
            "source = {}",
            q(&format!(
                "Redfish shows no root ports: one root complex for the bays of {label}, x4 a NVMe bay or x8 a controller, Gen3 assumed"
            ))
        );
        let interfaces = match g.bus {
            Bus::Nvme => "[\"nvme\"]",
            Bus::Controller
                if g.drives
                    .iter()
                    .all(|d| matches!(d.drive.protocol.as_deref(), Some("SATA") | None)) =>
            {
                "[\"sata\"]"
            }
            Bus::Controller => "[\"sas\", \"sata\"]",
        };
        if g.bus == Bus::Controller {
            let _ = writeln!(p, "\n[[slot]]");
            let _ = writeln!(p, "id = {}", q(&g.id));
            let _ = writeln!(p, "label = {}", q(&label));
            let _ = writeln!(p, "kind = \"storage-controller\"");
            let _ = writeln!(p, "root_complex = {}", q(&rc));
            let _ = writeln!(p, "electrical = 8");
            let _ = writeln!(p, "mechanical = 8");
            let _ = writeln!(p, "gen = 3");
            let _ = writeln!(p, "confidence = \"inferred\"");
            let _ = writeln!(
                p,
                "source = {}",
                q(&format!(
                    "the controller {} its drives hang from; the tree does not show where it attaches (x8 Gen3 assumed)",
                    g.storage.unwrap_or("(none named)")
                ))
            );
        }
        let method = if by_order.is_empty() {
            "their PhysicalLocation".to_string()
        } else if by_order.len() == numbers.len() {
            "address order: the tree gives no PhysicalLocation, so the order the storage controller lists them".to_string()
        } else {
            format!(
                "their PhysicalLocation; bays {} by address order (no PhysicalLocation: the order the storage controller lists them)",
                ranges(&by_order)
            )
        };
        if !by_order.is_empty() {
            notes.push(format!(
                "bays {} ({label}): the tree gives no location for {} drive(s); placed by address order, the order {} lists them",
                ranges(&by_order),
                by_order.len(),
                g.storage.unwrap_or("the tree")
            ));
        }
        let _ = writeln!(p, "\n[[bays]]");
        let _ = writeln!(p, "bays = {}", q(&ranges(&numbers)));
        let _ = writeln!(
            p,
            "size = \"2.5\" # inferred: Redfish gives no bay size; check the chassis"
        );
        let _ = writeln!(p, "interfaces = {interfaces}");
        match g.bus {
            Bus::Nvme => {
                let _ = writeln!(p, "via = \"direct\"");
                let _ = writeln!(p, "to = {}", q(&rc));
            }
            Bus::Controller => {
                let _ = writeln!(p, "via = \"controller\"");
                let _ = writeln!(p, "to = {}", q(&g.id));
            }
        }
        let _ = writeln!(p, "backplane = {}", q(&format!("Bays of {label}")));
        let _ = writeln!(p, "confidence = \"inferred\"");
        let _ = writeln!(
            p,
            "source = {}",
            q(&format!(
                "read off the BMC: the drives of {}, numbered by {method}",
                g.storage.unwrap_or("no Storage resource")
            ))
        );
    }
    if !left_out.is_empty() {
        notes.push(format!(
            "bays {}: the tree gives no protocol for these drives (nor for the others of their controller); no bay group written",
            ranges(&left_out)
        ));
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
        planned += 1;
    }
    let mut reused = std::collections::BTreeSet::new();
    for g in groups.iter().filter(|g| g.bus == Bus::Controller) {
        let label = controller_label(g.storage);
        let pid = format!("redfish-{}", g.id);
        if seen.insert(pid.clone()) {
            let _ = writeln!(parts, "[[part]]");
            let _ = writeln!(parts, "id = {}", q(&pid));
            let _ = writeln!(parts, "name = {}", q(&label));
            let _ = writeln!(
                parts,
                "class = \"raid\" # inferred: RAID or HBA is not told apart here"
            );
            let _ = writeln!(parts, "fits = [\"storage-controller\"]");
            let _ = writeln!(parts, "gen = 3");
            let _ = writeln!(parts, "width = 8");
            let _ = writeln!(parts, "confidence = \"inferred\"");
            let _ = writeln!(
                parts,
                "source = {}\n",
                q(&format!(
                    "read off the BMC: {} (its link is not shown: x8 Gen3 assumed)",
                    g.storage.unwrap_or("drives no Storage resource lists")
                ))
            );
        }
        let _ = writeln!(b, "\n[[slot]]");
        let _ = writeln!(b, "slot = {}", q(&g.id));
        let _ = writeln!(b, "part = {}", q(&pid));
        planned += 1;
    }
    let mut bays = 0;
    for g in &groups {
        bays += g.drives.len();
        for pd in g.drives.iter().filter(|pd| present(pd.drive)) {
            let d = pd.drive;
            let name = drive_name(d).unwrap_or("drive");
            let pid = match catalog
                .parts
                .values()
                .find(|c| c.def.name == name && c.def.class.is_drive())
            {
                Some(c) => {
                    reused.insert(c.id().to_string());
                    c.id().to_string()
                }
                None => {
                    let pid = drive_part_id(d);
                    if seen.insert(pid.clone()) {
                        let (class, iface, g, w) = match (g.bus, d.protocol.as_deref()) {
                            (Bus::Nvme, _) => ("nvme", "nvme", 3, 4),
                            (_, Some("SATA")) => ("sata-drive", "sata", 1, 1),
                            _ => ("sas-drive", "sas", 1, 1),
                        };
                        let _ = writeln!(parts, "[[part]]");
                        let _ = writeln!(parts, "id = {}", q(&pid));
                        let _ = writeln!(parts, "name = {}", q(name));
                        let _ = writeln!(parts, "class = \"{class}\"");
                        let _ = writeln!(parts, "interface = \"{iface}\"");
                        let _ = writeln!(
                            parts,
                            "size = \"2.5\" # inferred: Redfish gives no form factor here"
                        );
                        let _ =
                            writeln!(parts, "gen = {g} # inferred: the drive's link is not shown");
                        let _ = writeln!(parts, "width = {w}");
                        let _ = writeln!(parts, "confidence = \"measured\"");
                        let what = [
                            d.manufacturer.clone(),
                            d.media.clone(),
                            d.protocol.clone(),
                            d.capacity_bytes
                                .map(|c| format!("capacity {}", human_bytes(c))),
                        ]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(", ");
                        let _ = writeln!(
                            parts,
                            "source = {}\n",
                            q(&format!(
                                "read off the BMC: {} ({}); speeds not shown",
                                d.id,
                                if what.is_empty() {
                                    "no model, maker or capacity given"
                                } else {
                                    &what
                                }
                            ))
                        );
                    }
                    pid
                }
            };
            let _ = writeln!(b, "\n[[bay]]");
            let _ = writeln!(b, "bays = \"{}\"", pd.bay);
            let _ = writeln!(b, "part = {}", q(&pid));
            planned += 1;
        }
    }
    let controllers = groups.iter().filter(|g| g.bus == Bus::Controller).count();
    Some(Learned {
        notes,
        platform: p,
        parts: (!parts.is_empty()).then_some(parts),
        build: b,
        differences: None,
        summary: Summary {
            captures: 1,
            sockets,
            sockets_from: "redfish".into(),
            numa_nodes: sockets,
            planned,
            root_complexes: slots.len() + groups.len(),
            slots: slots.len() + controllers,
            switches: 0,
            bays,
            builtins: 0,
            parts_reused: reused.len(),
            parts_new: seen.len(),
            skipped_ports: 0,
        },
        id: learned_id,
    })
}

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
        // A storage-controller slot learn wrote: matched by the controller's label.
        if found.is_none()
            && let Some(label) = controllers
                .iter()
                .find(|l| l.as_str() == slot_node.label.as_str())
        {
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
                found: Some(label.clone()),
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
            continue;
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
    diff_bays(plan, ch, &mut entries, &mut findings);
    (entries, findings)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(id: &str, bay: Option<u32>) -> ChassisDrive {
        ChassisDrive {
            id: id.into(),
            bay,
            ..Default::default()
        }
    }

    /// Located drives keep their bay (the first of two claiming one); the rest follow in list
    /// order from one past the highest located bay, skipping taken numbers.
    #[test]
    fn placed_drives_location_then_list_order() {
        let ch = Chassis {
            drives: vec![
                drive("a", None),
                drive("b", Some(2)),
                drive("c", Some(2)),
                drive("d", Some(0)),
                drive("e", None),
                drive("f", Some(70_000)),
            ],
            ..Default::default()
        };
        let got: Vec<(u32, &str, BayMethod)> = placed_drives(&ch)
            .iter()
            .map(|p| (p.bay, p.drive.id.as_str(), p.method))
            .collect();
        use BayMethod::*;
        assert_eq!(
            got,
            [
                (0, "d", Location),
                (2, "b", Location),
                (3, "a", ListOrder),
                (4, "c", ListOrder),
                (5, "e", ListOrder),
                (6, "f", ListOrder),
            ]
        );
        assert!(placed_drives(&Chassis::default()).is_empty());
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(
            controller_label(Some("/redfish/v1/Systems/1/Storage/RAID\"1")),
            "Storage RAID\"1"
        );
        assert_eq!(q("Storage RAID\"1"), "\"Storage RAID\\\"1\"");
    }
}
