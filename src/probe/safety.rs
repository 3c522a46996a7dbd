//! Safety: nothing is lost. Probes read by default; writes need `--write`, and a block device
//! also `--destroy-data-on` naming it. A target in use is refused whatever the flags, reads
//! included:
//!
//! - a block device with a mounted filesystem (on it, one of its partitions, or the disk a
//!   partition belongs to), holders (LVM/md/dm), active swap, open for writing by another
//!   process, or a loop device whose backing file or device is itself in use;
//! - a regular file that backs a loop device (compared by device and inode, never by path
//!   text), is an active swap file, is open for writing by another process or carries another
//!   process's lock (`/proc/*/fdinfo`, `/proc/locks`);
//! - a block device `/sys/dev/block/M:m` does not resolve (fail closed: unknown is unsafe).
//!
//! [`SafetyChecker::check`] returns the typed [`Reason`]; tests assert it, the CLI prints the
//! [`Refusal`]'s message and help. The `/proc`, `/sys` and `/dev` roots are configurable so
//! tests can feed fake mount tables and sysfs trees.

use crate::finding::Code;
use std::collections::BTreeSet;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Why a probe was refused, as data: tests assert it, the message is made from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The workload writes and `--write` was not given.
    WriteNotAllowed,
    /// Writing to a block device not named with `--destroy-data-on`.
    DestroyNotNamed,
    /// `device` (the target, one of its partitions or its disk) is mounted at `at`.
    Mounted { device: String, at: String },
    /// `device` has holders (device-mapper, LVM, md...).
    Held {
        device: String,
        holders: Vec<String>,
    },
    /// `device` is active swap.
    Swap { device: String },
    /// The file (or a loop device's backing file) backs the loop device `loop_device`.
    BacksLoop { loop_device: String },
    /// The file is an active swap file.
    SwapFile,
    /// Another process has the target open for writing.
    OpenForWriting { pid: u32, command: String },
    /// Another process holds a lock on the file (`/proc/locks`).
    Locked { pid: i64, kind: String },
    /// `/sys/dev/block/M:m` does not resolve: the device cannot be checked.
    UnknownDevice { major: u32, minor: u32 },
    /// `--mapped` on a capture (`--sysfs-root`): writes are never allowed.
    CaptureWrite,
    /// `--mapped` on a capture: the node was not verified on the live host.
    NotVerified { node: String, why: String },
}

impl Reason {
    /// The stable refusal code.
    pub fn code(&self) -> Code {
        match self {
            Reason::WriteNotAllowed => Code::WriteNotAllowed,
            Reason::DestroyNotNamed => Code::DeviceNotNamed,
            Reason::Mounted { .. } => Code::Mounted,
            Reason::Held { .. } => Code::HasHolders,
            Reason::Swap { .. } => Code::ActiveSwap,
            Reason::BacksLoop { .. } => Code::BacksLoop,
            Reason::SwapFile => Code::SwapFile,
            Reason::OpenForWriting { .. } | Reason::Locked { .. } => Code::OpenElsewhere,
            Reason::UnknownDevice { .. } => Code::UnknownDevice,
            Reason::CaptureWrite | Reason::NotVerified { .. } => Code::NotVerified,
        }
    }
}

/// Why a probe was refused: the typed reason, its stable code, a message naming the target
/// and the reason, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Refusal {
    pub code: Code,
    pub reason: Reason,
    pub message: String,
    pub help: String,
}

impl Refusal {
    pub fn new(reason: Reason, message: impl Into<String>, help: impl Into<String>) -> Self {
        Refusal {
            code: reason.code(),
            reason,
            message: message.into(),
            help: help.into(),
        }
    }
}

/// A block device's identity as the checks see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockIdent {
    /// Kernel name (`loop3`, `nvme0n1`).
    pub name: String,
    /// `(name, major, minor)` of the device and each of its partitions.
    pub members: Vec<(String, u32, u32)>,
    /// sysfs directory of the whole device.
    pub sys_dir: PathBuf,
    /// For a partition: `(name, major, minor)` of the disk it belongs to.
    pub disk: Option<(String, u32, u32)>,
}

#[derive(Debug, Clone)]
pub struct SafetyChecker {
    pub proc_root: PathBuf,
    pub sys_root: PathBuf,
    /// Where device nodes live (`/dev`): loop devices are asked for their backing inode.
    pub dev_root: PathBuf,
}

