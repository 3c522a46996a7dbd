//! Human output: the planned tree (`lspci -tv` spirit: one line per element, the link on
//! every line), the lane budget table, and linter-style findings with caret snippets.

use crate::finding::{Finding, Severity};
use crate::plan::Report;
use crate::plan::budget::Budget;
use crate::platform::Catalog;
use crate::term::Term;
use crate::topology::{Confidence, Link, Node, NodeKind, Topology};
use comfy_table::{Cell, CellAlignment};
use petgraph::stable_graph::NodeIndex;
use std::fmt::Write;

/// One line per platform with its options.
pub fn platforms(catalog: &Catalog) -> String {
    let mut out = String::new();
    for p in catalog.platforms.values() {
        let d = &p.def;
        let lanes: u16 = d.sockets.iter().map(|s| *s.lanes.get_ref()).sum();
        let generation = d
            .sockets
            .first()
            .map(|s| s.generation.get_ref().get())
            .unwrap_or(3);
        let _ = writeln!(
            out,
            "{:<8} {} ({}, {} socket{}, {} Gen{} lanes)",
            d.id.get_ref(),
            d.name,
            d.form,
            d.sockets.len(),
            if d.sockets.len() == 1 { "" } else { "s" },
            lanes,
            generation
        );
        for o in &d.options {
            let values: Vec<String> = o
                .choices
                .iter()
                .map(|c| {
                    if c.value.get_ref() == o.default.get_ref() {
                        format!("{}*", c.value.get_ref())
                    } else {
                        c.value.get_ref().clone()
                    }
                })
                .collect();
            let _ = writeln!(
                out,
                "         --option {}={}",
                o.key.get_ref(),
                values.join("|")
            );
        }
    }
    out.push_str("(* = default)\n");
    out
}

/// The topology as a tree. Root ports and risers fold into the slot line below them, as a
/// person reads a chassis; every PCIe link shows what trains and what the part could do.
pub fn tree(t: &Topology) -> String {
    // About 70 bytes a line, a line an element: sized once, not grown by doubling.
    let mut out = String::with_capacity(t.graph.node_count() * 72);
    // Bays whose upstream part is missing are roots of their own: list them together.
    let (roots, loose): (Vec<NodeIndex>, Vec<NodeIndex>) = t
        .roots()
        .into_iter()
        .partition(|&r| !matches!(t.node(r).kind, NodeKind::Bay { .. }));
    for (i, &r) in roots.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", node_line(t, r));
        let kids = visible_children(t, r);
        for (k, &c) in kids.iter().enumerate() {
            subtree(t, c, "", k + 1 == kids.len(), &mut out);
        }
    }
    for (a, b, l) in t.fabric_links() {
        if let Link::Fabric {
            fabric,
            links,
            gbs_per_direction,
        } = l
        {
            let _ = writeln!(
                out,
                "\n{} <-> {}: {fabric} x{links}, {gbs_per_direction:.1} GB/s per direction",
                t.node(a).label,
                t.node(b).label
            );
        }
    }
    if !loose.is_empty() {
        out.push_str("\nNot connected (their card or controller is not installed):\n");
        for (k, &b) in loose.iter().enumerate() {
            subtree(t, b, "", k + 1 == loose.len(), &mut out);
        }
    }
    out
}

fn subtree(t: &Topology, ix: NodeIndex, prefix: &str, last: bool, out: &mut String) {
    let _ = writeln!(
        out,
        "{prefix}{}{}",
        if last { "└─ " } else { "├─ " },
        node_line(t, ix)
    );
    let child_prefix = format!("{prefix}{}", if last { "   " } else { "│  " });
    let kids = visible_children(t, ix);
    for (k, &c) in kids.iter().enumerate() {
        subtree(t, c, &child_prefix, k + 1 == kids.len(), out);
    }
}

/// Children, with root ports (above a slot) and risers folded away.
fn visible_children(t: &Topology, ix: NodeIndex) -> Vec<NodeIndex> {
    let mut out = Vec::new();
    for c in t.children(ix) {
        if folded(t, c) {
            out.extend(visible_children(t, c));
        } else {
            out.push(c);
        }
    }
    out
}

