//! From a [`HostScan`] to the live tree and the one [`Topology`] type plans use too.
//!
//! Parents come from the canonical sysfs path when the source has them, else (lspci dumps)
//! from the bridges' bus ranges: a function hangs below the narrowest bridge whose
//! `[secondary, subordinate]` holds its bus. Either way the ranges are cross-checked.

use super::model::*;
use crate::finding::{Code, Finding, Location};
use crate::pcie::{Gen, LinkRate};
use crate::pciids::PciNames;
use crate::topology::{DeviceClass, Link, Node, NodeKind, PciIdent, Topology};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What a function is in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FnKind {
    RootPort,
    /// A switch upstream port.
    Switch,
    /// A switch downstream port.
    SwitchPort,
    Bridge,
    Device,
    /// A function of the CPU or chipset itself (host bridges, root-complex integrated
    /// endpoints, uncore registers, data fabric, dummy functions, IOMMU, PCH functions, the
    /// BMC's video and its bridge): shown in the tree, never a planned or unexpected part.
    Platform,
}

impl FnKind {
    pub fn is_port(self) -> bool {
        matches!(self, FnKind::RootPort | FnKind::SwitchPort | FnKind::Bridge)
    }
    pub fn name(self) -> &'static str {
        match self {
            FnKind::RootPort => "root port",
            FnKind::Switch => "switch upstream port",
            FnKind::SwitchPort => "switch downstream port",
            FnKind::Bridge => "bridge",
            FnKind::Device => "device",
            FnKind::Platform => "platform function",
        }
    }
}

/// The PCI tree of a live host: functions sorted by address, with parents and kinds.
#[derive(Debug, Clone, Default)]
pub struct LiveTree {
    pub funcs: Vec<PciFunction>,
    pub parent: Vec<Option<usize>>,
    pub children: Vec<Vec<usize>>,
    pub kind: Vec<FnKind>,
    /// Display name of each function (`Vendor Device`).
    pub names: Vec<String>,
    /// Root buses `(domain, bus)` in order, with the functions directly on each.
    pub roots: BTreeMap<(u32, u8), Vec<usize>>,
    pub index: HashMap<Bdf, usize>,
}

/// The functions of `scan` with an address, each once (a second copy is LP0310 and dropped).
fn unique_functions(scan: &HostScan) -> (Vec<PciFunction>, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut funcs: Vec<PciFunction> = Vec::new();
    let mut seen = BTreeSet::new();
    for f in &scan.functions {
        let Some(b) = f.bdf else { continue };
        if !seen.insert(b) {
            findings.push(
                Finding::of(Code::BusConflict, format!("{b} appears twice in the input"))
                    .with_help("the second copy was ignored")
                    .at_node(b.to_string()),
            );
            continue;
        }
        funcs.push(f.clone());
    }
    (funcs, findings)
}

/// Each function's parent: the sysfs path's bridge where the source has paths (with a
/// finding where its bus range disagrees or a bridge between is hidden), else the narrowest
/// bridge whose bus range holds the function's bus.
fn parents(
    scan: &HostScan,
    funcs: &[PciFunction],
    index: &HashMap<Bdf, usize>,
    findings: &mut Vec<Finding>,
) -> Vec<Option<usize>> {
    let mut parent: Vec<Option<usize>> = vec![None; funcs.len()];
    let narrowest = (!scan.has_parents).then(|| NarrowestBridge::new(funcs));
    for (i, f) in funcs.iter().enumerate() {
        let b = f.bdf();
        let by_range = narrowest.as_ref().and_then(|nb| nb.of(b));
        if scan.has_parents {
            parent[i] = f.parent.and_then(|p| index.get(&p).copied());
            if let Some(p) = parent[i]
                && let Some((s, u)) = funcs[p].bus_range
                && !(s..=u).contains(&b.bus)
            {
                findings.push(
                    Finding::of(
                        Code::BusConflict,
                        format!(
                            "{b} sits below {} in sysfs, but that bridge's buses are [{s:02x}-{u:02x}]",
                            funcs[p].bdf()
                        ),
                    )
                    .with_help("conflicting bus numbers: check the firmware's bus assignment")
                    .at_node(b.to_string()),
                );
            }
            if let Some(h) = f.hidden_ancestors.first() {
                let shown = parent[i]
                    .map(|p| funcs[p].bdf().to_string())
                    .unwrap_or_else(|| "its root bus".into());
                findings.push(
                    Finding::of(
                        Code::HiddenParent,
                        format!(
                            "{b} sits below {h} in /sys/devices, but /sys/bus/pci/devices does not list {h}; shown under {shown}"
                        ),
                    )
                    .with_help("a partial capture (or a hidden bridge): its link is not checked against its real port")
                    .at_node(b.to_string()),
                );
            }
        } else {
            parent[i] = by_range;
        }
    }
    parent
}

