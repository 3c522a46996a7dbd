//! Output files: regular files only, atomic, symlinks followed, modes kept (0644 for new files
//! under umask 022). The library helper, and the CLI flags that use it.

use crate::common;

use laneplan::outfile;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
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

/// The temp files the helper makes are gone afterwards (only `keep` remain).
fn only(dir: &Path, keep: &[&str]) {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(names, keep);
}

#[test]
fn new_file_gets_0666_less_the_umask() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("new.prom");
    // The umask is per process: this test binary sets it for its own files only.
    let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o022));
    outfile::write(&p, b"a 1\n").unwrap();
    let q = t.path().join("private.prom");
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    outfile::write(&q, b"b 2\n").unwrap();
    rustix::process::umask(old);
    assert_eq!(std::fs::read(&p).unwrap(), b"a 1\n");
    assert_eq!(mode(&p), 0o644);
    assert_eq!(mode(&q), 0o600);
    only(t.path(), &["new.prom", "private.prom"]);
}

#[test]
fn existing_file_keeps_its_mode_and_is_replaced_whole() {
    let t = tempfile::tempdir().unwrap();
    for m in [0o644, 0o640, 0o600, 0o664] {
        let p = t.path().join("out.prom");
        std::fs::write(&p, "old content that is longer than the new one\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(m)).unwrap();
        outfile::write(&p, b"new\n").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        assert_eq!(mode(&p), m, "{m:o}");
    }
    only(t.path(), &["out.prom"]);
}

#[test]
fn symlink_target_is_replaced_and_the_link_stays() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("real")).unwrap();
    let target = t.path().join("real/laneplan.prom");
    std::fs::write(&target, "old\n").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let link = t.path().join("link.prom");
    std::os::unix::fs::symlink("real/laneplan.prom", &link).unwrap();
    outfile::write(&link, b"new\n").unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).unwrap(), b"new\n");
    assert_eq!(mode(&target), 0o644);
    // A dangling link: its target is created.
    let dangling = t.path().join("dangling.prom");
    std::os::unix::fs::symlink("real/made.prom", &dangling).unwrap();
    outfile::write(&dangling, b"x\n").unwrap();
    assert_eq!(
        std::fs::read(t.path().join("real/made.prom")).unwrap(),
        b"x\n"
    );
    only(&t.path().join("real"), &["laneplan.prom", "made.prom"]);
}

#[test]
fn fifos_devices_and_directories_are_refused_untouched() {
    let t = tempfile::tempdir().unwrap();
    let fifo = t.path().join("fifo");
    mkfifo(&fifo);
    let e = outfile::write(&fifo, b"x").unwrap_err();
    assert!(
        e.to_string()
            .ends_with("is a FIFO: refusing to replace it (output goes to regular files only)"),
        "{e}"
    );
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );

    let dir = t.path().join("dir");
    std::fs::create_dir(&dir).unwrap();
    let e = outfile::write(&dir, b"x").unwrap_err();
    assert!(e.to_string().contains("is a directory: refusing"), "{e}");
    assert!(dir.is_dir());

    // A link to the FIFO is refused too, and says so.
    let link = t.path().join("to-fifo");
    std::os::unix::fs::symlink("fifo", &link).unwrap();
    let e = outfile::write(&link, b"x").unwrap_err();
    assert!(e.to_string().contains("(the target of symlink"), "{e}");

    // A copy of /dev/null (1:3) in the tempdir: a device node stays one.
    let null = t.path().join("null");
    match rustix::fs::mknodat(
        rustix::fs::CWD,
        &null,
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o666),
        rustix::fs::makedev(1, 3),
    ) {
        Ok(()) => {
            let e = outfile::write(&null, b"x").unwrap_err();
            assert!(
                e.to_string().contains("is a character device: refusing"),
                "{e}"
            );
            assert!(
                std::fs::symlink_metadata(&null)
                    .unwrap()
                    .file_type()
                    .is_char_device()
            );
        }
        Err(e) => {
            // Not root: the real /dev/null is a device node as well.
            if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
                panic!("mknod needs CAP_MKNOD: {e}");
            }
            eprintln!("SKIPPED: mknod (needs CAP_MKNOD: {e}); using /dev/null itself");
            let e = outfile::write(Path::new("/dev/null"), b"x").unwrap_err();
            assert!(
                e.to_string().contains("is a character device: refusing"),
                "{e}"
            );
        }
    }
    let mut keep = vec!["dir", "fifo", "to-fifo"];
    if std::fs::symlink_metadata(&null).is_ok() {
        keep.insert(2, "null");
    }
    only(t.path(), &keep);
}

use crate::common::laneplan;

#[test]
fn cli_prometheus_and_svg_use_the_same_rules() {
    let t = tempfile::tempdir().unwrap();
    let root = common::fixtures().join("sysfs/r740xd-12nvme");
    let ids = common::fixtures().join("pci.ids");
    // --prometheus into a FIFO: refused, exit 2, FIFO intact, no hang.
    let fifo = t.path().join("metrics.prom");
    mkfifo(&fifo);
    let out = laneplan()
        .arg("audit")
        .arg("--sysfs-root")
        .arg(&root)
        .arg("--pci-ids")
        .arg(&ids)
        .arg("--prometheus")
        .arg(&fifo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a FIFO: refusing to replace it"), "{err}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // An existing 0644 textfile behind a symlink stays 0644 and the link stays a link.
    let real = t.path().join("real.prom");
    std::fs::write(&real, "").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o644)).unwrap();
    let link = t.path().join("link.prom");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    laneplan()
        .arg("audit")
        .arg("--sysfs-root")
        .arg(&root)
        .arg("--pci-ids")
        .arg(&ids)
        .arg("--prometheus")
        .arg(&link)
        .assert()
        .code(predicates::ord::le(1));
    assert_eq!(mode(&real), 0o644);
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .contains("laneplan_")
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // gather: the same.
    let out = laneplan()
        .arg("gather")
        .arg(&fifo)
        .arg("--sysfs-root")
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a FIFO: refusing"));
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // bays --svg: the same.
    let out = laneplan()
        .args(["bays", "r740xd", "--svg"])
        .arg(&fifo)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a FIFO: refusing"));
    let svg = t.path().join("b.svg");
    laneplan()
        .args(["bays", "r740xd", "--svg"])
        .arg(&svg)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
}
