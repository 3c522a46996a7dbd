//! The bandwidth report for people: a bottleneck table (each device alone and its fair share
//! all at once), aggregate lines, and the most loaded links.

use crate::flow::{Dir, FlowReport, Limit, Scope};
use comfy_table::{Cell, CellAlignment, Table, presets::UTF8_FULL_CONDENSED};
use std::fmt::Write;

fn cap_cell(read: &Limit, write: &Limit) -> String {
    let one = |l: &Limit| match &l.fix {
        Some(f) => format!("{}\nfix: {f}", l.label),
        None => l.label.to_string(),
    };
    if read == write {
        one(read)
    } else {
        format!("read: {}\nwrite: {}", one(read), one(write))
    }
}

fn num(v: f64) -> Cell {
    Cell::new(format!("{v:.2}")).set_alignment(CellAlignment::Right)
}

/// Header line: model, workload, memory, scope.
pub fn header(r: &FlowReport) -> String {
    format!(
        "Bandwidth: {} model; workload {}; memory {}; {}\n",
        r.model_description,
        match r.workload {
            crate::flow::Workload::Seq => "seq (vendor sequential GB/s)",
            crate::flow::Workload::Rand4k => "4k (4K IOPS x 4 KiB)",
        },
        match r.memory {
            crate::flow::Memory::Local => "local (each device's own socket)".to_string(),
            m => format!("{m} (everything to one socket)"),
        },
        match r.scope {
            Scope::Drives => "drives",
            Scope::All => "every device with a spec",
        }
    )
}

/// The bottleneck table.
pub fn table(r: &FlowReport) -> String {
    if r.devices.is_empty() {
        return "No device with a performance spec in scope.\n".to_string();
    }
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED);
    t.set_header(vec![
        "device",
        "path",
        "read GB/s",
        "write GB/s",
        "capped by (alone)",
        "all at once r/w",
    ]);
    for d in &r.devices {
        t.add_row(vec![
            Cell::new(&d.label),
            Cell::new(&d.path),
            num(d.read.alone_gbs),
            num(d.write.alone_gbs),
            Cell::new(cap_cell(&d.read.capped_by, &d.write.capped_by)),
            Cell::new(format!(
                "{:.2} / {:.2}",
                d.read.share_gbs, d.write.share_gbs
            ))
            .set_alignment(CellAlignment::Right),
        ]);
    }
    let mut out = t.to_string();
    out.push('\n');
    out
}

/// Aggregate lines and the most loaded links.
pub fn aggregate(r: &FlowReport, most_loaded: usize) -> String {
    let mut out = String::new();
    let who = match r.scope {
        Scope::Drives => "drives",
        Scope::All => "devices",
    };
    for dir in Dir::BOTH {
        let a = r.aggregate(dir);
        let _ = writeln!(
            out,
            "All {who} at once, {}: {:.2} GB/s (max-flow to memory; specs sum to {:.2}, alone {:.2}){}",
            dir.name(),
            a.max_flow_gbs,
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
    format!("{}{}{}", header(r), table(r), aggregate(r, 5))
}
