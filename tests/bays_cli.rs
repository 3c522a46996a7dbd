//! `laneplan bays` from the command line: text, --ascii, --svg, --json, errors.

use assert_cmd::Command;
use predicates::prelude::*;

fn laneplan() -> Command {
    let mut c = Command::cargo_bin("laneplan").expect("binary builds");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
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

#[test]
fn a_wrong_build_still_draws() {
    laneplan()
        .args(["bays", "examples/wrong/nvme-in-sas-bay.toml", "--ascii"])
        .assert()
        .success()
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
        .filter(|b| b["status"] != "ok")
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
