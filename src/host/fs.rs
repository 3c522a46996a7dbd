//! A root-relative, read-only view of a (possibly captured) `/sys` + `/proc` tree.
//!
//! Every path is relative to `root` and symlinks are resolved *inside* the root by hand, so a
//! gathered capture (whose links point to `../../devices/...` or even `/sys/devices/...`)
//! replays exactly like the live host. Resolution counts hops and reports loops instead of
//! spinning, and `..` never climbs above the root.
//!
//! In record mode the reader remembers every file, directory and symlink it touched; `gather`
//! is nothing but the audit reader run in record mode, followed by an archive of what it read.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// Hops allowed while resolving one path (the kernel allows 40).
const MAX_HOPS: usize = 40;

/// What a read touched, for `gather`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Touched {
    File,
    Dir,
    /// A symlink with its target as stored.
    Link(String),
}

/// Why a read failed (kept as text: it ends up in a Finding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsError {
    pub path: String,
    pub reason: String,
}

impl fmt::Display for FsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/{}: {}", self.path, self.reason)
    }
}

impl FsError {
    fn new(path: &str, reason: impl Into<String>) -> Self {
        FsError {
            path: path.to_string(),
            reason: reason.into(),
        }
    }

    /// True when the entry simply does not exist (older kernels lack many attributes).
    pub fn is_missing(&self) -> bool {
        self.reason == "missing"
    }
}

pub use crate::bounded::{
    ATTR_CAP, CONFIG_CAP, LSPCI_CAP, PCI_IDS_CAP, PROC_CAP, human, io_reason, odd_kind, read_input,
};

/// The root-relative reader.
pub struct SysFs {
    root: PathBuf,
    record: Option<RefCell<BTreeMap<String, Touched>>>,
    /// Record mode: the bytes each file gave (`gather` archives them without a second read).
    bytes: RefCell<HashMap<String, Vec<u8>>>,
    /// Resolved directories, `rel -> canonical rel`.
    cache: RefCell<HashMap<String, Result<String, FsError>>>,
    /// Canonical paths already seen to exist and not be symlinks: resolving a path below
    /// them skips their `lstat` (a 2,000-function host otherwise costs ~10 per function).
    real: RefCell<std::collections::HashSet<String>>,
    /// Record mode: files refused as no regular file or over the cap (`gather` says so).
    skipped: RefCell<BTreeMap<String, String>>,
}

