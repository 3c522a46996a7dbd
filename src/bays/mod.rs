//! Bay layouts: the chassis as a person sees it. Front (and rear) drive bays in chassis order,
//! each with its interface, installed part, socket, path to the socket and link; the rear
//! slots and what occupies them; and the lane groups (card, switch, controller, direct cables)
//! that take the bays' lanes to a root complex and a socket.
//!
//! [`BayLayout`] is a view model: it decides nothing about the host. It is built from a
//! planned [`Report`] today ([`BayLayout::from_report`]); the live audit fills the same
//! [`BayView`]s with its per-bay diff ([`BayLayout::set_bay_status`]). Renderers
//! (`render::bays_text`, `render::bays_svg`) read it; `--json` serialises it.

pub mod geometry;

use crate::finding::{Code, Finding, Severity, Subject};
use crate::pcie::LinkRate;
use crate::plan::Report;
use crate::plan::instantiate::{BayInfo, Plan, SlotInfo, compress_ranges};
use crate::platform::Catalog;
use crate::platform::schema::{Height, Interface, SlotKind, Via};
use crate::topology::{DeviceClass, Link, NodeKind, StorageProtocol, Topology};
use geometry::Panel;
use petgraph::stable_graph::NodeIndex;
use serde::Serialize;
use std::collections::BTreeMap;

/// Version of the `laneplan bays --json` document (docs/bays.md). Bump it when a field
/// changes meaning or disappears; additions keep it.
pub const SCHEMA_VERSION: u32 = 1;

/// Front or rear of the chassis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BayLocation {
    Front,
    Rear,
}

impl BayLocation {
    pub fn parse(s: &str) -> BayLocation {
        if s.eq_ignore_ascii_case("rear") {
            BayLocation::Rear
        } else {
            BayLocation::Front
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BayLocation::Front => "Front",
            BayLocation::Rear => "Rear",
        }
    }
}

/// A bay's state: the one status type of the diff and the views (a plan gives `Ok`, `Empty`
/// and `Degraded`; the audit the others).
pub use crate::against::DiffStatus as BayStatus;

/// What a host adds to the layout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostView {
    /// Planned places (bays and cards) found on the host, of `planned`.
    pub found: usize,
    pub planned: usize,
    /// Bays in which the host shows a drive, and slots in which it shows a card (planned or
    /// not): what was found, also where nothing was planned.
    pub drives_found: usize,
    pub cards_found: usize,
    /// NVMe drives the host has that no bay holds (never dropped): `bdf model (slot N)`.
    pub unplaced: Vec<UnplacedDrive>,
}

/// An NVMe drive that could not be placed in a bay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnplacedDrive {
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub bdf: Option<crate::pci::Bdf>,
    pub model: Option<String>,
    pub slot_number: Option<u32>,
    /// Why: no bay of the platform reports its slot number, or no platform slot numbers.
    pub reason: String,
}

/// A link as the views show it: PCIe (what trains and what the ends could do) or SAS/SATA.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkView {
    /// `Gen3 x4`, `SAS 12 Gb/s`.
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<LinkRate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<LinkRate>,
}

impl LinkView {
    fn from_link(link: &Link) -> Option<LinkView> {
        match link {
            Link::Pcie { rate, max } => Some(LinkView {
                text: rate.short(),
                rate: Some(*rate),
                max: *max,
            }),
            Link::Storage { protocol, gbps } => Some(LinkView {
                text: format!(
                    "{} {} Gb/s",
                    match protocol {
                        StorageProtocol::Sas => "SAS",
                        StorageProtocol::Sata => "SATA",
                    },
                    gbps
                ),
                rate: None,
                max: None,
            }),
            _ => None,
        }
    }

    /// True when a PCIe link trains below what its ends can do (generation or width).
    pub fn below_max(&self) -> bool {
        match (self.rate, self.max) {
            (Some(r), Some(m)) => r.generation < m.generation || r.width < m.width,
            _ => false,
        }
    }

    /// `Gen3 x4 (8.0 GT/s x4), can do Gen4 x4`.
    pub fn long(&self) -> String {
        match (self.rate, self.max) {
            (Some(r), Some(m)) if self.below_max() => {
                format!("{} ({}), can do {}", r.short(), r.label(), m.short())
            }
            (Some(r), _) => format!("{} ({})", r.short(), r.label()),
            _ => self.text.clone(),
        }
    }
}