impl Default for SafetyChecker {
    fn default() -> Self {
        SafetyChecker {
            proc_root: PathBuf::from("/proc"),
            sys_root: PathBuf::from("/sys"),
            dev_root: PathBuf::from("/dev"),
        }
    }
}

/// Bound on what is read from one /proc or /sys file (mount tables of big hosts included).
const READ_CAP: u64 = 16 << 20;

/// Reads a small kernel file, bounded; only regular files (a FIFO planted in a fake tree
/// must not hang the check).
fn read_text(p: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(p)
        .ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut s = String::new();
    f.take(READ_CAP).read_to_string(&mut s).ok()?;
    Some(s)
}

fn read_trim(p: &Path) -> Option<String> {
    read_text(p).map(|s| s.trim().to_string())
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

/// The paths a kernel-printed file name may stand for: as written, and without the
/// ` (deleted)` the kernel appends to an unlinked file's name.
fn path_candidates(text: &str) -> Vec<PathBuf> {
    let mut v = vec![PathBuf::from(text)];
    if let Some(s) = text.strip_suffix(" (deleted)") {
        v.push(PathBuf::from(s));
    }
    v
}

/// `(st_dev, st_ino)` of a path, following links.
fn dev_ino(p: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

/// `LOOP_GET_STATUS64`: the backing file's `(st_dev, st_ino)` as the loop driver holds it,
/// whatever became of its name.
fn loop_backing_inode(node: &Path) -> Option<(u64, u64)> {
    use std::os::fd::AsRawFd;
    const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;
    // struct loop_info64 is 232 bytes; lo_device and lo_inode are its first two u64s.
    let f = std::fs::File::open(node).ok()?;
    let mut info = [0u64; 29];
    // SAFETY: the ioctl writes one struct loop_info64 (232 bytes) through the pointer.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), LOOP_GET_STATUS64, info.as_mut_ptr()) };
    (r == 0).then_some((info[0], info[1]))
}

/// What an in-use scan looks for: a file's inode, or block devices by number.
#[derive(Debug, Clone)]
enum Subject {
    File { dev: u64, ino: u64 },
    Block(Vec<(u32, u32)>),
}

impl Subject {
    fn matches(&self, m: &std::fs::Metadata) -> bool {
        match self {
            Subject::File { dev, ino } => m.dev() == *dev && m.ino() == *ino,
            Subject::Block(nums) => {
                m.file_type().is_block_device()
                    && nums.contains(&(rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev())))
            }
        }
    }
}

/// Scans for a writer elsewhere, and the gap between them: only a lasting writer counts.
const WRITER_SCANS: u32 = 3;
const WRITER_SCAN_GAP: std::time::Duration = std::time::Duration::from_millis(100);

/// How deep a loop device over a loop device over ... is followed.
const MAX_DEPTH: u32 = 4;

impl SafetyChecker {
    pub fn with_roots(proc_root: impl Into<PathBuf>, sys_root: impl Into<PathBuf>) -> Self {
        SafetyChecker {
            proc_root: proc_root.into(),
            sys_root: sys_root.into(),
            dev_root: PathBuf::from("/dev"),
        }
    }

    /// The same checker with device nodes under `dev_root`.
    pub fn with_dev_root(mut self, dev_root: impl Into<PathBuf>) -> Self {
        self.dev_root = dev_root.into();
        self
    }

    /// Looks up a block device by its numbers under `<sys>/dev/block/M:m` and lists its
    /// partitions (and, for a partition, its disk). `None` when the link does not resolve.
    pub fn ident(&self, major: u32, minor: u32) -> Option<BlockIdent> {
        let link = self.sys_root.join(format!("dev/block/{major}:{minor}"));
        let dir = std::fs::canonicalize(&link).ok()?;
        if !dir.is_dir() {
            return None;
        }
        let name_of = |dir: &Path| {
            read_trim(&dir.join("uevent"))
                .and_then(|u| {
                    u.lines()
                        .find_map(|l| l.strip_prefix("DEVNAME=").map(str::to_string))
                })
                .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        };
        let name = name_of(&dir)?;
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
        let disk = if dir.join("partition").exists() {
            dir.parent().and_then(|d| {
                let (ma, mi) = parse_majmin(&read_trim(&d.join("dev"))?)?;
                Some((name_of(d)?, ma, mi))
            })
        } else {
            None
        };
        Some(BlockIdent {
            name,
            members,
            sys_dir: dir,
            disk,
        })
    }

    /// The device, its partitions and (for a partition) its disk.
    fn all_members(ident: &BlockIdent) -> Vec<(String, u32, u32)> {
        let mut v = ident.members.clone();
        v.extend(ident.disk.clone());
        v
    }

    fn member_of(&self, ident: &BlockIdent, source: &str) -> Option<String> {
        let all = Self::all_members(ident);
        // By numbers, when the source is a device node on this machine.
        if source.starts_with('/')
            && let Ok(m) = std::fs::metadata(source)
            && m.file_type().is_block_device()
        {
            let (ma, mi) = (rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev()));
            if let Some(x) = all.iter().find(|x| x.1 == ma && x.2 == mi) {
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
        all.iter().find(|x| x.0 == base).map(|x| x.0.clone())
    }

    /// Says how `name` relates to the target shown as `shown`.
    fn whose(ident: &BlockIdent, shown: &str, name: &str) -> String {
        if name == ident.name {
            shown.to_string()
        } else if ident.disk.as_ref().is_some_and(|d| d.0 == name) {
            format!("{shown} (a partition of {name})")
        } else {
            format!("{shown} (partition {name})")
        }
    }

    /// Everything that makes a block device unsafe to touch, as refusals (empty when free).
    pub fn in_use(&self, ident: &BlockIdent, shown: &str) -> Vec<Refusal> {
        self.in_use_depth(ident, shown, 0)
    }

    fn in_use_depth(&self, ident: &BlockIdent, shown: &str, depth: u32) -> Vec<Refusal> {
        let mut out = Vec::new();
        let all = Self::all_members(ident);
        let numbers: BTreeSet<(u32, u32)> = all.iter().map(|x| (x.1, x.2)).collect();
        let mut mounted: BTreeSet<(String, String)> = BTreeSet::new();
        // mountinfo carries major:minor directly (field 3).
        if let Some(text) = read_text(&self.proc_root.join("self/mountinfo")) {
            for line in text.lines() {
                let f: Vec<&str> = line.split_whitespace().collect();
                if f.len() < 5 {
                    continue;
                }
                if let Some(mm) = parse_majmin(f[2])
                    && numbers.contains(&mm)
                {
                    let name = all
                        .iter()
                        .find(|x| (x.1, x.2) == mm)
                        .map(|x| x.0.clone())
                        .unwrap_or_default();
                    mounted.insert((name, unescape(f[4])));
                }
            }
        }
        // /proc/mounts: resolve each source device to its numbers or kernel name.
        if let Some(text) = read_text(&self.proc_root.join("mounts")) {
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
            } else if ident.disk.as_ref().is_some_and(|d| d.0 == *name) {
                format!("{shown}: the disk it is a partition of, {name}, is mounted at {at}")
            } else {
                format!("{shown}: its partition {name} is mounted at {at}")
            };
            out.push(Refusal::new(
                Reason::Mounted {
                    device: name.clone(),
                    at: at.clone(),
                },
                format!("{what}; refusing to probe it"),
                format!("unmount {at} first, or probe a file on that filesystem instead"),
            ));
        }
        // Holders: LVM, md, dm-crypt, multipath, bcache...
        for (name, _, _) in &all {
            let dir = if *name == ident.name {
                ident.sys_dir.join("holders")
            } else if ident.disk.as_ref().is_some_and(|d| d.0 == *name) {
                match ident.sys_dir.parent() {
                    Some(p) => p.join("holders"),
                    None => continue,
                }
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
                out.push(Refusal::new(
                    Reason::Held {
                        device: name.clone(),
                        holders: holders.clone(),
                    },
                    format!(
                        "{} is in use by {} (device-mapper, LVM, md or similar); refusing to probe it",
                        Self::whose(ident, shown, name),
                        holders.join(", ")
                    ),
                    "stop the volume, array or mapping that holds it first",
                ));
            }
        }
        // Swap.
        if let Some(text) = read_text(&self.proc_root.join("swaps")) {
            for line in text.lines().skip(1) {
                let Some(src) = line.split_whitespace().next() else {
                    continue;
                };
                if let Some(name) = self.member_of(ident, &unescape(src)) {
                    out.push(Refusal::new(
                        Reason::Swap {
                            device: name.clone(),
                        },
                        format!("{shown}: {name} is active swap; refusing to probe it"),
                        format!("swapoff /dev/{name} first"),
                    ));
                }
            }
        }
        // Open for writing by another process (a VM's raw disk, a database).
        if let Some(r) = self.open_elsewhere(&Subject::Block(numbers.into_iter().collect()), shown)
        {
            out.push(r);
        }
        // A loop device (or a partition of one): its backing file or device in use.
        if depth < MAX_DEPTH {
            let loop_dir = [
                Some(ident.sys_dir.clone()),
                ident.sys_dir.parent().map(Path::to_path_buf),
            ]
            .into_iter()
            .flatten()
            .find(|d| d.join("loop").is_dir());
            if let Some(dir) = loop_dir {
                let lname = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.extend(self.loop_backing_in_use(&dir, &lname, shown, depth));
            }
        }
        out
    }

    /// The backing file or device of loop device `lname` (sysfs dir `dir`), checked as a
    /// target of its own (other loop devices on the same file, swap, writers, mounts).
    fn loop_backing_in_use(
        &self,
        dir: &Path,
        lname: &str,
        shown: &str,
        depth: u32,
    ) -> Vec<Refusal> {
        let text = read_trim(&dir.join("loop/backing_file")).unwrap_or_default();
        let by_path = path_candidates(&text)
            .into_iter()
            .filter(|_| !text.is_empty())
            .find_map(|p| std::fs::metadata(&p).ok().map(|m| (p, m)));
        let label = format!("{shown} (backed by {text})");
        if let Some((p, m)) = &by_path
            && m.file_type().is_block_device()
        {
            let (ma, mi) = (rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev()));
            return match self.ident(ma, mi) {
                Some(id) => self.in_use_depth(&id, &label, depth + 1),
                None => {
                    vec![self.unknown(&format!("{shown}'s backing device {}", p.display()), ma, mi)]
                }
            };
        }
        let node = self.dev_root.join(lname);
        let inode = by_path
            .as_ref()
            .filter(|(_, m)| m.is_file())
            .map(|(_, m)| (m.dev(), m.ino()))
            .or_else(|| self.loop_node_inode(&node, dir));
        match inode {
            Some((dev, ino)) => self.inode_in_use(dev, ino, &label, Some(lname)),
            None => Vec::new(),
        }
    }

    /// The backing inode of a loop device through its node, when the node is the device
    /// sysfs describes.
    fn loop_node_inode(&self, node: &Path, sys_dir: &Path) -> Option<(u64, u64)> {
        let m = std::fs::metadata(node).ok()?;
        let want = parse_majmin(&read_trim(&sys_dir.join("dev"))?)?;
        if !m.file_type().is_block_device()
            || (rustix::fs::major(m.rdev()), rustix::fs::minor(m.rdev())) != want
        {
            return None;
        }
        loop_backing_inode(node)
    }

    /// Loop devices whose backing file is the inode `(dev, ino)`, except `skip`.
    pub fn loops_backed_by(&self, dev: u64, ino: u64, skip: Option<&str>) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.sys_root.join("block"))
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("loop"))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names.retain(|n| Some(n.as_str()) != skip);
        names
            .into_iter()
            .filter(|n| {
                let dir = self.sys_root.join("block").join(n);
                let by_text = read_trim(&dir.join("loop/backing_file")).is_some_and(|t| {
                    !t.is_empty()
                        && path_candidates(&t)
                            .iter()
                            .any(|p| dev_ino(p) == Some((dev, ino)))
                });
                by_text || self.loop_node_inode(&self.dev_root.join(n), &dir) == Some((dev, ino))
            })
            .collect()
    }

    /// A regular file's inode in use: backing a loop device, swap, open for writing or
    /// locked elsewhere. `skip`: a loop device known to back it (the target itself).
    fn inode_in_use(&self, dev: u64, ino: u64, shown: &str, skip: Option<&str>) -> Vec<Refusal> {
        let mut out = Vec::new();
        for l in self.loops_backed_by(dev, ino, skip) {
            out.push(Refusal::new(
                Reason::BacksLoop {
                    loop_device: l.clone(),
                },
                format!(
                    "{shown} backs loop device /dev/{l}: writing it corrupts whatever uses /dev/{l} (a mounted filesystem, swap, a VM); refusing to probe it"
                ),
                format!("detach it first (unmount, then losetup -d /dev/{l}), or probe a copy"),
            ));
        }
        if let Some(text) = read_text(&self.proc_root.join("swaps")) {
            for line in text.lines().skip(1) {
                let Some(src) = line.split_whitespace().next() else {
                    continue;
                };
                let src = unescape(src);
                if path_candidates(&src)
                    .iter()
                    .any(|p| dev_ino(p) == Some((dev, ino)))
                {
                    out.push(Refusal::new(
                        Reason::SwapFile,
                        format!("{shown} is an active swap file ({src}); refusing to probe it"),
                        format!("swapoff {src} first"),
                    ));
                }
            }
        }
        if let Some(r) = self.open_elsewhere(&Subject::File { dev, ino }, shown) {
            out.push(r);
        }
        if let Some(r) = self.locked_elsewhere(dev, ino, shown) {
            out.push(r);
        }
        out
    }

    /// Another process with the subject open for writing (`/proc/PID/fd` and `fdinfo`
    /// flags), where /proc lets us see it. Tools open devices for a moment (losetup, blkid,
    /// udev): a writer counts only when it is still there on three scans 100 ms apart.
    fn open_elsewhere(&self, subject: &Subject, shown: &str) -> Option<Refusal> {
        let mut found = None;
        for scan in 0..WRITER_SCANS {
            if scan > 0 {
                std::thread::sleep(WRITER_SCAN_GAP);
            }
            found = Some(self.writer(subject, shown)?);
        }
        found
    }

    /// One scan for [`Self::open_elsewhere`]: the first writer found.
    fn writer(&self, subject: &Subject, shown: &str) -> Option<Refusal> {
        let me = std::process::id();
        let mut pids: Vec<u32> = std::fs::read_dir(&self.proc_root)
            .ok()?
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter(|&p| p != me)
            .collect();
        pids.sort_unstable();
        for pid in pids {
            let pdir = self.proc_root.join(pid.to_string());
            let Ok(fds) = std::fs::read_dir(pdir.join("fd")) else {
                continue;
            };
            for fd in fds.flatten() {
                let Ok(m) = std::fs::metadata(fd.path()) else {
                    continue;
                };
                if !subject.matches(&m) {
                    continue;
                }
                let flags = read_text(&pdir.join("fdinfo").join(fd.file_name())).and_then(|t| {
                    t.lines().find_map(|l| {
                        let v = l.strip_prefix("flags:")?.trim();
                        u32::from_str_radix(v, 8).ok()
                    })
                });
                // Unknown flags: assume the worst.
                let writes =
                    flags.is_none_or(|f| f & libc::O_ACCMODE as u32 != libc::O_RDONLY as u32);
                if writes {
                    let command = read_trim(&pdir.join("comm")).unwrap_or_default();
                    return Some(Refusal::new(
                        Reason::OpenForWriting {
                            pid,
                            command: command.clone(),
                        },
                        format!(
                            "{shown} is open for writing by process {pid} ({command}); refusing to probe it"
                        ),
                        "stop that process (or let it close the file) first, or probe a copy",
                    ));
                }
            }
        }
        None
    }

    /// Another process's lock on the inode (`/proc/locks`: `1: POSIX ADVISORY WRITE 123
    /// 08:01:4567 0 EOF`, device numbers in hex).
    fn locked_elsewhere(&self, dev: u64, ino: u64, shown: &str) -> Option<Refusal> {
        let text = read_text(&self.proc_root.join("locks"))?;
        let me = i64::from(std::process::id());
        let (ma, mi) = (rustix::fs::major(dev), rustix::fs::minor(dev));
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().filter(|t| *t != "->").collect();
            let Some(at) = f.iter().position(|t| t.matches(':').count() == 2) else {
                continue;
            };
            let mut it = f[at].split(':');
            let (Some(a), Some(b), Some(c)) = (it.next(), it.next(), it.next()) else {
                continue;
            };
            let same = u32::from_str_radix(a, 16).ok() == Some(ma)
                && u32::from_str_radix(b, 16).ok() == Some(mi)
                && c.parse::<u64>().ok() == Some(ino);
            if !same || at < 4 {
                continue;
            }
            let pid: i64 = f[at - 1].parse().unwrap_or(-1);
            if pid == me {
                continue;
            }
            let kind = format!("{} {}", f[at - 4], f[at - 2]);
            return Some(Refusal::new(
                Reason::Locked {
                    pid,
                    kind: kind.clone(),
                },
                format!("{shown} is locked by process {pid} ({kind} lock); refusing to probe it"),
                "stop the process that holds the lock first, or probe a copy",
            ));
        }
        None
    }

    fn unknown(&self, shown: &str, major: u32, minor: u32) -> Refusal {
        Refusal::new(
            Reason::UnknownDevice { major, minor },
            format!(
                "{shown} is block device {major}:{minor}, but {} does not resolve, so whether it is in use cannot be checked; refusing to probe it",
                self.sys_root
                    .join(format!("dev/block/{major}:{minor}"))
                    .display()
            ),
            "probe on a host with sysfs mounted at /sys, where the device is listed",
        )
    }

    /// The serial number sysfs shows for a device, if any.
    pub fn serial(&self, ident: &BlockIdent) -> Option<String> {
        ["device/serial", "serial", "device/wwid", "wwid"]
            .iter()
            .find_map(|p| read_trim(&ident.sys_dir.join(p)).filter(|s| !s.is_empty()))
    }

    /// The full check before opening a target. `kind` is what stat found (`None`: the path
    /// does not exist yet, a file to be created). `destroy` holds the `--destroy-data-on`
    /// values (serials or paths). In-use refusals come before flag refusals: what is in use
    /// is refused whatever the flags.
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
        let ident = match kind {
            Some(TargetKind::BlockDevice { major, minor }) => {
                let Some(ident) = self.ident(major, minor) else {
                    return Err(self.unknown(&shown, major, minor));
                };
                if let Some(first) = self.in_use(&ident, &shown).into_iter().next() {
                    return Err(first);
                }
                Some(ident)
            }
            Some(TargetKind::File) => {
                if let Some((dev, ino)) = dev_ino(path)
                    && let Some(first) =
                        self.inode_in_use(dev, ino, &shown, None).into_iter().next()
                {
                    return Err(first);
                }
                None
            }
            None => None,
        };
        if write && !write_requested {
            return Err(Refusal::new(
                Reason::WriteNotAllowed,
                format!(
                    "this workload writes, and {shown} would be overwritten; probes are read-only unless --write is given"
                ),
                "add --write (and for a block device --destroy-data-on <serial or path>), or choose a read-only workload",
            ));
        }
        let Some(ident) = ident else {
            return Ok(());
        };
        if write {
            let canon = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            let serial = self.serial(&ident);
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
                return Err(Refusal::new(
                    Reason::DestroyNotNamed,
                    format!(
                        "writing to block device {shown} destroys the data on it; it was not named with --destroy-data-on"
                    ),
                    format!(
                        "if its data may be lost, add --destroy-data-on {} ({id})",
                        canon.display()
                    ),
                ));
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
        std::os::unix::fs::symlink(dev.join("loop9p1"), d.path().join("sys/dev/block/259:3"))
            .unwrap();
        fs::write(dev.join("dev"), "7:9\n").unwrap();
        fs::create_dir_all(d.path().join("sys/block")).unwrap();
        std::os::unix::fs::symlink(&dev, d.path().join("sys/block/loop9")).unwrap();
        fs::create_dir_all(d.path().join("dev")).unwrap();
        fs::create_dir_all(d.path().join("proc/self")).unwrap();
        fs::write(d.path().join("proc/mounts"), mounts).unwrap();
        fs::write(
            d.path().join("proc/swaps"),
            format!("Filename\tType\tSize\tUsed\tPriority\n{swaps}"),
        )
        .unwrap();
        let c = SafetyChecker::with_roots(d.path().join("proc"), d.path().join("sys"))
            .with_dev_root(d.path().join("dev"));
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
            assert_eq!(r.code, Code::Mounted);
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
        assert_eq!(r.code, Code::Mounted);
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
        assert_eq!(r.code, Code::HasHolders);
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
        assert_eq!(r.code, Code::ActiveSwap);
    }

    #[test]
    fn write_needs_flags() {
        let (_d, c) = fake("", "", None);
        let p = Path::new("/dev/loop9");
        let r = c.check(p, DEV, true, false, &[]).unwrap_err();
        assert_eq!(r.code, Code::WriteNotAllowed);
        let r = c.check(p, DEV, true, true, &[]).unwrap_err();
        assert_eq!(r.code, Code::DeviceNotNamed);
        let r = c
            .check(p, DEV, true, true, &["/dev/loop8".into()])
            .unwrap_err();
        assert_eq!(r.code, Code::DeviceNotNamed);
        // A file needs only --write.
        let f = Path::new("/tmp/x");
        assert_eq!(
            c.check(f, Some(TargetKind::File), true, false, &[])
                .unwrap_err()
                .code,
            Code::WriteNotAllowed
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

    /// Adds a fake loop device `name` (7:n) backed by `text` to the fake sysfs.
    fn fake_loop(d: &Path, name: &str, n: u32, text: &str) {
        let dev = d.join("sys/devices/virtual/block").join(name);
        fs::create_dir_all(dev.join("loop")).unwrap();
        fs::create_dir_all(dev.join("holders")).unwrap();
        fs::write(dev.join("loop/backing_file"), format!("{text}\n")).unwrap();
        fs::write(dev.join("dev"), format!("7:{n}\n")).unwrap();
        std::os::unix::fs::symlink(&dev, d.join("sys/block").join(name)).unwrap();
        std::os::unix::fs::symlink(&dev, d.join(format!("sys/dev/block/7:{n}"))).unwrap();
    }

    fn file(d: &Path, name: &str) -> PathBuf {
        let p = d.join(name);
        fs::write(&p, vec![7u8; 8192]).unwrap();
        p
    }

    const FILE: Option<TargetKind> = Some(TargetKind::File);

    #[test]
    fn file_backing_a_loop_device_is_refused_by_inode_not_path_text() {
        let (d, c) = fake("", "", None);
        let img = file(d.path(), "a.img");
        fake_loop(d.path(), "loop3", 3, &img.display().to_string());
        for (w, wr) in [(false, false), (true, true)] {
            let r = c
                .check(&img, FILE, w, wr, &[img.display().to_string()])
                .unwrap_err();
            assert_eq!(
                r.reason,
                Reason::BacksLoop {
                    loop_device: "loop3".into()
                }
            );
            assert_eq!(r.code, Code::BacksLoop);
        }
        // A hard link is the same inode under another name: refused.
        let link = d.path().join("b.img");
        fs::hard_link(&img, &link).unwrap();
        assert_eq!(
            c.check(&link, FILE, true, true, &[]).unwrap_err().reason,
            Reason::BacksLoop {
                loop_device: "loop3".into()
            }
        );
        // A copy with the same bytes is another inode: free.
        let copy = d.path().join("copy.img");
        fs::copy(&img, &copy).unwrap();
        assert_eq!(c.check(&copy, FILE, true, true, &[]), Ok(()));
    }

    #[test]
    fn deleted_suffix_is_understood() {
        let (d, c) = fake("", "", None);
        let img = file(d.path(), "a.img");
        // The kernel's text for an unlinked backing file; here the name was reused by `a.img`
        // itself, so stripping the suffix finds the inode.
        fake_loop(
            d.path(),
            "loop4",
            4,
            &format!("{} (deleted)", img.display()),
        );
        assert_eq!(
            c.check(&img, FILE, false, false, &[]).unwrap_err().reason,
            Reason::BacksLoop {
                loop_device: "loop4".into()
            }
        );
        // Another file now at the deleted name is another inode: free.
        let (d2, c2) = fake("", "", None);
        let other = file(d2.path(), "a.img");
        fake_loop(
            d2.path(),
            "loop4",
            4,
            &format!("{} (deleted)", d2.path().join("gone.img").display()),
        );
        assert_eq!(c2.check(&other, FILE, true, true, &[]), Ok(()));
    }

    #[test]
    fn swap_file_refused() {
        let (d, _) = fake("", "", None);
        let img = file(d.path(), "swap file");
        let (_d2, c) = fake(
            "",
            &format!(
                "{} file 1024 0 -2\n",
                img.display().to_string().replace(' ', "\\040")
            ),
            None,
        );
        let r = c.check(&img, FILE, false, false, &[]).unwrap_err();
        assert_eq!(r.reason, Reason::SwapFile);
        assert_eq!(r.code, Code::SwapFile);
    }

    fn fake_fd(d: &Path, pid: u32, target: &Path, flags: &str, comm: &str) {
        let p = d.join("proc").join(pid.to_string());
        fs::create_dir_all(p.join("fd")).unwrap();
        fs::create_dir_all(p.join("fdinfo")).unwrap();
        std::os::unix::fs::symlink(target, p.join("fd/3")).unwrap();
        fs::write(
            p.join("fdinfo/3"),
            format!("pos:\t0\nflags:\t{flags}\nmnt_id:\t30\n"),
        )
        .unwrap();
        fs::write(p.join("comm"), format!("{comm}\n")).unwrap();
    }

    #[test]
    fn file_open_for_writing_elsewhere_refused_reading_is_not() {
        let (d, c) = fake("", "", None);
        let img = file(d.path(), "db.img");
        fake_fd(d.path(), 4242, &img, "0100000", "reader");
        assert_eq!(c.check(&img, FILE, false, false, &[]), Ok(()));
        fake_fd(d.path(), 4343, &img, "0100002", "postgres");
        let r = c.check(&img, FILE, false, false, &[]).unwrap_err();
        assert_eq!(
            r.reason,
            Reason::OpenForWriting {
                pid: 4343,
                command: "postgres".into()
            }
        );
        assert_eq!(
            r.message,
            format!(
                "{} is open for writing by process 4343 (postgres); refusing to probe it",
                img.display()
            )
        );
    }

    #[test]
    fn locked_file_refused() {
        let (d, c) = fake("", "", None);
        let img = file(d.path(), "l.img");
        let m = fs::metadata(&img).unwrap();
        fs::write(
            d.path().join("proc/locks"),
            format!(
                "1: FLOCK  ADVISORY  WRITE 777 {:02x}:{:02x}:{} 0 EOF\n",
                rustix::fs::major(m.dev()),
                rustix::fs::minor(m.dev()),
                m.ino()
            ),
        )
        .unwrap();
        assert_eq!(
            c.check(&img, FILE, false, false, &[]).unwrap_err().reason,
            Reason::Locked {
                pid: 777,
                kind: "FLOCK WRITE".into()
            }
        );
    }

    #[test]
    fn unresolved_device_fails_closed() {
        let (_d, c) = fake("", "", None);
        let r = c
            .check(
                Path::new("/dev/sdz"),
                Some(TargetKind::BlockDevice {
                    major: 8,
                    minor: 240,
                }),
                false,
                false,
                &[],
            )
            .unwrap_err();
        assert_eq!(
            r.reason,
            Reason::UnknownDevice {
                major: 8,
                minor: 240
            }
        );
        assert_eq!(r.code, Code::UnknownDevice);
    }

    #[test]
    fn partition_of_a_mounted_disk_refused() {
        let (_d, c) = fake("/dev/loop9 /srv ext4 rw 0 0\n", "", None);
        let i = c.ident(259, 3).unwrap();
        assert_eq!(i.disk, Some(("loop9".into(), 7, 9)));
        let r = c
            .check(
                Path::new("/dev/loop9p1"),
                Some(TargetKind::BlockDevice {
                    major: 259,
                    minor: 3,
                }),
                false,
                false,
                &[],
            )
            .unwrap_err();
        assert_eq!(
            r.reason,
            Reason::Mounted {
                device: "loop9".into(),
                at: "/srv".into()
            }
        );
    }

    #[test]
    fn a_regular_file_fd_never_matches_a_block_device() {
        let (d, c) = fake("", "", None);
        // The scan compares what each fd is: a regular file never matches a device.
        let dev_node = d.path().join("node");
        fs::write(&dev_node, "").unwrap();
        fake_fd(d.path(), 99, &dev_node, "02", "qemu");
        // A regular file fd never matches a block device subject.
        assert_eq!(
            c.check(Path::new("/dev/loop9"), DEV, false, false, &[]),
            Ok(())
        );
    }

    #[test]
    fn loop_device_whose_backing_file_is_in_use_is_refused() {
        let (d, c) = fake("", "", None);
        let img = file(d.path(), "shared.img");
        // loop9 (the target) and loop5 share a backing file.
        fs::create_dir_all(d.path().join("sys/devices/virtual/block/loop9/loop")).unwrap();
        fs::write(
            d.path()
                .join("sys/devices/virtual/block/loop9/loop/backing_file"),
            format!("{}\n", img.display()),
        )
        .unwrap();
        assert_eq!(
            c.check(Path::new("/dev/loop9"), DEV, false, false, &[]),
            Ok(())
        );
        fake_loop(d.path(), "loop5", 5, &img.display().to_string());
        let r = c
            .check(Path::new("/dev/loop9"), DEV, false, false, &[])
            .unwrap_err();
        assert_eq!(
            r.reason,
            Reason::BacksLoop {
                loop_device: "loop5".into()
            }
        );
        assert!(
            r.message.starts_with(&format!(
                "/dev/loop9 (backed by {}) backs loop device /dev/loop5",
                img.display()
            )),
            "{}",
            r.message
        );
    }
}