impl SysFs {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        SysFs {
            root: root.into(),
            record: None,
            bytes: RefCell::new(HashMap::new()),
            cache: RefCell::new(HashMap::new()),
            real: RefCell::new(std::collections::HashSet::new()),
            skipped: RefCell::new(BTreeMap::new()),
        }
    }

    /// Record mode: the files a read refused because they are no regular file (FIFO,
    /// device, socket) or over their cap, with why; root-relative, sorted.
    pub fn skipped(&self) -> Vec<FsError> {
        self.skipped
            .borrow()
            .iter()
            .map(|(p, r)| FsError::new(p, r.clone()))
            .collect()
    }

    fn note_skipped(&self, e: &FsError) {
        if self.record.is_some() {
            self.skipped
                .borrow_mut()
                .insert(e.path.clone(), e.reason.clone());
        }
    }

    /// A reader that remembers every path it touches (see [`SysFs::touched`]).
    pub fn recording(root: impl Into<PathBuf>) -> Self {
        let mut fs = Self::new(root);
        fs.record = Some(RefCell::new(BTreeMap::new()));
        fs
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether this reader records (`gather`): readers then also touch the files other tools
    /// need to replay a capture (lspci reads `vendor`, `device`, `class`, ...).
    pub fn is_recording(&self) -> bool {
        self.record.is_some()
    }

    /// Everything read so far (record mode), as root-relative paths.
    pub fn touched(&self) -> BTreeMap<String, Touched> {
        self.record
            .as_ref()
            .map(|r| r.borrow().clone())
            .unwrap_or_default()
    }

    /// Record mode: the bytes a file gave when it was read (None when it was not).
    pub fn recorded_bytes(&self, rel: &str) -> Option<Vec<u8>> {
        self.bytes.borrow().get(rel).cloned()
    }

    fn note_bytes(&self, rel: &str, data: &[u8]) {
        if self.record.is_some() {
            self.bytes
                .borrow_mut()
                .insert(rel.to_string(), data.to_vec());
        }
        self.note(rel, Touched::File);
    }

    fn note(&self, rel: &str, what: Touched) {
        if let Some(r) = &self.record {
            r.borrow_mut().insert(rel.to_string(), what);
        }
    }

    fn abs(&self, rel: &str) -> PathBuf {
        if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        }
    }

    /// Resolves `rel` inside the root, following every symlink (recorded), and returns the
    /// canonical root-relative path. The last component need not exist when `must_exist` is
    /// false.
    pub fn canonical(&self, rel: &str) -> Result<String, FsError> {
        if let Some(hit) = self.cache.borrow().get(rel) {
            return hit.clone();
        }
        let out = self.resolve(rel);
        // Record mode: a directory a path resolves to is part of what was read, even when
        // nothing below it is (an empty device directory): without it a replay of the
        // archive finds a dangling link and loses the function (found by the sysfs_tree
        // fuzz target).
        if let Ok(c) = &out
            && self.record.is_some()
            && !c.is_empty()
            && std::fs::symlink_metadata(self.abs(c)).is_ok_and(|m| m.is_dir())
        {
            self.note(c, Touched::Dir);
        }
        let mut cache = self.cache.borrow_mut();
        if let Ok(c) = &out {
            // A canonical path resolves to itself: later reads below it skip the walk.
            cache.insert(c.clone(), out.clone());
        }
        cache.insert(rel.to_string(), out.clone());
        out
    }

    fn resolve(&self, rel: &str) -> Result<String, FsError> {
        let mut done: Vec<String> = Vec::new();
        let mut todo: Vec<String> = rel
            .split('/')
            .filter(|c| !c.is_empty())
            .rev()
            .map(str::to_string)
            .collect();
        let mut hops = 0;
        while let Some(c) = todo.pop() {
            match c.as_str() {
                "." => continue,
                ".." => {
                    done.pop();
                    continue;
                }
                _ => {}
            }
            done.push(c);
            let cur = done.join("/");
            if self.real.borrow().contains(&cur) {
                continue;
            }
            // One readlink says both: a link (its target) or, by EINVAL, an entry that
            // exists and is no link (an lstat first would cost a second syscall per link).
            let target = match std::fs::read_link(self.abs(&cur)) {
                Ok(t) => t,
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                    self.real.borrow_mut().insert(cur);
                    continue;
                }
                Err(e) => return Err(FsError::new(rel, io_reason(&e))),
            };
            {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(FsError::new(rel, "symlink loop"));
                }
                let target = target.to_string_lossy().to_string();
                self.note(&cur, Touched::Link(target.clone()));
                done.pop();
                if target.starts_with('/') {
                    done.clear();
                }
                for t in target.split('/').filter(|c| !c.is_empty()).rev() {
                    todo.push(t.to_string());
                }
            }
        }
        Ok(done.join("/"))
    }

    /// Reads a small text attribute, trimmed of its trailing newline.
    pub fn read(&self, rel: &str) -> Result<String, FsError> {
        let bytes = self.read_bytes(rel)?;
        text(rel, bytes)
    }

    /// Reads a file's bytes (config space), at most [`cap_for`] of its kind.
    ///
    /// The leaf is resolved inside the root like every directory above it (a capture's
    /// `vendor -> /etc/passwd` reads `<root>/etc/passwd`, as `gather` would have stored it),
    /// and only a regular file is opened: a FIFO, device node or socket is reported, never
    /// opened, so a capture cannot hang or flood the reader.
    pub fn read_bytes(&self, rel: &str) -> Result<Vec<u8>, FsError> {
        let (dir, name) = split(rel);
        let dir = self.canonical(dir)?;
        let full = join(&dir, name);
        let cap = cap_for(&full);
        // One lstat tells a plain file (the common case: open it) from a link (resolve it
        // inside the root first) and from anything that must not be opened.
        let meta = std::fs::symlink_metadata(self.abs(&full))
            .map_err(|e| FsError::new(rel, io_reason(&e)))?;
        let canon = if meta.file_type().is_symlink() {
            let canon = self.canonical(&full)?;
            let meta = std::fs::symlink_metadata(self.abs(&canon))
                .map_err(|e| FsError::new(rel, io_reason(&e)))?;
            check_regular(rel, &meta).inspect_err(|e| self.note_skipped(e))?;
            canon
        } else {
            check_regular(rel, &meta).inspect_err(|e| self.note_skipped(e))?;
            full
        };
        let data = read_capped(&self.abs(&canon), cap).map_err(|e| {
            let too_large = matches!(e, CappedError::TooLarge);
            let e = capped_error(rel, cap, e);
            if too_large {
                self.note_skipped(&e);
            }
            e
        })?;
        self.note_bytes(&canon, &data);
        Ok(data)
    }

    /// One listing of a directory: its entries with their types as the listing gives them
    /// (`d_type`), so the reads below it open only what exists, without a stat each.
    pub fn dir(&self, rel: &str) -> Result<DirView, FsError> {
        let canon = self.canonical(rel)?;
        let rd =
            std::fs::read_dir(self.abs(&canon)).map_err(|e| FsError::new(rel, io_reason(&e)))?;
        let mut entries = HashMap::new();
        for entry in rd {
            let entry = entry.map_err(|e| FsError::new(rel, io_reason(&e)))?;
            let kind = match entry.file_type() {
                Ok(ft) if ft.is_symlink() => EntryKind::Link,
                Ok(ft) => match odd_kind(&ft) {
                    None => EntryKind::File,
                    Some(k) => EntryKind::Other(k),
                },
                Err(e) => EntryKind::Unreadable(io_reason(&e)),
            };
            entries.insert(entry.file_name().to_string_lossy().to_string(), kind);
        }
        Ok(DirView { canon, entries })
    }

    /// [`SysFs::read`] of `name` in a listed directory.
    pub fn read_in(&self, d: &DirView, name: &str) -> Result<String, FsError> {
        let bytes = self.read_bytes_in(d, name, None)?;
        let rel = join(&d.canon, name);
        text(&rel, bytes)
    }

    /// [`SysFs::read_bytes`] of `name` in a listed directory: a missing entry costs no
    /// syscall, a plain file is opened at once (no stat first), a link is resolved inside the
    /// root as ever, anything else is refused unopened. `prefix`: read only that many bytes
    /// (config space: the standard 256 of its 4 KiB); the kind's cap still holds, by the
    /// open file's size.
    pub fn read_bytes_in(
        &self,
        d: &DirView,
        name: &str,
        prefix: Option<usize>,
    ) -> Result<Vec<u8>, FsError> {
        let rel = join(&d.canon, name);
        match d.entries.get(name) {
            None => Err(FsError::new(&rel, "missing")),
            Some(EntryKind::Link) => self.read_bytes(&rel),
            Some(EntryKind::Other(k)) => {
                let e = FsError::new(&rel, format!("not a regular file ({k}): skipped"));
                self.note_skipped(&e);
                Err(e)
            }
            Some(EntryKind::Unreadable(why)) => Err(FsError::new(&rel, why.clone())),
            Some(EntryKind::File) => {
                let cap = cap_for(&rel);
                let prefix = prefix.filter(|_| !self.is_recording());
                let data = read_capped_prefix(&self.abs(&rel), cap, prefix).map_err(|e| {
                    let too_large = matches!(e, CappedError::TooLarge);
                    let e = capped_error(&rel, cap, e);
                    if too_large {
                        self.note_skipped(&e);
                    }
                    e
                })?;
                self.note_bytes(&rel, &data);
                Ok(data)
            }
        }
    }

    /// [`SysFs::read_link`] of `name` in a listed directory (missing: no syscall).
    pub fn read_link_in(&self, d: &DirView, name: &str) -> Result<String, FsError> {
        let rel = join(&d.canon, name);
        if !d.entries.contains_key(name) {
            return Err(FsError::new(&rel, "missing"));
        }
        let t =
            std::fs::read_link(self.abs(&rel)).map_err(|e| FsError::new(&rel, io_reason(&e)))?;
        let t = t.to_string_lossy().to_string();
        self.note(&rel, Touched::Link(t.clone()));
        Ok(t)
    }

    /// Names in a directory, sorted.
    pub fn list(&self, rel: &str) -> Result<Vec<String>, FsError> {
        let canon = self.canonical(rel)?;
        let rd =
            std::fs::read_dir(self.abs(&canon)).map_err(|e| FsError::new(rel, io_reason(&e)))?;
        let mut out = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|e| FsError::new(rel, io_reason(&e)))?;
            out.push(entry.file_name().to_string_lossy().to_string());
        }
        out.sort();
        self.note(&canon, Touched::Dir);
        Ok(out)
    }

    /// The target of a symlink, as stored (recorded).
    pub fn read_link(&self, rel: &str) -> Result<String, FsError> {
        let (dir, name) = split(rel);
        let dir = self.canonical(dir)?;
        let full = join(&dir, name);
        let t =
            std::fs::read_link(self.abs(&full)).map_err(|e| FsError::new(rel, io_reason(&e)))?;
        let t = t.to_string_lossy().to_string();
        self.note(&full, Touched::Link(t.clone()));
        Ok(t)
    }

    /// True when `rel` exists (after resolving links).
    pub fn exists(&self, rel: &str) -> bool {
        match self.canonical(rel) {
            Ok(c) => match std::fs::metadata(self.abs(&c)) {
                Ok(m) => {
                    // A replay must see the same answer.
                    self.note(
                        &c,
                        if m.is_dir() {
                            Touched::Dir
                        } else {
                            Touched::File
                        },
                    );
                    true
                }
                Err(_) => false,
            },
            Err(_) => false,
        }
    }

    /// True when `rel` is a directory (after resolving links).
    pub fn is_dir(&self, rel: &str) -> bool {
        match self.canonical(rel) {
            Ok(c) => {
                let d = std::fs::metadata(self.abs(&c))
                    .map(|m| m.is_dir())
                    .unwrap_or(false);
                if d {
                    self.note(&c, Touched::Dir);
                }
                d
            }
            Err(_) => false,
        }
    }
}