/// One drive bay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BayView {
    pub number: u32,
    pub location: BayLocation,
    /// `2.5` or `3.5` (inches).
    pub size: String,
    /// What the bay accepts.
    pub accepts: Vec<Interface>,
    /// The installed drive's interface; for an empty bay, the first it accepts.
    pub interface: Interface,
    /// Installed part (its name), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part_id: Option<String>,
    /// Socket index (0 = CPU1) the bay's lanes reach; `None` when not connected.
    pub socket: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub socket_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numa_node: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_complex: Option<String>,
    /// Key of the lane group (see [`LaneGroup::key`]).
    pub group: String,
    /// Its letter (`A`, `B`, ...), as the pictures label it.
    pub group_letter: String,
    /// From the socket down to the bay: root complex, slot, card, switch, port, cable,
    /// backplane.
    pub path: Vec<String>,
    /// The drive's own link (NVMe: PCIe; SAS/SATA: the storage link).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkView>,
    pub status: BayStatus,
    /// Everything wrong with this bay, one sentence each (finding codes first).
    pub problems: Vec<String>,
    /// Bandwidth ceiling of the drive in this bay, filled in by the bandwidth model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<String>,
    /// Multi-line text for SVG `<title>` tooltips.
    pub tooltip: String,
    /// What an audit found in the bay (shown in the tooltip).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tooltip_extra: Option<String>,
    /// With a host: what was found in the bay (model or name), its PCI address, the physical
    /// slot number the platform gives the bay and how the bay was matched to the host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub bdf: Option<crate::pci::Bdf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot_number: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_by: Option<crate::against::MatchMethod>,
}

impl BayView {
    /// Whether the views mark this bay as a problem.
    pub fn has_problem(&self) -> bool {
        self.status.is_problem() || !self.problems.is_empty()
    }

    /// Rebuilds the tooltip from the other fields.
    pub fn refresh_tooltip(&mut self) {
        let mut lines = vec![format!(
            "Bay {} ({} {}\") — {}",
            self.number,
            self.location.name().to_lowercase(),
            self.size,
            self.part.as_deref().unwrap_or("empty")
        )];
        let accepts: Vec<&str> = self.accepts.iter().map(|i| i.name()).collect();
        lines.push(format!(
            "interface: {} (bay takes {})",
            self.interface.name(),
            accepts.join("/")
        ));
        lines.push(format!(
            "socket: {}",
            match (&self.socket_label, self.numa_node) {
                (Some(s), Some(n)) => format!("{s} (NUMA {n})"),
                (Some(s), None) => s.clone(),
                _ => "not connected".to_string(),
            }
        ));
        lines.push(format!("path: {}", self.path.join(" > ")));
        if let Some(l) = &self.link {
            lines.push(format!("link: {}", l.long()));
        }
        if let Some(c) = &self.ceiling {
            lines.push(format!("ceiling: {c}"));
        }
        if let Some(f) = &self.tooltip_extra {
            lines.push(f.clone());
        }
        lines.push(format!("status: {}", self.status.name()));
        for p in &self.problems {
            lines.push(format!("problem: {p}"));
        }
        self.tooltip = lines.join("\n");
    }
}

/// What carries a group of bays' lanes towards the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupKind {
    /// NVMe extender card whose slot is bifurcated: each drive a direct x4.
    ExtenderCard,
    /// NVMe extender card with a PCIe switch on it.
    SwitchCard,
    /// PCIe switch on the backplane or board.
    Switch,
    /// SAS/SATA behind a storage controller.
    Controller,
    /// NVMe cabled straight to root-complex lanes.
    Direct,
}

/// Bays that share one uplink: a card, a switch, a controller, or direct cables to one root
/// complex.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneGroup {
    /// `slot1`, `mini-perc`, `bp-switch1`, `direct:die0.b`.
    pub key: String,
    /// `A`, `B`, ... in the order of `BayLayout::groups`.
    pub letter: String,
    pub kind: GroupKind,
    /// `Slot 1: NVMe extender card (PCIe bridge, x16 to 4 x4)`.
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<String>,
    /// The card in the slot (extender card or controller), if installed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_complex: Option<String>,
    pub socket: Option<u8>,
    /// The shared link towards the root complex (card or switch uplink); `None` for direct
    /// cables, where every bay has its own port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uplink: Option<LinkView>,
    /// Lanes per bay (NVMe).
    pub bay_width: u8,
    pub bays: Vec<u32>,
    /// Lanes below / lanes above for switches, when above 1 (3.0 = 3:1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oversubscription: Option<f64>,
    pub problems: Vec<String>,
}

/// A rear slot (or a board slot: mini PERC, rNDC, OCP, mezzanine, front PERC).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlotView {
    pub id: String,
    pub label: String,
    /// `1`, `PERC`, `rNDC`, `OCP`, `Mezz` (for narrow boxes).
    pub short: String,
    pub kind: SlotKind,
    pub electrical: u8,
    pub mechanical: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<Height>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub riser: Option<String>,
    pub socket: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub socket_label: Option<String>,
    pub root_complex: String,
    /// Installed card (name), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_class: Option<DeviceClass>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkView>,
    /// The front option that takes this slot for its extender cards.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserved_by: Option<String>,
    /// Bays whose lanes go through this slot's card.
    pub bays: Vec<u32>,
    /// With a host: the PCI address of the card found in the slot.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub found_bdf: Option<crate::pci::Bdf>,
    pub problems: Vec<String>,
    pub tooltip: String,
}

