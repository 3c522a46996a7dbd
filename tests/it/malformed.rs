//! The malformed-input corpus: every file in tests/fixtures/bad/ starts with
//! `# expect: LINE:COL: message`, and loading it must fail with exactly that location and a
//! message starting with that text. Never a panic.

use laneplan::plan;
use laneplan::platform::{Catalog, read_source};
use std::path::{Path, PathBuf};

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

fn expectation(path: &Path) -> (usize, usize, String) {
    let text = std::fs::read_to_string(path).expect("read");
    let first = text.lines().next().expect("first line");
    let rest = first
        .strip_prefix("# expect: ")
        .unwrap_or_else(|| panic!("{}: no `# expect:` line", path.display()));
    let mut it = rest.splitn(3, ':');
    let line = it.next().and_then(|l| l.trim().parse().ok()).expect("line");
    let col = it.next().and_then(|c| c.trim().parse().ok()).expect("col");
    (line, col, it.next().unwrap_or("").trim().to_string())
}

/// (line, column, message) of the first error loading this file.
fn first_error(path: &Path) -> (usize, usize, String) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let errors = if name.starts_with("build-") {
        let catalog = Catalog::builtin().expect("built-in catalog");
        match plan::check_build_file(&catalog, path) {
            Ok(_) => panic!("{name}: loaded without error"),
            Err(e) => e.errors,
        }
    } else {
        let mut catalog = Catalog::builtin().expect("built-in catalog");
        match catalog.add_file(read_source(path).expect("readable")) {
            Ok(()) => panic!("{name}: loaded without error"),
            Err(e) => e.errors,
        }
    };
    let e = errors.first().expect("at least one error");
    (e.line, e.column, e.message.clone())
}

#[test]
fn corpus_has_at_least_fifteen_files() {
    assert!(corpus().len() >= 15, "{} files", corpus().len());
}

