//! The chassis a host source may describe beside (or instead of) its PCI functions: slots by
//! service label and ordinal, PCIe devices with the link they use and could use, drives in
//! their bays, processors and memory. A Redfish tree gives these (sysfs and lspci do not);
//! what a source does not say stays `None`, never invented.
//!
//! [`judge`] gives each device its link verdict from what the source says (in use vs maximum)
//! and the findings for it.

use super::audit::LinkStatus;
use super::model::{Bdf, LinkState};
use crate::finding::{Code, Finding, Subject};
use crate::pcie::Gen;
use serde::Serialize;

/// One slot (`PCIeSlots.Slots[i]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChassisSlot {
    /// The chassis it belongs to (its resource id, `/redfish/v1/Chassis/Tower`).
    pub chassis: String,
    /// `Slot 1`, as printed on the chassis.
    pub label: Option<String>,
    /// `LocationOrdinalValue`: the slot's number.
    pub ordinal: Option<u32>,
    /// `FullLength`, `HalfLength`, `M2`, `U2`, `OEM` ... as the source names it.
    pub slot_type: Option<String>,
    /// The generation the slot supports.
    #[serde(rename = "gen")]
    pub generation: Option<Gen>,
    /// Electrical lanes.
    pub lanes: Option<u8>,
    /// `Enabled`, `Absent`, ... (`Status.State`).
    pub state: Option<String>,
    /// The CPU the slot hangs from (1-based, as the BMC numbers it), where an OEM block says.
    pub cpu: Option<u32>,
    /// The devices in it, by resource id.
    pub devices: Vec<String>,
}

/// A PCI function of a device (`PCIeFunctions`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChassisFunction {
    pub id: String,
    pub function: Option<u8>,
    pub vendor: Option<u16>,
    pub device: Option<u16>,
    pub subsystem_vendor: Option<u16>,
    pub subsystem_device: Option<u16>,
    /// 24-bit class code.
    pub class: Option<u32>,
    /// `MassStorageController`, `NetworkController`, ... as the source names it.
    pub device_class: Option<String>,
    /// Its address where the source gives one (an OEM bus number, never guessed).
    #[serde(serialize_with = "super::model::ser_opt_bdf")]
    pub bdf: Option<Bdf>,
}

/// One PCIe device (`PCIeDevices/*`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChassisDevice {
    /// Resource id (`/redfish/v1/Chassis/Tower/PCIeDevices/Slot1`).
    pub id: String,
    pub name: Option<String>,
    pub manufacturer: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    /// `SingleFunction`, `MultiFunction`, `Simulated`, `Retimer`.
    pub device_type: Option<String>,
    /// The link in use (`PCIeInterface.PCIeType`, `LanesInUse`).
    pub link: Option<LinkState>,
    /// What the device can do (`MaxPCIeType`, `MaxLanes`).
    pub link_max: Option<LinkState>,
    pub link_status: LinkStatus,
    /// The label of the slot it sits in (from the slot's links or the device's own `Slot`).
    pub slot: Option<String>,
    pub cpu: Option<u32>,
    /// Bus and device where an OEM block or id gives them.
    #[serde(serialize_with = "super::model::ser_opt_bdf")]
    pub bdf: Option<Bdf>,
    pub functions: Vec<ChassisFunction>,
}

/// One drive (`Drives/*`), placed by its `PhysicalLocation`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChassisDrive {
    pub id: String,
    pub name: Option<String>,
    pub manufacturer: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    /// `NVMe`, `SAS`, `SATA`.
    pub protocol: Option<String>,
    /// `SSD`, `HDD`.
    pub media: Option<String>,
    pub capacity_bytes: Option<u64>,
    /// `Enabled`, `Absent`, ... (`Status.State`).
    pub state: Option<String>,
    /// `Bay 3`, `Port=1I:Box=1:Bay=1`: where the chassis says it sits.
    pub location: Option<String>,
    /// The bay number (`LocationOrdinalValue`, else the `Bay=N` of an HPE-style label).
    pub bay: Option<u32>,
    /// `Bay`, `Slot`, `Connector` (`LocationType`).
    pub location_type: Option<String>,
    pub cpu: Option<u32>,
    /// The storage subsystems that list it.
    pub storage: Vec<String>,
}