impl HostView {
    /// `2 of 3 planned found`, or with nothing planned what was found: `2 drives in bays,
    /// 2 cards in slots found (nothing planned)`.
    pub fn summary(&self) -> String {
        if self.planned > 0 {
            return format!("{} of {} planned found", self.found, self.planned);
        }
        let n =
            |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        format!(
            "{} in bays, {} in slots found (nothing planned)",
            n(self.drives_found, "drive", "drives"),
            n(self.cards_found, "card", "cards")
        )
    }
}

impl SlotView {
    /// `x16 FH`, `x8 in x16 LP`.
    pub fn width_text(&self) -> String {
        let mut s = format!("x{}", self.electrical);
        if self.mechanical != self.electrical {
            s.push_str(&format!(" in x{}", self.mechanical));
        }
        match self.height {
            Some(Height::Full) => s.push_str(" FH"),
            Some(Height::Low) => s.push_str(" LP"),
            None => {}
        }
        s
    }

    /// As [`card_short`](Self::card_short) for a cell `w` characters wide: `rsvd` for
    /// `reserved` where that does not fit (the other names wrap at their space).
    pub fn card_short_in(&self, w: usize) -> String {
        if self.card_class.is_none() && self.reserved_by.is_some() && w < "reserved".len() {
            return "rsvd".into();
        }
        self.card_short()
    }

    /// A short name of what the slot holds: `NVMe ext`, `PERC`, `NIC`.
    pub fn card_short(&self) -> String {
        let Some(class) = self.card_class else {
            return if self.reserved_by.is_some() {
                "reserved".into()
            } else {
                "empty".into()
            };
        };
        let plx = self
            .card
            .as_deref()
            .is_some_and(|c| c.contains("switch") || c.contains("PLX"));
        match class {
            DeviceClass::Extender if plx => "NVMe sw",
            DeviceClass::Extender => "NVMe ext",
            DeviceClass::Raid => "PERC",
            DeviceClass::Hba => "HBA",
            DeviceClass::Nic => "NIC",
            DeviceClass::Boot => "BOSS",
            DeviceClass::Gpu => "GPU",
            _ => "card",
        }
        .into()
    }
}

/// A socket and its colour index.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SocketView {
    pub index: u8,
    pub label: String,
    pub numa_nodes: Vec<u32>,
}

/// The whole picture: front and rear panels, bays, lane groups and slots.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BayLayout {
    pub schema_version: u32,
    pub platform: String,
    pub platform_name: String,
    /// `1U`, `2U`.
    pub form: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub options: BTreeMap<String, String>,
    pub sockets: Vec<SocketView>,
    /// Front panel first, then the rear one when there are rear bays.
    pub panels: Vec<Panel>,
    /// By bay number.
    pub bays: Vec<BayView>,
    /// Ordered by socket, root complex and first bay; letters follow this order.
    pub groups: Vec<LaneGroup>,
    /// PCIe slots by number, then the board slots.
    pub slots: Vec<SlotView>,
    /// Findings that belong to no bay or slot, one sentence each.
    pub notes: Vec<String>,
    /// With a host (`--sysfs-root`, `--lspci`, `--host`): counts and what could not be
    /// placed in a bay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<HostView>,
}

impl BayLayout {
    /// The layout of a planned platform or build. `catalog` gives the chassis form.
    pub fn from_report(report: &Report, catalog: &Catalog) -> BayLayout {
        let form = catalog
            .platform(&report.plan.platform_id)
            .map(|p| p.def.form.clone())
            .unwrap_or_else(|| "2U".into());
        build(report, form)
    }

    pub fn bay(&self, number: u32) -> Option<&BayView> {
        self.bays.iter().find(|b| b.number == number)
    }

    pub fn group(&self, key: &str) -> Option<&LaneGroup> {
        self.groups.iter().find(|g| g.key == key)
    }

    pub fn socket_label(&self, index: u8) -> String {
        self.sockets
            .iter()
            .find(|s| s.index == index)
            .map(|s| s.label.clone())
            .unwrap_or_else(|| format!("CPU{}", index + 1))
    }

    /// Sets a bay's status from an audit and adds a problem sentence; returns false when the
    /// bay does not exist.
    /// Marks each bay with what an audit found there (`laneplan bays BUILD --sysfs-root DIR`).
    /// With `planned_parts` false (a bare platform), a drive found where the plan has none is
    /// simply what the bay holds, not a problem.
    pub fn apply_diff(&mut self, diff: &crate::against::Diff, planned_parts: bool) {
        self.apply_diff_with(diff, planned_parts, None);
    }

