//! Text output fits the terminal: `COLUMNS` or `--width N` bounds every line (piped output
//! has no bound: lines are never cut), `--wide` lifts the bound, `--ascii` and a non-UTF-8 locale give plain ASCII, `--color` decides
//! colour. Snapshots at 80 and 120 columns for show, check, audit, bays and parts.

use assert_cmd::Command;

const BUILD: &str = "examples/r740xd-12nvme-micron9300.toml";
const CAPTURE: &str = "tests/fixtures/sysfs/r740xd-12nvme";

/// Every command with a text report, as a user types it.
const COMMANDS: &[&[&str]] = &[
    &["show", "r740xd"],
    &["show", "r7415"],
    &["show", "r6525"],
    &["check", BUILD],
    &["check", "examples/r7415-24nvme-switched.toml"],
    &["audit", "--sysfs-root", CAPTURE],
    &["audit", "--sysfs-root", CAPTURE, "--against", BUILD],
    &["audit", "--sysfs-root", CAPTURE, "--verbose"],
    &["bays", BUILD],
    &["bays", "r7415"],
    &["bays", "examples/r7415-24nvme-switched.toml"],
    &["parts"],
    &["flow", BUILD],
    &["flow", "examples/r7415-24nvme-switched.toml"],
    &["platforms"],
    &["probe", "--mapped", "--dry-run", "--sysfs-root", CAPTURE],
    &["place", "r740xd", "--part", "micron-9300-pro-3.84tb=12"],
    &[
        "audit",
        "--lspci",
        "tests/fixtures/shared/lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt",
        "--against",
        BUILD,
    ],
];

