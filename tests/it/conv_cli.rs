//! Conventions, round 2 (issue 23): one meaning per short flag, `-` for stdout and stdin,
//! one diagnostic style in every command with `--ascii`/`LANG=C` and `--color`, the non-root
//! lspci warning (LP0335), gather archives as `--sysfs-root`, `man --dir`, `--help` without
//! docs paths, place warnings as finding objects.

use crate::common::{fixtures, laneplan, lspci_dump, run};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const BUILD: &str = "examples/r740xd-12nvme-micron9300.toml";
const CAPTURE: &str = "tests/fixtures/sysfs/r740xd-12nvme";

/// The subcommands `laneplan --help` lists (but `help`).
fn subcommands() -> Vec<String> {
    let (code, out, _) = run(laneplan().arg("--help"));
    assert_eq!(code, 0);
    let list: Vec<String> = out
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(list.len() >= 14, "{list:?}");
    list
}

/// `(short, long, description)` of every flag in a `--help` text that has a short form.
fn short_flags(help: &str) -> Vec<(char, String, String)> {
    help.lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let rest = t.strip_prefix('-')?;
            let mut c = rest.chars();
            let short = c.next()?;
            let after = c.as_str().strip_prefix(", --")?;
            let long: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            Some((short, long, after.to_string()))
        })
        .collect()
}

#[test]
fn short_o_means_output_in_every_subcommand_and_each_short_flag_one_thing() {
    let mut meanings: BTreeMap<char, BTreeSet<String>> = BTreeMap::new();
    let mut with_o = Vec::new();
    for sub in subcommands() {
        let (code, help, err) = run(laneplan().args([&sub, "--help"]));
        assert_eq!(code, 0, "{sub}: {err}");
        assert!(
            !help.contains("docs/"),
            "{sub} --help names a docs file: {help}"
        );
        for (short, long, rest) in short_flags(&help) {
            if short == 'o' {
                with_o.push(sub.clone());
                assert_eq!(long, "output", "{sub}: -o is --{long}");
                let what = help[help.find(&rest).unwrap()..].to_lowercase();
                assert!(what.contains("write"), "{sub}: -o does not write: {rest}");
            }
            meanings.entry(short).or_default().insert(long);
        }
    }
    assert_eq!(with_o, ["place", "dot", "learn"], "{with_o:?}");
    for (short, longs) in &meanings {
        assert_eq!(longs.len(), 1, "-{short} means {longs:?}");
    }
    assert_eq!(meanings[&'O'], BTreeSet::from(["option".to_string()]));
    // `-o KEY=VALUE` is no longer an option anywhere: show refuses it.
    let (code, _, err) = run(laneplan().args(["show", "r740xd", "-o", "front=24nvme"]));
    assert_eq!(code, 2, "{err}");
    let (code, out, _) = run(laneplan().args(["show", "r740xd", "-O", "front=24nvme"]));
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Dell EMC PowerEdge R740xd (front=24nvme)"),
        "{out}"
    );
}

