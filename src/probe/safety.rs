//! Safety: nothing is lost. Probes read by default; writes need `--write`, and a block device
//! also `--destroy-data-on` naming it. A block device in use (a mounted filesystem on it or on
//! one of its partitions, holders such as LVM/md/dm, swap) is refused whatever the flags.
//!
//! The `/proc` and `/sys` roots are configurable so tests can feed fake mount tables and
//! sysfs trees.

use std::collections::BTreeSet;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Why a probe was refused: a stable code, a message naming the device and the reason, and
/// what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Refusal {
    pub code: &'static str,
    pub message: String,
    pub help: String,
}

/// Refusal codes.
pub const WRITE_NOT_ALLOWED: &str = "LP0401";
pub const DESTROY_NOT_NAMED: &str = "LP0402";
pub const MOUNTED: &str = "LP0403";
pub const HAS_HOLDERS: &str = "LP0404";
pub const SWAP: &str = "LP0405";

/// A block device's identity as the checks see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockIdent {
    /// Kernel name (`loop3`, `nvme0n1`).
    pub name: String,
    /// `(name, major, minor)` of the device and each of its partitions.
    pub members: Vec<(String, u32, u32)>,
    /// sysfs directory of the whole device.
    pub sys_dir: PathBuf,
}

#[derive(Debug, Clone)]
pub struct SafetyChecker {
    pub proc_root: PathBuf,
    pub sys_root: PathBuf,
}

impl Default for SafetyChecker {
    fn default() -> Self {
        SafetyChecker {
            proc_root: PathBuf::from("/proc"),
            sys_root: PathBuf::from("/sys"),
        }
    }
}

