//! Pictures that fit: every text of every SVG the tool writes stays inside its box, as
//! librsvg (rsvg-convert) draws it. Each distinct text (wording, size, weight) is set alone
//! by rsvg-convert and its ink box read from the PNG (`--export-id` crops to the element);
//! its box in the picture is the smallest `<rect>` that holds its anchor, else the canvas.
//! The renderer measures with its own table of DejaVu Sans widths: this checks that against
//! the real renderer, independently.

use crate::common::{laneplan, lspci_dump};
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

#[derive(Debug, Clone, Copy)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn holds(&self, x: f64, y: f64) -> bool {
        x >= self.x && x <= self.x + self.w && y >= self.y && y <= self.y + self.h
    }
}

/// Ink sizes of texts as rsvg-convert sets them, by (wording, size, bold, font).
#[derive(Default)]
pub struct Measure {
    cache: HashMap<(String, String, bool, String), (f64, f64)>,
    dir: Option<tempfile::TempDir>,
    pub runs: usize,
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[12..16], b"IHDR", "not a PNG");
    (
        u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
        u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
    )
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Measure {
    /// The ink width and height of `text`, unrotated.
    fn ink(&mut self, text: &str, size: &str, bold: bool, font: &str) -> (f64, f64) {
        let key = (text.to_string(), size.to_string(), bold, font.to_string());
        if let Some(v) = self.cache.get(&key) {
            return *v;
        }
        let dir = self
            .dir
            .get_or_insert_with(|| tempfile::tempdir().unwrap())
            .path()
            .to_path_buf();
        let src = dir.join("t.svg");
        let png = dir.join("t.png");
        std::fs::write(
            &src,
            format!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="300" font-family="{}"><text id="t" x="100" y="150" font-size="{size}"{}>{}</text></svg>"#,
                xml(font),
                if bold { r#" font-weight="bold""# } else { "" },
                xml(text)
            ),
        )
        .unwrap();
        let out = Command::new("rsvg-convert")
            .arg("--export-id=t")
            .arg("-f")
            .arg("png")
            .arg(&src)
            .arg("-o")
            .arg(&png)
            .output()
            .expect(
                "rsvg-convert is missing: install it (Debian: apt-get install librsvg2-bin); \
                 the text-fit test does not skip",
            );
        assert!(
            out.status.success(),
            "rsvg-convert failed on {text:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.runs += 1;
        let (w, h) = png_size(&std::fs::read(&png).unwrap());
        let v = (f64::from(w), f64::from(h));
        self.cache.insert(key, v);
        v
    }
}

fn num(n: roxmltree::Node, a: &str) -> Option<f64> {
    n.attribute(a)?.trim_end_matches("px").parse().ok()
}

/// An attribute on the element or the nearest ancestor that has it.
fn inherited<'a>(n: roxmltree::Node<'a, 'a>, a: &str) -> Option<&'a str> {
    n.ancestors().find_map(|p| p.attribute(a))
}

/// Every text of `svg` that leaves its box, described; empty when all fit.
pub fn misfits(svg: &str, m: &mut Measure) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses");
    let root = doc.root_element();
    let canvas = Rect {
        x: 0.0,
        y: 0.0,
        w: num(root, "width").expect("width"),
        h: num(root, "height").expect("height"),
    };
    let rects: Vec<Rect> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("transform").is_none())
        .filter_map(|n| {
            Some(Rect {
                x: num(n, "x").unwrap_or(0.0),
                y: num(n, "y").unwrap_or(0.0),
                w: num(n, "width")?,
                h: num(n, "height")?,
            })
        })
        .collect();
    let mut bad = Vec::new();
    for t in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let text: String = t
            .children()
            .filter(|c| c.is_text())
            .filter_map(|c| c.text())
            .collect();
        if text.trim().is_empty() {
            continue;
        }
        let x = num(t, "x").unwrap_or(0.0);
        let y = num(t, "y").unwrap_or(0.0);
        let size_s = inherited(t, "font-size").unwrap_or("16");
        let size: f64 = size_s.trim_end_matches("px").parse().unwrap();
        let bold = inherited(t, "font-weight") == Some("bold");
        let font = inherited(t, "font-family").unwrap_or("sans-serif");
        let anchor = inherited(t, "text-anchor").unwrap_or("start");
        let rotated = t
            .attribute("transform")
            .is_some_and(|s| s.starts_with("rotate(-90"));
        assert!(
            t.attribute("transform").is_none() || rotated,
            "a transform the test does not model: {:?}",
            t.attribute("transform")
        );
        let (w, _) = m.ink(&text, size_s, bold, font);
        // The anchor, and where the ink runs along the text's direction.
        let (lo, hi) = match anchor {
            "middle" => (-w / 2.0, w / 2.0),
            "end" => (-w, 0.0),
            _ => (0.0, w),
        };
        let probe = if rotated {
            (x - 0.35 * size, y)
        } else {
            (x, y - 0.35 * size)
        };
        let boxed = rects
            .iter()
            .filter(|r| r.holds(probe.0, probe.1))
            .min_by(|a, b| (a.w * a.h).total_cmp(&(b.w * b.h)))
            .copied()
            .unwrap_or(canvas);
        let tol = 1.0;
        let (fits, extent) = if rotated {
            // rotate(-90 x y): the text runs upwards from its anchor.
            let (top, bottom) = (y - hi, y - lo);
            (
                top >= boxed.y - tol
                    && bottom <= boxed.y + boxed.h + tol
                    && x - 0.8 * size >= boxed.x - tol
                    && x <= boxed.x + boxed.w + tol,
                format!("y {top:.1}..{bottom:.1}"),
            )
        } else {
            let (left, right) = (x + lo, x + hi);
            (
                left >= boxed.x - tol
                    && right <= boxed.x + boxed.w + tol
                    && y - 0.72 * size >= boxed.y - tol
                    && y <= boxed.y + boxed.h + tol,
                format!("x {left:.1}..{right:.1}, baseline {y}"),
            )
        };
        if !fits {
            bad.push(format!(
                "{text:?} ({size}px{}) at {extent} leaves its box x {:.1}..{:.1}, y {:.1}..{:.1}",
                if bold { " bold" } else { "" },
                boxed.x,
                boxed.x + boxed.w,
                boxed.y,
                boxed.y + boxed.h
            ));
        }
    }
    bad
}

