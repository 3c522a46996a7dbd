//! Views of an [`Audit`]: the `lspci -tv`-style tree with links, the drive table, findings,
//! and the Prometheus textfile. (JSON is the serde form of `Audit`.)

use crate::against::DiffEntry;
use crate::host::audit::{Audit, LinkStatus};
use crate::host::model::LinkState;
use crate::host::tree::LiveTree;
use crate::pci::PciIds;
use crate::term::Term;
use std::fmt::Write as _;

/// What the tree shows after each device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeStyle {
    /// Like `lspci -t`: addresses and bus ranges only.
    Bare,
    /// Like `lspci -tv`, plus the link of each leaf: `  Name  [8.0 GT/s x4, max 16.0 GT/s x4]`.
    Full,
}

fn link_note(a: &Audit, i: usize) -> String {
    let f = &a.functions[i];
    let mut s = String::new();
    match (f.link, f.link_max) {
        (Some(c), Some(m)) => {
            let _ = write!(s, "{}, max {}", c.label(), m.label());
        }
        (Some(c), None) => s.push_str(&c.label()),
        (None, Some(m)) => {
            let _ = write!(s, "max {}", m.label());
        }
        (None, None) => {}
    }
    let mark = match f.link_status {
        LinkStatus::Downtrained => Some("DOWNTRAINED"),
        LinkStatus::Down => Some("LINK DOWN"),
        LinkStatus::Empty => Some("empty"),
        LinkStatus::ChipsetReduced => Some("chipset"),
        LinkStatus::PowerManaged => Some("idle: re-check under load"),
        _ => None,
    };
    if let Some(m) = mark {
        if !s.is_empty() {
            s.push_str(", ");
        }
        s.push_str(m);
    }
    if s.is_empty() { s } else { format!("[{s}]") }
}

/// The tree in `lspci -tv` conventions (`-[0000:00]-+-01.0-[05-09]----00.0  Name`).
pub fn tree(a: &Audit, style: TreeStyle) -> String {
    let t = &a.tree;
    let mut out = String::new();
    let mut line = String::new();
    // Root buses are the host bridge's buses.
    let buses: Vec<(u32, u8, Vec<usize>)> = t
        .roots
        .iter()
        .map(|(&(d, b), v)| (d, b, v.clone()))
        .collect();
    line.push('-');
    if buses.len() == 1 {
        let (d, b, devs) = &buses[0];
        let _ = write!(line, "[{d:04x}:{b:02x}]-");
        bus(a, t, devs, &mut line, &mut out, style);
    } else {
        let base = line.len();
        for (k, (d, b, devs)) in buses.iter().enumerate() {
            line.truncate(base);
            let last = k + 1 == buses.len();
            let _ = write!(line, "{}-[{d:04x}:{b:02x}]-", if last { '\\' } else { '+' });
            bus(a, t, devs, &mut line, &mut out, style);
        }
    }
    out
}

fn emit(line: &mut String, out: &mut String) {
    out.push_str(line.trim_end());
    out.push('\n');
    // Continuation: keep the vertical bars, blank the rest.
    let cont: String = line
        .chars()
        .map(|c| if c == '+' || c == '|' { '|' } else { ' ' })
        .collect();
    *line = cont;
}

fn bus(
    a: &Audit,
    t: &LiveTree,
    devs: &[usize],
    line: &mut String,
    out: &mut String,
    style: TreeStyle,
) {
    if devs.is_empty() {
        emit(line, out);
        return;
    }
    let base = line.chars().count();
    if devs.len() == 1 {
        line.push_str("--");
        dev(a, t, devs[0], line, out, style);
        return;
    }
    for (k, &d) in devs.iter().enumerate() {
        truncate_chars(line, base);
        line.push_str(if k + 1 == devs.len() { "\\-" } else { "+-" });
        dev(a, t, d, line, out, style);
    }
}

