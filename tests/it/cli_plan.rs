//! `platforms`, `show` and `check` through the real binary: exit codes, findings with their
//! codes and locations, the reviewers' lane budget, and snapshots of every rendering.

use laneplan::plan;
use laneplan::platform::Catalog;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn laneplan(args: &[&str]) -> (i32, String, String) {
    crate::common::run(
        crate::common::laneplan_wide()
            .env("NO_COLOR", "1")
            .args(args),
    )
}

fn examples(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

fn snap_name(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap()
        .to_string_lossy()
        .replace(['/', '.'], "_")
}

#[test]
fn r740xd_reproduces_the_reviewers_lane_budget() {
    let catalog = Catalog::builtin().unwrap();
    let r = plan::check_build_file(
        &catalog,
        &root().join("examples/r740xd-12nvme-micron9300.toml"),
    )
    .unwrap();
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    let b = &r.budget;
    assert_eq!(b.total_lanes, 96);
    assert_eq!(b.nvme_lanes, 48);
    assert_eq!(b.nvme_drives, 12);
    let all: Vec<(String, u16)> = b
        .sockets
        .iter()
        .flat_map(|s| s.root_complexes.iter())
        .flat_map(|rc| rc.consumers.iter())
        .filter(|c| c.used > 0)
        .map(|c| (c.part.clone().unwrap_or_default(), c.used))
        .collect();
    let lanes_of = |prefix: &str| -> u16 {
        all.iter()
            .filter(|(p, _)| p.starts_with(prefix))
            .map(|(_, u)| *u)
            .sum()
    };
    assert_eq!(
        lanes_of("BOSS-S1"),
        4,
        "an x2 device still takes an x4 port"
    );
    assert_eq!(lanes_of("PERC H740P"), 8);
    assert_eq!(lanes_of("Broadcom 57414"), 8);
    assert_eq!(lanes_of("Intel C620 PCH"), 4);
    assert_eq!(lanes_of("NVMe extender"), 48);
    // 4 + 8 + 8 + 48 in the sockets' 96, the DMI x4 beside them: 24 lanes free.
    assert_eq!(b.total_used, 68);
    assert_eq!(b.outside_budget.iter().map(|c| c.used).sum::<u16>(), 4);
    let cpu: Vec<(u16, u16)> = b.sockets.iter().map(|s| (s.lanes, s.used)).collect();
    assert_eq!(cpu, vec![(48, 36), (48, 32)]);
}

#[test]
fn check_the_reviewed_r740xd_prints_48_nvme_lanes_and_exits_0() {
    let (code, out, err) = laneplan(&["check", "examples/r740xd-12nvme-micron9300.toml"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("NVMe: 48 lanes for 12 drives"), "{out}");
    assert!(
        out.contains("Total: 68 of 96 lanes used, 28 free (+ Intel C620 PCH"),
        "{out}"
    );
}

/// Each wrong example: exit 1 and exactly these (code, line:column) findings.
#[test]
fn wrong_examples_exit_1_with_their_codes_and_locations() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "examples/wrong/lanes-over-budget.toml",
            &[("LP0107", "examples/wrong/lanes-over-budget.toml:18:8")],
        ),
        (
            "examples/wrong/x16-card-in-x8-slot.toml",
            &[("LP0105", "examples/wrong/x16-card-in-x8-slot.toml:6:8")],
        ),
        (
            "examples/wrong/nvme-in-sas-bay.toml",
            &[("LP0103", "examples/wrong/nvme-in-sas-bay.toml:17:8")],
        ),
        (
            "examples/wrong/fourth-extender-card.toml",
            &[
                ("LP0109", "examples/wrong/fourth-extender-card.toml:22:8"),
                ("LP0110", "examples/wrong/fourth-extender-card.toml:22:8"),
                ("LP0104", "examples/wrong/fourth-extender-card.toml:22:8"),
            ],
        ),
        (
            "examples/wrong/gpu-in-low-profile-slot.toml",
            &[
                ("LP0105", "examples/wrong/gpu-in-low-profile-slot.toml:7:8"),
                ("LP0106", "examples/wrong/gpu-in-low-profile-slot.toml:7:8"),
                ("LP0106", "examples/wrong/gpu-in-low-profile-slot.toml:7:8"),
            ],
        ),
    ];
    for (file, want) in cases {
        let (code, out, _) = laneplan(&["check", "--json", file]);
        assert_eq!(code, 1, "{file}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let got: Vec<(String, String)> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let l = &f["location"];
                (
                    f["code"].as_str().unwrap().to_string(),
                    format!(
                        "{}:{}:{}",
                        l["file"].as_str().unwrap_or(""),
                        l["line"],
                        l["column"]
                    ),
                )
            })
            .collect();
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(c, l)| (c.to_string(), l.to_string()))
            .collect();
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn every_reviewed_example_checks_without_errors() {
    for p in examples("examples") {
        let rel = p.strip_prefix(root()).unwrap();
        let (code, out, err) = laneplan(&["check", rel.to_str().unwrap()]);
        assert_eq!(code, 0, "{}: {out}{err}", p.display());
    }
}

