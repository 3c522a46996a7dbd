//! Shared helpers for the probe tests: files with known content, checksums, and loop
//! devices made on our own temp files (always detached, by a Drop guard).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes `len` bytes of pseudo-random data.
pub fn random_file(path: &Path, len: usize) {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut data = Vec::with_capacity(len);
    while data.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data.extend_from_slice(&x.to_le_bytes());
    }
    data.truncate(len);
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&data).unwrap();
    f.sync_all().unwrap();
}

/// FNV-1a over the file's bytes.
pub fn checksum(path: &Path) -> u64 {
    let data = std::fs::read(path).unwrap();
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A loop device over a file in a temp dir, with direct I/O on; detached on drop.
pub struct LoopDev {
    pub dev: PathBuf,
    pub backing: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
    }
}

/// Whether a loop device is required: `LANEPLAN_REQUIRE_LOOP=1`, or in CI (`CI=true`, which
/// CI services set), where a loop-device test that cannot make one fails instead of skipping.
pub fn loop_required() -> bool {
    std::env::var("LANEPLAN_REQUIRE_LOOP").as_deref() == Ok("1")
        || std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Makes a loop device, or says why not: `None` after printing `SKIPPED: ...`. When
/// [`loop_required`] a failure panics instead (CI runs as root).
pub fn loop_device(test: &str, size: usize) -> Option<LoopDev> {
    let dir = tempfile::tempdir().unwrap();
    let backing = dir.path().join("backing.img");
    random_file(&backing, size);
    let out = Command::new("losetup")
        .args(["--direct-io=on", "--find", "--show"])
        .arg(&backing)
        .output();
    let why = match out {
        Ok(o) if o.status.success() => {
            let dev = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            return Some(LoopDev {
                dev,
                backing,
                _dir: dir,
            });
        }
        Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
        Err(e) => format!("losetup: {e}"),
    };
    if loop_required() {
        panic!(
            "{test}: loop device required (CI=true or LANEPLAN_REQUIRE_LOOP=1) but could not be made: {why}"
        );
    }
    skipped(
        test,
        &format!(
            "cannot create a loop device ({why}); run as root, or set LANEPLAN_REQUIRE_LOOP=1 to make this a failure"
        ),
    );
    None
}

/// Says a test could not run: on stderr, and in the file `LANEPLAN_SKIP_LOG` names, which
/// scripts/test.sh counts into its summary (the harness hides a passing test's stderr).
pub fn skipped(test: &str, why: &str) {
    eprintln!("SKIPPED: {test}: {why}");
    if let Ok(log) = std::env::var("LANEPLAN_SKIP_LOG") {
        let line = format!("{test}: {why}\n");
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .and_then(|mut f| f.write_all(line.as_bytes()));
    }
}

/// A fresh zram device (made with zram-control's `hot_add`, so `/dev/zram0` and any other
/// in use are left alone), sized and filled with random data; removed on drop.
pub struct ZramDev {
    pub dev: PathBuf,
    id: String,
}

impl Drop for ZramDev {
    fn drop(&mut self) {
        let _ = std::fs::write(format!("/sys/block/zram{}/reset", self.id), "1");
        let _ = std::fs::write("/sys/class/zram-control/hot_remove", &self.id);
    }
}

/// Makes a zram device of `size` bytes, or says why not (`None` after `skipped`). With
/// `LANEPLAN_REQUIRE_ZRAM=1` a failure panics instead.
pub fn zram_device(test: &str, size: usize) -> Option<ZramDev> {
    let made = (|| -> Result<ZramDev, String> {
        let id = std::fs::read_to_string("/sys/class/zram-control/hot_add")
            .map_err(|e| {
                format!("/sys/class/zram-control/hot_add: {e} (is the zram module loaded?)")
            })?
            .trim()
            .to_string();
        let z = ZramDev {
            dev: PathBuf::from(format!("/dev/zram{id}")),
            id: id.clone(),
        };
        std::fs::write(format!("/sys/block/zram{id}/disksize"), size.to_string())
            .map_err(|e| format!("sizing zram{id}: {e}"))?;
        // The device node appears through udev (or devtmpfs) a moment later.
        for _ in 0..100 {
            if z.dev.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let data: Vec<u8> = (0..size / 8)
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()
            })
            .collect();
        std::fs::write(&z.dev, &data).map_err(|e| format!("filling {}: {e}", z.dev.display()))?;
        Ok(z)
    })();
    match made {
        Ok(z) => Some(z),
        Err(why) => {
            if std::env::var("LANEPLAN_REQUIRE_ZRAM").as_deref() == Ok("1") {
                panic!(
                    "{test}: zram required (LANEPLAN_REQUIRE_ZRAM=1) but could not be made: {why}"
                );
            }
            skipped(test, &format!("cannot create a zram device ({why})"));
            None
        }
    }
}

/// A loop device attached to a file the test owns (no direct I/O, as `losetup -f` gives);
/// unmounted (when mounted through [`Attached::mount`]) and detached on drop.
pub struct Attached {
    pub dev: PathBuf,
    mounted: Option<PathBuf>,
}

impl Attached {
    /// Kernel name (`loop3`).
    pub fn name(&self) -> String {
        self.dev.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// `mkfs.ext4 -q` and mount at `at`; panics when either fails (root was proven by
    /// attaching).
    pub fn mkfs_and_mount(&mut self, at: &Path) {
        run("mkfs.ext4", &["-q", "-F", self.dev.to_str().unwrap()]);
        std::fs::create_dir_all(at).unwrap();
        run("mount", &[self.dev.to_str().unwrap(), at.to_str().unwrap()]);
        self.mounted = Some(at.to_path_buf());
    }

    /// Unmounts (if mounted here), then `fsck.ext4 -fn`: whether the filesystem is clean,
    /// and fsck's output.
    pub fn umount_and_fsck(&mut self) -> (bool, String) {
        if let Some(m) = self.mounted.take() {
            run("umount", &[m.to_str().unwrap()]);
        }
        let out = Command::new("fsck.ext4")
            .args(["-fn"])
            .arg(&self.dev)
            .output()
            .expect("fsck.ext4 (e2fsprogs) is required");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        if let Some(m) = self.mounted.take() {
            let _ = Command::new("umount").arg(&m).status();
        }
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
    }
}

/// Runs a command that must succeed.
pub fn run(cmd: &str, args: &[&str]) {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `losetup -f --show FILE`, or says why not (`None` after `skipped`; a panic when
/// [`loop_required`]).
pub fn attach(test: &str, file: &Path) -> Option<Attached> {
    let out = Command::new("losetup")
        .args(["--find", "--show"])
        .arg(file)
        .output();
    let why = match out {
        Ok(o) if o.status.success() => {
            return Some(Attached {
                dev: PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
                mounted: None,
            });
        }
        Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
        Err(e) => format!("losetup: {e}"),
    };
    if loop_required() {
        panic!(
            "{test}: loop device required (CI=true or LANEPLAN_REQUIRE_LOOP=1) but could not be made: {why}"
        );
    }
    skipped(
        test,
        &format!("cannot attach a loop device ({why}); run as root"),
    );
    None
}