    /// As [`apply_diff`](Self::apply_diff), and lists the audit's NVMe drives that no bay
    /// holds (nothing is dropped silently).
    pub fn apply_diff_with(
        &mut self,
        diff: &crate::against::Diff,
        planned_parts: bool,
        audit: Option<&crate::host::audit::Audit>,
    ) {
        use crate::against::DiffStatus as D;
        use crate::finding::Subject;
        for e in &diff.entries {
            // An unplanned card in a slot the platform names: drawn there (a problem only
            // against a build that plans the slot empty).
            if let Some(id) = &e.in_slot
                && let Some(s) = self.slots.iter_mut().find(|s| &s.id == id)
                && s.card.is_none()
            {
                s.card = e.found.clone();
                s.card_class = e.found_class;
                s.link = e.found_rate.and_then(|l| {
                    let g = l.speed?;
                    (l.width > 0).then(|| {
                        let r = LinkRate::new(g, l.width);
                        LinkView {
                            text: r.short(),
                            rate: Some(r),
                            max: None,
                        }
                    })
                });
                s.found_bdf = e.bdf;
                if planned_parts && e.status.is_problem() {
                    s.problems.extend(e.problems.iter().cloned());
                }
                s.tooltip = slot_tooltip(s);
                continue;
            }
            let Some(n) = e.bay else {
                if let Subject::Slot { id } = &e.subject
                    && e.status.is_problem()
                    && let Some(s) = self.slots.iter_mut().find(|s| &s.id == id)
                {
                    s.problems.extend(e.problems.iter().cloned());
                    s.tooltip = slot_tooltip(s);
                }
                continue;
            };
            let Some(b) = self.bays.iter_mut().find(|b| b.number == n) else {
                continue;
            };
            let status = match e.status {
                D::Unexpected if !planned_parts => BayStatus::Ok,
                other => other,
            };
            b.status = status;
            b.found = e.found.clone();
            b.bdf = e.bdf;
            b.slot_number = e.slot_number;
            b.matched_by = Some(e.method);
            // The trained link where it differs from the plan.
            if let Some(l) = e.found_rate
                && let Some(g) = l.speed
                && l.width > 0
            {
                let found = LinkRate::new(g, l.width);
                let planned = b.link.as_ref().and_then(|v| v.rate);
                if planned
                    .is_none_or(|p| p.generation != found.generation || p.width != found.width)
                {
                    b.link = Some(LinkView {
                        text: found.short(),
                        rate: Some(found),
                        max: planned,
                    });
                }
            }
            if status.is_problem() {
                b.problems.extend(e.problems.iter().cloned());
            }
            if let Some(found) = &e.found {
                if b.part.is_none() {
                    b.part = Some(found.clone());
                }
                let at = e.bdf.unwrap_or_default();
                let link = e.found_link.clone().unwrap_or_default();
                b.tooltip_extra = Some(format!("found: {found} at {at}, {link}"));
            }
            b.refresh_tooltip();
        }
        let (found, planned) = diff.found_count();
        let mut unplaced = Vec::new();
        if let Some(a) = audit {
            for d in &a.drives {
                let placed = d.bdf.is_some_and(|bdf| {
                    diff.entries
                        .iter()
                        .any(|e| e.bay.is_some() && e.bdf == Some(bdf))
                });
                if !placed {
                    unplaced.push(UnplacedDrive {
                        bdf: d.bdf,
                        model: d.model.clone(),
                        slot_number: d.slot_number,
                        reason: match d.slot_number {
                            Some(n) => format!("no bay of {} has physical slot {n}", self.platform),
                            None => "the host reports no physical slot for it, and no bay's port holds it".into(),
                        },
                    });
                }
            }
        }
        let drives_found = self
            .bays
            .iter()
            .filter(|b| b.matched_by.is_some() && b.bdf.is_some())
            .count();
        let cards_found = self.slots.iter().filter(|s| s.found_bdf.is_some()).count()
            + diff
                .entries
                .iter()
                .filter(|e| e.slot.is_some() && e.bay.is_none() && e.in_slot.is_none())
                .filter(|e| e.bdf.is_some() && e.expected.is_some())
                .count();
        self.host = Some(HostView {
            found,
            planned,
            drives_found,
            cards_found,
            unplaced,
        });
    }

    pub fn set_bay_status(
        &mut self,
        number: u32,
        status: BayStatus,
        problem: Option<String>,
    ) -> bool {
        let Some(b) = self.bays.iter_mut().find(|b| b.number == number) else {
            return false;
        };
        b.status = status;
        if let Some(p) = problem {
            b.problems.push(p);
        }
        b.refresh_tooltip();
        true
    }

    /// Bay problems, each once, with the bays it concerns.
    pub fn bay_problems(&self) -> Vec<(Vec<u32>, String)> {
        let mut out: Vec<(Vec<u32>, String)> = Vec::new();
        for b in &self.bays {
            for p in &b.problems {
                match out.iter_mut().find(|(_, q)| q == p) {
                    Some((bays, _)) => bays.push(b.number),
                    None => out.push((vec![b.number], p.clone())),
                }
            }
        }
        out
    }

    /// Slot problems, each once, with the slots (short names) it concerns.
    pub fn slot_problems(&self) -> Vec<(Vec<String>, String)> {
        let mut out: Vec<(Vec<String>, String)> = Vec::new();
        for s in &self.slots {
            for p in &s.problems {
                match out.iter_mut().find(|(_, q)| q == p) {
                    Some((slots, _)) => slots.push(s.short.clone()),
                    None => out.push((vec![s.short.clone()], p.clone())),
                }
            }
        }
        out
    }