#[test]
fn dash_is_stdout_for_outputs_and_stdin_for_inputs() {
    // Run in an empty directory: no file named `-` may appear.
    let cwd = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let at = |p: &str| root.join(p);
    let in_cwd = || {
        let mut c = laneplan();
        c.current_dir(cwd.path());
        c
    };
    let out = in_cwd()
        .args(["gather", "-", "--sysfs-root"])
        .arg(at(CAPTURE))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(&out.stdout[..2], &[0x1f, 0x8b], "gzip on stdout");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("wrote the archive to stdout: "));
    // The streamed archive replays like the capture.
    let elsewhere = tempfile::tempdir().unwrap();
    let archive = elsewhere.path().join("streamed.tar.gz");
    std::fs::write(&archive, &out.stdout).unwrap();
    let (code, replay, err) = run(laneplan().args(["audit", "--sysfs-root"]).arg(&archive));
    assert_eq!(code, 1, "{err}");
    assert!(
        replay.ends_with("3 errors, 1 warning, 2 notes\n"),
        "{replay}"
    );

    let (code, prom, _) = run(in_cwd()
        .args(["audit", "--prometheus", "-", "--sysfs-root"])
        .arg(at(CAPTURE)));
    assert_eq!(code, 1);
    assert!(prom.starts_with("# HELP laneplan_"), "{prom}");
    assert!(
        !prom.contains("error[") && !prom.contains("-[0000:"),
        "{prom}"
    );

    let (code, dot, _) = run(in_cwd().args(["dot", "r7415", "-O", "front=24nvme", "-o", "-"]));
    assert_eq!(code, 0);
    assert!(dot.starts_with("digraph"), "{dot}");

    let (code, svg, _) = run(in_cwd().arg("bays").arg(at(BUILD)).args(["--svg", "-"]));
    assert_eq!(code, 0);
    assert!(svg.contains("<svg"), "{svg}");

    let (code, toml_text, report) = run(in_cwd().args([
        "place",
        "r740xd",
        "--part",
        "micron-9300-pro-3.84tb=12",
        "--any-option",
        "-o",
        "-",
    ]));
    assert_eq!(code, 0, "{report}");
    let v: toml::Value = toml::from_str(&toml_text).unwrap();
    assert_eq!(v["platform"].as_str(), Some("r740xd"));
    assert!(
        report.starts_with("Placing on Dell EMC PowerEdge R740xd"),
        "{report}"
    );

    // `--lspci -` reads stdin: the same audit as the file, named <stdin>.
    let dump = lspci_dump("r740xd");
    let (code, from_file, _) = run(laneplan().args(["audit", "--json", "--lspci"]).arg(&dump));
    assert_eq!(code, 0);
    let (code, from_stdin, err) = run(laneplan()
        .args(["audit", "--json", "--lspci", "-"])
        .pipe_stdin(&dump)
        .unwrap());
    assert_eq!(code, 0, "{err}");
    let mut a: serde_json::Value = serde_json::from_str(&from_file).unwrap();
    let mut b: serde_json::Value = serde_json::from_str(&from_stdin).unwrap();
    assert_eq!(b["source"], "lspci:-");
    a["source"] = serde_json::Value::Null;
    b["source"] = serde_json::Value::Null;
    assert_eq!(a, b);

    // `-` is stdin for every other input too: a build (`check -`, `--against -`) and an
    // hwloc XML file give what the file gives; an error names <stdin>.
    let (code, from_file, _) = run(laneplan().args(["check", BUILD]));
    let (code2, from_stdin, err) = run(laneplan().args(["check", "-"]).pipe_stdin(BUILD).unwrap());
    assert_eq!((code, code2), (0, 0), "{err}");
    assert_eq!(
        from_file.lines().last(),
        Some("0 errors, 2 warnings, 1 note"),
        "{from_file}"
    );
    assert_eq!(from_file.lines().count(), from_stdin.lines().count());
    assert_eq!(from_file.lines().last(), from_stdin.lines().last());
    let (code, _, err) = run(laneplan().args(["check", "-"]).write_stdin("x = [\n"));
    assert_eq!(code, 2);
    assert!(err.starts_with("error: <stdin>:1:6:"), "{err}");
    let real = lspci_dump("r740xd");
    let (code, against, err) = run(laneplan()
        .args(["audit", "--lspci"])
        .arg(&real)
        .args(["--against", "-"])
        .pipe_stdin(BUILD)
        .unwrap());
    assert_eq!(code, 1, "{err}");
    assert!(
        against
            .lines()
            .any(|l| l.starts_with("error[LP0324]: Integrated storage controller slot: wrong part")),
        "{against}"
    );
    let xml = fixtures().join("shared/hwloc-xml/nvidiaDGX2.xml");
    let (code, from_file, _) = run(laneplan()
        .args(["audit", "--json", "--hwloc-xml"])
        .arg(&xml));
    let (code2, from_stdin, err) = run(laneplan()
        .args(["audit", "--json", "--hwloc-xml", "-"])
        .pipe_stdin(&xml)
        .unwrap());
    assert_eq!(code, code2, "{err}");
    let a: serde_json::Value = serde_json::from_str(&from_file).unwrap();
    let b: serde_json::Value = serde_json::from_str(&from_stdin).unwrap();
    assert_eq!(a["functions"], b["functions"]);
    assert_eq!(a["functions"].as_array().unwrap().len(), 84);

    // `learn -o -` cannot put three files on stdout: refused, nothing written.
    let (code, _, err) = run(in_cwd()
        .args(["learn", "--sysfs-root"])
        .arg(at(CAPTURE))
        .args(["-o", "-"]));
    assert_eq!(code, 2);
    assert!(err.contains("`-` (stdout) cannot hold them"), "{err}");

    let left: Vec<_> = std::fs::read_dir(cwd.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "files made in the cwd: {left:?}");
}

