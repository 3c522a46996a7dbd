//! What a live host looks like before it becomes a [`Topology`](crate::topology::Topology):
//! the facts both readers (sysfs and lspci dumps) produce, source-agnostic.

use crate::pcie::Gen;
use serde::Serialize;

pub use crate::pci::{Bdf, ClassCode, PciIds, RootBus, ser_bdf, ser_ids, ser_opt_bdf};

/// A link as one end reports it. `speed: None` is "Unknown"; `width: 0` is a link that is down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LinkState {
    #[serde(rename = "gen", skip_serializing_if = "Option::is_none")]
    pub speed: Option<Gen>,
    pub width: u8,
}

impl LinkState {
    pub fn is_down(&self) -> bool {
        self.width == 0 || self.speed.is_none()
    }

    /// `8.0 GT/s x4`, `link down`.
    pub fn label(&self) -> String {
        match self.speed {
            Some(g) if self.width > 0 => format!("{} x{}", g.sysfs_speed(), self.width),
            _ => "link down".to_string(),
        }
    }

    pub fn gts(&self) -> f64 {
        self.speed.map(|g| g.gts()).unwrap_or(0.0)
    }
}

/// Parses a link speed in every format the kernel and lspci print: `8 GT/s`, `8.0 GT/s PCIe`,
/// `2.5 GT/s`, `8GT/s`, `Unknown`, `Unknown speed`, `unknown`. `Ok(None)` is a known "unknown";
/// `Err` is garbage.
pub fn parse_speed(s: &str) -> Result<Option<Gen>, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    if lower.starts_with("unknown") {
        return Ok(None);
    }
    let num = lower
        .split("gt/s")
        .next()
        .map(str::trim)
        .filter(|_| lower.contains("gt/s"))
        .ok_or_else(|| format!("not a link speed: {t:?}"))?;
    let v: f64 = num
        .parse()
        .map_err(|_| format!("not a link speed: {t:?}"))?;
    Gen::from_gts(v)
        .map(Some)
        .ok_or_else(|| format!("no PCIe generation runs at {v} GT/s"))
}

/// Parses a width: `4`, `x4`, `0` (down).
pub fn parse_width(s: &str) -> Result<u8, String> {
    let t = s.trim().trim_start_matches(['x', 'X']);
    let w: u8 = t.parse().map_err(|_| format!("not a link width: {s:?}"))?;
    if w == 0 || crate::pcie::valid_width(w) {
        Ok(w)
    } else {
        Err(format!("x{w} is not a PCIe link width"))
    }
}

/// AER counters of one function (`aer_dev_*`: `NAME count` lines plus `TOTAL_ERR_*`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Aer {
    pub correctable: u64,
    pub nonfatal: u64,
    pub fatal: u64,
    /// Non-zero counters by name, for the report (`RxErr 3`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<(String, u64)>,
}

/// PCIe port type from the Express capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PortType {
    Endpoint,
    LegacyEndpoint,
    RootPort,
    Upstream,
    Downstream,
    PcieToPci,
    PciToPcie,
    IntegratedEndpoint,
    EventCollector,
}

impl PortType {
    /// From the 4-bit device/port type field.
    pub fn from_field(v: u8) -> Option<PortType> {
        Some(match v {
            0 => PortType::Endpoint,
            1 => PortType::LegacyEndpoint,
            4 => PortType::RootPort,
            5 => PortType::Upstream,
            6 => PortType::Downstream,
            7 => PortType::PcieToPci,
            8 => PortType::PciToPcie,
            9 => PortType::IntegratedEndpoint,
            10 => PortType::EventCollector,
            _ => return None,
        })
    }
}

/// A port's Slot Capabilities register, as lspci prints it under `SltCap:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SlotCap {
    /// `Slot #N` (0 when the firmware leaves it unset).
    pub number: Option<u32>,
    /// `HotPlug+`
    pub hotplug: bool,
}

