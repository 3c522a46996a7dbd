//! Output files (`audit --prometheus`, `bays --svg`, `probe --svg`, `gather`'s archive), all
//! written the same way:
//!
//! - **Regular files only.** A path that names a directory, FIFO, device node or socket is
//!   refused with an error that says what it is; nothing is opened or replaced.
//! - **Symlinks are followed:** the file the link points to is replaced (the link stays a
//!   link), so `metrics.prom -> /var/lib/node_exporter/laneplan.prom` keeps working. A link
//!   that ends at a directory, FIFO or device is refused like the path itself.
//! - **Atomic:** a temp file in the target's own directory, written, `fsync`ed, renamed over
//!   the target, and the directory `fsync`ed; a reader sees the old file or the new one.
//! - **Permissions:** an existing file keeps its mode (a 0644 textfile stays readable by
//!   node_exporter); a new file gets 0666 less the umask (0644 under umask 022), like `>`.
//!
//! Every file the tool writes goes through [`write`] / [`write_with`] (one named file:
//! `place -o`, `dot -o`, `--svg`, `--prometheus`, `gather`) or [`write_set`] (files that
//! belong together in a named directory: `man --dir`, `learn -o`). A set is stricter, because
//! the user named the directory, not the files in it:
//!
//! - **Only inside the directory:** each name is one plain path component ([`check_name`]:
//!   no `/`, `..`, `.`, leading dot, control character or NUL); an entry in the directory
//!   that is a symlink, FIFO, device or directory is refused, never followed out of it.
//! - **Nothing replaced unless asked:** with [`Existing::Refuse`] an existing file is an
//!   error, with [`Existing::Replace`] it is replaced and keeps its mode. Every name is
//!   checked before the first byte is written, so a refusal writes nothing.
//! - **Never a half-written set:** every file is written and `fsync`ed in a fresh temporary
//!   directory first. A directory that does not exist yet is that temporary directory
//!   renamed into place (one `rename`, `RENAME_NOREPLACE`: the set appears whole or not at
//!   all, 0777 less the umask); into an existing directory the files are renamed one by one
//!   only after all of them are complete, so a failure while writing leaves nothing.

use std::fs::{File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Symlink hops followed before giving up (the kernel allows 40).
const MAX_HOPS: usize = 40;

/// Writes `data` to `path` atomically (see the module docs for the rules).
pub fn write(path: &Path, data: &[u8]) -> io::Result<()> {
    write_with(path, |f| f.write_all(data))
}

/// Like [`write`], with the content streamed by `fill` into the temp file.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let target = resolve(path)?;
    let keep = match std::fs::metadata(&target) {
        Ok(m) => {
            if let Some(kind) = crate::bounded::odd_kind(&m.file_type()) {
                let via = if target != path {
                    format!(" (the target of symlink {})", path.display())
                } else {
                    String::new()
                };
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{}{via} is {kind}: refusing to replace it (output goes to regular files only)",
                        target.display()
                    ),
                ));
            }
            Some(m.permissions().mode() & 0o7777)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "out".into());
    // A new file: 0666, and open(2) applies the umask. An existing one: private until its
    // own mode is set explicitly below (fchmod ignores the umask).
    let create_mode = if keep.is_some() { 0o600 } else { 0o666 };
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(Permissions::from_mode(create_mode))
        .tempfile_in(&dir)?;
    fill(tmp.as_file_mut())?;
    if let Some(mode) = keep {
        tmp.as_file()
            .set_permissions(Permissions::from_mode(mode))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    // The rename is durable once the directory is.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// What [`write_set`] does with a file of the set that already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// An error, before anything is written (`learn` without `--force`).
    Refuse,
    /// Replaced, keeping its mode (`man --dir`, `learn --force`).
    Replace,
}

