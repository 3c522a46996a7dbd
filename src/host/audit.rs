//! The audit: a live tree, its verdicts, and the per-device and per-drive reports every
//! renderer (text, JSON, Prometheus) reads. Returns values and findings; never prints.

use super::model::*;
use super::tree::{FnKind, LiveTree, min_link};
use crate::finding::{Code, Finding, Severity, Subject};
use crate::pciids::PciNames;
use crate::topology::Topology;
use serde::Serialize;

/// Version of the JSON document (`docs/audit-json.md`).
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, Copy)]
pub struct AuditOptions {
    /// Correctable AER errors above this on one function are a warning.
    pub aer_threshold: u64,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions { aer_threshold: 10 }
    }
}

/// Link verdict of one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkStatus {
    /// Trained at what both ends can do.
    Ok,
    /// Below the lesser of its own max and its port's max.
    Downtrained,
    /// Below it, but a chipset-integrated device (reported as a note).
    ChipsetReduced,
    /// A device whose link is down.
    Down,
    /// A port with nothing below and its link down: an empty port, not a fault.
    Empty,
    /// Below its max on a device that lowers its link when idle (GPUs): re-check under load.
    PowerManaged,
    /// Internal to a switch or no link attributes: nothing to judge.
    #[default]
    NotApplicable,
    /// A link the source reports without the maximum to judge it against (hwloc's current
    /// speed only; a Redfish device without `PCIeInterface` maxima).
    Unknown,
}

/// Where an empty port is (`laneplan audit --verbose` and JSON list them all; the text
/// summarises them per switch or root bus).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EmptyPort {
    #[serde(serialize_with = "crate::pci::ser_bdf")]
    pub bdf: crate::pci::Bdf,
    /// The physical slot number the port reports (Slot Capabilities or Physical Slot).
    pub slot_number: Option<u32>,
    /// The switch upstream port it belongs to, or `None` for a root port.
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub switch: Option<Bdf>,
    /// `0000:40`: the root bus it hangs from.
    pub root_bus: RootBus,
    pub hot_plug: bool,
    /// Its place in the tree (`[0000:d7] > 0000:d7:03.0`), for findings.
    #[serde(skip)]
    pub node: String,
}

/// One PCI function in the report.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionReport {
    #[serde(serialize_with = "super::model::ser_bdf")]
    pub bdf: Bdf,
    /// The function above (absent on a root bus).
    #[serde(serialize_with = "super::model::ser_opt_bdf")]
    pub parent: Option<Bdf>,
    /// `0000:17`: the root bus the function hangs from.
    pub root_bus: RootBus,
    pub kind: FnKind,
    /// `8086:2030` (`????:????` in JSON when the source lacks one).
    #[serde(serialize_with = "super::model::ser_ids")]
    pub ids: Option<PciIds>,
    pub subsystem: Option<PciIds>,
    /// `0x060400`
    pub class: Option<ClassCode>,
    pub revision: Option<u8>,
    pub name: String,
    pub driver: Option<String>,
    pub numa_node: Option<u32>,
    pub slot: Option<String>,
    /// The physical slot number the host reports (Slot Capabilities' number of a port, or a
    /// numeric Physical Slot), if any.
    pub slot_number: Option<u32>,
    /// The bay number, filled when a plan is given (per-bay diff); `null` until then.
    pub bay: Option<u32>,
    /// `[secondary, subordinate]` of a bridge.
    pub buses: Option<[u8; 2]>,
    pub link: Option<LinkState>,
    pub link_max: Option<LinkState>,
    /// The current link in GB/s, from a source that gives only that (hwloc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_speed_gbs: Option<f64>,
    /// The kernel's network interfaces of the function (sysfs `net/`), absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub net: Vec<String>,
    /// Max of the port above (its link partner).
    pub upstream_max: Option<LinkState>,
    /// What the link should train at: min(own max, port max).
    pub expected: Option<LinkState>,
    pub link_status: LinkStatus,
    pub mps: Option<u16>,
    pub aer: Option<Aer>,
}

