//! Plan against host: which planned bay or slot each live function fills, and the per-bay and
//! per-slot diff (ok, empty, missing, unexpected, downtrained, wrong socket, wrong part).
//!
//! Matching, per root complex (the platform file's `locator`s: bus or address prefixes such as
//! `0000:17` for an R740xd IIO stack):
//! * By physical slot number first: a bay group's `slot_numbers` and a slot's `slot_number`
//!   against what the host reports (sysfs `slots/*/address`, lspci `Physical Slot:`, Slot
//!   Capabilities). Adding a card never shifts a bay (TrueNAS and 45Drives dropped address
//!   order for that reason).
//! * Where the platform gives no numbers, NVMe positions pair with the live ports that hold an
//!   NVMe device or nothing, in address order.
//! * A card is its slot's whole subtree (its VFs, the devices behind its own switch), matched
//!   by the slot number above it or by device class; its part by PCI ids where the catalogue
//!   lists them.
//! * Functions of the platform itself (CPU uncore, chipset, root ports) are never compared.
//!
//! SAS/SATA bays sit behind a controller and are invisible to PCIe: they are reported as such.

mod chassis;

use crate::finding::{Code, Finding, Location, Subject};
use crate::host::audit::{Audit, FunctionReport};
use crate::host::model::LinkState;
use crate::host::tree::{FnKind, device_class};
use crate::pci::{Bdf, PciIds};
use crate::pcie::LinkRate;
use crate::plan::instantiate::Plan;
use crate::platform::Catalog;
use crate::platform::schema::{RootComplexDef, parse_bay_list};
use crate::term::Term;
use crate::topology::{DeviceClass, Link, NodeKind, Topology};
use petgraph::stable_graph::NodeIndex;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The one status of a bay, slot or card, for the diff and every view (the bays pictures use
/// it as `BayStatus`). A plan alone gives `Ok`, `Empty` and `Degraded`; an audit the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiffStatus {
    /// Found as planned (or, from a plan alone, a drive installed).
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
    /// Planned below its capability (a generation drop on the path) or not connected.
    Degraded,
}

impl DiffStatus {
    /// The JSON form (`wrong-part`), also the metrics' `status` label.
    pub fn id(self) -> &'static str {
        match self {
            DiffStatus::Ok => "ok",
            DiffStatus::Empty => "empty",
            DiffStatus::Missing => "missing",
            DiffStatus::Unexpected => "unexpected",
            DiffStatus::Downtrained => "downtrained",
            DiffStatus::WrongSocket => "wrong-socket",
            DiffStatus::WrongPart => "wrong-part",
            DiffStatus::NotVisible => "not-visible",
            DiffStatus::Degraded => "degraded",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DiffStatus::Ok => "ok",
            DiffStatus::Empty => "empty",
            DiffStatus::Missing => "missing",
            DiffStatus::Unexpected => "unexpected",
            DiffStatus::Downtrained => "downtrained",
            DiffStatus::WrongSocket => "wrong socket",
            DiffStatus::WrongPart => "wrong part",
            DiffStatus::NotVisible => "not visible",
            DiffStatus::Degraded => "degraded",
        }
    }

    /// What the status means, for legends.
    pub fn describe(self) -> &'static str {
        match self {
            DiffStatus::Ok => "drive installed",
            DiffStatus::Empty => "empty",
            DiffStatus::Missing => "missing (planned, not found)",
            DiffStatus::Unexpected => "unexpected (found, not planned)",
            DiffStatus::Downtrained => "link downtrained",
            DiffStatus::WrongSocket => "on another socket than planned",
            DiffStatus::WrongPart => "a different part than planned",
            DiffStatus::NotVisible => "behind a storage controller: not visible from PCIe",
            DiffStatus::Degraded => "degraded (slower than the drive can go, or not connected)",
        }
    }

    /// Three characters at most, for the terminal picture.
    pub fn code(self) -> &'static str {
        match self {
            DiffStatus::Ok => "ok",
            DiffStatus::Empty => "--",
            DiffStatus::Missing => "MIS",
            DiffStatus::Unexpected => "NEW",
            DiffStatus::Downtrained => "DWN",
            DiffStatus::WrongSocket => "SKT",
            DiffStatus::WrongPart => "PRT",
            DiffStatus::NotVisible => "n/v",
            DiffStatus::Degraded => "DEG",
        }
    }

    /// Whether the status itself is a problem (beside any listed problems).
    pub fn is_problem(self) -> bool {
        !matches!(
            self,
            DiffStatus::Ok | DiffStatus::Empty | DiffStatus::NotVisible
        )
    }

    /// The finding code of a status that is a difference.
    pub fn finding_code(self) -> Option<Code> {
        Some(match self {
            DiffStatus::Missing => Code::Missing,
            DiffStatus::Unexpected => Code::Unexpected,
            DiffStatus::Downtrained => Code::DowntrainedVsPlan,
            DiffStatus::WrongSocket => Code::WrongSocket,
            DiffStatus::WrongPart => Code::WrongPart,
            _ => return None,
        })
    }
}