/// The first part of the text that is diagnostics: from the first `error[`, `warning[` or
/// `note[` line (or `error:`) to the end, with temp paths replaced.
fn diagnostics(text: &str, tmp: &Path) -> String {
    let start = text
        .lines()
        .position(|l| l.starts_with("error") || l.starts_with("warning[") || l.starts_with("note["))
        .unwrap_or(0);
    let body: Vec<&str> = text.lines().skip(start).collect();
    body.join("\n").replace(&tmp.display().to_string(), "TMP")
}

/// One diagnostic style in check, audit, a probe refusal, place and input errors; the
/// snapshot holds each command's diagnostics as printed (piped, `LANG=C`: ASCII).
#[test]
fn one_diagnostic_style_across_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let img = tmp.path().join("t.img");
    std::fs::write(&img, vec![7u8; 1 << 20]).unwrap();
    let bad = tmp.path().join("bad.toml");
    std::fs::write(&bad, "platform = \"r740\"\n").unwrap();
    let broken = tmp.path().join("broken.toml");
    std::fs::write(&broken, "platform = \"r740xd\"\n[[drive\n").unwrap();
    let cases: Vec<(&str, Vec<String>, i32, bool)> = vec![
        (
            "check",
            vec![
                "check".into(),
                "examples/wrong/nvme-in-sas-bay.toml".into(),
                "--no-tree".into(),
            ],
            1,
            false,
        ),
        (
            "audit",
            vec!["audit".into(), "--sysfs-root".into(), CAPTURE.into()],
            1,
            false,
        ),
        (
            "probe refusal",
            vec![
                "probe".into(),
                "--ios".into(),
                "10".into(),
                "--profile".into(),
                "4k-randwrite".into(),
                img.display().to_string(),
            ],
            2,
            true,
        ),
        (
            "place",
            vec![
                "place".into(),
                "r6525".into(),
                "--part".into(),
                "skhynix-pe8010-3.84tb=4".into(),
                "--top".into(),
                "1".into(),
            ],
            0,
            false,
        ),
        (
            "input error",
            vec!["check".into(), bad.display().to_string()],
            2,
            true,
        ),
        (
            "syntax error",
            vec!["check".into(), broken.display().to_string()],
            2,
            true,
        ),
        (
            "missing file",
            vec!["check".into(), "/nonexistent/build.toml".into()],
            2,
            true,
        ),
    ];
    let mut snap = String::new();
    for (name, args, want, on_stderr) in &cases {
        let (code, out, err) = run(laneplan().env("LANG", "C").env_remove("LC_ALL").args(args));
        assert_eq!(code, *want, "{name}: {err}");
        let text = if *on_stderr { &err } else { &out };
        assert!(text.is_ascii(), "{name}: {text}");
        assert!(!text.contains('\x1b'), "{name}");
        let d = diagnostics(text, tmp.path());
        // Every diagnostic starts `severity[LPxxxx]: ` or `error: `; `help:` only as `= help:`.
        for l in d.lines() {
            assert!(
                !l.starts_with("  help:") && !l.contains("(s)"),
                "{name}: {l}"
            );
        }
        snap.push_str(&format!("== {name} (exit {code})\n{d}\n"));
    }
    // The missing file has no `:1:1`.
    assert!(
        snap.contains("error: /nonexistent/build.toml: cannot read: no such file\n"),
        "{snap}"
    );
    assert!(!snap.contains("build.toml:1:1"));
    // Place's warnings are the same findings, pointing at the node.
    assert!(snap.contains("warning[LP0111]: SK hynix PE8010"), "{snap}");
    assert!(!snap.contains("candidate.toml"), "{snap}");
    insta::assert_snapshot!("one-diagnostic-style", snap);
}

#[test]
fn summary_lines_agree_in_number() {
    let (_, out, _) = run(laneplan().args(["audit", "--sysfs-root", CAPTURE]));
    assert!(out.ends_with("\n3 errors, 1 warning, 2 notes\n"), "{out}");
    let (_, out, _) = run(laneplan().args(["check", "examples/wrong/nvme-in-sas-bay.toml"]));
    assert!(out.ends_with("\n1 error, 0 warnings, 0 notes\n"), "{out}");
}

