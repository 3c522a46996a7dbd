//! `probe --mapped`: the audit's namespaces become targets with their bay, link and ceiling,
//! in-use namespaces are refused before any I/O, and a run probes exactly the mapped ones.

use assert_cmd::Command;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn laneplan() -> Command {
    let mut c = Command::cargo_bin("laneplan").unwrap();
    c.current_dir(root());
    c
}

#[test]
fn dry_run_maps_every_namespace_with_bay_link_ceiling_and_safety() {
    let out = laneplan()
        .args([
            "probe",
            "--mapped",
            "--sysfs-root",
            "tests/fixtures/sysfs/r740xd-12nvme",
            "--against",
            "examples/r740xd-12nvme-micron9300.toml",
            "--dry-run",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = v["mapped"].as_array().unwrap();
    assert_eq!(m.len(), 11, "12 bays planned, one empty");
    let by = |label: &str| m.iter().find(|x| x["target"]["label"] == label).unwrap();
    // Mounted (a partition of it): refused whatever the flags.
    assert_eq!(by("nvme0n1")["refused"], "mounted at /data 0");
    assert_eq!(by("nvme1n1")["refused"], serde_json::Value::Null);
    // Bay 17 trained x2: its ceiling is the x2 link's, direction-aware (docs/bandwidth.md).
    // By hand: 8 GT/s x 2 / 8 = 2.0 GB/s; 128/130 and SKIP 375/376: 1.963994; MWr 256/280:
    // 1.795651.
    let b17 = by("nvme5n1");
    assert_eq!(
        b17["target"]["location"],
        "Bay 17 > slot 4-2 > port 0000:ae:01.0 > NUMA 1, 8.0 GT/s x2"
    );
    assert_eq!(b17["target"]["ceiling_read_gbs"], 1.796);
    // Bay 21 trained at 2.5 GT/s x4: 1.0 GB/s x 0.8 x (1 - 4/1538) = 0.997399; x 256/280 =
    // 0.911908.
    assert_eq!(by("nvme9n1")["target"]["ceiling_read_gbs"], 0.912);
    // Gen3 x4: 3.591302 to host; to device 3.927987 x 512/562.3178 = 3.576500 (rounds to
    // 3.576: 3576.4997 in f64).
    assert_eq!(by("nvme1n1")["target"]["ceiling_read_gbs"], 3.591);
    assert_eq!(by("nvme1n1")["target"]["ceiling_write_gbs"], 3.576);
}

#[test]
fn a_mapped_run_probes_each_namespace_beside_its_ceiling() {
    // The R6525 capture's four namespaces, backed here by files of the same names.
    let dev = tempfile::tempdir().unwrap();
    for i in 0..4 {
        let data: Vec<u8> = (0..4 << 20).map(|b: u32| (b * 7 + i) as u8).collect();
        std::fs::write(dev.path().join(format!("nvme{i}n1")), data).unwrap();
    }
    let out = laneplan()
        .args([
            "probe",
            "--mapped",
            "--sysfs-root",
            "tests/fixtures/sysfs/r6525-gen3",
            "--against",
            "examples/r6525-pe8010-gen3-backplane.toml",
            "--ios",
            "500",
            "--working-set",
            "100%",
            "--json",
            "--dev-root",
        ])
        .arg(dev.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let devs = v["devices"].as_array().unwrap();
    let got: Vec<(String, u64, String)> = devs
        .iter()
        .map(|d| {
            (
                d["label"].as_str().unwrap().to_string(),
                d["ios"].as_u64().unwrap(),
                d["location"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        (0..4)
            .map(|i| (
                format!("nvme{i}n1"),
                500,
                format!(
                    "Bay {i} > slot {} > port 0000:00:01.{} > NUMA 0, 8.0 GT/s x4",
                    i + 1,
                    i + 1
                )
            ))
            .collect::<Vec<_>>()
    );
}

#[test]
fn mapped_needs_a_host_root() {
    laneplan()
        .args([
            "probe",
            "--mapped",
            "--sysfs-root",
            "/nonexistent",
            "--dry-run",
        ])
        .assert()
        .code(2);
}
