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

/// Reads the host below `root` as the audit does, and archives what it read to `out`.
pub fn gather(root: &Path, out: &Path, opts: AuditOptions) -> std::io::Result<Gathered> {
    let fs = SysFs::recording(root);
    // The audit reads the host's own pci.ids through the recording reader (names then match
    // on replay), so it is in `touched` like everything else.
    let audit = super::audit_with(&fs, None, opts);
    let touched = fs.touched();
    let mut counts = (0, 0, 0);
    crate::outfile::write_with(out, |file| {
        counts = archive(&fs, &touched, file)?;
        Ok(())
    })?;
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
fn archive(
    fs: &SysFs,
    touched: &std::collections::BTreeMap<String, Touched>,
    file: &mut std::fs::File,
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