/// One NVMe drive: a controller with its function, link and namespaces.
#[derive(Debug, Clone, Serialize)]
pub struct DriveReport {
    #[serde(serialize_with = "super::model::ser_opt_bdf")]
    pub bdf: Option<Bdf>,
    pub controller: Option<String>,
    pub namespaces: Vec<BlockDev>,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub transport: Option<String>,
    pub slot: Option<String>,
    /// The physical slot number of the drive's port (Slot Capabilities), or its own numeric
    /// Physical Slot: what places it in a bay without a plan.
    pub slot_number: Option<u32>,
    /// The bay number, filled when a plan is given; `null` until then.
    pub bay: Option<u32>,
    pub numa_node: Option<u32>,
    pub link: Option<LinkState>,
    pub link_max: Option<LinkState>,
    pub link_status: LinkStatus,
    /// The root or switch downstream port above it.
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub upstream_port: Option<Bdf>,
    /// Switch upstream port on the path, if any.
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub switch: Option<Bdf>,
    pub subsystem: Option<String>,
    pub aer: Option<Aer>,
}

/// The whole audit. `topology` is the same type a plan produces.
#[derive(Debug, Clone, Serialize)]
pub struct Audit {
    pub schema_version: u32,
    /// `sysfs:/` or `lspci:FILE`.
    pub source: String,
    /// DMI product name (`PowerEdge R740xd`), when the capture has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
    /// DMI system vendor (`sys_vendor`, Redfish `Manufacturer`), when the capture has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
    /// CPU model, where the source says (`/proc/cpuinfo`, Redfish `Processors`, hwloc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_model: Option<String>,
    /// CPU sockets, where the source says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sockets: Option<u32>,
    pub names: String,
    pub functions: Vec<FunctionReport>,
    pub drives: Vec<DriveReport>,
    pub subsystems: Vec<NvmeSubsystem>,
    /// Ports with nothing below (empty bays and slots), each with its slot number.
    pub empty_ports: Vec<EmptyPort>,
    pub findings: Vec<Finding>,
    /// Slots, devices and drives as a chassis-level source (Redfish) describes them; absent
    /// for sources without one (sysfs, lspci, hwloc).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chassis: Option<super::chassis::Chassis>,
    /// Disks as an OS-level source names them (hwloc), each below its PCI function; absent
    /// for the other sources.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<OsDisk>,
    #[serde(skip)]
    pub tree: LiveTree,
    #[serde(skip)]
    pub topology: Topology,
}

impl Audit {
    pub fn has_errors(&self) -> bool {
        crate::finding::has_errors(&self.findings)
    }

    pub fn function(&self, bdf: Bdf) -> Option<&FunctionReport> {
        self.functions.iter().find(|f| f.bdf == bdf)
    }
}

/// Known chipset-integrated functions (Intel C620 "Lewisburg" PCH: integrated X722 and its
/// internal bridges) that report a reduced link without any fault.
pub fn is_chipset_integrated(f: &PciFunction) -> bool {
    matches!((f.vendor, f.device), (Some(0x8086), Some(0x37c0..=0x37d3)))
}

fn below(cur: LinkState, want: LinkState) -> bool {
    let slow = match (cur.speed, want.speed) {
        (Some(c), Some(w)) => c < w,
        _ => false,
    };
    slow || (want.width > 0 && cur.width < want.width)
}

