//! Issue 18 (hardening) regressions outside `learn`: the bounded text reader, the output-file
//! rule, control characters in names, renders of rejected builds, interrupted curves and the
//! small ones. Each test names the issue item it holds.

use crate::common::{laneplan, lspci_dump};
use std::path::Path;

/// The R740xd capture with NUL bytes INSERTED (the capture itself has none): after each of
/// its four Broadcom BCM5720 VPD blocks' `[RV] Reserved` line, 150 lines
/// `\t\t\t[x\0] Unknown: \0\0\0\0`, the shape of the public R740 dump in issue 18 item 11
/// (lspci prints the raw VPD key bytes of the LOM), 3,000 NULs in all. Returns the dump and
/// the 1-based line numbers of the inserted lines.
fn r740xd_with_vpd_nuls() -> (Vec<u8>, Vec<usize>) {
    let text = std::fs::read_to_string(lspci_dump("r740xd")).unwrap();
    let mut out = Vec::new();
    let mut inserted = Vec::new();
    let mut line_no = 0;
    for line in text.split_inclusive('\n') {
        out.extend_from_slice(line.as_bytes());
        line_no += 1;
        if line.contains("[RV] Reserved:") {
            for _ in 0..150 {
                out.extend_from_slice(b"\t\t\t[x\0] Unknown: \0\0\0\0\n");
                line_no += 1;
                inserted.push(line_no);
            }
        }
    }
    assert_eq!(inserted.len(), 600, "four VPD blocks in the capture");
    (out, inserted)
}

fn audit_json(dump: &Path) -> (Option<i32>, serde_json::Value) {
    let out = laneplan()
        .args(["audit", "--json", "--lspci"])
        .arg(dump)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), v)
}

/// Item 11: a dump with stray NULs in VPD lines is read (the same functions and verdicts as
/// the clean capture), the bytes are replaced and reported (LP0330, with every line), and a
/// binary file is still refused.
#[test]
fn item11_a_dump_with_nul_bytes_in_vpd_lines_is_read_and_the_bytes_reported() {
    let (bytes, inserted) = r740xd_with_vpd_nuls();
    assert_eq!(bytes.iter().filter(|&&b| b == 0).count(), 3000);
    let t = tempfile::tempdir().unwrap();
    let dump = t.path().join("r740-vpd-nul.txt");
    std::fs::write(&dump, &bytes).unwrap();
    let (clean_code, clean) = audit_json(&lspci_dump("r740xd"));
    let (code, v) = audit_json(&dump);
    assert_eq!(code, clean_code);
    assert_eq!(v["functions"], clean["functions"]);
    assert_eq!(v["functions"].as_array().unwrap().len(), 194);
    let findings = v["findings"].as_array().unwrap();
    let stray: Vec<_> = findings.iter().filter(|f| f["code"] == "LP0330").collect();
    assert_eq!(stray.len(), 1, "{findings:?}");
    let f = stray[0];
    assert_eq!(f["severity"], "warning");
    let lines: Vec<usize> = f["subject"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(lines, inserted);
    assert_eq!(f["location"]["line"], inserted[0]);
    assert_eq!(f["location"]["column"], 6);
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!(
            "3000 stray bytes (control characters or invalid UTF-8; 3000 NUL) replaced by U+FFFD on 600 lines: {}, ",
            inserted[0]
        )),
        "{msg}"
    );
    assert!(msg.ends_with(" and 590 more"), "{msg}");
    // No other finding is new: the replaced lines are read as VPD detail lines.
    let others: Vec<_> = findings.iter().filter(|f| f["code"] != "LP0330").collect();
    assert_eq!(others.len(), clean["findings"].as_array().unwrap().len());
    // A binary file is still refused (exit 2), at its first stray byte.
    let bin = t.path().join("a.out");
    let mut elf = b"\x7fELF\x02\x01\x01\0".to_vec();
    elf.extend(bytes.iter().take(4000));
    std::fs::write(&bin, &elf).unwrap();
    let out = laneplan()
        .args(["audit", "--lspci"])
        .arg(&bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a.out:1:1: binary data (a NUL byte): not an lspci dump"),
        "{err}"
    );
}

fn mkfifo(p: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        p,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
}