/// Cycles cannot come from sysfs paths or ranges, but guard anyway: a function on one has no
/// parent.
fn break_cycles(parent: &mut [Option<usize>]) {
    let n = parent.len();
    for i in 0..n {
        let mut cur = parent[i];
        let mut steps = 0;
        while let Some(p) = cur {
            steps += 1;
            if p == i || steps > n {
                parent[i] = None;
                break;
            }
            cur = parent[p];
        }
    }
}

/// Each function's kind, top-down: root port, switch, switch port, bridge or device, by its
/// Express port type where it has one, else by its place in the tree.
fn kinds(
    funcs: &[PciFunction],
    parent: &[Option<usize>],
    children: &[Vec<usize>],
    roots: &BTreeMap<(u32, u8), Vec<usize>>,
) -> Vec<FnKind> {
    let n = funcs.len();
    let mut kind = vec![FnKind::Device; n];
    let mut order: Vec<usize> = roots.values().flatten().copied().collect();
    let mut k = 0;
    while k < order.len() {
        let i = order[k];
        k += 1;
        order.extend(children[i].iter().copied());
        let f = &funcs[i];
        if !(f.is_bridge || f.bus_range.is_some()) {
            continue;
        }
        let has_bridge_children = children[i]
            .iter()
            .any(|&c| funcs[c].is_bridge || funcs[c].bus_range.is_some());
        kind[i] = match f.port_type {
            Some(PortType::RootPort) => FnKind::RootPort,
            Some(PortType::Upstream) => FnKind::Switch,
            Some(PortType::Downstream) => FnKind::SwitchPort,
            Some(_) => FnKind::Bridge,
            None => match parent[i].map(|p| kind[p]) {
                None => FnKind::RootPort,
                Some(FnKind::Switch) => FnKind::SwitchPort,
                Some(_) if has_bridge_children => FnKind::Switch,
                Some(_) => FnKind::Bridge,
            },
        };
    }
    kind
}

/// A function's name as `lspci -vv` prints it with its Subsystem line: `Dell HBA330 Mini`;
/// generic subsystem names (`... Device`) add nothing.
fn display_name(f: &PciFunction, names: &dyn PciNames) -> String {
    let base = match &f.name {
        Some(n) => n.clone(),
        None => names.describe(f.vendor, f.device),
    };
    // As `lspci -vv` prints it on its Subsystem line: `Dell HBA330 Mini`. Generic
    // subsystem names (`... Device`) add nothing.
    let looked_up;
    let sub = match f.subsystem_name.as_deref() {
        Some(n) => Some(n),
        None => {
            looked_up = subsystem_name(names, f);
            looked_up.as_deref()
        }
    };
    match sub {
        Some(sub) if !sub.ends_with(" Device") && sub != "Device" && sub != base => {
            format!("{base} ({sub})")
        }
        _ => base,
    }
}

/// PCI class code -> device class.
pub fn device_class(class: Option<u32>) -> DeviceClass {
    match class.map(|c| c >> 8) {
        Some(0x0108) => DeviceClass::Nvme,
        Some(0x0104) => DeviceClass::Raid,
        Some(0x0107) | Some(0x0100) | Some(0x0106) => DeviceClass::Hba,
        Some(0x0200) | Some(0x0207) | Some(0x0280) => DeviceClass::Nic,
        Some(0x0300) | Some(0x0302) | Some(0x0380) => DeviceClass::Gpu,
        _ => DeviceClass::Other,
    }
}