fn folded(t: &Topology, ix: NodeIndex) -> bool {
    match t.node(ix).kind {
        NodeKind::Riser => true,
        NodeKind::RootPort { .. } => t.children(ix).iter().any(|&c| {
            matches!(
                t.node(c).kind,
                NodeKind::Riser | NodeKind::Slot { .. } | NodeKind::Pch
            ) || (matches!(t.node(c).kind, NodeKind::Switch { .. }))
                || matches!(t.node(c).kind, NodeKind::Device { .. })
        }),
        _ => false,
    }
}

fn link_text(t: &Topology, ix: NodeIndex) -> String {
    let Some((_, e)) = t.parent_edge(ix) else {
        return String::new();
    };
    match &t.graph[e] {
        Link::Pcie { rate, max } => {
            let mut s = format!(" ── {} ({})", rate.short(), rate.label());
            if let Some(m) = max
                && (m.generation != rate.generation || m.width != rate.width)
            {
                let _ = write!(s, ", max {}", m.short());
            }
            s
        }
        Link::Storage { protocol, gbps } => {
            // Upper-case the protocol only: the unit stays "Gb/s" (12 Gb/s is not 12 GB/s).
            let proto = format!("{protocol:?}").to_uppercase();
            format!(" ── {proto} {gbps} Gb/s")
        }
        _ => String::new(),
    }
}

fn node_line(t: &Topology, ix: NodeIndex) -> String {
    let n: &Node = t.node(ix);
    let mut s = match &n.kind {
        NodeKind::Socket {
            lanes, numa_nodes, ..
        } => {
            let generation = t
                .children(ix)
                .first()
                .and_then(|&c| match t.node(c).kind {
                    NodeKind::RootComplex { generation, .. } => Some(generation),
                    _ => None,
                })
                .map(|g| format!(" {g}"))
                .unwrap_or_default();
            let numa: Vec<String> = numa_nodes.iter().map(u32::to_string).collect();
            format!(
                "{} [{lanes}{generation} lanes, NUMA {}]",
                n.label,
                if numa.is_empty() {
                    "?".into()
                } else {
                    numa.join(",")
                }
            )
        }
        NodeKind::RootComplex {
            lanes, numa_node, ..
        } => {
            // Where a socket has several NUMA nodes (one per die), each root complex names its
            // own, as lstopo draws PCI under the NUMA node it belongs to.
            let per_die = t
                .socket_of(ix)
                .and_then(|s| match &t.node(s).kind {
                    NodeKind::Socket { numa_nodes, .. } => Some(numa_nodes.len() > 1),
                    _ => None,
                })
                .unwrap_or(false);
            match numa_node {
                Some(nn) if per_die => format!("{} (x{lanes}, NUMA {nn})", n.label),
                _ => format!("{} (x{lanes})", n.label),
            }
        }
        NodeKind::Slot {
            electrical,
            mechanical,
        } => {
            let riser = t
                .ancestor(ix, |k| matches!(k, NodeKind::Riser))
                .map(|r| format!(", {}", t.node(r).label))
                .unwrap_or_default();
            let conn = if electrical != mechanical {
                format!(" in x{mechanical} connector")
            } else {
                String::new()
            };
            let generation = n.rated_gen.map(|g| format!(" {g}")).unwrap_or_default();
            let empty = match (&n.note, t.children(ix).is_empty()) {
                (Some(note), true) => format!("  ({note})"),
                (None, true) => "  (empty)".to_string(),
                _ => String::new(),
            };
            format!(
                "{} [x{electrical}{conn}{generation}{riser}]{empty}",
                n.label
            )
        }
        NodeKind::Bay { .. } => {
            let src = n
                .source
                .as_ref()
                .filter(|s| !s.is_empty())
                .map(|s| format!(" [{s}]"))
                .unwrap_or_default();
            let empty = if t.children(ix).is_empty() {
                "  (empty)"
            } else {
                ""
            };
            format!("{}{src}{empty}", n.label)
        }
        NodeKind::Switch { part } => match part {
            Some(p) if !n.label.contains(p.as_str()) => format!("{} ({p})", n.label),
            _ => n.label.clone(),
        },
        NodeKind::SwitchPort { width, .. } => format!("{} [x{width}]", n.label),
        NodeKind::RootPort { width, .. } => format!("{} [x{width}]", n.label),
        _ => n.label.clone(),
    };
    s.push_str(&link_text(t, ix));
    if n.confidence == Confidence::Inferred && !matches!(n.kind, NodeKind::Bay { .. }) {
        s.push_str(" [inferred]");
    }
    if let Some(p) = &n.pci {
        s = format!("{} {s}", p.bdf);
    }
    s
}