/// How a planned place was paired with what the host has there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchMethod {
    /// By the physical slot number the host reports (sysfs `slots/*/address`, lspci
    /// `Physical Slot`, Slot Capabilities) and the platform file's `slot_number(s)`.
    PhysicalSlot,
    /// By address order of the live ports under the root complex (the platform gives no slot
    /// numbers).
    AddressOrder,
    /// A card by its device class under the root complex.
    DeviceClass,
    /// Not compared with anything live (SAS/SATA bays, unmatched).
    None,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffEntry {
    /// `Bay 12`, `Slot 2`, or the BDF of something found where nothing was planned.
    pub place: String,
    /// What this entry is about, as data.
    pub subject: Subject,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bay: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<String>,
    /// The physical slot number the platform gives this place, if any.
    pub slot_number: Option<u32>,
    /// How the place was matched to the host.
    pub method: MatchMethod,
    pub expected: Option<String>,
    /// Catalogue part id of what was planned.
    pub expected_part: Option<String>,
    pub expected_link: Option<String>,
    pub expected_socket: Option<String>,
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub bdf: Option<crate::pci::Bdf>,
    pub found: Option<String>,
    /// Catalogue part id of what was found, when its PCI ids name one.
    pub found_part: Option<String>,
    /// `vendor:device` and subsystem ids of what was found.
    pub found_ids: Option<String>,
    pub found_subsystem: Option<PciIds>,
    pub found_link: Option<String>,
    /// The trained link of what was found, as data.
    pub found_rate: Option<LinkState>,
    pub found_numa: Option<u32>,
    pub status: DiffStatus,
    pub problems: Vec<String>,
    /// The platform slot (id) an unplanned card sits in, where the platform tells which:
    /// the slot's physical slot number, its locator, or the only slot of its root complex.
    /// Drawn by `bays` in that slot.
    #[serde(skip)]
    pub in_slot: Option<String>,
    /// The device class of what was found.
    #[serde(skip)]
    pub found_class: Option<DeviceClass>,
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

impl Diff {
    /// Planned places a host can show (NVMe bays, cards; not the SAS/SATA bays behind a
    /// controller) and how many of them were found: "N of M planned found".
    pub fn found_count(&self) -> (usize, usize) {
        let planned: Vec<&DiffEntry> = self
            .entries
            .iter()
            .filter(|e| e.expected.is_some() && e.status != DiffStatus::NotVisible)
            .collect();
        // A wrong part is not the planned part found.
        let found = planned
            .iter()
            .filter(|e| e.status != DiffStatus::WrongPart)
            .filter(|e| e.bdf.is_some() || e.status == DiffStatus::Ok)
            .count();
        (found, planned.len())
    }
}

enum Position {
    Bay {
        bay: u32,
        drive: Option<NodeIndex>,
        slot_number: Option<u32>,
    },
    Card {
        slot: String,
        label: String,
        card: NodeIndex,
        slot_number: Option<u32>,
    },
    /// An extender card: present when any of its bays' ports is.
    Extender {
        slot: String,
        label: String,
        card: NodeIndex,
        bays: Vec<u32>,
    },
    EmptySlot {
        slot: String,
        label: String,
        slot_number: Option<u32>,
    },
}

/// Compares a plan with an audited host (no catalogue: parts compared by drive model only).
pub fn diff(plan: &Plan, audit: &Audit) -> Diff {
    diff_in(plan, audit, None)
}

/// Compares a plan with an audited host; with the catalogue, cards and drives are also
/// compared by their PCI ids (vendor:device and subsystem) and named by the part found.
pub fn diff_in(plan: &Plan, audit: &Audit, catalog: Option<&Catalog>) -> Diff {
    // A chassis-level source without a bus tree (Redfish): slots matched by ordinal or label.
    if let Some(ch) = &audit.chassis
        && audit.functions.is_empty()
    {
        let (entries, findings) = chassis::diff(plan, ch);
        return Diff {
            build: plan.build_name.clone(),
            platform: plan.platform_id.clone(),
            entries,
            findings,
        };
    }
    let mut d = Differ::new(plan, audit, catalog);
    for (rc_id, &rc) in &plan.root_complexes {
        d.root_complex(rc_id, rc);
    }
    d.unmodelled_slots();
    d.behind_controllers();
    d.finish()
}

/// The live functions whose parent is `bdf`.
fn children_of(audit: &Audit, bdf: Bdf) -> Vec<&FunctionReport> {
    audit
        .functions
        .iter()
        .filter(|f| f.parent == Some(bdf))
        .collect()
}

/// Whether a function is an NVMe controller.
fn is_nvme(f: &FunctionReport) -> bool {
    device_class(class_code(f)) == DeviceClass::Nvme
}

/// Whether a function is a root or switch port.
fn is_port(f: &FunctionReport) -> bool {
    matches!(f.kind, FnKind::RootPort | FnKind::SwitchPort)
}

/// Whether a function is a card: function 0 of a device that is not an NVMe controller.
fn is_card(f: &FunctionReport) -> bool {
    f.kind == FnKind::Device && f.bdf.func == 0 && !is_nvme(f)
}

/// The physical slot a card reports: on itself, its port, or the port its card hangs from.
fn card_slot(audit: &Audit, f: &FunctionReport) -> Option<u32> {
    f.slot_number
        .or_else(|| {
            f.parent
                .and_then(|p| audit.function(p))
                .and_then(|p| p.slot_number)
        })
        .or_else(|| card_top(audit, f).and_then(|p| p.slot_number))
}

/// The physical slot numbers the platform gives its slots.
fn planned_slot_numbers(plan: &Plan) -> BTreeSet<u32> {
    plan.slots
        .values()
        .filter_map(|s| s.def.slot_number.as_ref().map(|n| *n.get_ref()))
        .collect()
}

/// Cards by physical slot first, anywhere on the host: a card in a planned physical slot is
/// that slot's (the right part or a wrong one), whichever root port the slot is on. Per
/// planned card's slot, the host's card there: among several cards reporting the number (a
/// slot and the integrated PERC share Physical Slot 1 on an R7515), the one under the slot's
/// own locator, else its root complex's.
fn cards_in_numbered_slots<'a>(
    plan: &Plan,
    audit: &'a Audit,
) -> BTreeMap<String, &'a FunctionReport> {
    let mut card_of_slot: BTreeMap<String, &FunctionReport> = Default::default();
    for (slot_id, s) in plan.slots.iter().filter(|(_, s)| s.card.is_some()) {
        let Some(n) = s.def.slot_number.as_ref().map(|n| *n.get_ref()) else {
            continue;
        };
        let rc_locator = plan
            .rc_defs
            .get(s.def.root_complex.get_ref())
            .map(|r| r.locator.clone())
            .unwrap_or_default();
        let under = |f: &FunctionReport, loc: &[String]| {
            let port = card_top(audit, f).map(|p| p.bdf);
            loc.iter()
                .any(|l| f.bdf.under(l) || port.is_some_and(|p| p.under(l)))
        };
        let taken: BTreeSet<Bdf> = card_of_slot.values().map(|f| f.bdf).collect();
        let candidates: Vec<&FunctionReport> = audit
            .functions
            .iter()
            .filter(|f| is_card(f) && card_slot(audit, f) == Some(n) && !taken.contains(&f.bdf))
            .collect();
        let pick = candidates
            .iter()
            .find(|f| !s.def.locator.is_empty() && under(f, &s.def.locator))
            .or_else(|| candidates.iter().find(|f| under(f, &rc_locator)))
            .or(candidates.first());
        if let Some(f) = pick {
            card_of_slot.insert(slot_id.clone(), f);
        }
    }
    card_of_slot
}