impl LiveTree {
    pub fn build(scan: &HostScan, names: &dyn PciNames) -> (LiveTree, Vec<Finding>) {
        let (mut funcs, mut findings) = unique_functions(scan);
        funcs.sort_by_key(|f| f.bdf());
        let index: HashMap<Bdf, usize> = funcs
            .iter()
            .enumerate()
            .map(|(i, f)| (f.bdf(), i))
            .collect();
        let n = funcs.len();

        findings.extend(check_ranges(&funcs));
        let mut parent = parents(scan, &funcs, &index, &mut findings);
        break_cycles(&mut parent);
        let mut children = vec![Vec::new(); n];
        let mut roots: BTreeMap<(u32, u8), Vec<usize>> = BTreeMap::new();
        for i in 0..n {
            match parent[i] {
                Some(p) => children[p].push(i),
                None => roots
                    .entry((funcs[i].bdf().domain, funcs[i].bdf().bus))
                    .or_default()
                    .push(i),
            }
        }
        let mut kind = kinds(&funcs, &parent, &children, &roots);
        mark_platform(&funcs, &parent, &children, &mut kind);
        let names_v = funcs.iter().map(|f| display_name(f, names)).collect();
        (
            LiveTree {
                funcs,
                parent,
                children,
                kind,
                names: names_v,
                roots,
                index,
            },
            findings,
        )
    }

    /// Depth-first order from the root buses.
    pub fn depth_first(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.funcs.len());
        let mut stack: Vec<usize> = self.roots.values().flatten().rev().copied().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.children[i].iter().rev());
        }
        out
    }

    /// The nearest port above `i` (its link partner): root port, downstream port or bridge.
    pub fn upstream_port(&self, i: usize) -> Option<usize> {
        self.parent[i].filter(|&p| self.kind[p].is_port())
    }

    /// The socket side of the tree as the one Topology type.
    pub fn to_topology(&self, name: &str) -> Topology {
        let mut t = Topology::new(name);
        let mut sockets = BTreeMap::new();
        let mut rcs = BTreeMap::new();
        for (&(dom, bus), members) in &self.roots {
            let numa = members.iter().find_map(|&i| self.funcs[i].numa_node);
            let generation = members
                .iter()
                .filter_map(|&i| self.funcs[i].link_max.and_then(|l| l.speed))
                .max()
                .unwrap_or(Gen::G1);
            let id = format!("pci{dom:04x}:{bus:02x}");
            let Ok(rc) = t.add_node(Node::new(
                id.clone(),
                format!("[{dom:04x}:{bus:02x}]"),
                NodeKind::RootComplex {
                    lanes: 0,
                    numa_node: numa,
                    generation,
                },
            )) else {
                continue;
            };
            if let Some(nn) = numa {
                let s = *sockets.entry(nn).or_insert_with(|| {
                    let mut node = Node::new(
                        format!("numa{nn}"),
                        format!("NUMA node {nn}"),
                        NodeKind::Socket {
                            index: u8::try_from(nn).unwrap_or(u8::MAX),
                            lanes: 0,
                            numa_nodes: vec![nn],
                        },
                    );
                    node.confidence = crate::topology::Confidence::Measured;
                    t.add_node(node).unwrap_or_default()
                });
                t.link(s, rc, Link::Attach);
            }
            rcs.insert((dom, bus), rc);
        }
        let mut ix = HashMap::new();
        for i in self.depth_first() {
            let f = &self.funcs[i];
            let max = f.link_max.or(f.link);
            let (g, w) = (
                max.and_then(|l| l.speed).unwrap_or(Gen::G1),
                max.map(|l| l.width).unwrap_or(0),
            );
            let kind = match self.kind[i] {
                FnKind::RootPort => NodeKind::RootPort {
                    width: w,
                    generation: g,
                },
                FnKind::SwitchPort => NodeKind::SwitchPort {
                    width: w,
                    generation: g,
                    number: None,
                },
                FnKind::Switch => NodeKind::Switch {
                    part: Some(self.names[i].clone()),
                },
                FnKind::Bridge => NodeKind::Bridge,
                FnKind::Device | FnKind::Platform => NodeKind::Device {
                    class: device_class(f.class),
                    part: Some(self.names[i].clone()),
                    perf: None,
                },
            };
            let mut node = Node::new(f.bdf().to_string(), f.bdf().to_string(), kind);
            node.confidence = crate::topology::Confidence::Measured;
            node.pci = Some(Box::new(PciIdent {
                bdf: f.bdf(),
                vendor: f.vendor.unwrap_or(0xffff),
                device: f.device.unwrap_or(0xffff),
                class: f.class.unwrap_or(0),
                numa_node: f.numa_node,
                slot: f.slot.clone(),
                driver: f.driver.clone(),
            }));
            let Ok(n) = t.add_node(node) else { continue };
            ix.insert(i, n);
            match self.parent[i] {
                None => {
                    if let Some(&rc) = rcs.get(&(f.bdf().domain, f.bdf().bus)) {
                        t.link(rc, n, Link::Attach);
                    }
                }
                Some(p) => {
                    let Some(&pn) = ix.get(&p) else { continue };
                    t.link(pn, n, self.edge(p, i));
                }
            }
        }
        t
    }

    /// The link between parent `p` and child `i`, as the child reports it.
    fn edge(&self, p: usize, i: usize) -> Link {
        let f = &self.funcs[i];
        let Some(cur) = f.link else {
            return Link::Attach;
        };
        let own_max = f.link_max;
        let port_max = if self.kind[p].is_port() {
            self.funcs[p].link_max
        } else {
            None
        };
        let max = min_link(own_max, port_max);
        let mps = f.mps.unwrap_or(crate::pcie::DEFAULT_MPS);
        let to_rate = |l: LinkState| {
            LinkRate::new(
                l.speed.unwrap_or(Gen::G1),
                if l.speed.is_some() { l.width } else { 0 },
            )
            .with_mps(mps)
        };
        Link::Pcie {
            rate: to_rate(cur),
            max: max.filter(|m| !m.is_down()).map(to_rate),
        }
    }
}

