//! `laneplan learn` on every real capture: the files load, `check` exits 0, `bays` draws them,
//! the same capture audited `--against` the learned build matches, and learning twice writes
//! identical bytes.

use crate::common;

use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::laneplan;

/// `--lspci FILE` or `--sysfs-root DIR`.
fn source_args(src: &Source) -> Vec<String> {
    match src {
        Source::Lspci(p) => vec!["--lspci".into(), p.display().to_string()],
        Source::Sysfs(p) => vec!["--sysfs-root".into(), p.display().to_string()],
    }
}

enum Source {
    Lspci(PathBuf),
    Sysfs(PathBuf),
}

/// Learns into `out` with a fixed id; returns the summary JSON.
fn learn(src: &Source, out: &Path) -> serde_json::Value {
    let o = laneplan()
        .arg("learn")
        .args(source_args(src))
        .args(["--id", "learned", "--json", "-o"])
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "learn failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for sub in [dir.to_path_buf(), dir.join("platform")] {
        for e in std::fs::read_dir(&sub).unwrap().flatten() {
            if e.file_type().unwrap().is_file() {
                let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

/// Learns twice, checks, draws and audits against; returns the summary and the statuses of
/// the diff (place -> status).
fn round_trip(src: &Source) -> (serde_json::Value, Vec<(String, String)>) {
    let (summary, st, _) = round_trip_counted(src);
    (summary, st)
}

/// [`round_trip`], also returning (found, planned) as `audit --against` counts them
/// ("N of M planned found").
fn round_trip_counted(src: &Source) -> (serde_json::Value, Vec<(String, String)>, (usize, usize)) {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let summary = learn(src, a.path());
    learn(src, b.path());
    let fa = files_of(a.path());
    assert_eq!(
        fa,
        files_of(b.path()),
        "learning twice wrote different files"
    );
    // Only the files named: no temp files left behind.
    let names: Vec<&str> = fa.keys().map(String::as_str).collect();
    assert!(
        names.iter().all(|n| [
            "build.toml",
            "platform/learned.toml",
            "platform/learned-parts.toml"
        ]
        .contains(n)),
        "{names:?}"
    );
    let pdir = a.path().join("platform");
    let build = a.path().join("build.toml");
    let check = laneplan()
        .arg("--platform-dir")
        .arg(&pdir)
        .arg("check")
        .arg(&build)
        .output()
        .unwrap();
    assert_eq!(
        check.status.code(),
        Some(0),
        "check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let bays = laneplan()
        .arg("--platform-dir")
        .arg(&pdir)
        .arg("bays")
        .arg(&build)
        .output()
        .unwrap();
    assert_eq!(
        bays.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&bays.stderr)
    );
    let audit = laneplan()
        .arg("--platform-dir")
        .arg(&pdir)
        .arg("audit")
        .args(source_args(src))
        .arg("--against")
        .arg(&build)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        matches!(audit.status.code(), Some(0) | Some(1)),
        "{}",
        String::from_utf8_lossy(&audit.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let entries = doc["bays"].as_array().unwrap();
    let planned: Vec<&serde_json::Value> = entries
        .iter()
        .filter(|e| !e["expected"].is_null() && e["status"] != "not-visible")
        .collect();
    let found = planned
        .iter()
        .filter(|e| !e["bdf"].is_null() || e["status"] == "ok")
        .count();
    let counted = (found, planned.len());
    // What the build plans is what `learn` says it planned.
    assert_eq!(
        counted.1 as u64,
        summary["summary"]["planned"].as_u64().unwrap()
    );
    let statuses = doc["bays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["place"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (summary, statuses, counted)
}

fn not_matched(st: &[(String, String)]) -> Vec<(String, String)> {
    st.iter()
        .filter(|(_, s)| s != "ok" && s != "empty")
        .cloned()
        .collect()
}

fn count(summary: &serde_json::Value, k: &str) -> u64 {
    summary["summary"][k].as_u64().unwrap()
}

#[test]
fn r7525_dump_learns_its_eight_nvme_ports_by_slot_number() {
    let src = Source::Lspci(lspci_dump("r7525"));
    let (summary, st) = round_trip(&src);
    assert_eq!(count(&summary, "bays"), 8);
    // Slot 2, and the onboard position of the port without a slot number (60:03.1).
    assert_eq!(count(&summary, "slots"), 2);
    assert_eq!(count(&summary, "switches"), 0);
    // Bays numbered by slot number: bay 0 is slot 160 (0000:c0:01.4, drive c4:00.0),
    // bay 1 slot 161 (c0:01.3, drive c3:00.0): both drives found, the other six empty.
    let ok: Vec<&str> = st
        .iter()
        .filter(|(_, s)| s == "ok")
        .map(|(p, _)| p.as_str())
        .collect();
    assert_eq!(ok, ["Bay 0", "Bay 1", "Onboard at 0000:60:03.1", "Slot 2"]);
    assert_eq!(st.iter().filter(|(_, s)| s == "empty").count(), 6);
    assert!(not_matched(&st).is_empty(), "{st:?}");
    let dir = tempfile::tempdir().unwrap();
    learn(&src, dir.path());
    let plat = std::fs::read_to_string(dir.path().join("platform/learned.toml")).unwrap();
    assert!(plat.contains("to = \"rp-0000-c0-01-4\"\nslot_numbers = \"160\"\n"));
    assert!(plat.contains("locator = [\"0000:c0:01.4\", \"0000:c4\"]"));
    let build = std::fs::read_to_string(dir.path().join("build.toml")).unwrap();
    // The drives are the catalogue's PM173X, found by its pci ids: no new part.
    assert!(build.contains("[[bay]]\nbays = \"0\"\npart = \"samsung-pm173x-dell\""));
    assert_eq!(count(&summary, "parts_reused"), 3);
    assert_eq!(count(&summary, "parts_new"), 0);
}

#[test]
fn r7515_dump_learns_two_switches_with_slots_128_to_139_and_160_to_171() {
    let src = Source::Lspci(lspci_dump("r7515"));
    let (summary, st) = round_trip(&src);
    assert_eq!(count(&summary, "switches"), 2);
    assert_eq!(count(&summary, "bays"), 24);
    let dir = tempfile::tempdir().unwrap();
    learn(&src, dir.path());
    let plat = std::fs::read_to_string(dir.path().join("platform/learned.toml")).unwrap();
    // Bays numbered by slot number, listed in port address order (42:00.0 is Slot #131).
    assert!(plat.contains(
        "bays = \"3,2,1,0,7,6,5,4,11,10,9,8\"\nsize = \"2.5\"\ninterfaces = [\"nvme\"]\nvia = \"switch\"\nto = \"switch-0000-41-00-0\"\nslot_numbers = \"131,130,129,128,135,134,133,132,139,138,137,136\"\n"
    ));
    assert!(plat.contains(
        "bays = \"15,14,13,12,19,18,17,16,23,22,21,20\"\nsize = \"2.5\"\ninterfaces = [\"nvme\"]\nvia = \"switch\"\nto = \"switch-0000-81-00-0\"\nslot_numbers = \"163,162,161,160,167,166,165,164,171,170,169,168\"\n"
    ));
    assert_eq!(st.iter().filter(|(_, s)| s == "empty").count(), 24);
    // The Intel 8087:0491 card's virtual function 03:01.0 is part of the card in slot 5.
    assert!(not_matched(&st).is_empty(), "{st:?}");
}

#[test]
fn r7515_every_element_matched() {
    let (_, st) = round_trip(&Source::Lspci(lspci_dump("r7515")));
    assert!(not_matched(&st).is_empty(), "{st:?}");
}

#[test]
fn r7425_dump_learns_slots_and_onboard_devices() {
    let src = Source::Lspci(lspci_dump("r7425"));
    let (summary, st) = round_trip(&src);
    // Slots 1 and 3, and the rNDC's onboard position (00:01.1, no slot number).
    assert_eq!(count(&summary, "slots"), 3);
    assert_eq!(count(&summary, "bays"), 0);
    // The GRID K2 (two GPUs behind a PEX 8747 on one card) is one part in slot 1; its
    // second GPU belongs to the card and its idle 2.5 GT/s link is a note, not a downtrain.
    assert!(not_matched(&st).is_empty(), "{st:?}");
    assert!(st.contains(&("Slot 1".to_string(), "ok".to_string())));
    assert!(st.contains(&("Slot 3".to_string(), "ok".to_string())));
}

#[test]
fn r7425_every_element_matched() {
    let (_, st) = round_trip(&Source::Lspci(lspci_dump("r7425")));
    assert!(not_matched(&st).is_empty(), "{st:?}");
}

#[test]
fn r740xd_dump_learns_onboard_devices() {
    let (summary, st) = round_trip(&Source::Lspci(lspci_dump("r740xd")));
    // BCM5720 LOM below a PCH port, the BCM57416 and HBA330 below CPU ports: onboard
    // positions (slots without a number), planned in the build. The iDRAC's video (behind
    // its PCIe-to-PCI bridge) and the C620 SATA controller on the root bus are platform
    // functions (#9): shown in the tree, never parts of a build.
    assert_eq!(count(&summary, "builtins"), 0);
    assert_eq!(count(&summary, "slots"), 3);
    assert!(not_matched(&st).is_empty(), "{st:?}");
}

#[test]
fn sysfs_captures_learn_and_match() {
    for (tar, slots, builtins, sockets) in [
        // Two Xeon Phi in slots; I350 and ASPEED video on ports without a slot number
        // (onboard positions); a P3700 whose port the capture lacks (on the root bus) onboard.
        // Two packages (physical_package_id 0 and 1).
        (
            "hwloc-2n-nvme-slots/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2",
            4,
            1,
            2,
        ),
        // Two PLX switches holding NICs and Vector Engines: no bays, so each root port's
        // first device is taken as an onboard position.
        ("hwloc-skx-2plx-ve/32intel64-2p8co2t+8ve.tar.bz2", 3, 0, 2),
        // Three NVMe controllers, each on its own root bus with no port and no class: bays
        // (tests/it/rootbus.rs), no builtins; one socket per NUMA node 0, 1, 2.
        ("libnvme-power-nvme-multipath/tree-pcie.tar.xz", 0, 0, 3),
        (
            "libnvme-power-nvme-multipath/tree-apple-nvme.tar.xz",
            0,
            0,
            1,
        ),
    ] {
        let (_tmp, root) = unpack(tar);
        let (summary, st) = round_trip(&Source::Sysfs(root));
        assert_eq!(count(&summary, "slots"), slots, "{tar}");
        assert_eq!(count(&summary, "builtins"), builtins, "{tar}");
        assert_eq!(count(&summary, "sockets"), sockets, "{tar}: {summary}");
        // The skx capture's device below 5d:02.0 runs below its link maximum: now that its
        // onboard position is planned, the audit against the build says so.
        let want: Vec<(String, String)> = if tar.starts_with("hwloc-skx") {
            vec![("Onboard at 0000:5d:02.0".into(), "downtrained".into())]
        } else {
            vec![]
        };
        assert_eq!(not_matched(&st), want, "{tar}: {st:?}");
    }
}

/// `learn --host` on the machine running the tests (CI-sensitive: what it finds depends on
/// the machine; on this project's VM, virtio devices only). The files must still be valid.
#[test]
fn learn_host_writes_valid_files() {
    if !Path::new("/sys/bus/pci").is_dir() {
        assert!(
            std::env::var("CI").is_err(),
            "CI machines must have /sys/bus/pci for this test"
        );
        eprintln!("SKIP learn_host_writes_valid_files: no /sys/bus/pci here");
        return;
    }
    let (summary, st) = round_trip(&Source::Sysfs(PathBuf::from("/")));
    assert!(count(&summary, "sockets") >= 1);
    // Something is learned from any host with a PCI device: on this project's VM, one root
    // bus with its virtio devices as onboard devices.
    let has_pci = std::fs::read_dir("/sys/bus/pci/devices")
        .map(|d| d.count() > 0)
        .unwrap_or(false);
    if has_pci {
        assert!(count(&summary, "root_complexes") >= 1, "{summary}");
    }
    assert!(not_matched(&st).is_empty(), "{st:?}");
    // --host is --sysfs-root /.
    let dir = tempfile::tempdir().unwrap();
    laneplan()
        .args(["learn", "--host", "--id", "learned", "-o"])
        .arg(dir.path())
        .assert()
        .success();
}

#[test]
fn learn_needs_a_source() {
    let dir = tempfile::tempdir().unwrap();
    let o = laneplan()
        .arg("learn")
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--host, --sysfs-root DIR or --lspci FILE")
    );
    let o = laneplan()
        .args(["learn", "--sysfs-root", "/nonexistent-root", "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// The learned R7525 files as text (relative input path, so the snapshot is the same on
/// every machine).
#[test]
fn r7525_learned_files_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let rel = lspci_dump("r7525")
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap()
        .to_path_buf();
    laneplan()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("learn")
        .arg("--lspci")
        .arg(&rel)
        .args(["--id", "learned", "-o"])
        .arg(dir.path())
        .assert()
        .success();
    let plat = std::fs::read_to_string(dir.path().join("platform/learned.toml")).unwrap();
    let build = std::fs::read_to_string(dir.path().join("build.toml")).unwrap();
    assert!(!dir.path().join("platform/learned-parts.toml").exists());
    insta::assert_snapshot!("learned_r7525_platform", plat);
    insta::assert_snapshot!("learned_r7525_build", build);
}

#[test]
fn unwritable_output_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let o = laneplan()
        .arg("learn")
        .args(source_args(&Source::Lspci(lspci_dump("r7525"))))
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write into"));
}

/// Our own sysfs trees (generated, with faults on purpose): what the host shows wrong stays
/// wrong against the learned plan, which holds what the parts and ports can do.
#[test]
fn own_sysfs_trees_keep_their_faults() {
    // Onboard positions are planned and found too: r740xd-12nvme 17:02.0 and 3a:02.0,
    // r6525-gen3 00:05.1.
    for (name, ok, downtrained) in [("r740xd-12nvme", 12, 2), ("r6525-gen3", 1, 4)] {
        let (_tmp, root) = own_copy(name);
        let (_, st) = round_trip(&Source::Sysfs(root));
        let n = |s: &str| st.iter().filter(|(_, x)| x == s).count();
        // r6525-gen3: Gen4 drives and ports, links at Gen3 (the Gen3 backplane the host
        // cannot see); r740xd-12nvme: two drives trained below their ports on purpose.
        assert_eq!(
            (n("ok"), n("downtrained")),
            (ok, downtrained),
            "{name}: {st:?}"
        );
        assert_eq!(st.len(), ok + downtrained, "{name}: {st:?}");
    }
}