/// The host-wide state of one diff: what is compared, what was paired so far, and the
/// entries and findings made.
struct Differ<'a> {
    plan: &'a Plan,
    audit: &'a Audit,
    catalog: Option<&'a Catalog>,
    entries: Vec<DiffEntry>,
    findings: Vec<Finding>,
    /// Ports claimed by a bay anywhere on the host (by physical slot number or address order).
    used_ports: BTreeSet<Bdf>,
    /// Cards matched to a planned slot.
    used_cards: BTreeSet<Bdf>,
    /// Per planned card's slot (id), the host's card in its physical slot.
    card_of_slot: BTreeMap<String, &'a FunctionReport>,
    /// The cards of `card_of_slot`.
    claimed: BTreeSet<Bdf>,
}

/// One root complex's side of the diff: its positions, its socket, the live ports and cards
/// under its locator and which bay took which port or root-bus drive.
struct RcScope<'a, 'p> {
    def: &'a RootComplexDef,
    positions: &'p [Position],
    numa: Vec<u32>,
    socket_label: Option<String>,
    /// Live NVMe positions: ports holding an NVMe device or nothing.
    leaf_ports: Vec<&'a FunctionReport>,
    /// Cards under the locator that no other slot took yet.
    endpoints: Vec<&'a FunctionReport>,
    port_of_bay: BTreeMap<u32, (&'a FunctionReport, MatchMethod)>,
    bus_of_bay: BusBays<'a>,
}

impl<'a> Differ<'a> {
    /// A diff with the cards in planned physical slots already paired, nothing else.
    fn new(plan: &'a Plan, audit: &'a Audit, catalog: Option<&'a Catalog>) -> Differ<'a> {
        let card_of_slot = cards_in_numbered_slots(plan, audit);
        let claimed = card_of_slot.values().map(|f| f.bdf).collect();
        Differ {
            plan,
            audit,
            catalog,
            entries: Vec::new(),
            findings: Vec::new(),
            used_ports: Default::default(),
            used_cards: Default::default(),
            card_of_slot,
            claimed,
        }
    }

    /// Compares one root complex's planned positions with what is under its locator; one
    /// without a locator is a finding, not compared.
    fn root_complex(&mut self, rc_id: &str, rc: NodeIndex) {
        let plan = self.plan;
        let def = &plan.rc_defs[rc_id];
        let positions = positions(plan, rc);
        if positions.is_empty() {
            return;
        }
        if def.locator.is_empty() {
            self.not_located(rc_id, def, positions.len());
            return;
        }
        let mut s = self.scope(rc, def, &positions);
        for pos in &positions {
            match pos {
                Position::Bay {
                    bay,
                    drive,
                    slot_number,
                } => self.bay(&mut s, *bay, *drive, *slot_number),
                Position::Card {
                    slot,
                    label,
                    card,
                    slot_number,
                } => self.card(&mut s, slot, label, *card, *slot_number),
                Position::Extender {
                    slot,
                    label,
                    card,
                    bays,
                } => self.extender(&s, slot, label, *card, bays),
                Position::EmptySlot { .. } => {}
            }
        }
        self.unplanned_drives(&mut s);
        self.unplanned_cards(s);
    }

    /// A root complex without a locator: its positions cannot be compared.
    fn not_located(&mut self, rc_id: &str, def: &RootComplexDef, count: usize) {
        self.findings.push(
            Finding::of(
                Code::NotLocated,
                format!(
                    "{} has no locator in the platform file: its {} planned position(s) are not compared",
                    def.label, count
                ),
            )
            .with_help("add `locator = [\"DDDD:BB\"]` to the root complex")
            .about(Subject::RootComplex {
                id: rc_id.to_string(),
            }),
        );
    }

    /// The live side of one root complex: its socket, the ports and cards under its locator,
    /// the ports its bays take and the drives on its root bus.
    fn scope<'p>(
        &mut self,
        rc: NodeIndex,
        def: &'a RootComplexDef,
        positions: &'p [Position],
    ) -> RcScope<'a, 'p> {
        let (audit, t) = (self.audit, &self.plan.topology);
        let socket = t.socket_of(rc).map(|s| t.node(s));
        let numa: Vec<u32> = match socket.map(|s| &s.kind) {
            Some(NodeKind::Socket { numa_nodes, .. }) => numa_nodes.clone(),
            _ => Vec::new(),
        };
        let located: Vec<&FunctionReport> = audit
            .functions
            .iter()
            .filter(|f| def.locator.iter().any(|l| f.bdf.under(l)))
            .collect();
        let leaf_ports: Vec<&FunctionReport> = located
            .iter()
            .copied()
            .filter(|f| is_port(f))
            .filter(|f| {
                let kids = children_of(audit, f.bdf);
                kids.is_empty() || kids.iter().any(|k| is_nvme(k))
            })
            .collect();
        // NVMe controllers on the root bus itself (no port above them: POWER): bays of their own.
        let bus_drives = root_bus_drives(audit, &located);
        let endpoints = self.endpoints(&located, &bus_drives);
        let port_of_bay = self.pair_ports(positions, &leaf_ports);
        let bus_of_bay = root_bus_bays(positions, &port_of_bay, &bus_drives);
        RcScope {
            def,
            positions,
            numa,
            socket_label: socket.map(|s| s.label.clone()),
            leaf_ports,
            endpoints,
            port_of_bay,
            bus_of_bay,
        }
    }