/// The subsystem's name as `lspci -vv` prints it (`Dell HBA330 Mini`): the subsystem
/// vendor's name and the pci.ids subsystem entry of the device, when the source gave none.
fn subsystem_name(names: &dyn PciNames, f: &PciFunction) -> Option<String> {
    let (v, d) = (f.vendor?, f.device?);
    let (sv, sd) = (f.subsystem_vendor?, f.subsystem_device?);
    let sub = pci_ids::Device::from_vid_pid(v, d)?
        .subsystems()
        .find(|s| s.subvendor() == sv && s.subdevice() == sd)?;
    let vendor = names.vendor(sv)?;
    Some(format!("{vendor} {}", sub.name()))
}

/// Class codes (base class and subclass) that are always the CPU's or chipset's own: host
/// bridges (0600, AMD data fabric and dummy host bridges), IOMMU (0806), generic system
/// peripherals (0880, Intel uncore), performance counters (1101), non-essential
/// instrumentation (1300, AMD dummy functions), encryption controllers (1080, AMD PSP/CCP),
/// ISA/LPC bridges (0601), SMBus (0c05), other serial bus (0c80, SPI), memory (0580), MEI
/// (0780), signal processing (1180), PIC/IOAPIC (0800).
fn platform_class(class: Option<u32>) -> bool {
    matches!(
        class.map(|c| c >> 8),
        Some(
            0x0600
                | 0x0601
                | 0x0806
                | 0x0880
                | 0x0800
                | 0x1101
                | 0x1300
                | 0x1080
                | 0x0c05
                | 0x0c80
                | 0x0580
                | 0x0780
                | 0x1180
        )
    )
}

