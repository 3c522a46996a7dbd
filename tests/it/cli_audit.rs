//! The binary: text, --json, --prometheus, gather, exit codes; snapshots of text and JSON.

use crate::common;

use common::*;
use predicates::prelude::*;

fn laneplan() -> assert_cmd::Command {
    crate::common::laneplan_wide()
}

fn ids() -> String {
    fixtures().join("pci.ids").display().to_string()
}

fn own(name: &str) -> String {
    fixtures().join("sysfs").join(name).display().to_string()
}

fn run_text(root: &str) -> (String, i32) {
    let out = laneplan()
        .args(["audit", "--sysfs-root", root, "--pci-ids", &ids()])
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

fn run_json(root: &str) -> serde_json::Value {
    let out = laneplan()
        .args(["audit", "--json", "--sysfs-root", root, "--pci-ids", &ids()])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).expect("stdout is only JSON")
}

#[test]
fn snapshots_of_every_fixture() {
    let (_a, plx) = unpack("hwloc-skx-2plx-ve/32intel64-2p8co2t+8ve.tar.bz2");
    let (_b, slots) = unpack("hwloc-2n-nvme-slots/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2");
    let (_c, mp) = unpack("libnvme-power-nvme-multipath/tree-pcie.tar.xz");
    let (_d, apple) = unpack("libnvme-power-nvme-multipath/tree-apple-nvme.tar.xz");
    let roots = [
        ("hwloc-skx-2plx-ve", plx.display().to_string()),
        ("hwloc-2n-nvme-slots", slots.display().to_string()),
        ("libnvme-tree-pcie", mp.display().to_string()),
        ("libnvme-tree-apple-nvme", apple.display().to_string()),
        ("r740xd-12nvme", own("r740xd-12nvme")),
        ("r6525-gen3", own("r6525-gen3")),
    ];
    for (name, root) in roots {
        let (text, _) = run_text(&root);
        insta::assert_snapshot!(format!("{name}.txt"), text);
        let mut json = run_json(&root);
        // The roots are tempdirs: keep them out of the snapshot.
        json["source"] = "[root]".into();
        json["names"] = "[pci.ids]".into();
        insta::assert_json_snapshot!(format!("{name}.json"), json);
    }
    let dump =
        fixtures().join("shared/lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt");
    let out = laneplan()
        .args(["audit", "--lspci"])
        .arg(&dump)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("lspci-r740xd.txt", String::from_utf8(out.stdout).unwrap());
}

#[test]
fn exit_codes() {
    // Clean (notes and warnings only): 0.
    laneplan()
        .args([
            "audit",
            "--sysfs-root",
            &fixtures().join("sysfs/r740xd-12nvme").display().to_string(),
            "--aer-threshold",
            "100",
        ])
        .assert()
        .code(1); // downtrained links and non-fatal AER are errors
    let (text, code) = run_text(&own("r6525-gen3"));
    assert_eq!(code, 1);
    assert!(text.contains("4 errors, 0 warnings, 1 note"), "{text}");
    // Input errors: 2.
    laneplan()
        .args(["audit", "--sysfs-root", "/nonexistent/root"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no sys/ directory"));
    laneplan()
        .args(["audit", "--lspci", "/nonexistent/dump.txt"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("cannot read /nonexistent/dump.txt: no such file")
                // No fake location and no empty snippet box for a file that does not exist.
                .and(predicate::str::contains(":1:1").not())
                .and(predicate::str::contains("╭").not()),
        );
    laneplan()
        .args(["audit", "--lspci", "x", "--sysfs-root", "/"])
        .assert()
        .code(2);
    let (_a, plx) = unpack("hwloc-skx-2plx-ve/32intel64-2p8co2t+8ve.tar.bz2");
    laneplan()
        .args(["audit", "--sysfs-root"])
        .arg(&plx)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("0 errors, 2 warnings, 1 note"));
}

#[test]
fn json_is_versioned_and_alone_on_stdout() {
    let v = run_json(&own("r6525-gen3"));
    assert_eq!(v["schema_version"], 2);
    assert_eq!(v["functions"].as_array().unwrap().len(), 12);
    assert_eq!(
        v["drives"][0]["link"],
        serde_json::json!({"gen": 3, "width": 4})
    );
    assert_eq!(v["drives"][0]["link_status"], "downtrained");
    assert_eq!(v["drives"][0]["bay"], serde_json::Value::Null);
    assert_eq!(v["findings"][0]["code"], "LP0302");
}

#[test]
fn prometheus_textfile() {
    let t = tempfile::tempdir().unwrap();
    let prom = t.path().join("laneplan.prom");
    laneplan()
        .args([
            "audit",
            "--sysfs-root",
            &own("r740xd-12nvme"),
            "--pci-ids",
            &ids(),
            "--prometheus",
        ])
        .arg(&prom)
        .assert()
        .code(1);
    let text = std::fs::read_to_string(&prom).unwrap();
    assert!(text.ends_with('\n'));
    // No temp file left beside it.
    assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1);
    let mut series = std::collections::BTreeSet::new();
    let mut types = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            assert!(
                rest.ends_with(" gauge") || rest.ends_with(" counter"),
                "{line}"
            );
            types += 1;
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        let (name, value) = line.rsplit_once(' ').unwrap();
        value.parse::<f64>().unwrap();
        assert!(series.insert(name.to_string()), "duplicate series {name}");
    }
    // Five link gauges, the AER counter, the plan places (no series without --against), findings.
    assert_eq!(types, 8);
    assert!(text.contains(
        "laneplan_pcie_link_downtrained{pci=\"0000:b0:00.0\",device=\"nvme5n1\",serial=\"1941002A5F06\",slot=\"4-2\",bay=\"\",model=\"Micron_9300_MTFDHAL3T8TDP\"} 1\n"
    ));
    // 2.5 GT/s in base units: transfers per second.
    assert!(text.contains(
        "laneplan_pcie_link_speed_transfers_per_second{pci=\"0000:d9:00.0\",device=\"nvme9n1\",serial=\"1941002A5F0A\",slot=\"8-2\",bay=\"\",model=\"Micron_9300_MTFDHAL3T8TDP\"} 2500000000\n"
    ));
    assert!(text.contains(
        "laneplan_pcie_aer_errors_total{pci=\"0000:5d:02.0\",device=\"\",serial=\"\",slot=\"\",bay=\"\",model=\"Intel Corporation Sky Lake-E PCI Express Root Port C\",aer_severity=\"correctable\"} 57\n"
    ));
    assert!(text.contains("laneplan_audit_findings{severity=\"error\"} 3\n"));
}

#[test]
fn gather_then_replay_via_the_cli() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("host.tar.gz");
    laneplan()
        .args(["gather", "--sysfs-root", &own("r6525-gen3")])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("12 functions, 4 NVMe controllers"));
    let un = t.path().join("u");
    std::fs::create_dir(&un).unwrap();
    let f = std::fs::File::open(&out).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(f))
        .unpack(&un)
        .unwrap();
    let (a, ca) = run_text(&own("r6525-gen3"));
    let (b, cb) = run_text(&un.display().to_string());
    assert_eq!((a, ca), (b, cb));
}
