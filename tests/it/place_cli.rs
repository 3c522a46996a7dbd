//! `laneplan place` through the real binary: the reviewed R740xd parts list, text and JSON
//! snapshots, `-o` output that `check` passes, the infeasible answer (exit 1) and usage
//! errors (exit 2).

use std::time::Instant;

fn laneplan(args: &[&str]) -> (i32, String, String) {
    crate::common::run(
        crate::common::laneplan_wide()
            .env("NO_COLOR", "1")
            .args(args),
    )
}

const R740XD: &[&str] = &[
    "place",
    "r740xd",
    "--part",
    "dell-nvme-extender-bridge=3",
    "--part",
    "perc-h740p-mini",
    "--part",
    "broadcom-57414-rndc",
    "--part",
    "boss-s1",
    "--part",
    "micron-9300-pro-3.84tb=12",
    "--part",
    "toshiba-pm5-1.92tb=12",
    "--any-option",
    // No wall-time limit: the snapshot does not depend on the machine's load.
    "--budget-ms",
    "3600000",
];

#[test]
fn r740xd_text_and_json() {
    let (code, text, err) = laneplan(R740XD);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("Best placement (proven optimal):"));
    assert!(text.contains("slot     slot1      dell-nvme-extender-bridge"));
    insta::assert_snapshot!("place-r740xd.txt", text);

    let mut args = R740XD.to_vec();
    args.push("--json");
    let (code, out, err) = laneplan(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 3);
    assert_eq!(v["proven_optimal"], true);
    assert_eq!(v["best"]["placement"]["options"]["front"], "12nvme-12sas");
    insta::assert_json_snapshot!("place-r740xd.json", v);
}

#[test]
fn output_file_passes_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("build.toml");
    let out_s = out.to_str().unwrap();
    for example in ["r7415", "r6525"] {
        let args: Vec<&str> = match example {
            "r7415" => vec![
                "place",
                "r7415",
                "--part",
                "perc-h740p-mini",
                "--part",
                "samsung-pm1725a-1.6tb=4",
                "--part",
                "toshiba-pm5-1.92tb=4",
                "--option",
                "front=12nvme-12sas",
                "--budget-ms",
                "3600000",
                "-o",
                out_s,
            ],
            _ => vec![
                "place",
                "r6525",
                "--part",
                "broadcom-57414-ocp3",
                "--part",
                "skhynix-pe8010-3.84tb=4",
                "--any-option",
                "--objective",
                "balanced",
                "--budget-ms",
                "3600000",
                "-o",
                out_s,
            ],
        };
        let (code, text, err) = laneplan(&args);
        assert_eq!(code, 0, "{err}");
        assert!(text.contains(&format!("Wrote {out_s}")), "{text}");
        let (code, check, err) = laneplan(&["check", out_s, "--no-tree"]);
        assert_eq!(code, 0, "{check}{err}");
        assert!(!check.contains("error["), "{check}");
        // Only the file remains: the temporary file was renamed into place.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("backplane = \"gen4-kit\""), "{written}");
}