/// stdout of `laneplan ARGS` in a UTF-8 locale, piped, with `env` set on top.
fn run(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut c = Command::cargo_bin("laneplan").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE")
        .env_remove("COLUMNS")
        .env_remove("CLICOLOR_FORCE")
        .env("LANG", "C.UTF-8")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.args(args).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Lines longer than `width` display columns (characters, not bytes).
fn too_long(text: &str, width: usize) -> Vec<String> {
    text.lines()
        .filter(|l| l.chars().count() > width)
        .map(|l| format!("{} {l}", l.chars().count()))
        .collect()
}

#[test]
fn every_line_fits_40_80_and_120_columns() {
    for args in COMMANDS {
        for w in [40, 80, 120] {
            let text = run(args, &[("COLUMNS", &w.to_string())]);
            assert!(text.lines().count() > 3, "{args:?}: {text}");
            let long = too_long(&text, w);
            assert!(long.is_empty(), "{args:?} at {w}: {long:#?}");
            // Piped, the text is ASCII, so a byte-counting awk (mawk) agrees:
            // `COLUMNS=80 laneplan check B | awk '{ if (length > 80) n++ } END { print n+0 }'`
            // prints 0.
            assert!(text.is_ascii(), "{args:?} at {w}");
            // On a terminal (--utf8 here) box drawing fits by characters.
            let mut utf8 = vec!["--utf8"];
            utf8.extend_from_slice(args);
            let boxed = run(&utf8, &[("COLUMNS", &w.to_string())]);
            let long = too_long(&boxed, w);
            assert!(long.is_empty(), "{args:?} --utf8 at {w}: {long:#?}");
        }
    }
}

/// Piped output is never cut (as lspci and git): no width limit without a terminal unless
/// `COLUMNS` or `--width N` asks for one; `--wide` still lifts a limit.
#[test]
fn piped_output_is_never_cut_and_width_or_columns_choose_one() {
    for args in [&["parts"][..], &["check", BUILD], &["show", "r740xd"]] {
        let piped = run(args, &[]);
        assert!(
            !too_long(&piped, 80).is_empty(),
            "{args:?} piped is not cut"
        );
        assert!(
            !piped.contains("..."),
            "{args:?}: a piped line lost its tail"
        );
        let mut width_args = vec!["--width", "80"];
        width_args.extend_from_slice(args);
        assert!(
            too_long(&run(&width_args, &[]), 80).is_empty(),
            "{args:?} --width 80"
        );
        assert!(
            too_long(&run(args, &[("COLUMNS", "80")]), 80).is_empty(),
            "{args:?}"
        );
        // --width beats COLUMNS; --wide lifts COLUMNS.
        let w60 = run(
            &[&["--width", "60"][..], args].concat(),
            &[("COLUMNS", "200")],
        );
        assert!(too_long(&w60, 60).is_empty(), "{args:?} --width 60");
        let wide = run(&[&["--wide"][..], args].concat(), &[("COLUMNS", "80")]);
        assert!(!too_long(&wide, 80).is_empty(), "{args:?} --wide");
    }
    // --wide and --width together are a usage error.
    crate::common::laneplan()
        .args(["--wide", "--width", "80", "parts"])
        .assert()
        .code(2);
}

/// `laneplan parts | grep -i connectx-5` finds the part: its name is on one line.
#[test]
fn piped_parts_grep_finds_connectx_5() {
    let text = run(&["parts"], &[]);
    let hits: Vec<&str> = text
        .lines()
        .filter(|l| l.to_lowercase().contains("connectx-5"))
        .collect();
    assert_eq!(hits.len(), 1, "{hits:#?}");
    assert!(
        hits[0].starts_with("| mellanox-cx5-100g ")
            && hits[0].contains("| Mellanox ConnectX-5 2 x 100GbE ")
            && hits[0].contains("| Gen3 x16 "),
        "{}",
        hits[0]
    );
}

/// `audit --sysfs-root <R740xd capture> | grep -c MTFDHAL3T8TDP` counts every drive (11 in
/// the capture: bay 23's port is empty), and the tree keeps each link whole: the two
/// downtrained drives show speed, width and the DOWNTRAINED mark.
#[test]
fn piped_audit_keeps_every_drive_and_link_whole() {
    let text = run(&["audit", "--sysfs-root", CAPTURE], &[]);
    let drives = text.lines().filter(|l| l.contains("MTFDHAL3T8TDP")).count();
    let json: serde_json::Value =
        serde_json::from_str(&run(&["audit", "--sysfs-root", CAPTURE, "--json"], &[])).unwrap();
    assert_eq!(json["drives"].as_array().unwrap().len(), 11);
    assert_eq!(drives, 11, "{text}");
    assert!(text.lines().any(|l| l.ends_with(
        "-01.0-[b0]----00.0  Micron Technology Inc 9300 PRO NVMe SSD  [8.0 GT/s x2, max 8.0 GT/s x4, DOWNTRAINED]"
    )), "{text}");
    assert!(text.lines().any(|l| l.ends_with(
        "-01.0-[d9]----00.0  Micron Technology Inc 9300 PRO NVMe SSD  [2.5 GT/s x4, max 8.0 GT/s x4, DOWNTRAINED]"
    )), "{text}");
    assert!(!text.contains("..."), "{text}");
    // Each finding is one line: code, subject, what was expected and what was found.
    assert!(text.lines().any(|l| l.starts_with(
        "error[LP0302]: link downtrained (width): 0000:b0:00.0 (Micron Technology Inc 9300 PRO NVMe SSD) runs at 8.0 GT/s x2, expected 8.0 GT/s x4"
    )), "{text}");
}

/// `audit --lspci <the R740xd dump> --against <its build> | grep HBA330` prints the
/// wrong-part finding line with its code and slot.
#[test]
fn piped_against_grep_hba330_prints_the_wrong_part_finding() {
    let text = run(
        &[
            "audit",
            "--lspci",
            "tests/fixtures/shared/lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt",
            "--against",
            BUILD,
        ],
        &[],
    );
    let hits: Vec<&str> = text.lines().filter(|l| l.contains("HBA330")).collect();
    assert!(
        hits.contains(
            &"error[LP0324]: Integrated storage controller slot: wrong part: planned PERC H740P Mini (1000:0016), found HBA330 Mini (Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (Dell HBA330 Mini))"
        ),
        "{hits:#?}"
    );
    // No line that matches is a cut-off continuation without a code or place.
    for h in &hits {
        assert!(
            h.contains("LP0324")
                || h.contains("Integrated storage controller slot")
                || h.contains("0000:3b:00.0")
                || h.contains("-00.0  Broadcom / LSI SAS3008"),
            "{h}"
        );
    }
}

#[test]
fn ascii_when_asked_or_when_the_locale_is_not_utf8() {
    for args in [
        &["show", "r740xd"][..],
        &["check", BUILD],
        &["audit", "--sysfs-root", CAPTURE, "--against", BUILD],
        &["bays", BUILD],
        &["parts"],
        &["flow", BUILD],
    ] {
        // --utf8 (after the subcommand too) draws boxes, even under LANG=C...
        let mut utf8_args = args.to_vec();
        utf8_args.push("--utf8");
        assert!(!run(&utf8_args, &[]).is_ascii(), "{args:?}");
        assert!(!run(&utf8_args, &[("LANG", "C")]).is_ascii(), "{args:?}");
        // ...piped output (a pipe is no terminal), --ascii, LANG=C and LC_ALL=C do not.
        let mut ascii_args = args.to_vec();
        ascii_args.push("--ascii");
        for (how, text) in [
            ("piped", run(args, &[])),
            ("--ascii", run(&ascii_args, &[])),
            ("LANG=C", run(args, &[("LANG", "C")])),
            ("LC_ALL=C", run(args, &[("LC_ALL", "C")])),
            ("LC_CTYPE=POSIX", run(args, &[("LC_CTYPE", "POSIX")])),
        ] {
            let bad: Vec<char> = text.chars().filter(|c| !c.is_ascii()).collect();
            assert!(bad.is_empty(), "{args:?} {how}: {bad:?}");
        }
    }
    // --ascii and --utf8 together are a usage error.
    let mut c = Command::cargo_bin("laneplan").unwrap();
    c.args(["show", "r740xd", "--ascii", "--utf8"])
        .assert()
        .code(2);
    // On a terminal, a UTF-8 LC_ALL wins over a C LANG: `locale_is_utf8` and
    // `choose_ascii` have unit tests (a test has no terminal to print to).
    assert!(laneplan::render::term::locale_is_utf8(
        Some("en_US.UTF-8"),
        None,
        Some("C")
    ));
}

#[test]
fn color_flag_beside_no_color() {
    let bays = |color: &str, env: &[(&str, &str)]| run(&["bays", BUILD, "--color", color], env);
    // Piped and auto: no colour; always: colour even with NO_COLOR set; never: none even
    // when CLICOLOR_FORCE asks for it.
    assert!(!bays("auto", &[]).contains('\x1b'));
    assert!(bays("always", &[]).contains("\x1b["));
    assert!(!bays("never", &[("CLICOLOR_FORCE", "1")]).contains('\x1b'));
    // Auto honours CLICOLOR_FORCE unless NO_COLOR is set (anstream's rules).
    assert!(!bays("auto", &[("CLICOLOR_FORCE", "1")]).contains('\x1b'));
    // Coloured lines still fit: escapes take no columns.
    let c = bays("always", &[("COLUMNS", "80")]);
    let visible = strip_ansi(&c);
    assert!(too_long(&visible, 80).is_empty());
    let out = Command::cargo_bin("laneplan")
        .unwrap()
        .args(["parts", "--color", "sometimes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[possible values: auto, always, never]")
    );
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut esc = false;
    for c in s.chars() {
        if esc {
            esc = !c.is_ascii_alphabetic();
        } else if c == '\x1b' {
            esc = true;
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn truncated_values_stay_whole_in_json() {
    // The tree cuts the extender card's link at 80 columns; --json has it in full.
    let text = run(
        &["show", "r740xd", "-O", "front=12nvme-12sas"],
        &[("COLUMNS", "80")],
    );
    assert!(text.contains("..."), "{text}");
    let boxed = run(
        &["show", "r740xd", "-O", "front=12nvme-12sas", "--utf8"],
        &[("COLUMNS", "80")],
    );
    assert!(boxed.contains('…'), "{boxed}");
    let json = run(
        &["show", "r740xd", "-O", "front=12nvme-12sas", "--json"],
        &[("COLUMNS", "40")],
    );
    assert!(json.lines().any(|l| l.chars().count() > 80));
    serde_json::from_str::<serde_json::Value>(&json).unwrap();
}

#[test]
fn snapshots_at_80_and_120_columns() {
    let cases: &[(&str, &[&str])] = &[
        ("show-r740xd", &["show", "r740xd"]),
        ("check-r740xd-12nvme", &["check", BUILD]),
        ("audit-r740xd-12nvme", &["audit", "--sysfs-root", CAPTURE]),
        ("bays-r740xd-12nvme", &["bays", BUILD]),
        ("parts", &["parts"]),
    ];
    for (name, args) in cases {
        for w in [80, 120] {
            let mut utf8 = vec!["--utf8"];
            utf8.extend_from_slice(args);
            let text = run(&utf8, &[("COLUMNS", &w.to_string())]);
            insta::assert_snapshot!(format!("{name}-{w}"), text);
        }
    }
}

/// A probe's result table keeps the figures that matter at 80 columns and names what it
/// left out; the findings wrap. The one line allowed past the width is the equivalent fio
/// command, which a person copies whole.
#[test]
fn probe_results_fit_80_columns() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("t.img");
    let target = target.to_str().unwrap();
    let probe = |extra: &[&str]| {
        let mut args = vec![
            "--utf8",
            "probe",
            target,
            "--profile",
            "4k-randread",
            "--runtime",
            "1",
            "--ramp",
            "0",
            "-q",
        ];
        args.extend_from_slice(extra);
        run(&args, &[("COLUMNS", "80")])
    };
    let text = probe(&["--size", "16M"]);
    let long: Vec<String> = too_long(&text, 80)
        .into_iter()
        .filter(|l| !l.contains("same workload in fio: fio "))
        .collect();
    assert!(long.is_empty(), "{long:#?}\n{text}");
    assert!(
        text.contains("│ device ┆")
            && text.contains(" ┆ cycles/IO ┆ MB/s ┆")
            && text.contains("┆ p99 µs ┆ p99.9 µs ┆ ceiling ┆ expected │"),
        "{text}"
    );
    assert!(
        text.contains(
            "(not shown at this width: mean µs, p50 µs, max µs, CPU µs/IO; --wide or --json"
        ),
        "{text}"
    );
    let wide = probe(&["--wide"]);
    assert!(
        wide.contains("p50 µs") && !wide.contains("not shown"),
        "{wide}"
    );
}

/// The plan-against-host table at 80 columns keeps place, status, planned, found and the
/// found link (where a downtrain shows), names the columns it left out, and wraps each
/// problem line; a plan with nothing to compare says so instead of drawing an empty table.
#[test]
fn against_table_fits_and_keeps_the_found_link() {
    let text = run(
        &[
            "--utf8",
            "audit",
            "--sysfs-root",
            CAPTURE,
            "--against",
            BUILD,
        ],
        &[("COLUMNS", "80")],
    );
    assert!(too_long(&text, 80).is_empty(), "{text}");
    assert!(
        text.contains(
            "│ place      ┆ status      ┆ planned          ┆ found            ┆ found link  │"
        ),
        "{text}"
    );
    assert!(text.contains("(not shown at this width: matched by, planned link, BDF, NUMA;"));
    // Bay 17 trains x2 (of x4): the found link carries it.
    let bay17 = text.lines().find(|l| l.starts_with("│ Bay 17 ")).unwrap();
    assert!(
        bay17.contains("downtrained") && bay17.contains("8.0 GT/s x2"),
        "{bay17}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("empty.toml"),
        "platform = \"r7415\"\nname = \"Nothing in it\"\n",
    )
    .unwrap();
    let empty = run(
        &[
            "audit",
            "--sysfs-root",
            CAPTURE,
            "--against",
            dir.path().join("empty.toml").to_str().unwrap(),
        ],
        &[("COLUMNS", "80")],
    );
    assert!(
        empty.contains("(the plan has no bay, slot or card to compare with the host)"),
        "{empty}"
    );
}

#[test]
fn piped_bays_tables_keep_each_card_on_its_slot_line() {
    // The real R7525 capture: the OCP NIC's name wrapped onto a line without its slot when the
    // slot table was fitted to 120 columns on a pipe, so `| grep E810` lost "OCP 3.0".
    let dump = crate::common::lspci_dump("r7525");
    let (code, out, err) = crate::common::run(
        crate::common::laneplan()
            .env_remove("COLUMNS")
            .args(["bays", "r7525", "--lspci"])
            .arg(&dump),
    );
    assert_eq!(code, 0, "{err}");
    let line = |needle: &str| {
        out.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle}:\n{out}"))
            .to_string()
    };
    let ocp = line("E810-C");
    assert!(
        ocp.contains("OCP 3.0")
            && ocp.contains("Intel Corporation Ethernet Controller E810-C")
            && ocp.contains("Gen4 x16"),
        "{ocp}"
    );
    let slot2 = line("Xilinx");
    assert!(
        slot2.contains("Slot 2") && slot2.contains("Gen3 x16"),
        "{slot2}"
    );
}
