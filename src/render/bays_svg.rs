//! The bay layout as SVG, written by hand as deterministic text (no timestamps, no random
//! ids: ids come from bay numbers and slot ids), so snapshots stay stable.
//!
//! From top to bottom: the title; the front panel with its bays in chassis order (fill and
//! outline = socket, dashed = empty, a red badge = a problem); the legend; the lane diagram
//! (bays grouped into their card, switch or controller, then root complex, then socket); the
//! rear panel (slots with their occupant, width and socket, and rear bays); findings that
//! belong to no bay or slot. Every bay, group and slot carries a `<title>` tooltip.

use super::textfit;
use crate::bays::geometry::Panel;
use crate::bays::{
    BayLayout, BayLocation, BayStatus, BayView, GroupKind, LaneGroup, SlotView, trim,
};
use crate::plan::instantiate::compress_ranges;
use std::fmt::Write;

/// Width of every drawing, in px.
pub const WIDTH: f64 = 1200.0;
const MARGIN: f64 = 20.0;
const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
/// Colour of problems (Okabe-Ito vermillion).
pub const PROBLEM: &str = "#D55E00";
const GREY: &str = "#8C8C8C";
const GREY_FILL: &str = "#EEEEEE";

/// Outline colour and fill tint of a socket (Okabe-Ito: blue, orange, green, purple).
pub fn socket_colours(socket: Option<u8>) -> (&'static str, &'static str) {
    match socket {
        Some(0) => ("#0072B2", "#D4E6F4"),
        Some(1) => ("#E69F00", "#FBEBC7"),
        Some(2) => ("#009E73", "#CDEDE4"),
        Some(3) => ("#CC79A7", "#F4E0EB"),
        Some(_) => ("#56B4E9", "#DDF0FB"),
        None => (GREY, GREY_FILL),
    }
}

/// Escapes text for XML content and attribute values ([`crate::escape::xml`]: markup as
/// entities, characters XML cannot hold as visible `\u{1b}` text).
pub fn esc(s: &str) -> String {
    crate::escape::xml(s).into_owned()
}

/// Rounds to one decimal, without a trailing `.0` (stable, short numbers).
fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// Whether a text's attributes make it bold (it is measured with the bold widths).
fn is_bold(attrs: &str) -> bool {
    attrs.contains(r#"font-weight="bold""#)
}

/// The smallest size a label shrinks to before it is wrapped further or shortened: 70 % of
/// its size, on a tenth of a pixel.
fn min_size(size: f64) -> f64 {
    (size * 0.7 * 10.0).floor() / 10.0
}

/// Splits `s` into lines no wider than `px` at `size` px (measured, words kept whole where
/// they fit a line).
fn wrap(s: &str, px: f64, size: f64) -> Vec<String> {
    textfit::fit(s, px, size, size, usize::MAX, false).lines
}

struct Svg {
    body: String,
}

impl Svg {
    fn text(&mut self, x: f64, y: f64, size: f64, attrs: &str, s: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{}" y="{}" font-size="{}"{}{}>{}</text>"#,
            n(x),
            n(y),
            n(size),
            if attrs.is_empty() { "" } else { " " },
            attrs,
            esc(s)
        );
    }

    /// Text within `px` on one line: measured, shrunk to 70 % if need be, then shortened
    /// with an ellipsis; a text not drawn at `size` in full carries its full wording as a
    /// `<title>` tooltip.
    fn label(&mut self, x: f64, y: f64, size: f64, attrs: &str, s: &str, px: f64) {
        self.block(x, y, size, attrs, s, px, 1, 0.0);
    }

    /// Text within `px` on at most `max_lines` lines, `step` apart (a line's offset, along
    /// y, or along x for text rotated by -90 degrees): wrapped, shrunk, then shortened (as
    /// [`label`](Self::label)). Returns the size used and the number of lines.
    #[allow(clippy::too_many_arguments)]
    fn block(
        &mut self,
        x: f64,
        y: f64,
        size: f64,
        attrs: &str,
        s: &str,
        px: f64,
        max_lines: usize,
        step: f64,
    ) -> (f64, usize) {
        let f = textfit::fit(s, px, size, min_size(size), max_lines, is_bold(attrs));
        if f.size == size && f.lines.len() == 1 && !f.shortened {
            self.text(x, y, size, attrs, s);
            return (size, 1);
        }
        let rotated = attrs.contains("rotate(-90");
        let step = if step > 0.0 {
            step * f.size / size
        } else {
            0.0
        };
        for (i, line) in f.lines.iter().enumerate() {
            let off = step * i as f64;
            let (lx, ly) = if rotated { (x + off, y) } else { (x, y + off) };
            let attrs = if rotated && off != 0.0 {
                // The rotation turns about the line's own anchor.
                attrs.replace(
                    &format!("rotate(-90 {} {})", n(x), n(y)),
                    &format!("rotate(-90 {} {})", n(lx), n(ly)),
                )
            } else {
                attrs.to_string()
            };
            let _ = writeln!(
                self.body,
                r#"<text x="{}" y="{}" font-size="{}"{}{}>{}<title>{}</title></text>"#,
                n(lx),
                n(ly),
                n(f.size),
                if attrs.is_empty() { "" } else { " " },
                attrs,
                esc(line),
                esc(s)
            );
        }
        (f.size, f.lines.len())
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attrs: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" {attrs}/>"#,
            n(x),
            n(y),
            n(w),
            n(h)
        );
    }

    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, attrs: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" {attrs}/>"#,
            n(x1),
            n(y1),
            n(x2),
            n(y2)
        );
    }

    fn title(&mut self, s: &str) {
        let _ = writeln!(self.body, "<title>{}</title>", esc(s));
    }

    fn open(&mut self, id: &str, class: &str) {
        let _ = writeln!(self.body, r#"<g id="{}" class="{}">"#, esc(id), esc(class));
    }

    fn close(&mut self) {
        self.body.push_str("</g>\n");
    }

    fn badge(&mut self, cx: f64, cy: f64) {
        let _ = writeln!(
            self.body,
            r##"<circle class="problem-marker" cx="{}" cy="{}" r="8" fill="{PROBLEM}" stroke="#FFFFFF" stroke-width="1.5"/>"##,
            n(cx),
            n(cy)
        );
        self.text(
            cx,
            cy + 4.0,
            12.0,
            r##"text-anchor="middle" font-weight="bold" fill="#FFFFFF""##,
            "!",
        );
    }
}