    /// The cards of a root complex no slot took yet: those under its locator and those one
    /// bridge below its located ports (on other buses), less its root-bus drives.
    fn endpoints(
        &self,
        located: &[&'a FunctionReport],
        bus_drives: &[&'a FunctionReport],
    ) -> Vec<&'a FunctionReport> {
        let mut endpoints: Vec<&FunctionReport> =
            located.iter().copied().filter(|f| is_card(f)).collect();
        // Endpoints one bridge below the located ports sit on other buses: add them.
        for p in located.iter().filter(|f| is_port(f)) {
            for k in children_of(self.audit, p.bdf) {
                if is_card(k) && !endpoints.iter().any(|e| e.bdf == k.bdf) {
                    endpoints.push(k);
                }
            }
        }
        endpoints.retain(|e| {
            !self.used_cards.contains(&e.bdf)
                && !self.claimed.contains(&e.bdf)
                && !bus_drives.iter().any(|d| d.bdf == e.bdf)
        });
        endpoints
    }

    /// The port each bay takes: bays with a slot number take their port by that number
    /// (anywhere on the host); the others take the remaining ports of the root complex in
    /// address order. Each port taken is used host-wide.
    fn pair_ports(
        &mut self,
        positions: &[Position],
        leaf_ports: &[&'a FunctionReport],
    ) -> BTreeMap<u32, (&'a FunctionReport, MatchMethod)> {
        let mut port_of_bay: BTreeMap<u32, (&FunctionReport, MatchMethod)> = Default::default();
        for pos in positions {
            if let Position::Bay {
                bay,
                slot_number: Some(n),
                ..
            } = pos
                && let Some(p) = self.port_by_slot(*n)
            {
                self.used_ports.insert(p.bdf);
                port_of_bay.insert(*bay, (p, MatchMethod::PhysicalSlot));
            }
        }
        let free: Vec<&FunctionReport> = leaf_ports
            .iter()
            .copied()
            .filter(|p| !self.used_ports.contains(&p.bdf))
            .collect();
        let mut free_ports = free.into_iter();
        for pos in positions {
            if let Position::Bay {
                bay,
                slot_number: None,
                ..
            } = pos
                && let Some(p) = free_ports.next()
            {
                self.used_ports.insert(p.bdf);
                port_of_bay.insert(*bay, (p, MatchMethod::AddressOrder));
            }
        }
        port_of_bay
    }

    /// The port reporting physical slot `n`, else the port above an NVMe drive reporting it.
    fn port_by_slot(&self, n: u32) -> Option<&'a FunctionReport> {
        let audit = self.audit;
        audit
            .functions
            .iter()
            .find(|f| is_port(f) && f.slot_number == Some(n))
            .or_else(|| {
                audit
                    .functions
                    .iter()
                    .find(|f| is_nvme(f) && f.slot_number == Some(n))
                    .and_then(|d| d.parent)
                    .and_then(|p| audit.function(p))
            })
    }

    /// One planned bay against the drive on its port or root bus: empty, missing, unexpected,
    /// or the planned drive judged against the one found.
    fn bay(
        &mut self,
        s: &mut RcScope<'a, '_>,
        bay: u32,
        drive: Option<NodeIndex>,
        slot_number: Option<u32>,
    ) {
        let (plan, audit, catalog) = (self.plan, self.audit, self.catalog);
        let t = &plan.topology;
        let on_bus = s.bus_of_bay.remove(&bay);
        let port = s
            .port_of_bay
            .get(&bay)
            .copied()
            .or(on_bus.map(|f| (f, MatchMethod::AddressOrder)));
        let found = match on_bus {
            Some(f) => Some(f),
            None => {
                port.and_then(|(p, _)| children_of(audit, p.bdf).into_iter().find(|k| is_nvme(k)))
            }
        };
        let expected = drive.map(|d| t.node(d).label.clone());
        let planned_rate = drive.and_then(|d| rate_above(t, d));
        let mut e = DiffEntry {
            bay: Some(bay),
            slot_number,
            method: port.map(|(_, m)| m).unwrap_or(MatchMethod::None),
            expected: expected.clone(),
            expected_part: plan
                .bays
                .get(&bay)
                .and_then(|b| b.drive.as_ref())
                .map(|(_, p)| p.clone()),
            expected_link: planned_rate.map(|r| r.label()),
            expected_socket: drive.and(s.socket_label.clone()),
            ..DiffEntry::at(
                format!("Bay {bay}"),
                Subject::Bay { number: bay },
                audit,
                found,
                catalog,
            )
        };
        match (drive, found) {
            (None, None) => e.status = DiffStatus::Empty,
            (Some(_), None) => {
                e.status = DiffStatus::Missing;
                let why = match (port, slot_number) {
                    (Some((p, _)), _) => format!("port {} is empty or its link is down", p.bdf),
                    (None, Some(n)) => format!("no port reports physical slot {n}"),
                    (None, None) => {
                        format!("no port found for it under {}", s.def.locator.join(", "))
                    }
                };
                e.problems.push(format!(
                    "missing: {} planned, {why}",
                    expected.clone().unwrap_or_default()
                ));
            }
            (None, Some(f)) => {
                e.status = DiffStatus::Unexpected;
                e.problems
                    .push(format!("unexpected: {} at {}", found_name(audit, f), f.bdf));
            }
            (Some(d), Some(f)) if on_bus.is_some() => {
                judge_bus_drive(&mut e, t, d, f, &s.numa, audit);
            }
            (Some(d), Some(f)) => {
                judge(&mut e, t, d, planned_rate, f, &s.numa, audit, catalog);
            }
        }
        self.entries.push(e);
    }

    /// One planned card against the host's card in its physical slot (where the platform
    /// gives the number, anywhere on the host), else the root complex's first card of its class.
    fn card(
        &mut self,
        s: &mut RcScope<'a, '_>,
        slot: &str,
        label: &str,
        card: NodeIndex,
        slot_number: Option<u32>,
    ) {
        let (plan, audit, catalog) = (self.plan, self.audit, self.catalog);
        let t = &plan.topology;
        let class = match t.node(card).kind {
            NodeKind::Device { class, .. } => class,
            _ => DeviceClass::Other,
        };
        let planned_rate = rate_above(t, card);
        let numbered = slot_number.and(self.card_of_slot.get(slot).copied());
        let (found, method) = match numbered {
            Some(f) => (Some(f), MatchMethod::PhysicalSlot),
            None => {
                let idx = s
                    .endpoints
                    .iter()
                    .position(|f| classes_match(class, device_class(class_code(f))));
                (idx.map(|i| s.endpoints.remove(i)), MatchMethod::DeviceClass)
            }
        };
        if let Some(f) = found {
            self.used_cards.insert(f.bdf);
        }
        let mut e = DiffEntry {
            slot: Some(slot.to_string()),
            slot_number,
            method: if found.is_some() {
                method
            } else {
                MatchMethod::None
            },
            expected: Some(t.node(card).label.clone()),
            expected_part: planned_card_part(plan, slot),
            expected_link: planned_rate.map(|r| r.label()),
            expected_socket: s.socket_label.clone(),
            ..DiffEntry::at(
                label.to_string(),
                Subject::Slot {
                    id: slot.to_string(),
                },
                audit,
                found,
                catalog,
            )
        };
        match found {
            None => {
                e.status = DiffStatus::Missing;
                e.problems.push(format!(
                    "missing: {} planned, no {} found under {}",
                    t.node(card).label,
                    class.name(),
                    s.def.locator.join(", ")
                ));
            }
            Some(f) => judge(&mut e, t, card, planned_rate, f, &s.numa, audit, catalog),
        }
        self.entries.push(e);
    }

    /// A planned extender card: found when any port of its bays is, missing when none is.
    fn extender(
        &mut self,
        s: &RcScope<'a, '_>,
        slot: &str,
        label: &str,
        card: NodeIndex,
        bays: &[u32],
    ) {
        let t = &self.plan.topology;
        let ports: Vec<&FunctionReport> = bays
            .iter()
            .filter_map(|b| s.port_of_bay.get(b))
            .map(|(p, _)| *p)
            .collect();
        let mut e = DiffEntry {
            slot: Some(slot.to_string()),
            expected: Some(t.node(card).label.clone()),
            expected_part: planned_card_part(self.plan, slot),
            expected_socket: s.socket_label.clone(),
            method: if ports.is_empty() {
                MatchMethod::None
            } else {
                s.port_of_bay
                    .get(&bays[0])
                    .map(|(_, m)| *m)
                    .unwrap_or(MatchMethod::None)
            },
            ..DiffEntry::at(
                label.to_string(),
                Subject::Slot {
                    id: slot.to_string(),
                },
                self.audit,
                None,
                self.catalog,
            )
        };
        if ports.is_empty() {
            e.status = DiffStatus::Missing;
            e.problems.push(format!(
                "missing: {} planned, none of the ports of its bays {} found under {}",
                t.node(card).label,
                crate::plan::instantiate::compress_ranges(bays),
                s.def.locator.join(", ")
            ));
        } else {
            e.found = Some(format!("{} of {} ports", ports.len(), bays.len()));
        }
        self.entries.push(e);
    }

    /// Live NVMe drives of a root complex beyond the plan: root-bus drives no bay took, and
    /// drives on ports no bay took.
    fn unplanned_drives(&mut self, s: &mut RcScope<'a, '_>) {
        for f in std::mem::take(&mut s.bus_of_bay.unmatched) {
            self.entries.push(unexpected(
                self.audit,
                f,
                s.socket_label.clone(),
                self.catalog,
            ));
        }
        for p in s
            .leaf_ports
            .iter()
            .filter(|p| !self.used_ports.contains(&p.bdf))
        {
            if let Some(f) = children_of(self.audit, p.bdf)
                .into_iter()
                .find(|k| is_nvme(k))
            {
                self.entries.push(unexpected(
                    self.audit,
                    f,
                    s.socket_label.clone(),
                    self.catalog,
                ));
            }
        }
    }

    /// The top functions of the cards already matched to a planned place: what an
    /// unplanned card below them is part of.
    fn matched_tops(&self) -> BTreeSet<Bdf> {
        let audit = self.audit;
        self.used_cards
            .iter()
            .filter_map(|b| audit.function(*b))
            .filter_map(|c| card_top(audit, c))
            .map(|p| p.bdf)
            .collect()
    }

    /// Cards of a root complex nobody planned (a matched card's whole subtree excepted: its
    /// virtual functions and the devices behind its own switch), each drawn in a planned-empty
    /// slot where one fits.
    fn unplanned_cards(&mut self, s: RcScope<'a, '_>) {
        let audit = self.audit;
        let empty_slots: Vec<&str> = s
            .positions
            .iter()
            .filter_map(|p| match p {
                Position::EmptySlot { label, .. } => Some(label.as_str()),
                _ => None,
            })
            .collect();
        let matched_tops = self.matched_tops();
        let mut endpoints = s.endpoints;
        endpoints.retain(|f| card_top(audit, f).is_none_or(|p| !matched_tops.contains(&p.bdf)));
        let mut taken_slots: BTreeSet<&String> = Default::default();
        for f in endpoints {
            let mut e = unexpected(audit, f, s.socket_label.clone(), self.catalog);
            if let Some(id) = self.empty_slot_for(s.positions, f, &taken_slots) {
                taken_slots.insert(id);
                e.in_slot = Some(id.clone());
            }
            if !empty_slots.is_empty() {
                e.problems[0].push_str(&format!(
                    " (planned empty there: {})",
                    empty_slots.join(", ")
                ));
            }
            self.entries.push(e);
        }
    }

    /// The planned-empty slot of a root complex an unplanned card is drawn in: by its physical
    /// slot number, its locator, or as the root complex's only slot; none if already taken.
    fn empty_slot_for<'p>(
        &self,
        positions: &'p [Position],
        f: &FunctionReport,
        taken: &BTreeSet<&String>,
    ) -> Option<&'p String> {
        let empty: Vec<(&String, Option<u32>)> = positions
            .iter()
            .filter_map(|p| match p {
                Position::EmptySlot {
                    slot, slot_number, ..
                } => Some((slot, *slot_number)),
                _ => None,
            })
            .collect();
        let only_slot = positions.iter().all(|p| {
            matches!(
                p,
                Position::EmptySlot { .. } | Position::Bay { drive: None, .. }
            )
        }) && empty.len() == 1;
        let top = card_top(self.audit, f).map(|p| p.bdf);
        empty
            .iter()
            .find(|(_, n)| n.is_some() && *n == card_slot(self.audit, f))
            .or_else(|| {
                empty.iter().find(|(id, _)| {
                    self.plan.slots.get(*id).is_some_and(|s| {
                        s.def
                            .locator
                            .iter()
                            .any(|l| f.bdf.under(l) || top.is_some_and(|t| t.under(l)))
                    })
                })
            })
            .or_else(|| empty.first().filter(|_| only_slot))
            .filter(|(id, _)| !taken.contains(id))
            .map(|(id, _)| *id)
    }