fn assert_fits(name: &str, svg: &str, m: &mut Measure) {
    let bad = misfits(svg, m);
    assert!(
        bad.is_empty(),
        "{name}: {} text(s) leave their box:\n  {}",
        bad.len(),
        bad.join("\n  ")
    );
}

/// The checker itself: a text wider than its box is caught, one inside is not.
#[test]
fn the_checker_catches_a_text_that_leaves_its_box() {
    let mut m = Measure::default();
    let over = r#"<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100" font-family="DejaVu Sans"><rect x="10" y="10" width="100" height="40"/><text x="60" y="35" font-size="10" text-anchor="middle">Samsung Electronics Co Ltd NVMe SSD</text></svg>"#;
    let bad = misfits(over, &mut m);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(
        bad[0].contains("leaves its box x 10.0..110.0"),
        "{}",
        bad[0]
    );
    let inside = over.replace("Samsung Electronics Co Ltd NVMe SSD", "Samsung");
    assert_eq!(misfits(&inside, &mut m), Vec::<String>::new());
    // librsvg ignores textLength: a squeezed text still overflows.
    let squeezed = over.replace(
        r#"text-anchor="middle">"#,
        r#"text-anchor="middle" textLength="90" lengthAdjust="spacingAndGlyphs">"#,
    );
    assert_eq!(misfits(&squeezed, &mut m).len(), 1);
    // Rotated text is checked along its length.
    let up = r#"<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" font-family="DejaVu Sans"><rect x="10" y="10" width="30" height="100"/><text x="28" y="60" font-size="9" text-anchor="middle" transform="rotate(-90 28 60)">Samsung Electronics Co Ltd</text></svg>"#;
    assert_eq!(misfits(up, &mut m).len(), 1);
    assert_eq!(
        misfits(&up.replace("Samsung Electronics Co Ltd", "Samsung"), &mut m),
        Vec::<String>::new()
    );
}

/// The R7525 capture's bay picture (`bays r7525 --lspci ... --svg F`), written by the CLI.
#[test]
fn the_r7525_bay_svg_fits() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r7525.svg");
    let out = laneplan()
        .args(["bays", "r7525", "--lspci"])
        .arg(lspci_dump("r7525"))
        .arg("--svg")
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&f).unwrap();
    assert!(!svg.contains("textLength"), "no text relies on textLength");
    let mut m = Measure::default();
    assert_fits("r7525 --lspci", &svg, &mut m);
    assert!(m.runs > 20, "measured {} texts", m.runs);
}

