//! Probe safety on real devices: nothing in use is written, whatever the flags. These tests
//! make loop devices (root); without one they skip and say so, and in CI (`CI=true`) they fail.

use crate::probe_common;

use assert_cmd::Command;
use laneplan::probe::safety::{Reason, SafetyChecker};
use laneplan::probe::target::TargetKind;
use probe_common::{attach, loop_required, skipped};
use std::path::Path;
use std::time::{Duration, Instant};

fn lp() -> Command {
    Command::cargo_bin("laneplan").unwrap()
}

fn sparse(path: &Path, len: u64) {
    let f = std::fs::File::create(path).unwrap();
    f.set_len(len).unwrap();
}

/// The recipe: `truncate -s128M a.img; d=$(losetup -f --show a.img); mkfs.ext4 -q $d;
/// mount $d m; laneplan probe a.img --rw randwrite --write --ios 2000 --qd 4; umount m;
/// fsck.ext4 -fn $d` corrupted the journal. Now the probe exits 2 naming the loop device,
/// with every flag combination, and fsck finds the filesystem clean.
#[test]
fn backing_file_of_a_mounted_loop_device_is_refused_and_the_fs_stays_clean() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("a.img");
    sparse(&img, 128 << 20);
    let Some(mut l) = attach("backing_file_of_a_mounted_loop_device", &img) else {
        return;
    };
    l.mkfs_and_mount(&d.path().join("m"));
    let name = l.name();
    let img_s = img.to_str().unwrap();
    for extra in [
        vec!["--rw", "randwrite", "--write"],
        vec!["--rw", "randwrite", "--write", "--destroy-data-on", img_s],
        vec!["--rw", "randread"],
    ] {
        let out = lp()
            .args(["probe", img_s, "--ios", "2000", "--qd", "4"])
            .args(&extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains("LP0406"), "{err}");
        assert!(
            err.contains(&format!(
                "{img_s} backs loop device /dev/{name}: writing it corrupts whatever uses /dev/{name}"
            )),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.stdout.is_empty());
    }
    let r = SafetyChecker::default()
        .check(&img, Some(TargetKind::File), true, true, &[])
        .unwrap_err();
    assert_eq!(r.reason, Reason::BacksLoop { loop_device: name });
    let (clean, fsck) = l.umount_and_fsck();
    assert!(clean, "fsck after the refused probe:\n{fsck}");
}

/// A backing file unlinked after `losetup` shows as `... (deleted)` in sysfs; the file it
/// still is, reached through a hard link, is found by inode (the loop driver's own record).
#[test]
fn deleted_backing_file_is_found_by_inode() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("a.img");
    sparse(&img, 8 << 20);
    let link = d.path().join("b.img");
    std::fs::hard_link(&img, &link).unwrap();
    let Some(l) = attach("deleted_backing_file_is_found_by_inode", &img) else {
        return;
    };
    std::fs::remove_file(&img).unwrap();
    let text =
        std::fs::read_to_string(format!("/sys/block/{}/loop/backing_file", l.name())).unwrap();
    assert!(text.trim().ends_with("(deleted)"), "{text}");
    let r = SafetyChecker::default()
        .check(&link, Some(TargetKind::File), false, false, &[])
        .unwrap_err();
    assert_eq!(
        r.reason,
        Reason::BacksLoop {
            loop_device: l.name()
        }
    );
    lp().args(["probe", "--ios", "10"])
        .arg(&link)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("LP0406"));
}

/// A loop device whose backing file also backs another, mounted, loop device: probing the
/// first would write under the second's filesystem.
#[test]
fn loop_device_whose_backing_file_is_in_use_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("shared.img");
    sparse(&img, 64 << 20);
    let Some(first) = attach("loop_device_whose_backing_file_is_in_use", &img) else {
        return;
    };
    let Some(mut second) = attach("loop_device_whose_backing_file_is_in_use", &img) else {
        return;
    };
    second.mkfs_and_mount(&d.path().join("m"));
    let m = std::fs::metadata(&first.dev).unwrap();
    use std::os::unix::fs::MetadataExt;
    let kind = TargetKind::BlockDevice {
        major: rustix::fs::major(m.rdev()),
        minor: rustix::fs::minor(m.rdev()),
    };
    let r = SafetyChecker::default()
        .check(&first.dev, Some(kind), false, false, &[])
        .unwrap_err();
    assert_eq!(
        r.reason,
        Reason::BacksLoop {
            loop_device: second.name()
        }
    );
    let dev = first.dev.display().to_string();
    lp().args([
        "probe",
        "--ios",
        "100",
        "--rw",
        "randwrite",
        "--write",
        "--destroy-data-on",
        &dev,
        &dev,
    ])
    .assert()
    .code(2)
    .stderr(predicates::str::contains(format!(
        "backs loop device /dev/{}",
        second.name()
    )));
    let (clean, fsck) = second.umount_and_fsck();
    assert!(clean, "{fsck}");
}

