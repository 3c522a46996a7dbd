//! The `flow`, `check` and `dot` commands, snapshots of their output for the example builds,
//! and Graphviz rendering of the DOT.

use laneplan::flow::{self, Options};
use laneplan::pcie::Model;
use laneplan::plan;
use laneplan::platform::Catalog;
use laneplan::render;
use predicates::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

const EXAMPLES: [&str; 7] = [
    "r6525-micron9300.toml",
    "r6525-pe8010-gen3-backplane.toml",
    "r6525-pe8010-gen4-kit.toml",
    "r740xd-12nvme-micron9300.toml",
    "r740xd-4x-pm1725-plx.toml",
    "r7415-24nvme-switched.toml",
    "r7415-4nvme-4sas.toml",
];

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn laneplan() -> assert_cmd::Command {
    crate::common::laneplan_wide()
}

fn flow_of(name: &str) -> (plan::Report, flow::FlowReport) {
    let catalog = Catalog::builtin().unwrap();
    let mut r = plan::check_build_file(&catalog, &example(name)).unwrap();
    let f = flow::attach(&mut r, &Options::default()).unwrap();
    (r, f)
}

#[test]
fn flow_report_text_snapshots() {
    for name in EXAMPLES {
        let (_, f) = flow_of(name);
        insta::assert_snapshot!(
            format!("flow-{}", name.trim_end_matches(".toml")),
            render::flow::report(&f)
        );
    }
}

#[test]
fn dot_snapshots() {
    for name in [
        "r740xd-12nvme-micron9300.toml",
        "r7415-24nvme-switched.toml",
        "r6525-pe8010-gen3-backplane.toml",
    ] {
        let (r, f) = flow_of(name);
        insta::assert_snapshot!(
            format!("dot-{}", name.trim_end_matches(".toml")),
            render::dot::dot(&r.plan.topology, Some(&f), Model::DirectionAware)
        );
    }
}

/// Graphviz must accept the DOT. `dot` is a test requirement (CI installs graphviz): a
/// missing binary fails this test, it never passes silently.
#[test]
fn graphviz_renders_the_dot() {
    for name in [
        "r7415-24nvme-switched.toml",
        "r740xd-12nvme-micron9300.toml",
    ] {
        let out = laneplan()
            .args(["dot", example(name).to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success());
        let mut child = match std::process::Command::new("dot")
            .arg("-Tsvg")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => panic!(
                "graphviz `dot` is required to test the DOT output and could not be run ({e}); install graphviz (apt-get install graphviz)"
            ),
        };
        child.stdin.take().unwrap().write_all(&out.stdout).unwrap();
        let svg = child.wait_with_output().unwrap();
        assert!(
            svg.status.success(),
            "dot -Tsvg failed: {}",
            String::from_utf8_lossy(&svg.stderr)
        );
        let svg = String::from_utf8(svg.stdout).unwrap();
        assert!(svg.contains("<svg"));
        assert!(svg.contains("cluster_cpu1"));
    }
}

