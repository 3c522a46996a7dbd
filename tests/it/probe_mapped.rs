//! `probe --mapped`: the audit's namespaces become targets with their bay, link and ceiling,
//! in-use namespaces are refused before any I/O, and a run probes exactly the mapped ones.

use crate::common;
use crate::probe_common;

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

use crate::common::laneplan;

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
    // Expected: the ceiling capped by the planned Micron 9300 PRO's 3.5 GB/s each way (the
    // synthetic drives carry no subsystem id, so the part comes from the plan's bay).
    assert_eq!(by("nvme1n1")["target"]["part"], "micron-9300-pro-3.84tb");
    assert_eq!(by("nvme1n1")["target"]["expected_read_gbs"], 3.5);
    assert_eq!(by("nvme1n1")["target"]["expected_write_gbs"], 3.5);
    // Bay 17's x2 link is below the drive's spec: expected is the ceiling.
    assert_eq!(b17["target"]["expected_read_gbs"], 1.796);
}

/// The R6525 capture's four namespaces backed here by plain files of the same names.
fn fake_nodes() -> tempfile::TempDir {
    let dev = tempfile::tempdir().unwrap();
    for i in 0..4 {
        let data: Vec<u8> = (0..4 << 20).map(|b: u32| (b * 7 + i) as u8).collect();
        std::fs::write(dev.path().join(format!("nvme{i}n1")), data).unwrap();
    }
    dev
}

