//! `laneplan learn`: a platform file, a parts file and a build file written from what a host
//! (or a capture, or an `lspci -vvnn` dump) shows.
//!
//! The host proves its root ports (address, NUMA node, generation and width), the ports'
//! slot numbers and hot-plug capability, its switches and what sits below each port (ids,
//! class, link). From that:
//! * one root complex per root port that leads anywhere, located by the port's address and
//!   the buses below it (`locator`), in a socket per NUMA node;
//! * a hot-plug port holding an NVMe drive or nothing, and any port holding an NVMe drive, is
//!   a bay (direct, or behind its switch), bays numbered in slot-number order;
//! * a port with a physical slot number is a slot (empty, or with its card as a part);
//!   a port without one holds an onboard device (`builtin`);
//! * devices become parts: a catalogue part whose `pci` ids match, else a new part.
//!
//! Values the host does not prove (socket grouping, form factor, bay size, labels, the CPU
//! model of an lspci dump) are `confidence = "inferred"` with a comment saying what to
//! check; values read off the host are `confidence = "measured"`. Output is deterministic:
//! everything is ordered by PCI address or slot number, ids derive from addresses and ids.

use crate::finding::Finding;
use crate::host::audit::{Audit, AuditOptions, DriveReport, FunctionReport};
use crate::host::model::{HostScan, SlotCap};
use crate::host::tree::{FnKind, device_class};
use crate::host::{fs, lspci, sysfs};
use crate::pci::{Bdf, ClassCode, PciIds, RootBus};
use crate::pciids as names;
use crate::pciids::PciNames;
use crate::platform::Catalog;
use crate::platform::schema::SlotKind;
use crate::source::InputError;
use crate::topology::DeviceClass;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod compare;
pub mod redfish;
#[doc(hidden)]
pub mod roundtrip;
mod sockets;
mod write;
pub use compare::{Difference, DifferenceKind, Differences, render_differences};
pub use sockets::SocketFacts;
pub use write::write_set;

/// A platform id `learn` may write: the id grammar the loader accepts
/// ([`crate::platform::valid_id`]: lowercase ASCII letters, digits, `-`, `_`, `.`, starting
/// with a letter or digit), at most [`LearnedId::MAX_LEN`] bytes. The file names
/// `<id>.toml` and `<id>-parts.toml` are built from nothing else, so they stay inside the
/// output directory and load.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LearnedId(String);

impl LearnedId {
    /// Longest id: `<id>-parts.toml` stays well below a file name's 255 bytes.
    pub const MAX_LEN: usize = 128;

