//! Plan against host: the synthetic hosts audited against the example builds they mirror.
//! Each diff names exactly the problems planted in the fixture, and nothing else.

use crate::common::{as_text, pci_addr};
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
    // Nine NVMe bays, the three extender cards, the PERC, the rNDC and the BOSS are where the
    // plan puts them.
    assert_eq!(ok.len(), 15, "{ok:?}");
    assert!(ok.contains(&"rNDC") && ok.contains(&"Slot 2"));
    let bay12 = d.entries.iter().find(|e| e.place == "Bay 12").unwrap();
    assert_eq!(as_text(&bay12.bdf).as_deref(), Some("0000:5e:00.0"));
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
    let codes: Vec<&str> = d.findings.iter().map(|f| f.code.as_str()).collect();
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
    assert_eq!(bays.len(), 30, "24 bays, 3 cards and 3 extender cards");
    let d = v["drives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["bdf"] == "0000:b0:00.0")
        .unwrap();
    assert_eq!(d["bay"], 17, "the bay as a number, as in the bays diff");
    let text = assert_cmd::Command::cargo_bin("laneplan")
        .unwrap()
        .current_dir(root())
        .env("NO_COLOR", "1")
        .args([
            "--wide",
            "--utf8",
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

// ---------------------------------------------------------------- real captures

const R740XD: &str =
    "tests/fixtures/shared/lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt";
const R7425: &str =
    "tests/fixtures/shared/lspci-r7425/dell-r7425-ubuntu2404-1C2794FDE243.lspci-vvnn.txt";
const R7515: &str =
    "tests/fixtures/shared/lspci-r7515/dell-r7515-ubuntu2004-510A7BE2AFDD.lspci-vvnn.txt";
const R7525: &str =
    "tests/fixtures/shared/lspci-r7525/dell-r7525-debian11-23F136DC785E.lspci-vvnn.txt";

fn lspci_audit(rel: &str) -> laneplan::host::audit::Audit {
    let text = std::fs::read_to_string(root().join(rel)).unwrap();
    host::audit_lspci(&text, rel, AuditOptions::default())
}

fn against_capture(rel: &str, build: &str) -> (laneplan::host::audit::Audit, against::Diff) {
    let mut audit = lspci_audit(rel);
    let catalog = Catalog::builtin().unwrap();
    let report = plan::check_build_file(&catalog, &root().join(build)).unwrap();
    let d = against::diff_in(&report.plan, &audit, Some(&catalog));
    laneplan::audit::with_diff(&mut audit, &d);
    (audit, d)
}

/// (code, subject place) of every error and warning.
fn errors_and_warnings(a: &laneplan::host::audit::Audit) -> Vec<(String, String)> {
    a.findings
        .iter()
        .filter(|f| f.severity != laneplan::finding::Severity::Note)
        .map(|f| {
            (
                f.code.to_string(),
                f.message.split(':').next().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn r740xd_capture_against_the_reviewed_build_names_wrong_parts_and_missing_only() {
    let (audit, d) = against_capture(R740XD, "examples/r740xd-12nvme-micron9300.toml");
    // No finding about any CPU or chipset function.
    let platform: Vec<String> = audit
        .functions
        .iter()
        .filter(|f| f.kind == laneplan::host::tree::FnKind::Platform)
        .map(|f| f.bdf.to_string())
        .collect();
    assert_eq!(platform.len(), 185);
    for f in &audit.findings {
        let node = f.location.node.clone().unwrap_or_default();
        assert!(
            !platform.iter().any(|p| node.ends_with(p)),
            "finding about a platform function: {f:?}"
        );
    }
    let mut want: Vec<(String, String)> = (12..=23)
        .map(|b| ("LP0320".to_string(), format!("Bay {b}")))
        .collect();
    want.extend([
        ("LP0324".into(), "Integrated storage controller slot".into()),
        ("LP0324".into(), "rNDC".into()),
        ("LP0320".into(), "Slot 1".into()),
        ("LP0320".into(), "Slot 2".into()),
        ("LP0320".into(), "Slot 4".into()),
        ("LP0320".into(), "Slot 8".into()),
    ]);
    let mut got = errors_and_warnings(&audit);
    got.sort();
    want.sort();
    assert_eq!(got, want);
    // The one note is the PCH root port feeding the onboard LOM at its own speed.
    let notes: Vec<&str> = audit
        .findings
        .iter()
        .filter(|f| f.severity == laneplan::finding::Severity::Note)
        .map(|f| f.code.as_str())
        .collect();
    assert_eq!(notes, ["LP0305"]);
    // Wrong parts name both, from the PCI ids.
    let perc = d
        .entries
        .iter()
        .find(|e| e.slot.as_deref() == Some("mini-perc"))
        .unwrap();
    assert_eq!(perc.status, DiffStatus::WrongPart);
    assert_eq!(perc.expected.as_deref(), Some("PERC H740P Mini"));
    assert_eq!(perc.found_part.as_deref(), Some("hba330-mini"));
    assert_eq!(perc.found_ids.as_deref(), Some("1000:0097"));
    assert_eq!(as_text(&perc.found_subsystem).as_deref(), Some("1028:1f53"));
    assert_eq!(
        perc.problems,
        [
            "wrong part: planned PERC H740P Mini (1000:0016), found HBA330 Mini (Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (Dell HBA330 Mini))"
        ]
    );
    let ndc = d
        .entries
        .iter()
        .find(|e| e.slot.as_deref() == Some("rndc"))
        .unwrap();
    assert_eq!(ndc.status, DiffStatus::WrongPart);
    assert_eq!(
        ndc.expected.as_deref(),
        Some("Broadcom 57414 2 x 25GbE rNDC")
    );
    assert_eq!(ndc.found_part.as_deref(), Some("broadcom-57416-rndc"));
    assert!(ndc.problems[0].contains("found Broadcom 57416 2 x 10GBASE-T rNDC"));
    // The part name carries the subsystem name, as lspci -vv prints it.
    assert_eq!(
        audit.function(pci_addr("0000:3b:00.0")).unwrap().name,
        "Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (Dell HBA330 Mini)"
    );
    // The two wrong parts (the HBA330 and the 57416 rNDC) are not the planned parts found.
    assert_eq!(d.found_count(), (0, 18));
}

#[test]
fn r740xd_capture_against_its_own_build_is_clean() {
    let (audit, d) = against_capture(R740XD, "examples/hosts/r740xd-62F4A9812E0F.toml");
    assert!(!audit.has_errors());
    assert_eq!(errors_and_warnings(&audit), Vec::<(String, String)>::new());
    let got: Vec<(&str, DiffStatus)> = d
        .entries
        .iter()
        .map(|e| (e.place.as_str(), e.status))
        .collect();
    assert_eq!(
        got,
        [
            ("Integrated storage controller slot", DiffStatus::Ok),
            ("rNDC", DiffStatus::Ok)
        ]
    );
    assert_eq!(d.found_count(), (2, 2));
    let out = assert_cmd::Command::cargo_bin("laneplan")
        .unwrap()
        .current_dir(root())
        .args([
            "audit",
            "--lspci",
            R740XD,
            "--against",
            "examples/hosts/r740xd-62F4A9812E0F.toml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 of 2 planned found"));
}

#[test]
fn every_real_capture_has_no_unexpected_platform_function_and_no_false_downtrain() {
    for rel in [R740XD, R7425, R7515, R7525] {
        let a = lspci_audit(rel);
        let bad: Vec<_> = a
            .findings
            .iter()
            .filter(|f| f.severity != laneplan::finding::Severity::Note)
            .collect();
        assert!(bad.is_empty(), "{rel}: {bad:#?}");
        assert!(
            a.functions
                .iter()
                .filter(|f| f.kind == laneplan::host::tree::FnKind::Device)
                .all(|f| as_text(&f.class)
                    .as_deref()
                    .is_none_or(|c| !c.starts_with("0x06")
                        && !c.starts_with("0x13")
                        && !c.starts_with("0x0880"))),
            "{rel}: a platform class left as a device"
        );
    }
    // The R740xd against the reviewed build: not one `unexpected`.
    let (audit, _) = against_capture(R740XD, "examples/r740xd-12nvme-micron9300.toml");
    assert!(!audit.findings.iter().any(|f| f.code == "LP0321"));
}

#[test]
fn r7425_idle_gpus_are_a_note_with_how_to_recheck() {
    let a = lspci_audit(R7425);
    let gpus: Vec<_> = a.findings.iter().filter(|f| f.code == "LP0313").collect();
    assert_eq!(gpus.len(), 2);
    for f in &gpus {
        assert_eq!(f.severity, laneplan::finding::Severity::Note);
        assert!(f.help.as_deref().unwrap().contains("re-check under load"));
    }
    assert_eq!(
        gpus.iter()
            .map(|f| f.subject.clone().unwrap())
            .collect::<Vec<_>>(),
        [
            laneplan::finding::Subject::Device {
                bdf: pci_addr("0000:43:00.0")
            },
            laneplan::finding::Subject::Device {
                bdf: pci_addr("0000:44:00.0")
            }
        ]
    );
    assert!(!a.findings.iter().any(|f| f.code == "LP0302"));
}

#[test]
fn r7525_nvme_drives_carry_their_physical_slots_160_and_161() {
    let a = lspci_audit(R7525);
    let got: Vec<(Option<String>, Option<u32>)> = a
        .drives
        .iter()
        .map(|d| (as_text(&d.bdf), d.slot_number))
        .collect();
    assert_eq!(
        got,
        [
            (Some("0000:c3:00.0".into()), Some(161)),
            (Some("0000:c4:00.0".into()), Some(160))
        ]
    );
    let empty: Vec<Option<u32>> = a.empty_ports.iter().map(|p| p.slot_number).collect();
    assert_eq!(
        empty,
        [
            Some(167),
            Some(166),
            Some(165),
            Some(164),
            Some(163),
            Some(162)
        ]
    );
}

#[test]
fn bays_match_by_physical_slot_number_on_the_r7525_capture() {
    // The R740xd platform with slot numbers 160-171 on its twelve NVMe bays: the R7525's
    // drives (slots 160, 161) land in bays 12 and 13 by number, whatever their addresses.
    let text = std::fs::read_to_string(root().join("platforms/r740xd.toml")).unwrap();
    let text = text
        .replacen("id = \"r740xd\"", "id = \"slotted\"", 1)
        .replacen(
            "bays = \"12-15\"\n",
            "bays = \"12-15\"\nslot_numbers = \"160-163\"\n",
            1,
        )
        .replacen(
            "bays = \"16-19\"\n",
            "bays = \"16-19\"\nslot_numbers = \"164-167\"\n",
            1,
        )
        .replacen(
            "bays = \"20-23\"\n",
            "bays = \"20-23\"\nslot_numbers = \"168-171\"\n",
            1,
        );
    let mut catalog = Catalog::builtin().unwrap();
    catalog
        .add_file(laneplan::source::SourceFile::new("slotted.toml", text))
        .unwrap();
    let build = "platform = \"slotted\"\n[options]\nfront = \"12nvme-12sas\"\n[[slot]]\nslot = \"slot1\"\npart = \"dell-nvme-extender-bridge\"\n[[slot]]\nslot = \"slot4\"\npart = \"dell-nvme-extender-bridge\"\n[[slot]]\nslot = \"slot8\"\npart = \"dell-nvme-extender-bridge\"\n[[bay]]\nbays = \"12-13\"\npart = \"micron-9300-pro-3.84tb\"\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("slotted-build.toml");
    std::fs::write(&path, build).unwrap();
    let (b, file) = plan::load_build(&path).expect("build parses");
    let report = plan::check_build(&catalog, &b, file).unwrap();
    let audit = lspci_audit(R7525);
    let d = against::diff_in(&report.plan, &audit, Some(&catalog));
    let row = |n: u32| d.entries.iter().find(|e| e.bay == Some(n)).unwrap();
    assert_eq!(row(12).slot_number, Some(160));
    assert_eq!(row(12).method, against::MatchMethod::PhysicalSlot);
    assert_eq!(as_text(&row(12).bdf).as_deref(), Some("0000:c4:00.0"));
    assert_eq!(row(13).slot_number, Some(161));
    assert_eq!(as_text(&row(13).bdf).as_deref(), Some("0000:c3:00.0"));
    // A Samsung PM173X where a Micron 9300 is planned, on another socket than the platform's.
    assert_eq!(
        row(12).problems,
        [
            "wrong part: planned Micron 9300 PRO 3.84 TB U.2 (1344:51b1), found Samsung PM173X U.2 (Dell) (Samsung Electronics Co Ltd NVMe SSD Controller PM173X (Dell NVMe SSD Controller PM173X))",
            "wrong socket: planned on CPU1, found on NUMA node 5"
        ]
    );
    assert_eq!(row(14).status, DiffStatus::Empty);
    assert_eq!(row(14).method, against::MatchMethod::PhysicalSlot);
    assert_eq!(row(20).method, against::MatchMethod::None);
}

#[test]
fn r7515_empty_backplane_ports_are_named_by_slot_and_summarised() {
    let a = lspci_audit(R7515);
    let mut numbers: Vec<u32> = a.empty_ports.iter().filter_map(|p| p.slot_number).collect();
    numbers.sort_unstable();
    let want: Vec<u32> = (128..=139).chain(160..=171).collect();
    assert_eq!(numbers, want);
    let notes: Vec<&str> = a
        .findings
        .iter()
        .filter(|f| f.code == "LP0304")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        notes,
        [
            "12 empty ports (slots 128-139) below switch 0000:41:00.0: nothing below, no link",
            "12 empty ports (slots 160-171) below switch 0000:81:00.0: nothing below, no link"
        ]
    );
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["empty_ports"].as_array().unwrap().len(), 24);
    // --verbose lists each port.
    let out = assert_cmd::Command::cargo_bin("laneplan")
        .unwrap()
        .current_dir(root())
        .args(["audit", "--lspci", R7515, "--verbose"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("0000:42:03.0  slot 128  below switch 0000:41:00.0, hot-plug"));
    assert_eq!(text.matches(", hot-plug").count(), 24);
}

/// A card is its slot's whole subtree: the R7515's slot 5 card and its SR-IOV virtual
/// function 03:01.0 are one card, and the R7425's GRID K2 (two GPUs behind the card's own
/// PEX 8747 switch) is one card in slot 1, matched by the slot number on the root port above
/// the card's switch; its idle GPU's 2.5 GT/s link is the audit's note, not a downtrain.
#[test]
fn a_card_is_its_slots_whole_subtree_vfs_and_gpus_behind_its_switch() {
    let (_, d) = against_capture(R7515, "examples/hosts/r7515.toml");
    assert!(!d.entries.iter().any(|e| e.status == DiffStatus::Unexpected));
    let slot5 = d.entries.iter().find(|e| e.place == "Slot 5").unwrap();
    assert_eq!(
        (slot5.status, as_text(&slot5.bdf).as_deref(), slot5.method),
        (
            DiffStatus::Ok,
            Some("0000:03:00.0"),
            against::MatchMethod::PhysicalSlot
        )
    );
    let (a, d) = against_capture(R7425, "examples/hosts/r7425.toml");
    assert!(
        !d.entries
            .iter()
            .any(|e| as_text(&e.bdf).as_deref() == Some("0000:44:00.0"))
    );
    let slot1 = d.entries.iter().find(|e| e.place == "Slot 1").unwrap();
    assert_eq!(
        (slot1.status, as_text(&slot1.bdf).as_deref(), slot1.method),
        (
            DiffStatus::Ok,
            Some("0000:43:00.0"),
            against::MatchMethod::PhysicalSlot
        )
    );
    assert_eq!(slot1.found_link.as_deref(), Some("2.5 GT/s x16"));
    assert!(
        errors_and_warnings(&a).is_empty(),
        "{:?}",
        errors_and_warnings(&a)
    );
}
