//! `laneplan bays` from the command line: text, --ascii, --svg, --json, errors.

use predicates::prelude::*;

fn laneplan() -> assert_cmd::Command {
    crate::common::laneplan_wide()
}

const BUILD: &str = "examples/r740xd-12nvme-micron9300.toml";

#[test]
fn text_for_a_platform_and_no_colour_off_a_terminal() {
    let out = laneplan()
        .args(["bays", "r740xd", "--option", "front=12nvme-12sas"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("Front — 24 x 2.5\" bays (2U)"));
    assert!(text.contains('┌') && text.contains("│12 │"));
    assert!(text.contains("Rear — slots"));
    // Not a terminal: anstream strips the colour.
    assert!(!text.contains('\x1b'));
}

#[test]
fn no_color_is_honoured() {
    laneplan()
        .env("NO_COLOR", "1")
        .env("CLICOLOR_FORCE", "1")
        .args(["bays", BUILD])
        .assert()
        .success()
        .stdout(predicate::str::contains("\x1b[").not());
}

#[test]
fn colour_when_forced() {
    laneplan()
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .args(["bays", BUILD])
        .assert()
        .success()
        .stdout(predicate::str::contains("\x1b["));
}

#[test]
fn ascii_is_plain_ascii() {
    let out = laneplan()
        .env("CLICOLOR_FORCE", "1")
        .args(["bays", BUILD, "--ascii"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(out.is_ascii(), "non-ASCII bytes in --ascii output");
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("+---+---+"));
    assert!(text.contains("|12 |"));
}

#[test]
fn svg_to_a_file_shows_the_cards_and_sockets() {
    let dir = tempfile::tempdir().unwrap();
    let svg_path = dir.path().join("out.svg");
    laneplan()
        .args(["bays", BUILD, "--svg"])
        .arg(&svg_path)
        .assert()
        .success()
        .stdout(predicate::str::contains("Lane groups"))
        .stderr(predicate::str::contains("wrote"));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let bay = |n: u16| {
        doc.descendants()
            .find(|e| e.attribute("id") == Some(&format!("bay-{n}")))
            .unwrap()
    };
    for (n, slot, class, colour) in [
        (12, "Slot 1", "socket-1", "#0072B2"),
        (17, "Slot 4", "socket-2", "#E69F00"),
        (23, "Slot 8", "socket-2", "#E69F00"),
        (5, "PERC H740P Mini", "socket-1", "#0072B2"),
    ] {
        let g = bay(n);
        assert!(g.attribute("class").unwrap().contains(class), "bay {n}");
        let title = g.first_element_child().unwrap().text().unwrap();
        assert!(title.contains(slot), "bay {n}: {title}");
        let rect = g.children().find(|c| c.has_tag_name("rect")).unwrap();
        assert_eq!(rect.attribute("stroke"), Some(colour));
    }
}

#[test]
fn svg_to_stdout() {
    laneplan()
        .args(["bays", "r6525", "--svg", "-"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("<?xml"))
        .stdout(predicate::str::contains("</svg>"));
}

#[test]
fn json_is_versioned() {
    let out = laneplan()
        .args(["bays", BUILD, "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).expect("stdout is JSON only");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["platform"], "r740xd");
    assert_eq!(v["bays"].as_array().unwrap().len(), 24);
    let b12 = &v["bays"][12];
    assert_eq!(b12["number"], 12);
    assert_eq!(b12["interface"], "nvme");
    assert_eq!(b12["socket"], 0);
    assert_eq!(b12["status"], "ok");
    assert_eq!(b12["link"]["rate"]["gen"], 3);
    assert_eq!(b12["link"]["rate"]["width"], 4);
    assert!(
        b12["path"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p == "Slot 1")
    );
    assert_eq!(v["panels"][0]["rows"][0].as_array().unwrap().len(), 24);
    assert_eq!(v["groups"].as_array().unwrap().len(), 4);
    assert_eq!(v["slots"][3]["id"], "slot4");
}

#[test]
fn input_errors_exit_2() {
    laneplan()
        .args(["bays", "r999"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown platform"));
    laneplan()
        .args(["bays", "r740xd", "--option", "front=48nvme"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no choice"));
    laneplan()
        .args(["bays", BUILD, "--option", "front=24nvme"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--option applies to platforms"));
    laneplan()
        .args(["bays", "examples/none.toml"])
        .assert()
        .code(2);
}

/// It draws, and exits 1 as `check` does (issue 18 item 9: it had exited 0).
#[test]
fn a_wrong_build_still_draws() {
    laneplan()
        .args(["bays", "examples/wrong/nvme-in-sas-bay.toml", "--ascii"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("LP0103"));
}

/// From an audit: the synthetic R740xd host drawn against its build marks the downtrained and
/// missing bays, and only those; the R6525 capture is recognised from its DMI product name.
#[test]
fn bays_of_an_audited_host() {
    let out = laneplan()
        .args([
            "bays",
            BUILD,
            "--sysfs-root",
            "tests/fixtures/sysfs/r740xd-12nvme",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let odd: Vec<(u64, String)> = v["bays"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["status"] != "ok" && b["status"] != "not-visible")
        .map(|b| {
            (
                b["number"].as_u64().unwrap(),
                b["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        odd,
        [
            (17, "downtrained".to_string()),
            (21, "downtrained".to_string()),
            (23, "missing".to_string())
        ]
    );
    let svg = laneplan()
        .args([
            "bays",
            BUILD,
            "--sysfs-root",
            "tests/fixtures/sysfs/r740xd-12nvme",
            "--svg",
            "-",
        ])
        .output()
        .unwrap();
    let svg = String::from_utf8(svg.stdout).unwrap();
    assert!(svg.contains("downtrained: 8.0 GT/s x2 where the plan expects 8.0 GT/s x4"));
    assert!(svg.contains("found: Micron_9300_MTFDHAL3T8TDP at 0000:b0:00.0, 8.0 GT/s x2"));

    let r6525 = laneplan()
        .args([
            "bays",
            "--sysfs-root",
            "tests/fixtures/sysfs/r6525-gen3",
            "--ascii",
        ])
        .output()
        .unwrap();
    assert!(r6525.status.success());
    let text = String::from_utf8(r6525.stdout).unwrap();
    assert!(text.starts_with("Dell EMC PowerEdge R6525"), "{text}");
    assert!(text.contains("Dell DC NV"), "{text}");
}

const SYNTH: &str = "tests/fixtures/sysfs/r740xd-12nvme";

fn run_ok(args: &[&str]) -> String {
    let out = laneplan().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn host_bays_show_downtrained_missing_and_not_visible_in_text_json_and_svg() {
    // Text: the trained link where it differs, the verdicts, the counts.
    let text = run_ok(&["bays", BUILD, "--sysfs-root", SYNTH, "--ascii"]);
    let row = |n: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("| {n:<4}|")))
            .unwrap_or_else(|| panic!("no row for bay {n}"))
            .to_string()
    };
    assert!(row("17").contains("Gen3 x2 (8.0 GT/s x2)"), "{}", row("17"));
    assert!(row("17").contains("downtrained !"));
    assert!(row("21").contains("Gen1 x4 (2.5 GT/s x4)"), "{}", row("21"));
    assert!(row("21").contains("downtrained !"));
    assert!(row("23").contains("missing !"));
    assert!(row("0").contains("not visible"), "{}", row("0"));
    assert!(text.contains("Host: 17 of 18 planned found"));
    assert!(text.contains("bay 12 by address order"));

    // JSON: statuses and how each bay was matched, as data.
    let v: serde_json::Value =
        serde_json::from_str(&run_ok(&["bays", BUILD, "--sysfs-root", SYNTH, "--json"])).unwrap();
    let bay = |n: u64| {
        v["bays"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["number"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(bay(17)["status"], "downtrained");
    assert_eq!(bay(17)["link"]["text"], "Gen3 x2");
    assert_eq!(bay(17)["link"]["max"]["width"], 4);
    assert_eq!(bay(21)["status"], "downtrained");
    assert_eq!(bay(23)["status"], "missing");
    assert_eq!(bay(23)["matched_by"], "address-order");
    assert_eq!(bay(0)["status"], "not-visible");
    assert_eq!(v["host"]["found"], 17);
    assert_eq!(v["host"]["planned"], 18);
    assert_eq!(v["host"]["unplaced"].as_array().unwrap().len(), 0);

    // SVG: bay 23 carries a `missing` class, 17 and 21 `downtrained`.
    let svg = run_ok(&["bays", BUILD, "--sysfs-root", SYNTH, "--svg", "-"]);
    let class_of = |n: u16| {
        let tag = format!("<g id=\"bay-{n}\" class=\"");
        let i = svg.find(&tag).unwrap() + tag.len();
        svg[i..i + svg[i..].find('"').unwrap()].to_string()
    };
    let c23 = class_of(23);
    assert!(c23.split(' ').any(|c| c == "missing"), "{c23}");
    assert!(class_of(17).split(' ').any(|c| c == "downtrained"));
    assert!(class_of(21).split(' ').any(|c| c == "downtrained"));
    assert!(!class_of(22).split(' ').any(|c| c == "missing"));
    assert!(svg.contains("17 of 18 planned found"));
}

#[test]
fn host_bays_without_a_build_list_every_nvme_drive() {
    // The platform comes from the capture's DMI name and its front from the drives the host
    // shows behind the extender cards in Slots 1, 4 and 8 (#24): front=12nvme-12sas, every
    // drive in a bay.
    let text = run_ok(&["bays", "--sysfs-root", SYNTH, "--ascii"]);
    assert!(
        text.starts_with("Dell EMC PowerEdge R740xd (front=12nvme-12sas)"),
        "{text}"
    );
    assert!(!text.contains("NVMe drives in no bay"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&run_ok(&["bays", "--sysfs-root", SYNTH, "--json"])).unwrap();
    assert_eq!(v["host"]["unplaced"].as_array().unwrap().len(), 0);
    // A front named on the command line wins: the default front has no NVMe bays, so all
    // eleven drives are listed as placed in no bay, none dropped.
    let text = run_ok(&[
        "bays",
        "--sysfs-root",
        SYNTH,
        "--ascii",
        "-O",
        "front=24-sas",
    ]);
    assert!(text.contains("NVMe drives in no bay (11):"), "{text}");
    for bdf in [
        "0000:5e:00.0",
        "0000:5f:00.0",
        "0000:60:00.0",
        "0000:61:00.0",
        "0000:af:00.0",
        "0000:b0:00.0",
        "0000:b1:00.0",
        "0000:b2:00.0",
        "0000:d8:00.0",
        "0000:d9:00.0",
        "0000:da:00.0",
    ] {
        assert!(text.contains(&format!("    {bdf} Micron_9300")), "{bdf}");
    }
    let v: serde_json::Value = serde_json::from_str(&run_ok(&[
        "bays",
        "--sysfs-root",
        SYNTH,
        "--json",
        "-O",
        "front=24-sas",
    ]))
    .unwrap();
    assert_eq!(v["platform"], "r740xd");
    assert_eq!(v["host"]["unplaced"].as_array().unwrap().len(), 11);
}
