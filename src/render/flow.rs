//! The bandwidth report for people: a bottleneck table (each device alone: its physical
//! ceiling, its expected figure and what limits it; its fair share all at once), aggregate
//! lines (ceiling and expected), and the most loaded links.

use crate::flow::{DeviceDir, Dir, FlowReport, Limit, Scope};
use crate::term::Term;
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
    // The table of a large build is megabytes: kept as it is unless something needs escaping.
    let table = t.to_string();
    let mut out = match crate::escape::terminal_plain(&table) {
        std::borrow::Cow::Owned(escaped) => escaped,
        std::borrow::Cow::Borrowed(_) => table,
    };
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

/// The end-to-end section: the CPU and cost weighed, then per view and direction what the
/// build delivers, what binds, and every element's bound.
pub fn system(r: &crate::flow::system::SystemReport) -> String {
    use crate::flow::system::{Bind, rate};
    let mut s = String::new();
    let cpu = match &r.cpu {
        Some(c) => format!(
            "{} x {}: {} cores at {:.2} GHz ({}), utilisation {:.0} %; memory {} x {} channels x {} MT/s x 8 B = {:.2} GB/s",
            c.sockets,
            c.name,
            c.cores,
            c.clock_ghz,
            c.clock,
            c.utilisation * 100.0,
            c.sockets,
            c.memory_channels,
            c.memory_mts,
            c.memory_gbs
        ),
        None => {
            "no CPU known (name one: `cpu = ...` in the build or --cpu): CPU and memory not weighed"
                .into()
        }
    };
    let cost = match &r.cost {
        Some(c) => match c.kind {
            "stack" => format!(
                "stack {}: {} cycles per I/O + {} per byte",
                c.stack.as_deref().unwrap_or(""),
                crate::flow::system::grouped(c.cycles_per_io.unwrap_or(0.0)),
                c.cycles_per_byte.unwrap_or(0.0)
            ),
            "cycles-per-io" => format!(
                "{} cycles per I/O + {} per byte (given)",
                crate::flow::system::grouped(c.cycles_per_io.unwrap_or(0.0)),
                c.cycles_per_byte.unwrap_or(0.0)
            ),
            _ => format!(
                "{} cycles per operation, {} I/Os per operation (given)",
                crate::flow::system::grouped(c.cycles_per_op.unwrap_or(0.0)),
                c.ios_per_op.unwrap_or(0.0)
            ),
        },
        None => {
            "no cost figure (--stack, --cycles-per-io or --cycles-per-op): the CPU is not weighed"
                .into()
        }
    };
    let _ = writeln!(s, "End to end: {cpu}");
    let _ = writeln!(
        s,
        "  {cost}{}{}",
        if r.served {
            "; served through the NICs"
        } else {
            "; drives to memory"
        },
        if r.replication > 1 {
            format!("; writes x {} copies", r.replication)
        } else {
            String::new()
        }
    );
    for v in [&r.iops, &r.bandwidth] {
        for dir in Dir::BOTH {
            let e = v.dir(dir);
            let size = if e.io_bytes >= 1024.0 && (e.io_bytes / 1024.0).fract() == 0.0 {
                format!("{}K", e.io_bytes / 1024.0)
            } else {
                format!("{} B", e.io_bytes)
            };
            let head = match e.binding {
                Bind::Cpu => format!(
                    "CPU-bound at {} IOPS ({})",
                    rate(e.iops),
                    e.bound(Bind::Cpu).map_or("", |b| b.basis.as_str())
                ),
                _ => format!("{} IOPS, {} bind", rate(e.iops), e.binding_label),
            };
            let ops = e
                .ops
                .map_or(String::new(), |o| format!(", {} ops/s", rate(o)));
            let cores = match (e.cpu_cores_used, e.cpu_cores_spare) {
                (Some(u), Some(sp)) => format!("; CPU {u:.1} cores used, {sp:.1} spare"),
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "{size} {}: {head} = {:.2} GB/s{ops}{cores}",
                dir.name(),
                e.gbs
            );
            let list: Vec<String> = e
                .elements
                .iter()
                .map(|b| format!("{} {} ({})", b.element.name(), rate(b.iops), b.basis))
                .collect();
            let _ = writeln!(s, "  {}", list.join(" | "));
        }
    }
    s
}
