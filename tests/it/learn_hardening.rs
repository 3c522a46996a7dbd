//! `laneplan learn` held to the rules of the rest of the tool (issues 18, 22, 24): sockets,
//! slot labels and builds right on every real capture; ids validated; inputs read like
//! `audit --lspci`; outputs written as a set only where named; text escaped. Each
//! reproduction here failed before.

use crate::common::{fixtures, laneplan, lspci_dump};
use std::path::{Path, PathBuf};
use std::process::Output;

fn learn_cmd(args: &[&str], out: &Path) -> Output {
    laneplan()
        .arg("learn")
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn dump(host: &str) -> String {
    lspci_dump(host).display().to_string()
}

/// Every file below `dir` (relative names, sorted).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// Learns `srcs` (lspci dumps) with `--json`; returns the summary, the platform text and the
/// (found, planned) of `audit --against` the learned build on the first dump.
fn learn_and_audit(srcs: &[&str]) -> (serde_json::Value, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["--lspci"];
    args.extend_from_slice(srcs);
    args.extend_from_slice(&["--id", "learned", "--json"]);
    let o = learn_cmd(&args, dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let pdir = dir.path().join("platform");
    let build = dir.path().join("build.toml");
    let check = laneplan()
        .arg("--platform-dir")
        .arg(&pdir)
        .arg("check")
        .arg(&build)
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    let audit = laneplan()
        .args(["--wide", "--platform-dir"])
        .arg(&pdir)
        .args(["audit", "--lspci", srcs[0], "--against"])
        .arg(&build)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&audit.stdout).to_string();
    let found = text
        .lines()
        .find(|l| l.contains("planned found"))
        .unwrap_or_else(|| panic!("no count in {text}"))
        .trim()
        .to_string();
    let plat = std::fs::read_to_string(pdir.join("learned.toml")).unwrap();
    (summary, plat, found)
}

fn labels(plat: &str) -> Vec<String> {
    let doc: toml::Value = toml::from_str(plat).unwrap();
    doc.get("slot")
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .map(|s| s["label"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Every dump in `tests/fixtures/corpus/<model>/` and its host folders (`<model>/<id>/`).
fn corpus(platform: &str) -> Vec<String> {
    fn below(dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                below(&p, out);
            } else if p.to_string_lossy().ends_with(".lspci-vvnn.txt") {
                out.push(p.display().to_string());
            }
        }
    }
    let mut v = Vec::new();
    below(&fixtures().join("corpus").join(platform), &mut v);
    v.sort();
    v
}

#[test]
fn real_captures_learn_their_sockets_unique_labels_and_a_build_of_every_part() {
    for (host, sockets, labels_want, found) in [
        (
            "r7525",
            2,
            vec!["Slot 2", "Onboard at 0000:60:03.1"],
            "4 of 4 planned found",
        ),
        (
            "r7425",
            2,
            vec!["Onboard at 0000:00:01.1", "Slot 1", "Slot 3"],
            "3 of 3 planned found",
        ),
        (
            "r7515",
            1,
            vec![
                "Slot 5",
                "Slot 1",
                "Onboard at 0000:00:03.2 (reports slot 1)",
                "Onboard at 0000:c0:05.1",
            ],
            "4 of 4 planned found",
        ),
        (
            "r740xd",
            2,
            vec![
                "Onboard at 0000:00:1c.0",
                "Onboard at 0000:17:02.0",
                "Onboard at 0000:3a:02.0",
            ],
            "3 of 3 planned found",
        ),
    ] {
        let (summary, plat, got) = learn_and_audit(&[&dump(host)]);
        assert_eq!(summary["summary"]["sockets"], sockets, "{host}: {summary}");
        assert_eq!(
            summary["summary"]["sockets_from"], "cpu-functions",
            "{host}"
        );
        assert_eq!(labels(&plat), labels_want, "{host}");
        assert_eq!(got, found, "{host}");
    }
}

#[test]
fn corpus_captures_learn_sockets_and_plan_every_part() {
    // Each corpus capture by name: (platform folder, host id, sockets, planned found).
    let want: &[(&str, &str, u64, &str)] = &[
        ("r740xd", "BB55A2E30656", 2, "3 of 3"),
        ("r740xd", "952A49F90697", 2, "3 of 3"),
        ("r7525", "FFBAD7145460", 2, "4 of 4"),
        ("r7525", "6B51CAA01B7C", 2, "3 of 3"),
        ("r7515", "8E207635BBF5", 1, "2 of 2"),
        ("r7515", "9A7A286BD3E1", 1, "5 of 5"),
        ("r7515", "723F15A8AB49", 1, "4 of 4"),
        ("r7425", "EEF1E1F22650", 2, "5 of 5"),
        // Copies of the shared captures, and the R740 (the R740xd's system board).
        ("r740xd", "62F4A9812E0F", 2, "3 of 3"),
        ("r7425", "1C2794FDE243", 2, "3 of 3"),
        ("r740", "102E11A0DB9A", 2, "4 of 4"),
        ("r640", "34DAF9822B89", 2, "4 of 4"),
        ("r640", "88100BFA40CD", 2, "5 of 5"),
    ];
    // Every model folder of the corpus.
    let mut models: Vec<String> = std::fs::read_dir(fixtures().join("corpus"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    models.sort();
    let all: Vec<String> = models.iter().flat_map(|p| corpus(p)).collect();
    assert_eq!(
        all.len(),
        want.len(),
        "a corpus capture without its expected values"
    );
    for (platform, host, sockets, found) in want {
        let f = corpus(platform)
            .into_iter()
            .find(|f| f.contains(host))
            .unwrap_or_else(|| panic!("no {host} capture in corpus/{platform}"));
        {
            let (summary, plat, got) = learn_and_audit(&[&f]);
            assert_eq!(summary["summary"]["sockets"], *sockets, "{f}");
            assert_eq!(got, format!("{found} planned found"), "{f}");
            let l = labels(&plat);
            let mut u = l.clone();
            u.sort();
            u.dedup();
            assert_eq!(u.len(), l.len(), "duplicate labels in {f}: {l:?}");
        }
    }
}

#[test]
fn two_r7525_captures_merge_into_one_platform() {
    let second = corpus("r7525")
        .into_iter()
        .find(|f| f.contains("6B51CAA01B7C"))
        .expect("the R7525 6B51CAA01B7C capture");
    let (summary, plat, found) = learn_and_audit(&[&dump("r7525"), &second]);
    assert_eq!(summary["summary"]["captures"], 2);
    assert_eq!(summary["summary"]["sockets"], 2);
    // One platform: each position once, with the captures that show it.
    let doc: toml::Value = toml::from_str(&plat).unwrap();
    let rcs = doc["root_complex"].as_array().unwrap();
    let ids: std::collections::BTreeSet<&str> =
        rcs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), rcs.len());
    assert_eq!(rcs.len(), 11);
    assert_eq!(plat.matches("seen in 2 of 2 captures").count(), 3, "{plat}");
    // Root complexes and slots shown by one capture only (each table says it).
    assert_eq!(plat.matches("seen in 1 of 2 captures").count(), 11);
    assert_eq!(labels(&plat).len(), 3);
    // The build is the first capture's.
    assert_eq!(found, "4 of 4 planned found");
}

#[test]
fn the_built_in_platform_is_compared() {
    let dir = tempfile::tempdir().unwrap();
    let o = learn_cmd(
        &[
            "--lspci",
            &dump("r7425"),
            "--id",
            "x",
            "--platform",
            "r7425",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["differences"]["platform"], "r7425");
    assert_eq!(
        doc["differences"]["items"],
        serde_json::json!([{"kind": "slot-not-seen", "slot_number": 2, "learned": null, "builtin": "Slot 2"}])
    );
    let o = learn_cmd(
        &["--lspci", &dump("r7425"), "--platform", "nope"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bad_ids_are_refused_and_nothing_is_written() {
    let base = tempfile::tempdir().unwrap();
    let victim = base.path().join("victim");
    for id in [
        victim.display().to_string(),
        "../x".into(),
        "../../escaped".into(),
        "".into(),
        "x/y".into(),
        "a\nb".into(),
        "Upper".into(),
        ".hidden".into(),
    ] {
        let out = base.path().join("out");
        let o = learn_cmd(&["--lspci", &dump("r7525"), "--id", &id], &out);
        assert_eq!(o.status.code(), Some(2), "{id:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("id"), "{id:?}: {}", stderr(&o));
        assert!(!out.exists(), "{id:?}");
        assert_eq!(tree(base.path()), Vec::<String>::new(), "{id:?}");
    }
}

#[test]
fn existing_files_need_force_and_symlinks_are_never_followed() {
    let base = tempfile::tempdir().unwrap();
    let out = base.path().join("out");
    let args = ["--lspci", &dump("r7425"), "--id", "x"];
    assert_eq!(learn_cmd(&args, &out).status.code(), Some(0));
    std::fs::write(out.join("build.toml"), "mine").unwrap();
    let o = learn_cmd(&args, &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(out.join("build.toml")).unwrap(),
        "mine"
    );
    let mut forced = args.to_vec();
    forced.push("--force");
    assert_eq!(learn_cmd(&forced, &out).status.code(), Some(0));
    assert!(
        std::fs::read_to_string(out.join("build.toml"))
            .unwrap()
            .contains("platform = \"x\"")
    );
    // A build.toml that links out of DIR: refused, with --force too, its target untouched,
    // and the platform file not replaced either (the set is all or nothing).
    let victim = base.path().join("victim");
    std::fs::write(&victim, "keep").unwrap();
    std::fs::remove_file(out.join("build.toml")).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("build.toml")).unwrap();
    std::fs::write(out.join("platform/x.toml"), "old").unwrap();
    let o = learn_cmd(&forced, &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("symlink"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    assert_eq!(
        std::fs::read_to_string(out.join("platform/x.toml")).unwrap(),
        "old"
    );
    assert_eq!(tree(&out), ["build.toml", "platform/x.toml"]);
}

#[test]
fn the_dump_is_read_like_audit_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("empty.txt"), "").unwrap();
    std::fs::write(d.join("binary.bin"), b"\x7fELF\x02\x01\x01\x00\x00").unwrap();
    let mut utf16 = vec![0xff, 0xfe];
    for c in "00:00.0 Host bridge [0600]: x [8086:2020]\n".encode_utf16() {
        utf16.extend_from_slice(&c.to_le_bytes());
    }
    std::fs::write(d.join("utf16.txt"), utf16).unwrap();
    let fifo = d.join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let provenance = lspci_dump("r7525").parent().unwrap().join("PROVENANCE.txt");
    let out = d.join("out");
    for bad in [
        d.join("empty.txt"),
        d.join("binary.bin"),
        d.join("utf16.txt"),
        fifo.clone(),
        PathBuf::from("/dev/zero"),
        provenance,
        d.join("missing.txt"),
    ] {
        let b = bad.display().to_string();
        let t = std::time::Instant::now();
        let o = learn_cmd(&["--lspci", &b], &out);
        assert_eq!(o.status.code(), Some(2), "{b}: {}", stderr(&o));
        // The same refusal as audit's.
        let a = laneplan().args(["audit", "--lspci", &b]).output().unwrap();
        assert_eq!(a.status.code(), Some(2), "{b}");
        assert!(t.elapsed().as_secs() < 30, "{b}");
        assert!(!out.exists(), "{b}");
    }
    // --pci-ids named: a missing file or a FIFO is an error, with --lspci too.
    for ids in [d.join("nonexistent"), fifo] {
        let o = learn_cmd(
            &[
                "--lspci",
                &dump("r7425"),
                "--pci-ids",
                &ids.display().to_string(),
            ],
            &out,
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(!out.exists());
    }
}

#[test]
fn duplicate_bdfs_are_reported_like_audit_reports_them() {
    let text = std::fs::read_to_string(lspci_dump("r7425")).unwrap();
    // The whole dump twice: every BDF duplicated.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("dup.txt");
    std::fs::write(&f, format!("{text}\n{text}")).unwrap();
    let f = f.display().to_string();
    let a = laneplan().args(["audit", "--lspci", &f]).output().unwrap();
    assert!(String::from_utf8_lossy(&a.stdout).contains("LP0310"));
    let o = learn_cmd(&["--lspci", &f, "--id", "x"], &dir.path().join("out"));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("LP0310"), "{}", stderr(&o));
}

#[test]
fn a_path_with_a_newline_injects_no_toml() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("x\n[options]\ny");
    std::fs::create_dir(&sub).unwrap();
    let f = sub.join("dump.txt");
    std::fs::copy(lspci_dump("r7425"), &f).unwrap();
    let out = dir.path().join("out");
    let o = learn_cmd(&["--lspci", &f.display().to_string(), "--id", "x"], &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("\n[options]"));
    for name in tree(&out) {
        let t = std::fs::read_to_string(out.join(&name)).unwrap();
        assert!(!t.contains("\n[options]"), "{name}:\n{t}");
        toml::from_str::<toml::Value>(&t).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let build: toml::Value =
        toml::from_str(&std::fs::read_to_string(out.join("build.toml")).unwrap()).unwrap();
    assert_eq!(build["platform"].as_str(), Some("x"));
    let check = laneplan()
        .arg("--platform-dir")
        .arg(out.join("platform"))
        .arg("check")
        .arg(out.join("build.toml"))
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
}

#[test]
fn control_characters_in_names_are_not_stored() {
    // A device name with ESC, BEL and DEL (synthetic: lspci prints what pci.ids says).
    let text = std::fs::read_to_string(lspci_dump("r7425"))
        .unwrap()
        .replacen(
            "I350 Gigabit Network Connection",
            "I350 \x1b[31mRED\x07\x7f",
            1,
        );
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("ctl.txt");
    std::fs::write(&f, text).unwrap();
    let out = dir.path().join("out");
    let o = learn_cmd(&["--lspci", &f.display().to_string(), "--id", "x"], &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for name in tree(&out) {
        let t = std::fs::read(out.join(&name)).unwrap();
        assert!(
            !t.iter().any(|&b| b == 0x1b || b == 0x07 || b == 0x7f),
            "{name} holds a control byte"
        );
    }
    let show = laneplan()
        .arg("--platform-dir")
        .arg(out.join("platform"))
        .args(["show", "x"])
        .output()
        .unwrap();
    assert!(!show.stdout.contains(&0x1b));
}

#[test]
fn an_id_the_loader_would_refuse_beside_the_catalogue_writes_nothing() {
    // `r7425` is a built-in platform's id: the learned file would not load beside it.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = learn_cmd(&["--lspci", &dump("r7425"), "--id", "r7425"], &out);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("refusing to write"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn merging_captures_of_different_models_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let o = learn_cmd(
        &["--lspci", &dump("r7525"), &dump("r7515"), "--id", "x"],
        &dir.path().join("out"),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("LP0501"), "{e}");
    assert!(e.contains("2 sockets") && e.contains("1 sockets"), "{e}");
    // Captures of one model merge without it.
    let o = learn_cmd(
        &["--lspci", &dump("r7525"), &corpus("r7525")[0], "--id", "x"],
        &dir.path().join("out2"),
    );
    assert!(!stderr(&o).contains("LP0501"), "{}", stderr(&o));
}

#[test]
fn a_build_that_plans_nothing_is_said() {
    // A real capture whose only functions sit on a root bus: nothing to plan.
    let (_tmp, root) = crate::common::unpack("libnvme-power-nvme-multipath/tree-apple-nvme.tar.xz");
    let dir = tempfile::tempdir().unwrap();
    let o = learn_cmd(
        &[
            "--sysfs-root",
            &root.display().to_string(),
            "--id",
            "x",
            "--json",
        ],
        &dir.path().join("out"),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["summary"]["planned"], 0);
    assert_eq!(doc["findings"][0]["code"], "LP0500", "{doc}");
    // A capture with parts: no such warning.
    let o = learn_cmd(
        &["--lspci", &dump("r7425"), "--id", "x", "--json"],
        &dir.path().join("o2"),
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["findings"], serde_json::json!([]));
}