/// A listed directory ([`SysFs::dir`]).
#[derive(Debug)]
pub struct DirView {
    canon: String,
    entries: HashMap<String, EntryKind>,
}

impl DirView {
    /// The directory's canonical root-relative path.
    pub fn canon(&self) -> &str {
        &self.canon
    }

    /// True when the listing has an entry `name` (of any kind).
    pub fn has(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }
}

#[derive(Debug, Clone)]
enum EntryKind {
    File,
    Link,
    /// Not a regular file: what it is.
    Other(&'static str),
    Unreadable(String),
}

fn text(rel: &str, bytes: Vec<u8>) -> Result<String, FsError> {
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            let keep = s.trim_end_matches(['\n', '\0']).len();
            s.truncate(keep);
            Ok(s)
        }
        Err(_) => Err(FsError::new(rel, "not UTF-8 text")),
    }
}

fn capped_error(rel: &str, cap: u64, e: CappedError) -> FsError {
    match e {
        CappedError::Io(e) => FsError::new(rel, io_reason(&e)),
        CappedError::TooLarge => FsError::new(
            rel,
            format!("larger than {}: not a sysfs attribute", human(cap)),
        ),
    }
}

/// The read limit for a root-relative path, by file kind.
pub fn cap_for(rel: &str) -> u64 {
    let name = split(rel).1;
    if rel.starts_with("proc/") {
        PROC_CAP
    } else if name == "pci.ids" {
        PCI_IDS_CAP
    } else if name == "config" {
        CONFIG_CAP
    } else {
        ATTR_CAP
    }
}