    /// Cards in physical slots the platform does not model (or planned empty): reported,
    /// wherever they are. Only where the platform numbers its slots: a platform without
    /// numbers says nothing about which slot a number is.
    fn unmodelled_slots(&mut self) {
        let (plan, audit) = (self.plan, self.audit);
        let planned_numbers = planned_slot_numbers(plan);
        let bay_numbers: BTreeSet<u32> = plan
            .bays
            .keys()
            .filter_map(|&b| bay_slot_number(plan, b))
            .collect();
        let matched_tops = self.matched_tops();
        for f in audit
            .functions
            .iter()
            .filter(|f| is_card(f) && !planned_numbers.is_empty())
        {
            let Some(n) = card_slot(audit, f) else {
                continue;
            };
            if bay_numbers.contains(&n)
                || self.claimed.contains(&f.bdf)
                || self.used_cards.contains(&f.bdf)
                || card_top(audit, f).is_some_and(|p| matched_tops.contains(&p.bdf))
            {
                continue;
            }
            let modelled = planned_numbers.contains(&n);
            let note = if modelled {
                format!(" (in physical slot {n}, planned empty)")
            } else {
                format!(" (in physical slot {n}, which the platform does not model)")
            };
            if let Some(e) = self.entries.iter_mut().find(|e| e.bdf == Some(f.bdf)) {
                if !modelled && let Some(p) = e.problems.first_mut() {
                    p.push_str(&note);
                }
            } else {
                let mut e = unexpected(audit, f, None, self.catalog);
                e.method = MatchMethod::PhysicalSlot;
                e.problems[0].push_str(&note);
                self.entries.push(e);
            }
        }
    }