    /// Validates an id given by the user (`--id`); the error says what is wrong.
    pub fn parse(s: &str) -> Result<LearnedId, String> {
        if s.is_empty() {
            return Err("the id is empty".into());
        }
        if s.len() > Self::MAX_LEN {
            return Err(format!(
                "the id is {} bytes long; at most {} (it names files)",
                s.len(),
                Self::MAX_LEN
            ));
        }
        if !crate::platform::valid_id(s) {
            let bad: String = s
                .chars()
                .filter(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(*c)))
                .map(|c| format!("{:?}", c))
                .collect::<Vec<_>>()
                .join(" ");
            let why = if bad.is_empty() {
                "it must start with a lowercase letter or a digit".to_string()
            } else {
                format!("it holds {bad}")
            };
            return Err(format!(
                "`{}` is not a platform id: {why}; an id is lowercase ASCII letters, digits, `-`, `_` or `.`, starting with a letter or digit (the loader accepts no other, and the id names the files written)",
                s.escape_debug()
            ));
        }
        Ok(LearnedId(s.to_string()))
    }

    /// The id for a DMI product name: `learned-` and the name made to fit the grammar
    /// (accented Latin letters transliterated, other characters dropped); a name with
    /// nothing left gets `learned-host-` and a stable hash of the name.
    pub fn from_product(product: &str) -> LearnedId {
        let s = slug(&transliterate(product));
        if s.is_empty() {
            // FNV-1a: the same name, the same id, on every machine.
            let h = product.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
            return LearnedId(format!("learned-host-{:08x}", h as u32));
        }
        LearnedId(format!("learned-{s}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for LearnedId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Accented Latin letters as their base letters (`é` -> `e`, `ß` -> `ss`); other
/// characters unchanged.
fn transliterate(s: &str) -> String {
    const TABLE: &[(&str, &str)] = &[
        ("àáâãäåāăą", "a"),
        ("çćĉċč", "c"),
        ("ďđ", "d"),
        ("èéêëēĕėęě", "e"),
        ("ĝğġģ", "g"),
        ("ĥħ", "h"),
        ("ìíîïĩīĭįı", "i"),
        ("ĵ", "j"),
        ("ķ", "k"),
        ("ĺļľŀł", "l"),
        ("ñńņňŉ", "n"),
        ("òóôõöøōŏő", "o"),
        ("ŕŗř", "r"),
        ("śŝşš", "s"),
        ("ţťŧ", "t"),
        ("ùúûüũūŭůűų", "u"),
        ("ŵ", "w"),
        ("ýÿŷ", "y"),
        ("źżž", "z"),
        ("æ", "ae"),
        ("œ", "oe"),
        ("ß", "ss"),
        ("þ", "th"),
        ("ð", "d"),
    ];
    let mut out = String::new();
    for c in s.chars() {
        let lower: Vec<char> = c.to_lowercase().collect();
        let l = lower.first().copied().unwrap_or(c);
        match TABLE.iter().find(|(from, _)| from.contains(l)) {
            Some((_, to)) if !c.is_ascii() => out.push_str(to),
            _ => out.push(c),
        }
    }
    out
}

/// What `learn` writes: file names (relative to the output directory) and their text.
#[derive(Debug, Clone, PartialEq)]
pub struct Learned {
    /// The platform id (`learned-poweredge-r7525`).
    pub id: LearnedId,
    /// `platform/<id>.toml`
    pub platform: String,
    /// `platform/<id>-parts.toml`, when the host holds parts the catalogue lacks.
    pub parts: Option<String>,
    /// `build.toml`
    pub build: String,
    /// Counts for the summary line.
    pub summary: Summary,
    /// Where the learned platform and the built-in one of the same model differ, when the
    /// catalogue has one.
    pub differences: Option<Differences>,
    /// What the source left unsaid and how learn filled it (`learn --redfish`: drives placed
    /// by the order their controller lists them).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Captures (hosts, dumps) merged into the platform.
    pub captures: usize,
    pub sockets: usize,
    /// What the socket count stands on: `physical_package_id` (sysfs), `cpu-functions`
    /// (an lspci dump's per-socket CPU functions) or `numa-nodes` (neither: one per node).
    pub sockets_from: String,
    pub numa_nodes: usize,
    pub root_complexes: usize,
    pub slots: usize,
    pub switches: usize,
    pub bays: usize,
    pub builtins: usize,
    pub parts_reused: usize,
    pub parts_new: usize,
    /// Parts the build places (slots and bays filled).
    pub planned: usize,
    pub skipped_ports: usize,
}

/// Options: the platform id to write (derived from the DMI product when absent).
#[derive(Debug, Clone, Default)]
pub struct LearnOptions {
    pub id: Option<LearnedId>,
    /// A built-in platform to compare with (else the one whose `dmi_names` hold the host's
    /// product name, if any).
    pub compare: Option<String>,
}

/// A host read for learning: its scan (slot capabilities), its audit (tree, names), what
/// it is, the CPU model and the sockets where the source shows them.
pub struct HostView {
    pub scan: HostScan,
    pub audit: Audit,
    pub cpu: Option<String>,
    /// Sockets as the CPUs themselves show them, where the source does.
    pub sockets: Option<SocketFacts>,
    /// `sysfs:/`, `lspci:FILE`.
    pub source: String,
}

/// Reads a sysfs tree (`/` for this host, or a capture); names from `pci_ids` when given
/// (falling back to the host's own or the embedded database when it cannot be read: the CLI
/// opens a user's `--pci-ids` with [`names::IdsFile::open`] and uses [`read_sysfs_with`]).
pub fn read_sysfs(root: &Path, pci_ids: Option<&Path>) -> HostView {
    let fsys = fs::SysFs::new(root);
    let names = crate::host::names_for_root(&fsys, pci_ids);
    read_sysfs_in(&fsys, names.as_ref())
}

/// Reads a sysfs tree with the names given, else the host's own pci.ids.
pub fn read_sysfs_with(root: &Path, names: Option<&dyn PciNames>) -> HostView {
    let fsys = fs::SysFs::new(root);
    match names {
        Some(n) => read_sysfs_in(&fsys, n),
        None => {
            let n = crate::host::names_for_root(&fsys, None);
            read_sysfs_in(&fsys, n.as_ref())
        }
    }
}

fn read_sysfs_in(fsys: &fs::SysFs, names: &dyn PciNames) -> HostView {
    let (scan, findings) = sysfs::read_host(fsys);
    let source = format!("sysfs:{}", fsys.root().display());
    let mut audit =
        crate::host::audit::audit(&scan, names, &source, AuditOptions::default(), findings);
    audit.product = fsys
        .read("sys/class/dmi/id/product_name")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let cpu = fsys.read("proc/cpuinfo").ok().and_then(|t| {
        t.lines()
            .find_map(|l| l.strip_prefix("model name"))
            .and_then(|r| r.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .filter(|s| !s.is_empty())
    });
    let sockets = sockets::from_sysfs(fsys);
    HostView {
        scan,
        audit,
        cpu,
        sockets,
        source,
    }
}

/// Reads an `lspci -vvnn` dump already in memory (names come from the dump).
pub fn read_lspci(text: &str, file: &str) -> HostView {
    let (scan, findings) = lspci::parse(text, file);
    view_of_lspci(scan, findings, file, &names::Embedded)
}

/// Reads the `lspci -vvnn` dump at `path` with the reader `audit --lspci` uses
/// ([`lspci::read_dump`]: at most 256 MiB, a FIFO or device never hangs or grows memory,
/// and what is no dump (empty, binary, UTF-16, no PCI function) is a located error).
/// Names from `names` when given (`--pci-ids`), else the embedded database.
pub fn read_lspci_file(path: &Path, names: Option<&dyn PciNames>) -> Result<HostView, InputError> {
    let (scan, findings) = lspci::read_dump(path)?;
    Ok(view_of_lspci(
        scan,
        findings,
        &path.display().to_string(),
        names.unwrap_or(&names::Embedded),
    ))
}

fn view_of_lspci(
    scan: HostScan,
    findings: Vec<Finding>,
    file: &str,
    names: &dyn PciNames,
) -> HostView {
    let source = format!("lspci:{file}");
    let audit = crate::host::audit::audit(&scan, names, &source, AuditOptions::default(), findings);
    let sockets = sockets::from_functions(&audit.functions);
    HostView {
        scan,
        audit,
        cpu: None,
        sockets,
        source,
    }
}

/// The audit's findings about the input itself (unreadable parts, duplicate or conflicting
/// bus numbers, hidden parents, lspci lines skipped): `learn` reports what `audit` reports.
pub fn input_findings(views: &[HostView]) -> Vec<Finding> {
    use crate::finding::Code;
    let input = [
        Code::Unreadable,
        Code::BusConflict,
        Code::HiddenParent,
        Code::LspciParse,
    ];
    views
        .iter()
        .flat_map(|v| v.audit.findings.iter())
        .filter(|f| input.contains(&f.code))
        .cloned()
        .collect()
}

/// What `learn` itself has to say about the result: a build that plans nothing (LP0500),
/// captures that disagree on the model or the socket count (LP0501).
pub fn learn_findings(learned: &Learned, views: &[HostView]) -> Vec<Finding> {
    use crate::finding::{Code, Location};
    let mut out = Vec::new();
    if learned.summary.planned == 0 {
        // NVMe controllers that are no PCI function (an Apple SoC's, `transport` apple-nvme):
        // the host has drives, but no PCI position to plan them in.
        let off_pci: Vec<String> = views[0]
            .audit
            .drives
            .iter()
            .filter(|d| d.bdf.is_none())
            .map(|d| {
                format!(
                    "{} ({}, transport {})",
                    clean(d.controller.as_deref().unwrap_or("-")),
                    clean(d.model.as_deref().unwrap_or("no model")),
                    clean(d.transport.as_deref().unwrap_or("unknown"))
                )
            })
            .collect();
        let why = if off_pci.is_empty() {
            "shows no device on a root port (only the platform's own functions or devices on a root bus)".to_string()
        } else {
            format!(
                "shows no device on a root port; its NVMe controller(s) {} are not PCI functions, so there is no PCI position to plan them in",
                off_pci.join(", ")
            )
        };
        out.push(
            Finding::of(
                Code::LearnedNothingPlanned,
                format!(
                    "the learned build plans no part: {} {why}",
                    clean(&views[0].source)
                ),
            )
            .with_help("learn from a capture of the host with its cards and drives in place"),
        );
    }
    let products: BTreeSet<&str> = views
        .iter()
        .filter_map(|v| v.audit.product.as_deref())
        .collect();
    let counts: BTreeSet<usize> = views
        .iter()
        .filter_map(|v| v.sockets.as_ref().map(|s| s.count))
        .collect();
    if products.len() > 1 || counts.len() > 1 {
        let each: Vec<String> = views
            .iter()
            .map(|v| {
                format!(
                    "{}: {}, {} sockets",
                    clean(&v.source),
                    v.audit
                        .product
                        .as_deref()
                        .map_or("no product name".into(), clean),
                    v.sockets
                        .as_ref()
                        .map_or("?".into(), |s| s.count.to_string())
                )
            })
            .collect();
        out.push(
            Finding::of(
                Code::LearnCapturesDisagree,
                format!(
                    "the captures merged into {} disagree: {}",
                    learned.id,
                    each.join("; ")
                ),
            )
            .with_help(
                "merge captures of one model only; the platform keeps the first capture's sockets",
            )
            .at(Location {
                file: Some(clean(&views[1].source)),
                ..Default::default()
            }),
        );
    }
    out
}

/// `s` for a terminal: control characters shown as `\u{1b}`.
pub fn shown(s: &str) -> String {
    clean(s)
}

/// Control characters (ESC, BEL, DEL, newlines, ...) as visible text (`\u{1b}`), so that a
/// name or path from a host can be stored in a file and printed without acting on a
/// terminal or breaking a line.
fn clean(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// What a root port leads to.
enum Holds<'a> {
    /// NVMe bays (direct: one, on the port itself; switch: its downstream ports).
    Bay(Bay<'a>),
    Switch {
        up: &'a FunctionReport,
        bays: Vec<Bay<'a>>,
    },
    /// A card in a slot with a physical number (or an empty slot).
    Slot {
        number: Option<u32>,
        card: Option<&'a FunctionReport>,
    },
}

struct Bay<'a> {
    port: &'a FunctionReport,
    slot: Option<u32>,
    hotplug: bool,
    drive: Option<&'a FunctionReport>,
    /// Filled once every bay is known: the bay number.
    number: u32,
}

struct Rc<'a> {
    port: &'a FunctionReport,
    numa: u32,
    holds: Holds<'a>,
    /// Another port with a lower address reports the same physical slot number: this one
    /// is an onboard position, not a second "Slot N".
    shares_number: bool,
}

/// The functions below each bridge, in address order: built once, so that walking the tree
/// is linear in functions (a scan per lookup made `learn` quadratic: 100k functions 93 s).
struct Children<'a>(BTreeMap<Bdf, Vec<&'a FunctionReport>>);

impl<'a> Children<'a> {
    fn new(all: &'a [FunctionReport]) -> Children<'a> {
        let mut m: BTreeMap<Bdf, Vec<&FunctionReport>> = BTreeMap::new();
        for f in all {
            if let Some(p) = f.parent {
                m.entry(p).or_default().push(f);
            }
        }
        for v in m.values_mut() {
            v.sort_by_key(|x| x.bdf);
        }
        Children(m)
    }

    fn of(&self, bdf: Bdf) -> &[&'a FunctionReport] {
        self.0.get(&bdf).map_or(&[], Vec::as_slice)
    }

    /// Every function below `bdf`, in address order.
    fn below(&self, bdf: Bdf) -> Vec<&'a FunctionReport> {
        let mut out = Vec::new();
        let mut stack = vec![bdf];
        while let Some(b) = stack.pop() {
            for k in self.of(b) {
                stack.push(k.bdf);
                out.push(*k);
            }
        }
        out.sort_by_key(|x| x.bdf);
        out
    }
}

/// Learns from one host view. `catalog` supplies parts to reuse (by `pci` ids).
pub fn learn(host: &HostView, catalog: &Catalog, opts: &LearnOptions) -> Learned {
    learn_all(std::slice::from_ref(host), catalog, opts)
}

/// What one capture shows, ready to merge.
struct Capture<'a> {
    rcs: Vec<Rc<'a>>,
    integrated: BTreeMap<String, Vec<&'a FunctionReport>>,
    skipped: usize,
    kids: Children<'a>,
}

fn capture(host: &HostView) -> Capture<'_> {
    let a = &host.audit;
    let tree = Children::new(&a.functions);
    let mut funcs: Vec<&FunctionReport> = a.functions.iter().collect();
    funcs.sort_by_key(|x| x.bdf);
    let caps: BTreeMap<Bdf, SlotCap> = host
        .scan
        .functions
        .iter()
        .filter_map(|f| Some((f.bdf?, f.slot_cap?)))
        .collect();
    let children = |bdf: Bdf| -> Vec<&FunctionReport> { tree.of(bdf).to_vec() };
    let is_nvme = |f: &FunctionReport| class_of(f) == DeviceClass::Nvme;
    let slot_of = |f: &FunctionReport| -> (Option<u32>, bool) {
        let cap = caps.get(&f.bdf).copied().unwrap_or_default();
        // The slot number a port reports: its Slot Capabilities (lspci), else the physical
        // slot the kernel names at the port or at the device below it (sysfs: a hot-plug
        // slot sits at the port's secondary bus). 0 is "not set".
        let from_name = |s: &Option<String>| {
            s.as_deref()
                .and_then(|s| s.parse::<u32>().ok())
                .filter(|&n| n > 0)
        };
        let below = children(f.bdf).into_iter().find_map(|k| from_name(&k.slot));
        let n = cap
            .number
            .filter(|&n| n > 0)
            .or_else(|| from_name(&f.slot))
            .or(below);
        (n, cap.hotplug)
    };
    // A port holds a bay when an NVMe drive sits on it, or when it is hot-plug and empty.
    let as_bay = |port: &FunctionReport| -> bool {
        let kids = children(port.bdf);
        kids.iter().any(|k| is_nvme(k)) || (kids.is_empty() && slot_of(port).1)
    };
    let mut rcs: Vec<Rc> = Vec::new();
    let mut skipped = 0;
    for rp in funcs.iter().copied().filter(|f| f.kind == FnKind::RootPort) {
        let kids = children(rp.bdf);
        let below = tree.below(rp.bdf);
        let numa = rp
            .numa_node
            .or_else(|| below.iter().find_map(|f| f.numa_node))
            .unwrap_or(0);
        let (number, _) = slot_of(rp);
        let holds = if as_bay(rp) {
            let (slot, hotplug) = slot_of(rp);
            Holds::Bay(Bay {
                port: rp,
                slot,
                hotplug,
                drive: kids.iter().copied().find(|k| is_nvme(k)),
                number: 0,
            })
        } else if let Some(up) = kids.iter().copied().find(|k| k.kind == FnKind::Switch)
            && !children(up.bdf).is_empty()
            && children(up.bdf)
                .iter()
                .all(|d| d.kind == FnKind::SwitchPort && as_bay(d))
        {
            let bays = children(up.bdf)
                .into_iter()
                .map(|d| {
                    let (slot, hotplug) = slot_of(d);
                    Bay {
                        port: d,
                        slot,
                        hotplug,
                        drive: children(d.bdf).into_iter().find(|k| is_nvme(k)),
                        number: 0,
                    }
                })
                .collect();
            Holds::Switch { up, bays }
        } else {
            // The first endpoint below (function 0): the card or onboard device. Below a port
            // without a slot number, functions of the CPU or chipset itself (same vendor as the
            // root port, no storage, network or display class) are the platform's, not parts.
            let card = below.iter().copied().find(|f| {
                f.kind == FnKind::Device
                    && f.bdf.func == 0
                    && (number.is_some()
                        || !(vendor_of(f) == vendor_of(rp) && class_of(f) == DeviceClass::Other))
            });
            // A device on a port without a slot number is a part in an onboard position:
            // a slot of its own, so that the build plans it and the audit compares it.
            match (card, number) {
                (None, None) => {
                    skipped += 1;
                    continue;
                }
                (card, number) => Holds::Slot { number, card },
            }
        };
        rcs.push(Rc {
            port: rp,
            numa,
            holds,
            shares_number: false,
        });
    }
    mark_shared_numbers(&mut rcs);
    let integrated = integrated_devices(&funcs);
    Capture {
        rcs,
        integrated,
        skipped,
        kids: tree,
    }
}