#[test]
fn dot_has_clusters_labels_and_stable_output() {
    let a = laneplan()
        .args([
            "dot",
            example("r7415-24nvme-switched.toml").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let b = laneplan()
        .args([
            "dot",
            example("r7415-24nvme-switched.toml").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(a.stdout, b.stdout);
    let s = String::from_utf8(a.stdout).unwrap();
    assert!(s.contains("subgraph \"cluster_cpu1\""));
    assert!(s.contains("subgraph \"cluster_bp-switch-a\""));
    // The uplink: Gen3 x16 at the direction-aware to-host ceiling, saturated (red).
    assert!(s.contains(
        "\"die0.b/bp-switch-a\" -> \"bp-switch-a\" [label=\"Gen3 x16 · 14.37 GB/s\", color=\"#c62828\""
    ));
    // Each drive shows its ceiling and its expected figure.
    assert!(
        s.contains("ceiling 3.59 / 3.58 GB/s r/w\\nexpected 3.30 / 3.00"),
        "{s}"
    );
    // A platform with an option works too.
    laneplan()
        .args(["dot", "r740xd", "--option", "front=24nvme"])
        .assert()
        .success()
        .stdout(predicate::str::contains("cluster_bp-switch1"));
}

#[test]
fn flow_command_json_carries_every_number() {
    let out = laneplan()
        .args([
            "flow",
            example("r7415-24nvme-switched.toml").to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bw = &v["bandwidth"];
    assert_eq!(bw["model"], "direction-aware");
    assert_eq!(bw["tlp"]["mps"], 256);
    assert_eq!(bw["tlp"]["mrrs"], 512);
    assert_eq!(bw["memory"], "local");
    assert_eq!(bw["workload"], "seq");
    // Two Gen3 x16 uplinks at 14.365209 GB/s each: the ceiling and the expected figure.
    let mf = bw["read"]["max_flow_gbs"].as_f64().unwrap();
    assert!((mf - 2.0 * 14.365209).abs() < 0.00002, "{mf}");
    assert_eq!(bw["read"]["expected_gbs"], bw["read"]["max_flow_gbs"]);
    let c = bw["read"]["ceiling_gbs"].as_f64().unwrap();
    assert!((c - 2.0 * 14.365209).abs() < 0.00002, "{c}");
    let d0 = &bw["devices"][0]["read"];
    assert!((d0["ceiling_gbs"].as_f64().unwrap() - 3.591302).abs() < 0.000001);
    assert_eq!(d0["ceiling_by"]["kind"], "link");
    assert_eq!(d0["capped_by"]["kind"], "device");
    assert_eq!(bw["devices"].as_array().unwrap().len(), 24);
    assert_eq!(
        bw["devices"][0]["read"]["share_limited_by"]["kind"],
        "switch-uplink"
    );
    let up = bw["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "switch-uplink")
        .unwrap();
    assert!((up["read"]["capacity_gbs"].as_f64().unwrap() - 14.365209).abs() < 0.000001);
    assert_eq!(up["read"]["ceiling_gbs"], up["read"]["capacity_gbs"]);
    assert_eq!(up["read"]["saturated"], true);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "LP0201")
    );
}

#[test]
fn check_prints_the_bottleneck_table_and_json_has_bandwidth() {
    laneplan()
        .args([
            "check",
            "--no-tree",
            example("r740xd-12nvme-micron9300.toml").to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("limit (alone)"))
        .stdout(predicate::str::contains(
            "the drive (its spec); ceiling: Bay 12 link Gen3 x4",
        ))
        .stdout(predicate::str::contains(
            "All drives at once, read: ceiling 50.28 GB/s, expected 48.80 GB/s",
        ));
    // Only the NVMe drives, as the review loaded them: ceiling 12 x 3.591302 = 43.10,
    // expected 12 x 3.5 = 42.00, the drives the limit.
    laneplan()
        .args([
            "flow",
            "--devices",
            "nvme",
            example("r740xd-12nvme-micron9300.toml").to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "All NVMe drives at once, read: ceiling 43.10 GB/s, expected 42.00 GB/s: the NVMe drives are the limit",
        ));
    // The other link models, named in the output.
    laneplan()
        .args([
            "flow",
            "--link-model",
            "tlp-level",
            "--devices",
            "nvme",
            example("r740xd-12nvme-micron9300.toml").to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "TLP-level (Neugebauer et al. 2018",
        ))
        .stdout(predicate::str::contains(
            "read: ceiling 39.87 GB/s, expected 39.87 GB/s",
        ));
    // A bad MPS is a usage error.
    laneplan()
        .args([
            "flow",
            "--mps",
            "300",
            example("r740xd-12nvme-micron9300.toml").to_str().unwrap(),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("MPS must be one of"));
    let out = laneplan()
        .args([
            "check",
            "--json",
            example("r6525-pe8010-gen3-backplane.toml")
                .to_str()
                .unwrap(),
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["bandwidth"]["devices"][0]["read"];
    assert!(
        d["capped_by"]["fix"]
            .as_str()
            .unwrap()
            .contains("backplane=gen4-kit")
    );
    assert!(v["budget"].is_object());
}

#[test]
fn flow_options_are_validated() {
    laneplan()
        .args([
            "flow",
            example("r740xd-12nvme-micron9300.toml").to_str().unwrap(),
            "--memory",
            "cpu1",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("LP0203"));
    laneplan()
        .args([
            "flow",
            example("r7415-24nvme-switched.toml").to_str().unwrap(),
            "--memory",
            "CPU3",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no socket CPU3 in this topology (sockets: CPU1)",
        ));
    laneplan()
        .args([
            "flow",
            example("r7415-24nvme-switched.toml").to_str().unwrap(),
            "--workload",
            "8k",
        ])
        .assert()
        .code(2);
}
