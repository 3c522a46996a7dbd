//! `gather`: the audit's reader run in record mode, then exactly what it read packed into a
//! `.tar.gz` rooted so that `laneplan audit --sysfs-root <unpacked>` replays it (like
//! `hwloc-gather-topology`). Symlinks stay symlinks; sysfs files are stored with the bytes
//! actually read (their stat size, 4096, is a lie).

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
    /// The audit that ran while recording (its findings say what could not be read).
    pub audit: Audit,
}

/// Reads the host below `root` as the audit does, and archives what it read to `out`.
pub fn gather(root: &Path, out: &Path, opts: AuditOptions) -> std::io::Result<Gathered> {
    let fs = SysFs::recording(root);
    let audit = super::audit_with(&fs, None, opts);
    let mut touched = fs.touched();
    // The host's own pci.ids keeps names identical on replay.
    for rel in ["usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids"] {
        if root.join(rel).is_file() {
            touched.insert(rel.to_string(), Touched::File);
            break;
        }
    }
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(&dir)?;
    let gz = GzEncoder::new(tmp.reopen()?, Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.follow_symlinks(false);
    let (mut files, mut links, mut dirs) = (0, 0, 0);
    let mut made: BTreeSet<String> = BTreeSet::new();
    let add_dir = |tar: &mut tar::Builder<GzEncoder<std::fs::File>>,
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
    for (rel, what) in &touched {
        let parent = super::fs::split(rel).0;
        if !parent.is_empty() {
            dirs += add_dir(&mut tar, parent, &mut made)?;
        }
        match what {
            Touched::Dir => {
                dirs += add_dir(&mut tar, rel, &mut made)?;
            }
            Touched::File => {
                let Ok(data) = std::fs::read(root.join(rel)) else {
                    continue;
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
    let gz = tar.into_inner()?;
    let mut f = gz.finish()?;
    f.flush()?;
    f.sync_all()?;
    tmp.persist(out).map_err(|e| e.error)?;
    Ok(Gathered {
        files,
        links,
        dirs,
        audit,
    })
}