fn read_trim(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

fn parse_majmin(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Undoes the octal escapes of /proc/mounts (`\040` for a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl SafetyChecker {
    pub fn with_roots(proc_root: impl Into<PathBuf>, sys_root: impl Into<PathBuf>) -> Self {
        SafetyChecker {
            proc_root: proc_root.into(),
            sys_root: sys_root.into(),
        }
    }

    /// Looks up a block device by its numbers under `<sys>/dev/block/M:m` and lists its
    /// partitions.
    pub fn ident(&self, major: u32, minor: u32) -> Option<BlockIdent> {
        let link = self.sys_root.join(format!("dev/block/{major}:{minor}"));
        let dir = std::fs::canonicalize(&link).unwrap_or(link);
        if !dir.is_dir() {
            return None;
        }
        let name = read_trim(&dir.join("uevent"))
            .and_then(|u| {
                u.lines()
                    .find_map(|l| l.strip_prefix("DEVNAME=").map(str::to_string))
            })
            .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))?;
        let mut members = vec![(name.clone(), major, minor)];
        if let Ok(rd) = std::fs::read_dir(&dir) {
            let mut parts: Vec<(String, u32, u32)> = rd
                .flatten()
                .filter(|e| e.path().join("partition").exists())
                .filter_map(|e| {
                    let (ma, mi) = parse_majmin(&read_trim(&e.path().join("dev"))?)?;
                    Some((e.file_name().to_string_lossy().into_owned(), ma, mi))
                })
                .collect();
            parts.sort();
            members.extend(parts);
        }
        Some(BlockIdent {
            name,
            members,
            sys_dir: dir,
        })
    }

    fn member_of(&self, ident: &BlockIdent, source: &str) -> Option<String> {
        // By numbers, when the source is a device node on this machine.
        if source.starts_with('/')
            && let Ok(m) = std::fs::metadata(source)
            && m.file_type().is_block_device()
        {
            let (ma, mi) = (rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev()));
            if let Some(x) = ident.members.iter().find(|x| x.1 == ma && x.2 == mi) {
                return Some(x.0.clone());
            }
        }
        // By kernel name (`/dev/loop3p1`, `/dev/mapper/..` resolved to `dm-0`).
        let resolved = std::fs::canonicalize(source)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| source.to_string());
        let base = Path::new(&resolved)
            .file_name()?
            .to_string_lossy()
            .into_owned();
        ident
            .members
            .iter()
            .find(|x| x.0 == base)
            .map(|x| x.0.clone())
    }

    /// Everything that makes a block device unsafe to touch, as refusals (empty when free).
    pub fn in_use(&self, ident: &BlockIdent, shown: &str) -> Vec<Refusal> {
        let mut out = Vec::new();
        let numbers: BTreeSet<(u32, u32)> = ident.members.iter().map(|x| (x.1, x.2)).collect();
        let mut mounted: BTreeSet<(String, String)> = BTreeSet::new();
        // mountinfo carries major:minor directly (field 3).
        if let Ok(text) = std::fs::read_to_string(self.proc_root.join("self/mountinfo")) {
            for line in text.lines() {
                let f: Vec<&str> = line.split_whitespace().collect();
                if f.len() < 5 {
                    continue;
                }
                if let Some(mm) = parse_majmin(f[2])
                    && numbers.contains(&mm)
                {
                    let name = ident
                        .members
                        .iter()
                        .find(|x| (x.1, x.2) == mm)
                        .map(|x| x.0.clone())
                        .unwrap_or_default();
                    mounted.insert((name, unescape(f[4])));
                }
            }
        }
        // /proc/mounts: resolve each source device to its numbers or kernel name.
        if let Ok(text) = std::fs::read_to_string(self.proc_root.join("mounts")) {
            for line in text.lines() {
                let f: Vec<&str> = line.split_whitespace().collect();
                if f.len() < 2 {
                    continue;
                }
                if let Some(name) = self.member_of(ident, &unescape(f[0])) {
                    mounted.insert((name, unescape(f[1])));
                }
            }
        }
        for (name, at) in &mounted {
            let what = if *name == ident.name {
                format!("{shown} has a mounted filesystem at {at}")
            } else {
                format!("{shown}: its partition {name} is mounted at {at}")
            };
            out.push(Refusal {
                code: MOUNTED,
                message: format!("{what}; refusing to probe it"),
                help: format!("unmount {at} first, or probe a file on that filesystem instead"),
            });
        }
        // Holders: LVM, md, dm-crypt, multipath, bcache...
        for (name, _, _) in &ident.members {
            let dir = if *name == ident.name {
                ident.sys_dir.join("holders")
            } else {
                ident.sys_dir.join(name).join("holders")
            };
            let mut holders: Vec<String> = std::fs::read_dir(&dir)
                .map(|rd| {
                    rd.flatten()
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            holders.sort();
            if !holders.is_empty() {
                let whose = if *name == ident.name {
                    shown.to_string()
                } else {
                    format!("{shown} (partition {name})")
                };
                out.push(Refusal {
                    code: HAS_HOLDERS,
                    message: format!(
                        "{whose} is in use by {} (device-mapper, LVM, md or similar); refusing to probe it",
                        holders.join(", ")
                    ),
                    help: "stop the volume, array or mapping that holds it first".into(),
                });
            }
        }
        // Swap.
        if let Ok(text) = std::fs::read_to_string(self.proc_root.join("swaps")) {
            for line in text.lines().skip(1) {
                let Some(src) = line.split_whitespace().next() else {
                    continue;
                };
                if let Some(name) = self.member_of(ident, &unescape(src)) {
                    out.push(Refusal {
                        code: SWAP,
                        message: format!("{shown}: {name} is active swap; refusing to probe it"),
                        help: format!("swapoff /dev/{name} first"),
                    });
                }
            }
        }
        out
    }

    /// The serial number sysfs shows for a device, if any.
    pub fn serial(&self, ident: &BlockIdent) -> Option<String> {
        ["device/serial", "serial", "device/wwid", "wwid"]
            .iter()
            .find_map(|p| read_trim(&ident.sys_dir.join(p)).filter(|s| !s.is_empty()))
    }

    /// The full check before opening a target. `kind` is what stat found (`None`: the path
    /// does not exist yet, a file to be created). `destroy` holds the `--destroy-data-on`
    /// values (serials or paths).
    pub fn check(
        &self,
        path: &Path,
        kind: Option<super::target::TargetKind>,
        write: bool,
        write_requested: bool,
        destroy: &[String],
    ) -> Result<(), Refusal> {
        use super::target::TargetKind;
        let shown = path.display().to_string();
        if write && !write_requested {
            return Err(Refusal {
                code: WRITE_NOT_ALLOWED,
                message: format!(
                    "this workload writes, and {shown} would be overwritten; probes are read-only unless --write is given"
                ),
                help: "add --write (and for a block device --destroy-data-on <serial or path>), or choose a read-only workload".into(),
            });
        }
        let Some(TargetKind::BlockDevice { major, minor }) = kind else {
            return Ok(());
        };
        let ident = self.ident(major, minor);
        if let Some(ident) = &ident
            && let Some(first) = self.in_use(ident, &shown).into_iter().next()
        {
            return Err(first);
        }
        if write {
            let canon = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            let serial = ident.as_ref().and_then(|i| self.serial(i));
            let named = destroy.iter().any(|d| {
                let d = d.trim();
                std::fs::canonicalize(d).is_ok_and(|p| p == canon)
                    || Path::new(d) == path
                    || serial.as_deref().is_some_and(|s| s == d)
            });
            if !named {
                let id = serial
                    .map(|s| format!("serial {s}"))
                    .unwrap_or_else(|| format!("path {}", canon.display()));
                return Err(Refusal {
                    code: DESTROY_NOT_NAMED,
                    message: format!(
                        "writing to block device {shown} destroys the data on it; it was not named with --destroy-data-on"
                    ),
                    help: format!(
                        "if its data may be lost, add --destroy-data-on {} ({id})",
                        canon.display()
                    ),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::target::TargetKind;
    use std::fs;

    /// A fake sysfs with `loop9` (7:9) and its partition `loop9p1` (259:3).
    fn fake(mounts: &str, swaps: &str, holder: Option<&str>) -> (tempfile::TempDir, SafetyChecker) {
        let d = tempfile::tempdir().unwrap();
        let dev = d.path().join("sys/devices/virtual/block/loop9");
        fs::create_dir_all(dev.join("holders")).unwrap();
        fs::create_dir_all(dev.join("loop9p1/holders")).unwrap();
        fs::write(dev.join("uevent"), "MAJOR=7\nMINOR=9\nDEVNAME=loop9\n").unwrap();
        fs::write(dev.join("loop9p1/partition"), "1\n").unwrap();
        fs::write(dev.join("loop9p1/dev"), "259:3\n").unwrap();
        if let Some(h) = holder {
            fs::create_dir_all(dev.join("loop9p1/holders").join(h)).unwrap();
        }
        fs::create_dir_all(d.path().join("sys/dev/block")).unwrap();
        std::os::unix::fs::symlink(&dev, d.path().join("sys/dev/block/7:9")).unwrap();
        fs::create_dir_all(d.path().join("proc/self")).unwrap();
        fs::write(d.path().join("proc/mounts"), mounts).unwrap();
        fs::write(
            d.path().join("proc/swaps"),
            format!("Filename\tType\tSize\tUsed\tPriority\n{swaps}"),
        )
        .unwrap();
        let c = SafetyChecker::with_roots(d.path().join("proc"), d.path().join("sys"));
        (d, c)
    }

    const DEV: Option<TargetKind> = Some(TargetKind::BlockDevice { major: 7, minor: 9 });

    #[test]
    fn ident_lists_partitions() {
        let (_d, c) = fake("", "", None);
        let i = c.ident(7, 9).unwrap();
        assert_eq!(i.name, "loop9");
        assert_eq!(
            i.members,
            vec![("loop9".into(), 7, 9), ("loop9p1".into(), 259, 3)]
        );
        assert!(c.ident(7, 10).is_none());
    }

    #[test]
    fn free_device_passes_reads_and_named_writes() {
        let (_d, c) = fake("/dev/vda / ext4 rw 0 0\n", "", None);
        let p = Path::new("/dev/loop9");
        assert_eq!(c.check(p, DEV, false, false, &[]), Ok(()));
        assert_eq!(c.check(p, DEV, true, true, &["/dev/loop9".into()]), Ok(()));
    }

    #[test]
    fn mounted_partition_refused_whatever_the_flags() {
        let (_d, c) = fake("/dev/loop9p1 /mnt/data\\040x ext4 rw 0 0\n", "", None);
        let p = Path::new("/dev/loop9");
        for (w, wr) in [(false, false), (true, true)] {
            let r = c.check(p, DEV, w, wr, &["/dev/loop9".into()]).unwrap_err();
            assert_eq!(r.code, MOUNTED);
            assert_eq!(
                r.message,
                "/dev/loop9: its partition loop9p1 is mounted at /mnt/data x; refusing to probe it"
            );
        }
    }

    #[test]
    fn mounted_whole_device_refused_via_mountinfo() {
        let (d, c) = fake("", "", None);
        fs::write(
            d.path().join("proc/self/mountinfo"),
            "36 35 7:9 / /srv rw,relatime shared:1 - ext4 /dev/loop9 rw\n",
        )
        .unwrap();
        let r = c
            .check(Path::new("/dev/loop9"), DEV, false, false, &[])
            .unwrap_err();
        assert_eq!(r.code, MOUNTED);
        assert!(
            r.message.contains("has a mounted filesystem at /srv"),
            "{}",
            r.message
        );
    }

    #[test]
    fn holders_refused() {
        let (_d, c) = fake("", "", Some("dm-0"));
        let r = c
            .check(Path::new("/dev/loop9"), DEV, false, false, &[])
            .unwrap_err();
        assert_eq!(r.code, HAS_HOLDERS);
        assert_eq!(
            r.message,
            "/dev/loop9 (partition loop9p1) is in use by dm-0 (device-mapper, LVM, md or similar); refusing to probe it"
        );
    }

    #[test]
    fn swap_refused() {
        let (_d, c) = fake("", "/dev/loop9p1 partition 1024 0 -2\n", None);
        let r = c
            .check(Path::new("/dev/loop9"), DEV, false, false, &[])
            .unwrap_err();
        assert_eq!(r.code, SWAP);
    }

    #[test]
    fn write_needs_flags() {
        let (_d, c) = fake("", "", None);
        let p = Path::new("/dev/loop9");
        let r = c.check(p, DEV, true, false, &[]).unwrap_err();
        assert_eq!(r.code, WRITE_NOT_ALLOWED);
        let r = c.check(p, DEV, true, true, &[]).unwrap_err();
        assert_eq!(r.code, DESTROY_NOT_NAMED);
        let r = c
            .check(p, DEV, true, true, &["/dev/loop8".into()])
            .unwrap_err();
        assert_eq!(r.code, DESTROY_NOT_NAMED);
        // A file needs only --write.
        let f = Path::new("/tmp/x");
        assert_eq!(
            c.check(f, Some(TargetKind::File), true, false, &[])
                .unwrap_err()
                .code,
            WRITE_NOT_ALLOWED
        );
        assert_eq!(c.check(f, Some(TargetKind::File), true, true, &[]), Ok(()));
    }

    #[test]
    fn serial_names_device() {
        let (d, c) = fake("", "", None);
        fs::write(
            d.path().join("sys/devices/virtual/block/loop9/serial"),
            "S3ABC123\n",
        )
        .unwrap();
        let p = Path::new("/dev/loop9");
        assert_eq!(c.check(p, DEV, true, true, &["S3ABC123".into()]), Ok(()));
        let r = c.check(p, DEV, true, true, &[]).unwrap_err();
        assert!(r.help.contains("serial S3ABC123"), "{}", r.help);
    }
}