fn truncate_chars(s: &mut String, n: usize) {
    if let Some((i, _)) = s.char_indices().nth(n) {
        s.truncate(i);
    }
}

fn dev(a: &Audit, t: &LiveTree, i: usize, line: &mut String, out: &mut String, style: TreeStyle) {
    let f = &t.funcs[i];
    let _ = write!(line, "{}", f.bdf().devfn());
    if let Some((s, u)) = f.bus_range {
        if s == u {
            let _ = write!(line, "-[{s:02x}]-");
        } else {
            let _ = write!(line, "-[{s:02x}-{u:02x}]-");
        }
        line.push('-');
        // Children grouped by bus: the secondary first, then any other bus (partial captures).
        let mut groups: Vec<(u8, Vec<usize>)> = vec![(s, Vec::new())];
        for &c in &t.children[i] {
            let cb = t.funcs[c].bdf().bus;
            match groups.iter_mut().find(|(b, _)| *b == cb) {
                Some((_, v)) => v.push(c),
                None => groups.push((cb, vec![c])),
            }
        }
        if groups.len() == 1 {
            if groups[0].1.is_empty() && style == TreeStyle::Full {
                let note = link_note(a, i);
                if !note.is_empty() {
                    let _ = write!(line, "  {note}");
                }
            }
            bus(a, t, &groups[0].1, line, out, style);
        } else {
            // lspci: `-+-[0000:5f]-` per bus when devices sit on more than one.
            let base = line.chars().count();
            let dom = f.bdf().domain;
            for (k, (b, devs)) in groups.iter().enumerate() {
                truncate_chars(line, base);
                let last = k + 1 == groups.len();
                let _ = write!(
                    line,
                    "{}-[{dom:04x}:{b:02x}]-",
                    if last { '\\' } else { '+' }
                );
                bus(a, t, devs, line, out, style);
            }
        }
        return;
    }
    if f.is_bridge {
        // A bridge without buses (lspci prints `11.0--`).
        line.push_str("--");
        emit(line, out);
        return;
    }
    if style == TreeStyle::Full {
        let _ = write!(line, "  {}", t.names[i]);
        let note = link_note(a, i);
        if !note.is_empty() {
            let _ = write!(line, "  {note}");
        }
    }
    emit(line, out);
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map(|x| x.to_string())
        .unwrap_or_else(|| "-".into())
}

fn link_cell(l: &Option<LinkState>) -> String {
    l.map(|l| l.label()).unwrap_or_else(|| "-".into())
}

/// One line per NVMe drive.
pub fn drive_table(a: &Audit) -> String {
    drive_table_in(a, &Term::WIDE)
}