/// Two ports reporting one physical slot number (an integrated controller and the slot
/// beside it): the first by address keeps "Slot N", a card-less port yielding to one with a
/// card; the others are onboard positions.
fn mark_shared_numbers(rcs: &mut [Rc]) {
    let mut by_number: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, rc) in rcs.iter().enumerate() {
        if let Holds::Slot {
            number: Some(n), ..
        } = rc.holds
        {
            by_number.entry(n).or_default().push(i);
        }
    }
    for ixs in by_number.values().filter(|v| v.len() > 1) {
        let keep = ixs
            .iter()
            .copied()
            .find(|&i| matches!(rcs[i].holds, Holds::Slot { card: Some(c), .. } if !is_storage(c)))
            .unwrap_or(ixs[0]);
        for &i in ixs {
            rcs[i].shares_number = i != keep;
        }
    }
}

/// Devices integrated on a root bus (no port above them), other than bridges and the CPU's
/// or chipset's own functions (a host bridge's vendor with no storage, network or display
/// class): a virtual machine's virtio devices, for one; by root bus.
fn integrated_devices<'a>(
    funcs: &[&'a FunctionReport],
) -> BTreeMap<String, Vec<&'a FunctionReport>> {
    let host_vendors: BTreeSet<Option<u16>> = funcs
        .iter()
        .filter(|h| h.class.is_some_and(|c| c.base_sub() == 0x0600))
        .map(|h| vendor_of(h))
        .collect();
    let mut integrated: BTreeMap<String, Vec<&FunctionReport>> = BTreeMap::new();
    for f in funcs.iter().copied() {
        let is_bridge = f.class.is_some_and(|c| c.base() == 0x06);
        if f.parent.is_none()
            && f.kind == FnKind::Device
            && f.bdf.func == 0
            && !is_bridge
            && !(host_vendors.contains(&vendor_of(f)) && class_of(f) == DeviceClass::Other)
        {
            integrated
                .entry(f.root_bus.to_string())
                .or_default()
                .push(f);
        }
    }
    integrated
}

/// A storage controller (RAID, HBA): what sits integrated beside a slot of the same number.
fn is_storage(f: &FunctionReport) -> bool {
    matches!(class_of(f), DeviceClass::Raid | DeviceClass::Hba)
}

fn vendor_of(f: &FunctionReport) -> Option<u16> {
    f.ids.map(|i| i.vendor)
}

fn class_of(f: &FunctionReport) -> DeviceClass {
    device_class(f.class.map(|c: ClassCode| c.0))
}

fn class_name(c: DeviceClass) -> &'static str {
    match c {
        DeviceClass::Nvme => "nvme",
        DeviceClass::SasDrive => "sas-drive",
        DeviceClass::SataDrive => "sata-drive",
        DeviceClass::Raid => "raid",
        DeviceClass::Hba => "hba",
        DeviceClass::Nic => "nic",
        DeviceClass::Boot => "boot",
        DeviceClass::Gpu => "gpu",
        DeviceClass::Extender => "extender",
        DeviceClass::Other => "other",
    }
}