/// One PCI function, as read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PciFunction {
    pub bdf: Option<Bdf>,
    pub vendor: Option<u16>,
    pub device: Option<u16>,
    pub subsystem_vendor: Option<u16>,
    pub subsystem_device: Option<u16>,
    /// The subsystem's name as the source gives it (`Dell HBA330 Mini`; lspci -vv prints it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subsystem_name: Option<String>,
    /// 24-bit class code (`0x010802`).
    pub class: Option<u32>,
    pub revision: Option<u8>,
    pub driver: Option<String>,
    pub numa_node: Option<u32>,
    pub local_cpulist: Option<String>,
    pub link: Option<LinkState>,
    pub link_max: Option<LinkState>,
    /// Secondary and subordinate bus of a bridge.
    pub bus_range: Option<(u8, u8)>,
    /// Parent function from the canonical sysfs path (lspci dumps have none).
    pub parent: Option<Bdf>,
    /// Ancestors in the canonical path that the device list lacks (partial captures).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hidden_ancestors: Vec<Bdf>,
    pub slot: Option<String>,
    /// The port's Slot Capabilities: its physical slot number (`Slot #161`) and whether it
    /// is hot-plug capable (`HotPlug+`). lspci dumps show them; sysfs does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot_cap: Option<SlotCap>,
    pub aer: Option<Aer>,
    pub mps: Option<u16>,
    pub port_type: Option<PortType>,
    /// The name the source gave (lspci prints one).
    pub name: Option<String>,
    /// Header type 1 (PCI-to-PCI bridge).
    pub is_bridge: bool,
    /// The current link in GB/s where the source gives only that figure (hwloc's
    /// `pci_link_speed`): neither generation nor width, so never judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_gbps: Option<f64>,
    /// The kernel's network interfaces of the function (sysfs `net/`: `eth0`), sorted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub net: Vec<String>,
}

impl PciFunction {
    pub fn new(bdf: Bdf) -> Self {
        PciFunction {
            bdf: Some(bdf),
            ..Default::default()
        }
    }

    pub fn bdf(&self) -> Bdf {
        self.bdf.unwrap_or(Bdf {
            domain: 0,
            bus: 0,
            dev: 0,
            func: 0,
        })
    }

    /// `1028:1f53`
    pub fn subsystem_ids(&self) -> Option<String> {
        match (self.subsystem_vendor, self.subsystem_device) {
            (Some(v), Some(d)) => Some(format!("{v:04x}:{d:04x}")),
            _ => None,
        }
    }

    /// The physical slot number the host reports for this function: the Slot Capabilities'
    /// number of a port, else a numeric `Physical Slot` (sysfs `slots/*/address`, lspci).
    pub fn slot_number(&self) -> Option<u32> {
        self.slot_cap_number()
            .or_else(|| self.slot.as_deref().and_then(|s| s.trim().parse().ok()))
            .filter(|&n| n != 0)
    }

    /// The Slot Capabilities' physical slot number, where set (not 0).
    pub fn slot_cap_number(&self) -> Option<u32> {
        self.slot_cap.and_then(|c| c.number).filter(|&n| n != 0)
    }

    pub fn ids(&self) -> String {
        match (self.vendor, self.device) {
            (Some(v), Some(d)) => format!("{v:04x}:{d:04x}"),
            _ => "????:????".to_string(),
        }
    }
}

/// A block device (namespace or partition) and what sits on it.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct BlockDev {
    pub name: String,
    /// In 512-byte sectors, as the kernel counts.
    pub size_sectors: Option<u64>,
    pub logical_block_size: Option<u32>,
    /// Controllers it is reached through (`nvme1`, `nvme2` for a multipath namespace).
    pub controllers: Vec<String>,
    pub partitions: Vec<String>,
    pub holders: Vec<String>,
    /// Mount points of this device or its partitions.
    pub mounts: Vec<String>,
    /// Paths of a multipath head (`nvme1c1n1` through `nvme1`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<NsPath>,
    /// Set for a partition: the disk it belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// One path of a multipath namespace.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct NsPath {
    pub name: String,
    pub controller: String,
    /// `numa_nodes` of the path (`0-1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numa_nodes: Option<String>,
}