    /// Number of bays marked as a problem.
    pub fn problem_count(&self) -> usize {
        self.bays.iter().filter(|b| b.has_problem()).count()
    }
}

/// `[LP0111] message (help: ...)`.
fn finding_text(f: &Finding) -> String {
    let sev = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    };
    match &f.help {
        Some(h) if !h.is_empty() => format!("{sev}[{}]: {} (help: {h})", f.code, f.message),
        _ => format!("{sev}[{}]: {}", f.code, f.message),
    }
}

/// Does a finding concern bay `n`? Its subject says (a finding without one is a note).
fn finding_is_about_bay(f: &Finding, n: u32) -> bool {
    f.subject == Some(Subject::Bay { number: n })
}

/// Does a finding concern the slot (or the card in it)? Its subject says: the slot, a set of
/// slots holding it, or the slot's root complex when the slot holds a card (a root complex
/// over budget concerns every card on it).
fn finding_is_about_slot(f: &Finding, s: &SlotInfo) -> bool {
    let id = s.def.id.get_ref();
    match &f.subject {
        Some(Subject::Slot { id: x }) => x == id,
        Some(Subject::Slots { ids }) => ids.contains(id),
        Some(Subject::RootComplex { id: rc }) => {
            rc == s.def.root_complex.get_ref() && s.card.is_some()
        }
        _ => false,
    }
}

fn socket_labels(t: &Topology) -> BTreeMap<u8, (String, Vec<u32>)> {
    t.sockets()
        .into_iter()
        .filter_map(|ix| match &t.node(ix).kind {
            NodeKind::Socket {
                index, numa_nodes, ..
            } => Some((*index, (t.node(ix).label.clone(), numa_nodes.clone()))),
            _ => None,
        })
        .collect()
}

fn numa_of(t: &Topology, ix: NodeIndex) -> Option<u32> {
    t.ancestors(ix).find_map(|n| match t.node(n).kind {
        NodeKind::RootComplex { numa_node, .. } => numa_node,
        _ => None,
    })
}

fn rc_of(t: &Topology, ix: NodeIndex) -> Option<NodeIndex> {
    t.ancestors(ix)
        .find(|&n| matches!(t.node(n).kind, NodeKind::RootComplex { .. }))
}

fn up_link(t: &Topology, ix: NodeIndex) -> Option<LinkView> {
    t.parent_edge(ix)
        .and_then(|(_, e)| LinkView::from_link(&t.graph[e]))
}

/// The node a group hangs from (card, switch, root complex), or the slot when its card is
/// missing, for socket and root complex.
fn group_anchor(plan: &Plan, info: &BayInfo) -> Option<NodeIndex> {
    let to = info.group.to.get_ref();
    match info.group.via {
        Via::Card | Via::Controller => plan
            .slots
            .get(to)
            .map(|s| s.card.as_ref().map(|(c, _)| *c).unwrap_or(s.slot)),
        Via::Switch => plan.switches.get(to).copied(),
        Via::Direct => plan.root_complexes.get(to).copied(),
    }
}

fn group_key(info: &BayInfo) -> String {
    match info.group.via {
        Via::Direct => format!("direct:{}", info.group.to.get_ref()),
        _ => info.group.to.get_ref().clone(),
    }
}

fn slot_sort_key(s: &SlotInfo) -> (u16, u32, String) {
    // Kinds sort as the platform file declares them (`pcie` first unless declared).
    let kind = s.kind.order;
    let digits: String = s.def.label.chars().filter(|c| c.is_ascii_digit()).collect();
    (
        kind,
        digits.parse().unwrap_or(u32::MAX),
        s.def.label.clone(),
    )
}

fn slot_short(s: &SlotInfo) -> String {
    // The kind's `short` from the platform file, else `Slot N` from the label.
    match &s.kind.short {
        Some(short) => short.clone(),
        None => {
            let digits: String = s.def.label.chars().filter(|c| c.is_ascii_digit()).collect();
            if digits.is_empty() {
                s.def.label.clone()
            } else {
                format!("Slot {digits}")
            }
        }
    }
}