/// Runs the audit over what a reader produced.
pub fn audit(
    scan: &HostScan,
    names: &dyn PciNames,
    source: &str,
    opts: AuditOptions,
    mut findings: Vec<Finding>,
) -> Audit {
    let (tree, f2) = LiveTree::build(scan, names);
    findings.extend(f2);
    let mut verdicts = LinkVerdicts::new(tree.funcs.len());
    for i in 0..tree.funcs.len() {
        judge_link(scan, &tree, i, &mut verdicts, &mut findings);
    }
    let empty_ports = judge_ports(&tree, &mut verdicts.status, &mut findings);
    findings.extend(empty_port_findings(&empty_ports));
    aer_findings(&tree, opts, &mut findings);
    nvme_findings(scan, &mut findings);
    let functions = function_reports(&tree, &verdicts);
    let drives = drives(scan, &tree, &functions);
    crate::finding::sort(&mut findings);
    let topology = tree.to_topology(source);
    Audit {
        product: None,
        vendor: None,
        cpu_model: None,
        sockets: None,
        chassis: None,
        disks: Vec::new(),
        schema_version: SCHEMA_VERSION,
        source: source.to_string(),
        names: names.source(),
        functions,
        drives,
        subsystems: scan.subsystems.clone(),
        empty_ports,
        findings,
        tree,
        topology,
    }
}

/// The link verdicts of every function, indexed like the tree's functions.
struct LinkVerdicts {
    status: Vec<LinkStatus>,
    /// What the link should train at: min(own max, port max).
    expected: Vec<Option<LinkState>>,
    /// Max of the port above.
    upstream_max: Vec<Option<LinkState>>,
}

impl LinkVerdicts {
    /// Nothing judged yet: every function not applicable, without expectations.
    fn new(n: usize) -> Self {
        LinkVerdicts {
            status: vec![LinkStatus::NotApplicable; n],
            expected: vec![None; n],
            upstream_max: vec![None; n],
        }
    }
}

/// Whether function `i` is a port, by kind or by its Express capability (a DMI port is a
/// root port without a bridge header).
fn port_like(tree: &LiveTree, i: usize) -> bool {
    tree.kind[i].is_port()
        || matches!(
            tree.funcs[i].port_type,
            Some(PortType::RootPort | PortType::Downstream)
        )
}

/// Judges the link of function `i` at its downstream end (LinkDown, PowerManagedLink,
/// ChipsetLink, Downtrained); root ports, switch internals and empty ports are left alone.
fn judge_link(
    scan: &HostScan,
    tree: &LiveTree,
    i: usize,
    v: &mut LinkVerdicts,
    findings: &mut Vec<Finding>,
) {
    let f = &tree.funcs[i];
    let port = tree.upstream_port(i);
    let internal = tree.parent[i].is_some_and(|p| tree.kind[p] == FnKind::Switch);
    if tree.kind[i] == FnKind::RootPort || internal || tree.kind[i] == FnKind::Platform {
        return;
    }
    if shares_link_of_function_zero(tree, i) {
        return; // its link is function 0's: judged there
    }
    let Some(cur) = f.link else {
        if scan.current_links_only && f.link_gbps.is_some() {
            v.status[i] = LinkStatus::Unknown;
        }
        return;
    };
    v.upstream_max[i] = port.and_then(|p| tree.funcs[p].link_max);
    let want = min_link(f.link_max, v.upstream_max[i]);
    v.expected[i] = want;
    if cur.is_down() {
        if port_like(tree, i) && tree.children[i].is_empty() {
            return; // judged below as a port
        }
        v.status[i] = LinkStatus::Down;
        let bdf = f.bdf();
        let id = bdf.to_string();
        findings.push(
            Finding::of(
                Code::LinkDown,
                format!("{id}: device present but its link is down"),
            )
            .about(Subject::Device { bdf })
            .with_help("reseat the device or check its power; a link that is down carries nothing")
            .at_node(tree_path(tree, i)),
        );
        return;
    }
    let Some(want) = want else {
        if scan.current_links_only {
            v.status[i] = LinkStatus::Unknown;
        }
        return;
    };
    if !below(cur, want) {
        v.status[i] = LinkStatus::Ok;
        return;
    }
    let (status, finding) = reduced_link(tree, i, cur, want, v.upstream_max[i]);
    v.status[i] = status;
    findings.push(finding);
}