    /// SAS/SATA drives behind controllers: planned, not visible on PCIe.
    fn behind_controllers(&mut self) {
        let t = &self.plan.topology;
        for b in self.plan.bays.values() {
            if let Some((d, part)) = &b.drive
                && !matches!(
                    t.parent_edge(*d).map(|(_, e)| &t.graph[e]),
                    Some(Link::Pcie { .. })
                )
            {
                self.entries.push(DiffEntry {
                    bay: Some(b.number),
                    expected: Some(t.node(*d).label.clone()),
                    expected_part: Some(part.clone()),
                    status: DiffStatus::NotVisible,
                    problems: vec!["behind a storage controller: not visible on PCIe".into()],
                    ..DiffEntry::at(
                        format!("Bay {}", b.number),
                        Subject::Bay { number: b.number },
                        self.audit,
                        None,
                        self.catalog,
                    )
                });
            }
        }
    }

    /// The entries in place order, and a finding for each that is a difference.
    fn finish(mut self) -> Diff {
        self.entries
            .sort_by_key(|e| (e.bay.is_none(), e.bay, e.slot.clone(), e.bdf));
        for e in &self.entries {
            let Some(code) = e.status.finding_code() else {
                continue;
            };
            let mut f = Finding::of(code, format!("{}: {}", e.place, e.problems.join("; ")));
            if e.status == DiffStatus::WrongPart && e.found_part.is_none() {
                f = f.with_help(format!(
                    "no catalogue part has these ids: add one with `pci = [{{ id = \"{}\"{} }}]` to name it",
                    e.found_ids.clone().unwrap_or_default(),
                    e.found_subsystem
                        .map(|s| format!(", subsystem = \"{s}\""))
                        .unwrap_or_default()
                ));
            }
            let node = e.bdf.map_or_else(|| e.place.clone(), |b| b.to_string());
            self.findings
                .push(f.about(e.subject.clone()).at(Location::node(node)));
        }
        Diff {
            build: self.plan.build_name.clone(),
            platform: self.plan.platform_id.clone(),
            entries: self.entries,
            findings: self.findings,
        }
    }
}

/// The catalogue part planned in a slot, if any.
fn planned_card_part(plan: &Plan, slot: &str) -> Option<String> {
    plan.slots
        .get(slot)
        .and_then(|s| s.card.as_ref())
        .map(|(_, p)| p.clone())
}