/// The steps from the socket to the bay that a person recognises.
fn bay_path(t: &Topology, info: &BayInfo, plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let connected = info.node.and_then(|b| t.parent(b)).is_some();
    if let (Some(bix), true) = (info.node, connected) {
        let mut steps: Vec<NodeIndex> = t.path_to_root(bix).into_iter().map(|(n, _)| n).collect();
        steps.reverse();
        for ix in steps {
            let n = t.node(ix);
            match &n.kind {
                NodeKind::Socket { .. }
                | NodeKind::RootComplex { .. }
                | NodeKind::Slot { .. }
                | NodeKind::Switch { .. }
                | NodeKind::Backplane => out.push(n.label.clone()),
                // The label says more (the bay, where the lanes come from); the path names the
                // port by its number.
                NodeKind::SwitchPort {
                    number: Some(k), ..
                } => out.push(format!("Downstream port {k}")),
                NodeKind::SwitchPort { number: None, .. } => out.push(n.label.clone()),
                NodeKind::Cable { port } => out.push(format!("Port {port}")),
                NodeKind::Device { .. } => out.push(n.label.clone()),
                NodeKind::RootPort { width, .. } if info.group.via == Via::Direct => {
                    out.push(format!("x{width} root port"))
                }
                _ => {}
            }
        }
    } else {
        let to = info.group.to.get_ref();
        let what = match info.group.via {
            Via::Card => format!(
                "{} (no NVMe extender card)",
                plan.slots
                    .get(to)
                    .map(|s| s.def.label.as_str())
                    .unwrap_or(to)
            ),
            Via::Controller => format!(
                "{} (no storage controller)",
                plan.slots
                    .get(to)
                    .map(|s| s.def.label.as_str())
                    .unwrap_or(to)
            ),
            _ => format!("{to} (not present)"),
        };
        out.push("not connected".into());
        out.push(what);
    }
    if let Some(c) = &info.group.cable {
        out.push(match &info.group.cable_gen {
            Some(g) => format!("{c} (Gen{})", g.get_ref()),
            None => c.clone(),
        });
    }
    if let Some(b) = &info.group.backplane
        && !out.iter().any(|s| s == b)
    {
        out.push(match &info.group.backplane_gen {
            Some(g) => format!("{b} (Gen{})", g.get_ref()),
            None => b.clone(),
        });
    }
    out.push(format!("Bay {}", info.number));
    out
}

/// Sockets by index: label and NUMA nodes.
type SocketLabels = BTreeMap<u8, (String, Vec<u32>)>;

fn build(report: &Report, form: String) -> BayLayout {
    let plan = &report.plan;
    let t = &plan.topology;
    let sockets = socket_labels(t);
    let mut used = vec![false; report.findings.len()];
    let groups = lane_groups(plan);
    let bays = plan
        .bays
        .values()
        .map(|info| bay_view(report, info, &groups, &sockets, &mut used))
        .collect();
    let mut slot_infos: Vec<&SlotInfo> = plan.slots.values().collect();
    slot_infos.sort_by_key(|s| slot_sort_key(s));
    let slots = slot_infos
        .into_iter()
        .map(|s| slot_view(report, s, &sockets, &mut used))
        .collect();

    let notes = report
        .findings
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(f, _)| finding_text(f))
        .collect();

    let panels = geometry::panels(plan.bays.values().map(|b| {
        (
            b.number,
            BayLocation::parse(&b.group.location),
            b.group.size.as_str(),
            b.group.rows,
            b.group.order,
        )
    }));

    BayLayout {
        schema_version: SCHEMA_VERSION,
        platform: plan.platform_id.clone(),
        platform_name: plan.platform_name.clone(),
        form,
        build: plan.build_name.clone(),
        file: report.file.clone(),
        options: plan.options.clone(),
        sockets: sockets
            .into_iter()
            .map(|(index, (label, numa_nodes))| SocketView {
                index,
                label,
                numa_nodes,
            })
            .collect(),
        panels,
        bays,
        groups,
        slots,
        notes,
        host: None,
    }
}

fn socket_label_of(sockets: &SocketLabels, i: Option<u8>) -> Option<String> {
    i.and_then(|i| sockets.get(&i).map(|s| s.0.clone()))
}

/// The lane groups of the plan's bays, sorted by socket, root complex and first bay, lettered.
fn lane_groups(plan: &Plan) -> Vec<LaneGroup> {
    let mut groups: BTreeMap<String, LaneGroup> = BTreeMap::new();
    for info in plan.bays.values() {
        let key = group_key(info);
        let entry = groups
            .entry(key.clone())
            .or_insert_with(|| new_lane_group(plan, info, key));
        entry.bays.push(info.number);
    }
    let mut groups: Vec<LaneGroup> = groups.into_values().collect();
    for g in &mut groups {
        g.bays.sort_unstable();
        mark_oversubscription(g);
    }
    groups.sort_by(|a, b| {
        (
            a.socket.is_none(),
            a.socket,
            &a.root_complex,
            a.bays.first(),
        )
            .cmp(&(
                b.socket.is_none(),
                b.socket,
                &b.root_complex,
                b.bays.first(),
            ))
    });
    for (i, g) in groups.iter_mut().enumerate() {
        g.letter = letter(i);
    }
    groups
}