/// What a link below what it should train at means: idle power management
/// (PowerManagedLink), a chipset-integrated device (ChipsetLink) or a fault (Downtrained).
fn reduced_link(
    tree: &LiveTree,
    i: usize,
    cur: LinkState,
    want: LinkState,
    upstream_max: Option<LinkState>,
) -> (LinkStatus, Finding) {
    let f = &tree.funcs[i];
    let bdf = f.bdf();
    let id = bdf.to_string();
    let detail = format!(
        "{id} ({}) runs at {}, expected {} (own max {}, port max {})",
        tree.names[i],
        cur.label(),
        want.label(),
        f.link_max.map(|l| l.label()).unwrap_or_else(|| "?".into()),
        upstream_max
            .map(|l| l.label())
            .unwrap_or_else(|| "?".into()),
    );
    if power_managed(f) && cur.width >= want.width {
        let finding = Finding::of(Code::PowerManagedLink, format!("{detail}: this kind of device lowers its link speed when idle"))
            .with_help(format!(
                "not a fault while idle: re-check under load (run a GPU workload, then `lspci -vv -s {}` and read LnkSta; it should show {})",
                f.bdf().short(),
                want.label()
            ))
            .about(Subject::Device { bdf })
            .at_node(tree_path(tree, i));
        (LinkStatus::PowerManaged, finding)
    } else if is_chipset_integrated(f) {
        let finding = Finding::of(Code::ChipsetLink, detail)
            .with_help("chipset-integrated devices often report this way; not a fault")
            .at_node(tree_path(tree, i));
        (LinkStatus::ChipsetReduced, finding)
    } else {
        let what = match (cur.speed < want.speed, cur.width < want.width) {
            (true, true) => "speed and width",
            (true, false) => "speed",
            _ => "width",
        };
        let finding = Finding::of(
            Code::Downtrained,
            format!("link downtrained ({what}): {detail}"),
        )
        .with_help(
            "reseat the device, check riser/cable/backplane ratings, and the slot's bifurcation",
        )
        .about(Subject::Device { bdf })
        .at_node(tree_path(tree, i));
        (LinkStatus::Downtrained, finding)
    }
}

/// Judges the ports: empty ones are listed (status Empty) and never alarmed; a port lspci
/// calls "downgraded" because of its device gets a PortLimited note that says so.
fn judge_ports(
    tree: &LiveTree,
    status: &mut [LinkStatus],
    findings: &mut Vec<Finding>,
) -> Vec<EmptyPort> {
    let mut empty_ports = Vec::new();
    for i in 0..tree.funcs.len() {
        if !port_like(tree, i) || tree.kind[i] == FnKind::Platform {
            continue;
        }
        let f = &tree.funcs[i];
        let (Some(cur), Some(max)) = (f.link, f.link_max) else {
            continue;
        };
        if tree.children[i].is_empty() {
            if let Some(p) = empty_port(tree, i, cur) {
                status[i] = LinkStatus::Empty;
                empty_ports.push(p);
            }
            continue;
        }
        if let Some(finding) = port_limited(tree, status, i, cur, max) {
            findings.push(finding);
        }
    }
    empty_ports
}

/// The port `i` with nothing below as an empty port, whatever its link status says
/// (hot-plug ports keep a stale speed and width); `None` for a port with a live link and
/// no hot-plug slot.
fn empty_port(tree: &LiveTree, i: usize, cur: LinkState) -> Option<EmptyPort> {
    let f = &tree.funcs[i];
    let hot_plug = f.slot_cap_number().is_some() || f.slot_cap.is_some_and(|c| c.hotplug);
    if !(cur.is_down() || hot_plug) {
        return None;
    }
    Some(EmptyPort {
        bdf: f.bdf(),
        slot_number: f.slot_number(),
        switch: tree.parent[i]
            .filter(|&p| tree.kind[p] == FnKind::Switch)
            .map(|p| tree.funcs[p].bdf()),
        root_bus: root_bus_of(tree, i),
        hot_plug,
        node: tree_path(tree, i),
    })
}