/// `--color always` paints in every command (check, audit, flow, parts, platforms, learn,
/// place, probe); `never` and a pipe under `auto` do not; `--ascii` keeps the colour.
#[test]
fn color_always_paints_every_command_and_never_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let img = tmp.path().join("t.img");
    std::fs::write(&img, vec![7u8; 4 << 20]).unwrap();
    let learned = tmp.path().join("learned");
    let dump = lspci_dump("r7525");
    let cases: Vec<Vec<String>> = vec![
        vec!["check".into(), BUILD.into()],
        vec!["audit".into(), "--sysfs-root".into(), CAPTURE.into()],
        vec!["flow".into(), BUILD.into()],
        vec!["parts".into()],
        vec!["platforms".into()],
        vec![
            "learn".into(),
            "--lspci".into(),
            dump.display().to_string(),
            "-o".into(),
            learned.display().to_string(),
            "--force".into(),
        ],
        vec![
            "place".into(),
            "r6525".into(),
            "--part".into(),
            "skhynix-pe8010-3.84tb=4".into(),
        ],
        vec![
            "probe".into(),
            img.display().to_string(),
            "--ios".into(),
            "64".into(),
            "-q".into(),
        ],
    ];
    for args in &cases {
        for ascii in [false, true] {
            let mut a = args.clone();
            if ascii {
                a.push("--ascii".into());
            }
            let (code, out, err) = run(laneplan().args(&a).args(["--color", "always"]));
            assert!(code == 0 || code == 1, "{a:?}: {err}");
            let both = format!("{out}{err}");
            assert!(both.contains("\x1b["), "{a:?}: no colour:\n{both}");
            // Our own SGR reaches the terminal, never as escaped text.
            assert!(!both.contains("\\u{1b}"), "{a:?}: {both}");
            let (_, out, err) = run(laneplan().args(&a).args(["--color", "never"]));
            assert!(!format!("{out}{err}").contains('\x1b'), "{a:?} never");
            let (_, out, err) = run(laneplan().args(&a).env_remove("CLICOLOR_FORCE"));
            assert!(!format!("{out}{err}").contains('\x1b'), "{a:?} auto, piped");
        }
    }
}

