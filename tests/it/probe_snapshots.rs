//! Snapshots of the renderings from fixed result structs (no I/O).

use laneplan::probe::engine::EngineKind;
use laneplan::probe::results::{
    Curve, CurvePoint, DeviceResult, Latency, ProbeReport, WorkloadInfo, render_curve_table,
    render_table,
};
use laneplan::probe::svg;
use laneplan::probe::workload::Pattern;

/// The expected figure for a ceiling of `n` Gen3 x4 links (3.591 GB/s each to the host,
/// direction-aware): n drives at 3.1 GB/s.
fn expected(ceiling: f64) -> f64 {
    ((ceiling / 3.591).round() * 3.1 * 1000.0).round() / 1000.0
}

fn device(label: &str, iops: f64, p99: f64, ceiling: Option<(f64, f64)>) -> DeviceResult {
    DeviceResult {
        label: label.into(),
        path: format!("/dev/{label}"),
        location: None,
        engine: EngineKind::IoUring,
        ios: (iops * 10.0) as u64,
        reads: (iops * 10.0) as u64,
        writes: 0,
        bytes: (iops * 10.0) as u64 * 4096,
        seconds: 10.0,
        iops,
        mb_per_s: iops * 4096.0 / 1e6,
        latency: Some(Latency {
            mean_us: 150.25,
            p50_us: 140.0,
            p99_us: p99,
            p99_9_us: p99 * 1.5,
            max_us: 2210.5,
        }),
        read_latency: None,
        write_latency: None,
        cpu_seconds: Some(4.2),
        cpu_us_per_io: Some(4.2e6 / (iops * 10.0)),
        // 4.2 CPU seconds at 3.0 GHz over the run's I/Os.
        cycles_per_io: Some(laneplan::probe::results::cycles_per_io(
            4.2,
            3.0,
            (iops * 10.0) as u64,
        )),
        clock_ghz: Some(3.0),
        ceiling_gbs: ceiling.map(|c| c.0),
        ceiling_pct: ceiling.map(|c| c.1),
        // Drives specified at 3.1 GB/s each (a Samsung PM1725 800 GB) behind Gen3 x4 links:
        // the expected figure is the spec, below the ceiling.
        expected_gbs: ceiling.map(|c| expected(c.0)),
        expected_pct: ceiling
            .map(|c| ((iops * 4096.0 / 1e9) / expected(c.0) * 1000.0).round() / 10.0),
        errors: 0,
        abandoned: 0,
    }
}

fn report() -> ProbeReport {
    ProbeReport {
        schema_version: 1,
        mode: "together".into(),
        workload: WorkloadInfo {
            name: "4k-randread".into(),
            bs: "4k".into(),
            pattern: Pattern::Random,
            read_pct: 100,
            qd: 128,
            jobs: 1,
            engine: EngineKind::IoUring,
            ring_setup: Some("coop_taskrun+single_issuer+defer_taskrun".into()),
            ramp_s: 2.0,
            runtime_s: Some(10.0),
            ios: None,
            rate_iops: None,
            working_set: 0.25,
            trace: None,
            source: None,
            fio: Some("fio --name=probe --filename=DEV --direct=1 --rw=randread --bs=4k --ioengine=io_uring --iodepth=128 --size=25% --time_based --ramp_time=2 --runtime=10 --norandommap --randrepeat=0 --lat_percentiles=1".into()),
        },
        devices: vec![
            device("nvme0n1", 812_345.6, 412.0, Some((3.591, 92.7))),
            device("nvme1n1", 401_000.0, 980.5, Some((3.591, 45.7))),
        ],
        total: Some(device("total", 1_213_345.6, 900.0, Some((7.182, 69.2)))),
        curves: vec![],
        interrupted: false,
        findings: vec![],
    }
}

fn curve() -> Curve {
    let mut points = vec![CurvePoint {
        pct: None,
        offered_iops: None,
        iops: 100_000.0,
        mb_per_s: 409.6,
        mean_us: 320.0,
        p99_us: 900.0,
        p99_9_us: 1500.0,
    }];
    for (i, pct) in laneplan::probe::CURVE_STEPS.iter().enumerate() {
        let offered = 1000.0 * *pct as f64;
        let achieved = offered.min(100_000.0);
        let mean = 80.0
            + 20.0 * i as f64
            + if *pct > 100 {
                400.0 * (*pct - 100) as f64
            } else {
                0.0
            };
        points.push(CurvePoint {
            pct: Some(*pct),
            offered_iops: Some(offered),
            iops: achieved,
            mb_per_s: achieved * 4096.0 / 1e6,
            mean_us: mean,
            p99_us: mean * 2.5,
            p99_9_us: mean * 4.0,
        });
    }
    Curve {
        label: "nvme0n1".into(),
        points,
    }
}

#[test]
fn table_snapshot() {
    insta::assert_snapshot!(render_table(&report()));
}

#[test]
fn json_snapshot() {
    insta::assert_json_snapshot!(report());
}

#[test]
fn curve_table_snapshot() {
    insta::assert_snapshot!(render_curve_table(&curve()));
}

#[test]
fn curve_svg_snapshot() {
    let s = svg::render(
        "nvme0n1: 4k-randread, latency against offered IOPS",
        &[curve()],
    );
    assert!(s.starts_with("<svg ") && s.ends_with("</svg>\n"));
    insta::assert_snapshot!(s);
}

#[test]
fn curve_svg_log_axis_order_and_title() {
    let mut r = report();
    r.curves = vec![curve()];
    let title = svg::title(&r);
    assert_eq!(
        title,
        "nvme0n1: 4k-randread (4k random 100 % read, QD 128 x 1 job), latency against achieved IOPS"
    );
    let text = svg::render(&title, &r.curves);
    let doc = roxmltree::Document::parse(&text).unwrap();
    let texts: Vec<(f64, f64, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let num = |a: &str| n.attribute(a).unwrap_or("0").parse::<f64>().unwrap();
            (num("x"), num("y"), n.text().unwrap_or_default().to_string())
        })
        .collect();
    assert_eq!(texts[0].2, title);
    // The y tick labels (right-aligned left of the plot), bottom to top.
    let ticks: Vec<&str> = texts
        .iter()
        .filter(|(x, _, _)| *x == 72.0)
        .map(|(_, _, t)| t.as_str())
        .collect();
    assert_eq!(
        ticks,
        [
            "10 µs", "20 µs", "50 µs", "100 µs", "200 µs", "500 µs", "1 ms", "2 ms", "5 ms",
            "10 ms", "20 ms", "50 ms", "100 ms"
        ]
    );
    let lines: Vec<Vec<f64>> = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .map(|n| {
            n.attribute("points")
                .unwrap()
                .split(' ')
                .map(|p| p.split_once(',').unwrap().0.parse::<f64>().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(lines.len(), 2);
    // Each line (mean, p99) joins the 12 steps at the rate they achieved: rising to 100 %,
    // then the 110 and 120 % steps, which achieve no more, at the maximum's x.
    for xs in &lines {
        assert_eq!(xs.len(), 12);
        assert!(xs[..10].windows(2).all(|w| w[0] < w[1]), "{xs:?}");
        assert_eq!(xs[9..], [xs[9]; 3], "{xs:?}");
        // 100000 IOPS on an axis to 100k: the plot's right edge.
        assert_eq!(xs[9], 662.0);
    }
    // Tooltips say both rates.
    assert!(text.contains(
        "<title>nvme0n1 mean: 120 % offered 120000 IOPS, achieved 100000 IOPS, 8.3 ms</title>"
    ));
}