/// Marks the platform functions, from class code, PCIe port type and position in the tree
/// (never from names):
/// * a platform class anywhere;
/// * every non-bridge function directly on a PCIe root bus (root-complex integrated endpoints
///   and chipset functions: they sit on no link a card could fill), except PCIe endpoints and
///   NVMe drives (a partial capture can show those there); on a flat root bus where no
///   function has a PCIe capability or a bus below (a VM's conventional PCI bus) the
///   functions are devices;
/// * every function of a device that has a platform-class function (AMD's internal ports
///   carry a dummy function beside their USB and SATA controllers), and every endpoint below
///   a root port whose sibling root ports (same device) lead to platform functions;
/// * a legacy (non-Express) display controller behind a PCIe-to-PCI bridge, and that bridge:
///   the BMC's video.
fn mark_platform(
    funcs: &[PciFunction],
    parent: &[Option<usize>],
    children: &[Vec<usize>],
    kind: &mut [FnKind],
) {
    let n = funcs.len();
    let is_port = |k: FnKind| k.is_port() || k == FnKind::Switch;
    // Root buses where some function carries a PCIe capability or bridges to a bus below.
    // A flat root bus with neither is a conventional PCI bus (a virtual machine's, or a
    // capture of lone functions): the functions on it are the devices themselves (virtio),
    // not a root complex's own.
    let express_roots: BTreeSet<(u32, u8)> = (0..n)
        .filter(|&i| {
            parent[i].is_none()
                && (funcs[i].port_type.is_some() || is_port(kind[i]) || !children[i].is_empty())
        })
        .map(|i| (funcs[i].bdf().domain, funcs[i].bdf().bus))
        .collect();
    for i in 0..n {
        let f = &funcs[i];
        // Directly on a PCIe root bus: root-complex integrated endpoints and chipset
        // functions, not a PCIe endpoint (a partial capture can show one there) nor an NVMe
        // drive.
        let on_root_bus = parent[i].is_none()
            && express_roots.contains(&(f.bdf().domain, f.bdf().bus))
            && kind[i] == FnKind::Device
            && !matches!(
                f.port_type,
                Some(PortType::Endpoint | PortType::LegacyEndpoint)
            )
            && f.class.map(|c| c >> 8) != Some(0x0108);
        // A host bridge that carries a root port capability (Intel's DMI port).
        let host_bridge_port =
            kind[i] == FnKind::RootPort && children[i].is_empty() && platform_class(f.class);
        if (platform_class(f.class) && !is_port(kind[i])) || on_root_bus || host_bridge_port {
            kind[i] = FnKind::Platform;
        }
    }
    // Devices (bus:dev) holding a platform function: all their functions are the platform's.
    let mut platform_devices = BTreeSet::new();
    for i in 0..n {
        if kind[i] == FnKind::Platform && parent[i].is_some() {
            platform_devices.insert(funcs[i].bdf().device_key());
        }
    }
    for i in 0..n {
        if kind[i] == FnKind::Device && platform_devices.contains(&funcs[i].bdf().device_key()) {
            kind[i] = FnKind::Platform;
        }
    }
    // Internal root ports: a root port device (bus:dev) that also holds a host bridge
    // function (AMD's internal GPP bridges sit beside a dummy host bridge) and one of whose
    // ports leads only to platform functions; its other ports' endpoints are the chipset's
    // too (AMD FCH SATA). A device number shared with a port to platform functions alone
    // proves nothing: an Intel PCH's root ports 00:1c.0 (a real 4-port LOM below) and
    // 00:1c.4 (the BMC below) share one, with no host bridge beside them.
    let host_bridge_devices: BTreeSet<_> = (0..n)
        .filter(|&i| parent[i].is_none() && funcs[i].class.map(|c| c >> 8) == Some(0x0600))
        .map(|i| funcs[i].bdf().device_key())
        .collect();
    let mut internal_port_devices = BTreeSet::new();
    for i in 0..n {
        if kind[i] == FnKind::RootPort
            && !children[i].is_empty()
            && children[i].iter().all(|&c| kind[c] == FnKind::Platform)
            && host_bridge_devices.contains(&funcs[i].bdf().device_key())
        {
            internal_port_devices.insert(funcs[i].bdf().device_key());
        }
    }
    for i in 0..n {
        if kind[i] == FnKind::Device
            && let Some(p) = parent[i]
            && kind[p] == FnKind::RootPort
            && funcs[p].slot_number().is_none()
            && internal_port_devices.contains(&funcs[p].bdf().device_key())
        {
            kind[i] = FnKind::Platform;
        }
    }
    // The BMC's video: a display controller without a PCIe capability behind a
    // PCIe-to-PCI bridge.
    for i in 0..n {
        let f = &funcs[i];
        if kind[i] == FnKind::Device
            && f.class.map(|c| c >> 16) == Some(0x03)
            && f.port_type.is_none()
            && let Some(p) = parent[i]
            && funcs[p].port_type == Some(PortType::PcieToPci)
        {
            kind[i] = FnKind::Platform;
            if children[p].iter().all(|&c| kind[c] == FnKind::Platform) {
                kind[p] = FnKind::Platform;
            }
        }
    }
}

/// The lesser of two link capabilities, per field.
pub fn min_link(a: Option<LinkState>, b: Option<LinkState>) -> Option<LinkState> {
    match (a, b) {
        (Some(a), Some(b)) => Some(LinkState {
            speed: match (a.speed, b.speed) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            },
            width: match (a.width, b.width) {
                (0, y) => y,
                (x, 0) => x,
                (x, y) => x.min(y),
            },
        }),
        (a, b) => a.or(b),
    }
}

/// For every bus of every domain, the narrowest bridge whose bus range holds it (ties: the
/// highest address). Built in one pass over the bridges (each marks the buses of its range,
/// at most 256), so finding every function's parent is linear, not a search per function.
struct NarrowestBridge {
    best: HashMap<u32, Box<BusSlots>>,
}

