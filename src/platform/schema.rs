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
    /// System vendors the host's DMI reports (`sys/class/dmi/id/sys_vendor`, Redfish
    /// `Manufacturer`); where both the file and the host name one, they must agree too.
    #[serde(default)]
    pub dmi_vendors: Vec<String>,
    #[serde(default, rename = "socket")]
    pub sockets: Vec<SocketDef>,
    #[serde(default, rename = "fabric")]
    pub fabrics: Vec<FabricDef>,
    #[serde(default, rename = "root_complex")]
    pub root_complexes: Vec<RootComplexDef>,
    /// Slot kinds besides `pcie` (the platform's own: daughter cards, controller slots).
    #[serde(default, rename = "slot_kind")]
    pub slot_kinds: Vec<SlotKindDef>,
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
    pub generation: S<Generation>,
    #[serde(default)]
    pub numa_nodes: Vec<u32>,
    /// The CPU this socket carries unless the build names one (an id of platforms/cpus.toml).
    #[serde(default)]
    pub cpu_default: Option<S<String>>,
    /// The CPUs the socket takes (ids of platforms/cpus.toml); empty: any.
    #[serde(default)]
    pub cpus: Vec<S<String>>,
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
    /// At least one.
    pub links: S<u8>,
    /// Per link and direction; finite and above zero.
    pub gbs_per_link: S<f64>,
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
    pub generation: S<Generation>,
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
    pub max_gbs: Option<S<f64>>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

fn yes() -> bool {
    true
}

/// Physical kind of a slot, by id: which cards fit it. Kinds are data: a platform declares
/// its own with `[[slot_kind]]` (a vendor's storage-controller slot, a daughter card, an OCP
/// NIC slot); only `pcie`, the standard card-edge slot, is known to every platform. Ids are
/// lowercase ASCII letters, digits and `-` (checked when the file loads).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize)]
#[serde(transparent)]
pub struct SlotKind(pub String);

impl SlotKind {
    /// The standard PCIe card-edge slot every platform has without declaring it.
    pub const PCIE: &'static str = "pcie";