/// Diagnostics and probe tables in ASCII under `--ascii` / `LANG=C`: no `x` sign, box line or
/// `µs` (the probe's headers say `us`).
#[test]
fn ascii_diagnostics_and_probe_headers() {
    let tmp = tempfile::tempdir().unwrap();
    let img = tmp.path().join("t.img");
    std::fs::write(&img, vec![7u8; 4 << 20]).unwrap();
    let (code, out, err) = run(laneplan()
        .arg("probe")
        .arg(&img)
        .args(["--ios", "64", "-q", "--ascii"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.is_ascii() && err.is_ascii(), "{out}{err}");
    assert!(out.contains(" p99 us "), "{out}");
    let (_, out, err) = run(laneplan()
        .env("LANG", "C")
        .env_remove("LC_ALL")
        .args(["check", "/nonexistent/b.toml"]));
    assert!(
        out.is_empty() && err.is_ascii() && !err.contains('×'),
        "{err}"
    );
}

/// A dump taken without root has no capabilities: derived from the real R740xd capture the
/// way lspci prints it for a user (every capability list replaced by one `Capabilities:
/// <access denied>` line, the lines after it that need config space above 64 bytes gone).
fn non_root_dump(real: &str) -> String {
    let mut out = String::new();
    let mut in_caps = false;
    for line in real.lines() {
        let t = line.trim_start();
        if !line.starts_with(['\t', ' ']) {
            in_caps = false;
            out.push_str(line);
        } else if t.starts_with("Capabilities:") {
            if !in_caps {
                out.push_str("\tCapabilities: <access denied>");
                in_caps = true;
            } else {
                continue;
            }
        } else if t.starts_with("Kernel driver in use:") || t.starts_with("Kernel modules:") {
            in_caps = false;
            out.push_str(line);
        } else if in_caps {
            continue;
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[test]
fn a_non_root_dump_warns_lp0335_and_names_sudo() {
    let real = std::fs::read_to_string(lspci_dump("r740xd")).unwrap();
    let dump = non_root_dump(&real);
    assert!(!dump.contains("LnkSta:") && dump.contains("Capabilities: <access denied>"));
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("user.lspci-vvnn.txt");
    std::fs::write(&f, &dump).unwrap();
    let (code, out, err) = run(laneplan().args(["audit", "--lspci"]).arg(&f));
    assert_eq!(code, 0, "{err}");
    let denied = dump.matches("Capabilities: <access denied>").count();
    let functions = real
        .lines()
        .filter(|l| !l.starts_with(['\t', ' ']) && !l.trim().is_empty())
        .count();
    let first = dump
        .lines()
        .position(|l| l.contains("<access denied>"))
        .unwrap()
        + 1;
    let line = format!(
        "warning[LP0335]: {denied} of {functions} functions show `Capabilities: <access denied>` and the dump has 0 LnkSta lines: it was not captured as root, so links, link capabilities and AER are unknown"
    );
    assert!(
        out.contains(&format!("{line}\n  --> {}:{first}:1\n", f.display())),
        "{out}"
    );
    assert!(out.contains("  = help: capture it again as root: `sudo lspci -vvnn > lspci.txt`"));
    assert!(
        out.ends_with("0 errors, 1 warning, 0 notes\n") || out.contains(", 1 warning,"),
        "{out}"
    );
    // The real (root) capture has no such warning.
    let (_, out, _) = run(laneplan()
        .args(["audit", "--lspci"])
        .arg(lspci_dump("r740xd")));
    assert!(!out.contains("LP0335"), "{out}");
}

#[test]
fn a_gather_archive_is_a_sysfs_root_and_bad_archives_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("host.tar.gz");
    let (code, _, err) = run(laneplan()
        .args(["gather", "--sysfs-root", CAPTURE])
        .arg(&archive));
    assert_eq!(code, 0, "{err}");
    let (_, dir_json, _) = run(laneplan().args(["audit", "--json", "--sysfs-root", CAPTURE]));
    let (code, tar_json, err) = run(laneplan()
        .args(["audit", "--json", "--sysfs-root"])
        .arg(&archive));
    assert_eq!(code, 1, "{err}");
    let mut a: serde_json::Value = serde_json::from_str(&dir_json).unwrap();
    let mut b: serde_json::Value = serde_json::from_str(&tar_json).unwrap();
    assert_eq!(b["source"], format!("sysfs:{}", archive.display()));
    assert_eq!(b["drives"].as_array().unwrap().len(), 11);
    a["source"] = serde_json::Value::Null;
    b["source"] = serde_json::Value::Null;
    assert_eq!(a, b);
    // Nothing left behind in the temp directory.
    let before: BTreeSet<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("laneplan-capture-"))
        .collect();
    assert!(before.is_empty(), "{before:?}");

    // An entry that leaves the root, and one through a symlink: refused, nothing outside.
    let evil = |name: &str, entries: &[(&str, Option<&str>)]| {
        let p = tmp.path().join(name);
        let gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&p).unwrap(),
            flate2::Compression::fast(),
        );
        let mut t = tar::Builder::new(gz);
        for (path, link) in entries {
            let mut h = tar::Header::new_gnu();
            match link {
                Some(target) => {
                    h.set_entry_type(tar::EntryType::Symlink);
                    h.set_size(0);
                    t.append_link(&mut h, path, target).unwrap();
                }
                None => {
                    h.set_size(3);
                    h.set_mode(0o644);
                    h.set_cksum();
                    t.append_data(&mut h, path, &b"abc"[..]).unwrap();
                }
            }
        }
        t.into_inner().unwrap().finish().unwrap();
        p
    };
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let through = evil(
        "through.tar.gz",
        &[
            ("sys", Some(outside.to_str().unwrap())),
            ("sys/owned", None),
        ],
    );
    let (code, _, err) = run(laneplan().args(["audit", "--sysfs-root"]).arg(&through));
    assert_eq!(code, 2);
    assert!(err.contains("goes through a symlink"), "{err}");
    assert!(std::fs::read_dir(&outside).unwrap().next().is_none());
    let junk = tmp.path().join("junk.tar.gz");
    std::fs::write(&junk, b"not gzip").unwrap();
    let (code, _, err) = run(laneplan().args(["audit", "--sysfs-root"]).arg(&junk));
    assert_eq!(code, 2);
    assert!(err.contains("not a gzip file"), "{err}");
}

#[test]
fn man_dir_makes_the_directory_and_never_shows_a_temp_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("share/man/man1");
    let (code, out, err) = run(laneplan().args(["man", "--dir"]).arg(&dir));
    assert_eq!(code, 0, "{err}");
    assert!(dir.join("laneplan.1").is_file() && dir.join("laneplan-audit.1").is_file());
    let staging =
        |s: &str| s.contains(".man1.") || s.split_whitespace().any(|w| w.ends_with(".tmp"));
    assert!(!staging(&out) && !staging(&err), "{out}{err}");
    // A parent that is a file: an error naming DIR, no staging name.
    let file = tmp.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    let (code, out, err) = run(laneplan().args(["man", "--dir"]).arg(file.join("man1")));
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("cannot create {}", file.join("man1").display())),
        "{err}"
    );
    assert!(!staging(&out) && !staging(&err), "{err}");
    // The documents --help names are in the binary.
    let (code, doc, _) = run(laneplan().args(["man", "--doc", "JSON"]));
    assert_eq!(code, 0);
    assert_eq!(
        doc,
        std::fs::read_to_string(fixtures().join("../../docs/JSON.md")).unwrap()
    );
}

