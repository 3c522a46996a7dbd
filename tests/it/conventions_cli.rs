//! Terminal and ecosystem conventions (issue 15): did-you-mean for unknown ids, man pages,
//! `dot -o`, clear errors for missing files and an empty `--mapped`.

use predicates::prelude::*;

use crate::common::laneplan;

#[test]
fn did_you_mean_platforms_options_profiles_parts() {
    laneplan()
        .args(["show", "r740"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown platform `r740`"))
        .stderr(predicate::str::contains("did you mean `r740xd`?"));
    laneplan()
        .args(["bays", "r7451"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `r7415`?"));
    laneplan()
        .args(["show", "r740xd", "--option", "fornt=24"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `front`?"));
    laneplan()
        .args(["probe", "--profile", "4k-randrea", "--dry-run", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a similar value exists: '4k-randread'",
        ));
    laneplan()
        .args(["place", "r740xd", "--part", "perc-h740p-adaptor"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "did you mean `perc-h740p-adapter`?",
        ));
    // In a build file, at the platform's location.
    let t = tempfile::tempdir().unwrap();
    let build = t.path().join("b.toml");
    std::fs::write(&build, "platform = \"r740\"\n").unwrap();
    laneplan()
        .arg("check")
        .arg(&build)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "b.toml:1:12: unknown platform `r740`",
        ))
        .stderr(predicate::str::contains("did you mean `r740xd`?"));
    // Nothing near: no guess.
    laneplan()
        .args(["show", "supermicro"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean").not());
}

#[test]
fn man_page_per_subcommand_with_exit_status_and_examples() {
    let out = laneplan().args(["man", "probe"]).assert().success();
    let page = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(page.contains(".TH laneplan-probe 1"), "{page}");
    assert!(page.contains(".SH \"EXIT STATUS\"\n"));
    assert!(page.contains(".SH EXAMPLES\n"));
    assert!(page.contains("\\fBlaneplan probe \\-\\-mapped \\-\\-dry\\-run\\fR"));
    assert!(page.contains(".SH \"SEE ALSO\"\n\\fBlaneplan\\fR(1)\n"));
    laneplan()
        .args(["man", "prob"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `probe`?"));
}

#[test]
fn man_dir_writes_every_page_and_refers_only_to_those() {
    let t = tempfile::tempdir().unwrap();
    laneplan()
        .args(["man", "--dir"])
        .arg(t.path())
        .assert()
        .success();
    let files: std::collections::BTreeSet<String> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files.len(), 15, "{files:?}");
    assert!(files.contains("laneplan.1") && files.contains("laneplan-man.1"));
    assert!(!files.contains("laneplan-help.1"));
    let mut refs = 0;
    for f in &files {
        let text = std::fs::read_to_string(t.path().join(f)).unwrap();
        assert!(text.contains(".SH \"EXIT STATUS\""), "{f}");
        assert!(text.contains(".SH EXAMPLES"), "{f}");
        // Every `name(1)` a page refers to is a page written here.
        let plain = text
            .replace("\\fB", "")
            .replace("\\fR", "")
            .replace("\\-", "-");
        for (i, _) in plain.match_indices("(1)") {
            let start = plain[..i]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .map_or(0, |p| p + 1);
            let name = &plain[start..i];
            assert!(
                files.contains(&format!("{name}.1")),
                "{f} refers to {name}(1)"
            );
            refs += 1;
        }
    }
    assert_eq!(
        refs,
        14 * 2 + 14 + 1,
        "the overview lists the 14 pages twice (SUBCOMMANDS, SEE ALSO); each subcommand \
         page names laneplan(1), the man page once more in its help"
    );
}

#[test]
fn dot_output_flag_writes_the_same_graph() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("r7415.dot");
    let stdout = laneplan()
        .args(["dot", "r7415", "--option", "front=24nvme"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    laneplan()
        .args(["dot", "r7415", "--option", "front=24nvme", "-o"])
        .arg(&file)
        .assert()
        .success()
        .stdout("");
    assert_eq!(std::fs::read(&file).unwrap(), stdout);
    assert!(String::from_utf8(stdout).unwrap().starts_with("digraph"));
}

#[test]
fn a_missing_file_prints_no_empty_source_box() {
    let out = laneplan()
        .args(["check", "/nonexistent/build.toml"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert!(
        err.contains("/nonexistent/build.toml:1:1: cannot read"),
        "{err}"
    );
    assert!(!err.contains('╭') && !err.contains('╰'), "{err}");
    // A located error still quotes its line.
    let t = tempfile::tempdir().unwrap();
    let bad = t.path().join("bad.toml");
    std::fs::write(&bad, "platform = \"r740xd\"\n[[drive\n").unwrap();
    laneplan()
        .arg("check")
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(":2:8: unclosed array table"))
        .stderr(predicate::str::contains("2 │ [[drive"));
}

#[test]
fn mapped_with_no_nvme_says_so() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("sys/bus/pci/devices")).unwrap();
    laneplan()
        .args(["probe", "--mapped", "--dry-run", "--sysfs-root"])
        .arg(t.path())
        .assert()
        .success()
        .stdout("no NVMe namespaces found\n");
    laneplan()
        .args(["probe", "--mapped", "--sysfs-root"])
        .arg(t.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no NVMe namespaces found under"));
}

/// Runs `args` under a pseudo-terminal (util-linux `script`), returning what it printed.
fn in_pty(args: &str) -> Option<String> {
    let bin = assert_cmd::cargo::cargo_bin("laneplan");
    let out = std::process::Command::new("script")
        .args(["-qec", &format!("{} {args}", bin.display()), "/dev/null"])
        .output();
    match out {
        Ok(o) if o.status.success() => Some(String::from_utf8_lossy(&o.stdout).replace('\r', "\n")),
        other => {
            let why = format!("`script` (util-linux) cannot give a pty: {other:?}");
            assert!(std::env::var("CI").is_err(), "{why}");
            eprintln!("SKIPPED: probe progress in a pty: {why}");
            if let Ok(log) = std::env::var("LANEPLAN_SKIP_LOG") {
                use std::io::Write;
                let _ = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(log)
                    .and_then(|mut f| writeln!(f, "probe progress in a pty: {why}"));
            }
            None
        }
    }
}

#[test]
fn probe_progress_is_live_with_steps_and_quiet_otherwise() {
    let t = tempfile::tempdir().unwrap();
    let img = t.path().join("probe.img");
    let img = img.display();
    let Some(out) = in_pty(&format!(
        "probe --curve --runtime 150ms --ramp 0s --size 8m {img}"
    )) else {
        return;
    };
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(" elapsed")).collect();
    assert!(!lines.is_empty(), "{out}");
    assert!(!out.contains("0/0"), "{out}");
    for l in &lines {
        assert!(l.contains(" IOPS, ") && l.contains(" MB/s; "), "{l}");
    }
    assert!(
        lines.iter().any(|l| l.contains("[1/13] probe.img: ")),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("[13/13] probe.img at 120 %: ")),
        "{out}"
    );
    // --quiet in a terminal, and a pipe without it: no progress at all.
    let quiet = in_pty(&format!("probe -q --runtime 100ms --ramp 0s {img}")).unwrap();
    assert!(!quiet.contains(" elapsed"), "{quiet}");
    laneplan()
        .args(["probe", "--runtime", "100ms", "--ramp", "0s"])
        .arg(t.path().join("probe.img"))
        .assert()
        .success()
        .stderr("");
}

#[test]
fn readme_progress_line_is_what_the_formatter_prints() {
    use laneplan::probe::{Progress, progress};
    let p = Progress {
        phase: "nvme0n1 at 10 %".into(),
        step: 2,
        steps: 13,
        devices: vec![progress::DeviceRate {
            label: "nvme0n1".into(),
            iops: 41_234.0,
            mb_per_s: 168.9,
        }],
        done: 200_000,
        elapsed: std::time::Duration::from_millis(5_400),
        total_elapsed: std::time::Duration::from_millis(17_400),
        expected: Some(std::time::Duration::from_secs(12)),
        expected_ios: None,
    };
    let readme = include_str!("../../README.md");
    let line = progress::line(&p);
    assert!(readme.contains(&format!("`{line}`")), "README lacks {line}");
}

#[test]
fn dot_keeps_bay_order_styles_traffic_and_names_xgmi() {
    let out = laneplan()
        .args(["dot", "examples/r7415-24nvme-switched.toml"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let dot = String::from_utf8(out).unwrap();
    // Bays declared in chassis order, not string order (bay0, bay1, bay10, ...).
    let bays: Vec<&str> = dot
        .lines()
        .filter_map(|l| l.trim().strip_prefix("\"bay"))
        .filter_map(|l| l.split_once("\" [label=").map(|(n, _)| n))
        .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let want: Vec<String> = (0..24).map(|i| i.to_string()).collect();
    assert_eq!(bays, want);
    // Every hop on the way from a switch to a drive carries traffic: not drawn as idle.
    for l in dot.lines().filter(|l| l.contains("\"bp-switch-a\" -> ")) {
        assert!(
            !l.contains("dashed") && l.contains("color=\"gray30\""),
            "{l}"
        );
    }
    assert!(dot.contains("carries traffic, no limit of its own"));
    let r6525 = laneplan()
        .args(["dot", "r6525"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let r6525 = String::from_utf8(r6525).unwrap();
    assert!(r6525.contains("label=\"xGMI x4 · "), "{r6525}");
    assert!(!r6525.contains("XGMI"));
}

/// A label that is not drawn in full at its size (wrapped, smaller, or as the last resort
/// shortened with `…`) carries its full wording as its `<title>`: wrapped lines put together
/// give it back, a shortened line is its start. These three pictures need no shortening.
#[test]
fn bay_svg_never_cuts_a_label() {
    let t = tempfile::tempdir().unwrap();
    for (i, target) in ["r740xd", "examples/r740xd-12nvme-micron9300.toml", "r7525"]
        .iter()
        .enumerate()
    {
        let file = t.path().join(format!("{i}.svg"));
        laneplan()
            .args(["bays", target, "--svg"])
            .arg(&file)
            .assert()
            .success();
        let text = std::fs::read_to_string(&file).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let mut fitted: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        let mut labels = Vec::new();
        for node in doc.descendants().filter(|n| n.has_tag_name("text")) {
            let own: String = node
                .children()
                .filter(|c| c.is_text())
                .filter_map(|c| c.text())
                .collect();
            assert!(!own.contains('…'), "{target}: cut label {own:?}");
            if let Some(title) = node.children().find(|c| c.has_tag_name("title")) {
                fitted
                    .entry(title.text().unwrap().to_string())
                    .or_default()
                    .push(own.clone());
            }
            labels.push(own);
        }
        for (full, lines) in &fitted {
            // Its lines, as often as the label is drawn, in order.
            assert!(
                lines.join(" ").contains(full.as_str()),
                "{target}: {lines:?} do not give back {full:?}"
            );
        }
        if *target == "r740xd" {
            // Fits at its size now that it is measured (it had been shrunk by a guess).
            assert!(labels.iter().any(|l| l == "CPU1 PCIe stack 2 (bus 3a)"));
        } else {
            assert!(!fitted.is_empty(), "{target}");
        }
    }
}