fn is_fifo(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(p).unwrap().file_type().is_fifo()
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

/// Runs the binary under `umask`, with `out` appended as its last argument.
fn under_umask(umask: &str, args: &[&str], out: &Path) -> (Option<i32>, String) {
    let bin = assert_cmd::cargo::cargo_bin("laneplan");
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$@\""))
        .arg("sh")
        .arg(bin)
        .args(args)
        .arg(out)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

/// Item 3 and the output-file rule: every command that writes a named file (`place -o`,
/// `dot -o`, `bays --svg`, `audit --prometheus`, `gather`) refuses a FIFO untouched (exit 2,
/// no hang), replaces a symlink's target and keeps the link, and makes new files 0666 less
/// the umask (0644 under 022, 0640 under 027); no temp file is left beside them.
#[test]
fn item3_every_named_output_follows_the_one_rule() {
    let root = crate::common::fixtures().join("sysfs/r740xd-12nvme");
    let root = root.to_str().unwrap().to_string();
    let place: &[&str] = &[
        "place",
        "r7415",
        "--part",
        "perc-h740p-mini",
        "--part",
        "samsung-pm1725a-1.6tb=4",
        "--option",
        "front=12nvme-12sas",
        "-o",
    ];
    let dot: &[&str] = &["dot", "r740xd", "-o"];
    let svg: &[&str] = &["bays", "r740xd", "--svg"];
    let prom: &[&str] = &["audit", "--sysfs-root", &root, "--prometheus"];
    let gather: &[&str] = &["gather", "--sysfs-root", &root];
    for args in [place, dot, svg, prom, gather] {
        let t = tempfile::tempdir().unwrap();
        let fifo = t.path().join("out");
        mkfifo(&fifo);
        let (code, err) = under_umask("022", args, &fifo);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is a FIFO: refusing to replace it"),
            "{args:?}: {err}"
        );
        assert!(is_fifo(&fifo), "{args:?}");
        let new = t.path().join("new");
        let (code, err) = under_umask("022", args, &new);
        assert!(code.is_some_and(|c| c <= 1), "{args:?}: {err}");
        assert_eq!(mode(&new), 0o644, "{args:?}");
        let private = t.path().join("private");
        under_umask("027", args, &private);
        assert_eq!(mode(&private), 0o640, "{args:?}");
        // A symlink: its target is replaced, the link stays a link.
        let real = t.path().join("real");
        std::fs::write(&real, "old").unwrap();
        let link = t.path().join("link");
        std::os::unix::fs::symlink("real", &link).unwrap();
        under_umask("022", args, &link);
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_ne!(std::fs::read(&real).unwrap(), b"old", "{args:?}");
        let mut names: Vec<String> = std::fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["link", "new", "out", "private", "real"], "{args:?}");
    }
}