#[test]
fn every_malformed_file_is_a_located_error() {
    let mut failures = Vec::new();
    for path in corpus() {
        let (line, col, msg) = expectation(&path);
        let (gl, gc, gm) = first_error(&path);
        if (gl, gc) != (line, col) || !gm.starts_with(&msg) {
            failures.push(format!(
                "{}: expected {line}:{col}: {msg}\n      got {gl}:{gc}: {gm}",
                path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn cli_prints_file_line_column_and_a_caret_snippet() {
    // A deep directory makes the path long, as on CI machines: the
    // "file:line:col: message" header must still stay on one line.
    let dir = tempfile::tempdir().unwrap();
    let deep = dir
        .path()
        .join("a-rather-long-directory-name/another-long-directory-name");
    std::fs::create_dir_all(&deep).unwrap();
    let path = deep.join("build-wrong-type.toml");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad/build-wrong-type.toml"),
        &path,
    )
    .unwrap();
    let out = assert_cmd::Command::cargo_bin("laneplan")
        .unwrap()
        .env("NO_COLOR", "1")
        .arg("check")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let header = format!(
        "{}:2:12: invalid type: integer `740`, expected a string",
        path.display()
    );
    assert!(
        err.lines().any(|l| l.contains(&header)),
        "no line holds {header:?}:\n{err}"
    );
    // The snippet quotes the offending line and points under the value.
    assert!(
        err.contains("2 | platform = 740\n  |            ^\n"),
        "{err}"
    );
}

#[test]
fn cli_rejects_a_bad_platform_dir_file_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad/platform-width-x3.toml");
    std::fs::copy(&src, dir.path().join("tiny.toml")).unwrap();
    let out = assert_cmd::Command::cargo_bin("laneplan")
        .unwrap()
        .env("NO_COLOR", "1")
        .arg("--platform-dir")
        .arg(dir.path())
        .arg("platforms")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tiny.toml:25:14: impossible link width x3"),
        "{err}"
    );
    assert!(err.contains("25 | electrical = 3"), "{err}");
    // One error reads as one error, without a summary line above it.
    assert!(!err.contains("error(s) in input"), "{err}");
}

#[test]
fn a_binary_file_is_an_input_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("junk.toml");
    std::fs::write(&p, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let catalog = Catalog::builtin().unwrap();
    let err = plan::check_build_file(&catalog, &p).unwrap_err();
    assert!(
        err.errors[0].message.starts_with("not UTF-8 text"),
        "{:?}",
        err.errors[0].message
    );
}

fn cli(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = assert_cmd::Command::cargo_bin("laneplan")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(args)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn mkfifo(p: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        p,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .expect("mkfifo");
}

/// Issue 12's done-when: an option choice that re-declares a base slot id made `show` loop
/// forever (validation dropped the duplicate, the port was linked to itself).
#[test]
fn an_option_that_redeclares_a_slot_id_is_a_located_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/bad/platform-option-redeclares-slot.toml");
    let text = std::fs::read_to_string(&src).unwrap();
    // Without the `# expect:` line, as a user would write it.
    let body = text.split_once('\n').unwrap().1;
    std::fs::write(dir.path().join("tiny.toml"), body).unwrap();
    let (code, err) = cli(&[
        "--platform-dir".as_ref(),
        dir.path().as_os_str(),
        "show".as_ref(),
        "tiny".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("tiny.toml:35:6: duplicate id `slot1`"),
        "{err}"
    );
    assert!(err.contains("first declared at line 21"), "{err}");
}

#[test]
fn fifos_never_hang_a_load() {
    let dir = tempfile::tempdir().unwrap();
    // A FIFO as the build file.
    let fifo = dir.path().join("build.toml");
    mkfifo(&fifo);
    let (code, err) = cli(&["check".as_ref(), fifo.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("cannot read: a FIFO; expected a regular file"),
        "{err}"
    );
    // A FIFO `*.toml` in --platform-dir.
    let pdir = dir.path().join("platforms");
    std::fs::create_dir(&pdir).unwrap();
    mkfifo(&pdir.join("x.toml"));
    let (code, err) = cli(&[
        "--platform-dir".as_ref(),
        pdir.as_os_str(),
        "platforms".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("x.toml"), "{err}");
    assert!(err.contains("a FIFO"), "{err}");
}

#[test]
fn an_oversized_build_file_is_refused_with_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.toml");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(laneplan::source::MAX_INPUT_BYTES + 1).unwrap();
    let catalog = Catalog::builtin().unwrap();
    let err = plan::check_build_file(&catalog, &p).unwrap_err();
    assert_eq!(
        err.errors[0].message,
        format!(
            "file is {} bytes; the limit is {} bytes",
            laneplan::source::MAX_INPUT_BYTES + 1,
            laneplan::source::MAX_INPUT_BYTES
        )
    );
}

#[test]
fn a_part_that_fits_an_undeclared_slot_kind_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("parts.toml"),
        "[[part]]\nid = \"x-nic\"\nname = \"X\"\nclass = \"nic\"\nfits = [\"ocp-nicc\"]\ngen = 4\nwidth = 8\n",
    )
    .unwrap();
    let err = Catalog::with_dir(Some(dir.path())).unwrap_err();
    let e = &err.errors[0];
    assert_eq!((e.line, e.column), (5, 9), "{}", e.message);
    assert_eq!(e.message, "unknown slot kind `ocp-nicc`");
    assert!(
        e.help.as_deref().unwrap().contains("mini-perc"),
        "{:?}",
        e.help
    );
}

#[test]
fn platform_ids_are_lowercase_and_looked_up_ignoring_case() {
    let catalog = Catalog::builtin().unwrap();
    assert!(catalog.platform("R740XD").is_some());
    let (code, err) = cli(&["show".as_ref(), "R740XD".as_ref()]);
    assert_eq!(code, Some(0), "{err}");
}

/// Issue 11 item 7: locating each finding rescanned the file, so a build of ~190k entries
/// never finished. Each entry here refills a full bay: one located finding per entry.
#[test]
fn many_findings_in_one_big_build_are_located_in_linear_time() {
    let mut b = String::from("platform = \"r740xd\"\n[options]\nfront = \"24nvme\"\n");
    let n = 40_000;
    for i in 0..n {
        b.push_str(&format!(
            "\n[[bay]]\nbays = \"{}\"\npart = \"micron-9300-pro-3.84tb\"\n",
            i % 24
        ));
    }
    let file = laneplan::source::SourceFile::new("big.toml", b);
    let build: laneplan::platform::schema::BuildFile = laneplan::source::parse_toml(&file).unwrap();
    let catalog = Catalog::builtin().unwrap();
    let t = std::time::Instant::now();
    let report = plan::check_build(&catalog, &build, file).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let refills: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.code == "LP0112")
        .collect();
    assert_eq!(refills.len(), n - 24);
    // The last entry's bays value sits on the file's last but one line.
    let last = refills
        .iter()
        .map(|f| f.location.line.unwrap())
        .max()
        .unwrap();
    assert_eq!(last, 3 + 4 * n - 1);
    // Quadratic location took minutes at this size even in a release build; linear takes
    // well under a second in release and a few in debug.
    assert!(secs < 20.0, "{secs} s");
}