/// One processor (`Processors/*` of type CPU).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChassisCpu {
    pub id: String,
    pub socket: Option<String>,
    pub model: Option<String>,
    pub cores: Option<u32>,
}

/// What a source says about the chassis.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Chassis {
    pub slots: Vec<ChassisSlot>,
    pub devices: Vec<ChassisDevice>,
    pub drives: Vec<ChassisDrive>,
    pub cpus: Vec<ChassisCpu>,
    /// Installed memory (sum of `CapacityMiB` of the modules), MiB.
    pub memory_mib: Option<u64>,
    pub dimms: usize,
}

impl Chassis {
    /// The slot labelled `label`.
    pub fn slot(&self, label: &str) -> Option<&ChassisSlot> {
        self.slots
            .iter()
            .find(|s| s.label.as_deref() == Some(label))
    }
}

fn below(cur: LinkState, max: LinkState) -> (bool, bool) {
    let slow = matches!((cur.speed, max.speed), (Some(c), Some(m)) if c < m);
    let narrow = max.width > 0 && cur.width < max.width;
    (slow, narrow)
}

/// Gives every device its verdict from the link it uses against what it can do, and returns
/// the findings: a link below its maximum is an error (LP0340); a device whose source gives
/// no maximum, or no link, stays unjudged (`unknown`).
pub fn judge(ch: &mut Chassis) -> Vec<Finding> {
    let mut out = Vec::new();
    for d in &mut ch.devices {
        d.link_status = match (d.link, d.link_max) {
            (Some(cur), _) if cur.is_down() => LinkStatus::Down,
            (Some(cur), Some(max)) => {
                let (slow, narrow) = below(cur, max);
                if slow || narrow {
                    let what = match (slow, narrow) {
                        (true, true) => "speed and width",
                        (true, false) => "speed",
                        _ => "width",
                    };
                    out.push(
                        Finding::of(
                            Code::ChassisDowntrained,
                            format!(
                                "{} ({}) runs at {}, its maximum is {} ({what})",
                                d.slot.as_deref().unwrap_or(&d.id),
                                d.model.as_deref().or(d.name.as_deref()).unwrap_or("device"),
                                cur.label(),
                                max.label()
                            ),
                        )
                        .with_help("reseat the device, check riser and cable ratings and the slot's bifurcation")
                        .about(Subject::Node { id: d.id.clone() })
                        .at_node(d.id.clone()),
                    );
                    LinkStatus::Downtrained
                } else {
                    LinkStatus::Ok
                }
            }
            _ => LinkStatus::Unknown,
        };
    }
    out
}