/// The PortLimited note of port `i` with devices below, when it runs below its max because
/// of them; `None` when it runs at its max or a device below has its own link verdict.
fn port_limited(
    tree: &LiveTree,
    status: &[LinkStatus],
    i: usize,
    cur: LinkState,
    max: LinkState,
) -> Option<Finding> {
    if cur.is_down() || !below(cur, max) {
        return None;
    }
    let kids = &tree.children[i];
    if kids.iter().any(|&c| {
        matches!(
            status[c],
            LinkStatus::Downtrained
                | LinkStatus::ChipsetReduced
                | LinkStatus::Down
                | LinkStatus::PowerManaged
        )
    }) {
        return None;
    }
    let kid_max = kids
        .iter()
        .filter_map(|&c| tree.funcs[c].link_max)
        .reduce(|a, b| {
            // the most any device below can do
            LinkState {
                speed: a.speed.max(b.speed),
                width: a.width.max(b.width),
            }
        });
    let why = match kid_max {
        Some(k) if !below(cur, min_link(Some(k), Some(max)).unwrap_or(max)) => format!(
            "its device {} tops out at {}",
            tree.funcs[kids[0]].bdf(),
            k.label()
        ),
        _ => "the devices below report no link capability".to_string(),
    };
    let bdf = tree.funcs[i].bdf();
    let id = bdf.to_string();
    Some(
        Finding::of(
            Code::PortLimited,
            format!("{id} runs at {} of {}: {why}", cur.label(), max.label()),
        )
        .with_help(
            "not a fault: a port trains at what its device can do (lspci marks it downgraded)",
        )
        .at_node(tree_path(tree, i)),
    )
}

/// AER counters of every function: AerUncorrectable for any fatal or non-fatal error,
/// AerCorrectable for correctable ones above the threshold.
fn aer_findings(tree: &LiveTree, opts: AuditOptions, findings: &mut Vec<Finding>) {
    for (i, f) in tree.funcs.iter().enumerate() {
        let Some(a) = &f.aer else { continue };
        let bdf = f.bdf();
        let id = bdf.to_string();
        if a.fatal > 0 || a.nonfatal > 0 {
            findings.push(
                Finding::of(
                    Code::AerUncorrectable,
                    format!("{id}: AER {} fatal, {} non-fatal errors", a.fatal, a.nonfatal),
                )
                .with_help("uncorrectable errors: check the kernel log, reseat or replace the device/cable")
                .at_node(tree_path(tree, i)),
            );
        }
        if a.correctable > opts.aer_threshold {
            findings.push(
                Finding::of(
                    Code::AerCorrectable,
                    format!(
                        "{id}: {} correctable AER errors (threshold {})",
                        a.correctable, opts.aer_threshold
                    ),
                )
                .with_help(
                    "a marginal link: check seating, cables and the backplane (--aer-threshold)",
                )
                .at_node(tree_path(tree, i)),
            );
        }
    }
}

/// NvmeNoNamespace for each NVMe controller without a namespace.
fn nvme_findings(scan: &HostScan, findings: &mut Vec<Finding>) {
    for c in &scan.controllers {
        if c.namespaces.is_empty() {
            findings.push(
                Finding::of(Code::NvmeNoNamespace, format!("{}: NVMe controller without a namespace", c.name))
                    .with_help("create or attach a namespace (nvme create-ns / attach-ns), or check the controller state")
                    .at_node(c.pci.map(|b| b.to_string()).unwrap_or_else(|| c.name.clone())),
            );
        }
    }
}