/// `0000:c0:01.3` -> `0000-c0-01-3`
/// `0000:3b:00.0` -> `0000-3b-00-0`: an address (or root bus) as part of an id.
fn slug_bdf(bdf: impl std::fmt::Display) -> String {
    bdf.to_string().replace([':', '.'], "-")
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').chars().take(48).collect()
}

/// A TOML basic string (control characters made visible first: see [`clean`]).
fn q(s: &str) -> String {
    toml::Value::String(clean(s)).to_string()
}

/// Text for a `# comment` line: control characters (a newline above all, which would end
/// the comment and start TOML of the text's choosing) made visible.
fn comment(s: &str) -> String {
    clean(s)
}

/// One `[[name]]` table of a learned file, after a blank line: `key = value` lines in the
/// order set (values already TOML: `q(..)` for strings, a trailing `# ...` comment allowed),
/// closed by the `source` every learned table carries.
struct Table(String);

impl Table {
    /// The header, with a `# comment` line above it when given.
    fn new(name: &str, comment: Option<&str>) -> Table {
        let mut t = String::from("\n");
        if let Some(c) = comment {
            let _ = writeln!(t, "# {c}");
        }
        let _ = writeln!(t, "[[{name}]]");
        Table(t)
    }

    fn set(mut self, key: &str, value: impl std::fmt::Display) -> Table {
        let _ = writeln!(self.0, "{key} = {value}");
        self
    }

    fn set_if(self, key: &str, value: Option<impl std::fmt::Display>) -> Table {
        match value {
            Some(v) => self.set(key, v),
            None => self,
        }
    }

    /// `confidence` as given, then `source`: the text of the table.
    fn source(self, confidence: &str, source: &str) -> String {
        self.set("confidence", q(confidence))
            .set("source", q(source))
            .0
    }
}

fn gen_width(f: &FunctionReport) -> Option<(u8, u8)> {
    let l = f.link_max?;
    Some((l.speed?.number(), l.width)).filter(|&(_, w)| crate::pcie::valid_width(w))
}

/// A root port's generation and width: its Link Capabilities, else the widest and fastest
/// link below it (a capture that lost the port's lines), else Gen3 x4.
fn port_gw(rp: &FunctionReport, kids: &Children) -> (u8, u8) {
    gen_width(rp).unwrap_or_else(|| {
        kids.below(rp.bdf)
            .into_iter()
            .filter_map(gen_width)
            .reduce(|a, b| (a.0.max(b.0), a.1.max(b.1)))
            .unwrap_or((3, 4))
    })
}

