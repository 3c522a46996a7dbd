//! `learn --redfish`: a platform, parts and build file from what a BMC says about the chassis
//! (an audit whose `chassis` a Redfish tree filled). The plan-against-chassis diff that
//! `audit --redfish --against` runs is [`crate::against`]'s (`against/chassis.rs`); both
//! place drives in bays by [`placed_drives`].
//!
//! The platform: a socket per CPU the tree lists (its model), a root complex per slot (the
//! tree shows no root ports: `inferred`), each slot with its service label, ordinal
//! (`slot_number`), lanes and generation (`measured`: read off the BMC) and the socket of its
//! CPU affinity where an OEM block gives one. Bays: a group per storage controller and bus,
//! each drive at its `PhysicalLocation` or, where the tree gives none, by the order its
//! controller lists it ([`placed_drives`]; learn notes it). Every card in a slot becomes a
//! part named by its model (the tree has no PCI ids to find a catalogue part by); drives too,
//! unless the catalogue has a drive part of that name.
//!
//! [`placed_drives`]: crate::host::placed::placed_drives

use super::{Learned, LearnedId, Summary};
use crate::host::audit::Audit;
use crate::host::chassis::{Chassis, ChassisDevice, ChassisDrive, ChassisSlot};
use crate::host::placed::{
    BayGroup, BayMethod, Bus, bay_groups, card_of, controller_label, drive_name, present, slug,
};
use crate::platform::Catalog;
use std::collections::BTreeMap;
use std::fmt::Write as _;

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

fn part_id(d: &ChassisDevice) -> String {
    format!(
        "redfish-{}",
        slug(d.model.as_deref().or(d.name.as_deref()).unwrap_or("device"))
    )
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
    let learned_id = id.cloned().unwrap_or_else(|| {
        match audit.product.as_deref().filter(|p| !p.trim().is_empty()) {
            Some(p) => LearnedId::from_product(p),
            None => LearnedId::parse("learned-host").expect("a valid id"),
        }
    });
    let (groups, left_out) = bay_groups(ch);
    let cx = Cx {
        ch,
        source: &audit.source,
        id: learned_id.as_str(),
        sockets: audit.sockets.unwrap_or(ch.cpus.len() as u32).clamp(1, 8) as usize,
        slots: plannable(ch),
        groups,
    };

    let (platform, notes) = platform_file(&cx, audit.cpu_model.as_deref(), &left_out);
    let out = build_file(&cx, catalog);
    let controllers = cx
        .groups
        .iter()
        .filter(|g| g.bus == Bus::Controller)
        .count();
    Some(Learned {
        notes,
        platform,
        parts: (!out.parts.is_empty()).then_some(out.parts),
        build: out.build,
        differences: None,
        summary: Summary {
            captures: 1,
            sockets: cx.sockets,
            sockets_from: "redfish".into(),
            numa_nodes: cx.sockets,
            planned: out.planned,
            root_complexes: cx.slots.len() + cx.groups.len(),
            slots: cx.slots.len() + controllers,
            switches: 0,
            bays: out.bays,
            builtins: 0,
            parts_reused: out.reused.len(),
            parts_new: out.seen.len(),
            skipped_ports: 0,
        },
        id: learned_id,
    })
}

/// What every stage of [`learn`] reads: the chassis, its plannable slots and bay groups,
/// and the number of sockets.
struct Cx<'a> {
    ch: &'a Chassis,
    source: &'a str,
    /// The platform id written.
    id: &'a str,
    sockets: usize,
    slots: Vec<(String, &'a ChassisSlot)>,
    groups: Vec<BayGroup<'a>>,
}

impl Cx<'_> {
    /// The socket (0-based) of a slot: its CPU affinity when in range, else the first.
    fn socket_of(&self, s: &ChassisSlot) -> usize {
        s.cpu
            .filter(|&c| c >= 1 && (c as usize) <= self.sockets)
            .map(|c| c as usize - 1)
            .unwrap_or(0)
    }

    /// The socket (0-based) of a bay group: the first CPU affinity among its drives when in
    /// range, else the first.
    fn group_socket(&self, g: &BayGroup) -> usize {
        g.drives
            .iter()
            .find_map(|p| p.drive.cpu)
            .filter(|&c| c >= 1 && (c as usize) <= self.sockets)
            .map(|c| c as usize - 1)
            .unwrap_or(0)
    }
}

