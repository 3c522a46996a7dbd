//! Text widths as the SVG pictures' first font, DejaVu Sans, sets them, so a renderer can
//! measure, wrap, shrink and (last) shorten a label to its box before it writes it: SVG
//! viewers differ in `textLength` (librsvg ignores it), so nothing relies on it.
//!
//! The advance widths are DejaVu Sans' (Book and Bold, 2048 units per em, code points
//! U+0020-U+007E and a few typographic marks the pictures use); any other character counts
//! as one em, wider than almost every glyph, so a measured label never comes out too narrow.
//! DejaVu Sans is wider than the fallbacks named after it (Helvetica, Arial): a label that
//! fits in DejaVu fits in them. Control characters are measured as the `\u{1b}` text the
//! XML escape shows them as.

/// Advance widths of U+0020-U+007E, DejaVu Sans Book, in 1/2048 em.
const REGULAR: [u16; 95] = [
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, 1303,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087, 2048,
    1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235,
    1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024, 1024,
    1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253, 1300,
    1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
];

/// Advance widths of U+0020-U+007E, DejaVu Sans Bold, in 1/2048 em.
const BOLD: [u16; 95] = [
    713, 934, 1067, 1716, 1425, 2052, 1786, 627, 936, 936, 1071, 1716, 778, 850, 778, 748, 1425,
    1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 819, 819, 1716, 1716, 1716, 1188, 2048,
    1585, 1561, 1503, 1700, 1399, 1399, 1681, 1714, 762, 762, 1587, 1305, 2038, 1714, 1741, 1501,
    1741, 1577, 1475, 1397, 1663, 1585, 2259, 1579, 1483, 1485, 936, 748, 936, 1716, 1024, 1024,
    1382, 1466, 1214, 1466, 1389, 891, 1466, 1458, 702, 702, 1362, 702, 2134, 1458, 1407, 1466,
    1466, 1010, 1219, 979, 1458, 1335, 1892, 1321, 1335, 1192, 1458, 748, 1458, 1716,
];

/// Units per em of both tables.
const UNITS: f64 = 2048.0;

/// The advance of one character in 1/2048 em.
fn advance(c: char, bold: bool) -> f64 {
    let table = if bold { &BOLD } else { &REGULAR };
    let u = match c {
        ' '..='~' => table[c as usize - 0x20],
        // middle dot, en dash, micro sign, degree sign
        '\u{b7}' => {
            if bold {
                778
            } else {
                651
            }
        }
        '\u{2013}' | '\u{b0}' => 1024,
        '\u{b5}' => {
            if bold {
                1507
            } else {
                1303
            }
        }
        // arrow, multiplication sign, greater-or-equal
        '\u{2192}' | '\u{d7}' | '\u{2265}' => 1716,
        // em dash, ellipsis and everything unknown: one em
        _ => 2048,
    };
    f64::from(u)
}

/// The width in px of `s` at `size` px, as DejaVu Sans sets it (no kerning: kerning only
/// narrows).
pub fn width(s: &str, size: f64, bold: bool) -> f64 {
    let mut units = 0.0;
    for c in s.chars() {
        if c.is_control() {
            // Shown as `\u{..}` by the XML escape.
            let shown = format!("\\u{{{:x}}}", c as u32);
            units += shown.chars().map(|k| advance(k, bold)).sum::<f64>();
        } else {
            units += advance(c, bold);
        }
    }
    units / UNITS * size
}

/// A label fitted to a box: its font size, its lines, and whether it had to be shortened
/// (then the caller keeps the full wording in a tooltip).
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub size: f64,
    pub lines: Vec<String>,
    pub shortened: bool,
}

/// Words of `s` on lines no wider than `px` at `size`; a word wider than a line alone is
/// broken between characters.
fn wrap(s: &str, px: f64, size: f64, bold: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split_whitespace() {
        let joined = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if width(&joined, size, bold) <= px {
            cur = joined;
            continue;
        }
        if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        // The word alone; broken where even that is too wide.
        for c in word.chars() {
            let mut next = cur.clone();
            next.push(c);
            if !cur.is_empty() && width(&next, size, bold) > px {
                out.push(std::mem::take(&mut cur));
                cur.push(c);
            } else {
                cur = next;
            }
        }
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

/// `s` cut to fit `px` at `size` with a trailing ellipsis.
pub fn ellipsize(s: &str, px: f64, size: f64, bold: bool) -> String {
    if width(s, size, bold) <= px {
        return s.to_string();
    }
    let mut out = String::new();
    for c in s.chars() {
        let mut next = out.clone();
        next.push(c);
        if width(&format!("{}\u{2026}", next.trim_end()), size, bold) > px {
            break;
        }
        out = next;
    }
    format!("{}\u{2026}", out.trim_end())
}

/// Fits `s` into a box `px` wide, on at most `max_lines` lines: at `size` if it fits, else
/// at the largest size down to `min_size` (half-pixel steps) where it fits, else at
/// `min_size` with its last line shortened with an ellipsis.
pub fn fit(s: &str, px: f64, size: f64, min_size: f64, max_lines: usize, bold: bool) -> Fitted {
    let max_lines = max_lines.max(1);
    let mut sz = size;
    loop {
        let lines = wrap(s, px, sz, bold);
        if lines.len() <= max_lines {
            return Fitted {
                size: sz,
                lines,
                shortened: false,
            };
        }
        if sz - 0.5 < min_size {
            break;
        }
        sz -= 0.5;
    }
    let sz = min_size.min(size);
    let mut lines = wrap(s, px, sz, bold);
    let rest = lines.split_off(max_lines - 1).join(" ");
    lines.push(ellipsize(&rest, px, sz, bold));
    Fitted {
        size: sz,
        lines,
        shortened: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_dejavu_sans() {
        // "M" is 1767/2048 em; ten of them at 10 px.
        assert!((width("MMMMMMMMMM", 10.0, false) - 86.28).abs() < 0.01);
        assert!(width("Bold", 12.0, true) > width("Bold", 12.0, false));
        // Unknown characters count one em; a control as its `\u{1b}` text.
        assert_eq!(width("\u{4e2d}", 10.0, false), 10.0);
        assert_eq!(width("\u{1b}", 10.0, false), width("\\u{1b}", 10.0, false));
    }

    #[test]
    fn fit_wraps_then_shrinks_then_shortens() {
        let name = "Samsung Electronics Co Ltd NVMe SSD Controller PM173X";
        let f = fit(name, 125.0, 10.0, 7.0, 3, false);
        assert!(!f.shortened);
        assert!(f.lines.len() <= 3);
        assert_eq!(f.lines.join(" "), name);
        for l in &f.lines {
            assert!(width(l, f.size, false) <= 125.0, "{l}");
        }
        let f = fit(name, 60.0, 10.0, 7.0, 1, false);
        assert!(f.shortened);
        assert_eq!(f.size, 7.0);
        assert!(f.lines[0].ends_with('\u{2026}'));
        assert!(width(&f.lines[0], 7.0, false) <= 60.0);
        // A word wider than the box is broken, never left to overflow.
        let f = fit("Averyveryverylongword", 30.0, 10.0, 10.0, 5, false);
        assert!(f.lines.len() > 1);
        assert_eq!(f.lines.concat(), "Averyveryverylongword");
        assert_eq!(fit("short", 100.0, 10.0, 7.0, 1, false).lines, ["short"]);
    }
}