/// The set writer (`man --dir`, and `learn -o`'s): only inside the named directory (a
/// symlinked or FIFO entry is refused, not followed, and nothing is written), a missing
/// directory appears whole, new files and the directory get the umask's modes, and a
/// refusal leaves no file and no staging directory.
#[test]
fn item2_a_set_of_files_is_written_whole_inside_its_directory_only() {
    use laneplan::outfile::{Existing, write_set};
    let t = tempfile::tempdir().unwrap();
    let victim = t.path().join("victim");
    std::fs::write(&victim, "keep").unwrap();
    // man --dir into a directory with a symlinked page: refused, the victim untouched.
    let man = t.path().join("man");
    std::fs::create_dir(&man).unwrap();
    std::os::unix::fs::symlink("../victim", man.join("laneplan-check.1")).unwrap();
    let (code, err) = under_umask("022", &["man", "--dir"], &man);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("laneplan-check.1 is a symlink: refusing to replace or follow it"),
        "{err}"
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    assert_eq!(
        std::fs::read_dir(&man).unwrap().count(),
        1,
        "nothing else written"
    );
    // A missing directory: made whole, 0755 and 0644 under umask 022.
    let fresh = t.path().join("fresh");
    let (code, err) = under_umask("022", &["man", "--dir"], &fresh);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(mode(&fresh), 0o755);
    assert_eq!(mode(&fresh.join("laneplan.1")), 0o644);
    assert_eq!(std::fs::read_dir(&fresh).unwrap().count(), 15);
    // Again into the existing directory: replaced, no staging directory left.
    let (code, err) = under_umask("022", &["man", "--dir"], &fresh);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read_dir(&fresh).unwrap().count(), 15);
    // The library: Refuse keeps an existing file and writes none of the set.
    let d = t.path().join("set");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("b.toml"), "mine").unwrap();
    let files: &[(&str, &[u8])] = &[("a.toml", b"a"), ("b.toml", b"b")];
    let e = write_set(&d, files, Existing::Refuse).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("b.toml exists: refusing to replace it"),
        "{e}"
    );
    let names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["b.toml"]);
    let fifo = d.join("c.toml");
    mkfifo(&fifo);
    let e = write_set(&d, &[("a.toml", b"a"), ("c.toml", b"c")], Existing::Replace).unwrap_err();
    assert!(e.to_string().contains("c.toml is a FIFO: refusing"), "{e}");
    assert!(is_fifo(&fifo));
    assert!(!d.join("a.toml").exists());
    // Names are one plain component: a path is never built from them.
    for bad in ["", "../x", "/abs", "a/b", ".hidden", "x\ny", ".."] {
        let e = write_set(&d, &[(bad, b"x")], Existing::Replace).unwrap_err();
        assert!(
            e.to_string().starts_with("output file name"),
            "{bad:?}: {e}"
        );
    }
    assert!(write_set(&d, &[("a", b"1"), ("a", b"2")], Existing::Replace).is_err());
    // Written: both files, the replaced one keeps its mode.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(d.join("b.toml"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let got = write_set(&d, files, Existing::Replace).unwrap();
    assert_eq!(got, [d.join("a.toml"), d.join("b.toml")]);
    assert_eq!(std::fs::read(d.join("b.toml")).unwrap(), b"b");
    assert_eq!(mode(&d.join("b.toml")), 0o600);
    let mut names: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a.toml", "b.toml", "c.toml"]);
    // The set's directory does not exist and its parent has a file of that name: refused.
    let e = write_set(&victim, files, Existing::Replace).unwrap_err();
    assert!(e.to_string().contains("not a directory"), "{e}");
}

/// The control characters item 6 names (ESC with an OSC title and a screen clear, BEL, DEL,
/// the C1 CSI), as TOML escapes and as they read.
const NASTY_TOML: &str = r"\u001b]0;pwned\u0007\u001b[2J\u007f\u009b";
const NASTY: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{7f}\u{9b}";
const NASTY_SHOWN: &str = r"\u{1b}]0;pwned\u{7}\u{1b}[2J\u{7f}\u{9b}";

/// No control character but line feed (and tab) in `s`.
fn no_controls(what: &str, s: &str) {
    let bad: Vec<char> = s
        .chars()
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\t'))
        .collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} in:\n{s}");
}

/// The other-vendor fixture platform copied with control characters in the platform name,
/// a slot kind's label and a part's name (as `learn` stored them before issue 18).
fn nasty_platform_dir() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let src = crate::common::fixtures().join("platforms");
    let dir = t.path().join("p");
    std::fs::create_dir(&dir).unwrap();
    let plat = std::fs::read_to_string(src.join("other-vendor/acme-g1u.toml")).unwrap();
    let plat = plat
        .replace(
            "name = \"Acme G1U generic 1U\"",
            &format!("name = \"Acme {NASTY_TOML} G1U\""),
        )
        .replace(
            "label = \"OCP NIC\"",
            &format!("label = \"OCP {NASTY_TOML} NIC\""),
        );
    std::fs::write(dir.join("acme-g1u.toml"), plat).unwrap();
    let parts = std::fs::read_to_string(src.join("other-vendor/acme-parts.toml")).unwrap();
    let parts = parts.replace(
        "name = \"Acme OCP NIC 2 x 25GbE\"",
        &format!("name = \"Acme {NASTY_TOML} NIC\""),
    );
    std::fs::write(dir.join("acme-parts.toml"), parts).unwrap();
    let build = t.path().join("build.toml");
    std::fs::copy(src.join("other-vendor-build.toml"), &build).unwrap();
    (t, dir, build)
}