/// Contiguous runs as `0-3,7`.
fn ranges(ns: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
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

/// A part for a live device: the catalogue's when its ids match, else a new one.
struct PartRef {
    id: String,
    /// Its card edge width (what a slot's connector must take).
    mechanical: u8,
    /// The slot kinds it fits (a learned part: `pcie`).
    fits: Vec<SlotKind>,
    new: Option<String>,
}

fn part_for(f: &FunctionReport, catalog: &Catalog, gw: (u8, u8), source: &str) -> PartRef {
    let sub = f.subsystem;
    let hit = catalog.parts.values().find(|p| {
        p.def.pci.iter().any(|id| {
            PciIds::is_listed(id.id.get_ref(), f.ids)
                && id
                    .subsystem
                    .as_ref()
                    .is_none_or(|s| sub.is_some_and(|x| PciIds::is_listed(s.get_ref(), Some(x))))
        })
    });
    if let Some(p) = hit {
        return PartRef {
            id: p.id().to_string(),
            mechanical: p.mechanical(),
            fits: p.fits(),
            new: None,
        };
    }
    let id = match &sub {
        Some(s) => format!("pci-{}-{}", PciIds::text(f.ids), s).replace(':', "-"),
        None => format!("pci-{}", PciIds::text(f.ids)).replace(':', "-"),
    };
    let class = class_of(f);
    let t = Table::new("part", None)
        .set("id", q(&id))
        .set("name", q(&f.name))
        .set("class", q(class_name(class)));
    let t = if class == DeviceClass::Nvme {
        t.set("interface", q("nvme")).set(
            "size",
            "\"2.5\" # inferred: a U.2 drive in a hot-plug bay; check the drive's form factor",
        )
    } else {
        t.set("fits", "[\"pcie\"]")
    };
    let subsystem = sub
        .map(|s| format!(", subsystem = {}", q(&s.to_string())))
        .unwrap_or_default();
    let t = t
        .set("gen", gw.0)
        .set("width", gw.1)
        .set(
            "pci",
            format!(
                "[{{ id = {}{subsystem}, source = {} }}]",
                q(&PciIds::text(f.ids)),
                q(source)
            ),
        )
        .source(
            "measured",
            &format!(
                "{source}: {} at {}, link max {}; name from pci.ids. Card height and length, and drive capacity and speeds, are not shown by the host: add them",
                PciIds::text(f.ids),
                f.bdf,
                f.link_max
                    .map(|l| l.label())
                    .unwrap_or_else(|| "unknown".into())
            ),
        );
    PartRef {
        id,
        mechanical: gw.1,
        fits: vec![SlotKind::pcie()],
        new: Some(t),
    }
}

/// Learns one platform from several captures of one model (or one capture): each slot,
/// bay and root complex once, keyed by its physical slot number where it has one, else by
/// its root port's address, with the root ports seen and how many captures show it. The
/// build is what the first capture holds.
pub fn learn_all(hosts: &[HostView], catalog: &Catalog, opts: &LearnOptions) -> Learned {
    let mut caps: Vec<Capture> = hosts.iter().map(capture).collect();
    // The merged positions: (capture, root complex) of the first capture that shows each,
    // and every (capture, root port) that shows it.
    let mut entries: Vec<Entry> = Vec::new();
    let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_port: BTreeMap<Bdf, usize> = BTreeMap::new();
    for (ci, cap) in caps.iter().enumerate() {
        for (ri, rc) in cap.rcs.iter().enumerate() {
            let key = match rc.holds {
                Holds::Slot {
                    number: Some(n), ..
                } if !rc.shares_number => format!("slot {n}"),
                _ => format!("port {}", rc.port.bdf),
            };
            let bdf = rc.port.bdf;
            match by_key.get(&key).or_else(|| by_port.get(&bdf)).copied() {
                Some(e) => entries[e].seen.push((ci, bdf)),
                None => {
                    by_key.insert(key, entries.len());
                    by_port.insert(bdf, entries.len());
                    entries.push(Entry {
                        capture: ci,
                        rc: ri,
                        seen: vec![(ci, bdf)],
                    });
                }
            }
        }
    }

    // Bays numbered by slot number (the host's own numbering), then by address.
    let mut order: Vec<(Option<u32>, Bdf)> = Vec::new();
    for e in &entries {
        match &caps[e.capture].rcs[e.rc].holds {
            Holds::Bay(b) => order.push((b.slot, b.port.bdf)),
            Holds::Switch { bays, .. } => order.extend(bays.iter().map(|b| (b.slot, b.port.bdf))),
            _ => {}
        }
    }
    order.sort_by(|x, y| (x.0.is_none(), x.0, &x.1).cmp(&(y.0.is_none(), y.0, &y.1)));
    order.dedup_by(|x, y| x.1 == y.1);
    let number_of: BTreeMap<Bdf, u32> = order
        .iter()
        .enumerate()
        .map(|(i, (_, b))| (*b, u32::try_from(i).unwrap_or(u32::MAX)))
        .collect();
    for e in &entries {
        match &mut caps[e.capture].rcs[e.rc].holds {
            Holds::Bay(b) => b.number = number_of[&b.port.bdf],
            Holds::Switch { bays, .. } => {
                // Kept in port address order: a group lists its bays as its ports run
                // (`bays = "3,2,1,0"`, `slot_numbers = "131,130,129,128"`), so matching by
                // address and by slot number pair the same port with the same bay.
                for b in bays.iter_mut() {
                    b.number = number_of[&b.port.bdf];
                }
            }
            _ => {}
        }
    }
    write_files(hosts, &caps, &entries, catalog, opts)
}

/// One merged position: the first capture showing it and its root complex there, and
/// every capture and root port showing it.
struct Entry {
    capture: usize,
    rc: usize,
    seen: Vec<(usize, Bdf)>,
}

impl Entry {
    /// `; seen in 2 of 3 captures: root port 0000:c0:03.1 in 2, ...` (nothing for one capture).
    fn seen_note(&self, captures: usize) -> String {
        if captures < 2 {
            return String::new();
        }
        let shown: BTreeSet<usize> = self.seen.iter().map(|(c, _)| *c).collect();
        let mut ports: BTreeMap<Bdf, usize> = BTreeMap::new();
        for (_, p) in &self.seen {
            *ports.entry(*p).or_default() += 1;
        }
        let ports: Vec<String> = ports.iter().map(|(p, n)| format!("{p} in {n}")).collect();
        format!(
            "; seen in {} of {captures} captures, root port {}",
            shown.len(),
            ports.join(", ")
        )
    }
}

fn write_files(
    hosts: &[HostView],
    caps: &[Capture],
    entries: &[Entry],
    catalog: &Catalog,
    opts: &LearnOptions,
) -> Learned {
    let host = &hosts[0];
    let source: &str = &if hosts.len() == 1 {
        host.source.clone()
    } else {
        hosts
            .iter()
            .map(|h| h.source.as_str())
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let product = hosts
        .iter()
        .find_map(|h| h.audit.product.clone())
        .map(|p| clean(&p));
    let id = opts.id.clone().unwrap_or_else(|| match &product {
        Some(p) => LearnedId::from_product(p),
        None => LearnedId("learned-host".to_string()),
    });
    let mut p = platform_header(source, &id, product.as_deref());
    let mut f = Files {
        catalog,
        source,
        s: Summary {
            captures: hosts.len(),
            skipped_ports: caps.iter().map(|c| c.skipped).sum(),
            ..Default::default()
        },
        body: String::new(),
        parts_text: String::new(),
        parts_seen: BTreeSet::new(),
        build_slots: String::new(),
        build_bays: BTreeMap::new(),
        kinds: BTreeMap::new(),
    };
    let mut integrated: BTreeMap<&str, &Vec<&FunctionReport>> = BTreeMap::new();
    for cap in caps {
        for (bus, devs) in &cap.integrated {
            integrated.entry(bus.as_str()).or_insert(devs);
        }
    }
    let drive_of = drives_by_bdf(hosts);
    let (numas, nodes) = numa_lanes(hosts, caps, entries, &integrated, &drive_of);
    let facts = hosts.iter().find_map(|h| h.sockets.clone());
    let plan = sockets::plan(facts.as_ref(), &nodes);
    p.push_str(&socket_tables(&plan, &numas, host.cpu.as_deref()));
    f.s.sockets = plan.sockets.len();
    f.s.sockets_from = plan.from.to_string();
    f.s.numa_nodes = nodes.len();

    let captures = hosts.len();
    for e in entries {
        f.root_port(e, &caps[e.capture], captures, &plan);
    }
    let mut labels_used: BTreeSet<String> = BTreeSet::new();
    // Bays on root buses after the root ports' bays.
    let mut next_bay = u32::try_from(f.s.bays).unwrap_or(u32::MAX);
    for (bus, devs) in integrated {
        f.root_bus(
            bus,
            devs,
            hosts,
            &drive_of,
            &plan,
            (&mut next_bay, &mut labels_used),
        );
    }
    for decl in f.kinds.values() {
        p.push_str(decl);
    }
    p.push_str(&f.body);

    let parts = (!f.parts_text.is_empty()).then(|| {
        format!(
            "# Parts learned by `laneplan learn` from {} that the catalogue lacks.\n\
             # Add what the host does not show (perf figures, height, length, capacity).\n{}",
            comment(source),
            f.parts_text
        )
    });
    let build = f.build_text(
        &id,
        if captures == 1 { source } else { &host.source },
        &host.source,
    );
    let mut s = f.s;
    s.planned += f.build_bays.len();
    let differences =
        compare::against_builtin(catalog, product.as_deref(), opts, &s, entries, caps);
    Learned {
        id,
        platform: p,
        parts,
        build,
        summary: s,
        differences,
        notes: Vec::new(),
    }
}

/// The learned platform file's head: where it comes from, its id, name, form and DMI name.
fn platform_header(source: &str, id: &LearnedId, product: Option<&str>) -> String {
    let name = match product {
        Some(p) => format!("{p} (learned)"),
        None => format!("Host learned from {source}"),
    };
    let mut p = String::new();
    let _ = writeln!(
        p,
        "# Learned by `laneplan learn` from {}.\n\
         # confidence: measured = read off the host; inferred = not shown by the host: check it.\n\
         # Each root port that leads somewhere is one root complex (the host does not say how\n\
         # ports group into x16 blocks); merge them by hand where the CPU's documents say so.",
        comment(source)
    );
    let _ = writeln!(p, "id = {}", q(id.as_str()));
    let _ = writeln!(p, "name = {}", q(&name));
    let _ = writeln!(
        p,
        "form = \"2U\" # inferred: the host does not show its height; check the chassis"
    );
    let _ = writeln!(p, "source = {}", q(source));
    if let Some(prod) = product {
        let _ = writeln!(p, "dmi_names = [{}]", q(prod));
    }

    p
}

/// The drives of every capture by their controller's PCI address (the first capture's first).
fn drives_by_bdf(hosts: &[HostView]) -> BTreeMap<Bdf, &DriveReport> {
    let mut drive_of: BTreeMap<Bdf, &DriveReport> = BTreeMap::new();
    for h in hosts {
        for d in &h.audit.drives {
            if let Some(b) = d.bdf {
                drive_of.entry(b).or_insert(d);
            }
        }
    }
    drive_of
}

/// An NVMe controller on a root bus: the kernel gives its NUMA node and model on the
/// controller (`nvme/nvmeN`) where the function's own files are missing (POWER).
fn numa_of(f: &FunctionReport, drive_of: &BTreeMap<Bdf, &DriveReport>) -> Option<u32> {
    f.numa_node
        .or_else(|| drive_of.get(&f.bdf).and_then(|d| d.numa_node))
}

/// Lanes and generation per NUMA node, of the root ports and integrated buses seen, and
/// every node the sources show (not only those with a port learned), in order.
fn numa_lanes(
    hosts: &[HostView],
    caps: &[Capture],
    entries: &[Entry],
    integrated: &BTreeMap<&str, &Vec<&FunctionReport>>,
    drive_of: &BTreeMap<Bdf, &DriveReport>,
) -> (BTreeMap<u32, (u16, u8)>, Vec<u32>) {
    let mut numas: BTreeMap<u32, (u16, u8)> = BTreeMap::new();
    for e in entries {
        let rc = &caps[e.capture].rcs[e.rc];
        let (g, w) = port_gw(rc.port, &caps[e.capture].kids);
        let n = numas.entry(rc.numa).or_default();
        n.0 += u16::from(w);
        n.1 = n.1.max(g);
    }
    for devs in integrated.values() {
        let n = devs.iter().find_map(|f| numa_of(f, drive_of)).unwrap_or(0);
        let e = numas.entry(n).or_default();
        e.0 += u16::try_from(devs.len()).unwrap_or(u16::MAX);
        e.1 = e.1.max(1);
    }
    if numas.is_empty() {
        numas.insert(0, (0, 3));
    }
    let mut all_nodes: BTreeSet<u32> = numas.keys().copied().collect();
    for h in hosts {
        all_nodes.extend(h.audit.functions.iter().filter_map(|f| f.numa_node));
        all_nodes.extend(h.audit.drives.iter().filter_map(|d| d.numa_node));
    }
    let nodes: Vec<u32> = all_nodes.into_iter().collect();
    for n in &nodes {
        numas.entry(*n).or_insert((0, 1));
    }
    (numas, nodes)
}

/// The `[[socket]]` tables of the socket plan: sockets from the CPUs' own facts (the first
/// capture that shows them), else one per NUMA node, said so.
fn socket_tables(
    plan: &sockets::Plan,
    numas: &BTreeMap<u32, (u16, u8)>,
    cpu: Option<&str>,
) -> String {
    let mut p = String::new();
    for (k, sock) in plan.sockets.iter().enumerate() {
        let cpu = match cpu {
            Some(c) => q(c),
            None => "\"unknown\" # the source does not name the CPU: check /proc/cpuinfo".into(),
        };
        let lanes: u16 = sock.nodes.iter().map(|n| numas[n].0).sum();
        let g = sock.nodes.iter().map(|n| numas[n].1).max().unwrap_or(3);
        let nodes: Vec<String> = sock.nodes.iter().map(u32::to_string).collect();
        p.push_str(
            &Table::new("socket", Some(&plan.comment))
                .set("id", q(&format!("cpu{k}")))
                .set("label", q(&format!("CPU{}", k + 1)))
                .set("index", k)
                .set("cpu", cpu)
                .set("lanes", lanes.max(1))
                .set("gen", g)
                .set("numa_nodes", format!("[{}]", nodes.join(", ")))
                .source(
                    plan.confidence,
                    &format!(
                        "read off the host: {}; lanes are those of the root ports seen on its NUMA nodes, not the CPU's total",
                        plan.why
                    ),
                ),
        );
    }
    p
}

/// What the learned files collect as the root complexes are written: the platform's body,
/// the slot kinds it declares, the new parts, the build's slots and bays, the counts.
struct Files<'a> {
    catalog: &'a Catalog,
    source: &'a str,
    s: Summary,
    body: String,
    parts_text: String,
    /// Each part once in the parts file, counted once.
    parts_seen: BTreeSet<String>,
    build_slots: String,
    build_bays: BTreeMap<u32, String>,
    /// Slot kinds other than `pcie` the learned slots take (declared before the slots).
    kinds: BTreeMap<SlotKind, String>,
}

impl Files<'_> {
    /// The part `r`, its table kept once for the parts file (new) or counted as reused.
    fn keep(&mut self, r: PartRef) -> PartRef {
        if self.parts_seen.insert(r.id.clone()) {
            match &r.new {
                Some(t) => {
                    self.parts_text.push_str(t);
                    self.s.parts_new += 1;
                }
                None => self.s.parts_reused += 1,
            }
        }
        r
    }

    /// One root port that leads somewhere: its root complex, then what it holds.
    fn root_port(&mut self, e: &Entry, cap: &Capture, captures: usize, plan: &sockets::Plan) {
        let rc = &cap.rcs[e.rc];
        // The build is what the first capture holds.
        let in_build = e.capture == 0;
        let seen = e.seen_note(captures);
        let rp = rc.port;
        let rid = format!("rp-{}", slug_bdf(rp.bdf));
        let (g, w) = port_gw(rp, &cap.kids);
        let mut locator = vec![rp.bdf.to_string()];
        let mut buses = BTreeSet::new();
        for f in cap.kids.below(rp.bdf) {
            // Each bus below the port, as a locator prefix (`0000:3b`).
            let bus = RootBus::of(f.bdf);
            if buses.insert(bus) {
                locator.push(bus.to_string());
            }
        }
        let locs: Vec<String> = locator.iter().map(|l| q(l)).collect();
        self.body.push_str(
            &Table::new("root_complex", None)
                .set("id", q(&rid))
                .set("label", q(&format!("Root port {}", rp.bdf)))
                .set("socket", q(&format!("cpu{}", plan.socket_of(rc.numa))))
                .set("lanes", w)
                .set("gen", g)
                .set("numa_node", rc.numa)
                .set("locator", format!("[{}]", locs.join(", ")))
                .source(
                    "measured",
                    &format!(
                        "read off the host: root port {} ({}), link max {}{seen}",
                        rp.bdf,
                        PciIds::text(rp.ids),
                        rp.link_max
                            .map(|l| l.label())
                            .unwrap_or_else(|| "unknown (gen 3 x4 assumed)".into())
                    ),
                ),
        );
        self.s.root_complexes += 1;
        match &rc.holds {
            Holds::Bay(b) => self.direct_bay(b, g, &rid, in_build),
            Holds::Switch { up, bays } => self.switch(up, bays, (g, w), &rid, in_build),
            Holds::Slot { number, card } => {
                let port = (rp, rid.as_str(), (g, w), seen.as_str());
                self.slot(rc, port, *number, *card, in_build)
            }
        }
    }

    /// An NVMe bay on the root port itself.
    fn direct_bay(&mut self, b: &Bay, g: u8, rid: &str, in_build: bool) {
        bay_group(&mut self.body, std::slice::from_ref(b), "direct", rid);
        if let Some(d) = b.drive {
            let part = self.keep(part_for(
                d,
                self.catalog,
                gen_width(d).unwrap_or((g, 4)),
                self.source,
            ));
            if in_build {
                self.build_bays.insert(b.number, part.id);
            }
        }
        self.s.bays += 1;
    }

    /// A switch below the root port and the NVMe bays on its downstream ports.
    fn switch(
        &mut self,
        up: &FunctionReport,
        bays: &[Bay],
        (g, w): (u8, u8),
        rid: &str,
        in_build: bool,
    ) {
        let sid = format!("switch-{}", slug_bdf(up.bdf));
        // A switch trains no wider than the port above it.
        let (sg, sw) = gen_width(up).unwrap_or((g, w));
        let sw = sw.min(w);
        self.body.push_str(
            &Table::new("switch", None)
                .set("id", q(&sid))
                .set("label", q(&format!("{} ({})", up.name, up.bdf)))
                .set("uplink", q(rid))
                .set("uplink_width", sw)
                .set("gen", sg)
                .source(
                    "measured",
                    &format!(
                        "read off the host: switch upstream port {} ({}) with {} downstream ports",
                        up.bdf,
                        PciIds::text(up.ids),
                        bays.len()
                    ),
                ),
        );
        bay_group(&mut self.body, bays, "switch", &sid);
        for b in bays {
            if let Some(d) = b.drive {
                let part = self.keep(part_for(
                    d,
                    self.catalog,
                    gen_width(d).unwrap_or((sg, 4)),
                    self.source,
                ));
                if in_build {
                    self.build_bays.insert(b.number, part.id);
                }
            }
        }
        self.s.switches += 1;
        self.s.bays += bays.len();
    }

    /// A slot on the root port (`port`: the port, its root complex id, its link, the note of
    /// the captures that show it), with the card in it if any.
    fn slot(
        &mut self,
        rc: &Rc,
        (rp, rid, (g, w), seen): (&FunctionReport, &str, (u8, u8), &str),
        number: Option<u32>,
        card: Option<&FunctionReport>,
        in_build: bool,
    ) {
        // Its own physical slot number: "Slot N"; none, or one another port holds
        // (an integrated controller beside the slot): an onboard position.
        let own = number.filter(|_| !rc.shares_number);
        let sid = match own {
            Some(n) => format!("slot{n}-{}", slug_bdf(rp.bdf)),
            None => format!("slot-{}", slug_bdf(rp.bdf)),
        };
        let part = card.map(|c| {
            self.keep(part_for(
                c,
                self.catalog,
                gen_width(c).unwrap_or((g, w)),
                self.source,
            ))
        });
        // The connector takes the card's edge: a card may train narrower than its edge.
        let mech = part.as_ref().map_or(w, |p| p.mechanical.max(w));
        // A card that fits no PCIe slot (a vendor's storage-controller slot, an OCP
        // NIC slot) proves its slot is of a kind it fits: the first it lists.
        let kind = part
            .as_ref()
            .filter(|p| !p.fits.iter().any(|k| k.as_str() == SlotKind::PCIE))
            .and_then(|p| p.fits.first().cloned());
        if let (Some(k), Some(p)) = (&kind, &part) {
            self.kinds
                .entry(k.clone())
                .or_insert_with(|| slot_kind_decl(self.catalog, k, &p.id));
        }
        let (label, why) = match (own, number) {
            (Some(n), _) => (
                format!("Slot {n}"),
                "inferred: the host's slot number; check the chassis label",
            ),
            (None, Some(n)) => (
                format!("Onboard at {} (reports slot {n})", rp.bdf),
                "inferred: its port reports the physical slot number of another port; an integrated position",
            ),
            (None, None) => (
                format!("Onboard at {}", rp.bdf),
                "inferred: no physical slot number: onboard, or a slot whose number the firmware does not report",
            ),
        };
        self.body.push_str(
            &Table::new("slot", None)
                .set("id", q(&sid))
                .set(
                    "label",
                    format!("{} # {why}", q(&label)),
                )
                .set_if(
                    "kind",
                    kind.as_ref().map(|k| {
                        format!(
                            "{} # the card in it fits only this kind of slot",
                            q(k.as_str())
                        )
                    }),
                )
                .set("root_complex", q(rid))
                .set("electrical", w)
                .set(
                    "mechanical",
                    format!(
                        "{mech} # inferred: the connector may be wider; check the riser"
                    ),
                )
                .set("gen", g)
                .set_if("slot_number", own)
                .source(
                    "measured",
                    &format!(
                        "read off the host: root port {} reports physical slot {}; height and length not shown (check the riser){seen}",
                        rp.bdf,
                        number.map(|n| n.to_string()).unwrap_or_else(|| "-".into())
                    ),
                ),
        );
        if let Some(p) = part
            && in_build
        {
            self.s.planned += 1;
            let _ = writeln!(
                self.build_slots,
                "\n[[slot]]\nslot = {}\npart = {}",
                q(&sid),
                q(&p.id)
            );
        }
        self.s.slots += 1;
    }

    /// A root bus with devices and no port above them: its root complex, each NVMe drive in a
    /// bay of its own (numbered from `next_bay`, at the slot locator the host reports, unique
    /// among `labels_used`), other devices as built-ins.
    fn root_bus(
        &mut self,
        bus: &str,
        devs: &[&FunctionReport],
        hosts: &[HostView],
        drive_of: &BTreeMap<Bdf, &DriveReport>,
        plan: &sockets::Plan,
        (next_bay, labels_used): (&mut u32, &mut BTreeSet<String>),
    ) {
        let rid = format!("bus-{}", slug_bdf(bus));
        let numa = devs.iter().find_map(|f| numa_of(f, drive_of)).unwrap_or(0);
        let socket = format!("cpu{}", plan.socket_of(numa));
        let locs: Vec<String> = devs.iter().map(|f| q(&f.bdf.to_string())).collect();
        self.body.push_str(
            &Table::new("root_complex", None)
                .set("id", q(&rid))
                .set("label", q(&format!("Root bus {bus} (integrated devices)")))
                .set("socket", q(&socket))
                .set("lanes", devs.len())
                .set("gen", 1)
                .set("numa_node", numa)
                .set("locator", format!("[{}]", locs.join(", ")))
                .source(
                    "inferred",
                    &format!(
                        "read off the host: devices on root bus {bus} with no port above them (integrated, a virtual machine's, or a card or drive in a slot of a host without root ports such as POWER): no link to measure, one lane each as a placeholder"
                    ),
                ),
        );
        self.s.root_complexes += 1;
        for d in devs {
            let drive = drive_of.get(&d.bdf).copied();
            let part = match drive {
                Some(dr) => dr
                    .model
                    .as_deref()
                    .map(|m| self.keep(drive_part(dr, m, self.source))),
                None => None,
            };
            let Some(part) = part else {
                self.body.push_str(&builtin(d, &rid, 1, 1).source(
                    "inferred",
                    &format!(
                        "read off the host: {} at {} on the root bus",
                        PciIds::text(d.ids),
                        d.bdf
                    ),
                ));
                self.s.builtins += 1;
                continue;
            };
            // A drive on the root bus: a bay of its own, at the slot locator the host reports
            // (else onboard), so that the build plans it and the audit compares it.
            let location = match d.slot.as_deref().map(clean) {
                Some(l) if !l.is_empty() && labels_used.insert(l.clone()) => l,
                Some(l) if !l.is_empty() => format!("{l} ({})", d.bdf),
                _ => format!("Onboard at {}", d.bdf),
            };
            let number = *next_bay;
            *next_bay = next_bay.saturating_add(1);
            self.body.push_str(
                &Table::new(
                    "bays",
                    Some("inferred: size and backplane are not shown by the host; check the chassis"),
                )
                .set("bays", q(&number.to_string()))
                .set("size", q("2.5"))
                .set("interfaces", "[\"nvme\"]")
                .set("via", q("direct"))
                .set("to", q(&rid))
                .set("width", "1 # inferred: no link to measure, a placeholder")
                .set("backplane", q(&location))
                .source(
                    "inferred",
                    &format!(
                        "read off the host: NVMe controller at {} on root bus {bus} with no port above it, slot {}",
                        d.bdf,
                        d.slot.as_deref().map(clean).unwrap_or_else(|| "-".into())
                    ),
                ),
            );
            self.s.bays += 1;
            if in_first(hosts, d) {
                self.build_bays.insert(number, part.id);
            }
        }
    }

    /// The build file: the platform, then each planned card by slot and drive by bay.
    fn build_text(&self, id: &LearnedId, what: &str, host_source: &str) -> String {
        let mut build = String::new();
        let _ = writeln!(
            build,
            "# What {} holds, learned by `laneplan learn`.\n\
             # laneplan --platform-dir platform check build.toml",
            comment(what)
        );
        let _ = writeln!(build, "platform = {}", q(id.as_str()));
        let _ = writeln!(build, "name = {}", q(&format!("As found on {host_source}")));
        build.push_str(&self.build_slots);
        for (n, part) in &self.build_bays {
            let _ = writeln!(build, "\n[[bay]]\nbays = \"{n}\"\npart = {}", q(part));
        }
        build
    }
}