#[test]
fn place_warnings_are_finding_objects() {
    let (code, out, err) = run(laneplan().args([
        "place",
        "r6525",
        "--part",
        "skhynix-pe8010-3.84tb=4",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 3);
    let w = &v["best"]["warnings"][0];
    assert_eq!(w["code"], "LP0111");
    assert_eq!(w["severity"], "warning");
    assert_eq!(w["subject"]["kind"], "bay");
    assert_eq!(
        w["help"],
        "fit the Gen4 backplane and cable kit (option backplane=gen4-kit) to run it at Gen4"
    );
    assert!(
        w["location"]["node"]
            .as_str()
            .unwrap()
            .ends_with("> SK hynix PE8010 3.84 TB U.2"),
        "{w}"
    );
    assert!(w["location"].get("file").is_none(), "{w}");
    // The same keys as check's findings.
    let (_, check, _) = run(laneplan().args([
        "check",
        "examples/r6525-pe8010-gen3-backplane.toml",
        "--json",
    ]));
    let c: serde_json::Value = serde_json::from_str(&check).unwrap();
    let f = c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "LP0111")
        .unwrap();
    let keys = |o: &serde_json::Value| {
        o.as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(keys(w), keys(f));
}

#[test]
fn an_output_that_reads_as_a_platform_option_is_refused() {
    // The two runs: `-o front=...` (the old meaning of -o in `show`) wrote a file
    // named `front=...` with exit 0. Now -o is the output and such a name is refused, pointing
    // at -O; `./front=...` still writes a file of that name on purpose.
    let cwd = tempfile::tempdir().unwrap();
    let in_cwd = || {
        let mut c = laneplan();
        c.current_dir(cwd.path());
        c
    };
    let (code, _, err) = run(in_cwd().args([
        "place",
        "r740xd",
        "--part",
        "micron-9300-pro-3.84tb=4",
        "-o",
        "front=12nvme-12sas",
    ]));
    assert_eq!(code, 2);
    assert!(err.contains("`-O front=12nvme-12sas`"), "{err}");
    let (code, _, err) = run(in_cwd().args(["dot", "r740xd", "-o", "front=24nvme"]));
    assert_eq!(code, 2);
    assert!(err.contains("looks like a platform option"), "{err}");
    let (code, _, err) = run(in_cwd().args([
        "learn",
        "--sysfs-root",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/sysfs/r740xd-12nvme"
        ),
        "-o",
        "front=x",
    ]));
    assert_eq!(code, 2, "{err}");
    let made: Vec<_> = std::fs::read_dir(cwd.path()).unwrap().flatten().collect();
    assert!(made.is_empty(), "{made:?}");
    let (code, _, err) = run(in_cwd().args(["dot", "r740xd", "-o", "./front=24nvme"]));
    assert_eq!(code, 0, "{err}");
    assert!(cwd.path().join("front=24nvme").is_file());
}