/// The platform file: header, sockets, slots and bay groups, with the notes on bays
/// placed by address order and on the bays `left_out` (no protocol known).
fn platform_file(cx: &Cx, cpu_model: Option<&str>, left_out: &[u32]) -> (String, Vec<String>) {
    let mut p = String::new();
    platform_header(cx, &mut p);
    for i in 0..cx.sockets {
        socket_section(cx, i, cpu_model, &mut p);
    }
    for (sid, s) in &cx.slots {
        slot_section(cx, sid, s, &mut p);
    }
    let mut notes = Vec::new();
    bay_sections(cx, &mut p, &mut notes);
    if !left_out.is_empty() {
        notes.push(format!(
            "bays {}: the tree gives no protocol for these drives (nor for the others of their controller); no bay group written",
            ranges(left_out)
        ));
    }
    (p, notes)
}

/// The parts and build files: the cards in slots, then the storage controllers, then the
/// drives in bays.
fn build_file(cx: &Cx, catalog: &Catalog) -> BuildOut {
    let mut out = BuildOut::default();
    let _ = writeln!(
        out.build,
        "# What {} holds, learned by `laneplan learn --redfish`.",
        cx.source
    );
    let _ = writeln!(out.build, "platform = {}", q(cx.id));
    let _ = writeln!(
        out.build,
        "name = {}",
        q(&format!("As found on {}", cx.source))
    );
    card_parts(cx, &mut out);
    controller_parts(cx, &mut out);
    out.bays = drive_parts(cx, catalog, &mut out);
    out
}

/// The lanes of a slot: what the BMC gives when a valid width, else x16.
fn lanes_of(s: &ChassisSlot) -> u8 {
    s.lanes
        .filter(|&l| crate::pcie::valid_width(l))
        .unwrap_or(16)
}

/// The generation of a slot: what the BMC gives, else Gen3.
fn gen_of(s: &ChassisSlot) -> u8 {
    s.generation.map(|g| g.number()).unwrap_or(3)
}

/// The lanes of a bay group's root complex: x4 a bay for NVMe (cabled direct), x8 for a
/// controller (inferred).
fn group_lanes(g: &BayGroup) -> u32 {
    match g.bus {
        Bus::Nvme => 4 * g.drives.len() as u32,
        Bus::Controller => 8,
    }
}

/// The platform file's top: id, name, form and source.
fn platform_header(cx: &Cx, p: &mut String) {
    let source = cx.source;
    let _ = writeln!(
        p,
        "# What {source} says about the chassis, learned by `laneplan learn --redfish`."
    );
    let _ = writeln!(p, "id = {}", q(cx.id));
    let _ = writeln!(p, "name = {}", q(&format!("Host learned from {source}")));
    let _ = writeln!(
        p,
        "form = \"2U\" # inferred: Redfish does not give the height; check the chassis"
    );
    let _ = writeln!(p, "source = {}", q(source));
}

