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

use crate::host::audit::{Audit, AuditOptions, FunctionReport};
use crate::host::model::{HostScan, SlotCap};
use crate::host::tree::{FnKind, device_class};
use crate::host::{fs, lspci, names, sysfs};
use crate::platform::Catalog;
use crate::platform::schema::SlotKind;
use crate::topology::DeviceClass;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What `learn` writes: file names (relative to the output directory) and their text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Learned {
    /// The platform id (`learned-poweredge-r7525`).
    pub id: String,
    /// `platform/<id>.toml`
    pub platform: String,
    /// `platform/<id>-parts.toml`, when the host holds parts the catalogue lacks.
    pub parts: Option<String>,
    /// `build.toml`
    pub build: String,
    /// Counts for the summary line.
    pub summary: Summary,
    /// What the source left unsaid and how learn filled it (`learn --redfish`: drives placed
    /// by the order their controller lists them).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub sockets: usize,
    pub root_complexes: usize,
    pub slots: usize,
    pub switches: usize,
    pub bays: usize,
    pub builtins: usize,
    pub parts_reused: usize,
    pub parts_new: usize,
    pub skipped_ports: usize,
}

/// Options: the platform id and name to write (derived from the DMI product when absent).
#[derive(Debug, Clone, Default)]
pub struct LearnOptions {
    pub id: Option<String>,
}

/// A host read for learning: its scan (slot capabilities), its audit (tree, names), what
/// it is, and the CPU model where the source shows one.
pub struct HostView {
    pub scan: HostScan,
    pub audit: Audit,
    pub cpu: Option<String>,
    /// `sysfs:/`, `lspci:FILE`.
    pub source: String,
}

/// Reads a sysfs tree (`/` for this host, or a capture).
pub fn read_sysfs(root: &Path, pci_ids: Option<&Path>) -> HostView {
    let fsys = fs::SysFs::new(root);
    let (scan, findings) = sysfs::read_host(&fsys);
    let names = names::for_root(&fsys, pci_ids);
    let source = format!("sysfs:{}", root.display());
    let mut audit = crate::host::audit::audit(
        &scan,
        names.as_ref(),
        &source,
        AuditOptions::default(),
        findings,
    );
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
    HostView {
        scan,
        audit,
        cpu,
        source,
    }
}

/// Reads an `lspci -vvnn` dump (names come from the dump).
pub fn read_lspci(text: &str, file: &str) -> HostView {
    let (scan, findings) = lspci::parse(text, file);
    let source = format!("lspci:{file}");
    let audit = crate::host::audit::audit(
        &scan,
        &names::Embedded,
        &source,
        AuditOptions::default(),
        findings,
    );
    HostView {
        scan,
        audit,
        cpu: None,
        source,
    }
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
    /// An onboard device (no physical slot).
    Builtin(&'a FunctionReport),
}

struct Bay<'a> {
    port: &'a FunctionReport,
    slot: Option<u32>,
    hotplug: bool,
    drive: Option<&'a FunctionReport>,
    /// Filled once every bay is known: the bay number.
    number: u16,
}

struct Rc<'a> {
    port: &'a FunctionReport,
    numa: u32,
    holds: Holds<'a>,
}