/// Waits until the checker sees what `ready` says it should (a child has just started).
fn eventually<T>(mut f: impl FnMut() -> Option<T>) -> T {
    let t = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "timed out");
        std::thread::sleep(Duration::from_millis(20));
    }
}

struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn file_open_for_writing_by_another_process_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("db.img");
    probe_common::random_file(&img, 1 << 20);
    let c = SafetyChecker::default();
    let kind = Some(TargetKind::File);
    assert_eq!(c.check(&img, kind, false, false, &[]), Ok(()));
    // A reader elsewhere is no reason to refuse.
    let reader = Child(
        std::process::Command::new("sh")
            .args(["-c", "exec 3<\"$0\"; exec sleep 30"])
            .arg(&img)
            .spawn()
            .unwrap(),
    );
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(c.check(&img, kind, false, false, &[]), Ok(()));
    drop(reader);
    let writer = Child(
        std::process::Command::new("sh")
            .args(["-c", "exec 3>>\"$0\"; exec sleep 30"])
            .arg(&img)
            .spawn()
            .unwrap(),
    );
    let pid = writer.0.id();
    let r = eventually(|| {
        c.check(&img, kind, false, false, &[]).err().filter(
            |r| matches!(&r.reason, Reason::OpenForWriting { command, .. } if command == "sleep"),
        )
    });
    assert_eq!(
        r.reason,
        Reason::OpenForWriting {
            pid,
            command: "sleep".into()
        }
    );
    lp().args(["probe", "--ios", "10"])
        .arg(&img)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "is open for writing by process {pid} (sleep)"
        )));
    drop(writer);
    assert_eq!(c.check(&img, kind, false, false, &[]), Ok(()));
}

#[test]
fn file_locked_by_another_process_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("locked.img");
    probe_common::random_file(&img, 1 << 20);
    let Ok(child) = std::process::Command::new("flock")
        .arg(&img)
        .args(["sleep", "30"])
        .spawn()
    else {
        if loop_required() {
            panic!("flock (util-linux) is required");
        }
        skipped("file_locked_by_another_process_is_refused", "no flock");
        return;
    };
    let child = Child(child);
    let pid = i64::from(child.0.id());
    let c = SafetyChecker::default();
    let r = eventually(|| {
        c.check(&img, Some(TargetKind::File), false, false, &[])
            .err()
    });
    assert_eq!(
        r.reason,
        Reason::Locked {
            pid,
            kind: "FLOCK WRITE".into()
        }
    );
}

/// Ctrl-C while `--rate` waits 20 s for the next I/O: the probe stops within a second,
/// exits 130 and still prints what it measured, marked interrupted.
#[test]
fn ctrl_c_interrupts_a_rate_wait_and_exits_130() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("r.img");
    probe_common::random_file(&img, 1 << 20);
    for engine in ["sync", "io_uring"] {
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("laneplan"))
            .args([
                "probe",
                "--rate",
                "0.05",
                "--runtime",
                "60s",
                "--ramp",
                "0",
                "--qd",
                "2",
                "--json",
                "--engine",
                engine,
            ])
            .arg(&img)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(2));
        // SAFETY: sending a signal to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let sent = Instant::now();
        let out = child.wait_with_output().unwrap();
        let took = sent.elapsed();
        assert!(
            took < Duration::from_secs(1),
            "{engine}: exit took {took:?}"
        );
        assert_eq!(
            out.status.code(),
            Some(130),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["interrupted"], true);
        // The first I/O goes at t = 0: measured and kept.
        assert_eq!(v["devices"][0]["ios"], 1, "{engine}");
        assert!(
            v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == "LP0415")
        );
    }
}