/// One report per function of the tree, in tree order, with its link verdict.
fn function_reports(tree: &LiveTree, v: &LinkVerdicts) -> Vec<FunctionReport> {
    (0..tree.funcs.len())
        .map(|i| {
            let f = &tree.funcs[i];
            FunctionReport {
                bdf: f.bdf(),
                parent: tree.parent[i].map(|p| tree.funcs[p].bdf()),
                root_bus: root_bus_of(tree, i),
                kind: tree.kind[i],
                ids: PciIds::of(f.vendor, f.device),
                subsystem: PciIds::of(f.subsystem_vendor, f.subsystem_device),
                class: f.class.map(ClassCode),
                revision: f.revision,
                name: tree.names[i].clone(),
                driver: f.driver.clone(),
                numa_node: f.numa_node,
                slot: f.slot.clone(),
                slot_number: f.slot_number(),
                bay: None,
                buses: f.bus_range.map(|(s, u)| [s, u]),
                link: f.link,
                link_max: f.link_max,
                link_speed_gbs: f.link_gbps,
                net: f.net.clone(),
                upstream_max: v.upstream_max[i],
                expected: v.expected[i],
                link_status: v.status[i],
                mps: f.mps,
                aer: f.aer.clone(),
            }
        })
        .collect()
}

/// Devices that lower their link speed when idle and raise it under load: display
/// controllers (GPUs; NVIDIA/NVSentinel issue 890, open-mpi/hwloc issue 653) and 3D/other
/// display controllers, by class code.
pub fn power_managed(f: &PciFunction) -> bool {
    f.class.map(|c| c >> 16) == Some(0x03)
}

/// True for a function other than function 0 of device 0 on a bus below a port, when that
/// function 0 exists: a PCIe link carries one device, its other functions (and ARI
/// functions) share function 0's link and may report it as down.
fn shares_link_of_function_zero(tree: &LiveTree, i: usize) -> bool {
    let b = tree.funcs[i].bdf();
    if (b.dev, b.func) == (0, 0) || tree.upstream_port(i).is_none() {
        return false;
    }
    tree.index.contains_key(&Bdf {
        domain: b.domain,
        bus: b.bus,
        dev: 0,
        func: 0,
    })
}

/// `0000:17`: the root bus above `i`.
fn root_bus_of(tree: &LiveTree, i: usize) -> RootBus {
    let mut r = i;
    let mut guard = 0;
    while let Some(p) = tree.parent[r] {
        r = p;
        guard += 1;
        if guard > tree.funcs.len() {
            break;
        }
    }
    RootBus::of(tree.funcs[r].bdf())
}

/// One note per switch or root bus with empty ports, naming their slot numbers (the full
/// list is `Audit::empty_ports`).
fn empty_port_findings(ports: &[EmptyPort]) -> Vec<Finding> {
    let mut groups: std::collections::BTreeMap<(Option<Bdf>, RootBus), Vec<&EmptyPort>> =
        std::collections::BTreeMap::new();
    for p in ports {
        groups.entry((p.switch, p.root_bus)).or_default().push(p);
    }
    groups
        .into_iter()
        .map(|((switch, root), list)| {
            let mut numbers: Vec<u32> = list
                .iter()
                .filter_map(|p| p.slot_number.and_then(|n| u16::try_from(n).ok()).map(u32::from))
                .collect();
            numbers.sort_unstable();
            let slots = if numbers.is_empty() {
                String::new()
            } else {
                format!(
                    " (slot{} {})",
                    if numbers.len() == 1 { "" } else { "s" },
                    crate::topology::compress_ranges(&numbers)
                )
            };
            let (where_, subject) = match switch {
                Some(s) => (
                    format!("below switch {s}"),
                    Subject::Device { bdf: s },
                ),
                None => (
                    format!("on root bus {root}"),
                    Subject::RootComplex { id: root.to_string() },
                ),
            };
            let what = if list.len() == 1 {
                format!("{}: an empty port{slots} {where_}", list[0].bdf)
            } else {
                format!("{} empty ports{slots} {where_}", list.len())
            };
            Finding::of(Code::EmptyPort, format!("{what}: nothing below, no link"))
                .with_help("not a fault (lspci marks such ports (downgraded)); `--verbose` and the JSON list each port")
                .about(if list.len() == 1 {
                    Subject::Device {
                        bdf: list[0].bdf,
                    }
                } else {
                    subject
                })
                .at_node(if list.len() == 1 {
                    list[0].node.clone()
                } else {
                    switch
                        .map(|s| s.to_string())
                        .unwrap_or_else(|| format!("[{root}]"))
                })
        })
        .collect()
}