/// Whether the first capture (the build's) holds the function `d` (by address).
fn in_first(hosts: &[HostView], d: &FunctionReport) -> bool {
    hosts[0].audit.functions.iter().any(|f| f.bdf == d.bdf)
}

/// A part for an NVMe controller that shows no PCI ids (a POWER host's drive on its own
/// root bus): named by its model, its class inferred from its `nvme` controller.
fn drive_part(d: &DriveReport, model: &str, source: &str) -> PartRef {
    let model = clean(model);
    let id = format!("nvme-{}", slug(&model));
    let t = Table::new("part", None)
        .set("id", q(&id))
        .set("name", q(&model))
        .set("class", q(class_name(DeviceClass::Nvme)))
        .set("interface", q("nvme"))
        .set(
            "size",
            "\"2.5\" # inferred: the host does not show the form factor; check the drive",
        )
        .set("gen", 1)
        .set("width", 1)
        .source(
            "inferred",
            &format!(
                "{source}: model {} of controller {} at {}; class NVMe inferred from its nvme controller (the function shows no vendor, device or class); no link to measure, x1 Gen1 as a placeholder: add its generation, width, form factor, capacity and speeds",
                model,
                d.controller.as_deref().unwrap_or("-"),
                d.bdf.map_or_else(|| "-".to_string(), |b| b.to_string())
            ),
        );
    PartRef {
        id,
        mechanical: 1,
        fits: vec![SlotKind::pcie()],
        new: Some(t),
    }
}