/// Item 6 (outside learn): control characters in platform, slot kind and part names, and in
/// pci.ids device names, are escaped on the terminal by `platforms`, `show`, `check`, `parts`
/// and `audit` (shown as `\u{1b}`), in `bays --svg` (the file parses with roxmltree and
/// renders with rsvg-convert) and in `dot` (graphviz reads it).
#[test]
fn item6_control_characters_in_names_never_reach_the_output_raw() {
    let (t, dir, build) = nasty_platform_dir();
    let run = |args: &[&str]| {
        let out = laneplan()
            .arg("--platform-dir")
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let b = build.to_str().unwrap();
    for args in [
        &["platforms", "--wide"][..],
        &["show", "acme-g1u", "--wide"],
        &["check", b, "--wide"],
        &["parts", "--wide"],
        &["bays", b, "--wide"],
    ] {
        let (code, out, err) = run(args);
        assert!(code.is_some_and(|c| c <= 1), "{args:?}: {err}");
        no_controls(&format!("{args:?}"), &out);
        assert!(out.contains(NASTY_SHOWN), "{args:?}:\n{out}");
    }
    // JSON keeps the real characters, escaped as JSON does.
    let (_, out, _) = run(&["platforms", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(out.contains(r"\u001b]0;pwned\u0007"), "{out}");
    assert!(v.to_string().contains("pwned"));
    // SVG: parses, renders.
    let svg = t.path().join("bays.svg");
    let (code, _, err) = run(&["bays", b, "--svg", svg.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    no_controls("bays --svg", &text);
    roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    assert!(text.contains(NASTY_SHOWN), "{text}");
    let png = t.path().join("bays.png");
    let r = std::process::Command::new("rsvg-convert")
        .arg(&svg)
        .arg("-o")
        .arg(&png)
        .output()
        .expect("rsvg-convert is installed (librsvg2-bin)");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // DOT: graphviz reads it; the name is in it visibly.
    let (code, out, err) = run(&["dot", b]);
    assert!(code.is_some_and(|c| c <= 1), "{err}");
    no_controls("dot", &out);
    let r = std::process::Command::new("dot")
        .arg("-Tsvg")
        .arg("-o")
        .arg(t.path().join("g.svg"))
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(out.as_bytes())?;
            c.wait_with_output()
        })
        .expect("graphviz dot is installed");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // audit: a pci.ids whose vendor name carries them.
    let ids = std::fs::read_to_string(crate::common::fixtures().join("pci.ids")).unwrap();
    let ids = ids.replace("Micron Technology Inc", &format!("Micron{NASTY}"));
    let ids_path = t.path().join("pci.ids");
    std::fs::write(&ids_path, ids).unwrap();
    let root = crate::common::fixtures().join("sysfs/r740xd-12nvme");
    let out = laneplan()
        .arg("audit")
        .arg("--wide")
        .arg("--sysfs-root")
        .arg(&root)
        .arg("--pci-ids")
        .arg(&ids_path)
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    no_controls("audit", &out);
    assert!(out.contains(&format!("Micron{NASTY_SHOWN}")), "{out}");
}

/// Item 9: `flow`, `dot` and `bays` on a build `check` rejects exit 1 as `check` does, with
/// the same findings (text, JSON), and still render; the drive that did not fit is named.
#[test]
fn item9_renders_of_a_rejected_build_exit_1_with_checks_findings() {
    let build = "examples/wrong/nvme-in-sas-bay.toml";
    let codes = |v: &serde_json::Value| -> Vec<String> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    let check = laneplan()
        .args(["check", build, "--json"])
        .output()
        .unwrap();
    assert_eq!(check.status.code(), Some(1));
    let check: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(codes(&check), ["LP0103"]);
    let want = "error[LP0103]: bay 3 takes SAS/SATA drives; Micron 9300 PRO 3.84 TB U.2 is NVMe";
    // flow: text and JSON carry check's finding.
    let out = laneplan().args(["flow", build]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(want), "{text}");
    assert!(
        text.contains("No device with a performance spec in scope."),
        "{text}"
    );
    let out = laneplan().args(["flow", build, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(codes(&v), ["LP0103"]);
    assert_eq!(v["findings"][0], check["findings"][0]);
    // dot: the graph on stdout, the finding on stderr.
    let out = laneplan().args(["dot", build]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("digraph"));
    assert!(String::from_utf8_lossy(&out.stderr).contains(want));
    // bays: the picture, then the finding; with --json the finding on stderr.
    let out = laneplan().args(["bays", build]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains(want));
    let out = laneplan().args(["bays", build, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains(want));
    // A build check accepts still exits 0 everywhere.
    let good = "examples/r740xd-12nvme-micron9300.toml";
    for cmd in ["flow", "dot", "bays"] {
        let out = laneplan().args([cmd, good]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd}");
    }
}

/// Item 10: `bays --svg - --json` is refused before anything is written to stdout.
#[test]
fn item10_bays_svg_stdout_and_json_conflict_before_writing() {
    let out = laneplan()
        .args(["bays", "r740xd", "--svg", "-", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--json and --svg - both want stdout"));
}

fn probe_cmd() -> std::process::Command {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("laneplan"))
}

/// Item 8: a low --rate run is measured over its wall time: one I/O in a 1 s run is 1 IOPS
/// (it had been 763: one I/O over its own latency).
#[test]
fn item8_low_rate_iops_are_measured_over_the_runs_wall_time() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("r.img");
    crate::probe_common::random_file(&img, 1 << 20);
    for engine in ["sync", "io_uring"] {
        let out = probe_cmd()
            .args(["probe", "--rate", "0.05", "--runtime", "1s", "--ramp", "0"])
            .args(["--json", "--engine", engine])
            .arg(&img)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let dev = &v["devices"][0];
        assert_eq!(dev["ios"], 1, "{engine}");
        assert_eq!(dev["seconds"], 1.0, "{engine}");
        assert_eq!(dev["iops"], 1.0, "{engine}");
    }
}

/// Item 7: Ctrl-C during a `--curve --svg` sweep on a file the run created with `--size`:
/// exit 130, the SVG says it is partial, and the created file is removed (it had been kept
/// unless the interrupt came during the prefill).
#[test]
fn item7_an_interrupted_curve_marks_its_svg_and_removes_the_created_file() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("new.img");
    let svg = d.path().join("curve.svg");
    let child = probe_cmd()
        .args([
            "probe",
            "--curve",
            "--size",
            "4m",
            "--runtime",
            "300ms",
            "--ramp",
            "0",
        ])
        .arg("--svg")
        .arg(&svg)
        .arg("--json")
        .arg(&img)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The maximum run and a few steps (13 runs of 0.3 s in all), then the interrupt.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(img.exists(), "created");
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["interrupted"], true);
    let points = v["curves"][0]["points"].as_array().unwrap().len();
    assert!((2..13).contains(&points), "{points} points");
    let msg = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "LP0415")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        msg,
        format!(
            "interrupted: the figures cover only what was measured before the stop; the file this run created ({}) removed",
            img.display()
        )
    );
    assert!(!img.exists(), "the created file is removed");
    let text = std::fs::read_to_string(&svg).unwrap();
    roxmltree::Document::parse(&text).unwrap();
    assert!(text.contains("INTERRUPTED, partial curve: "), "{text}");
}

/// Item 10 (probe): `--runtime 100ns` is refused (fio's `--runtime=0`), 1ms is the least;
/// `--size 1p` is the limit the message names (accepted as a size, then too big for the
/// filesystem), 2p out of range; `probe F F --together` and F with a link to it refuse the
/// duplicate.
#[test]
fn item10_probe_bounds_and_duplicate_targets() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("r.img");
    crate::probe_common::random_file(&img, 1 << 20);
    let link = d.path().join("link.img");
    std::os::unix::fs::symlink(&img, &link).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        let o = probe_cmd().arg("probe").args(args).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    let (code, err) = run(&[os("--runtime"), os("100ns"), img.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    let (code, err) = run(&[os("--runtime"), os("100us"), img.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--runtime must be at least 1ms"), "{err}");
    let (code, err) = run(&[
        os("--runtime"),
        os("1ms"),
        os("--ramp"),
        os("0"),
        img.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let new = d.path().join("huge.img");
    let (code, err) = run(&[os("--size"), os("1p"), new.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--size 1125899906842624 bytes does not fit"),
        "{err}"
    );
    assert!(!new.exists());
    let (code, err) = run(&[os("--size"), os("2p"), new.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--size must be 512 bytes to 1p (1 PiB)"),
        "{err}"
    );
    for second in [&img, &link] {
        let (code, err) = run(&[
            os("--together"),
            os("--ios"),
            os("10"),
            img.as_os_str(),
            second.as_os_str(),
        ]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "{} and {} are the same target: --together would count it twice",
                img.display(),
                second.display()
            )),
            "{err}"
        );
    }
}

/// Item 10: part specs have upper bounds (1e308 GB/s is a located error, not "specs sum to
/// inf"); a repeated `--option` key is an error, not the last one winning.
#[test]
fn item10_part_spec_bounds_and_repeated_options() {
    let t = tempfile::tempdir().unwrap();
    let src = crate::common::fixtures().join("platforms/other-vendor");
    let dir = t.path().join("p");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(src.join("acme-g1u.toml"), dir.join("acme-g1u.toml")).unwrap();
    std::fs::copy(src.join("acme-parts.toml"), dir.join("acme-parts.toml")).unwrap();
    // A synthetic drive (no real part has such a spec): the shape of platforms/parts.toml's
    // first drive with 1e308 GB/s, the adversarial run's value.
    std::fs::write(
        dir.join("huge-parts.toml"),
        "[[part]]\nid = \"huge-drive\"\nname = \"Huge\"\nclass = \"nvme\"\ninterface = \"nvme\"\nsize = \"2.5\"\ngen = 3\nwidth = 4\nperf = { seq_read_gbs = 1e308, seq_write_gbs = 3.5, rand_read_iops = 850000, rand_write_iops = 100000 }\nsource = \"test\"\nconfidence = \"inferred\"\n",
    )
    .unwrap();
    let out = laneplan()
        .arg("--platform-dir")
        .arg(&dir)
        .arg("parts")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("huge-parts.toml:2:")
            && err.contains("part `huge-drive`: perf seq_read_gbs is 1e308: at most 1000"),
        "{err}"
    );
    // A repeated --option: show, bays, dot and place refuse it.
    for args in [
        &["show", "r740xd"][..],
        &["bays", "r740xd"],
        &["dot", "r740xd"],
        &["place", "r740xd", "--part", "boss-s1"],
    ] {
        let out = laneplan()
            .args(args)
            .args(["--option", "front=24nvme", "--option", "front=12nvme-12sas"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--option front given twice (front=24nvme and front=12nvme-12sas)"),
            "{args:?}: {err}"
        );
    }
}

/// Item 10: `gather` says which files of the capture it leaves out (a FIFO, a file over the
/// attribute cap) instead of dropping them without a word.
#[test]
fn item10_gather_reports_what_it_skips() {
    let (_t, root) = crate::common::own_copy("r740xd-12nvme");
    let d = root.join("sys/bus/pci/devices");
    let dev = std::fs::canonicalize(d.join("0000:5e:00.0")).unwrap();
    std::fs::remove_file(dev.join("numa_node")).unwrap();
    mkfifo(&dev.join("numa_node"));
    let dev2 = std::fs::canonicalize(d.join("0000:5f:00.0")).unwrap();
    std::fs::write(dev2.join("numa_node"), "0".repeat(1 << 20)).unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = laneplan()
        .arg("gather")
        .arg("--sysfs-root")
        .arg(&root)
        .arg(out_dir.path().join("c.tar.gz"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    let rel = |p: &Path| p.strip_prefix(&root).unwrap().display().to_string();
    assert!(err.contains("skipped 2 files (not archived):"), "{err}");
    assert!(
        err.contains(&format!(
            "  {}: not a regular file (a FIFO): skipped",
            rel(&dev.join("numa_node"))
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "  {}: larger than 64 KiB: not a sysfs attribute",
            rel(&dev2.join("numa_node"))
        )),
        "{err}"
    );
}

/// Found by the sysfs_tree fuzz target (a mutation of the hwloc-skx-2plx-ve seed; input in
/// tests/fixtures/fuzz/sysfs_tree-gather-replay): the gathered archive of a tree must replay
/// to the functions the audit found.
#[test]
fn fuzz_sysfs_tree_gather_replays_the_same_functions() {
    let data =
        std::fs::read(crate::common::fixtures().join("fuzz/sysfs_tree-gather-replay")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    laneplan::treetext::build(&root, &data);
    let audit = laneplan::host::audit_sysfs(&root, None, Default::default());
    let out = dir.path().join("c.tar.gz");
    laneplan::host::gather::gather(&root, &out, Default::default()).unwrap();
    let replay = dir.path().join("replay");
    std::fs::create_dir(&replay).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&out).unwrap(),
    ))
    .unpack(&replay)
    .unwrap();
    let again = laneplan::host::audit_sysfs(&replay, None, Default::default());
    let a: Vec<_> = audit.functions.iter().map(|f| f.bdf).collect();
    let b: Vec<_> = again.functions.iter().map(|f| f.bdf).collect();
    assert_eq!(a, b);
}
