//! The `--curve` plot: latency (mean and p99, log axis in µs/ms/s) against the achieved rate
//! (what the device delivered, not what was offered), one colour per device. The line joins
//! the steps in the order they were offered (10 % to 120 % of the maximum run), so where
//! offering more achieves no more the line turns back on itself, as a saturated device does;
//! the tooltips give the offered rate too. The title is measured and wrapped to the width
//! ([`crate::render::textfit`]), the legend sits beside the plot, outside the data, and
//! explains the markers (filled: a rate-limited step; hollow: the maximum run). Written by
//! hand as plain SVG text, deterministic (fixed number formatting, no timestamps) so it can
//! be snapshot-tested and diffed.

use super::results::Curve;
use crate::render::textfit;
use std::fmt::Write;

const W: f64 = 900.0;
const H: f64 = 460.0;
const LEFT: f64 = 80.0;
/// The legend's column, right of the plot.
const LEGEND_W: f64 = 210.0;
const RIGHT: f64 = LEGEND_W + 28.0;
const BOTTOM: f64 = 56.0;
const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];

/// A "nice" axis: (step, max) with max a multiple of step and about five steps.
pub fn nice_axis(max: f64) -> (f64, f64) {
    if max.is_nan() || max <= 0.0 {
        return (1.0, 5.0);
    }
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let step = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    } * mag;
    (step, (max / step).ceil() * step)
}

fn tick_label(v: f64) -> String {
    if v >= 1e6 && (v / 1e6).fract() == 0.0 {
        format!("{}M", v / 1e6)
    } else if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e3 && (v / 1e3).fract() == 0.0 {
        format!("{}k", v / 1e3)
    } else if v >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v}")
    } else {
        format!("{v:.1}")
    }
}

/// Log axis over `[lo, hi]` µs: whole decades around the data, ticks at 1, 2 and 5 of each.
pub fn log_axis(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let lo = if lo.is_finite() && lo > 0.0 { lo } else { 1.0 };
    let hi = if hi.is_finite() && hi > lo {
        hi
    } else {
        lo * 10.0
    };
    let d0 = lo.log10().floor() as i32;
    let d1 = (hi.log10().ceil() as i32).max(d0 + 1);
    let mut ticks = Vec::new();
    for d in d0..d1 {
        for m in [1.0, 2.0, 5.0] {
            ticks.push(m * 10f64.powi(d));
        }
    }
    ticks.push(10f64.powi(d1));
    (10f64.powi(d0), 10f64.powi(d1), ticks)
}

/// A latency in µs as a person reads it: `50 µs`, `200 µs`, `1 ms`, `20 ms`, `1 s`.
pub fn latency_label(us: f64) -> String {
    let (v, unit) = if us >= 1e6 {
        (us / 1e6, "s")
    } else if us >= 1e3 {
        (us / 1e3, "ms")
    } else {
        (us, "µs")
    };
    if v.fract().abs() < 1e-9 {
        format!("{v:.0} {unit}")
    } else {
        format!("{} {unit}", format!("{v:.3}").trim_end_matches('0'))
    }
}

/// The plot's title: the devices, the workload (profile, block size, pattern) and its QD.
pub fn title(report: &super::results::ProbeReport) -> String {
    let w = &report.workload;
    let devices: Vec<&str> = report.curves.iter().map(|c| c.label.as_str()).collect();
    format!(
        "{}{}: {} ({} {} {} % read, QD {} x {} job{}), latency against achieved IOPS",
        if report.interrupted {
            "INTERRUPTED, partial curve: "
        } else {
            ""
        },
        devices.join(", "),
        w.name,
        w.bs,
        format!("{:?}", w.pattern).to_lowercase(),
        w.read_pct,
        w.qd,
        w.jobs,
        if w.jobs == 1 { "" } else { "s" }
    )
}

fn esc(s: &str) -> String {
    crate::escape::xml(s).into_owned()
}