/// A `[[slot_kind]]` declaration for `kind`, which the catalogue part `part` fits: label and
/// short name as the first catalogue platform that declares the kind gives them, else the id.
fn slot_kind_decl(catalog: &Catalog, kind: &SlotKind, part: &str) -> String {
    let known = catalog
        .platforms
        .values()
        .flat_map(|p| p.def.slot_kinds.iter())
        .find(|d| d.id.get_ref() == kind);
    let label = known.map_or_else(|| kind.as_str().to_string(), |d| d.label.clone());
    let t = Table::new("slot_kind", None)
        .set("id", q(kind.as_str()))
        .set("label", q(&label))
        .set_if("short", known.and_then(|d| d.short.as_deref()).map(q));
    t.set(
        "source",
        q(&format!(
            "learned: the host holds {part}, which fits only this kind of slot"
        )),
    )
    .0
}

/// A `[[builtin]]` table for the device `d` on root complex `rid`, up to its source.
fn builtin(d: &FunctionReport, rid: &str, width: u8, generation: u8) -> Table {
    Table::new("builtin", None)
        .set("id", q(&format!("onboard-{}", slug_bdf(d.bdf))))
        .set("label", q(&format!("{} ({})", d.name, PciIds::text(d.ids))))
        .set("class", q(class_name(class_of(d))))
        .set("root_complex", q(rid))
        .set("width", width)
        .set("gen", generation)
}