/// The lane budget: per socket, per root complex, each consumer.
pub fn budget(b: &Budget) -> String {
    budget_in(b, &Term::WIDE)
}

/// [`budget`] fitted to a terminal.
pub fn budget_in(b: &Budget, term: &Term) -> String {
    let mut table = term.table();
    table.set_header(vec![
        "socket",
        "root complex",
        "lanes",
        "used",
        "free",
        "consumers (port: part xN)",
    ]);
    for s in &b.sockets {
        for (i, rc) in s.root_complexes.iter().enumerate() {
            let consumers: Vec<String> = rc
                .consumers
                .iter()
                .filter(|c| c.used > 0)
                .map(|c| {
                    let part = c.part.clone().unwrap_or_default();
                    let note = if c.trained > 0 && c.trained < c.used {
                        format!(" (x{} device)", c.trained)
                    } else {
                        String::new()
                    };
                    let nvme = if c.nvme_drives > 0 {
                        format!(", {} NVMe", c.nvme_drives)
                    } else {
                        String::new()
                    };
                    if part == c.port {
                        format!("{part} x{}{note}{nvme}", c.used)
                    } else {
                        format!("{}: {part} x{}{note}{nvme}", c.port, c.used)
                    }
                })
                .collect();
            let label = format!(
                "{}{}{}",
                rc.label,
                if rc.inferred { " [inferred]" } else { "" },
                if rc.in_socket_budget {
                    ""
                } else {
                    " (beside the socket's lanes)"
                }
            );
            table.add_row(vec![
                Cell::new(if i == 0 { s.label.as_str() } else { "" }),
                Cell::new(label),
                Cell::new(rc.lanes).set_alignment(CellAlignment::Right),
                Cell::new(rc.used).set_alignment(CellAlignment::Right),
                Cell::new(rc.free).set_alignment(CellAlignment::Right),
                Cell::new(if consumers.is_empty() {
                    "-".to_string()
                } else {
                    consumers.join("\n")
                }),
            ]);
        }
    }
    let table_text = format!("{}\n", crate::escape::terminal_plain(&table.to_string()));
    // The totals below are prose: they wrap to the terminal.
    let mut out = String::new();
    for s in &b.sockets {
        let _ = writeln!(
            out,
            "{}: {} of {} lanes used, {} free",
            s.label, s.used, s.lanes, s.free
        );
    }
    let outside: u16 = b.outside_budget.iter().map(|c| c.used).sum();
    let _ = write!(
        out,
        "Total: {} of {} lanes used, {} free",
        b.total_used,
        b.total_lanes,
        i32::from(b.total_lanes) - i32::from(b.total_used)
    );
    if outside > 0 {
        let names: Vec<String> = b
            .outside_budget
            .iter()
            .filter(|c| c.used > 0)
            .map(|c| format!("{} x{}", c.part.clone().unwrap_or(c.port.clone()), c.used))
            .collect();
        let _ = write!(out, " (+ {})", names.join(", "));
    }
    out.push('\n');
    if b.nvme_drives > 0 {
        let _ = writeln!(
            out,
            "NVMe: {} lanes for {} drive{}",
            b.nvme_lanes,
            b.nvme_drives,
            if b.nvme_drives == 1 { "" } else { "s" }
        );
    }
    format!("{table_text}{}", term.wrap(&out))
}

/// Findings like a linter: `error[LP0105]: message`, location, caret snippet, help.
pub fn findings(findings: &[Finding], source: Option<&crate::source::SourceFile>) -> String {
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(out, "{}[{}]: {}", f.severity, f.code, f.message);
        let loc = &f.location;
        if let (Some(file), Some(line), Some(col)) = (&loc.file, loc.line, loc.column) {
            let _ = writeln!(out, "  --> {file}:{line}:{col}");
            if let Some(src) = source.filter(|s| &s.name == file)
                && let Some(text) = src.text.lines().nth(line - 1)
            {
                let w = line.to_string().len();
                let _ = writeln!(out, "{:w$} |", "");
                let _ = writeln!(out, "{line} | {text}");
                let _ = writeln!(out, "{:w$} | {}^", "", " ".repeat(col - 1));
            }
        } else if let Some(file) = &loc.file {
            let _ = writeln!(out, "  --> {file}");
        }
        if let Some(node) = &loc.node {
            let _ = writeln!(out, "   = at: {node}");
        }
        if let Some(h) = &f.help {
            let _ = writeln!(out, "   = help: {h}");
        }
        out.push('\n');
    }
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let _ = writeln!(
        out,
        "{} error(s), {} warning(s), {} note(s)",
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note)
    );
    out
}