/// Every bounded flag: out-of-range values are usage errors (exit 2), never a panic.
#[test]
fn out_of_range_flags_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("r.img");
    probe_common::random_file(&img, 1 << 20);
    for (flag, value, says) in [
        ("--runtime", "2e19s", "is too long: at most 30 days"),
        ("--ramp", "1e20s", "is too long: at most 30 days"),
        ("--runtime", "nan", "is not a duration"),
        ("--ios", "0", "--ios must be 1 to 1000000000000"),
        ("--ios", "99999999999999999999", "is not a count"),
        ("--rate", "inf", "--rate must be between"),
        ("--rate", "-5", "--rate must be between"),
        ("--ceiling-read", "-1", "it must be more than 0"),
        ("--ceiling-read", "nan", "it must be more than 0"),
        ("--ceiling-write", "inf", "it must be more than 0"),
        ("--working-set", "0", "must be a fraction"),
        ("--qd", "0", "--qd must be 1..=4096"),
        ("--qd", "99999", "--qd must be 1..=4096"),
        ("--jobs", "100000", "--jobs must be 1..=256"),
    ] {
        let out = lp()
            .args(["probe", flag, value])
            .arg(&img)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(says), "{flag} {value}: {err}");
        assert!(!err.contains("panicked"), "{flag} {value}: {err}");
    }
    // Buffers past 4 GiB per device.
    lp().args(["probe", "--bs", "64m", "--qd", "4096", "--jobs", "256"])
        .arg(&img)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("at most 4294967296 (4 GiB)"));
}

/// `--size 0` and `--size 100t` leave no file behind (checked before creating), nor does a
/// failure after creating it.
#[test]
fn bad_sizes_leave_no_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("new.img");
    lp().args(["probe", "--ios", "10", "--size", "0"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--size must be 512 bytes to 1p"));
    assert!(!f.exists());
    lp().args(["probe", "--ios", "10", "--size", "100t"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("does not fit"))
        .stderr(predicates::str::contains("nothing was created"));
    assert!(!f.exists());
    // Created, then refused (the working set is smaller than one I/O): removed again.
    lp().args(["probe", "--ios", "10", "--size", "4k", "--bs", "64k"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("smaller than one I/O"));
    assert!(!f.exists());
}

/// A missing node under /dev is a missing device: no hint to create it with --size, and
/// --size creates nothing there.
#[test]
fn missing_device_is_not_offered_a_file() {
    for extra in [vec![], vec!["--size", "1g"]] {
        let out = lp()
            .args(["probe", "--ios", "10"])
            .args(&extra)
            .arg("/dev/nvme97n1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(
                "/dev/nvme97n1: no such device on this host (nothing is created under /dev)"
            ),
            "{err}"
        );
        assert!(!err.contains("give --size"), "{err}");
        assert!(!Path::new("/dev/nvme97n1").exists());
    }
}

/// Ctrl-C while a new file target is prefilled: exit 130, and the file is gone.
#[test]
fn ctrl_c_while_prefilling_removes_the_new_file() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("big.img");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("laneplan"))
        .args([
            "probe",
            "--size",
            "2g",
            "--working-set",
            "100%",
            "--ios",
            "10",
        ])
        .arg(&f)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the file exists (created, prefill under way), then interrupt.
    let t = Instant::now();
    while !f.exists() && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted while prefilling it; the file this run created was removed"),
        "{err}"
    );
    assert!(!f.exists());
}

/// A block device another process has open for writing (a VM's raw disk, say).
#[test]
fn block_device_open_for_writing_by_another_process_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("disk.img");
    sparse(&img, 8 << 20);
    let Some(l) = attach("block_device_open_for_writing_by_another_process", &img) else {
        return;
    };
    let dev = l.dev.display().to_string();
    lp().args(["probe", "--ios", "10", &dev]).assert().success();
    let writer = Child(
        std::process::Command::new("sh")
            .args(["-c", "exec 3<>\"$0\"; exec sleep 30"])
            .arg(&l.dev)
            .spawn()
            .unwrap(),
    );
    let pid = writer.0.id();
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(&l.dev).unwrap();
    let kind = Some(TargetKind::BlockDevice {
        major: rustix::fs::major(m.rdev()),
        minor: rustix::fs::minor(m.rdev()),
    });
    let r = eventually(|| {
        SafetyChecker::default()
            .check(&l.dev, kind, false, false, &[])
            .err()
            .filter(|r| matches!(&r.reason, Reason::OpenForWriting { command, .. } if command == "sleep"))
    });
    assert_eq!(
        r.reason,
        Reason::OpenForWriting {
            pid,
            command: "sleep".into()
        }
    );
    lp().args(["probe", "--ios", "10", &dev])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("LP0408"));
}

/// A FIFO as `--trace` is refused at once (opening it must not wait for a writer).
#[test]
fn fifo_trace_is_refused_without_hanging() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("trace.fifo");
    probe_common::run("mkfifo", &[fifo.to_str().unwrap()]);
    let img = d.path().join("r.img");
    probe_common::random_file(&img, 1 << 20);
    lp().args(["probe", "--ios", "10", "--trace"])
        .arg(&fifo)
        .arg(&img)
        .timeout(Duration::from_secs(10))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("a trace must be a regular file"));
}