#[test]
fn infeasible_exits_1_with_the_constraint() {
    let t = Instant::now();
    let (code, text, _) = laneplan(&[
        "place",
        "r740xd",
        "--part",
        "micron-9300-pro-3.84tb=25",
        "--any-option",
    ]);
    assert!(t.elapsed().as_secs_f64() < 1.0, "{:?}", t.elapsed());
    assert_eq!(code, 1);
    assert!(text.contains("Nothing fits. Constraints that fail:"));
    assert!(
        text.contains("[bays] with front=24nvme: 25 x Micron 9300 PRO 3.84 TB U.2 (NVMe 2.5\"): 25 drives, and these options have 24 bays that take them"),
        "{text}"
    );
    insta::assert_snapshot!("place-infeasible.txt", text);
    let (code, out, _) = laneplan(&[
        "place",
        "r740xd",
        "--part",
        "nvidia-v100-pcie-dw=4",
        "--json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["proven_optimal"], false);
    assert_eq!(v["best"], serde_json::Value::Null);
    assert_eq!(v["infeasible"][0]["code"], "slots");
    assert_eq!(v["infeasible"][0]["part"], "nvidia-v100-pcie-dw");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["place", "r740xd", "--part", "nope"],
        vec!["place", "r9999", "--part", "boss-s1"],
        vec!["place", "r740xd", "--part", "boss-s1=0"],
        vec![
            "place", "r740xd", "--part", "boss-s1", "--option", "front=x",
        ],
        vec![
            "place",
            "r740xd",
            "--part",
            "boss-s1",
            "--keep-free",
            "slot42",
        ],
        vec![
            "place",
            "r740xd",
            "--part",
            "boss-s1",
            "--objective",
            "fast",
        ],
        vec!["place", "r740xd"],
    ] {
        let (code, _, err) = laneplan(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.is_empty());
    }
    let (_, _, err) = laneplan(&["place", "r740xd", "--part", "nope"]);
    assert!(err.contains("unknown part `nope`"), "{err}");
}

/// Issue 21's parts list: 12 Micron 9300, a ConnectX-5 (x16 edge) and an HBA330. The served
/// objective (what clients get: min(drive reads, NIC sends)) puts the NIC in x16 Slot 8 with
/// the switched 24nvme front; the drives' own optimum (12nvme-12sas: Slots 1, 4 and 8 go to
/// the extender cards) leaves it Slot 3, wired x8, and the trade-off says what that costs.
#[test]
fn issue_21_connectx5_gets_an_x16_slot() {
    let args = [
        "place",
        "r740xd",
        "--part",
        "micron-9300-pro-3.84tb=12",
        "--part",
        "mellanox-cx5-100g",
        "--part",
        "hba330-adapter",
        "--any-option",
        "--budget-ms",
        "3600000",
    ];
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let (code, out, err) = laneplan(&json_args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["objective"], "served");
    assert_eq!(v["proven_optimal"], true);
    assert_eq!(v["gap_gbs"], 0.0);
    let best = &v["best"];
    assert_eq!(best["placement"]["options"]["front"], "24nvme");
    assert_eq!(
        best["placement"]["slots"],
        serde_json::json!([
            {"slot": "slot2", "part": "hba330-adapter"},
            {"slot": "slot8", "part": "mellanox-cx5-100g"}
        ])
    );
    let s = &best["score"];
    assert_eq!(s["served_gbs"], 12.5);
    assert_eq!(s["nic_tx_gbs"], 12.5);
    assert_eq!(s["narrow_loss_gbs"], 0.0);
    assert_eq!(format!("{:.2}", s["read_gbs"].as_f64().unwrap()), "28.73");
    assert!(
        best["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["code"] != "LP0104"),
        "{best}"
    );
    // The trade-off: the drives' optimum reads 42.00 GB/s but serves 7.22 through x8.
    let t = &v["tradeoff"]["drives_best"];
    assert_eq!(t["placement"]["options"]["front"], "12nvme-12sas");
    let ts = &t["score"];
    assert_eq!(ts["read_gbs"], 42.0);
    assert_eq!(format!("{:.2}", ts["served_gbs"].as_f64().unwrap()), "7.22");
    assert_eq!(
        ts["narrowed"][0]["slot"], "slot3",
        "the ConnectX-5 runs x8 in Slot 3"
    );
    assert_eq!(ts["narrowed"][0]["electrical"], 8);
    assert_eq!(
        format!("{:.2}", ts["narrow_loss_gbs"].as_f64().unwrap()),
        "5.32"
    );

    let (code, text, err) = laneplan(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("slot     slot8      mellanox-cx5-100g"),
        "{text}"
    );
    assert!(
        text.contains(
            "delivers serves 12.50 GB/s to clients = min(drives read 28.73, NICs send 12.50)"
        ),
        "{text}"
    );
    assert!(
        text.contains("mellanox-cx5-100g in slot3 runs x8 of its x16 edge, losing 5.32 GB/s"),
        "{text}"
    );
    assert!(
        text.contains(
            "it reads 13.27 GB/s more from the drives and serves 5.28 GB/s less to clients"
        ),
        "{text}"
    );
}

/// A node budget stops the search with the best placement found so far: not proven, the
/// budget that stopped it, the bound from the parts' specs and the gap to it.
#[test]
fn node_budget_gives_the_best_found_and_the_gap() {
    let mut args = R740XD.to_vec();
    args.extend(["--budget-nodes", "40", "--objective", "read", "--json"]);
    let (code, out, err) = laneplan(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["proven_optimal"], false);
    assert_eq!(v["stopped"], "nodes");
    assert_eq!(v["budget"]["nodes"], 40);
    assert_eq!(v["stats"]["nodes_explored"], 40);
    // The parts' specs: 12 x 3.5 GB/s + 12 x 2.1 GB/s read.
    assert_eq!(format!("{:.2}", v["bound_gbs"].as_f64().unwrap()), "67.20");
    // The first placement found is the optimum (48.80 GB/s read), not yet proven.
    assert_eq!(v["best"]["score"]["value"], 48.8);
    assert_eq!(format!("{:.2}", v["gap_gbs"].as_f64().unwrap()), "18.40");
    args.pop();
    let (code, text, err) = laneplan(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("Best placement found (not proven optimal: the 40-node budget ran out"),
        "{text}"
    );
}