    pub fn pcie() -> SlotKind {
        SlotKind(Self::PCIE.to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SlotKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A slot kind a platform declares (`[[slot_kind]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotKindDef {
    pub id: S<SlotKind>,
    /// What messages call it (`PERC mini`): "a card does not fit Slot 9 (a PERC mini slot)".
    pub label: String,
    /// The name the chassis views print for a slot of this kind; absent, they print
    /// `Slot N` from the slot's label (as for `pcie`).
    #[serde(default)]
    pub short: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
}

/// A PCIe generation, 1 to 6: checked when the file is parsed, so an impossible one is a
/// located error and later code holds a valid value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Generation(u8);

impl Generation {
    pub fn new(n: u8) -> Option<Generation> {
        crate::pcie::Gen::new(n).map(|_| Generation(n))
    }
    pub fn get(self) -> u8 {
        self.0
    }
    pub fn pcie(self) -> crate::pcie::Gen {
        crate::pcie::Gen::new(self.0).expect("checked when parsed")
    }
}

impl std::fmt::Display for Generation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for Generation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        u8::try_from(v)
            .ok()
            .and_then(Generation::new)
            .ok_or_else(|| {
                serde::de::Error::custom(format!("expected a PCIe generation from 1 to 6, got {v}"))
            })
    }
}

/// A PCIe link width: x1, x2, x4, x8, x12, x16 or x32, checked when the file is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Width(u8);

impl Width {
    pub const X4: Width = Width(4);
    pub fn new(n: u8) -> Option<Width> {
        crate::pcie::valid_width(n).then_some(Width(n))
    }
    pub fn get(self) -> u8 {
        self.0
    }
}

impl std::fmt::Display for Width {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de> Deserialize<'de> for Width {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        u8::try_from(v).ok().and_then(Width::new).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "impossible link width x{v}: expected one of x1, x2, x4, x8, x12, x16, x32"
            ))
        })
    }
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
    /// A kind the platform declares with `[[slot_kind]]`, or `pcie` (the default).
    #[serde(default = "pcie_kind")]
    pub kind: S<SlotKind>,
    pub root_complex: S<String>,
    #[serde(default)]
    pub riser: Option<String>,
    pub electrical: S<Width>,
    pub mechanical: S<Width>,
    #[serde(default)]
    pub height: Option<Height>,
    #[serde(default)]
    pub length: Option<Length>,
    /// Highest generation the riser and slot carry; defaults to the root complex's.
    #[serde(default, rename = "gen")]
    pub generation: Option<S<Generation>>,
    /// The physical slot number the host reports for this slot (sysfs `slots/N`, lspci
    /// `Physical Slot: N`, the Slot Capabilities' number), where a real host shows it.
    #[serde(default)]
    pub slot_number: Option<S<u32>>,
    /// The slot's own root port(s) within its root complex (`0000:00:03.1`), where the
    /// root complex holds several: what tells two places that share a physical slot
    /// number apart (a slot and the integrated PERC on the same x16 block).
    #[serde(default)]
    pub locator: Vec<String>,
    #[serde(default)]
    pub confidence: Confidence,
    #[serde(default)]
    pub source: Option<String>,
}

fn pcie_kind() -> S<SlotKind> {
    S::new(0..0, SlotKind::pcie())
}

/// A PCIe switch on a backplane or board.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchDef {
    pub id: S<String>,
    pub label: String,
    /// A root complex id, or another switch's id (cascaded switches).
    pub uplink: S<String>,
    pub uplink_width: S<Width>,
    #[serde(rename = "gen")]
    pub generation: S<Generation>,
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
    pub width: Width,
    /// Backplane segment name and the highest generation it carries.
    #[serde(default)]
    pub backplane: Option<String>,
    #[serde(default, rename = "backplane_gen")]
    pub backplane_gen: Option<S<Generation>>,
    /// Cables between the uplink and the backplane, and their generation.
    #[serde(default)]
    pub cable: Option<String>,
    #[serde(default, rename = "cable_gen")]
    pub cable_gen: Option<S<Generation>>,
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

fn four() -> Width {
    Width::X4
}

/// A device on the board (LOM, PCH-attached controllers, DMI).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuiltinDef {
    pub id: S<String>,
    pub label: String,
    pub class: DeviceClass,
    pub root_complex: S<String>,
    pub width: S<Width>,
    #[serde(rename = "gen")]
    pub generation: S<Generation>,
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
    /// A host setting (EPYC NPS, L3-as-NUMA): it renumbers NUMA nodes and rewires nothing.
    /// The audit tells its value from the nodes the host reports.
    #[serde(default)]
    pub setting: bool,
    /// A factory variant the audit tells from a host (a riser configuration): its choices
    /// may replace base slots by id (`[[option.choice.slot]]` with a base slot's `id`), and
    /// `place` keeps its default unless `--option` names it, so its search space is the
    /// same as without the option.
    #[serde(default)]
    pub host_variant: bool,
    #[serde(rename = "choice")]
    pub choices: Vec<ChoiceDef>,
}

/// Under a host setting's choice: the NUMA nodes the root complexes of a socket report
/// (`socket = "cpu2"`, `nodes = [1]` under NPS1). A socket the choice does not name keeps
/// the platform's `numa_nodes` and each root complex its `numa_node`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumaDef {
    pub socket: S<String>,
    pub nodes: Vec<u32>,
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
    pub nvme_path_gen: Option<S<Generation>>,
    /// A host setting's NUMA numbering, per socket.
    #[serde(default)]
    pub numa: Vec<NumaDef>,
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
    /// For cards: the slot kinds it fits (ids some platform declares; default `pcie`).
    #[serde(default)]
    pub fits: Vec<S<SlotKind>>,
    #[serde(rename = "gen")]
    pub generation: S<Generation>,
    pub width: S<Width>,
    /// Card edge width (defaults to `width`).
    #[serde(default)]
    pub mechanical: Option<S<Width>>,
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
    pub port_width: Option<Width>,
    #[serde(default)]
    pub switch: Option<String>,
    /// Storage controllers: SAS/SATA lanes and rate per lane (Gb/s).
    #[serde(default)]
    pub storage_lanes: Option<u8>,
    #[serde(default)]
    pub storage_gbps: Option<S<f64>>,
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
    /// The CPU in every socket (an id of platforms/cpus.toml); absent: the platform's default.
    #[serde(default)]
    pub cpu: Option<S<String>>,
    /// The DIMMs' speed (MT/s) where it is below the CPU's (the memory ceiling uses it).
    #[serde(default)]
    pub memory_mts: Option<S<u32>>,
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

/// The most bay numbers one list may name, and all the lists of one platform or build
/// together: bounds on memory and time whatever a file says (`"0-65535"` repeated, or a
/// range of four billion numbers).
pub const MAX_LIST_BAYS: usize = 1 << 16;
pub const MAX_TOTAL_BAYS: usize = 1 << 20;

/// Parses `"0-11"`, `"3"`, `"0,2,4-6"` into bay numbers (at most [`MAX_LIST_BAYS`]).
pub fn parse_bay_list(s: &str) -> Result<Vec<crate::topology::BayNumber>, String> {
    use crate::topology::BayNumber;
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        if out.len() > MAX_LIST_BAYS {
            break;
        }
        if part.is_empty() {
            return Err(format!("empty item in bay list `{s}`"));
        }
        let bad = || format!("expected a bay number or range like `0-11`, got `{part}`");
        match part.split_once('-') {
            Some((a, b)) => {
                let a: BayNumber = a.trim().parse().map_err(|_| bad())?;
                let b: BayNumber = b.trim().parse().map_err(|_| bad())?;
                if b < a {
                    return Err(format!("bay range `{part}` runs backwards"));
                }
                // Bounded before it is made: a range may span four billion numbers.
                if (b - a) as usize >= MAX_LIST_BAYS + 1 - out.len().min(MAX_LIST_BAYS) {
                    return Err(format!("bay list names more than {MAX_LIST_BAYS} bays"));
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    if out.len() > MAX_LIST_BAYS {
        return Err(format!("bay list names more than {MAX_LIST_BAYS} bays"));
    }
    Ok(out)
}

/// The first list (by position) at which the lists together name more than
/// [`MAX_TOTAL_BAYS`] bays, if they do. Work is bounded by the limit, not the input.
pub fn over_total_bays<'a>(lists: impl IntoIterator<Item = &'a str>) -> Option<usize> {
    let mut total = 0usize;
    for (i, l) in lists.into_iter().enumerate() {
        total += parse_bay_list(l).map_or(0, |v| v.len());
        if total > MAX_TOTAL_BAYS {
            return Some(i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{over_total_bays, parse_bay_list};

    #[test]
    fn bay_lists() {
        assert_eq!(parse_bay_list("0-3").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_bay_list("1, 4-5").unwrap(), vec![1, 4, 5]);
        assert!(parse_bay_list("5-1").is_err());
        assert!(parse_bay_list("a").is_err());
        assert!(parse_bay_list("1,,2").is_err());
        assert_eq!(parse_bay_list("0-65535").unwrap().len(), 65536);
        assert!(parse_bay_list("0-65535,0").is_err());
        // Numbers past 65,535 (a generated 100,000-bay chassis); a range's span is bounded
        // before anything is made.
        assert_eq!(parse_bay_list("99998-99999").unwrap(), vec![99_998, 99_999]);
        assert!(parse_bay_list("0-4000000000").is_err());
        assert!(parse_bay_list("5,0-65535").is_err());
        let many = vec!["0-65535"; 17];
        assert_eq!(over_total_bays(many.iter().copied()), Some(16));
        assert_eq!(over_total_bays(many[..16].iter().copied()), None);
    }
}