/// Learns from a host view. `catalog` supplies parts to reuse (by `pci` ids).
pub fn learn(host: &HostView, catalog: &Catalog, opts: &LearnOptions) -> Learned {
    let a = &host.audit;
    let mut funcs: Vec<&FunctionReport> = a.functions.iter().collect();
    funcs.sort_by(|x, y| x.bdf.cmp(&y.bdf));
    let caps: BTreeMap<String, SlotCap> = host
        .scan
        .functions
        .iter()
        .filter_map(|f| Some((f.bdf?.to_string(), f.slot_cap?)))
        .collect();
    let children = |bdf: &str| -> Vec<&FunctionReport> {
        funcs
            .iter()
            .copied()
            .filter(|f| f.parent.as_deref() == Some(bdf))
            .collect()
    };
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
        let below = children(&f.bdf)
            .into_iter()
            .find_map(|k| from_name(&k.slot));
        let n = cap
            .number
            .filter(|&n| n > 0)
            .or_else(|| from_name(&f.slot))
            .or(below);
        (n, cap.hotplug)
    };
    // A port holds a bay when an NVMe drive sits on it, or when it is hot-plug and empty.
    let as_bay = |port: &FunctionReport| -> bool {
        let kids = children(&port.bdf);
        kids.iter().any(|k| is_nvme(k)) || (kids.is_empty() && slot_of(port).1)
    };
    let mut rcs: Vec<Rc> = Vec::new();
    let mut skipped = 0;
    for rp in funcs.iter().copied().filter(|f| f.kind == FnKind::RootPort) {
        let kids = children(&rp.bdf);
        let below = descendants_of(&a.functions, &rp.bdf);
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
            && !children(&up.bdf).is_empty()
            && children(&up.bdf)
                .iter()
                .all(|d| d.kind == FnKind::SwitchPort && as_bay(d))
        {
            let bays = children(&up.bdf)
                .into_iter()
                .map(|d| {
                    let (slot, hotplug) = slot_of(d);
                    Bay {
                        port: d,
                        slot,
                        hotplug,
                        drive: children(&d.bdf).into_iter().find(|k| is_nvme(k)),
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
                    && f.bdf.ends_with(".0")
                    && (number.is_some()
                        || !(vendor_of(f) == vendor_of(rp) && class_of(f) == DeviceClass::Other))
            });
            match (card, number) {
                (None, None) => {
                    skipped += 1;
                    continue;
                }
                (card, Some(n)) => Holds::Slot {
                    number: Some(n),
                    card,
                },
                (Some(c), None) => Holds::Builtin(c),
            }
        };
        rcs.push(Rc {
            port: rp,
            numa,
            holds,
        });
    }

    // Bays numbered by slot number (the host's own numbering), then by address.
    let mut order: Vec<(Option<u32>, String)> = Vec::new();
    for rc in &rcs {
        match &rc.holds {
            Holds::Bay(b) => order.push((b.slot, b.port.bdf.clone())),
            Holds::Switch { bays, .. } => {
                order.extend(bays.iter().map(|b| (b.slot, b.port.bdf.clone())))
            }
            _ => {}
        }
    }
    order.sort_by(|x, y| (x.0.is_none(), x.0, &x.1).cmp(&(y.0.is_none(), y.0, &y.1)));
    let number_of: BTreeMap<String, u16> = order
        .iter()
        .enumerate()
        .map(|(i, (_, b))| (b.clone(), u16::try_from(i).unwrap_or(u16::MAX)))
        .collect();
    for rc in &mut rcs {
        match &mut rc.holds {
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

    // Devices integrated on a root bus (no port above them), other than bridges and the
    // CPU's or chipset's own functions (a host bridge's vendor with no storage, network or
    // display class): a virtual machine's virtio devices, for one.
    let host_vendors: std::collections::BTreeSet<&str> = funcs
        .iter()
        .filter(|h| h.class.as_deref().is_some_and(|c| c.starts_with("0x0600")))
        .map(|h| vendor_of(h))
        .collect();
    let mut integrated: BTreeMap<String, Vec<&FunctionReport>> = BTreeMap::new();
    for f in funcs.iter().copied() {
        let is_bridge = f.class.as_deref().is_some_and(|c| c.starts_with("0x06"));
        if f.parent.is_none()
            && f.kind == FnKind::Device
            && f.bdf.ends_with(".0")
            && !is_bridge
            && !(host_vendors.contains(vendor_of(f)) && class_of(f) == DeviceClass::Other)
        {
            integrated.entry(f.root_bus.clone()).or_default().push(f);
        }
    }
    write_files(host, catalog, opts, &rcs, &integrated, skipped)
}

fn vendor_of(f: &FunctionReport) -> &str {
    f.ids.split(':').next().unwrap_or("")
}

fn class_of(f: &FunctionReport) -> DeviceClass {
    device_class(
        f.class
            .as_deref()
            .and_then(|c| u32::from_str_radix(c.trim_start_matches("0x"), 16).ok()),
    )
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
fn slug_bdf(bdf: &str) -> String {
    bdf.replace([':', '.'], "-")
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

/// A TOML basic string.
fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
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
fn port_gw(rp: &FunctionReport, all: &[FunctionReport]) -> (u8, u8) {
    gen_width(rp).unwrap_or_else(|| {
        descendants_of(all, &rp.bdf)
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
    let sub = f.subsystem.clone();
    let hit = catalog.parts.values().find(|p| {
        p.def.pci.iter().any(|id| {
            id.id.get_ref().eq_ignore_ascii_case(&f.ids)
                && id.subsystem.as_ref().is_none_or(|s| {
                    sub.as_deref()
                        .is_some_and(|x| s.get_ref().eq_ignore_ascii_case(x))
                })
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
        Some(s) => format!("pci-{}-{}", f.ids, s).replace(':', "-"),
        None => format!("pci-{}", f.ids).replace(':', "-"),
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
        .as_deref()
        .map(|s| format!(", subsystem = {}", q(s)))
        .unwrap_or_default();
    let t = t
        .set("gen", gw.0)
        .set("width", gw.1)
        .set(
            "pci",
            format!(
                "[{{ id = {}{subsystem}, source = {} }}]",
                q(&f.ids),
                q(source)
            ),
        )
        .source(
            "measured",
            &format!(
                "{source}: {} at {}, link max {}; name from pci.ids. Card height and length, and drive capacity and speeds, are not shown by the host: add them",
                f.ids,
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

fn write_files(
    host: &HostView,
    catalog: &Catalog,
    opts: &LearnOptions,
    rcs: &[Rc],
    integrated: &BTreeMap<String, Vec<&FunctionReport>>,
    skipped: usize,
) -> Learned {
    let a = &host.audit;
    let source = &host.source;
    let product = a.product.clone();
    let id = opts.id.clone().unwrap_or_else(|| match &product {
        Some(p) => format!("learned-{}", slug(p)),
        None => "learned-host".to_string(),
    });
    let name = match &product {
        Some(p) => format!("{p} (learned)"),
        None => format!("Host learned from {source}"),
    };
    let mut s = Summary {
        skipped_ports: skipped,
        ..Default::default()
    };
    let mut p = String::new();
    let _ = writeln!(
        p,
        "# Learned by `laneplan learn` from {source}.\n\
         # confidence: measured = read off the host; inferred = not shown by the host: check it.\n\
         # Each root port that leads somewhere is one root complex (the host does not say how\n\
         # ports group into x16 blocks); merge them by hand where the CPU's documents say so."
    );
    let _ = writeln!(p, "id = {}", q(&id));
    let _ = writeln!(p, "name = {}", q(&name));
    let _ = writeln!(
        p,
        "form = \"2U\" # inferred: the host does not show its height; check the chassis"
    );
    let _ = writeln!(p, "source = {}", q(source));
    if let Some(prod) = &product {
        let _ = writeln!(p, "dmi_names = [{}]", q(prod));
    }

    // Sockets: one per NUMA node.
    let mut numas: BTreeMap<u32, (u16, u8)> = BTreeMap::new();
    for rc in rcs {
        let (g, w) = port_gw(rc.port, &a.functions);
        let e = numas.entry(rc.numa).or_default();
        e.0 += u16::from(w);
        e.1 = e.1.max(g);
    }
    for devs in integrated.values() {
        let n = devs.iter().find_map(|f| f.numa_node).unwrap_or(0);
        let e = numas.entry(n).or_default();
        e.0 += u16::try_from(devs.len()).unwrap_or(u16::MAX);
        e.1 = e.1.max(1);
    }
    if numas.is_empty() {
        numas.insert(0, (0, 3));
    }
    let cpu = host.cpu.clone();
    for (i, (n, (lanes, g))) in numas.iter().enumerate() {
        let cpu = match &cpu {
            Some(c) => q(c),
            None => "\"unknown\" # the source does not name the CPU: check /proc/cpuinfo".into(),
        };
        p.push_str(
            &Table::new(
                "socket",
                Some(
                    "inferred: one socket per NUMA node; a socket may hold several nodes (check `lscpu`)",
                ),
            )
            .set("id", q(&format!("numa{n}")))
            .set("label", q(&format!("NUMA node {n}")))
            .set("index", i)
            .set("cpu", cpu)
            .set("lanes", (*lanes).max(1))
            .set("gen", g)
            .set("numa_nodes", format!("[{n}]"))
            .source(
                "inferred",
                &format!(
                    "read off the host: the lanes of the root ports seen on NUMA node {n}, not the CPU's total"
                ),
            ),
        );
    }
    s.sockets = numas.len();

    let mut parts_text = String::new();
    let mut parts_seen: BTreeMap<String, ()> = BTreeMap::new();
    let mut build_slots = String::new();
    let mut build_bays: BTreeMap<u16, String> = BTreeMap::new();
    // Slot kinds other than `pcie` the learned slots take (declared before the slots).
    let mut kinds: BTreeMap<SlotKind, String> = BTreeMap::new();
    let mut body = String::new();
    let mut part_for_dev = |f: &FunctionReport, fallback: (u8, u8), s: &mut Summary| -> PartRef {
        let gw = gen_width(f).unwrap_or(fallback);
        let r = part_for(f, catalog, gw, source);
        if parts_seen.insert(r.id.clone(), ()).is_none() {
            match &r.new {
                Some(t) => {
                    parts_text.push_str(t);
                    s.parts_new += 1;
                }
                None => s.parts_reused += 1,
            }
        }
        r
    };

    for rc in rcs {
        let rp = rc.port;
        let rid = format!("rp-{}", slug_bdf(&rp.bdf));
        let (g, w) = port_gw(rp, &a.functions);
        let mut locator = vec![rp.bdf.clone()];
        for f in descendants_of(&a.functions, &rp.bdf) {
            let bus = f.bdf.rsplit_once(':').map(|(b, _)| b.to_string());
            if let Some(b) = bus
                && !locator.contains(&b)
            {
                locator.push(b);
            }
        }
        let locs: Vec<String> = locator.iter().map(|l| q(l)).collect();
        body.push_str(
            &Table::new("root_complex", None)
                .set("id", q(&rid))
                .set("label", q(&format!("Root port {}", rp.bdf)))
                .set("socket", q(&format!("numa{}", rc.numa)))
                .set("lanes", w)
                .set("gen", g)
                .set("numa_node", rc.numa)
                .set("locator", format!("[{}]", locs.join(", ")))
                .source(
                    "measured",
                    &format!(
                        "read off the host: root port {} ({}), link max {}",
                        rp.bdf,
                        rp.ids,
                        rp.link_max
                            .map(|l| l.label())
                            .unwrap_or_else(|| "unknown (gen 3 x4 assumed)".into())
                    ),
                ),
        );
        s.root_complexes += 1;
        match &rc.holds {
            Holds::Bay(b) => {
                bay_group(&mut body, std::slice::from_ref(b), "direct", &rid);
                if let Some(d) = b.drive {
                    let part = part_for_dev(d, (g, 4), &mut s);
                    build_bays.insert(b.number, part.id);
                }
                s.bays += 1;
            }
            Holds::Switch { up, bays } => {
                let sid = format!("switch-{}", slug_bdf(&up.bdf));
                // A switch trains no wider than the port above it.
                let (sg, sw) = gen_width(up).unwrap_or((g, w));
                let sw = sw.min(w);
                body.push_str(
                    &Table::new("switch", None)
                        .set("id", q(&sid))
                        .set("label", q(&format!("{} ({})", up.name, up.bdf)))
                        .set("uplink", q(&rid))
                        .set("uplink_width", sw)
                        .set("gen", sg)
                        .source(
                            "measured",
                            &format!(
                                "read off the host: switch upstream port {} ({}) with {} downstream ports",
                                up.bdf,
                                up.ids,
                                bays.len()
                            ),
                        ),
                );
                bay_group(&mut body, bays, "switch", &sid);
                for b in bays {
                    if let Some(d) = b.drive {
                        let part = part_for_dev(d, (sg, 4), &mut s);
                        build_bays.insert(b.number, part.id);
                    }
                }
                s.switches += 1;
                s.bays += bays.len();
            }
            Holds::Slot { number, card } => {
                let sid = match number {
                    Some(n) => format!("slot{n}-{}", slug_bdf(&rp.bdf)),
                    None => format!("slot-{}", slug_bdf(&rp.bdf)),
                };
                let part = card.map(|c| part_for_dev(c, (g, w), &mut s));
                // The connector takes the card's edge: a card may train narrower than its edge.
                let mech = part.as_ref().map_or(w, |p| p.mechanical.max(w));
                // A card that fits no PCIe slot (a vendor's storage-controller slot, an OCP
                // NIC slot) proves its slot is of a kind it fits: the first it lists.
                let kind = part
                    .as_ref()
                    .filter(|p| !p.fits.iter().any(|k| k.as_str() == SlotKind::PCIE))
                    .and_then(|p| p.fits.first().cloned());
                if let (Some(k), Some(p)) = (&kind, &part) {
                    kinds
                        .entry(k.clone())
                        .or_insert_with(|| slot_kind_decl(catalog, k, &p.id));
                }
                let label = match number {
                    Some(n) => format!("Slot {n}"),
                    None => format!("Slot at {}", rp.bdf),
                };
                body.push_str(
                    &Table::new("slot", None)
                        .set("id", q(&sid))
                        .set(
                            "label",
                            format!(
                                "{} # inferred: the host's slot number; check the chassis label",
                                q(&label)
                            ),
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
                        .set("root_complex", q(&rid))
                        .set("electrical", w)
                        .set(
                            "mechanical",
                            format!(
                                "{mech} # inferred: the connector may be wider; check the riser"
                            ),
                        )
                        .set("gen", g)
                        .set_if("slot_number", *number)
                        .source(
                            "measured",
                            &format!(
                                "read off the host: root port {} reports physical slot {}; height and length not shown (check the riser)",
                                rp.bdf,
                                number.map(|n| n.to_string()).unwrap_or_else(|| "-".into())
                            ),
                        ),
                );
                if let Some(p) = part {
                    let _ = writeln!(
                        build_slots,
                        "\n[[slot]]\nslot = {}\npart = {}",
                        q(&sid),
                        q(&p.id)
                    );
                }
                s.slots += 1;
            }
            Holds::Builtin(d) => {
                let (dg, dw) = gen_width(d).unwrap_or((g, w));
                body.push_str(&builtin(d, &rid, dw.min(w).max(1), dg.min(g).max(1)).source(
                    "inferred",
                    &format!(
                        "read off the host: {} at {} on a port without a physical slot: onboard, or a slot whose number the firmware does not report (check the service manual)",
                        d.ids, d.bdf
                    ),
                ));
                s.builtins += 1;
            }
        }
    }
    for (bus, devs) in integrated {
        let rid = format!("bus-{}", slug_bdf(bus));
        let numa = devs.iter().find_map(|f| f.numa_node).unwrap_or(0);
        let locs: Vec<String> = devs.iter().map(|f| q(&f.bdf)).collect();
        body.push_str(
            &Table::new("root_complex", None)
                .set("id", q(&rid))
                .set("label", q(&format!("Root bus {bus} (integrated devices)")))
                .set("socket", q(&format!("numa{numa}")))
                .set("lanes", devs.len())
                .set("gen", 1)
                .set("numa_node", numa)
                .set("locator", format!("[{}]", locs.join(", ")))
                .source(
                    "inferred",
                    &format!(
                        "read off the host: devices on root bus {bus} with no port above them (integrated, or a virtual machine's): no link to measure, one lane each as a placeholder"
                    ),
                ),
        );
        s.root_complexes += 1;
        for d in devs {
            body.push_str(&builtin(d, &rid, 1, 1).source(
                "inferred",
                &format!("read off the host: {} at {} on the root bus", d.ids, d.bdf),
            ));
            s.builtins += 1;
        }
    }
    for decl in kinds.values() {
        p.push_str(decl);
    }
    p.push_str(&body);

    let parts = (!parts_text.is_empty()).then(|| {
        format!(
            "# Parts learned by `laneplan learn` from {source} that the catalogue lacks.\n\
             # Add what the host does not show (perf figures, height, length, capacity).\n{parts_text}"
        )
    });
    let mut build = String::new();
    let _ = writeln!(
        build,
        "# What {source} holds, learned by `laneplan learn`.\n\
         # laneplan --platform-dir platform check build.toml"
    );
    let _ = writeln!(build, "platform = {}", q(&id));
    let _ = writeln!(build, "name = {}", q(&format!("As found on {source}")));
    build.push_str(&build_slots);
    for (n, part) in &build_bays {
        let _ = writeln!(build, "\n[[bay]]\nbays = \"{n}\"\npart = {}", q(part));
    }
    Learned {
        id,
        platform: p,
        parts,
        build,
        summary: s,
        notes: Vec::new(),
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
        .set("id", q(&format!("onboard-{}", slug_bdf(&d.bdf))))
        .set("label", q(&format!("{} ({})", d.name, d.ids)))
        .set("class", q(class_name(class_of(d))))
        .set("root_complex", q(rid))
        .set("width", width)
        .set("gen", generation)
}

fn descendants_of<'a>(all: &'a [FunctionReport], bdf: &str) -> Vec<&'a FunctionReport> {
    let mut out = Vec::new();
    let mut stack = vec![bdf.to_string()];
    while let Some(b) = stack.pop() {
        for k in all
            .iter()
            .filter(|f| f.parent.as_deref() == Some(b.as_str()))
        {
            stack.push(k.bdf.clone());
            out.push(k);
        }
    }
    out.sort_by(|x, y| x.bdf.cmp(&y.bdf));
    out
}

fn bay_group(body: &mut String, bays: &[Bay], via: &str, to: &str) {
    let numbers: Vec<u32> = bays.iter().map(|b| u32::from(b.number)).collect();
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

/// Writes the files under `dir` (`platform/<id>.toml`, `platform/<id>-parts.toml`,
/// `build.toml`), each atomically (a temp file in the same directory, then rename).
/// Returns the paths written.
pub fn write(learned: &Learned, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let pdir = dir.join("platform");
    std::fs::create_dir_all(&pdir)?;
    let mut files = vec![(pdir.join(format!("{}.toml", learned.id)), &learned.platform)];
    if let Some(parts) = &learned.parts {
        files.push((pdir.join(format!("{}-parts.toml", learned.id)), parts));
    }
    files.push((dir.join("build.toml"), &learned.build));
    let mut out = Vec::new();
    for (path, text) in files {
        crate::host::render::write_atomic(&path, text)?;
        out.push(path);
    }
    Ok(out)
}
