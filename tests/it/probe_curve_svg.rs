//! The `--curve` plot as `probe --curve --svg` writes it from a real sweep of a file: every
//! text inside its box (rendered by rsvg-convert), the legend beside the data, both markers
//! explained, achieved IOPS on the x axis; and a sweep whose maximum run measures 0 IOPS
//! (LP0420, exit 1).

use crate::common::{laneplan, run};
use crate::svg_fit::{Measure, misfits};

fn num(n: roxmltree::Node, a: &str) -> f64 {
    n.attribute(a).unwrap().parse().unwrap()
}

#[test]
fn a_real_curve_svg_fits_and_explains_itself() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("c.img");
    let svg = d.path().join("curve.svg");
    let mut cmd = laneplan();
    cmd.args([
        "probe",
        "--curve",
        "--size",
        "4m",
        // A shallow queue: under a loaded test machine QD 128 can leave I/O past the drain
        // grace (LP0417, exit 1), which is not what this test is about.
        "--qd",
        "8",
        "--runtime",
        "300ms",
        "--ramp",
        "0",
        "--json",
        "--svg",
    ])
    .arg(&svg)
    .arg(&img);
    let (code, out, err) = run(&mut cmd);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(code, 0, "{err}\nfindings: {}", v["findings"]);
    let points = v["curves"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 13);
    let text = std::fs::read_to_string(&svg).unwrap();
    let mut m = Measure::default();
    let bad = misfits(&text, &mut m);
    assert!(
        bad.is_empty(),
        "texts leave their box:\n  {}",
        bad.join("\n  ")
    );
    let doc = roxmltree::Document::parse(&text).unwrap();
    let texts: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or_default().to_string())
        .collect();
    assert!(texts.iter().any(|t| t == "IOPS achieved"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("offered (")), "{texts:?}");
    assert!(
        texts[0].ends_with("latency against achieved IOPS"),
        "{}",
        texts[0]
    );
    // The legend: its own box right of the plot, explaining both markers.
    let rects: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("x").is_some())
        .collect();
    let plot = rects
        .iter()
        .find(|r| r.attribute("class").is_none())
        .unwrap();
    let legend = rects
        .iter()
        .find(|r| r.attribute("class") == Some("legend"))
        .unwrap();
    let plot_right = num(*plot, "x") + num(*plot, "width");
    assert!(
        num(*legend, "x") > plot_right,
        "the legend overlaps the plot"
    );
    let legend_markers: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && num(*n, "cx") > plot_right)
        .map(|n| n.attribute("fill").unwrap())
        .collect();
    assert_eq!(legend_markers, ["#555555", "white"]);
    let legend_text = texts.join(" ");
    assert!(
        legend_text.contains("the maximum run (no rate"),
        "{legend_text}"
    );
    assert!(
        legend_text.contains("a step: offered 10-120 %"),
        "{legend_text}"
    );
    // Every data marker at the IOPS its run achieved (the JSON's), on the x axis.
    let (x0, w) = (num(*plot, "x"), num(*plot, "width"));
    let max_iops = points
        .iter()
        .map(|p| p["iops"].as_f64().unwrap())
        .fold(0.0, f64::max);
    let (_, axis) = laneplan::probe::svg::nice_axis(max_iops);
    let mut data_x: Vec<f64> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && num(*n, "cx") <= plot_right)
        .map(|n| num(n, "cx"))
        .collect();
    // Mean and p99 markers per point.
    assert_eq!(data_x.len(), 26);
    data_x.truncate(13);
    for (p, cx) in points.iter().zip(&data_x) {
        let want = x0 + p["iops"].as_f64().unwrap() / axis * w;
        assert!(
            (want - cx).abs() <= 0.06,
            "{p}: at {cx}, achieved is at {want}"
        );
    }
}

/// Issue 18, item 10: a `--curve` whose maximum run measures 0 IOPS (one 64 MiB read cannot
/// complete within a 1 ms run) is LP0420 with exit 1, as docs/probe.md says; it had skipped
/// every step and exited 0.
#[test]
fn a_curve_whose_maximum_run_measures_0_iops_is_lp0420_exit_1() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("z.img");
    let mut cmd = laneplan();
    cmd.args([
        "probe",
        "--curve",
        "--bs",
        "64m",
        "--qd",
        "1",
        "--runtime",
        "1ms",
        "--ramp",
        "0",
        "--size",
        "64m",
        "--working-set",
        "100%",
        "--engine",
        "sync",
        "--json",
    ])
    .arg(&img);
    let (code, out, err) = run(&mut cmd);
    assert_eq!(code, 1, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["devices"][0]["iops"], 0.0, "{out}");
    let f: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "LP0420")
        .collect();
    assert_eq!(f.len(), 1, "{out}");
    assert_eq!(f[0]["severity"], "error");
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("z.img: the maximum run measured 0 IOPS: no curve to sweep"),
        "{}",
        f[0]["message"]
    );
    // No step was offered: the curve holds the maximum run alone, or nothing.
    let curves = v["curves"].as_array().map(Vec::len).unwrap_or(0);
    assert!(
        curves == 0 || v["curves"][0]["points"].as_array().unwrap().len() <= 1,
        "{out}"
    );
}