/// Per bus of one domain: (range width, address, index) of the narrowest bridge holding it.
type BusSlots = [Option<(u8, Bdf, usize)>; 256];

impl NarrowestBridge {
    fn new(funcs: &[PciFunction]) -> Self {
        let mut best: HashMap<u32, Box<BusSlots>> = HashMap::new();
        for (j, f) in funcs.iter().enumerate() {
            let Some((s, u)) = f.bus_range else { continue };
            let b = f.bdf();
            // A bridge's range lies below its own bus; one that claims its own bus holds
            // nothing (so no function is its own parent).
            if b.bus >= s {
                continue;
            }
            let width = u.saturating_sub(s);
            let slots = best
                .entry(b.domain)
                .or_insert_with(|| Box::new([None; 256]));
            for bus in s..=u {
                let cur = &mut slots[usize::from(bus)];
                let better = match cur {
                    None => true,
                    Some((w, other, _)) => {
                        (width, std::cmp::Reverse(b)) < (*w, std::cmp::Reverse(*other))
                    }
                };
                if better {
                    *cur = Some((width, b, j));
                }
            }
        }
        NarrowestBridge { best }
    }

    /// The bridge `b` hangs below (never `b` itself: a bridge's range is above its own bus).
    fn of(&self, b: Bdf) -> Option<usize> {
        self.best.get(&b.domain)?[usize::from(b.bus)].map(|(_, _, j)| j)
    }
}

/// Duplicate secondary buses and partially overlapping ranges.
///
/// Only bridges whose ranges overlap can conflict: a sweep in order of secondary bus pairs
/// each bridge with the ranges that start inside its own (in a valid tree, its descendants),
/// instead of every pair of bridges; findings keep the order of the pairwise walk.
fn check_ranges(funcs: &[PciFunction]) -> Vec<Finding> {
    let bridges: Vec<(Bdf, u8, u8)> = funcs
        .iter()
        .filter_map(|f| f.bus_range.map(|(s, u)| (f.bdf(), s, u)))
        .collect();
    // (first bridge, second bridge or none for a bad range, finding)
    let mut found: Vec<(usize, Option<usize>, Finding)> = Vec::new();
    let valid = |k: usize| {
        let (a, s, u) = bridges[k];
        s <= u && s > a.bus
    };
    let mut by_domain: HashMap<u32, Vec<usize>> = HashMap::new();
    for (k, &(a, s1, u1)) in bridges.iter().enumerate() {
        if !valid(k) {
            found.push((
                k,
                None,
                Finding::of(
                    Code::BusConflict,
                    format!("{a} has bus range [{s1:02x}-{u1:02x}] on bus {:02x}", a.bus),
                )
                .with_help(
                    "a bridge's secondary bus must be above its own and not above its subordinate",
                )
                .at_node(a.to_string()),
            ));
        }
        // A bad range is still compared as the later bridge of a pair, unless it is empty.
        if s1 <= u1 {
            by_domain.entry(a.domain).or_default().push(k);
        }
    }
    for mut ks in by_domain.into_values() {
        ks.sort_by_key(|&k| (bridges[k].1, k));
        for (x, &kx) in ks.iter().enumerate() {
            let ux = bridges[kx].2;
            for &ky in &ks[x + 1..] {
                if bridges[ky].1 > ux {
                    break;
                }
                let (k, m) = (kx.min(ky), kx.max(ky));
                if !valid(k) {
                    continue;
                }
                let (a, s1, u1) = bridges[k];
                let (b, s2, u2) = bridges[m];
                let nested = (s1 <= s2 && u2 <= u1) || (s2 <= s1 && u1 <= u2);
                if s1 == s2 || !nested {
                    found.push((
                        k,
                        Some(m),
                        Finding::of(
                            Code::BusConflict,
                            format!(
                                "{a} [{s1:02x}-{u1:02x}] and {b} [{s2:02x}-{u2:02x}] claim the same buses"
                            ),
                        )
                        .with_help("duplicate or conflicting bus numbers: devices behind them may be unreachable")
                        .at(Location::node(b.to_string())),
                    ));
                }
            }
        }
    }
    found.sort_by_key(|(k, m, _)| (*k, *m));
    found.into_iter().map(|(_, _, f)| f).collect()
}