fn bay_class(b: &BayView) -> String {
    let status = b.status.name().replace(' ', "-");
    let mut c = format!(
        "bay status-{status} iface-{}",
        b.interface.name().to_lowercase()
    );
    // A host's verdict also as a bare class (`missing`, `downtrained`, `not-visible`).
    if b.matched_by.is_some() && b.status != BayStatus::Ok {
        let _ = write!(c, " {status}");
    }
    match b.socket {
        Some(s) => {
            let _ = write!(c, " socket-{}", s + 1);
        }
        None => c.push_str(" socket-none"),
    }
    if b.has_problem() {
        c.push_str(" problem");
    }
    c
}

/// Draws one bay in the rectangle (x, y, w, h).
fn bay(svg: &mut Svg, b: &BayView, x: f64, y: f64, w: f64, h: f64) {
    let (stroke, fill) = socket_colours(b.socket);
    svg.open(&format!("bay-{}", b.number), &bay_class(b));
    svg.title(&b.tooltip);
    let empty = b.status == BayStatus::Empty;
    let fill = if empty { "#FFFFFF" } else { fill };
    let dash = if empty {
        r#" stroke-dasharray="5 3""#
    } else {
        ""
    };
    svg.rect(
        x,
        y,
        w,
        h,
        &format!(r#"rx="3" fill="{fill}" stroke="{stroke}" stroke-width="2"{dash}"#),
    );
    let mid = x + w / 2.0;
    let ink = if empty { "#777777" } else { "#1A1A1A" };
    svg.text(
        mid,
        y + 15.0,
        12.0,
        &format!(r#"text-anchor="middle" font-weight="bold" fill="{ink}""#),
        &b.number.to_string(),
    );
    svg.text(
        mid,
        y + 28.0,
        9.0,
        &format!(r#"text-anchor="middle" fill="{ink}""#),
        b.interface.name(),
    );
    let link = b.link.as_ref().map(|l| l.text.clone()).unwrap_or_default();
    let part = b.part.clone().unwrap_or_else(|| "empty".into());
    if w < 80.0 {
        // Narrow bays stand upright: the part name runs bottom to top (on two lines where the
        // bay is wide enough), the link sits below.
        let link_h = if link.is_empty() { 0.0 } else { 14.0 };
        let top = if b.has_problem() { 54.0 } else { 34.0 };
        let cy = y + top + (h - top - 6.0 - link_h) / 2.0;
        let len = (h - top - 10.0 - link_h).max(10.0);
        let lines = if w >= 36.0 { 2 } else { 1 };
        let lx = if lines == 2 { mid - 1.5 } else { mid + 3.0 };
        svg.block(
            lx,
            cy,
            9.0,
            &format!(
                r#"text-anchor="middle" fill="{ink}" transform="rotate(-90 {} {})""#,
                n(lx),
                n(cy)
            ),
            &part,
            len,
            lines,
            10.0,
        );
        if !link.is_empty() {
            let short = link.replace("Gen", "G").replace(" Gb/s", "G");
            svg.label(
                mid,
                y + h - 6.0,
                8.0,
                &format!(r#"text-anchor="middle" fill="{ink}""#),
                &short,
                w - 4.0,
            );
        }
    } else {
        // The part name on up to three lines (as many as the bay's height leaves), the link
        // below it.
        let link_h = if link.is_empty() { 0.0 } else { 13.0 };
        let room = ((h - 46.0 - link_h) / 11.0).floor().max(0.0) as usize + 1;
        let (size, lines) = svg.block(
            mid,
            y + 42.0,
            10.0,
            &format!(r#"text-anchor="middle" fill="{ink}""#),
            &part,
            w - 8.0,
            room.min(5),
            11.0,
        );
        let below = y + 42.0 + (size + 1.0) * (lines as f64 - 1.0) + 13.0;
        if !link.is_empty() && below <= y + h - 3.0 {
            svg.label(
                mid,
                below,
                9.0,
                &format!(r#"text-anchor="middle" fill="{ink}""#),
                &link,
                w - 8.0,
            );
        }
    }
    if b.has_problem() {
        // Narrow bays carry the badge under their number, wide ones in the corner.
        if w < 80.0 {
            svg.badge(mid, y + 42.0);
        } else {
            svg.badge(x + w - 9.0, y + 9.0);
        }
    }
    svg.close();
}

/// Units of height (`2U` -> 2).
fn units(form: &str) -> f64 {
    form.trim_end_matches(['U', 'u'])
        .parse::<f64>()
        .unwrap_or(2.0)
        .clamp(1.0, 4.0)
}

/// Draws a panel of bays inside (x, y, w); returns its height.
fn panel(svg: &mut Svg, layout: &BayLayout, p: &Panel, x: f64, y: f64, w: f64, h: f64) {
    let rows = p.rows.len().max(1) as f64;
    let cols = p.columns().max(1) as f64;
    let gap = 4.0;
    let bw = (w - gap * (cols - 1.0)) / cols;
    let bh = (h - gap * (rows - 1.0)) / rows;
    for (r, row) in p.rows.iter().enumerate() {
        for (c, &num) in row.iter().enumerate() {
            if let Some(b) = layout.bay(num) {
                bay(
                    svg,
                    b,
                    x + c as f64 * (bw + gap),
                    y + r as f64 * (bh + gap),
                    bw,
                    bh,
                );
            }
        }
    }
}

fn section(svg: &mut Svg, y: f64, s: &str) {
    svg.label(
        MARGIN,
        y,
        14.0,
        r##"font-weight="bold" fill="#333333""##,
        s,
        WIDTH - 2.0 * MARGIN,
    );
}

fn chassis(svg: &mut Svg, y: f64, h: f64, id: &str) {
    // The chassis face with its rack ears.
    svg.rect(
        MARGIN,
        y,
        WIDTH - 2.0 * MARGIN,
        h,
        &format!(r##"id="{id}" rx="6" fill="#F7F7F7" stroke="#555555" stroke-width="1.5""##),
    );
    for ex in [MARGIN, WIDTH - MARGIN - 24.0] {
        svg.rect(
            ex,
            y,
            24.0,
            h,
            r##"fill="#DDDDDD" stroke="#555555" stroke-width="1""##,
        );
    }
}

/// The legend: sockets, then bay states.
fn legend(svg: &mut Svg, layout: &BayLayout, y: f64) -> f64 {
    let mut x = MARGIN;
    svg.open("legend", "legend");
    let mut sockets: Vec<(Option<u8>, String)> = layout
        .sockets
        .iter()
        .map(|s| {
            let numa: Vec<String> = s.numa_nodes.iter().map(u32::to_string).collect();
            (
                Some(s.index),
                format!("{} (NUMA {})", s.label, numa.join(",")),
            )
        })
        .collect();
    if layout.bays.iter().any(|b| b.socket.is_none()) {
        sockets.push((None, "not connected".into()));
    }
    for (s, label) in sockets {
        let (stroke, fill) = socket_colours(s);
        svg.rect(
            x,
            y - 11.0,
            22.0,
            14.0,
            &format!(r#"rx="2" fill="{fill}" stroke="{stroke}" stroke-width="2""#),
        );
        svg.text(x + 28.0, y, 11.0, r##"fill="#1A1A1A""##, &label);
        x += 40.0 + textfit::width(&label, 11.0, false);
    }
    svg.rect(
        x,
        y - 11.0,
        22.0,
        14.0,
        r##"rx="2" fill="#FFFFFF" stroke="#777777" stroke-width="2" stroke-dasharray="5 3""##,
    );
    svg.text(x + 28.0, y, 11.0, r##"fill="#1A1A1A""##, "empty");
    x += 80.0;
    svg.badge(x + 8.0, y - 4.0);
    svg.text(
        x + 22.0,
        y,
        11.0,
        r##"fill="#1A1A1A""##,
        "problem (hover a bay: path, link, findings)",
    );
    svg.close();
    y + 10.0
}

/// Spreads boxes of width `w` around their wanted centres, left to right, at least `gap`
/// apart and inside [lo, hi].
fn spread(wanted: &[f64], w: f64, gap: f64, lo: f64, hi: f64) -> Vec<f64> {
    let mut xs: Vec<f64> = Vec::with_capacity(wanted.len());
    for &c in wanted {
        let min = xs.last().map(|p| p + w + gap).unwrap_or(lo + w / 2.0);
        xs.push(c.max(min));
    }
    // Pull back from the right edge if needed.
    let mut limit = hi - w / 2.0;
    for x in xs.iter_mut().rev() {
        if *x > limit {
            *x = limit;
        }
        limit = *x - w - gap;
    }
    xs
}

fn group_kind_text(g: &LaneGroup) -> &'static str {
    match g.kind {
        GroupKind::ExtenderCard => "extender card (bifurcated slot)",
        GroupKind::SwitchCard => "extender card with PCIe switch",
        GroupKind::Switch => "PCIe switch",
        GroupKind::Controller => "storage controller",
        GroupKind::Direct => "direct cables",
    }
}

/// Where the rows of the lane diagram lie, and how wide a bay chip is.
struct LaneRows {
    left: f64,
    right: f64,
    avail: f64,
    chip: f64,
    chip_y: f64,
    chip_h: f64,
    group_y: f64,
    group_h: f64,
    rc_y: f64,
    rc_h: f64,
    sock_y: f64,
    sock_h: f64,
}

/// The gap between two lane groups.
const GROUP_GAP: f64 = 14.0;

impl LaneRows {
    /// The rows below `y0`, the chip width that lets every group fit, and each group's span.
    fn fit(groups: &[LaneGroup], y0: f64) -> (LaneRows, Vec<f64>) {
        let left = MARGIN;
        let right = WIDTH - MARGIN;
        let avail = right - left;
        let ggap = GROUP_GAP;
        // Groups as wide as the row allows (their card names are long), 150 to 220 px.
        let n_groups = groups.len() as f64;
        let min_group = ((avail - ggap * (n_groups - 1.0)) / n_groups).clamp(150.0, 220.0);
        // Chip width so that every group fits.
        let mut chip = 40.0;
        loop {
            let need: f64 = groups
                .iter()
                .map(|g| (g.bays.len() as f64 * (chip + 4.0)).max(min_group))
                .sum::<f64>()
                + ggap * (groups.len() as f64 - 1.0);
            if need <= avail || chip <= 14.0 {
                break;
            }
            chip -= 2.0;
        }
        let spans: Vec<f64> = groups
            .iter()
            .map(|g| (g.bays.len() as f64 * (chip + 4.0)).max(min_group))
            .collect();
        let chip_y = y0 + 16.0;
        let chip_h = 22.0;
        let group_y = chip_y + chip_h + 34.0;
        let group_h = 46.0;
        let rc_y = group_y + group_h + 44.0;
        let rc_h = 34.0;
        let sock_y = rc_y + rc_h + 36.0;
        let sock_h = 30.0;
        let rows = LaneRows {
            left,
            right,
            avail,
            chip,
            chip_y,
            chip_h,
            group_y,
            group_h,
            rc_y,
            rc_h,
            sock_y,
            sock_h,
        };
        (rows, spans)
    }
}

/// The lane diagram; returns the y below it.
fn lanes(svg: &mut Svg, layout: &BayLayout, y0: f64) -> f64 {
    let groups = &layout.groups;
    if groups.is_empty() {
        return y0;
    }
    section(
        svg,
        y0,
        "Lanes: bay → card / switch / controller → root complex → socket",
    );
    let (rows, spans) = LaneRows::fit(groups, y0);
    let used: f64 = spans.iter().sum::<f64>() + GROUP_GAP * (groups.len() as f64 - 1.0);
    let mut x = rows.left + ((rows.avail - used) / 2.0).max(0.0);

    let mut group_centres = Vec::new();
    svg.open("lanes", "lanes");
    for (g, span) in groups.iter().zip(&spans) {
        let cx = x + span / 2.0;
        group_centres.push(cx);
        lane_group(svg, layout, g, &rows, cx, *span);
        x += span + GROUP_GAP;
    }
    let (rcs, rc_x) = root_complexes(svg, groups, &rows, &group_centres);
    lane_sockets(svg, layout, &rows, &rcs, &rc_x);
    svg.close();
    rows.sock_y + rows.sock_h + 20.0
}

/// One lane group: its bay chips, their lines down to it, and its box.
fn lane_group(
    svg: &mut Svg,
    layout: &BayLayout,
    g: &LaneGroup,
    rows: &LaneRows,
    cx: f64,
    span: f64,
) {
    svg.open(&format!("group-{}", g.key.replace(':', "-")), "lane-group");
    let mut tip = vec![format!("group {}: {}", g.letter, g.label)];
    tip.push(format!("kind: {}", group_kind_text(g)));
    if let Some(u) = &g.uplink {
        tip.push(format!("uplink: {}", u.long()));
    }
    if let Some(rc) = &g.root_complex {
        tip.push(format!("root complex: {rc}"));
    }
    tip.push(format!("bays: {}", compress_ranges(&g.bays)));
    for p in &g.problems {
        tip.push(format!("problem: {p}"));
    }
    svg.title(&tip.join("\n"));
    lane_chips(svg, layout, g, rows, cx);
    lane_group_box(svg, layout, g, rows, cx, span);
    svg.close();
}

/// A group's bays as chips above it, each with its line down to the group.
fn lane_chips(svg: &mut Svg, layout: &BayLayout, g: &LaneGroup, rows: &LaneRows, cx: f64) {
    let (stroke, fill) = socket_colours(g.socket);
    let chip = rows.chip;
    let (chip_y, chip_h) = (rows.chip_y, rows.chip_h);
    let chips_w = g.bays.len() as f64 * (chip + 4.0) - 4.0;
    let mut chip_x = cx - chips_w / 2.0;
    for &num in &g.bays {
        let Some(b) = layout.bay(num) else { continue };
        let ccx = chip_x + chip / 2.0;
        let width = b
            .link
            .as_ref()
            .and_then(|l| l.rate)
            .map(|r| f64::from(r.width))
            .unwrap_or(1.0);
        let colour = if b.has_problem() { PROBLEM } else { stroke };
        svg.line(
            ccx,
            chip_y + chip_h,
            ccx,
            rows.group_y,
            &format!(
                r#"stroke="{colour}" stroke-width="{}"{}"#,
                n(1.0 + width / 2.0),
                if b.status == BayStatus::Empty {
                    r#" stroke-dasharray="3 3""#
                } else {
                    ""
                }
            ),
        );
        let chip_fill = if b.status == BayStatus::Empty {
            "#FFFFFF"
        } else {
            fill
        };
        svg.rect(
            chip_x,
            chip_y,
            chip,
            chip_h,
            &format!(
                r#"class="lane-bay" rx="2" fill="{chip_fill}" stroke="{}" stroke-width="{}""#,
                if b.has_problem() { PROBLEM } else { stroke },
                if b.has_problem() { "2.5" } else { "1.5" }
            ),
        );
        svg.text(
            ccx,
            chip_y + 15.0,
            10.0,
            r##"text-anchor="middle" fill="#1A1A1A""##,
            &num.to_string(),
        );
        chip_x += chip + 4.0;
    }
}

/// The group box: its letter and slot, its card, its bays and uplink.
fn lane_group_box(
    svg: &mut Svg,
    layout: &BayLayout,
    g: &LaneGroup,
    rows: &LaneRows,
    cx: f64,
    span: f64,
) {
    let (stroke, fill) = socket_colours(g.socket);
    let (group_y, group_h) = (rows.group_y, rows.group_h);
    let gw = span - 6.0;
    let gx = cx - gw / 2.0;
    let problem = !g.problems.is_empty();
    svg.rect(
        gx,
        group_y,
        gw,
        group_h,
        &format!(
            r#"rx="4" fill="{fill}" stroke="{}" stroke-width="{}""#,
            if problem { PROBLEM } else { stroke },
            if problem { "3" } else { "2" }
        ),
    );
    let head = match (&g.slot, g.kind) {
        (Some(label), _) => layout
            .slots
            .iter()
            .find(|s| &s.label == label)
            .map(|s| s.short.clone())
            .unwrap_or_else(|| label.clone()),
        (None, GroupKind::Direct) => "Direct cables".into(),
        (None, _) => g.label.clone(),
    };
    svg.label(
        gx + 6.0,
        group_y + 15.0,
        11.0,
        r##"font-weight="bold" fill="#1A1A1A""##,
        &format!("{}  {head}", g.letter),
        gw - 12.0,
    );
    let second = match (&g.card, g.kind) {
        (Some(c), _) => c.clone(),
        (None, GroupKind::Direct) => format!("x{} per bay, no switch", g.bay_width),
        (None, GroupKind::Switch) => "PCIe switch".into(),
        (None, _) => "no card: not connected".into(),
    };
    svg.label(
        gx + 6.0,
        group_y + 29.0,
        10.0,
        &format!(
            r#"fill="{}""#,
            if g.card.is_none() && g.slot.is_some() {
                PROBLEM
            } else {
                "#333333"
            }
        ),
        &second,
        gw - 12.0,
    );
    let mut third = format!("bays {}", compress_ranges(&g.bays));
    if let Some(u) = &g.uplink {
        third = format!("{} up · {third}", u.text);
    }
    if let Some(r) = g.oversubscription {
        third = format!(
            "{} x{} down, {} up: {}:1 oversubscribed",
            g.bays.len(),
            g.bay_width,
            g.uplink.as_ref().map(|u| u.text.as_str()).unwrap_or("?"),
            trim(r)
        );
    }
    svg.label(
        gx + 6.0,
        group_y + 41.0,
        10.0,
        &format!(
            r#"fill="{}""#,
            if g.oversubscription.is_some() {
                PROBLEM
            } else {
                "#333333"
            }
        ),
        &third,
        gw - 12.0,
    );
}

/// A root complex of the diagram: its label, its socket, the groups under it.
type LaneRc = (String, Option<u8>, Vec<usize>);

/// Root complexes, in group order, centred over their groups; returns them and their centres.
fn root_complexes(
    svg: &mut Svg,
    groups: &[LaneGroup],
    rows: &LaneRows,
    group_centres: &[f64],
) -> (Vec<LaneRc>, Vec<f64>) {
    let mut rcs: Vec<LaneRc> = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let key = g.root_complex.clone().unwrap_or_else(|| "?".into());
        match rcs.iter_mut().find(|r| r.0 == key) {
            Some(r) => r.2.push(i),
            None => rcs.push((key, g.socket, vec![i])),
        }
    }
    let (group_y, group_h, rc_y, rc_h) = (rows.group_y, rows.group_h, rows.rc_y, rows.rc_h);
    let rc_w = 180.0_f64.min((rows.avail - 10.0 * rcs.len() as f64) / rcs.len() as f64);
    let wanted: Vec<f64> = rcs
        .iter()
        .map(|r| r.2.iter().map(|&i| group_centres[i]).sum::<f64>() / r.2.len() as f64)
        .collect();
    let rc_x = spread(&wanted, rc_w, 10.0, rows.left, rows.right);
    for ((label, socket, members), &cx) in rcs.iter().zip(&rc_x) {
        let (stroke, fill) = socket_colours(*socket);
        for &i in members {
            let g = &groups[i];
            let w = g.uplink.as_ref().and_then(|u| u.rate).map(|r| r.width);
            svg.line(
                group_centres[i],
                group_y + group_h,
                cx,
                rc_y,
                &format!(
                    r#"stroke="{stroke}" stroke-width="{}""#,
                    n(1.5 + f64::from(w.unwrap_or(4)) / 4.0)
                ),
            );
            let lbl = match (&g.uplink, g.kind) {
                (Some(u), _) => u.text.clone(),
                (None, GroupKind::Direct) => format!("{} x x{}", g.bays.len(), g.bay_width),
                _ => String::new(),
            };
            if !lbl.is_empty() {
                let mx = (group_centres[i] + cx) / 2.0;
                let my = (group_y + group_h + rc_y) / 2.0 + 4.0;
                svg.text(
                    mx + 4.0,
                    my,
                    10.0,
                    r##"fill="#333333" stroke="#FFFFFF" stroke-width="3" paint-order="stroke""##,
                    &lbl,
                );
            }
        }
        svg.rect(
            cx - rc_w / 2.0,
            rc_y,
            rc_w,
            rc_h,
            &format!(
                r#"class="root-complex" rx="4" fill="{fill}" stroke="{stroke}" stroke-width="2""#
            ),
        );
        svg.label(
            cx,
            rc_y + 21.0,
            11.0,
            r##"text-anchor="middle" fill="#1A1A1A""##,
            label,
            rc_w - 10.0,
        );
    }
    (rcs, rc_x)
}

/// Sockets, centred under their root complexes.
fn lane_sockets(svg: &mut Svg, layout: &BayLayout, rows: &LaneRows, rcs: &[LaneRc], rc_x: &[f64]) {
    let (rc_y, rc_h, sock_y, sock_h) = (rows.rc_y, rows.rc_h, rows.sock_y, rows.sock_h);
    let mut socks: Vec<(Option<u8>, Vec<usize>)> = Vec::new();
    for (i, r) in rcs.iter().enumerate() {
        match socks.iter_mut().find(|s| s.0 == r.1) {
            Some(s) => s.1.push(i),
            None => socks.push((r.1, vec![i])),
        }
    }
    let sw = 220.0;
    let wanted: Vec<f64> = socks
        .iter()
        .map(|s| s.1.iter().map(|&i| rc_x[i]).sum::<f64>() / s.1.len() as f64)
        .collect();
    let sx = spread(&wanted, sw, 20.0, rows.left, rows.right);
    for ((socket, members), &cx) in socks.iter().zip(&sx) {
        let (stroke, _) = socket_colours(*socket);
        for &i in members {
            svg.line(
                rc_x[i],
                rc_y + rc_h,
                cx,
                sock_y,
                &format!(r#"stroke="{stroke}" stroke-width="2""#),
            );
        }
        let label = match socket {
            Some(s) => {
                let numa: Vec<String> = layout
                    .sockets
                    .iter()
                    .find(|x| x.index == *s)
                    .map(|x| x.numa_nodes.iter().map(u32::to_string).collect())
                    .unwrap_or_default();
                format!("{} · NUMA {}", layout.socket_label(*s), numa.join(","))
            }
            None => "not connected".into(),
        };
        svg.rect(
            cx - sw / 2.0,
            sock_y,
            sw,
            sock_h,
            &format!(r#"class="socket" rx="4" fill="{stroke}" stroke="{stroke}" stroke-width="2""#),
        );
        svg.label(
            cx,
            sock_y + 20.0,
            12.0,
            r##"text-anchor="middle" font-weight="bold" fill="#FFFFFF""##,
            &label,
            sw - 10.0,
        );
    }
}

fn slot(svg: &mut Svg, s: &SlotView, x: f64, y: f64, w: f64, h: f64) {
    let (stroke, fill) = socket_colours(s.socket);
    let class = format!(
        "slot{}{}",
        s.socket
            .map(|i| format!(" socket-{}", i + 1))
            .unwrap_or_default(),
        if s.problems.is_empty() {
            ""
        } else {
            " problem"
        }
    );
    svg.open(&format!("slot-{}", s.id), &class);
    svg.title(&s.tooltip);
    let filled = s.card.is_some();
    svg.rect(
        x,
        y,
        w,
        h,
        &format!(
            r#"rx="3" fill="{}" stroke="{stroke}" stroke-width="2"{}"#,
            if filled { fill } else { "#FFFFFF" },
            if filled {
                ""
            } else {
                r#" stroke-dasharray="5 3""#
            }
        ),
    );
    let mid = x + w / 2.0;
    svg.label(
        mid,
        y + 16.0,
        11.0,
        r##"text-anchor="middle" font-weight="bold" fill="#1A1A1A""##,
        &s.short,
        w - 6.0,
    );
    svg.label(
        mid,
        y + 30.0,
        10.0,
        r##"text-anchor="middle" fill="#333333""##,
        &s.width_text(),
        w - 6.0,
    );
    svg.label(
        mid,
        y + 43.0,
        10.0,
        &format!(r#"text-anchor="middle" font-weight="bold" fill="{stroke}""#),
        s.socket_label.as_deref().unwrap_or("?"),
        w - 6.0,
    );
    let holds = match (&s.card, &s.reserved_by) {
        (Some(c), _) => c.clone(),
        (None, Some(_)) => "reserved".into(),
        _ => "empty".into(),
    };
    // The occupant on up to three lines.
    svg.block(
        mid,
        y + 58.0,
        9.0,
        &format!(
            r#"text-anchor="middle" fill="{}""#,
            if filled { "#1A1A1A" } else { "#777777" }
        ),
        &holds,
        w - 6.0,
        3,
        11.0,
    );
    if let Some(l) = &s.link {
        svg.label(
            mid,
            y + h - 6.0,
            9.0,
            r##"text-anchor="middle" fill="#333333""##,
            &l.text,
            w - 6.0,
        );
    }
    if !s.problems.is_empty() {
        svg.badge(x + w - 7.0, y + 7.0);
    }
    svg.close();
}

/// The rear panel: slots, then rear bays; returns the y below it.
fn rear(svg: &mut Svg, layout: &BayLayout, y0: f64) -> f64 {
    let rear_panels: Vec<&Panel> = layout
        .panels
        .iter()
        .filter(|p| p.location == BayLocation::Rear)
        .collect();
    if layout.slots.is_empty() && rear_panels.is_empty() {
        return y0;
    }
    section(
        svg,
        y0,
        "Rear: slots and what occupies them (colour = socket)",
    );
    let top = y0 + 12.0;
    let h = 140.0;
    chassis(svg, top, h, "rear");
    let inner_x = MARGIN + 32.0;
    let inner_w = WIDTH - 2.0 * MARGIN - 64.0;
    let bays_w = if rear_panels.is_empty() { 0.0 } else { 300.0 };
    let slots_w = inner_w - if bays_w > 0.0 { bays_w + 16.0 } else { 0.0 };
    let ns = layout.slots.len().max(1) as f64;
    let gap = 6.0;
    let sw = ((slots_w - gap * (ns - 1.0)) / ns).min(130.0);
    for (i, s) in layout.slots.iter().enumerate() {
        slot(
            svg,
            s,
            inner_x + i as f64 * (sw + gap),
            top + 8.0,
            sw,
            h - 16.0,
        );
    }
    if let Some(p) = rear_panels.first() {
        let bx = inner_x + inner_w - bays_w;
        svg.text(
            bx,
            top + 20.0,
            11.0,
            r##"fill="#333333""##,
            &format!("Rear bays ({} x {}\")", p.count(), p.size),
        );
        panel(svg, layout, p, bx, top + 28.0, bays_w, h - 36.0);
    }
    top + h + 14.0
}

/// The complete SVG document.
pub fn render(layout: &BayLayout) -> String {
    let mut svg = Svg {
        body: String::new(),
    };
    let mut title = layout.platform_name.clone();
    if let Some(b) = &layout.build {
        let _ = write!(title, " — {b}");
    }
    svg.label(
        MARGIN,
        28.0,
        18.0,
        r##"font-weight="bold" fill="#1A1A1A""##,
        &title,
        WIDTH - 2.0 * MARGIN,
    );
    let mut sub: Vec<String> = layout
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if let Some(f) = &layout.file {
        sub.insert(0, f.clone());
    }
    let problems = layout.problem_count();
    match &layout.host {
        Some(h) => sub.push(format!(
            "{} bays, {}, {} with a problem",
            layout.bays.len(),
            h.summary(),
            problems
        )),
        None => sub.push(format!(
            "{} bays, {} with a drive, {} with a problem",
            layout.bays.len(),
            layout.bays.iter().filter(|b| b.part.is_some()).count(),
            problems
        )),
    }
    svg.label(
        MARGIN,
        48.0,
        12.0,
        r##"fill="#555555""##,
        &sub.join(" · "),
        WIDTH - 2.0 * MARGIN,
    );

    let mut y = 78.0;
    let front: Vec<&Panel> = layout
        .panels
        .iter()
        .filter(|p| p.location == BayLocation::Front)
        .collect();
    for p in &front {
        section(
            &mut svg,
            y,
            &format!(
                "Front: {} x {}\" bays ({}){}",
                p.count(),
                p.size,
                layout.form,
                if p.rows.len() > 1 {
                    format!(", {} rows of {}", p.rows.len(), p.columns())
                } else {
                    String::new()
                }
            ),
        );
        let h = 90.0 * units(&layout.form);
        let top = y + 12.0;
        chassis(&mut svg, top, h, "front");
        panel(
            &mut svg,
            layout,
            p,
            MARGIN + 32.0,
            top + 8.0,
            WIDTH - 2.0 * MARGIN - 64.0,
            h - 16.0,
        );
        y = top + h + 26.0;
    }
    if front.is_empty() {
        section(&mut svg, y, "Front: no drive bays");
        y += 20.0;
    }
    y = legend(&mut svg, layout, y) + 28.0;
    y = lanes(&mut svg, layout, y) + 10.0;
    y = rear(&mut svg, layout, y) + 10.0;

    let mut notes: Vec<String> = Vec::new();
    for (bays, p) in layout.bay_problems() {
        let which = if bays.len() == 1 { "Bay" } else { "Bays" };
        notes.push(format!("{which} {}: {p}", compress_ranges(&bays)));
    }
    notes.extend(layout.notes.iter().cloned());
    for (slots, p) in layout.slot_problems() {
        notes.push(format!("{}: {p}", slots.join(", ")));
    }
    if !notes.is_empty() {
        section(&mut svg, y, "Findings");
        y += 6.0;
        for note in &notes {
            let first = WIDTH - 2.0 * MARGIN;
            for (i, line) in wrap(note, first - 16.0, 11.0).iter().enumerate() {
                y += if i == 0 { 16.0 } else { 13.0 };
                svg.text(
                    MARGIN + if i == 0 { 0.0 } else { 16.0 },
                    y,
                    11.0,
                    &format!(r#"fill="{PROBLEM}""#),
                    line,
                );
            }
        }
        y += 12.0;
    }
    let height = y.ceil() + 8.0;
    format!(
        concat!(
            r#"<?xml version="1.0" encoding="UTF-8"?>"#,
            "\n",
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{font}">"#,
            "\n<title>{title}</title>\n",
            r##"<rect width="100%" height="100%" fill="#FFFFFF"/>"##,
            "\n{body}</svg>\n"
        ),
        w = n(WIDTH),
        h = n(height),
        font = FONT,
        title = esc(&format!("{title}: bay layout")),
        body = svg.body
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(esc(r#"a<b & "c"'"#), "a&lt;b &amp; &quot;c&quot;&apos;");
    }

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(n(12.0), "12");
        assert_eq!(n(12.04), "12");
        assert_eq!(n(12.25), "12.3");
    }

    #[test]
    fn spread_keeps_boxes_apart_and_inside() {
        let xs = spread(&[100.0, 110.0, 1000.0], 100.0, 10.0, 0.0, 1050.0);
        assert!(xs[1] - xs[0] >= 110.0);
        assert!(xs[2] + 50.0 <= 1050.0);
        assert!(xs[0] - 50.0 >= 0.0);
    }

    #[test]
    fn labels_shrink_then_shorten_with_the_full_text_as_tooltip() {
        let mut svg = Svg {
            body: String::new(),
        };
        svg.label(5.0, 5.0, 10.0, "", "short", 100.0);
        assert_eq!(
            svg.body,
            "<text x=\"5\" y=\"5\" font-size=\"10\">short</text>\n"
        );
        let mut svg = Svg {
            body: String::new(),
        };
        svg.label(5.0, 5.0, 10.0, "", "a very long part name indeed", 60.0);
        // 70 % of the size, shortened to 60 px at DejaVu Sans' widths, no textLength.
        assert_eq!(
            svg.body,
            "<text x=\"5\" y=\"5\" font-size=\"7\">a very long pa\u{2026}\
             <title>a very long part name indeed</title></text>\n"
        );
        let mut svg = Svg {
            body: String::new(),
        };
        let (size, lines) = svg.block(
            5.0,
            5.0,
            10.0,
            "",
            "Samsung Electronics Co Ltd NVMe SSD Controller PM173X",
            125.0,
            3,
            11.0,
        );
        assert_eq!((size, lines), (10.0, 3));
        assert!(!svg.body.contains("textLength"));
        assert!(!svg.body.contains('\u{2026}'));
    }
}
