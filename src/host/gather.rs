//! `gather`: the audit's reader run in record mode, then exactly what it read packed into a
//! `.tar.gz` rooted so that `laneplan audit --sysfs-root <unpacked>` replays it (like
//! `hwloc-gather-topology`). Symlinks stay symlinks; sysfs files are stored with the bytes
//! actually read (their stat size, 4096, is a lie), kept from the audit's own read (no second
//! read). The tar stream is compressed on a second thread, as `tar czf` hands it to gzip.

use super::audit::{Audit, AuditOptions};
use super::fs::{SysFs, Touched};
use flate2::Compression;
use flate2::write::GzEncoder;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

/// What a gather wrote.
#[derive(Debug)]
pub struct Gathered {
    pub files: usize,
    pub links: usize,
    pub dirs: usize,
    /// Files the reader refused and the archive leaves out (FIFOs, devices, sockets, files
    /// over their cap), root-relative with why.
    pub skipped: Vec<super::fs::FsError>,
    /// The audit that ran while recording (its findings say what could not be read).
    pub audit: Audit,
}

/// Reads the host below `root` as the audit does, and archives what it read to `out`
/// (`-`: stdout).
pub fn gather(root: &Path, out: &Path, opts: AuditOptions) -> std::io::Result<Gathered> {
    let fs = SysFs::recording(root);
    // The audit reads the host's own pci.ids through the recording reader (names then match
    // on replay), so it is in `touched` like everything else.
    let audit = super::audit_with(&fs, None, opts);
    let touched = fs.touched();
    let mut counts = (0, 0, 0);
    if crate::outfile::is_stdout(out) {
        counts = archive(&fs, &touched, &mut std::io::stdout())?;
    } else {
        crate::outfile::write_with(out, |file| {
            counts = archive(&fs, &touched, file)?;
            Ok(())
        })?;
    }
    let (files, links, dirs) = counts;
    Ok(Gathered {
        files,
        links,
        dirs,
        skipped: fs.skipped(),
        audit,
    })
}

/// Tar bytes handed to the compressing thread in chunks of this size.
const CHUNK: usize = 256 << 10;

/// The tar side of the pipe: buffers and sends chunks to the compressor.
struct ToCompressor {
    buf: Vec<u8>,
    tx: std::sync::mpsc::SyncSender<Vec<u8>>,
}

impl ToCompressor {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        self.tx
            .send(chunk)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "compressor stopped"))
    }
}

impl Write for ToCompressor {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

/// Writes the `.tar.gz` of what was read; returns (files, links, directories). This thread
/// builds the tar stream, a second one compresses it into `file`.
fn archive<W: Write + Send>(
    fs: &SysFs,
    touched: &std::collections::BTreeMap<String, Touched>,
    file: &mut W,
) -> std::io::Result<(usize, usize, usize)> {
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(8);
        let compressor = s.spawn(move || -> std::io::Result<()> {
            let mut gz = GzEncoder::new(file, Compression::default());
            for chunk in rx {
                gz.write_all(&chunk)?;
            }
            gz.finish()?.flush()
        });
        let sink = ToCompressor {
            buf: Vec::with_capacity(CHUNK),
            tx,
        };
        let built = tar_stream(fs, touched, sink);
        // The sender is gone (dropped with the tar builder): the compressor ends; its error
        // (a full disk) says more than the broken pipe the tar side then saw.
        let compressed = compressor
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the compressing thread panicked")));
        compressed?;
        built
    })
}

fn tar_stream(
    fs: &SysFs,
    touched: &std::collections::BTreeMap<String, Touched>,
    sink: ToCompressor,
) -> std::io::Result<(usize, usize, usize)> {
    let mut tar = tar::Builder::new(sink);
    tar.follow_symlinks(false);
    let (mut files, mut links, mut dirs) = (0, 0, 0);
    let mut made: BTreeSet<String> = BTreeSet::new();
    let add_dir = |tar: &mut tar::Builder<ToCompressor>,
                   rel: &str,
                   made: &mut BTreeSet<String>|
     -> std::io::Result<usize> {
        let mut n = 0;
        let mut acc = String::new();
        for c in rel.split('/') {
            if !acc.is_empty() {
                acc.push('/');
            }
            acc.push_str(c);
            if made.insert(acc.clone()) {
                let mut h = tar::Header::new_gnu();
                h.set_entry_type(tar::EntryType::Directory);
                h.set_mode(0o755);
                h.set_size(0);
                h.set_mtime(0);
                tar.append_data(&mut h, format!("{acc}/"), std::io::empty())?;
                n += 1;
            }
        }
        Ok(n)
    };
    for (rel, what) in touched {
        let parent = super::fs::split(rel).0;
        if !parent.is_empty() {
            dirs += add_dir(&mut tar, parent, &mut made)?;
        }
        match what {
            Touched::Dir => {
                dirs += add_dir(&mut tar, rel, &mut made)?;
            }
            Touched::File => {
                // The bytes the audit read; else the same confined, bounded,
                // regular-files-only read it made.
                let data = match fs.recorded_bytes(rel) {
                    Some(d) => d,
                    None => match fs.read_bytes(rel) {
                        Ok(d) => d,
                        Err(_) => continue,
                    },
                };
                let mut h = tar::Header::new_gnu();
                h.set_entry_type(tar::EntryType::Regular);
                h.set_mode(0o444);
                h.set_size(data.len() as u64);
                h.set_mtime(0);
                tar.append_data(&mut h, rel, data.as_slice())?;
                files += 1;
            }
            Touched::Link(target) => {
                let mut h = tar::Header::new_gnu();
                h.set_entry_type(tar::EntryType::Symlink);
                h.set_mode(0o777);
                h.set_size(0);
                h.set_mtime(0);
                tar.append_link(&mut h, rel, target)?;
                links += 1;
            }
        }
    }
    let mut sink = tar.into_inner()?;
    sink.flush()?;
    Ok((files, links, dirs))
}

