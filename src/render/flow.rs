//! The bandwidth report for people: a bottleneck table (each device alone: its physical
//! ceiling, its expected figure and what limits it; its fair share all at once), aggregate
//! lines (ceiling and expected), and the most loaded links.

use super::term::Term;
use crate::flow::{DeviceDir, Dir, FlowReport, Limit, Scope};
use comfy_table::{Cell, CellAlignment};
use std::fmt::Write;

/// What limits a device alone: the element that caps its expected figure, or, when its
/// spec is below its ceiling, the drive itself (with the element that sets the ceiling).
fn limit_text(d: &DeviceDir) -> String {
    let one = |l: &Limit| match &l.fix {
        Some(f) => format!("{}\nfix: {f}", l.label),
        None => l.label.to_string(),
    };
    if d.capped_by.is_device() {
        format!("the drive (its spec); ceiling: {}", one(&d.ceiling_by))
    } else {
        one(&d.capped_by)
    }
}

fn cap_cell(read: &DeviceDir, write: &DeviceDir) -> String {
    let (r, w) = (limit_text(read), limit_text(write));
    if r == w {
        r
    } else {
        format!("read: {r}\nwrite: {w}")
    }
}

fn pair(r: f64, w: f64) -> Cell {
    Cell::new(format!("{r:.2} / {w:.2}")).set_alignment(CellAlignment::Right)
}

/// Who offers traffic, for sentences.
fn who(s: Scope) -> &'static str {
    match s {
        Scope::Drives => "drives",
        Scope::Nvme => "NVMe drives",
        Scope::All => "devices",
    }
}

/// Header line: model, workload, memory, scope.
pub fn header(r: &FlowReport) -> String {
    format!(
        "Bandwidth: {} model, MPS {} B, MRRS {} B, completions {} B; workload {}; memory {}; {}\n",
        r.model_description,
        r.tlp.mps,
        r.tlp.mrrs,
        r.tlp.completion_bytes(),
        match r.workload {
            crate::flow::Workload::Seq => "seq (vendor sequential GB/s)",
            crate::flow::Workload::Rand4k => "4k (4K IOPS x 4 KiB)",
        },
        match &r.memory {
            crate::flow::Memory::Local => "local (each device's own socket)".to_string(),
            m => format!("{m} (everything to one socket)"),
        },
        match r.scope {
            Scope::Drives => "drives",
            Scope::Nvme => "NVMe drives",
            Scope::All => "every device with a spec",
        }
    )
}

/// The bottleneck table.
pub fn table(r: &FlowReport) -> String {
    table_in(r, &Term::WIDE)
}

/// [`table`] fitted to a terminal.
pub fn table_in(r: &FlowReport, term: &Term) -> String {
    if r.devices.is_empty() {
        return "No device with a performance spec in scope.\n".to_string();
    }
    let mut t = term.table();
    t.set_header(vec![
        "device",
        "path",
        "ceiling r/w",
        "expected r/w",
        "limit (alone)",
        "all at once r/w",
    ]);
    for d in &r.devices {
        t.add_row(vec![
            Cell::new(&d.label),
            Cell::new(&d.path),
            pair(d.read.ceiling_gbs, d.write.ceiling_gbs),
            pair(d.read.alone_gbs, d.write.alone_gbs),
            Cell::new(cap_cell(&d.read, &d.write)),
            Cell::new(format!(
                "{:.2} / {:.2}",
                d.read.share_gbs, d.write.share_gbs
            ))
            .set_alignment(CellAlignment::Right),
        ]);
    }
    let mut out = super::escape::terminal_text(&t.to_string()).into_owned();
    out.push('\n');
    out
}

/// Aggregate lines and the most loaded links.
pub fn aggregate(r: &FlowReport, most_loaded: usize) -> String {
    let mut out = String::new();
    let who = who(r.scope);
    for dir in Dir::BOTH {
        let a = r.aggregate(dir);
        let _ = writeln!(
            out,
            "All {who} at once, {}: ceiling {:.2} GB/s, expected {:.2} GB/s{} (max-flow to memory; specs sum to {:.2}, alone {:.2}){}",
            dir.name(),
            a.ceiling_gbs,
            a.expected_gbs,
            if a.expected_gbs + 0.005 < a.ceiling_gbs && a.bottlenecks.is_empty() {
                format!(": the {who} are the limit")
            } else {
                String::new()
            },
            a.demand_gbs,
            a.alone_sum_gbs,
            if (a.fair_gbs - a.max_flow_gbs).abs() > 0.01 {
                format!("; fair shares sum to {:.2}", a.fair_gbs)
            } else {
                String::new()
            }
        );
        let socks: Vec<String> = a
            .per_socket
            .iter()
            .map(|s| format!("{} {:.2}", s.socket, s.gbs))
            .collect();
        if socks.len() > 1 {
            let _ = writeln!(out, "  per socket: {}", socks.join(", "));
        }
    }
    let loaded = r.most_loaded(Dir::Read, most_loaded);
    if !loaded.is_empty() {
        let _ = writeln!(out, "Most loaded links (demand / capacity, read | write):");
        for e in loaded {
            let line = |d: Dir| {
                let x = e.dir(d);
                format!(
                    "{:.2}:1 {:.2} of {:.2}{}",
                    x.ratio.unwrap_or(0.0),
                    x.demand_gbs,
                    x.capacity_gbs.unwrap_or(0.0),
                    if x.saturated { " saturated" } else { "" }
                )
            };
            let _ = writeln!(
                out,
                "  {} | {}  {} ({} device{})",
                line(Dir::Read),
                line(Dir::Write),
                e.element.label,
                e.devices,
                if e.devices == 1 { "" } else { "s" }
            );
        }
    }
    out
}

/// Everything: header, table, aggregate.
pub fn report(r: &FlowReport) -> String {
    report_in(r, &Term::WIDE)
}

/// [`report`] fitted to a terminal: the table shrinks, the prose wraps.
pub fn report_in(r: &FlowReport, term: &Term) -> String {
    format!(
        "{}{}{}",
        term.wrap(&header(r)),
        table_in(r, term),
        term.wrap(&aggregate(r, 5))
    )
}