fn check_regular(rel: &str, meta: &std::fs::Metadata) -> Result<(), FsError> {
    match odd_kind(&meta.file_type()) {
        None => Ok(()),
        Some(k) => Err(FsError::new(
            rel,
            format!("not a regular file ({k}): skipped"),
        )),
    }
}

/// Why a capped read failed.
#[derive(Debug)]
pub enum CappedError {
    Io(std::io::Error),
    /// More than the cap.
    TooLarge,
}

/// Reads at most `cap` bytes of a file the caller checked to be regular. It opens without
/// following a final symlink and without blocking (a file swapped for a FIFO after the check
/// reads as empty instead of hanging), and skips the stat `std::fs::read` does first (sysfs
/// sizes are fake anyway).
fn read_capped(p: &Path, cap: u64) -> Result<Vec<u8>, CappedError> {
    read_capped_prefix(p, cap, None)
}

/// [`read_capped`], or with `prefix` only the first that many bytes of a file no larger
/// than `cap` (its size by `fstat` of the open file: no second path walk).
fn read_capped_prefix(p: &Path, cap: u64, prefix: Option<usize>) -> Result<Vec<u8>, CappedError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(p)
        .map_err(CappedError::Io)?;
    if let Some(want) = prefix {
        if f.metadata().map_err(CappedError::Io)?.len() > cap {
            return Err(CappedError::TooLarge);
        }
        let mut buf = vec![0u8; want];
        let mut got = 0;
        while got < want {
            match f.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(CappedError::Io(e)),
            }
        }
        buf.truncate(got);
        return Ok(buf);
    }
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match f.read(&mut chunk) {
            Ok(0) => return Ok(buf),
            Ok(n) => {
                if (buf.len() + n) as u64 > cap {
                    return Err(CappedError::TooLarge);
                }
                buf.extend_from_slice(&chunk[..n]);
                // A short read of a regular file or a sysfs attribute is its end: skip the
                // extra read that would return 0 (half the audit's syscalls otherwise).
                if n < chunk.len() {
                    return Ok(buf);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(CappedError::Io(e)),
        }
    }
}