/// The diff as a table, one row per bay and slot, fitted to `term`: a narrow terminal loses
/// the BDF, the NUMA node, how each place was matched and the planned link first (named in a
/// note; the JSON has them all), and the cells left wrap; the found link always stays (a
/// downtrain shows there). A plan with nothing to compare says so.
pub fn render_in(diff: &Diff, term: &Term) -> String {
    let header = [
        "place",
        "status",
        "matched by",
        "planned",
        "planned link",
        "found",
        "found link",
        "BDF",
        "NUMA",
    ];
    let rows: Vec<Vec<String>> = diff
        .entries
        .iter()
        .map(|e| {
            vec![
                e.place.clone(),
                e.status.name().to_string(),
                match (e.method, e.slot_number) {
                    (MatchMethod::PhysicalSlot, Some(n)) => format!("slot {n}"),
                    (MatchMethod::PhysicalSlot, None) => "physical slot".into(),
                    (MatchMethod::AddressOrder, _) => "address order".into(),
                    (MatchMethod::DeviceClass, _) => "device class".into(),
                    (MatchMethod::None, _) => "-".into(),
                },
                e.expected.clone().unwrap_or_else(|| "-".into()),
                e.expected_link.clone().unwrap_or_else(|| "-".into()),
                e.found.clone().unwrap_or_else(|| "-".into()),
                e.found_link.clone().unwrap_or_else(|| "-".into()),
                e.bdf.map_or_else(|| "-".into(), |b| b.to_string()),
                e.found_numa
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let table = if rows.is_empty() {
        "(the plan has no bay, slot or card to compare with the host)".to_string()
    } else {
        term.fitted_table(&header, &rows, &[7, 8, 2, 4]).render()
    };
    let mut out = format!(
        "Against the plan: {} ({})\n",
        diff.build.clone().unwrap_or_else(|| diff.platform.clone()),
        diff.platform
    );
    out.push_str(&table);
    out.push('\n');
    let (found, planned) = diff.found_count();
    out.push_str(&format!("{found} of {planned} planned found\n"));
    for e in diff.entries.iter().filter(|e| !e.problems.is_empty()) {
        if e.status == DiffStatus::NotVisible {
            continue;
        }
        out.push_str(&format!("  {}: {}\n", e.place, e.problems.join("; ")));
    }
    out
}

fn class_code(f: &FunctionReport) -> Option<u32> {
    f.class.map(|c| c.0)
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
        .find(|d| d.bdf == Some(f.bdf))
        .and_then(|d| d.model.clone())
        .unwrap_or_else(|| f.name.clone())
}

impl DiffEntry {
    /// An entry for `place` holding what the host has there, if anything; the plan's side
    /// and the verdict are filled in by the caller.
    fn at(
        place: String,
        subject: Subject,
        audit: &Audit,
        found: Option<&FunctionReport>,
        catalog: Option<&Catalog>,
    ) -> DiffEntry {
        DiffEntry {
            place,
            subject,
            bay: None,
            slot: None,
            slot_number: None,
            method: MatchMethod::None,
            expected: None,
            expected_part: None,
            expected_link: None,
            expected_socket: None,
            bdf: found.map(|f| f.bdf),
            found: found.map(|f| found_name(audit, f)),
            found_part: found.and_then(|f| catalog.and_then(|c| part_by_ids(c, f))),
            found_ids: found.map(|f| PciIds::text(f.ids)),
            found_subsystem: found.and_then(|f| f.subsystem),
            found_link: found.and_then(|f| f.link).map(link_label),
            found_rate: found.and_then(|f| f.link),
            found_numa: found.and_then(|f| f.numa_node),
            status: DiffStatus::Ok,
            problems: Vec::new(),
            in_slot: None,
            found_class: found.map(|f| device_class(class_code(f))),
        }
    }
}

/// The catalogue part whose PCI ids are the function's: vendor:device and, where the part
/// names one, the subsystem (a part without a subsystem matches any).
pub fn part_by_ids(catalog: &Catalog, f: &FunctionReport) -> Option<String> {
    let mut best: Option<(bool, &str)> = None;
    for (id, part) in &catalog.parts {
        for p in &part.def.pci {
            if !PciIds::is_listed(p.id.get_ref(), f.ids) {
                continue;
            }
            let exact = match (&p.subsystem, f.subsystem) {
                (Some(want), Some(got)) if PciIds::is_listed(want.get_ref(), Some(got)) => true,
                (Some(_), _) => continue,
                (None, _) => false,
            };
            if best.is_none_or(|(e, _)| exact && !e) {
                best = Some((exact, id.as_str()));
            }
        }
    }
    best.map(|(_, id)| id.to_string())
}

/// Whether a catalogue part's PCI ids are the function's. `None`: the part lists no ids.
fn ids_match(catalog: &Catalog, part: &str, f: &FunctionReport) -> Option<bool> {
    let def = &catalog.parts.get(part)?.def;
    if def.pci.is_empty() {
        return None;
    }
    Some(def.pci.iter().any(|p| {
        PciIds::is_listed(p.id.get_ref(), f.ids)
            && p.subsystem.as_ref().is_none_or(|s| {
                f.subsystem
                    .is_some_and(|g| PciIds::is_listed(s.get_ref(), Some(g)))
            })
    }))
}

fn unexpected(
    audit: &Audit,
    f: &FunctionReport,
    socket: Option<String>,
    catalog: Option<&Catalog>,
) -> DiffEntry {
    DiffEntry {
        slot: f.slot.clone(),
        slot_number: f.slot_number,
        expected_socket: socket,
        status: DiffStatus::Unexpected,
        problems: vec![format!(
            "unexpected: {} at {}, not in the plan",
            found_name(audit, f),
            f.bdf
        )],
        ..DiffEntry::at(
            f.bdf.to_string(),
            Subject::Device { bdf: f.bdf },
            audit,
            Some(f),
            catalog,
        )
    }
}

/// The PCIe rate planned on the link above a device.
/// The port a card sits on: the nearest port above `f` that reports a physical slot number,
/// else the topmost port above it (a root port). Everything below that port is the card's.
fn card_top<'a>(audit: &'a Audit, f: &FunctionReport) -> Option<&'a FunctionReport> {
    let mut top = None;
    let mut cur = f.parent.and_then(|p| audit.function(p));
    let mut hops = 0;
    while let Some(p) = cur {
        if matches!(
            p.kind,
            FnKind::RootPort | FnKind::SwitchPort | FnKind::Bridge
        ) {
            if p.slot_number.is_some() {
                return Some(p);
            }
            top = Some(p);
        }
        hops += 1;
        if hops > 256 {
            break;
        }
        cur = p.parent.and_then(|q| audit.function(q));
    }
    top
}

fn rate_above(t: &Topology, d: NodeIndex) -> Option<LinkRate> {
    t.parent_edge(d)
        .and_then(|(_, e)| t.graph[e].pcie().copied())
}

#[allow(clippy::too_many_arguments)]
fn judge(
    e: &mut DiffEntry,
    t: &Topology,
    planned: NodeIndex,
    rate: Option<LinkRate>,
    f: &FunctionReport,
    numa: &[u32],
    audit: &Audit,
    catalog: Option<&Catalog>,
) {
    let want = &t.node(planned).label;
    let got = found_name(audit, f);
    // Part: by PCI ids where the catalogue lists the planned part's, else (drives) a model
    // number token of the planned part (`9300`, `PE8010`) in the drive's model.
    let by_ids = match (catalog, e.expected_part.as_deref()) {
        (Some(c), Some(p)) => ids_match(c, p, f),
        _ => None,
    };
    let is_drive = matches!(
        t.node(planned).kind,
        NodeKind::Device {
            class: DeviceClass::Nvme,
            ..
        }
    );
    let wrong = match by_ids {
        Some(ok) => !ok,
        None if is_drive => {
            let tokens: Vec<&str> = want
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| w.len() >= 4 && w.chars().any(|c| c.is_ascii_digit()))
                .collect();
            !tokens.is_empty() && !tokens.iter().any(|tok| got.contains(tok))
        }
        None => false,
    };
    if wrong {
        e.status = DiffStatus::WrongPart;
        let planned_ids = catalog
            .zip(e.expected_part.as_deref())
            .and_then(|(c, p)| c.parts.get(p))
            .and_then(|p| p.def.pci.first())
            .map(|p| format!(" ({})", p.id.get_ref()))
            .unwrap_or_default();
        let found_desc = match e
            .found_part
            .as_deref()
            .and_then(|p| catalog.and_then(|c| c.parts.get(p)))
        {
            Some(p) => format!("{} ({got})", p.def.name),
            None => format!(
                "{got} ({}{}), a part the catalogue does not list",
                PciIds::text(f.ids),
                f.subsystem
                    .map(|s| format!(", subsystem {s}"))
                    .unwrap_or_default()
            ),
        };
        e.problems.push(format!(
            "wrong part: planned {want}{planned_ids}, found {found_desc}"
        ));
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
        // Downtrained only below what both ends support (the device's own maximum and its
        // port's): a chip whose own maximum is Gen2 x2 runs at its maximum in a Gen3 x16
        // slot, and an x16 card on an x8 root port at x8 is where the platform is wrong.
        let own = f.expected.or(f.link_max);
        let want_gen = own
            .and_then(|m| m.speed)
            .map_or(r.generation, |g| g.min(r.generation));
        let want_width = own
            .map(|m| m.width)
            .filter(|&w| w > 0)
            .map_or(r.width, |w| w.min(r.width));
        let slow = l.speed.is_some_and(|g| g < want_gen);
        let narrow = l.width > 0 && l.width < want_width;
        if l.is_down() {
            e.status = DiffStatus::Missing;
            e.problems.push("present but its link is down".into());
        } else if slow && !narrow && f.link_status == crate::host::audit::LinkStatus::PowerManaged {
            // A GPU idles at a lower speed: the audit's note says how to re-check under
            // load; not a difference from the plan.
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

/// The NVMe controllers among `located` that sit on a root bus with no port above them
/// (a POWER host's drives, each on its own root bus), in address order.
fn root_bus_drives<'a>(
    audit: &'a Audit,
    located: &[&'a FunctionReport],
) -> Vec<&'a FunctionReport> {
    let mut out: Vec<&FunctionReport> = located
        .iter()
        .copied()
        .filter(|f| f.parent.is_none() && f.kind == FnKind::Device)
        .filter(|f| audit.drives.iter().any(|d| d.bdf == Some(f.bdf)))
        .collect();
    out.sort_by_key(|a| a.bdf);
    out
}

/// The planned bays of a root complex without a port, each with the next root-bus drive in
/// address order (`map`), and the drives no bay took (`unmatched`).
struct BusBays<'a> {
    map: std::collections::BTreeMap<u32, &'a FunctionReport>,
    unmatched: Vec<&'a FunctionReport>,
}

impl<'a> BusBays<'a> {
    fn remove(&mut self, bay: &u32) -> Option<&'a FunctionReport> {
        self.map.remove(bay)
    }
}

