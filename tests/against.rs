//! Plan against host: the synthetic hosts audited against the example builds they mirror.
//! Each diff names exactly the problems planted in the fixture, and nothing else.

use laneplan::against::{self, DiffStatus};
use laneplan::host::{self, audit::AuditOptions};
use laneplan::plan;
use laneplan::platform::Catalog;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn diff_of(host: &Path, build: &str) -> against::Diff {
    let audit = host::audit_sysfs(host, None, AuditOptions::default());
    let catalog = Catalog::builtin().unwrap();
    let report = plan::check_build_file(&catalog, &root().join(build)).unwrap();
    against::diff(&report.plan, &audit)
}

/// Place -> status, leaving out the places that are as planned.
fn problems(d: &against::Diff) -> BTreeMap<String, DiffStatus> {
    d.entries
        .iter()
        .filter(|e| {
            !matches!(
                e.status,
                DiffStatus::Ok | DiffStatus::Empty | DiffStatus::NotVisible
            )
        })
        .map(|e| (e.place.clone(), e.status))
        .collect()
}

#[test]
fn r740xd_host_against_its_build_names_the_planted_problems_only() {
    let d = diff_of(
        &root().join("tests/fixtures/sysfs/r740xd-12nvme"),
        "examples/r740xd-12nvme-micron9300.toml",
    );
    let want: BTreeMap<String, DiffStatus> = [
        ("Bay 17", DiffStatus::Downtrained),
        ("Bay 21", DiffStatus::Downtrained),
        ("Bay 23", DiffStatus::Missing),
    ]
    .into_iter()
    .map(|(p, s)| (p.to_string(), s))
    .collect();
    assert_eq!(problems(&d), want);
    let ok: Vec<&str> = d
        .entries
        .iter()
        .filter(|e| e.status == DiffStatus::Ok)
        .map(|e| e.place.as_str())
        .collect();
    // Nine NVMe bays, the PERC, the rNDC and the BOSS are where the plan puts them.
    assert_eq!(ok.len(), 12, "{ok:?}");
    assert!(ok.contains(&"rNDC") && ok.contains(&"Slot 2"));
    let bay12 = d.entries.iter().find(|e| e.place == "Bay 12").unwrap();
    assert_eq!(bay12.bdf.as_deref(), Some("0000:5e:00.0"));
    let bay17 = d.entries.iter().find(|e| e.place == "Bay 17").unwrap();
    assert_eq!(
        bay17.problems,
        ["downtrained: 8.0 GT/s x2 where the plan expects 8.0 GT/s x4"]
    );
    // The SAS bays are behind the PERC: reported, not judged.
    assert_eq!(
        d.entries
            .iter()
            .filter(|e| e.status == DiffStatus::NotVisible)
            .count(),
        12
    );
    let codes: Vec<&str> = d.findings.iter().map(|f| f.code).collect();
    assert_eq!(codes, ["LP0322", "LP0322", "LP0320"]);
}

#[test]
fn r6525_gen3_host_matches_the_gen3_plan_and_not_the_gen4_kit() {
    let host = root().join("tests/fixtures/sysfs/r6525-gen3");
    let gen3 = diff_of(&host, "examples/r6525-pe8010-gen3-backplane.toml");
    assert!(problems(&gen3).is_empty(), "{:?}", problems(&gen3));
    let kit = diff_of(&host, "examples/r6525-pe8010-gen4-kit.toml");
    let want: BTreeMap<String, DiffStatus> = (0..4)
        .map(|b| (format!("Bay {b}"), DiffStatus::Downtrained))
        .collect();
    assert_eq!(problems(&kit), want);
}

#[test]
fn a_drive_on_the_wrong_numa_node_is_a_wrong_socket() {
    let t = tempfile::tempdir().unwrap();
    let host = t.path().join("h");
    let status = std::process::Command::new("cp")
        .args(["-a"])
        .arg(root().join("tests/fixtures/sysfs/r740xd-12nvme"))
        .arg(&host)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(
        host.join("sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/numa_node"),
        "1\n",
    )
    .unwrap();
    let d = diff_of(&host, "examples/r740xd-12nvme-micron9300.toml");
    let p = problems(&d);
    assert_eq!(p.get("Bay 12"), Some(&DiffStatus::WrongSocket), "{p:?}");
}

#[test]
fn cli_audit_against_prints_the_diff_and_fills_bays() {
    let out = assert_cmd::Command::cargo_bin("laneplan")
        .unwrap()
        .current_dir(root())
        .args([
            "audit",
            "--sysfs-root",
            "tests/fixtures/sysfs/r740xd-12nvme",
            "--against",
            "examples/r740xd-12nvme-micron9300.toml",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let bays = v["bays"].as_array().unwrap();
    assert_eq!(bays.len(), 27, "24 bays and 3 cards");
    let d = v["drives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["bdf"] == "0000:b0:00.0")
        .unwrap();
    assert_eq!(d["bay"], "Bay 17");
    let text = assert_cmd::Command::cargo_bin("laneplan")
        .unwrap()
        .current_dir(root())
        .env("NO_COLOR", "1")
        .args([
            "audit",
            "--sysfs-root",
            "tests/fixtures/sysfs/r740xd-12nvme",
            "--against",
            "examples/r740xd-12nvme-micron9300.toml",
        ])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&text.stdout);
    assert!(
        s.contains("Against the plan: R740xd 12 x Micron 9300 + 12 SAS (r740xd)"),
        "{s}"
    );
    assert!(
        s.contains("Bay 23: missing: Micron 9300 PRO 3.84 TB U.2 planned, port 0000:d7:03.0 is empty or its link is down"),
        "{s}"
    );
}