/// `[0000:17] > 0000:17:00.0 > 0000:18:00.0`: the location of a finding.
pub fn tree_path(tree: &LiveTree, i: usize) -> String {
    let mut v = vec![tree.funcs[i].bdf().to_string()];
    let mut cur = i;
    let mut guard = 0;
    while let Some(p) = tree.parent[cur] {
        v.push(tree.funcs[p].bdf().to_string());
        cur = p;
        guard += 1;
        if guard > tree.funcs.len() {
            break;
        }
    }
    let b = tree.funcs[cur].bdf();
    v.push(format!("[{:04x}:{:02x}]", b.domain, b.bus));
    v.reverse();
    v.join(" > ")
}

fn drives(scan: &HostScan, tree: &LiveTree, functions: &[FunctionReport]) -> Vec<DriveReport> {
    let mut out = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    let block = |name: &str| scan.blocks.iter().find(|b| b.name == name).cloned();
    for c in &scan.controllers {
        let i = c.pci.and_then(|b| tree.index.get(&b).copied());
        if let Some(i) = i {
            covered.insert(i);
        }
        out.push(drive_row(
            tree,
            functions,
            i,
            Some(c),
            c.namespaces.iter().filter_map(|n| block(n)).collect(),
        ));
    }
    // NVMe functions without a controller (no driver bound).
    for (i, f) in tree.funcs.iter().enumerate() {
        if f.class.map(|c| c >> 8) == Some(0x0108) && !covered.contains(&i) {
            out.push(drive_row(tree, functions, Some(i), None, Vec::new()));
        }
    }
    out.sort_by(|a, b| a.bdf.cmp(&b.bdf).then(a.controller.cmp(&b.controller)));
    out
}

fn drive_row(
    tree: &LiveTree,
    functions: &[FunctionReport],
    i: Option<usize>,
    c: Option<&NvmeController>,
    namespaces: Vec<BlockDev>,
) -> DriveReport {
    let f = i.map(|i| &functions[i]);
    let port = i.and_then(|i| tree.upstream_port(i));
    let switch = i.and_then(|i| {
        let mut cur = tree.parent[i];
        while let Some(p) = cur {
            if tree.kind[p] == FnKind::Switch {
                return Some(tree.funcs[p].bdf());
            }
            cur = tree.parent[p];
        }
        None
    });
    DriveReport {
        bdf: f.map(|f| f.bdf),
        controller: c.map(|c| c.name.clone()),
        namespaces,
        model: c.and_then(|c| c.model.clone()),
        serial: c.and_then(|c| c.serial.clone()),
        firmware: c.and_then(|c| c.firmware.clone()),
        transport: c.and_then(|c| c.transport.clone()),
        slot: f.and_then(|f| f.slot.clone()),
        slot_number: i.and_then(|i| {
            tree.upstream_port(i)
                .and_then(|p| tree.funcs[p].slot_cap_number())
                .or_else(|| tree.funcs[i].slot_number())
        }),
        bay: None,
        numa_node: f.and_then(|f| f.numa_node).or(c.and_then(|c| c.numa_node)),
        link: f.and_then(|f| f.link),
        link_max: f.and_then(|f| f.link_max),
        link_status: f
            .map(|f| f.link_status)
            .unwrap_or(LinkStatus::NotApplicable),
        upstream_port: port.map(|p| tree.funcs[p].bdf()),
        switch,
        subsystem: c.and_then(|c| c.subsystem.clone()),
        aer: f.and_then(|f| f.aer.clone()),
    }
}

/// Counts findings by severity: (errors, warnings, notes).
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let c = |s| findings.iter().filter(|f| f.severity == s).count();
    (c(Severity::Error), c(Severity::Warning), c(Severity::Note))
}