/// [`drive_table`] fitted to a terminal.
pub fn drive_table_in(a: &Audit, term: &Term) -> String {
    let header = [
        "BDF",
        "ctrl",
        "block",
        "model",
        "serial",
        "slot",
        "bay",
        "NUMA",
        "link",
        "max",
        "port",
        "AER c/nf/f",
    ];
    let rows: Vec<Vec<String>> = a
        .drives
        .iter()
        .map(|d| {
            let blocks: Vec<String> = d
                .namespaces
                .iter()
                .map(|b| {
                    if b.partitions.is_empty() {
                        b.name.clone()
                    } else {
                        format!("{} ({})", b.name, b.partitions.join(","))
                    }
                })
                .collect();
            let mut link = link_cell(&d.link);
            if d.link_status == LinkStatus::Downtrained {
                link.push_str(" !");
            }
            vec![
                opt(&d.bdf),
                opt(&d.controller),
                if blocks.is_empty() {
                    "-".into()
                } else {
                    blocks.join(" ")
                },
                opt(&d.model),
                opt(&d.serial),
                opt(&d.slot),
                opt(&d.bay.map(|b| format!("Bay {b}"))),
                opt(&d.numa_node),
                link,
                link_cell(&d.link_max),
                opt(&d.upstream_port),
                d.aer
                    .as_ref()
                    .map(|a| format!("{}/{}/{}", a.correctable, a.nonfatal, a.fatal))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    // Narrow terminals lose the serial, the upstream port, the max link, the controller,
    // the AER counts and the NUMA node first (in that order).
    term.fitted_table(&header, &rows, &[4, 10, 9, 1, 11, 7])
        .render()
}

/// Findings in the one style (`error[LP0302]: message`, `  --> node`, `  = help: ...`)
/// and the summary line ([`super::diag`]).
pub fn findings(a: &Audit) -> String {
    super::diag::findings(&a.findings, None, false)
}

/// The full text report.
pub fn text(a: &Audit) -> String {
    text_with(a, false)
}

/// Every empty port with its slot number, by switch or root bus (`audit --verbose`).
pub fn empty_ports(a: &Audit) -> String {
    let mut s = String::new();
    if a.empty_ports.is_empty() {
        return s;
    }
    let _ = writeln!(s, "Empty ports:");
    for p in &a.empty_ports {
        let _ = writeln!(
            s,
            "  {}  slot {}  {}{}",
            p.bdf,
            p.slot_number
                .map(|n| n.to_string())
                .unwrap_or_else(|| "-".into()),
            match &p.switch {
                Some(sw) => format!("below switch {sw}"),
                None => format!("on root bus {}", p.root_bus),
            },
            if p.hot_plug { ", hot-plug" } else { "" }
        );
    }
    s
}

/// The full text report; `verbose` lists every empty port.
pub fn text_with(a: &Audit, verbose: bool) -> String {
    text_in(a, verbose, &Term::WIDE)
}

/// [`text_with`] fitted to a terminal: tree lines are cut, the table shrinks, findings wrap.
pub fn text_in(a: &Audit, verbose: bool, term: &Term) -> String {
    let (mut s, findings) = text_parts(a, verbose, term);
    s.push_str(&findings);
    s
}

/// The audit's text in two parts: the facts (tree, switches, drives, chassis) and the
/// findings with their summary line, so a command can put its own sections (the platform
/// variant) between them and keep the summary after every finding it explains.
pub fn text_parts(a: &Audit, verbose: bool, term: &Term) -> (String, String) {
    let mut s = String::new();
    if !(a.functions.is_empty() && a.chassis.is_some()) {
        s.push_str(&term.fit(&tree(a, TreeStyle::Full)));
        s.push('\n');
    }
    let sw = switches(a);
    if !sw.is_empty() {
        s.push_str(&term.wrap(&sw));
        s.push('\n');
    }
    if !a.drives.is_empty() {
        s.push_str(&drive_table_in(a, term));
        s.push_str("\n\n");
    }
    if !a.disks.is_empty() {
        s.push_str(&term.fit(&crate::host::hwloc::render_disks(&a.disks)));
        s.push('\n');
    }
    if let Some(ch) = &a.chassis {
        s.push_str(&term.fit(&crate::host::chassis::render(ch)));
        s.push('\n');
    }
    if verbose && !a.empty_ports.is_empty() {
        s.push_str(&term.wrap(&empty_ports(a)));
        s.push('\n');
    }
    (s, super::text::findings_in(&a.findings, None, term))
}

/// The part a switch is, from its ids: PLX/Broadcom PEX device ids are the part numbers
/// (10b5:9797 is a PEX 9797), which pci.ids does not always list.
pub fn switch_part(ids: Option<PciIds>, name: &str) -> String {
    match ids {
        Some(PciIds {
            vendor: 0x10b5,
            device,
        }) if matches!(device >> 12, 8 | 9) => format!("PEX {device:04x}"),
        _ => name.to_string(),
    }
}

/// One line per PCIe switch: its part, uplink, and downstream ports with their links.
fn switches(a: &Audit) -> String {
    use crate::host::tree::FnKind;
    let mut out = String::new();
    for f in a.functions.iter().filter(|f| f.kind == FnKind::Switch) {
        let ports: Vec<&crate::host::audit::FunctionReport> = a
            .functions
            .iter()
            .filter(|p| p.kind == FnKind::SwitchPort && p.parent == Some(f.bdf))
            .collect();
        let mut links: Vec<String> = ports
            .iter()
            .filter_map(|p| p.link.map(|l| l.label()))
            .collect();
        links.sort();
        links.dedup();
        let up = f.link.map(|l| l.label()).unwrap_or_else(|| "?".into());
        out.push_str(&format!(
            "switch {} {} ({}): up {up}; {} downstream port{} at {}\n",
            f.bdf,
            switch_part(f.ids, &f.name),
            PciIds::text(f.ids),
            ports.len(),
            if ports.len() == 1 { "" } else { "s" },
            if links.is_empty() {
                "?".to_string()
            } else {
                links.join(", ")
            }
        ));
    }
    out
}

/// The label set of every per-function family, in order: the PCI address (`pci`), the
/// kernel's name for it (`device`: the NVMe namespace `nvme0n1`, the interface `eth0`: the
/// `device` of node_exporter's disk and network series), the drive's serial, the slot,
/// the bay (with `--against`) and the model. Every series carries all six; a value the
/// source does not give is empty (`bay=""` without a plan), so `--against` or another
/// source never changes a family's labels.
pub const FUNCTION_LABELS: [&str; 6] = ["pci", "device", "serial", "slot", "bay", "model"];

/// The label set of `laneplan_plan_place_status` (one series per planned or found place).
pub const PLACE_LABELS: [&str; 9] = [
    "place",
    "pci",
    "device",
    "slot",
    "bay",
    "expected_part",
    "found_part",
    "found",
    "status",
];

/// The label set of the Redfish families (`laneplan_chassis_*`).
pub const CHASSIS_LABELS: [&str; 5] = ["redfish_id", "pci", "slot", "model", "serial"];

/// `k="v",...` in the order given, every label present, values escaped.
fn label_text(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", esc(v)))
        .collect::<Vec<_>>()
        .join(",")
}

/// One function's identity as the join with node_exporter needs it: kernel name and serial.
struct Names<'a> {
    device: &'a str,
    serial: &'a str,
    model: &'a str,
}

fn names_of<'a>(a: &'a Audit, f: &'a crate::host::audit::FunctionReport) -> Names<'a> {
    let drive = a.drives.iter().find(|d| d.bdf == Some(f.bdf));
    let device = drive
        .and_then(|d| d.namespaces.first().map(|n| n.name.as_str()))
        .or(f.net.first().map(String::as_str))
        .unwrap_or("");
    Names {
        device,
        serial: drive.and_then(|d| d.serial.as_deref()).unwrap_or(""),
        model: drive
            .and_then(|d| d.model.as_deref())
            .unwrap_or(f.name.as_str()),
    }
}

fn function_labels(
    a: &Audit,
    bays: &[DiffEntry],
    f: &crate::host::audit::FunctionReport,
) -> String {
    let n = names_of(a, f);
    // The bay number of the diff entry that found this function (as in the place series).
    let bay = bays
        .iter()
        .find(|e| e.bdf == Some(f.bdf))
        .and_then(|e| e.bay)
        .map(|b| b.to_string())
        .unwrap_or_default();
    let bdf = f.bdf.to_string();
    let values = [
        bdf.as_str(),
        n.device,
        n.serial,
        f.slot.as_deref().unwrap_or(""),
        bay.as_str(),
        n.model,
    ];
    let pairs: Vec<(&str, &str)> = FUNCTION_LABELS.iter().copied().zip(values).collect();
    label_text(&pairs)
}

fn family(s: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(s, "# HELP {name} {help}");
    let _ = writeln!(s, "# TYPE {name} {kind}");
}

/// The families of the newer sources: hwloc's current link in bytes per second per
/// function, and per Redfish device the link in use, its maximum and whether it is below it.
/// Present only for those sources.
fn source_families(a: &Audit, bays: &[DiffEntry], s: &mut String) {
    let gbs: Vec<_> = a
        .functions
        .iter()
        .filter_map(|f| f.link_speed_gbs.map(|v| (f, v)))
        .collect();
    if !gbs.is_empty() {
        let name = "laneplan_pcie_link_current_bytes_per_second";
        family(
            s,
            name,
            "gauge",
            "Current PCIe link in bytes per second as hwloc reports it (no maximum known).",
        );
        for (f, v) in gbs {
            let _ = writeln!(s, "{name}{{{}}} {}", function_labels(a, bays, f), v * 1e9);
        }
    }
    let Some(ch) = &a.chassis else { return };
    type Get = fn(&crate::host::chassis::ChassisDevice) -> Option<f64>;
    let fams: [(&str, &str, Get); 5] = [
        (
            "laneplan_chassis_link_speed_transfers_per_second",
            "PCIe link speed in use in transfers per second per lane, as the BMC reports it.",
            |d| d.link.map(|l| l.gts() * 1e9),
        ),
        (
            "laneplan_chassis_link_width",
            "PCIe lanes in use, as the BMC reports them.",
            |d| d.link.map(|l| f64::from(l.width)),
        ),
        (
            "laneplan_chassis_link_max_speed_transfers_per_second",
            "Maximum PCIe link speed of the device in transfers per second per lane (BMC).",
            |d| d.link_max.map(|l| l.gts() * 1e9),
        ),
        (
            "laneplan_chassis_link_max_width",
            "Maximum PCIe lanes of the device (BMC).",
            |d| d.link_max.map(|l| f64::from(l.width)),
        ),
        (
            "laneplan_chassis_link_downtrained",
            "1 when the BMC reports the link below the device's maximum.",
            |d| match d.link_status {
                LinkStatus::Downtrained => Some(1.0),
                LinkStatus::Ok => Some(0.0),
                _ => None,
            },
        ),
    ];
    for (name, help, get) in fams {
        family(s, name, "gauge", help);
        for d in &ch.devices {
            let Some(v) = get(d) else { continue };
            let bdf = d.bdf.map(|b| b.to_string()).unwrap_or_default();
            let values = [
                d.id.as_str(),
                bdf.as_str(),
                d.slot.as_deref().unwrap_or(""),
                d.model.as_deref().or(d.name.as_deref()).unwrap_or(""),
                d.serial.as_deref().unwrap_or(""),
            ];
            let pairs: Vec<(&str, &str)> = CHASSIS_LABELS.iter().copied().zip(values).collect();
            let _ = writeln!(s, "{name}{{{}}} {v}", label_text(&pairs));
        }
    }
}

fn esc(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// node_exporter textfile: gauges per function with a link, AER totals as `_total`
/// counters, the plan diff per place (`--against`), finding counts; base units (transfers
/// per second, bytes per second); one label set per family whatever the flags and source
/// ([`FUNCTION_LABELS`], [`PLACE_LABELS`], [`CHASSIS_LABELS`]: unknown values empty);
/// `# HELP` and `# TYPE` before every family, one series per label set, a final newline.
pub fn prometheus(r: &crate::audit::HostReport) -> String {
    let a = &r.audit;
    let bays: &[DiffEntry] = r.diff.as_ref().map_or(&[], |d| &d.entries);
    let mut s = String::new();
    let rows: Vec<(String, &crate::host::audit::FunctionReport)> = a
        .functions
        .iter()
        .filter(|f| f.link.is_some() || f.link_max.is_some() || f.aer.is_some())
        .map(|f| (function_labels(a, bays, f), f))
        .collect();
    type Get = fn(&crate::host::audit::FunctionReport) -> Option<f64>;
    let gauges: [(&str, &str, Get); 5] = [
        (
            "laneplan_pcie_link_speed_transfers_per_second",
            "Current PCIe link speed in transfers per second per lane (8e9 for 8 GT/s; 0 when down).",
            |f| f.link.map(|l| l.gts() * 1e9),
        ),
        (
            "laneplan_pcie_link_width",
            "Current PCIe link width in lanes (0 when down).",
            |f| f.link.map(|l| f64::from(l.width)),
        ),
        (
            "laneplan_pcie_link_max_speed_transfers_per_second",
            "Maximum PCIe link speed of the function in transfers per second per lane.",
            |f| f.link_max.map(|l| l.gts() * 1e9),
        ),
        (
            "laneplan_pcie_link_max_width",
            "Maximum PCIe link width of the function in lanes.",
            |f| f.link_max.map(|l| f64::from(l.width)),
        ),
        (
            "laneplan_pcie_link_downtrained",
            "1 when the link trained below min(own max, port max).",
            |f| {
                f.expected.map(|_| {
                    if f.link_status == LinkStatus::Downtrained {
                        1.0
                    } else {
                        0.0
                    }
                })
            },
        ),
    ];
    for (name, help, get) in gauges {
        family(&mut s, name, "gauge", help);
        for (labels, f) in &rows {
            if let Some(v) = get(f) {
                let _ = writeln!(s, "{name}{{{labels}}} {v}");
            }
        }
    }
    // Totals since boot only grow: a counter, named `_total` by the exposition rules.
    let name = "laneplan_pcie_aer_errors_total";
    family(
        &mut s,
        name,
        "counter",
        "AER errors reported by the function since boot.",
    );
    for (labels, f) in &rows {
        if let Some(aer) = &f.aer {
            for (sev, v) in [
                ("correctable", aer.correctable),
                ("nonfatal", aer.nonfatal),
                ("fatal", aer.fatal),
            ] {
                let _ = writeln!(s, "{name}{{{labels},aer_severity=\"{sev}\"}} {v}");
            }
        }
    }
    source_families(a, bays, &mut s);
    // The plan diff: one series per place, 1, its status a label (no series without a plan).
    let name = "laneplan_plan_place_status";
    family(
        &mut s,
        name,
        "gauge",
        "1 per place of the --against diff, labelled with its status (ok, missing, wrong-part, ...).",
    );
    for e in bays {
        let f = e.bdf.and_then(|b| a.functions.iter().find(|f| f.bdf == b));
        let device = f.map(|f| names_of(a, f).device).unwrap_or("");
        let bay = e.bay.map(|b| b.to_string()).unwrap_or_default();
        let bdf = e.bdf.map(|b| b.to_string()).unwrap_or_default();
        let values = [
            e.place.as_str(),
            bdf.as_str(),
            device,
            e.slot.as_deref().unwrap_or(""),
            bay.as_str(),
            e.expected_part.as_deref().unwrap_or(""),
            e.found_part.as_deref().unwrap_or(""),
            e.found.as_deref().unwrap_or(""),
            e.status.id(),
        ];
        let pairs: Vec<(&str, &str)> = PLACE_LABELS.iter().copied().zip(values).collect();
        let _ = writeln!(s, "{name}{{{}}} 1", label_text(&pairs));
    }
    let name = "laneplan_audit_findings";
    family(
        &mut s,
        name,
        "gauge",
        "Findings of the last audit by severity.",
    );
    let (e, w, n) = crate::host::audit::counts(&a.findings);
    for (sev, v) in [("error", e), ("warning", w), ("note", n)] {
        let _ = writeln!(s, "{name}{{severity=\"{sev}\"}} {v}");
    }
    s
}

/// Writes `text` to `path` atomically, by the rules of [`crate::outfile`].
pub fn write_atomic(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    crate::outfile::write(path, text.as_bytes())
}