/// Largest archive `audit --sysfs-root host.tar.gz` reads (compressed).
pub const ARCHIVE_CAP: u64 = 256 << 20;
/// Most bytes an archive unpacks to, all entries together.
pub const UNPACKED_CAP: u64 = 1 << 30;
/// Most entries an archive may hold (a 2,000-function host gathers about 100,000).
pub const ENTRIES_CAP: usize = 1_000_000;

/// Whether `path` is a file to unpack (a `gather` archive) rather than a root directory.
pub fn is_archive(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Unpacks a `gather` archive (`.tar.gz`) into a fresh temporary directory and returns it
/// with the root it holds (the directory with `sys/`: the top, or the one directory below
/// it). Bounded: the archive is read through the bounded input reader ([`ARCHIVE_CAP`]),
/// each entry to the largest per-kind read cap of the audit ([`super::fs::PCI_IDS_CAP`]),
/// all of them to [`UNPACKED_CAP`] and [`ENTRIES_CAP`]. Only directories, regular files and
/// symlinks are made (what `gather` writes; the reader resolves symlinks inside the root);
/// a path with `..`, an absolute path, or one through a symlink is refused, so nothing is
/// written outside the directory. `Err` says why, without the path.
pub fn unpack(archive: &Path) -> Result<(tempfile::TempDir, std::path::PathBuf), String> {
    use std::io::Read;
    let bytes = super::fs::read_input(archive, ARCHIVE_CAP)?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(
            "not a gzip file: give a root directory or a `laneplan gather` archive (.tar.gz)"
                .into(),
        );
    }
    let dir = tempfile::Builder::new()
        .prefix("laneplan-capture-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let gz = flate2::read::GzDecoder::new(&bytes[..]);
    // Bounded even if the gzip stream claims nothing: the reader stops past the cap.
    let mut tar = tar::Archive::new(gz.take(UNPACKED_CAP + 1));
    let (mut entries, mut total) = (0usize, 0u64);
    let bad = |e: std::io::Error| format!("not a readable tar.gz: {e}");
    for entry in tar.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        entries += 1;
        if entries > ENTRIES_CAP {
            return Err(format!("more than {ENTRIES_CAP} entries"));
        }
        let path = entry.path().map_err(bad)?.into_owned();
        let mut rel = std::path::PathBuf::new();
        for c in path.components() {
            match c {
                std::path::Component::Normal(n) => rel.push(n),
                std::path::Component::CurDir => {}
                _ => {
                    return Err(format!(
                        "entry {} leaves the archive's root",
                        path.display()
                    ));
                }
            }
        }
        if rel.as_os_str().is_empty() {
            continue;
        }
        let to = dir.path().join(&rel);
        // Every parent is a real directory made here: never a symlink out.
        let mut at = dir.path().to_path_buf();
        for c in rel.parent().into_iter().flat_map(|p| p.components()) {
            at.push(c);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    return Err(format!(
                        "entry {} goes through a symlink or file",
                        path.display()
                    ));
                }
                Err(_) => std::fs::create_dir(&at).map_err(|e| e.to_string())?,
            }
        }
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            match std::fs::symlink_metadata(&to) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => return Err(format!("entry {} is there twice", path.display())),
                Err(_) => std::fs::create_dir(&to).map_err(|e| e.to_string())?,
            }
        } else if kind.is_symlink() {
            let target = entry
                .link_name()
                .map_err(bad)?
                .ok_or_else(|| format!("symlink {} has no target", path.display()))?;
            std::os::unix::fs::symlink(&target, &to)
                .map_err(|e| format!("entry {}: {e}", path.display()))?;
        } else if kind.is_file() {
            let size = entry.header().size().map_err(bad)?;
            if size > super::fs::PCI_IDS_CAP {
                return Err(format!(
                    "entry {} is {size} bytes; at most {} are read",
                    path.display(),
                    super::fs::PCI_IDS_CAP
                ));
            }
            total += size;
            if total > UNPACKED_CAP {
                return Err(format!("unpacks to more than {UNPACKED_CAP} bytes"));
            }
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&to)
                .map_err(|e| format!("entry {}: {e}", path.display()))?;
            std::io::copy(&mut (&mut entry).take(size), &mut out).map_err(bad)?;
        }
        // Anything else (devices, FIFOs, hard links) is not what `gather` writes: skipped.
    }
    let root = if dir.path().join("sys").is_dir() {
        dir.path().to_path_buf()
    } else {
        let mut subdirs = std::fs::read_dir(dir.path())
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("sys").is_dir());
        match (subdirs.next(), subdirs.next()) {
            (Some(r), None) => r,
            _ => {
                return Err(
                    "no sys/ directory in the archive: not a `laneplan gather` archive".into(),
                );
            }
        }
    };
    Ok((dir, root))
}