/// The chassis as text: slots, devices, drives.
pub fn render(ch: &Chassis) -> String {
    use std::fmt::Write as _;
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let mut s = String::new();
    if !ch.cpus.is_empty() || ch.memory_mib.is_some() {
        let models: Vec<String> = ch.cpus.iter().filter_map(|c| c.model.clone()).collect();
        let _ = write!(s, "CPUs: {}", ch.cpus.len());
        if let Some(m) = models.first() {
            let m: String = m
                .chars()
                .map(|c| if c.is_control() { '?' } else { c })
                .collect();
            let _ = write!(s, " x {m}");
        }
        if let Some(m) = ch.memory_mib {
            let _ = write!(s, "; memory {} GiB in {} modules", m / 1024, ch.dimms);
        }
        s.push_str("\n\n");
    }
    if !ch.slots.is_empty() {
        s.push_str("Slots\n");
        let mut rows = vec![[
            "slot".to_string(),
            "#".into(),
            "type".into(),
            "gen".into(),
            "lanes".into(),
            "cpu".into(),
            "state".into(),
            "holds".into(),
        ]];
        for sl in &ch.slots {
            let holds: Vec<String> = sl
                .devices
                .iter()
                .map(|id| {
                    ch.devices
                        .iter()
                        .find(|d| &d.id == id)
                        .and_then(|d| d.model.clone().or(d.name.clone()))
                        .unwrap_or_else(|| id.clone())
                })
                .collect();
            rows.push([
                opt(&sl.label),
                sl.ordinal.map(|n| n.to_string()).unwrap_or("-".into()),
                opt(&sl.slot_type),
                sl.generation
                    .map(|g| format!("Gen{}", g.number()))
                    .unwrap_or("-".into()),
                sl.lanes.map(|n| format!("x{n}")).unwrap_or("-".into()),
                sl.cpu.map(|n| n.to_string()).unwrap_or("-".into()),
                opt(&sl.state),
                if holds.is_empty() {
                    "-".into()
                } else {
                    holds.join(", ")
                },
            ]);
        }
        table(&mut s, &rows);
        s.push('\n');
    }
    if !ch.devices.is_empty() {
        s.push_str("PCIe devices\n");
        let mut rows = vec![[
            "device".to_string(),
            "model".into(),
            "slot".into(),
            "bus".into(),
            "link".into(),
            "max".into(),
            "status".into(),
        ]];
        for d in &ch.devices {
            rows.push([
                d.id.rsplit('/').next().unwrap_or(&d.id).to_string(),
                d.model.clone().or(d.name.clone()).unwrap_or("-".into()),
                opt(&d.slot),
                d.bdf.map(|b| b.short()).unwrap_or("unknown".into()),
                d.link.map(|l| l.label()).unwrap_or("unknown".into()),
                d.link_max.map(|l| l.label()).unwrap_or("unknown".into()),
                status_word(d.link_status).to_string(),
            ]);
        }
        table(&mut s, &rows);
        s.push('\n');
    }
    if !ch.drives.is_empty() {
        s.push_str("Drives\n");
        let mut rows = vec![[
            "drive".to_string(),
            "location".into(),
            "bay".into(),
            "protocol".into(),
            "media".into(),
            "state".into(),
            "size".into(),
            "model".into(),
        ]];
        for d in &ch.drives {
            rows.push([
                d.id.rsplit('/').next().unwrap_or(&d.id).to_string(),
                opt(&d.location),
                d.bay.map(|n| n.to_string()).unwrap_or("-".into()),
                opt(&d.protocol),
                opt(&d.media),
                opt(&d.state),
                d.capacity_bytes
                    .map(|b| format!("{:.0} GB", b as f64 / 1e9))
                    .unwrap_or("-".into()),
                opt(&d.model),
            ]);
        }
        table(&mut s, &rows);
        s.push('\n');
    }
    s
}

fn status_word(s: LinkStatus) -> &'static str {
    match s {
        LinkStatus::Ok => "ok",
        LinkStatus::Downtrained => "DOWNTRAINED",
        LinkStatus::Down => "LINK DOWN",
        LinkStatus::Unknown => "unknown",
        _ => "-",
    }
}

fn table<const N: usize>(s: &mut String, rows: &[[String; N]]) {
    // Text from the source lands on a terminal: control characters are shown as `?`.
    let rows: Vec<[String; N]> = rows
        .iter()
        .map(|r| {
            r.clone().map(|c| {
                c.chars()
                    .map(|ch| if ch.is_control() { '?' } else { ch })
                    .collect()
            })
        })
        .collect();
    let mut w = [0usize; N];
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    for r in &rows {
        let mut line = String::from("  ");
        for (i, c) in r.iter().enumerate() {
            line.push_str(c);
            if i + 1 < N {
                line.push_str(&" ".repeat(w[i] - c.chars().count() + 2));
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
}
