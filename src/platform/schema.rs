//! The file formats, as serde structs: platform files, the parts catalogue and build files.
//! Every struct denies unknown fields; values that later checks point at are `Spanned`.
//! `docs/FILES.md` documents the formats with examples.

use crate::topology::{Confidence, DeviceClass, FabricKind, Perf};
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

pub type S<T> = Spanned<T>;

// No `#[serde(flatten)]` anywhere: serde cannot deny unknown fields through it, and
// `Spanned` values lose their spans when buffered. Shared fields are written out instead.

// ---------------------------------------------------------------- platform files

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformFile {
    pub id: S<String>,
    pub name: String,
    /// `1U`, `2U`.
    pub form: String,
    #[serde(default)]
    pub source: Option<String>,
    /// Product names the host's DMI reports (`sys/class/dmi/id/product_name`, e.g.
    /// `PowerEdge R740xd`), matched whole and case-insensitively to tell the platform of a host.
    #[serde(default)]
    pub dmi_names: Vec<String>,
    #[serde(default, rename = "socket")]
    pub sockets: Vec<SocketDef>,
    #[serde(default, rename = "fabric")]
    pub fabrics: Vec<FabricDef>,
    #[serde(default, rename = "root_complex")]
    pub root_complexes: Vec<RootComplexDef>,
    #[serde(default, rename = "slot")]
    pub slots: Vec<SlotDef>,
    #[serde(default, rename = "switch")]
    pub switches: Vec<SwitchDef>,
    #[serde(default, rename = "bays")]
    pub bays: Vec<BayGroupDef>,
    #[serde(default, rename = "builtin")]
    pub builtins: Vec<BuiltinDef>,
    #[serde(default, rename = "option")]
    pub options: Vec<OptionDef>,
    /// Rules about which cards go where (service manual tables).
    #[serde(default, rename = "card_rule")]
    pub card_rules: Vec<CardRule>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SocketDef {
    pub id: S<String>,
    pub label: String,
    pub index: u8,
    pub cpu: String,
    pub lanes: S<u16>,
    #[serde(rename = "gen")]
    pub generation: S<u8>,
    #[serde(default)]
    pub numa_nodes: Vec<u32>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricDef {
    pub kind: FabricKind,
    pub between: S<[S<String>; 2]>,
    pub links: u8,
    /// Per link and direction.
    pub gbs_per_link: f64,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RootComplexDef {
    pub id: S<String>,
    pub label: String,
    pub socket: S<String>,
    pub lanes: S<u16>,
    #[serde(rename = "gen")]
    pub generation: S<u8>,
    #[serde(default)]
    pub numa_node: Option<u32>,
    /// Splits the complex supports, e.g. `["x16", "x8x8", "x4x4x4x4"]`.
    #[serde(default)]
    pub bifurcation: Vec<String>,
    /// Whether its lanes count against the socket's `lanes` (false for DMI, which Xeon SP
    /// has beside its 48 PCIe lanes).
    #[serde(default = "yes")]
    pub in_socket_budget: bool,
    /// Bus address prefixes the audit uses to match a live root port (`0000:17`).
    #[serde(default)]
    pub locator: Vec<String>,
    /// Throughput limit of the root complex per direction, GB/s, where the platform states
    /// one (the bandwidth analysis caps everything below it).
    #[serde(default)]
    pub max_gbs: Option<f64>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

fn yes() -> bool {
    true
}

/// Physical kind of a slot: which cards fit it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum SlotKind {
    /// A standard PCIe card edge slot.
    Pcie,
    /// Dell's integrated storage controller slot (PERC mini).
    MiniPerc,
    /// Dell network daughter card.
    Rndc,
    /// OCP 3.0 NIC slot.
    Ocp3,
    /// R7415 mezzanine.
    Mezzanine,
    /// Front PERC (R6525).
    FrontPerc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Height {
    Low,
    Full,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Length {
    Half,
    Full,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotDef {
    pub id: S<String>,
    pub label: String,
    #[serde(default = "pcie_kind")]
    pub kind: SlotKind,
    pub root_complex: S<String>,
    #[serde(default)]
    pub riser: Option<String>,
    pub electrical: S<u8>,
    pub mechanical: S<u8>,
    #[serde(default)]
    pub height: Option<Height>,
    #[serde(default)]
    pub length: Option<Length>,
    /// Highest generation the riser and slot carry; defaults to the root complex's.
    #[serde(default, rename = "gen")]
    pub generation: Option<S<u8>>,
    /// The physical slot number the host reports for this slot (sysfs `slots/N`, lspci
    /// `Physical Slot: N`, the Slot Capabilities' number), where a real host shows it.
    #[serde(default)]
    pub slot_number: Option<S<u32>>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

fn pcie_kind() -> SlotKind {
    SlotKind::Pcie
}

/// A PCIe switch on a backplane or board.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchDef {
    pub id: S<String>,
    pub label: String,
    /// A root complex id, or another switch's id (cascaded switches).
    pub uplink: S<String>,
    pub uplink_width: S<u8>,
    #[serde(rename = "gen")]
    pub generation: S<u8>,
    #[serde(default)]
    pub part: Option<String>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

/// Drive interfaces a bay accepts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Hash, PartialOrd, Ord,
)]
#[serde(rename_all = "lowercase")]
pub enum Interface {
    Nvme,
    Sas,
    Sata,
}

impl Interface {
    pub fn name(self) -> &'static str {
        match self {
            Interface::Nvme => "NVMe",
            Interface::Sas => "SAS",
            Interface::Sata => "SATA",
        }
    }
}

/// How a group of bays reaches the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// NVMe cabled straight to lanes of a root complex (`to` = root complex id).
    Direct,
    /// NVMe behind a switch, one downstream port per bay (`to` = switch id).
    Switch,
    /// NVMe through an extender card: bay k of the group on the card's port k (`to` = slot).
    Card,
    /// SAS/SATA through the storage controller in a slot (`to` = slot id).
    Controller,
}

/// A group of bays that share a backplane segment and an uplink.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BayGroupDef {
    /// `"0-11"` or `"0,2,4"`.
    pub bays: S<String>,
    /// `front` or `rear`.
    #[serde(default = "front")]
    pub location: String,
    /// `2.5` or `3.5` (inches).
    pub size: String,
    pub interfaces: Vec<Interface>,
    pub via: Via,
    pub to: S<String>,
    /// Lanes per NVMe bay.
    #[serde(default = "four")]
    pub width: u8,
    /// Backplane segment name and the highest generation it carries.
    #[serde(default)]
    pub backplane: Option<String>,
    #[serde(default, rename = "backplane_gen")]
    pub backplane_gen: Option<S<u8>>,
    /// Cables between the uplink and the backplane, and their generation.
    #[serde(default)]
    pub cable: Option<String>,
    #[serde(default, rename = "cable_gen")]
    pub cable_gen: Option<S<u8>>,
    /// The card this option ships in the `to` slot (`show` draws it; a build must place it).
    #[serde(default)]
    pub card: Option<String>,
    /// What to fit to go faster (named when a drive's generation drops on this path).
    #[serde(default)]
    pub upgrade: Option<String>,
    /// Chassis geometry hint for the panel (front or rear) this group sits in: how many rows
    /// of bays it has. Derived from bay size, count and location when absent (`laneplan bays`).
    #[serde(default)]
    pub rows: Option<u8>,
    /// Whether bay numbers run along the rows (default) or down the columns.
    #[serde(default)]
    pub order: Option<BayOrder>,
    /// Physical slot numbers the host reports for these bays' ports, in the same syntax as
    /// `bays` and with one number per bay, in bay order (`bays = "0-11"`,
    /// `slot_numbers = "160-171"`). NVMe bays only.
    #[serde(default)]
    pub slot_numbers: Option<S<String>>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

/// How bay numbers run across a panel of several rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BayOrder {
    /// Left to right, then the next row down (0 1 2 3 / 4 5 6 7).
    #[default]
    RowMajor,
    /// Top to bottom, then the next column to the right (0 3 6 9 / 1 4 7 10).
    ColumnMajor,
}

fn front() -> String {
    "front".into()
}

fn four() -> u8 {
    4
}

/// A device on the board (LOM, PCH-attached controllers, DMI).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuiltinDef {
    pub id: S<String>,
    pub label: String,
    pub class: DeviceClass,
    pub root_complex: S<String>,
    pub width: S<u8>,
    #[serde(rename = "gen")]
    pub generation: S<u8>,
    #[serde(default)]
    pub mps: Option<u16>,
    /// The PCH hangs below (DMI).
    #[serde(default)]
    pub pch: bool,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

/// A platform option (`front = "12nvme-12sas"`) with its choices.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionDef {
    pub key: S<String>,
    pub label: String,
    pub default: S<String>,
    #[serde(rename = "choice")]
    pub choices: Vec<ChoiceDef>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChoiceDef {
    pub value: S<String>,
    pub label: String,
    #[serde(default, rename = "slot")]
    pub slots: Vec<SlotDef>,
    #[serde(default, rename = "switch")]
    pub switches: Vec<SwitchDef>,
    #[serde(default, rename = "bays")]
    pub bays: Vec<BayGroupDef>,
    #[serde(default, rename = "builtin")]
    pub builtins: Vec<BuiltinDef>,
    /// Slot ids this choice reserves (its extender cards sit there).
    #[serde(default)]
    pub reserves: Vec<S<String>>,
    /// Sets the backplane and cable generation of every NVMe bay group (a backplane kit).
    #[serde(default)]
    pub nvme_path_gen: Option<S<u8>>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

/// Service-manual rule: a card class goes in these slots, in this priority, at most `max`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardRule {
    pub class: DeviceClass,
    /// Applies to double-width cards only.
    #[serde(default)]
    pub double_width: bool,
    pub slots: Vec<S<String>>,
    #[serde(default)]
    pub max: Option<usize>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

// ---------------------------------------------------------------- parts catalogue

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartsFile {
    #[serde(rename = "part")]
    pub parts: Vec<PartDef>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartDef {
    pub id: S<String>,
    pub name: String,
    pub class: DeviceClass,
    /// For drives: the interface it speaks.
    #[serde(default)]
    pub interface: Option<Interface>,
    /// For drives: `2.5` / `3.5` / `m.2`.
    #[serde(default)]
    pub size: Option<String>,
    /// For cards: the slot kinds it fits.
    #[serde(default)]
    pub fits: Vec<SlotKind>,
    #[serde(rename = "gen")]
    pub generation: S<u8>,
    pub width: S<u8>,
    /// Card edge width (defaults to `width`).
    #[serde(default)]
    pub mechanical: Option<S<u8>>,
    #[serde(default)]
    pub height: Option<Height>,
    #[serde(default)]
    pub length: Option<Length>,
    #[serde(default)]
    pub double_width: bool,
    /// Extender cards: downstream ports for drives, their width, and whether a switch sits
    /// on the card (otherwise the slot is bifurcated).
    #[serde(default)]
    pub ports: Option<u8>,
    #[serde(default)]
    pub port_width: Option<u8>,
    #[serde(default)]
    pub switch: Option<String>,
    /// Storage controllers: SAS/SATA lanes and rate per lane (Gb/s).
    #[serde(default)]
    pub storage_lanes: Option<u8>,
    #[serde(default)]
    pub storage_gbps: Option<f64>,
    #[serde(default)]
    pub perf: Option<Perf>,
    /// The PCI identities this part shows on a host: `id = "1000:0097"` (vendor:device) and,
    /// where one chip serves several products, `subsystem = "1028:1f53"`.
    #[serde(default)]
    pub pci: Vec<PciIdDef>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

/// One PCI identity of a part.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PciIdDef {
    /// `vendor:device` in hex, as `lspci -nn` prints it (`1000:0097`).
    pub id: S<String>,
    /// `subsystem vendor:device` in hex (`1028:1f53`), where it tells products apart.
    #[serde(default)]
    pub subsystem: Option<S<String>>,
    /// Where the ids come from (pci.ids, a real capture, a vendor document).
    #[serde(default)]
    pub source: Option<String>,
}

// ---------------------------------------------------------------- build files

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildFile {
    pub platform: S<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub options: BTreeMap<String, S<String>>,
    #[serde(default, rename = "slot")]
    pub slots: Vec<SlotFill>,
    #[serde(default, rename = "bay")]
    pub bays: Vec<BayFill>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotFill {
    pub slot: S<String>,
    pub part: S<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BayFill {
    /// `"12-23"`, `"3"` or `"0,2,4"`.
    pub bays: S<String>,
    pub part: S<String>,
}

/// Parses `"0-11"`, `"3"`, `"0,2,4-6"` into bay numbers.
pub fn parse_bay_list(s: &str) -> Result<Vec<u16>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        if part.is_empty() {
            return Err(format!("empty item in bay list `{s}`"));
        }
        let bad = || format!("expected a bay number or range like `0-11`, got `{part}`");
        match part.split_once('-') {
            Some((a, b)) => {
                let a: u16 = a.trim().parse().map_err(|_| bad())?;
                let b: u16 = b.trim().parse().map_err(|_| bad())?;
                if b < a {
                    return Err(format!("bay range `{part}` runs backwards"));
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::parse_bay_list;

    #[test]
    fn bay_lists() {
        assert_eq!(parse_bay_list("0-3").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_bay_list("1, 4-5").unwrap(), vec![1, 4, 5]);
        assert!(parse_bay_list("5-1").is_err());
        assert!(parse_bay_list("a").is_err());
        assert!(parse_bay_list("1,,2").is_err());
    }
}
