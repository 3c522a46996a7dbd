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
    assert!(err.contains("2 │ platform = 740"), "{err}");
    assert!(err.contains("╰── here"), "{err}");
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
    assert!(err.contains("25 │ electrical = 3"), "{err}");
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