/// Whether `name` may name a file inside an output directory: one plain path component
/// (not empty, no `/`, not `.` or `..`, no leading dot, no control character or NUL, at most
/// 255 bytes). `Err` says why not.
pub fn check_name(name: &str) -> Result<(), String> {
    let why = if name.is_empty() {
        "is empty"
    } else if name.len() > 255 {
        "is longer than 255 bytes"
    } else if name.contains('/') {
        "contains '/'"
    } else if name.starts_with('.') {
        "starts with '.'"
    } else if name.chars().any(char::is_control) {
        "contains a control character"
    } else {
        return Ok(());
    };
    Err(format!("output file name {name:?} {why}"))
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Writes the files `files` (name, content) into the directory `dir` as one set (see the
/// module docs for the rules); the directory is created when missing (its parent must
/// exist). Returns the paths written, in the order given.
pub fn write_set(
    dir: &Path,
    files: &[(&str, &[u8])],
    existing: Existing,
) -> io::Result<Vec<PathBuf>> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut seen = std::collections::BTreeSet::new();
    for (name, _) in files {
        check_name(name).map_err(invalid)?;
        if !seen.insert(*name) {
            return Err(invalid(format!("output file name {name:?} given twice")));
        }
    }
    // The named directory: a symlink to a directory is followed (the user named it).
    let dir_exists = match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => true,
        Ok(m) => {
            let kind = crate::bounded::odd_kind(&m.file_type()).unwrap_or("a regular file");
            return Err(invalid(format!(
                "{} is {kind}, not a directory: refusing to write into it",
                dir.display()
            )));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    // Check every target before writing anything.
    let mut keep: Vec<Option<u32>> = Vec::with_capacity(files.len());
    for (name, _) in files {
        let target = dir.join(name);
        if !dir_exists {
            keep.push(None);
            continue;
        }
        match std::fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_file() => {
                if existing == Existing::Refuse {
                    return Err(io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!("{} exists: refusing to replace it", target.display()),
                    ));
                }
                keep.push(Some(m.permissions().mode() & 0o7777));
            }
            Ok(m) => {
                let kind = crate::bounded::odd_kind(&m.file_type()).unwrap_or("not a file");
                return Err(invalid(format!(
                    "{} is {kind}: refusing to replace or follow it (output goes to regular files inside {} only)",
                    target.display(),
                    dir.display()
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => keep.push(None),
            Err(e) => return Err(e),
        }
    }
    // The staging directory: inside `dir` when it exists, else beside it (same filesystem).
    let (stage_parent, base) = if dir_exists {
        (dir.to_path_buf(), "set".to_string())
    } else {
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let base = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .ok_or_else(|| invalid(format!("{}: not a directory name", dir.display())))?;
        (parent, base)
    };
    let stage = make_stage(&stage_parent, &base)?;
    let result = (|| -> io::Result<()> {
        for ((name, data), mode) in files.iter().zip(&keep) {
            let p = stage.join(name);
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&p)?;
            f.write_all(data)?;
            if let Some(mode) = mode {
                f.set_permissions(Permissions::from_mode(*mode))?;
            }
            f.sync_all()?;
        }
        File::open(&stage)?.sync_all()?;
        if dir_exists {
            for (name, _) in files {
                std::fs::rename(stage.join(name), dir.join(name))?;
            }
        } else {
            rustix::fs::renameat_with(
                rustix::fs::CWD,
                &stage,
                rustix::fs::CWD,
                dir,
                rustix::fs::RenameFlags::NOREPLACE,
            )
            .map_err(io::Error::from)?;
        }
        Ok(())
    })();
    if dir_exists || result.is_err() {
        let _ = std::fs::remove_dir_all(&stage);
    }
    result?;
    if let Ok(d) = File::open(&stage_parent) {
        let _ = d.sync_all();
    }
    Ok(files.iter().map(|(n, _)| dir.join(n)).collect())
}

/// A fresh directory `.{base}.{pid}.{n}.tmp` in `parent`, 0777 less the umask.
fn make_stage(parent: &Path, base: &str) -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    for _ in 0..100 {
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = parent.join(format!(".{base}.{}.{n}.tmp", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o777).create(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("cannot make a temporary directory"))
}

/// The file `path` finally names: symlinks followed (relative targets from the link's own
/// directory); a missing last component is fine (a new file, or a dangling link's target).
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut cur = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&cur)?;
                cur = match cur.parent() {
                    Some(p) if t.is_relative() => p.join(t),
                    _ => t,
                };
            }
            Ok(_) => return Ok(cur),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(cur),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: too many levels of symbolic links", path.display()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_link_targets_resolve_from_the_links_directory() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("d")).unwrap();
        std::os::unix::fs::symlink("../real.txt", t.path().join("d/link")).unwrap();
        assert_eq!(
            resolve(&t.path().join("d/link")).unwrap(),
            t.path().join("d/../real.txt")
        );
        std::os::unix::fs::symlink("self", t.path().join("self")).unwrap();
        let e = resolve(&t.path().join("self")).unwrap_err();
        assert!(e.to_string().contains("too many levels"), "{e}");
    }
}
