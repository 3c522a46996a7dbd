//! The bay layout in a terminal: each panel drawn with box characters (or plain ASCII), one
//! cell per bay in chassis order, coloured by socket; the lane groups; a table per bay; the
//! rear slots. 24 bays fit in 120 columns.
//!
//! Colour is written as ANSI escapes when asked; the binary prints through `anstream`,
//! which strips them for NO_COLOR and for output that is not a terminal.

use crate::bays::geometry::Panel;
use crate::bays::{BayLayout, BayLocation, BayStatus, BayView, SlotView};
use crate::plan::instantiate::compress_ranges as ranges;
use crate::platform::schema::Interface;
use anstyle::{AnsiColor, Effects, Style};
use comfy_table::{ContentArrangement, Table, presets};
use std::fmt::Write;

/// A name for the picture: every control character shown as `\u{1b}` (the picture's own
/// colour is the only SGR that reaches the terminal).
fn shown(s: &str) -> String {
    crate::render::escape::terminal(s).into_owned()
}

/// How to draw.
#[derive(Debug, Clone, Copy)]
pub struct TextOptions {
    /// Plain ASCII (`+-|`) instead of box-drawing characters; implies no colour.
    pub ascii: bool,
    /// ANSI colour escapes.
    pub color: bool,
    /// Terminal columns the picture must fit.
    pub width: usize,
    /// The tables (slots, problems) take the width of their cells, as on a pipe: a fact is
    /// never wrapped onto a line without its slot. The bay picture keeps `width`.
    pub unlimited_tables: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            ascii: false,
            color: false,
            width: 120,
            unlimited_tables: false,
        }
    }
}

struct Glyphs {
    tl: char,
    tr: char,
    bl: char,
    br: char,
    h: char,
    v: char,
    t: char,
    b: char,
    l: char,
    r: char,
    x: char,
}

const UNICODE: Glyphs = Glyphs {
    tl: '┌',
    tr: '┐',
    bl: '└',
    br: '┘',
    h: '─',
    v: '│',
    t: '┬',
    b: '┴',
    l: '├',
    r: '┤',
    x: '┼',
};

const ASCII: Glyphs = Glyphs {
    tl: '+',
    tr: '+',
    bl: '+',
    br: '+',
    h: '-',
    v: '|',
    t: '+',
    b: '+',
    l: '+',
    r: '+',
    x: '+',
};

/// Terminal colour of a socket (CPU1 blue, CPU2 yellow, ...).
pub fn socket_style(socket: Option<u8>) -> Style {
    let c = match socket {
        Some(0) => AnsiColor::Blue,
        Some(1) => AnsiColor::Yellow,
        Some(2) => AnsiColor::Green,
        Some(3) => AnsiColor::Magenta,
        Some(_) => AnsiColor::Cyan,
        None => return Style::new().effects(Effects::DIMMED),
    };
    Style::new().fg_color(Some(c.into())).effects(Effects::BOLD)
}

fn problem_style() -> Style {
    Style::new()
        .fg_color(Some(AnsiColor::Red.into()))
        .effects(Effects::BOLD)
}

fn dim_style() -> Style {
    Style::new().effects(Effects::DIMMED)
}

struct Painter {
    color: bool,
}

impl Painter {
    fn paint(&self, style: Style, s: &str) -> String {
        if self.color && !s.trim().is_empty() {
            format!("{}{s}{}", style.render(), style.render_reset())
        } else {
            s.to_string()
        }
    }
}

/// Centre `s` in `w` columns, cutting it to fit.
fn centre(s: &str, w: usize) -> String {
    let s: String = s.chars().take(w).collect();
    let n = s.chars().count();
    let left = (w - n) / 2;
    format!("{}{s}{}", " ".repeat(left), " ".repeat(w - n - left))
}

