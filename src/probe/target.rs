//! Probe targets: what to probe (a path plus what the plan knows about it) and opening it for
//! direct I/O (size, alignment, filesystem checks, creating and prefilling file targets).

use crate::finding::{Code, Finding};
use serde::Serialize;
use std::fs::File;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// One device or file to probe. The audit's `--mapped` mode builds these from the NVMe
/// namespaces it finds, with the bay/slot/link and the planner's ceilings filled in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeTarget {
    pub path: PathBuf,
    /// Short name for tables (`nvme0n1`, or the file name).
    pub label: String,
    /// Where it sits: `Bay 3 > Slot 1 > CPU1, Gen3 x4`; `None` for plain paths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Predicted read ceiling (GB/s, 1e9 bytes), when the topology is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_read_gbs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_write_gbs: Option<f64>,
    /// Expected read figure (GB/s): the ceiling capped by the drive's own specification, when
    /// the catalogue knows the drive (`--mapped`: by its PCI ids or the plan's part).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_read_gbs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_write_gbs: Option<f64>,
    /// The catalogue part the expected figures come from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
}

impl ProbeTarget {
    pub fn from_path(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let label = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        ProbeTarget {
            path,
            label,
            location: None,
            ceiling_read_gbs: None,
            ceiling_write_gbs: None,
            expected_read_gbs: None,
            expected_write_gbs: None,
            part: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TargetKind {
    BlockDevice { major: u32, minor: u32 },
    File,
}

/// An opened target, ready for direct I/O.
#[derive(Debug)]
pub struct OpenTarget {
    pub file: File,
    pub kind: TargetKind,
    /// Bytes.
    pub size: u64,
    /// Required alignment of offsets and lengths (logical block size / DIO offset alignment).
    pub align: u64,
    /// Required alignment of buffers in memory.
    pub mem_align: u64,
    /// The file was created by this run (and prefilled where read).
    pub created: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{path}: interrupted while prefilling it; the file this run created was removed")]
    Interrupted { path: String },
    #[error("{path}: {msg}")]
    Input { path: String, msg: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn io_err(path: &Path, e: std::io::Error) -> TargetError {
    TargetError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

fn input_err(path: &Path, msg: impl Into<String>) -> TargetError {
    TargetError::Input {
        path: path.display().to_string(),
        msg: msg.into(),
    }
}

/// Filesystems where O_DIRECT opens but does not bypass a page cache (or there is no disk).
pub fn fake_direct_io_fs(f_type: i64) -> Option<&'static str> {
    match f_type {
        0x0102_1994 => Some("tmpfs"),
        0x8584_58f6 => Some("ramfs"),
        _ => None,
    }
}

/// What stat says about a path before opening: a block device's numbers or a file.
pub fn classify(path: &Path) -> Result<Option<TargetKind>, TargetError> {
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_block_device() => {
            let rdev = m.rdev();
            Ok(Some(TargetKind::BlockDevice {
                major: rustix::fs::major(rdev),
                minor: rustix::fs::minor(rdev),
            }))
        }
        Ok(m) if m.is_file() => Ok(Some(TargetKind::File)),
        Ok(_) => Err(input_err(
            path,
            "is neither a block device nor a regular file",
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path, e)),
    }
}

fn open_direct(path: &Path, write: bool) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_DIRECT)
        .open(path)
}

/// `_IOR(0x12, 114, u64)`: the device size in bytes.
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;

fn block_size64(file: &File) -> std::io::Result<u64> {
    use std::os::fd::AsRawFd;
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer.
    let r = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64, &mut size as *mut u64) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(size)
}

/// Opens a target for direct I/O: read-only unless `write`. A missing file is created with
/// `create_size` bytes (fallocate) when given. Returns warnings (tmpfs, holes) as findings.
pub fn open_target(
    target: &ProbeTarget,
    write: bool,
    create_size: Option<u64>,
) -> Result<(OpenTarget, Vec<Finding>), TargetError> {
    let path = &target.path;
    let mut findings = Vec::new();
    let mut created = false;
    let kind = match classify(path)? {
        Some(k) => k,
        None => {
            let Some(size) = create_size else {
                return Err(input_err(
                    path,
                    "does not exist; give --size to create a file target of that size",
                ));
            };
            if size == 0 {
                return Err(input_err(
                    path,
                    "--size 0: a file target needs at least one block",
                ));
            }
            // Checked before anything is created, so a failure leaves nothing behind.
            let parent = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            if let Ok(st) = rustix::fs::statvfs(parent) {
                let free = st.f_bavail.saturating_mul(st.f_frsize);
                if size > free {
                    return Err(input_err(
                        path,
                        format!(
                            "--size {size} bytes does not fit: {} has {free} bytes free; nothing was created",
                            parent.display()
                        ),
                    ));
                }
            }
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(path)
                .map_err(|e| io_err(path, e))?;
            if let Err(e) = rustix::fs::fallocate(&f, rustix::fs::FallocateFlags::empty(), 0, size)
            {
                drop(f);
                let _ = std::fs::remove_file(path);
                return Err(input_err(
                    path,
                    format!("cannot allocate {size} bytes ({e}); the file was removed again"),
                ));
            }
            created = true;
            TargetKind::File
        }
    };
    let opened = open_direct(path, write);
    if opened.is_err() && created {
        let _ = std::fs::remove_file(path);
    }
    let file = opened.map_err(|e| match e.raw_os_error() {
        Some(libc::EINVAL) => input_err(
            path,
            "the filesystem does not support O_DIRECT (direct I/O); probe a block device or a file on ext4/xfs",
        ),
        _ => io_err(path, e),
    })?;
    let (size, align, mem_align) = match kind {
        TargetKind::BlockDevice { .. } => {
            let lbs = rustix::fs::ioctl_blksszget(&file).map_err(|e| io_err(path, e.into()))?;
            let size = block_size64(&file).map_err(|e| io_err(path, e))?;
            (size, lbs as u64, lbs as u64)
        }
        TargetKind::File => {
            let meta = file.metadata().map_err(|e| io_err(path, e))?;
            let (mut off, mut mem) = (0u64, 0u64);
            if let Ok(sx) = rustix::fs::statx(
                &file,
                "",
                rustix::fs::AtFlags::EMPTY_PATH,
                rustix::fs::StatxFlags::DIOALIGN,
            ) && sx.stx_mask & rustix::fs::StatxFlags::DIOALIGN.bits() != 0
            {
                off = sx.stx_dio_offset_align as u64;
                mem = sx.stx_dio_mem_align as u64;
                if off == 0 {
                    return Err(input_err(
                        path,
                        "the filesystem reports no direct I/O support for this file",
                    ));
                }
            }
            if off == 0 {
                // Kernels before 6.1: the filesystem block size is always a safe alignment.
                off = meta.blksize().max(512);
                mem = off;
            }
            if let Ok(sfs) = rustix::fs::fstatfs(&file)
                && let Some(name) = fake_direct_io_fs(sfs.f_type as _)
            {
                findings.push(
                    Finding::of(
                        Code::OnTmpfs,
                        format!(
                            "{} is on {name}: O_DIRECT opens there but goes through memory, so the results say nothing about a disk",
                            path.display()
                        ),
                    )
                    .with_help("probe a file on ext4 or xfs, or a block device")
                    .at_node(target.label.clone()),
                );
            }
            (meta.len(), off, mem.max(off.min(4096)))
        }
    };
    if size == 0 {
        return Err(input_err(
            path,
            "is empty (0 bytes); give --size to create a file target",
        ));
    }
    Ok((
        OpenTarget {
            file,
            kind,
            size,
            align,
            mem_align: mem_align.max(512),
            created,
        },
        findings,
    ))
}

/// Byte offset of the first hole or unwritten extent in `[0, end)`, if any. Reads there
/// return zeros without touching the disk.
pub fn first_hole(file: &File, end: u64) -> Option<u64> {
    let hole = rustix::fs::seek(file, rustix::fs::SeekFrom::Hole(0)).ok()?;
    (hole < end).then_some(hole)
}

/// Writes `[0, len)` of a freshly created file with non-zero, incompressible data, so that
/// reads touch the disk. Uses direct I/O in 1 MiB chunks.
pub fn prefill(path: &Path, len: u64, align: u64) -> Result<(), TargetError> {
    prefill_until(path, len, align, &std::sync::atomic::AtomicBool::new(false))
}

/// [`prefill`] that gives up (an `Interrupted` error) once `stop` is set, checked every MiB.
pub fn prefill_until(
    path: &Path,
    len: u64,
    align: u64,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<(), TargetError> {
    use std::os::unix::fs::FileExt;
    let f = open_direct(path, true).map_err(|e| io_err(path, e))?;
    let chunk = 1usize << 20;
    let mut buf = crate::probe::engine::AlignedBuf::new(chunk, 4096);
    let mut rng = crate::probe::workload::Rng::new(0x5eed);
    for w in buf.as_mut_slice().chunks_exact_mut(8) {
        w.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    let mut off = 0u64;
    while off < len {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(TargetError::Interrupted {
                path: path.display().to_string(),
            });
        }
        let n = ((len - off).min(chunk as u64)).div_ceil(align) * align;
        f.write_all_at(&buf.as_slice()[..n as usize], off)
            .map_err(|e| io_err(path, e))?;
        off += n;
    }
    f.sync_all().map_err(|e| io_err(path, e))?;
    Ok(())
}