/// The lane group of a bay's group, without its bays: its kind, card, uplink and label.
fn new_lane_group(plan: &Plan, info: &BayInfo, key: String) -> LaneGroup {
    let t = &plan.topology;
    let g = &info.group;
    let anchor = group_anchor(plan, info);
    let rc = anchor.and_then(|a| rc_of(t, a));
    let socket = anchor.and_then(|a| t.socket_index_of(a));
    let slot = match g.via {
        Via::Card | Via::Controller => plan.slots.get(g.to.get_ref()),
        _ => None,
    };
    let card = slot.and_then(|s| s.card.as_ref().map(|(c, _)| *c));
    let has_switch = card.is_some_and(|c| {
        t.children(c)
            .iter()
            .any(|&k| matches!(t.node(k).kind, NodeKind::Switch { .. }))
    });
    let kind = match g.via {
        Via::Card if has_switch => GroupKind::SwitchCard,
        Via::Card => GroupKind::ExtenderCard,
        Via::Controller => GroupKind::Controller,
        Via::Switch => GroupKind::Switch,
        Via::Direct => GroupKind::Direct,
    };
    let uplink = match g.via {
        Via::Card | Via::Controller => card.and_then(|c| up_link(t, c)),
        Via::Switch => plan
            .switches
            .get(g.to.get_ref())
            .and_then(|&s| up_link(t, s)),
        Via::Direct => None,
    };
    let rc_label = rc.map(|r| t.node(r).label.clone());
    let label = match (g.via, slot) {
        (Via::Card | Via::Controller, Some(s)) => match card {
            Some(c) => format!("{}: {}", s.def.label, t.node(c).label),
            None => format!(
                "{}: no {}",
                s.def.label,
                if g.via == Via::Card {
                    "NVMe extender card"
                } else {
                    "storage controller"
                }
            ),
        },
        (Via::Switch, _) => plan
            .switches
            .get(g.to.get_ref())
            .map(|&s| t.node(s).label.clone())
            .unwrap_or_else(|| g.to.get_ref().clone()),
        (Via::Direct, _) => format!("Direct x{} cables", g.width),
        _ => g.to.get_ref().clone(),
    };
    let mut problems = Vec::new();
    if slot.is_some() && card.is_none() {
        problems.push(format!("{label}: its bays are not connected"));
    }
    LaneGroup {
        key,
        letter: String::new(),
        kind,
        label,
        slot: slot.map(|s| s.def.label.clone()),
        card: card.map(|c| t.node(c).label.clone()),
        root_complex: rc_label,
        socket,
        uplink,
        bay_width: if g.interfaces.contains(&Interface::Nvme) {
            g.width.get()
        } else {
            1
        },
        bays: Vec::new(),
        oversubscription: None,
        problems,
    }
}

/// A switch group whose bay ports are wider than its uplink is oversubscribed.
fn mark_oversubscription(g: &mut LaneGroup) {
    if matches!(g.kind, GroupKind::Switch | GroupKind::SwitchCard)
        && let Some(up) = g.uplink.as_ref().and_then(|u| u.rate)
    {
        let down = f64::from(g.bay_width) * g.bays.len() as f64;
        let ratio = down / f64::from(up.width.max(1));
        if ratio > 1.0 + 1e-9 {
            g.oversubscription = Some(ratio);
            g.problems.push(format!(
                "{}: {} x{} bay ports share a {} uplink ({}:1 oversubscribed)",
                g.label,
                g.bays.len(),
                g.bay_width,
                up.short(),
                trim(ratio)
            ));
        }
    }
}

/// One bay: where it connects, its drive and link, its problems (the findings about it are
/// marked in `used`) and its status.
fn bay_view(
    report: &Report,
    info: &BayInfo,
    groups: &[LaneGroup],
    sockets: &SocketLabels,
    used: &mut [bool],
) -> BayView {
    let plan = &report.plan;
    let t = &plan.topology;
    let n = info.number;
    let key = group_key(info);
    let group = groups.iter().find(|g| g.key == key);
    let connected = info.node.and_then(|b| t.parent(b)).is_some();
    let (socket, numa, rc) = match info.node.filter(|_| connected) {
        Some(b) => (
            t.socket_index_of(b),
            numa_of(t, b),
            rc_of(t, b).map(|r| t.node(r).label.clone()),
        ),
        None => (None, None, group.and_then(|g| g.root_complex.clone())),
    };
    let drive = info.drive.as_ref().map(|(d, id)| (*d, id.clone()));
    let (part, part_id, interface, link) = match &drive {
        Some((d, id)) => {
            let iface = match t.node(*d).kind {
                NodeKind::Device {
                    class: DeviceClass::Nvme,
                    ..
                } => Interface::Nvme,
                NodeKind::Device {
                    class: DeviceClass::SasDrive,
                    ..
                } => Interface::Sas,
                _ => Interface::Sata,
            };
            (
                Some(t.node(*d).label.clone()),
                Some(id.clone()),
                iface,
                up_link(t, *d),
            )
        }
        None => (
            None,
            None,
            info.group
                .interfaces
                .first()
                .copied()
                .unwrap_or(Interface::Sata),
            None,
        ),
    };
    let mut problems = Vec::new();
    let mut has_error = false;
    let mut has_gen_finding = false;
    for (i, f) in report.findings.iter().enumerate() {
        if finding_is_about_bay(f, n) {
            used[i] = true;
            problems.push(finding_text(f));
            has_error |= f.severity == Severity::Error;
            has_gen_finding |= matches!(f.code, Code::GenerationDrop);
        }
    }
    let degraded_link = link.as_ref().is_some_and(LinkView::below_max);
    if degraded_link && !has_gen_finding {
        let l = link.as_ref().expect("checked above");
        problems.push(format!(
            "trains at {}; the drive can do {}",
            l.text,
            l.max.map(|m| m.short()).unwrap_or_default()
        ));
    }
    if drive.is_some()
        && let Some(g) = group
        && let Some(ratio) = g.oversubscription
    {
        problems.push(format!(
            "shares {}'s {} uplink with {} other bay ports ({}:1 oversubscribed)",
            g.label,
            g.uplink.as_ref().map(|u| u.text.as_str()).unwrap_or("?"),
            g.bays.len().saturating_sub(1),
            trim(ratio)
        ));
    }
    let status = match &drive {
        None => BayStatus::Empty,
        Some(_) if degraded_link || has_error || !connected => BayStatus::Degraded,
        Some(_) => BayStatus::Ok,
    };
    let mut v = BayView {
        number: n,
        location: BayLocation::parse(&info.group.location),
        size: info.group.size.clone(),
        accepts: info.group.interfaces.clone(),
        interface,
        part,
        part_id,
        socket,
        socket_label: socket_label_of(sockets, socket),
        numa_node: numa,
        root_complex: rc,
        group: key,
        group_letter: group.map(|g| g.letter.clone()).unwrap_or_default(),
        path: bay_path(t, info, plan),
        link,
        status,
        problems,
        ceiling: None,
        tooltip: String::new(),
        tooltip_extra: None,
        found: None,
        bdf: None,
        slot_number: None,
        matched_by: None,
    };
    v.refresh_tooltip();
    v
}