/// The probe itself on mapped targets (the library: `mapped::targets` then `probe::run`),
/// each labelled with its bay and link.
#[test]
fn a_mapped_run_probes_each_namespace_beside_its_ceiling() {
    use laneplan::probe::{self, ProbeOptions, mapped, safety::SafetyChecker};
    use std::sync::{Arc, atomic::AtomicBool};
    let dev = fake_nodes();
    let catalog = laneplan::platform::Catalog::builtin().unwrap();
    let report = laneplan::plan::check_build_file(
        &catalog,
        &root().join("examples/r6525-pe8010-gen3-backplane.toml"),
    )
    .unwrap();
    let mut audit = laneplan::host::audit_sysfs(
        &root().join("tests/fixtures/sysfs/r6525-gen3"),
        None,
        laneplan::host::audit::AuditOptions::default(),
    );
    let diff = laneplan::against::diff(&report.plan, &audit);
    laneplan::audit::with_diff(&mut audit, &diff);
    let targets: Vec<_> = mapped::targets(&audit, Some(&diff), dev.path(), Some(&catalog))
        .into_iter()
        .map(|m| m.target)
        .collect();
    let w = probe::workload::Workload::from_profile(
        "4k-randread",
        &probe::workload::Overrides::default(),
    )
    .unwrap();
    let mut opts = ProbeOptions::new(w);
    opts.bound = probe::engine::Bound::Ios(500);
    opts.ramp = std::time::Duration::ZERO;
    opts.working_set = 1.0;
    let stop = Arc::new(AtomicBool::new(false));
    let r = probe::run(&targets, &opts, &SafetyChecker::default(), &stop, &|_| {}).unwrap();
    let got: Vec<(String, u64, String)> = r
        .devices
        .iter()
        .map(|d| {
            (
                d.label.clone(),
                d.ios,
                d.location.clone().unwrap_or_default(),
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

/// A capture only lists: I/O on its nodes, which this host did not confirm, is refused
/// (exit 2, LP0419) before anything is opened; writes are refused outright.
#[test]
fn a_capture_is_listed_never_probed() {
    let dev = fake_nodes();
    let before: Vec<Vec<u8>> = (0..4)
        .map(|i| std::fs::read(dev.path().join(format!("nvme{i}n1"))).unwrap())
        .collect();
    let base = [
        "probe",
        "--mapped",
        "--sysfs-root",
        "tests/fixtures/sysfs/r6525-gen3",
        "--ios",
        "500",
    ];
    let out = laneplan()
        .args(base)
        .arg("--dev-root")
        .arg(dev.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("LP0419"), "{err}");
    assert!(
        err.contains(&format!(
            "{}/nvme0n1 was not verified on this host ({}/nvme0n1 is not a block device)",
            dev.path().display(),
            dev.path().display()
        )),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let out = laneplan()
        .args(base)
        .args(["--rw", "randwrite", "--write", "--dev-root"])
        .arg(dev.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "is a capture, not this host: probe --mapped only lists and reads there, never writes"
        ),
        "{err}"
    );
    for (i, b) in before.iter().enumerate() {
        assert_eq!(
            &std::fs::read(dev.path().join(format!("nvme{i}n1"))).unwrap(),
            b
        );
    }
    // Listing still works.
    laneplan()
        .args(base)
        .arg("--dry-run")
        .arg("--dev-root")
        .arg(dev.path())
        .assert()
        .success();
}

/// `verify_live` on this host's own devices: a loop device passes under its own name, and
/// fails under another name or as a plain file.
#[test]
fn verify_live_against_a_real_loop_device() {
    use laneplan::probe::mapped::{Mapped, verify_live};
    use laneplan::probe::safety::{Reason, SafetyChecker};
    use laneplan::probe::target::ProbeTarget;
    let Some(l) = probe_common::loop_device("verify_live_against_a_real_loop_device", 1 << 20)
    else {
        return;
    };
    let name = l.dev.file_name().unwrap().to_string_lossy().into_owned();
    let m = |path: &std::path::Path, label: &str| Mapped {
        target: {
            let mut t = ProbeTarget::from_path(path);
            t.label = label.to_string();
            t
        },
        bdf: None,
        model: None,
        refused: None,
    };
    let c = SafetyChecker::default();
    assert_eq!(verify_live(&m(&l.dev, &name), &c), Ok(()));
    let r = verify_live(&m(&l.dev, "nvme0n1"), &c).unwrap_err();
    assert_eq!(
        r.reason,
        Reason::NotVerified {
            node: l.dev.display().to_string(),
            why: format!("it is {name} here, not nvme0n1"),
        }
    );
    let r = verify_live(&m(&l.backing, "nvme0n1"), &c).unwrap_err();
    assert!(matches!(r.reason, Reason::NotVerified { .. }), "{r:?}");
    // A BDF the device does not sit under (a loop device sits under none).
    let mut with_bdf = m(&l.dev, &name);
    with_bdf.bdf = Some(crate::common::pci_addr("0000:01:00.0"));
    assert!(verify_live(&with_bdf, &c).is_err());
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

/// `probe --mapped --dry-run` on two real sysfs captures nobody here made. libnvme's POWER
/// host: two namespaces, nvme1n1 reached through two controllers (multipath) listed once,
/// each located by the slot and NUMA node the capture reports; the capture has no link
/// speed files and no PCI ids, so there is no ceiling and no expected figure (nothing is
/// invented). hwloc's two-node host: one namespace with a partition, no slot, no NUMA node
/// (`numa_node` is -1) and no link: no location at all.
#[test]
fn dry_run_on_real_captures_says_only_what_they_show() {
    let mapped = |root: &std::path::Path| -> Vec<serde_json::Value> {
        let out = laneplan()
            .args(["probe", "--mapped", "--dry-run", "--json", "--sysfs-root"])
            .arg(root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["mapped"].as_array().unwrap().clone()
    };
    let (_d, power) = common::unpack("libnvme-power-nvme-multipath/tree-pcie.tar.xz");
    let m = mapped(&power);
    let rows: Vec<(&str, &str, &str)> = m
        .iter()
        .map(|x| {
            (
                x["target"]["label"].as_str().unwrap(),
                x["bdf"].as_str().unwrap(),
                x["target"]["location"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "nvme0n1",
                "0214:90:00.0",
                "slot U78DA.ND0.WZS004R-P1-C4 > NUMA 1"
            ),
            (
                "nvme1n1",
                "052e:78:00.0",
                "slot U50EE.001.WZS000E-P3-C14-R1 > NUMA 0"
            ),
        ]
    );
    for x in &m {
        for k in [
            "ceiling_read_gbs",
            "ceiling_write_gbs",
            "expected_read_gbs",
            "expected_write_gbs",
            "part",
        ] {
            assert!(x["target"].get(k).is_none(), "{k}: {x}");
        }
    }
    let (_d, hw) = common::unpack("hwloc-2n-nvme-slots/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2");
    let m = mapped(&hw);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["target"]["label"], "nvme0n1");
    assert_eq!(m[0]["bdf"], "0000:00:02.0");
    assert!(m[0]["target"].get("location").is_none(), "{}", m[0]);
    assert!(m[0]["target"].get("ceiling_read_gbs").is_none());
}