/// Every platform option and every example build, as `bays --svg` draws them, and the
/// audited R740xd sysfs capture against its build.
#[test]
fn every_bay_svg_fits() {
    let mut m = Measure::default();
    for (name, layout) in crate::bays::all_configs() {
        assert_fits(&name, &laneplan::render::bays_svg::render(&layout), &mut m);
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("a.svg");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = laneplan()
        .current_dir(root)
        .args([
            "bays",
            "examples/r740xd-12nvme-micron9300.toml",
            "--sysfs-root",
            "tests/fixtures/sysfs/r740xd-12nvme",
            "--svg",
        ])
        .arg(&f)
        .output()
        .unwrap();
    // The build's audit has problems (exit 0 with them drawn, or 1 for a rejected build).
    assert!(f.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_fits(
        "r740xd audited",
        &std::fs::read_to_string(&f).unwrap(),
        &mut m,
    );
}

fn r7525(args: &[&str]) -> String {
    let out = laneplan()
        .env("COLUMNS", "120")
        .args(["bays", "r7525", "--lspci"])
        .arg(lspci_dump("r7525"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The audited rear slots hold what the audit found (a Xilinx card in Slot 2, the E810 in
/// the OCP slot), in text, JSON and SVG; with no plan the header says what was found.
#[test]
fn r7525_rear_slots_show_what_the_audit_found() {
    let text = r7525(&[]);
    assert!(
        text.contains("Host: 2 drives in bays, 2 cards in slots found (nothing planned)"),
        "{text}"
    );
    assert!(!text.contains("0 of 0 planned"), "{text}");
    // The rear picture: Slot 2 holds a card, OCP 3.0 a NIC, the other four are empty.
    let rear: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Rear"))
        .collect();
    assert_eq!(
        rear[5],
        "|   card   |  empty   |  empty   |  empty   |  empty   |   NIC    |",
        "{}",
        rear.join("\n")
    );
    let v: serde_json::Value = serde_json::from_str(&r7525(&["--json"])).unwrap();
    let slots = v["slots"].as_array().unwrap();
    let held: Vec<(&str, &str, &str, &str)> = slots
        .iter()
        .filter(|s| s.get("card").is_some())
        .map(|s| {
            (
                s["id"].as_str().unwrap(),
                s["card"].as_str().unwrap(),
                s["found_bdf"].as_str().unwrap(),
                s["link"]["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        held,
        [
            (
                "slot2",
                "Xilinx Corporation Device",
                "0000:21:00.0",
                "Gen3 x16"
            ),
            (
                "ocp",
                "Intel Corporation Ethernet Controller E810-C for SFP",
                "0000:63:00.0",
                "Gen4 x16"
            ),
        ]
    );
    assert_eq!(v["host"]["drives_found"], 2);
    assert_eq!(v["host"]["cards_found"], 2);
    assert_eq!(v["host"]["planned"], 0);
    // Nothing was planned: a found card is not a problem.
    assert!(
        slots
            .iter()
            .all(|s| s["problems"].as_array().unwrap().is_empty())
    );
    let svg = r7525(&["--svg", "-"]);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let group = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("no {id}"))
    };
    let texts = |id: &str| -> String {
        group(id)
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .flat_map(|t| {
                t.children()
                    .filter(|c| c.is_text())
                    .filter_map(|c| c.text())
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(
        texts("slot-slot2").contains("Xilinx Corporation Device"),
        "{}",
        texts("slot-slot2")
    );
    assert!(
        texts("slot-ocp").contains("E810-C"),
        "{}",
        texts("slot-ocp")
    );
    assert!(texts("slot-slot3").contains("empty"));
    let subtitle = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .nth(1)
        .and_then(|t| t.text())
        .unwrap();
    assert_eq!(
        subtitle,
        "front=8nvme · nps=nps4 · 8 bays, 2 drives in bays, 2 cards in slots found (nothing planned), 0 with a problem"
    );
}

/// Rear cells wrap at their space, never cut ("NVMe e"): at 80 columns the R740xd's
/// extender slots read "NVMe" over "ext".
#[test]
fn rear_cells_wrap_and_are_not_cut() {
    let out = laneplan()
        .env("COLUMNS", "80")
        .args(["bays", "examples/r740xd-12nvme-micron9300.toml"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rear: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Rear"))
        .take(11)
        .collect();
    assert_eq!(
        rear[7..10],
        [
            "| NVMe | BOSS |empty | NVMe |empty |empty |empty | NVMe | PERC | NIC  |",
            "| ext  |      |      | ext  |      |      |      | ext  |      |      |",
            "|      |      |      |      |      |      |      |      |      |      |",
        ],
        "{}",
        rear.join("\n")
    );
    assert!(
        !text.contains("NVMe e|") && !text.contains("NVMe e "),
        "{text}"
    );
}

/// Bays in numeric order (0, 1, 2 ... 10, never 0, 1, 10, 11, 2) in the text table, the
/// JSON and the SVG of a 24-bay chassis.
#[test]
fn bays_sort_numerically_in_text_svg_and_json() {
    let want: Vec<u64> = (0..24).collect();
    let run = |args: &[&str]| {
        let out = laneplan()
            .env("COLUMNS", "200")
            .args(["bays", "r740xd", "--option", "front=24nvme"])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let v: serde_json::Value = serde_json::from_str(&run(&["--json"])).unwrap();
    let json: Vec<u64> = v["bays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["number"].as_u64().unwrap())
        .collect();
    assert_eq!(json, want);
    let svg = run(&["--svg", "-"]);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let ids: Vec<u64> = doc
        .descendants()
        .filter_map(|n| n.attribute("id")?.strip_prefix("bay-")?.parse().ok())
        .collect();
    assert_eq!(ids, want);
    // The per-bay table: its first column, top to bottom.
    let text = run(&[]);
    let rows: Vec<u64> = text
        .lines()
        .filter_map(|l| {
            let row = l.strip_prefix('│').or_else(|| l.strip_prefix('|'))?;
            let mut cells = row.split(['│', '|']).map(str::trim);
            let bay = cells.next()?.parse().ok()?;
            // A table row (bay, interface, ...), not the panel's row of numbers.
            (cells.next()? == "NVMe").then_some(bay)
        })
        .collect();
    assert_eq!(rows, want, "{text}");
}