fn root_bus_bays<'a>(
    positions: &[Position],
    port_of_bay: &std::collections::BTreeMap<u32, (&FunctionReport, MatchMethod)>,
    drives: &[&'a FunctionReport],
) -> BusBays<'a> {
    let mut left = drives.iter().copied();
    let mut map = std::collections::BTreeMap::new();
    for pos in positions {
        if let Position::Bay { bay, .. } = pos
            && !port_of_bay.contains_key(bay)
            && let Some(f) = left.next()
        {
            map.insert(*bay, f);
        }
    }
    BusBays {
        map,
        unmatched: left.collect(),
    }
}

/// A drive on a root bus against its planned part: the part learned from the drive's model
/// names it, so the model must be the part's name; its NUMA node is its controller's.
fn judge_bus_drive(
    e: &mut DiffEntry,
    t: &Topology,
    planned: NodeIndex,
    f: &FunctionReport,
    numa: &[u32],
    audit: &Audit,
) {
    let want = &t.node(planned).label;
    let drive = audit.drives.iter().find(|d| d.bdf == Some(f.bdf));
    let got = drive.and_then(|d| d.model.as_deref()).map(str::trim);
    if got.is_some_and(|g| g != want.trim()) {
        e.status = DiffStatus::WrongPart;
        e.problems.push(format!(
            "wrong part: planned {want}, found {}",
            got.unwrap_or_default()
        ));
    }
    let node = f.numa_node.or(drive.and_then(|d| d.numa_node));
    e.found_numa = node;
    if let (Some(n), false) = (node, numa.is_empty())
        && !numa.contains(&n)
    {
        e.status = DiffStatus::WrongSocket;
        e.problems.push(format!(
            "wrong socket: planned on {}, found on NUMA node {n}",
            e.expected_socket.clone().unwrap_or_default()
        ));
    }
}

/// The physical slot number the platform gives bay `n` (its group's `slot_numbers`).
pub fn bay_slot_number(plan: &Plan, n: u32) -> Option<u32> {
    let info = plan.bays.get(&n)?;
    let numbers = info.group.slot_numbers.as_ref()?;
    let bays = parse_bay_list(info.group.bays.get_ref()).ok()?;
    let numbers = parse_bay_list(numbers.get_ref()).ok()?;
    let i = bays.iter().position(|&b| b == n)?;
    numbers.get(i).copied()
}

/// The planned positions under a root complex, in port order.
fn positions(plan: &Plan, rc: NodeIndex) -> Vec<Position> {
    let mut out = Vec::new();
    for port in plan.topology.children(rc) {
        collect(plan, port, &mut out);
    }
    out
}

fn collect(plan: &Plan, ix: NodeIndex, out: &mut Vec<Position>) {
    let t = &plan.topology;
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
                slot_number: bay_slot_number(plan, *number),
            });
        }
        NodeKind::Slot { .. } => {
            let card = t
                .children(ix)
                .into_iter()
                .find(|&c| matches!(t.node(c).kind, NodeKind::Device { .. }));
            let slot_number = plan
                .slots
                .get(&n.id)
                .and_then(|s| s.def.slot_number.as_ref())
                .map(|v| *v.get_ref());
            match card {
                None => out.push(Position::EmptySlot {
                    slot: n.id.clone(),
                    label: n.label.clone(),
                    slot_number,
                }),
                Some(c) => match t.node(c).kind {
                    NodeKind::Device {
                        class: DeviceClass::Extender,
                        ..
                    } => {
                        let mut inner = Vec::new();
                        for k in t.children(c) {
                            collect(plan, k, &mut inner);
                        }
                        let bays: Vec<u32> = inner
                            .iter()
                            .filter_map(|p| match p {
                                Position::Bay { bay, .. } => Some(*bay),
                                _ => None,
                            })
                            .collect();
                        if !bays.is_empty() {
                            out.push(Position::Extender {
                                slot: n.id.clone(),
                                label: n.label.clone(),
                                card: c,
                                bays,
                            });
                        }
                        out.extend(inner);
                    }
                    _ => out.push(Position::Card {
                        slot: n.id.clone(),
                        label: n.label.clone(),
                        card: c,
                        slot_number,
                    }),
                },
            }
        }
        // Controllers' backplanes hold SAS bays: not PCIe positions.
        NodeKind::Backplane => {}
        NodeKind::Device { .. } | NodeKind::Pch => {}
        _ => {
            for k in t.children(ix) {
                collect(plan, k, out);
            }
        }
    }
}