/// One slot: where it connects, its card and link, the bays it serves, its problems (the
/// findings about it are marked in `used`).
fn slot_view(report: &Report, s: &SlotInfo, sockets: &SocketLabels, used: &mut [bool]) -> SlotView {
    let plan = &report.plan;
    let t = &plan.topology;
    let socket = t.socket_index_of(s.slot);
    let rc_label = plan
        .rc_defs
        .get(s.def.root_complex.get_ref())
        .map(|r| r.label.clone())
        .unwrap_or_else(|| s.def.root_complex.get_ref().clone());
    let mut problems = Vec::new();
    for (i, f) in report.findings.iter().enumerate() {
        if finding_is_about_slot(f, s) {
            used[i] = true;
            problems.push(finding_text(f));
        }
    }
    let served: Vec<u32> = plan
        .bays
        .values()
        .filter(|b| {
            matches!(b.group.via, Via::Card | Via::Controller)
                && b.group.to.get_ref() == s.def.id.get_ref()
        })
        .map(|b| b.number)
        .collect();
    let (card, card_class, link) = match &s.card {
        Some((c, _)) => (
            Some(t.node(*c).label.clone()),
            match t.node(*c).kind {
                NodeKind::Device { class, .. } => Some(class),
                _ => None,
            },
            up_link(t, *c),
        ),
        None => (None, None, None),
    };
    let mut v = SlotView {
        id: s.def.id.get_ref().clone(),
        label: s.def.label.clone(),
        short: slot_short(s),
        kind: s.def.kind.get_ref().clone(),
        electrical: s.def.electrical.get_ref().get(),
        mechanical: s.def.mechanical.get_ref().get(),
        height: s.def.height,
        riser: s.def.riser.clone(),
        socket,
        socket_label: socket_label_of(sockets, socket),
        root_complex: rc_label,
        card,
        card_class,
        link,
        reserved_by: s.reserved_by.clone(),
        bays: served,
        found_bdf: None,
        problems,
        tooltip: String::new(),
    };
    v.tooltip = slot_tooltip(&v);
    v
}

fn slot_tooltip(v: &SlotView) -> String {
    let mut lines = vec![format!("{} ({})", v.label, v.width_text())];
    lines.push(format!(
        "socket: {} via {}{}",
        v.socket_label.as_deref().unwrap_or("?"),
        v.root_complex,
        v.riser
            .as_ref()
            .map(|r| format!(", {r}"))
            .unwrap_or_default()
    ));
    match (&v.card, &v.link) {
        (Some(c), Some(l)) => lines.push(format!("holds: {c}, {}", l.long())),
        (Some(c), None) => lines.push(format!("holds: {c}")),
        _ => lines.push("holds: nothing".into()),
    }
    if let Some(r) = &v.reserved_by {
        lines.push(format!("reserved by: {r}"));
    }
    if !v.bays.is_empty() {
        lines.push(format!("bays: {}", compress_ranges(&v.bays)));
    }
    for p in &v.problems {
        lines.push(format!("problem: {p}"));
    }
    lines.join("\n")
}

/// `A`..`Z`, then `AA`...
fn letter(i: usize) -> String {
    let a = (b'A' + (i % 26) as u8) as char;
    if i < 26 {
        a.to_string()
    } else {
        format!("{}{a}", (b'A' + (i / 26 - 1) as u8) as char)
    }
}

/// `3` for 3.0, `1.5` for 1.5.
pub fn trim(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_run_past_z() {
        assert_eq!(letter(0), "A");
        assert_eq!(letter(25), "Z");
        assert_eq!(letter(26), "AA");
    }
}