impl BlockDev {
    pub fn size_bytes(&self) -> Option<u64> {
        self.size_sectors.map(|s| s.saturating_mul(512))
    }
}

/// An NVMe controller (`/sys/class/nvme/nvmeX`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct NvmeController {
    pub name: String,
    pub pci: Option<Bdf>,
    pub transport: Option<String>,
    pub address: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub numa_node: Option<u32>,
    pub subsystem: Option<String>,
    /// Block devices reached through it (namespaces, not partitions).
    pub namespaces: Vec<String>,
}

/// An NVMe subsystem (`/sys/class/nvme-subsystem`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct NvmeSubsystem {
    pub name: String,
    pub nqn: Option<String>,
    pub iopolicy: Option<String>,
    pub controllers: Vec<String>,
    pub namespaces: Vec<String>,
}

/// A disk as an OS-level source (hwloc) names it, with the PCI function it sits below.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct OsDisk {
    /// `nvme0n1`, `sda`.
    pub name: String,
    /// The PCI function above it (its controller).
    #[serde(serialize_with = "ser_opt_bdf")]
    pub pci: Option<Bdf>,
    /// `Disk`, `NVM`, as the source says.
    pub subtype: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub size_bytes: Option<u64>,
    pub sector_size: Option<u32>,
}

/// Everything read from one host, before it becomes a Topology.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HostScan {
    pub functions: Vec<PciFunction>,
    pub controllers: Vec<NvmeController>,
    pub subsystems: Vec<NvmeSubsystem>,
    pub blocks: Vec<BlockDev>,
    /// (device, mount point, fs type) from /proc/mounts.
    pub mounts: Vec<(String, String, String)>,
    /// True when the parent of each function came from the source (sysfs), false when it
    /// must be derived from bus ranges (lspci dumps).
    pub has_parents: bool,
    /// True when the source gives current link speeds only, no maxima (hwloc): links are
    /// `unknown`, not judged.
    #[serde(skip)]
    pub current_links_only: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_in_every_format() {
        for (s, g) in [
            ("8 GT/s", Some(Gen::G3)),
            ("8.0 GT/s PCIe", Some(Gen::G3)),
            ("2.5 GT/s", Some(Gen::G1)),
            ("2.5 GT/s PCIe", Some(Gen::G1)),
            ("16.0 GT/s PCIe", Some(Gen::G4)),
            ("8GT/s", Some(Gen::G3)),
            ("5GT/s", Some(Gen::G2)),
            ("Unknown", None),
            ("Unknown speed", None),
            ("unknown", None),
        ] {
            assert_eq!(parse_speed(s), Ok(g), "{s}");
        }
        assert!(parse_speed("fast").is_err());
        assert!(parse_speed("7 GT/s").is_err());
        assert_eq!(parse_width("x4"), Ok(4));
        assert_eq!(parse_width("0"), Ok(0));
        assert!(parse_width("3").is_err());
        assert!(parse_width("x").is_err());
    }

    #[test]
    fn bdfs() {
        let b = Bdf::parse("0000:3b:00.1").unwrap();
        assert_eq!(b.to_string(), "0000:3b:00.1");
        assert_eq!(Bdf::parse("3b:00.1"), Some(b));
        assert_eq!(Bdf::parse("052e:78:00.0").unwrap().domain, 0x52e);
        assert_eq!(Bdf::parse("3b:20.0"), None);
        assert_eq!(Bdf::parse("zz:00.0"), None);
        assert_eq!(Bdf::parse("pci0000:00"), None);
    }
}