/// What `check` prints: the header, the planned tree (unless `tree` is false), the lane
/// budget, the bandwidth report, the end-to-end section when there is one, and the findings
/// with their snippets of `file`.
pub fn check_report(
    report: &Report,
    bandwidth: &crate::flow::FlowReport,
    system: Option<&crate::flow::system::SystemReport>,
    file: &crate::source::SourceFile,
    tree: bool,
    term: &Term,
) -> String {
    let mut out = term.wrap(&header(report));
    if tree {
        out.push('\n');
        out.push_str(&term.fit(&self::tree(&report.plan.topology)));
    }
    out.push_str("\nLane budget\n");
    out.push_str(&budget_in(&report.budget, term));
    out.push('\n');
    out.push_str(&super::flow::report_in(bandwidth, term));
    if let Some(s) = system {
        out.push('\n');
        out.push_str(&term.wrap(&super::flow::system(s)));
    }
    out.push('\n');
    out.push_str(&term.wrap(&findings(&report.findings, Some(file))));
    out
}

/// Header line of a report: platform, build and options.
pub fn header(r: &Report) -> String {
    let opts: Vec<String> = r
        .plan
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let mut s = r.plan.platform_name.clone();
    if let Some(b) = &r.plan.build_name {
        let _ = write!(s, " — {b}");
    }
    if !opts.is_empty() {
        let _ = write!(s, " ({})", opts.join(", "));
    }
    s.push('\n');
    s
}

/// The parts catalogue as a table (`laneplan parts`).
pub fn parts(catalog: &Catalog, class: Option<crate::topology::DeviceClass>) -> String {
    parts_in(catalog, class, &Term::WIDE)
}

/// [`parts`] fitted to a terminal.
pub fn parts_in(
    catalog: &Catalog,
    class: Option<crate::topology::DeviceClass>,
    term: &Term,
) -> String {
    let header = [
        "id",
        "name",
        "class",
        "link",
        "seq read/write GB/s",
        "4K read/write IOPS",
        "source",
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for p in catalog.parts.values() {
        let d = &p.def;
        if class.is_some_and(|c| c != d.class) {
            continue;
        }
        let link = match d.interface {
            Some(crate::platform::schema::Interface::Sas) => "SAS 12 Gb/s".to_string(),
            Some(crate::platform::schema::Interface::Sata) => "SATA 6 Gb/s".to_string(),
            _ => format!("Gen{} x{}", d.generation.get_ref(), d.width.get_ref()),
        };
        let (seq, iops) = match &d.perf {
            Some(pf) => (
                format!("{:.2} / {:.2}", pf.seq_read_gbs, pf.seq_write_gbs),
                if pf.rand_read_iops > 0.0 {
                    format!(
                        "{:.0}K / {:.0}K",
                        pf.rand_read_iops / 1e3,
                        pf.rand_write_iops / 1e3
                    )
                } else {
                    "-".into()
                },
            ),
            None => ("-".into(), "-".into()),
        };
        rows.push(vec![
            d.id.get_ref().clone(),
            d.name.clone(),
            d.class.name().to_string(),
            link,
            seq,
            iops,
            format!(
                "{}{}",
                d.source.clone().unwrap_or_default(),
                d.confidence.marker()
            ),
        ]);
    }
    // Narrow terminals lose the source first (`parts --json` has it), then the IOPS.
    let mut t = term.fitted_table(&header, &rows, &[6, 5]);
    let plain = t.render();
    // Ids and links are short and searched for: they do not wrap (names do), unless the
    // terminal is too narrow even for that.
    for i in [0, 3] {
        if let Some(c) = t.column_mut(i) {
            c.set_constraint(comfy_table::ColumnConstraint::ContentWidth);
        }
    }
    let mut text = t.render();
    if let Some(w) = term.width
        && text.lines().any(|l| l.chars().count() > w)
    {
        text = plain;
    }
    format!("{text}\n")
}