/// Socket `i`: its lanes the sum of its slots' and bay groups' lanes, its generation the
/// highest of theirs (Gen3 for bays), all inferred.
fn socket_section(cx: &Cx, i: usize, cpu_model: Option<&str>, p: &mut String) {
    let lanes: u32 = cx
        .slots
        .iter()
        .filter(|(_, s)| cx.socket_of(s) == i)
        .map(|(_, s)| u32::from(lanes_of(s)))
        .sum::<u32>()
        .saturating_add(
            cx.groups
                .iter()
                .filter(|g| cx.group_socket(g) == i)
                .map(group_lanes)
                .sum::<u32>(),
        )
        .max(1);
    let g = cx
        .slots
        .iter()
        .filter(|(_, s)| cx.socket_of(s) == i)
        .map(|(_, s)| gen_of(s))
        .chain(
            cx.groups
                .iter()
                .filter(|g| cx.group_socket(g) == i)
                .map(|_| 3),
        )
        .max()
        .unwrap_or(3);
    let cpu = cpu_model.unwrap_or("unknown");
    let _ = writeln!(p, "\n[[socket]]");
    let _ = writeln!(p, "id = \"cpu{}\"", i + 1);
    let _ = writeln!(p, "label = \"CPU {}\"", i + 1);
    let _ = writeln!(p, "index = {i}");
    let _ = writeln!(p, "cpu = {}", q(cpu));
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

/// A plannable slot with its own inferred root complex; measured when the BMC gives both
/// its lanes and generation.
fn slot_section(cx: &Cx, sid: &str, s: &ChassisSlot, p: &mut String) {
    let label = s.label.as_deref().unwrap_or(sid);
    let lanes = lanes_of(s);
    let g = gen_of(s);
    let _ = writeln!(p, "\n[[root_complex]]");
    let _ = writeln!(p, "id = \"rc-{sid}\"");
    let _ = writeln!(p, "label = {}", q(&format!("Root complex of {label}")));
    let _ = writeln!(p, "socket = \"cpu{}\"", cx.socket_of(s) + 1);
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

/// Bays: a group per storage controller and bus, each hanging from what the tree says
/// holds them (a controller: a slot of kind storage-controller; NVMe: a root complex).
/// Notes the bays placed by address order.
fn bay_sections(cx: &Cx, p: &mut String, notes: &mut Vec<String>) {
    if cx.groups.iter().any(|g| g.bus == Bus::Controller) {
        let _ = writeln!(p, "\n[[slot_kind]]");
        let _ = writeln!(p, "id = \"storage-controller\"");
        let _ = writeln!(p, "label = \"Storage controller\"");
        let _ = writeln!(p, "short = \"Storage\"");
        let _ = writeln!(
            p,
            "source = \"a storage controller the BMC lists (Storage); where it attaches is not shown\""
        );
    }
    for g in &cx.groups {
        let label = controller_label(g.storage);
        let rc = match g.bus {
            Bus::Nvme => g.id.clone(),
            Bus::Controller => format!("rc-{}", g.id),
        };
        group_root_complex(cx, g, &rc, &label, p);
        if g.bus == Bus::Controller {
            controller_slot(g, &rc, &label, p);
        }
        if let Some(note) = bays_section(g, &rc, &label, p) {
            notes.push(note);
        }
    }
}

/// The inferred root complex a bay group hangs from (Gen3, its group's lanes).
fn group_root_complex(cx: &Cx, g: &BayGroup, rc: &str, label: &str, p: &mut String) {
    let _ = writeln!(p, "\n[[root_complex]]");
    let _ = writeln!(p, "id = {}", q(rc));
    let _ = writeln!(p, "label = {}", q(&format!("Root complex of {label}")));
    let _ = writeln!(p, "socket = \"cpu{}\"", cx.group_socket(g) + 1);
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
}

/// The storage-controller slot a controller's bay group hangs from (x8 Gen3 assumed).
fn controller_slot(g: &BayGroup, rc: &str, label: &str, p: &mut String) {
    let _ = writeln!(p, "\n[[slot]]");
    let _ = writeln!(p, "id = {}", q(&g.id));
    let _ = writeln!(p, "label = {}", q(label));
    let _ = writeln!(p, "kind = \"storage-controller\"");
    let _ = writeln!(p, "root_complex = {}", q(rc));
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

/// The bays of a group, their interfaces from its bus and drives' protocols, numbered by
/// location or address order; returns the note for bays placed by address order.
fn bays_section(g: &BayGroup, rc: &str, label: &str, p: &mut String) -> Option<String> {
    let numbers: Vec<u32> = g.drives.iter().map(|d| d.bay).collect();
    let by_order: Vec<u32> = g
        .drives
        .iter()
        .filter(|d| d.method == BayMethod::ListOrder)
        .map(|d| d.bay)
        .collect();
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
    let note = (!by_order.is_empty()).then(|| format!(
        "bays {} ({label}): the tree gives no location for {} drive(s); placed by address order, the order {} lists them",
        ranges(&by_order),
        by_order.len(),
        g.storage.unwrap_or("the tree")
    ));
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
            let _ = writeln!(p, "to = {}", q(rc));
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
    note
}

/// The parts and build files as the stages after the platform write them, with the parts
/// written new and reused and the number of entries planned.
#[derive(Default)]
struct BuildOut {
    parts: String,
    build: String,
    /// Part ids written to the parts file.
    seen: std::collections::BTreeSet<String>,
    /// Catalogue part ids the build uses.
    reused: std::collections::BTreeSet<String>,
    planned: usize,
    /// The bays of all groups.
    bays: usize,
}

/// The card in each plannable slot: a part per model (its PCIeInterface maximum, no wider
/// than the slot) and a build entry per slot.
fn card_parts(cx: &Cx, out: &mut BuildOut) {
    for (sid, s) in &cx.slots {
        let Some(d) = card_of(cx.ch, s) else { continue };
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
        if out.seen.insert(pid.clone()) {
            let parts = &mut out.parts;
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
        let _ = writeln!(out.build, "\n[[slot]]");
        let _ = writeln!(out.build, "slot = {}", q(sid));
        let _ = writeln!(out.build, "part = {}", q(&pid));
        out.planned += 1;
    }
}

/// The storage controller of each controller bay group: an inferred x8 Gen3 RAID part and
/// a build entry in its slot.
fn controller_parts(cx: &Cx, out: &mut BuildOut) {
    for g in cx.groups.iter().filter(|g| g.bus == Bus::Controller) {
        let label = controller_label(g.storage);
        let pid = format!("redfish-{}", g.id);
        if out.seen.insert(pid.clone()) {
            let parts = &mut out.parts;
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
        let _ = writeln!(out.build, "\n[[slot]]");
        let _ = writeln!(out.build, "slot = {}", q(&g.id));
        let _ = writeln!(out.build, "part = {}", q(&pid));
        out.planned += 1;
    }
}

/// A build entry per present drive in its bay, with the catalogue's drive part of its name
/// or a new part; returns the number of bays of all groups.
fn drive_parts(cx: &Cx, catalog: &Catalog, out: &mut BuildOut) -> usize {
    let mut bays = 0;
    for g in &cx.groups {
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
                    out.reused.insert(c.id().to_string());
                    c.id().to_string()
                }
                None => {
                    let pid = drive_part_id(d);
                    if out.seen.insert(pid.clone()) {
                        new_drive_part(&pid, name, d, g.bus, &mut out.parts);
                    }
                    pid
                }
            };
            let _ = writeln!(out.build, "\n[[bay]]");
            let _ = writeln!(out.build, "bays = \"{}\"", pd.bay);
            let _ = writeln!(out.build, "part = {}", q(&pid));
            out.planned += 1;
        }
    }
    bays
}

/// A drive part the catalogue lacks: its class and interface from the bus and protocol
/// (NVMe x4 Gen3, else a SATA or SAS drive), measured from what the BMC says of it.
fn new_drive_part(pid: &str, name: &str, d: &ChassisDrive, bus: Bus, parts: &mut String) {
    let (class, iface, g, w) = match (bus, d.protocol.as_deref()) {
        (Bus::Nvme, _) => ("nvme", "nvme", 3, 4),
        (_, Some("SATA")) => ("sata-drive", "sata", 1, 1),
        _ => ("sas-drive", "sas", 1, 1),
    };
    let _ = writeln!(parts, "[[part]]");
    let _ = writeln!(parts, "id = {}", q(pid));
    let _ = writeln!(parts, "name = {}", q(name));
    let _ = writeln!(parts, "class = \"{class}\"");
    let _ = writeln!(parts, "interface = \"{iface}\"");
    let _ = writeln!(
        parts,
        "size = \"2.5\" # inferred: Redfish gives no form factor here"
    );
    let _ = writeln!(parts, "gen = {g} # inferred: the drive's link is not shown");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_toml_strings() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(q("Storage RAID\"1"), "\"Storage RAID\\\"1\"");
    }
}
