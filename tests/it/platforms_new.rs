//! The R7525, R7515 and R7425 platforms: listed, drawn, checked, and the real captures
//! audited against their builds in examples/hosts/, NVMe drives matched to bays by the
//! physical slot numbers the captures show.

use crate::common;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::cargo_bin("laneplan")
        .unwrap()
        .current_dir(root())
        .args(["--wide", "--utf8"])
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

fn dump(host: &str) -> String {
    common::lspci_dump(host)
        .strip_prefix(root())
        .unwrap()
        .display()
        .to_string()
}

const NEW: [&str; 3] = ["r7525", "r7515", "r7425"];

#[test]
fn platforms_lists_the_new_ones() {
    let (code, out, _) = run(&["platforms"]);
    assert_eq!(code, 0);
    assert!(out.contains("r7525    Dell EMC PowerEdge R7525 (2U, 2 sockets, 160 Gen4 lanes)"));
    assert!(out.contains("r7515    Dell EMC PowerEdge R7515 (2U, 1 socket, 128 Gen4 lanes)"));
    assert!(out.contains("r7425    Dell EMC PowerEdge R7425 (2U, 2 sockets, 128 Gen3 lanes)"));
}

/// `show` of every platform and option is snapshotted by cli_plan
/// (`snapshot_show_of_every_platform_and_option`); here the builds of the captures.
#[test]
fn check_and_bays_snapshots_of_the_capture_builds() {
    for id in NEW {
        let build = format!("examples/hosts/{id}.toml");
        let (code, check, err) = run(&["check", &build]);
        assert_eq!(code, 0, "{id}: {check}{err}");
        insta::assert_snapshot!(format!("check_hosts_{id}"), check);
        let (code, bays, err) = run(&["bays", "--ascii", &build]);
        assert_eq!(code, 0, "{err}");
        insta::assert_snapshot!(format!("bays_hosts_{id}"), bays);
    }
}

/// The diff of a capture against its build: place -> (status, BDF).
fn against(id: &str) -> (i32, Vec<(String, String, String)>) {
    let build = format!("examples/hosts/{id}.toml");
    let (code, out, err) = run(&["audit", "--lspci", &dump(id), "--against", &build, "--json"]);
    let doc: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let rows = doc["bays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["place"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
                e["bdf"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect();
    (code, rows)
}

fn row(place: &str, status: &str, bdf: &str) -> (String, String, String) {
    (place.into(), status.into(), bdf.into())
}

#[test]
fn r7525_capture_matches_its_build_drives_in_slots_160_and_161() {
    let (code, rows) = against("r7525");
    assert_eq!(code, 0, "{rows:?}");
    // Bay 0 is physical slot 160 (root port c0:01.4), bay 1 slot 161 (c0:01.3).
    assert_eq!(rows[0], row("Bay 0", "ok", "0000:c4:00.0"));
    assert_eq!(rows[1], row("Bay 1", "ok", "0000:c3:00.0"));
    for (i, r) in rows.iter().enumerate().take(8).skip(2) {
        assert_eq!(r, &row(&format!("Bay {i}"), "empty", "-"));
    }
    assert_eq!(rows[8], row("OCP 3.0 NIC slot", "ok", "0000:63:00.0"));
    assert_eq!(rows[9], row("Slot 2", "ok", "0000:21:00.0"));
    assert_eq!(rows.len(), 10);
}

#[test]
fn r7515_capture_matches_its_build_24_empty_switched_bays() {
    let (_, rows) = against("r7515");
    assert_eq!(
        rows.iter()
            .filter(|r| r.0.starts_with("Bay ") && r.1 == "empty")
            .count(),
        24
    );
    assert!(rows.contains(&row("Slot 1", "ok", "0000:02:00.0")));
    assert!(rows.contains(&row("Slot 5", "ok", "0000:03:00.0")));
    assert!(rows.contains(&row(
        "Integrated storage controller slot",
        "ok",
        "0000:01:00.0"
    )));
    // The virtual function 03:01.0 belongs to the slot 5 card: nothing else.
    let other: Vec<_> = rows
        .iter()
        .filter(|r| r.1 != "ok" && r.1 != "empty")
        .collect();
    assert!(other.is_empty(), "{other:?}");
}

#[test]
fn r7425_capture_matches_its_build() {
    let (_, rows) = against("r7425");
    assert!(rows.contains(&row("Network daughter card", "ok", "0000:01:00.0")));
    assert!(rows.contains(&row("Slot 3", "ok", "0000:61:00.0")));
    // The GRID K2 in slot 1 is one card (its second GPU 44:00.0 sits behind the card's own
    // switch); its idle GPU's 2.5 GT/s is the audit's note, not a downtrain.
    assert!(rows.contains(&row("Slot 1", "ok", "0000:43:00.0")));
    assert!(!rows.iter().any(|r| r.2 == "0000:44:00.0"), "{rows:?}");
    assert_eq!(rows.len(), 3);
}

#[test]
fn every_capture_exits_0_against_its_build() {
    for id in NEW {
        let (code, rows) = against(id);
        assert_eq!(code, 0, "{id}: {rows:?}");
    }
}

#[test]
fn slot_numbers_in_the_platform_files_are_the_captures() {
    let text = std::fs::read_to_string(root().join("platforms/r7515.toml")).unwrap();
    assert!(text.contains("slot_numbers = \"131,130,129,128,135,134,133,132,139,138,137,136\""));
    assert!(text.contains("slot_numbers = \"163,162,161,160,167,166,165,164,171,170,169,168\""));
    let text = std::fs::read_to_string(root().join("platforms/r7525.toml")).unwrap();
    assert!(text.contains("slot_numbers = \"163,162,161,160\""));
    // Every value carries a source or says it is inferred.
    for id in NEW {
        let text = std::fs::read_to_string(root().join(format!("platforms/{id}.toml"))).unwrap();
        let sources = text.matches("\nsource = ").count();
        let confidences = text.matches("\nconfidence = ").count();
        assert!(
            sources >= confidences,
            "{id}: {sources} sources, {confidences} confidences"
        );
    }
}

/// The NUMA node each root complex of the new platforms declares (the trees print it on
/// these multi-die EPYC hosts) is the one the real capture reports for the functions its
/// locators cover: every function there, none on another node.
#[test]
fn root_complex_numa_nodes_match_the_captures() {
    let cat = laneplan::platform::Catalog::builtin().unwrap();
    for id in NEW {
        let path = common::lspci_dump(id);
        let text = std::fs::read_to_string(&path).unwrap();
        let (scan, _) = laneplan::host::lspci::parse(&text, &path.display().to_string());
        let plat = &cat.platforms[id].def;
        let mut checked = 0;
        for rc in &plat.root_complexes {
            let Some(want) = rc.numa_node else { continue };
            for f in &scan.functions {
                let Some(bdf) = f.bdf else { continue };
                let bdf = bdf.to_string();
                if rc.locator.iter().any(|l| bdf.starts_with(l.as_str()))
                    && let Some(got) = f.numa_node
                {
                    assert_eq!(got, want, "{id}: {bdf} under {}", rc.label);
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 0,
            "{id}: no function of the capture under a locator"
        );
    }
}