/// `a/b/c` -> (`a/b`, `c`).
pub fn split(rel: &str) -> (&str, &str) {
    match rel.rfind('/') {
        Some(i) => (&rel[..i], &rel[i + 1..]),
        None => ("", rel),
    }
}

pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_resolve_inside_the_root_and_loops_are_reported() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        std::fs::create_dir_all(r.join("sys/devices/pci0000:00/0000:00:01.0")).unwrap();
        std::fs::write(
            r.join("sys/devices/pci0000:00/0000:00:01.0/vendor"),
            "0x8086\n",
        )
        .unwrap();
        std::fs::create_dir_all(r.join("sys/bus/pci/devices")).unwrap();
        symlink(
            "../../../devices/pci0000:00/0000:00:01.0",
            r.join("sys/bus/pci/devices/0000:00:01.0"),
        )
        .unwrap();
        // An absolute link means "inside the root" for a capture.
        symlink("/sys/devices/pci0000:00", r.join("sys/abs")).unwrap();
        symlink("loop2", r.join("sys/loop1")).unwrap();
        symlink("loop1", r.join("sys/loop2")).unwrap();
        let fs = SysFs::recording(r);
        assert_eq!(
            fs.canonical("sys/bus/pci/devices/0000:00:01.0").unwrap(),
            "sys/devices/pci0000:00/0000:00:01.0"
        );
        assert_eq!(
            fs.read("sys/bus/pci/devices/0000:00:01.0/vendor").unwrap(),
            "0x8086"
        );
        assert_eq!(fs.canonical("sys/abs").unwrap(), "sys/devices/pci0000:00");
        assert_eq!(fs.canonical("../../sys/abs/..").unwrap(), "sys/devices");
        let err = fs.read("sys/loop1/x").unwrap_err();
        assert_eq!(err.reason, "symlink loop");
        let touched = fs.touched();
        assert_eq!(
            touched.get("sys/bus/pci/devices/0000:00:01.0"),
            Some(&Touched::Link(
                "../../../devices/pci0000:00/0000:00:01.0".into()
            ))
        );
        assert_eq!(
            touched.get("sys/devices/pci0000:00/0000:00:01.0/vendor"),
            Some(&Touched::File)
        );
        assert!(fs.read("sys/nothing").unwrap_err().is_missing());
    }
}