/// Renders the sweep of one or more devices: each step (filled marker) at the rate it
/// achieved, joined in the order offered; the maximum run as a hollow marker.
pub fn render(title: &str, curves: &[Curve]) -> String {
    let pts = curves.iter().flat_map(|c| c.points.iter());
    let max_x = pts.clone().map(at_x).fold(0.0, f64::max);
    let lats = pts.flat_map(|p| [p.mean_us, p.p99_us]).filter(|v| *v > 0.0);
    let min_y = lats.clone().fold(f64::INFINITY, f64::min);
    let max_y = lats.fold(0.0, f64::max);
    let (xs, xmax) = nice_axis(max_x);
    let (ylo, yhi, yticks) = log_axis(min_y, max_y);
    // The title on up to two lines across the whole width; the plot below it.
    let head = textfit::fit(title, W - 40.0, 15.0, 11.0, 2, false);
    let line_h = head.size + 4.0;
    let top = 14.0 + line_h * head.lines.len() as f64 + 14.0;
    let pw = W - LEFT - RIGHT;
    let ph = H - top - BOTTOM;
    let x = |v: f64| LEFT + v / xmax * pw;
    let (l0, l1) = (ylo.log10(), yhi.log10());
    let y = |v: f64| top + ph - (v.max(ylo).log10() - l0) / (l1 - l0) * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="{FONT}" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    for (i, line) in head.lines.iter().enumerate() {
        let full = if head.shortened {
            format!("<title>{}</title>", esc(title))
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="{}">{}{full}</text>"#,
            W / 2.0,
            14.0 + line_h * (i as f64 + 1.0) - 4.0,
            head.size,
            esc(line)
        );
    }
    // Grid and ticks.
    let mut v = 0.0;
    while v <= xmax + xs / 2.0 {
        let px = x(v);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" y1="{top:.1}" x2="{px:.1}" y2="{:.1}" stroke="#e0e0e0"/>"##,
            top + ph
        );
        let _ = writeln!(
            s,
            r#"<text x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            top + ph + 18.0,
            tick_label(v)
        );
        v += xs;
    }
    for v in yticks {
        let py = y(v);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#e0e0e0"/>"##,
            LEFT + pw
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 8.0,
            py + 4.0,
            latency_label(v)
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{LEFT:.1}" y="{top:.1}" width="{pw:.1}" height="{ph:.1}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">IOPS achieved</text>"#,
        LEFT + pw / 2.0,
        H - 14.0
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">latency (log)</text>"#,
        top + ph / 2.0,
        top + ph / 2.0
    );
    // Series.
    for (i, c) in curves.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mut swept: Vec<_> = c.points.iter().filter(|p| p.pct.is_some()).collect();
        swept.sort_by_key(|p| p.pct);
        for (field, dash, name) in [(0, "", "mean"), (1, r#" stroke-dasharray="6 4""#, "p99")] {
            let val =
                |p: &super::results::CurvePoint| if field == 0 { p.mean_us } else { p.p99_us };
            let path: Vec<String> = swept
                .iter()
                .map(|p| format!("{:.1},{:.1}", x(at_x(p)), y(val(p))))
                .collect();
            if !path.is_empty() {
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
                    path.join(" ")
                );
            }
            for p in &c.points {
                let (px, py) = (x(at_x(p)), y(val(p)));
                let fill = if p.pct.is_some() { color } else { "white" };
                let offered = match (p.pct, p.offered_iops) {
                    (Some(pct), Some(o)) => format!("{pct} % offered {o:.0} IOPS, "),
                    _ => "maximum run, ".into(),
                };
                let _ = writeln!(
                    s,
                    r#"<circle cx="{px:.1}" cy="{py:.1}" r="3" fill="{fill}" stroke="{color}"><title>{} {name}: {offered}achieved {:.0} IOPS, {}</title></circle>"#,
                    esc(&c.label),
                    p.iops,
                    latency_label((val(p) * 10.0).round() / 10.0)
                );
            }
        }
    }
    legend(&mut s, curves, top);
    s.push_str("</svg>\n");
    s
}

