//! The R6515 and R6615, the nodes of ceph.io's published Ceph clusters: listed, shown,
//! checked end to end (docs/validation.md runs the reports' rates through these builds),
//! placed, and every wiring value marked with its confidence and source.

use crate::common::{laneplan_wide, run};
use laneplan::platform::Catalog;

fn cli(args: &[&str]) -> (i32, String, String) {
    run(laneplan_wide().args(args))
}

#[test]
fn platforms_lists_the_ceph_nodes() {
    let (code, out, err) = cli(&["platforms"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("r6515    Dell EMC PowerEdge R6515 (1U, 1 socket, 128 Gen4 lanes)\n         --option front=10x2.5-nvme*|8x2.5-sas\n"),
        "{out}"
    );
    assert!(
        out.contains("r6615    Dell PowerEdge R6615 (1U, 1 socket, 128 Gen5 lanes)\n         --option front=10x2.5-nvme*|8x2.5-sas\n"),
        "{out}"
    );
}

#[test]
fn show_draws_ten_direct_nvme_bays_and_marks_the_wiring_inferred() {
    for (id, g) in [("r6515", "Gen4"), ("r6615", "Gen5")] {
        let (code, out, err) = cli(&["show", id]);
        assert_eq!(code, 0, "{id}: {err}");
        assert!(
            out.contains(&format!("CPU1 [128 {g} lanes, NUMA 0]")),
            "{out}"
        );
        assert!(
            out.contains(&format!("Slot 1 [x16 {g}, Riser 1]  (empty) [inferred]")),
            "{out}"
        );
        for bay in 0..10 {
            assert!(
                out.contains(&format!("─ Bay {bay} [10 x 2.5\" NVMe backplane")),
                "{id}: bay {bay}"
            );
        }
        assert!(!out.contains("Bay 10 "), "{out}");
    }
}

#[test]
fn no_capture_confirms_them_so_every_wiring_value_is_inferred_with_a_source() {
    for name in ["platforms/r6515.toml", "platforms/r6615.toml"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        let v: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut n = 0;
        let mut check = |t: &toml::Value, what: &str| {
            let c = t.get("confidence").and_then(|c| c.as_str());
            let s = t.get("source").and_then(|s| s.as_str()).unwrap_or("");
            assert_eq!(c, Some("inferred"), "{name}: {what} {t:?}");
            assert!(s.len() > 20, "{name}: {what} without a source");
            n += 1;
        };
        for key in ["root_complex", "slot"] {
            for t in v[key].as_array().unwrap() {
                check(t, key);
            }
        }
        for o in v["option"].as_array().unwrap() {
            for c in o["choice"].as_array().unwrap() {
                check(c, "option choice");
            }
        }
        assert_eq!(n, 6 + 4 + 2, "{name}");
    }
}

fn system(build: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "check",
        "--json",
        build,
        "--stack",
        "ceph-osd-read",
        "--serve",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = cli(&args);
    assert_eq!(code, 0, "{build}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["system"].clone()
}

#[test]
fn check_json_names_the_cpu_for_4k_reads_and_the_nics_for_4m_reads() {
    // R6515: 64 x 2.25 GHz / 200,000 cycles = 720,000; one 100GbE port = 12.5 GB/s.
    let s = system("examples/r6515-ceph-6x-pm983.toml", &[]);
    assert_eq!(s["iops"]["read"]["binding"], "cpu");
    assert_eq!(
        s["iops"]["read"]["binding_label"],
        "the CPUs (AMD EPYC 7742)"
    );
    assert_eq!(s["iops"]["read"]["iops"], 720_000.0);
    assert_eq!(s["nic_out_gbs"], 12.5);
    let s = system(
        "examples/r6515-ceph-6x-pm983.toml",
        &["--io-size", "4194304"],
    );
    assert_eq!(s["bandwidth"]["read"]["binding"], "nic");
    assert_eq!(s["bandwidth"]["read"]["gbs"], 12.5);
    // R6615: 48 x 2.75 GHz / 200,000 = 660,000; two ports = 25.0 GB/s, below the CPU's
    // 29.05 GB/s at 4 MiB and the drives' 10 x 6.8.
    let s = system("examples/r6615-ceph-10x-15tb.toml", &[]);
    assert_eq!(s["iops"]["read"]["binding"], "cpu");
    assert_eq!(
        s["iops"]["read"]["binding_label"],
        "the CPUs (AMD EPYC 9454P)"
    );
    assert_eq!(s["iops"]["read"]["iops"], 660_000.0);
    let s = system(
        "examples/r6615-ceph-10x-15tb.toml",
        &["--io-size", "4194304"],
    );
    let r = &s["bandwidth"]["read"];
    assert_eq!(r["binding"], "nic");
    assert_eq!(r["gbs"], 25.0);
    let cpu = r["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["element"] == "cpu")
        .unwrap();
    assert!(
        (cpu["gbs"].as_f64().unwrap() - 29.0538).abs() < 1e-3,
        "{cpu}"
    );
}

#[test]
fn place_puts_the_ceph_nodes_cards_and_drives_where_the_examples_do() {
    for (id, parts, slots, served) in [
        (
            "r6515",
            ["samsung-pm983-3.84tb=6", "mellanox-cx6-100g-1p"],
            vec!["slot1"],
            12.5,
        ),
        (
            "r6615",
            ["dell-nvme-ri-ag-15.36tb=10", "mellanox-cx6-100g-1p=2"],
            vec!["slot1", "slot2"],
            25.0,
        ),
    ] {
        let (code, out, err) = cli(&[
            "place",
            id,
            "--part",
            parts[0],
            "--part",
            parts[1],
            "--json",
            "--budget-nodes",
            "200000",
        ]);
        assert_eq!(code, 0, "{id}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["proven_optimal"], true, "{id}");
        assert_eq!(v["objective"], "served", "{id}");
        let best = &v["best"];
        assert_eq!(best["score"]["served_gbs"], served, "{id}");
        assert_eq!(best["score"]["narrow_loss_gbs"], 0.0, "{id}");
        let got: Vec<&str> = best["placement"]["slots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["slot"].as_str().unwrap())
            .collect();
        assert_eq!(got, slots, "{id}");
        // Its build checks cleanly.
        let build = v["build_toml"].as_str().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("b.toml");
        std::fs::write(&f, build).unwrap();
        let (code, _, err) = cli(&["check", f.to_str().unwrap()]);
        assert_eq!(code, 0, "{id}: {err}");
    }
}

#[test]
fn the_catalogue_holds_the_reports_parts_with_their_figures() {
    let cat = laneplan::cpu::builtin();
    let c = cat.cpu("epyc-9454p").unwrap();
    assert_eq!(
        (
            c.cores,
            c.threads,
            c.base_ghz,
            c.memory_channels,
            c.memory_mts
        ),
        (48, 96, 2.75, 12, 4800)
    );
    // 12 x 4,800 MT/s x 8 B = 460.8 GB/s.
    assert!((c.memory_gbs_at(c.memory_mts) - 460.8).abs() < 1e-9);
    let catalog = Catalog::builtin().unwrap();
    for id in [
        "samsung-pm983-3.84tb",
        "dell-nvme-ri-ag-15.36tb",
        "mellanox-cx6-100g-1p",
    ] {
        assert!(catalog.parts.contains_key(id), "{id}");
    }
}