fn bay_group(body: &mut String, bays: &[Bay], via: &str, to: &str) {
    let numbers: Vec<u32> = bays.iter().map(|b| b.number).collect();
    let slots: Vec<Option<u32>> = bays.iter().map(|b| b.slot).collect();
    // In bay order; a list where the numbers do not run in order.
    let slot_numbers = slots.iter().all(Option::is_some).then(|| {
        let ns: Vec<u32> = slots.iter().flatten().copied().collect();
        let text = if ns.windows(2).all(|w| w[1] == w[0] + 1) {
            ranges(&ns)
        } else {
            ns.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        };
        q(&text)
    });
    let ports: Vec<String> = bays
        .iter()
        .map(|b| {
            format!(
                "{}{}{}",
                b.port.bdf,
                b.slot.map(|n| format!(" slot {n}")).unwrap_or_default(),
                if b.hotplug { " hot-plug" } else { "" }
            )
        })
        .collect();
    body.push_str(
        &Table::new(
            "bays",
            Some("inferred: size, position and backplane are not shown by the host; check the chassis"),
        )
        .set("bays", q(&ranges(&numbers)))
        .set("size", q("2.5"))
        .set("interfaces", "[\"nvme\"]")
        .set("via", q(via))
        .set("to", q(to))
        .set_if("slot_numbers", slot_numbers)
        .set("backplane", q("NVMe backplane (learned)"))
        .source(
            "inferred",
            &format!("read off the host: NVMe ports {}", ports.join(", ")),
        ),
    );
}

/// The files of a learned set: paths relative to the output directory, built only from the
/// validated id.
pub fn files(learned: &Learned) -> Vec<(PathBuf, &[u8])> {
    let pdir = Path::new("platform");
    let mut files = vec![(
        pdir.join(format!("{}.toml", learned.id)),
        learned.platform.as_bytes(),
    )];
    if let Some(parts) = &learned.parts {
        files.push((
            pdir.join(format!("{}-parts.toml", learned.id)),
            parts.as_bytes(),
        ));
    }
    files.push((PathBuf::from("build.toml"), learned.build.as_bytes()));
    files
}

/// Writes the files under `dir` (`platform/<id>.toml`, `platform/<id>-parts.toml`,
/// `build.toml`) as one set ([`write_set`]: all or none, existing files only with `force`,
/// never through a symlink). Returns the paths written.
pub fn write(learned: &Learned, dir: &Path, force: bool) -> std::io::Result<Vec<PathBuf>> {
    write_set(dir, &files(learned), force)
}

/// Whether the learned files load as the CLI would load them beside `catalog`: each within
/// the loader's size limit, the parts and the platform accepted, the build parsed and checked
/// without an error finding. The error says which file and why; `learn` writes nothing then.
pub fn loads(learned: &Learned, catalog: &Catalog) -> Result<(), String> {
    use crate::source::{MAX_INPUT_BYTES, SourceFile};
    for (rel, data) in files(learned) {
        if data.len() as u64 > MAX_INPUT_BYTES {
            return Err(format!(
                "{} would be {} bytes ({:.1} MB), over the {} MiB the loader reads (learn from fewer functions, or split the host)",
                rel.display(),
                data.len(),
                data.len() as f64 / 1e6,
                MAX_INPUT_BYTES >> 20
            ));
        }
    }
    // `file:line:column: message` of the first error (the rest follow from it).
    let first = |what: &str, errors: &[InputError]| -> String {
        match errors.first() {
            Some(e) => format!(
                "the {what} would not load: {}:{}:{}: {}",
                e.file, e.line, e.column, e.message
            ),
            None => format!("the {what} would not load"),
        }
    };
    let pname = format!("platform/{}.toml", learned.id);
    let mut cat = catalog.clone();
    if let Some(parts) = &learned.parts {
        cat.add_file(SourceFile::new(
            format!("platform/{}-parts.toml", learned.id),
            parts.clone(),
        ))
        .map_err(|e| first("parts file", &e.errors))?;
    }
    cat.add_file(SourceFile::new(pname, learned.platform.clone()))
        .map_err(|e| first("platform file", &e.errors))?;
    let file = SourceFile::new("build.toml", learned.build.clone());
    let build: crate::platform::schema::BuildFile = crate::source::parse_toml(&file)
        .map_err(|e| first("build file", std::slice::from_ref(&e)))?;
    let report =
        crate::plan::check_build(&cat, &build, file).map_err(|e| first("build file", &e.errors))?;
    if let Some(f) = report
        .findings
        .iter()
        .find(|f| f.severity == crate::finding::Severity::Error)
    {
        return Err(format!(
            "the build would fail `check`: {} {}",
            f.code, f.message
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_loaders_grammar() {
        for bad in [
            "",
            "/some/dir/victim",
            "../x",
            "x/y",
            "a\nb",
            "Upper",
            ".x",
            "-x",
        ] {
            let e = LearnedId::parse(bad).unwrap_err();
            assert!(e.contains("id"), "{bad:?}: {e}");
        }
        assert!(LearnedId::parse(&"a".repeat(129)).is_err());
        assert_eq!(
            LearnedId::parse("r7525-lab.2").unwrap().as_str(),
            "r7525-lab.2"
        );
    }

    #[test]
    fn non_ascii_product_names_give_usable_ids() {
        let cases = [
            ("PowerEdge R7525", "learned-poweredge-r7525"),
            (
                "Serveur Édition Spéciale",
                "learned-serveur-edition-speciale",
            ),
            ("Straße Ø1", "learned-strasse-o1"),
            ("\u{1b}[31mX\u{7}", "learned-31mx"),
        ];
        for (p, want) in cases {
            let id = LearnedId::from_product(p);
            assert_eq!(id.as_str(), want);
            assert!(crate::platform::valid_id(id.as_str()));
        }
        // Nothing left of the name: a stable hashed id, never `learned-`.
        let id = LearnedId::from_product("服务器");
        assert!(
            id.as_str().starts_with("learned-host-") && id.as_str().len() == 21,
            "{id}"
        );
        assert_eq!(id, LearnedId::from_product("服务器"));
        assert!(crate::platform::valid_id(id.as_str()));
    }

    fn r7425() -> HostView {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shared/lspci-r7425");
        let f = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(".lspci-vvnn.txt"))
            .unwrap();
        read_lspci_file(&f, None).unwrap()
    }

    #[test]
    fn files_the_loader_would_refuse_are_refused_with_the_reason() {
        let cat = Catalog::builtin().unwrap();
        let opts = LearnOptions {
            id: Some(LearnedId::parse("x").unwrap()),
            ..Default::default()
        };
        let l = learn(&r7425(), &cat, &opts);
        assert_eq!(loads(&l, &cat), Ok(()));
        // Over the loader's 16 MiB (a 100k-function host wrote 30 MB before).
        let mut big = l.clone();
        big.platform.push_str(&"# padding\n".repeat(1_700_000));
        let e = loads(&big, &cat).unwrap_err();
        assert!(
            e.starts_with("platform/x.toml would be 17") && e.contains("over the 16 MiB"),
            "{e}"
        );
        // A build naming a slot the platform lacks: `check` would fail, so nothing is written.
        let mut bad = l.clone();
        bad.build
            .push_str("\n[[slot]]\nslot = \"nope\"\npart = \"intel-i350-rndc\"\n");
        let e = loads(&bad, &cat).unwrap_err();
        assert!(e.contains("build"), "{e}");
        // A platform id the catalogue already has: the loader refuses the duplicate.
        let dup = learn(
            &r7425(),
            &cat,
            &LearnOptions {
                id: Some(LearnedId::parse("r7425").unwrap()),
                ..Default::default()
            },
        );
        assert!(
            loads(&dup, &cat)
                .unwrap_err()
                .contains("platform file would not load")
        );
    }

    #[test]
    fn control_characters_are_made_visible() {
        assert_eq!(clean("a\u{1b}b\nc\u{7f}"), "a\\u{1b}b\\u{a}c\\u{7f}");
        assert_eq!(q("x\ny"), "'x\\u{a}y'");
        assert!(!comment("p\n[options]").contains('\n'));
    }
}
