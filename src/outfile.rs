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
            if let Some(kind) = crate::host::fs::odd_kind(&m.file_type()) {
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