#[test]
fn gen4_drives_on_the_gen3_backplane_are_warned_with_the_kit() {
    let (code, out, _) = laneplan(&[
        "check",
        "--no-tree",
        "examples/r6525-pe8010-gen3-backplane.toml",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.matches("warning[LP0111]").count(), 4, "{out}");
    assert!(
        out.contains("fit the Gen4 backplane and cable kit"),
        "{out}"
    );
    let (_, kit, _) = laneplan(&["check", "--no-tree", "examples/r6525-pe8010-gen4-kit.toml"]);
    assert!(!kit.contains("LP0111"), "{kit}");
    assert!(kit.contains("0 errors, 0 warnings"), "{kit}");
}

#[test]
fn snapshot_check_of_every_example() {
    let mut files = examples("examples");
    files.extend(examples("examples/wrong"));
    for p in files {
        // Relative paths, so the snapshots do not depend on where the checkout lives.
        let rel = p.strip_prefix(root()).unwrap();
        let (_, out, err) = laneplan(&["check", rel.to_str().unwrap()]);
        insta::assert_snapshot!(format!("check_{}", snap_name(&p)), format!("{out}{err}"));
    }
}

#[test]
fn snapshot_show_of_every_platform_and_option() {
    let catalog = Catalog::builtin().unwrap();
    for (id, p) in &catalog.platforms {
        let (code, out, err) = laneplan(&["show", id]);
        assert_eq!(code, 0, "{err}");
        insta::assert_snapshot!(format!("show_{id}"), out);
        for o in &p.def.options {
            for c in &o.choices {
                if c.value.get_ref() == o.default.get_ref() {
                    continue;
                }
                let kv = format!("{}={}", o.key.get_ref(), c.value.get_ref());
                let (code, out, err) = laneplan(&["show", id, "--option", &kv]);
                assert_eq!(code, 0, "{kv}: {err}");
                insta::assert_snapshot!(format!("show_{id}_{}", kv.replace(['=', '.'], "_")), out);
            }
        }
    }
}

#[test]
fn platforms_lists_one_line_per_platform() {
    let (code, out, _) = laneplan(&["platforms"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("platforms", out);
    let (_, json, _) = laneplan(&["platforms", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema_version"], 1);
    let ids: Vec<&str> = v["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        vec![
            "nf5280m4", "r6515", "r6525", "r6615", "r740xd", "r7415", "r7425", "r7515", "r7525"
        ]
    );
}

#[test]
fn json_reports_carry_schema_version_and_stdout_is_only_json() {
    for args in [
        vec!["show", "r7415", "--json"],
        vec!["check", "--json", "examples/r740xd-12nvme-micron9300.toml"],
    ] {
        let (code, out, _) = laneplan(&args);
        assert_eq!(code, 0);
        let v: serde_json::Value = serde_json::from_str(&out).expect("stdout is one JSON document");
        assert_eq!(v["schema_version"], 1);
        assert!(v["budget"]["sockets"].is_array());
        assert!(v["topology"]["nodes"].as_array().unwrap().len() > 10);
    }
    let (_, out, _) = laneplan(&["check", "--json", "examples/r740xd-12nvme-micron9300.toml"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["budget"]["nvme_lanes"], 48);
    assert_eq!(v["budget"]["total_lanes"], 96);
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = laneplan(&["show", "r9000"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown platform `r9000`"), "{err}");
    let (code, _, err) = laneplan(&["show", "r740xd", "--option", "front=36nvme"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("option `front` has no choice `36nvme`"),
        "{err}"
    );
    let (code, _, err) = laneplan(&["check", "no/such/file.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    let (code, _, _) = laneplan(&["frobnicate"]);
    assert_eq!(code, 2);
}

#[test]
fn unknown_parts_slots_and_bays_are_located_findings() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("b.toml");
    std::fs::write(
        &p,
        "platform = \"r740xd\"\n[[slot]]\nslot = \"slot9\"\npart = \"boss-s1\"\n[[slot]]\nslot = \"slot2\"\npart = \"boss-s2\"\n[[bay]]\nbays = \"30\"\npart = \"micron-9300-pro-3.84tb\"\n",
    )
    .unwrap();
    let (code, out, _) = laneplan(&["check", "--json", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let got: Vec<(String, i64, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().into(),
                f["location"]["line"].as_i64().unwrap(),
                f["message"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "LP0101".into(),
                3,
                "Dell EMC PowerEdge R740xd has no slot `slot9`".into()
            ),
            (
                "LP0101".into(),
                9,
                "no bay 30 with the chosen options".into()
            ),
            ("LP0102".into(), 7, "unknown part `boss-s2`".into()),
        ]
    );
}

#[test]
fn help_and_completions_come_from_one_definition() {
    for cmd in [
        vec!["--help"],
        vec!["show", "--help"],
        vec!["check", "--help"],
        vec!["platforms", "--help"],
    ] {
        let (code, out, _) = laneplan(&cmd);
        assert_eq!(code, 0);
        insta::assert_snapshot!(format!("help_{}", cmd.join("_").replace('-', "")), out);
    }
    let (code, out, _) = laneplan(&["completions", "bash"]);
    assert_eq!(code, 0);
    assert!(out.contains("laneplan") && out.contains("check"));
    let (code, out, _) = laneplan(&["man"]);
    assert_eq!(code, 0);
    assert!(out.starts_with(".ie") || out.contains(".TH"), "{out}");
}

#[test]
fn parts_lists_the_catalogue() {
    let (code, out, _) = laneplan(&["parts"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("parts", out);
    let (code, out, _) = laneplan(&["parts", "--class", "nvme", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    let nvme: Vec<&str> = v["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        nvme,
        [
            "dell-nvme-ri-ag-15.36tb",
            "micron-9300-max-3.2tb",
            "micron-9300-pro-3.84tb",
            "samsung-pm1725-800gb",
            "samsung-pm1725a-1.6tb",
            "samsung-pm173x-dell",
            "samsung-pm983-3.84tb",
            "skhynix-pe8010-3.84tb"
        ]
    );
    // An IOPS figure the catalogue does not give (a NIC) is null, never 0.0; a given one a number.
    let (code, out, _) = laneplan(&["parts", "--class", "nic", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cx5 = v["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "mellanox-cx5-100g")
        .expect("the ConnectX-5 is a NIC of the catalogue");
    assert_eq!(cx5["perf"]["rand_read_iops"], serde_json::Value::Null);
    assert_eq!(cx5["perf"]["rand_write_iops"], serde_json::Value::Null);
    assert_eq!(cx5["perf"]["seq_read_gbs"], 12.5);
    let drive = &laneplan_json(&["parts", "--class", "nvme", "--json"])["parts"][0];
    assert!(
        drive["perf"]["rand_read_iops"].as_f64().unwrap() > 0.0,
        "{drive}"
    );
    let (_, table, _) = laneplan(&["parts", "--class", "gpu"]);
    assert!(
        table.contains("nvidia-v100-pcie-dw") && !table.contains("micron"),
        "{table}"
    );
    let (code, _, err) = laneplan(&["parts", "--class", "ssd"]);
    assert_eq!(code, 2);
    // The values, and the nearest (clap's, as for every enumerated flag).
    assert!(
        err.contains("[possible values: nvme, sas-drive, sata-drive,")
            && err.contains("a similar value exists: 'sas-drive'"),
        "{err}"
    );
}

/// The whole-plan checks are a table of rules: each emits only the codes its row names, the
/// table's findings are `check`'s, and the examples exercise these rules.
#[test]
fn each_check_rule_emits_only_its_own_codes() {
    use laneplan::plan::check::{Ctx, RULES, check};
    use std::collections::BTreeSet;
    let cat = Catalog::builtin().unwrap();
    let mut fired = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for r in RULES {
        assert!(seen.insert(r.name), "rule {} twice", r.name);
    }
    let files = [
        examples("examples"),
        examples("examples/wrong"),
        examples("examples/hosts"),
    ];
    for p in files.iter().flatten() {
        let report = plan::check_build_file(&cat, p).unwrap();
        let cx = Ctx {
            plan: &report.plan,
            budget: &report.budget,
            file: None,
        };
        let mut all = Vec::new();
        for rule in RULES {
            for f in (rule.check)(&cx) {
                assert!(
                    rule.codes.contains(&f.code),
                    "{}: {} from {}",
                    p.display(),
                    f.code,
                    rule.name
                );
                fired.insert(rule.name);
                all.push(f);
            }
        }
        assert_eq!(
            all,
            check(&report.plan, &report.budget, None),
            "{}",
            p.display()
        );
        for f in &all {
            assert!(
                report
                    .findings
                    .iter()
                    .any(|g| g.code == f.code && g.message == f.message),
                "{}: {f:?} not in the report",
                p.display()
            );
        }
    }
    assert_eq!(
        fired.into_iter().collect::<Vec<_>>(),
        ["bifurcation", "card-rules", "generation-drop", "rc-budget"]
    );
}

fn laneplan_json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = laneplan(args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}
