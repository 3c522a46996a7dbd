//! A Redfish chassis's drives placed in bays and grouped by controller and bus, and its
//! cards by slot: the facts `learn --redfish` (`learn::redfish`) and the plan-against-chassis
//! diff (`against::chassis`) both read, so the two number bays the same way.

use super::chassis::{Chassis, ChassisDevice, ChassisDrive, ChassisSlot};
use std::collections::BTreeMap;

pub fn slug(s: &str) -> String {
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

pub fn card_of<'a>(ch: &'a Chassis, s: &ChassisSlot) -> Option<&'a ChassisDevice> {
    s.devices
        .iter()
        .find_map(|id| ch.devices.iter().find(|d| &d.id == id))
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
pub enum Bus {
    Nvme,
    /// SAS or SATA, through a storage controller.
    Controller,
}

pub fn bus_of(d: &ChassisDrive) -> Option<Bus> {
    match d.protocol.as_deref()? {
        "NVMe" => Some(Bus::Nvme),
        "SAS" | "SATA" => Some(Bus::Controller),
        _ => None,
    }
}

pub fn present(d: &ChassisDrive) -> bool {
    d.state.as_deref() != Some("Absent")
}

/// The storage subsystem a drive hangs from (the first that lists it).
pub fn storage_of(d: &ChassisDrive) -> Option<&str> {
    d.storage.first().map(String::as_str)
}

/// The storage controller's label: the last segment of its resource id
/// (`Storage RAIDIntegrated`), or a label saying the tree names none.
pub fn controller_label(storage: Option<&str>) -> String {
    match storage {
        Some(s) => format!(
            "Storage {}",
            s.trim_end_matches('/').rsplit('/').next().unwrap_or(s)
        ),
        None => "Storage controller (not named by the tree)".into(),
    }
}

/// A group of bays: the drives one storage controller lists on one bus.
pub struct BayGroup<'a> {
    pub storage: Option<&'a str>,
    pub bus: Bus,
    /// A slot (controller) or root complex (NVMe) id.
    pub id: String,
    pub drives: Vec<PlacedDrive<'a>>,
}

/// The bay groups: drives grouped by storage subsystem and bus; a drive with no protocol
/// (an absent one) joins its subsystem's bus when the subsystem has one. Returns the groups
/// and the bays left out (no bus known).
pub fn bay_groups(ch: &Chassis) -> (Vec<BayGroup<'_>>, Vec<u32>) {
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

pub fn drive_name(d: &ChassisDrive) -> Option<&str> {
    d.model.as_deref().or(d.name.as_deref())
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
        assert_eq!(
            controller_label(Some("/redfish/v1/Systems/1/Storage/RAID\"1")),
            "Storage RAID\"1"
        );
    }
}