/// `s` on lines of at most `w` characters, broken at spaces (a longer word between
/// characters): nothing is cut.
fn wrap_cell(s: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split_whitespace() {
        let need = cur.chars().count() + usize::from(!cur.is_empty()) + word.chars().count();
        if need <= w {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
            continue;
        }
        if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        let chars: Vec<char> = word.chars().collect();
        for chunk in chars.chunks(w) {
            if chunk.len() == w {
                out.push(chunk.iter().collect());
            } else {
                cur = chunk.iter().collect();
            }
        }
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

/// `NVMe`, or `NVM` in three columns.
fn iface_code(i: Interface, w: usize) -> &'static str {
    match (i, w >= 4) {
        (Interface::Nvme, true) => "NVMe",
        (Interface::Nvme, false) => "NVM",
        (Interface::Sas, _) => "SAS",
        (Interface::Sata, true) => "SATA",
        (Interface::Sata, false) => "SAT",
    }
}

fn socket_code(b: &BayView, w: usize) -> String {
    match (b.socket, w >= 4) {
        (Some(i), true) => format!("CPU{}", i + 1),
        (Some(i), false) => format!("C{}", i + 1),
        (None, _) => "--".into(),
    }
}

fn link_code(b: &BayView, w: usize) -> String {
    let Some(l) = &b.link else {
        return String::new();
    };
    match l.rate {
        Some(r) if w >= 7 => r.short(),
        Some(r) => format!("G{}", r.generation.number()),
        None if w >= 7 => l.text.replace(" Gb/s", "G"),
        None => l
            .text
            .split_whitespace()
            .nth(1)
            .map(|g| format!("{g}G"))
            .unwrap_or_default(),
    }
}

fn status_code(b: &BayView) -> String {
    let mut s = b.status.code().to_string();
    if !b.status.is_problem() && !b.problems.is_empty() {
        s.push('!');
    }
    s
}

/// Inner width of a bay cell for `cols` bays in `width` columns.
fn cell_width(cols: usize, width: usize) -> usize {
    let w = (width.saturating_sub(1) / cols.max(1)).saturating_sub(1);
    w.clamp(MIN_CELL, 12)
}

/// The narrowest bay cell: "NVM", "C1".
const MIN_CELL: usize = 3;

/// Draws one panel.
pub fn panel(layout: &BayLayout, p: &Panel, opts: &TextOptions) -> String {
    let g = if opts.ascii { &ASCII } else { &UNICODE };
    let painter = Painter {
        // Colour is independent of the character set: piped ASCII with --color always keeps it.
        color: opts.color,
    };
    // A row wider than the terminal even at the narrowest cell is drawn as several
    // shorter rows of equal length, left to right.
    let max_cols = (opts.width.saturating_sub(1) / (MIN_CELL + 1)).max(1);
    let rows: Vec<Vec<u32>> = p
        .rows
        .iter()
        .flat_map(|row| {
            let parts = row.len().div_ceil(max_cols).max(1);
            let per = row.len().div_ceil(parts).max(1);
            row.chunks(per).map(<[u32]>::to_vec).collect::<Vec<_>>()
        })
        .collect();
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let w = cell_width(cols, opts.width);
    let mut out = String::new();
    let border = |left: char, mid: char, right: char, n: usize| -> String {
        let mut s = String::new();
        s.push(left);
        for i in 0..n {
            s.extend(std::iter::repeat_n(g.h, w));
            s.push(if i + 1 == n { right } else { mid });
        }
        s
    };
    for (r, row) in rows.iter().enumerate() {
        let n = row.len();
        let _ = writeln!(
            out,
            "{}",
            if r == 0 {
                border(g.tl, g.t, g.tr, n)
            } else {
                border(g.l, g.x, g.r, n.max(rows[r - 1].len()))
            }
        );
        let bays: Vec<Option<&BayView>> = row.iter().map(|&b| layout.bay(b)).collect();
        type Line = fn(&BayView, usize) -> (String, LineStyle);
        let mut lines: Vec<Line> = vec![
            |b, _| (b.number.to_string(), LineStyle::Plain),
            |b, w| (iface_code(b.interface, w).to_string(), LineStyle::Plain),
            |b, w| (socket_code(b, w), LineStyle::Socket),
            |b, _| (b.group_letter.clone(), LineStyle::Socket),
            |b, w| (link_code(b, w), LineStyle::Plain),
        ];
        if w >= 10 {
            lines.push(|b, _| {
                (
                    shown(b.part.as_deref().unwrap_or_default()),
                    LineStyle::Plain,
                )
            });
        }
        lines.push(|b, _| (status_code(b), LineStyle::Status));
        for line in &lines {
            let mut s = String::new();
            s.push(g.v);
            for b in bays.iter().flatten() {
                let (text, style) = line(b, w);
                let cell = centre(&text, w);
                let style = match style {
                    LineStyle::Plain if b.status == BayStatus::Empty => dim_style(),
                    LineStyle::Plain => Style::new(),
                    LineStyle::Socket => socket_style(b.socket),
                    LineStyle::Status if b.has_problem() => problem_style(),
                    LineStyle::Status if b.status == BayStatus::Empty => dim_style(),
                    LineStyle::Status => Style::new(),
                };
                s.push_str(&painter.paint(style, &cell));
                s.push(g.v);
            }
            let _ = writeln!(out, "{s}");
        }
    }
    if let Some(last) = rows.last() {
        let _ = writeln!(out, "{}", border(g.bl, g.b, g.br, last.len()));
    }
    out
}

#[derive(Clone, Copy)]
enum LineStyle {
    Plain,
    Socket,
    Status,
}

fn table(opts: &TextOptions, header: Vec<&str>) -> Table {
    let mut t = Table::new();
    t.load_style(if opts.ascii {
        presets::ASCII_FULL_CONDENSED
    } else {
        presets::UTF8_FULL_CONDENSED
    });
    if !opts.unlimited_tables {
        t.set_content_arrangement(ContentArrangement::Dynamic);
        t.set_width(opts.width as u16);
    }
    t.set_header(header);
    t
}

fn panel_title(layout: &BayLayout, p: &Panel) -> String {
    let shape = if p.rows.len() > 1 {
        format!(" in {} rows of {}", p.rows.len(), p.columns())
    } else {
        String::new()
    };
    format!(
        "{} — {} x {}\" bays{shape}{}",
        p.location.name(),
        p.count(),
        p.size,
        if p.location == BayLocation::Front {
            format!(" ({})", layout.form)
        } else {
            String::new()
        }
    )
}

/// The whole layout: title, panels, legend, lane groups, bay table, rear slots, findings.
pub fn render(layout: &BayLayout, opts: &TextOptions) -> String {
    let painter = Painter {
        // Colour is independent of the character set: piped ASCII with --color always keeps it.
        color: opts.color,
    };
    let dash = if opts.ascii { "-" } else { "—" };
    let arrow = if opts.ascii { "->" } else { "→" };
    let mut out = String::new();
    title_line(&mut out, layout, dash);
    front_panels(&mut out, layout, opts, dash);
    legend_lines(&mut out, layout, &painter);
    group_lines(&mut out, layout, &painter, arrow);
    bay_table(&mut out, layout, opts);
    problem_lines(&mut out, layout, &painter);
    out.push('\n');
    out.push_str(&rear(layout, opts, &painter, dash));
    if let Some(h) = &layout.host {
        host_lines(&mut out, layout, h);
    }
    if !layout.notes.is_empty() {
        let _ = writeln!(out, "\nOther findings:");
        for n in &layout.notes {
            let _ = writeln!(out, "  {}", shown(n));
        }
    }
    out
}

/// The platform, the build and the options.
fn title_line(out: &mut String, layout: &BayLayout, dash: &str) {
    let mut title = shown(&layout.platform_name);
    if let Some(b) = &layout.build {
        let _ = write!(title, " {dash} {}", shown(b));
    }
    if !layout.options.is_empty() {
        let o: Vec<String> = layout
            .options
            .iter()
            .map(|(k, v)| format!("{}={}", shown(k), shown(v)))
            .collect();
        let _ = write!(title, " ({})", o.join(", "));
    }
    let _ = writeln!(out, "{title}\n");
}

/// Each front panel under its title.
fn front_panels(out: &mut String, layout: &BayLayout, opts: &TextOptions, dash: &str) {
    let front: Vec<&Panel> = layout
        .panels
        .iter()
        .filter(|p| p.location == BayLocation::Front)
        .collect();
    if front.is_empty() {
        let _ = writeln!(out, "Front {dash} no drive bays\n");
    }
    for p in front {
        let _ = writeln!(out, "{}", panel_title(layout, p).replace('—', dash));
        out.push_str(&panel(layout, p, opts));
        out.push('\n');
    }
}

/// What the lines of a bay mean: the sockets and the statuses shown.
fn legend_lines(out: &mut String, layout: &BayLayout, painter: &Painter) {
    let sockets: Vec<String> = layout
        .sockets
        .iter()
        .map(|s| {
            let numa: Vec<String> = s.numa_nodes.iter().map(u32::to_string).collect();
            painter.paint(
                socket_style(Some(s.index)),
                &format!(
                    "C{} = {} (NUMA {})",
                    s.index + 1,
                    shown(&s.label),
                    numa.join(",")
                ),
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "Lines: bay, interface, socket, lane group, link, status. Sockets: {}",
        sockets.join(", ")
    );
    let mut statuses: Vec<BayStatus> = Vec::new();
    for b in &layout.bays {
        if !statuses.contains(&b.status) {
            statuses.push(b.status);
        }
    }
    let mut legend: Vec<String> = statuses
        .iter()
        .map(|s| format!("{} {}", s.code(), s.describe()))
        .collect();
    if layout.bays.iter().any(|b| !b.problems.is_empty()) {
        legend.push("! problem listed below".into());
    }
    let _ = writeln!(out, "Status: {}\n", legend.join(", "));
}

/// One line per lane group: its bays and the path up to the socket.
fn group_lines(out: &mut String, layout: &BayLayout, painter: &Painter, arrow: &str) {
    if layout.groups.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "Lane groups (bay {arrow} card/switch {arrow} root complex {arrow} socket)"
    );
    for g in &layout.groups {
        let socket = g
            .socket
            .map(|s| layout.socket_label(s))
            .unwrap_or_else(|| "not connected".into());
        let up = g
            .uplink
            .as_ref()
            .map(|u| format!(" ({} up)", u.text))
            .unwrap_or_default();
        let over = g
            .oversubscription
            .map(|r| {
                painter.paint(
                    problem_style(),
                    &format!(", {}:1 oversubscribed", crate::bays::trim(r)),
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} bays {:<7} {}{up} {arrow} {} {arrow} {}{over}",
            painter.paint(socket_style(g.socket), &format!("{:<2}", g.letter)),
            ranges(&g.bays),
            shown(&g.label),
            shown(g.root_complex.as_deref().unwrap_or("?")),
            painter.paint(socket_style(g.socket), &socket),
        );
    }
    out.push('\n');
}

/// The table of bays, one row each.
fn bay_table(out: &mut String, layout: &BayLayout, opts: &TextOptions) {
    if layout.bays.is_empty() {
        return;
    }
    let mut t = table(
        opts,
        vec!["bay", "iface", "part", "socket", "grp", "link", "status"],
    );
    for b in &layout.bays {
        t.add_row(vec![
            b.number.to_string(),
            b.interface.name().to_string(),
            b.part.clone().unwrap_or_else(|| "-".into()),
            match (&b.socket_label, b.numa_node) {
                (Some(s), Some(n)) => format!("{s}/N{n}"),
                (Some(s), None) => s.clone(),
                _ => "-".into(),
            },
            b.group_letter.clone(),
            b.link
                .as_ref()
                .map(|l| l.long())
                .unwrap_or_else(|| "-".into()),
            format!(
                "{}{}",
                b.status.name(),
                if b.problems.is_empty() { "" } else { " !" }
            ),
        ]);
    }
    let _ = writeln!(
        out,
        "{}",
        crate::render::escape::terminal_plain(&t.to_string())
    );
}

/// The bays' problems, then the lane groups'.
fn problem_lines(out: &mut String, layout: &BayLayout, painter: &Painter) {
    let problems: Vec<&BayView> = layout
        .bays
        .iter()
        .filter(|b| !b.problems.is_empty())
        .collect();
    if !problems.is_empty() {
        let _ = writeln!(out, "Bay problems:");
        for b in problems {
            for p in &b.problems {
                let _ = writeln!(
                    out,
                    "  {} {}",
                    painter.paint(problem_style(), &format!("bay {}:", b.number)),
                    shown(p)
                );
            }
        }
    }
    let gp: Vec<String> = layout
        .groups
        .iter()
        .flat_map(|g| {
            g.problems
                .iter()
                .map(move |p| format!("  group {}: {}", g.letter, shown(p)))
        })
        .collect();
    if !gp.is_empty() {
        let _ = writeln!(out, "Lane group problems:");
        for p in gp {
            let _ = writeln!(out, "{p}");
        }
    }
}

/// The host the layout was checked against: how bays were matched, drives in no bay.
fn host_lines(out: &mut String, layout: &BayLayout, h: &crate::bays::HostView) {
    let _ = writeln!(out, "\nHost: {}", h.summary());
    let matched: Vec<String> = layout
        .bays
        .iter()
        .filter_map(|b| {
            b.matched_by
                .filter(|m| *m != crate::against::MatchMethod::None)
                .map(|m| {
                    format!(
                        "bay {} by {}",
                        b.number,
                        match (m, b.slot_number) {
                            (crate::against::MatchMethod::PhysicalSlot, Some(n)) =>
                                format!("physical slot {n}"),
                            (crate::against::MatchMethod::PhysicalSlot, None) =>
                                "physical slot".to_string(),
                            (crate::against::MatchMethod::AddressOrder, _) =>
                                "address order".to_string(),
                            _ => "device class".to_string(),
                        }
                    )
                })
        })
        .collect();
    if !matched.is_empty() {
        let _ = writeln!(out, "  matched: {}", matched.join(", "));
    }
    if !h.unplaced.is_empty() {
        let _ = writeln!(out, "  NVMe drives in no bay ({}):", h.unplaced.len());
        for d in &h.unplaced {
            let _ = writeln!(
                out,
                "    {} {}: {}",
                shown(&d.bdf.map_or_else(|| "?".to_string(), |b| b.to_string())),
                shown(d.model.as_deref().unwrap_or("NVMe drive")),
                shown(&d.reason)
            );
        }
    }
}

fn rear(layout: &BayLayout, opts: &TextOptions, painter: &Painter, dash: &str) -> String {
    let g = if opts.ascii { &ASCII } else { &UNICODE };
    let mut out = String::new();
    let _ = writeln!(out, "Rear {dash} slots");
    let n = layout.slots.len();
    if n > 0 {
        let w = cell_width(n, opts.width).min(10);
        let mut top = String::from(g.tl);
        let mut bottom = String::from(g.bl);
        for i in 0..n {
            top.extend(std::iter::repeat_n(g.h, w));
            bottom.extend(std::iter::repeat_n(g.h, w));
            top.push(if i + 1 == n { g.tr } else { g.t });
            bottom.push(if i + 1 == n { g.br } else { g.b });
        }
        let _ = writeln!(out, "{top}");
        type Line = fn(&SlotView) -> String;
        let lines: [Line; 5] = [
            |s| shown(&s.short),
            |s| s.width_text(),
            |s| {
                s.socket
                    .map(|i| format!("CPU{}", i + 1))
                    .unwrap_or_else(|| "--".into())
            },
            |s| s.card_short(),
            |s| {
                if s.problems.is_empty() {
                    String::new()
                } else {
                    "!".into()
                }
            },
        ];
        for (k, line) in lines.iter().enumerate() {
            // Each cell's text wrapped to the cell (never cut): as many rows as the longest.
            let cells: Vec<Vec<String>> = layout
                .slots
                .iter()
                .map(|s| {
                    let text = if k == 3 { s.card_short_in(w) } else { line(s) };
                    wrap_cell(&text, w)
                })
                .collect();
            let rows = cells.iter().map(Vec::len).max().unwrap_or(1);
            for r in 0..rows {
                let mut row = String::from(g.v);
                for (s, cell) in layout.slots.iter().zip(&cells) {
                    let cell = centre(cell.get(r).map(String::as_str).unwrap_or(""), w);
                    let style = match k {
                        2 => socket_style(s.socket),
                        4 => problem_style(),
                        3 if s.card.is_none() => dim_style(),
                        _ => Style::new(),
                    };
                    row.push_str(&painter.paint(style, &cell));
                    row.push(g.v);
                }
                let _ = writeln!(out, "{row}");
            }
        }
        let _ = writeln!(out, "{bottom}");
    }
    for p in layout
        .panels
        .iter()
        .filter(|p| p.location == BayLocation::Rear)
    {
        let _ = writeln!(out, "{}", panel_title(layout, p).replace('—', dash));
        out.push_str(&panel(layout, p, opts));
    }
    if n > 0 {
        let mut t = table(
            opts,
            vec![
                "slot",
                "width",
                "socket",
                "root complex",
                "holds",
                "link",
                "bays",
            ],
        );
        for s in &layout.slots {
            let holds = match (&s.card, &s.reserved_by) {
                (Some(c), _) => c.clone(),
                (None, Some(r)) => format!("(reserved: {r})"),
                (None, None) => "-".into(),
            };
            t.add_row(vec![
                s.short.clone(),
                s.width_text(),
                s.socket_label.clone().unwrap_or_else(|| "-".into()),
                s.root_complex.clone(),
                holds,
                s.link
                    .as_ref()
                    .map(|l| l.text.clone())
                    .unwrap_or_else(|| "-".into()),
                if s.bays.is_empty() {
                    "-".into()
                } else {
                    ranges(&s.bays)
                },
            ]);
        }
        let _ = writeln!(
            out,
            "{}",
            crate::render::escape::terminal_plain(&t.to_string())
        );
        let probs = layout.slot_problems();
        if !probs.is_empty() {
            let _ = writeln!(out, "Slot problems:");
            for (slots, p) in probs {
                let _ = writeln!(
                    out,
                    "  {} {}",
                    painter.paint(problem_style(), &shown(&format!("{}:", slots.join(", ")))),
                    shown(&p)
                );
            }
        }
    }
    out
}