/// The legend, in its own box right of the plot: each device's mean and p99 line, then the
/// two markers.
fn legend(s: &mut String, curves: &[Curve], top: f64) {
    let lx = W - LEGEND_W - 12.0;
    let text_x = lx + 40.0;
    let text_w = LEGEND_W - 48.0;
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut y = top + 20.0;
    let mut body = String::new();
    let entry = |body: &mut String, y: &mut f64, text: &str| {
        let f = textfit::fit(text, text_w, 12.0, 9.0, 2, false);
        for (k, line) in f.lines.iter().enumerate() {
            let full = if f.shortened {
                format!("<title>{}</title>", esc(text))
            } else {
                String::new()
            };
            let _ = writeln!(
                body,
                r#"<text x="{text_x:.1}" y="{:.1}" font-size="{}">{}{full}</text>"#,
                *y + 4.0 + k as f64 * (f.size + 2.0),
                f.size,
                esc(line)
            );
        }
        let y0 = *y;
        *y += 8.0 + (f.size + 2.0) * f.lines.len() as f64;
        y0
    };
    for (i, c) in curves.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        for (dash, name) in [("", "mean"), (r#" stroke-dasharray="6 4""#, "p99")] {
            let ly = entry(&mut body, &mut y, &format!("{} {name}", c.label));
            let _ = writeln!(
                body,
                r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"{dash}/>"#,
                lx + 8.0,
                lx + 32.0
            );
        }
    }
    let pcts: Vec<u32> = curves
        .iter()
        .flat_map(|c| c.points.iter().filter_map(|p| p.pct))
        .collect();
    if let (Some(lo), Some(hi)) = (pcts.iter().min(), pcts.iter().max()) {
        rows.push((
            "#555555".into(),
            format!("a step: offered {lo}-{hi} % of the maximum run's rate"),
        ));
    }
    rows.push(("white".into(), "the maximum run (no rate limit)".into()));
    for (fill, text) in &rows {
        let ly = entry(&mut body, &mut y, text);
        let _ = writeln!(
            body,
            r##"<circle cx="{:.1}" cy="{ly:.1}" r="3" fill="{fill}" stroke="#555555"/>"##,
            lx + 20.0
        );
    }
    let _ = writeln!(
        s,
        r##"<rect class="legend" x="{lx:.1}" y="{top:.1}" width="{LEGEND_W:.1}" height="{:.1}" fill="white" stroke="#999999"/>"##,
        y - top
    );
    s.push_str(&body);
}

/// Where a point sits on the x axis: the rate it achieved.
fn at_x(p: &super::results::CurvePoint) -> f64 {
    p.iops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_are_nice() {
        assert_eq!(nice_axis(93_000.0), (20_000.0, 100_000.0));
        assert_eq!(nice_axis(412.0), (100.0, 500.0));
        assert_eq!(nice_axis(0.0), (1.0, 5.0));
    }

    #[test]
    fn log_axis_spans_whole_decades() {
        let (lo, hi, ticks) = log_axis(80.0, 48_000.0);
        assert_eq!((lo, hi), (10.0, 100_000.0));
        let labels: Vec<String> = ticks.iter().map(|t| latency_label(*t)).collect();
        assert_eq!(
            labels,
            [
                "10 µs", "20 µs", "50 µs", "100 µs", "200 µs", "500 µs", "1 ms", "2 ms", "5 ms",
                "10 ms", "20 ms", "50 ms", "100 ms"
            ]
        );
        assert_eq!(latency_label(1_500_000.0), "1.5 s");
        assert_eq!(latency_label(82.5), "82.5 µs");
        assert_eq!(log_axis(0.0, 0.0).2.len(), 4);
    }
}
