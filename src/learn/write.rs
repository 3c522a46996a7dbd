//! Writing what `learn` learned: the platform, parts and build files as one set.
//!
//! [`write_set`] is the one function that touches the output directory (the lead may swap it
//! for a shared set writer in `src/outfile.rs`):
//! * only inside the directory named: every file name is a relative path of plain
//!   components, and the id in it was validated ([`super::LearnedId`]);
//! * an existing output file is refused unless `force`; a symlink, directory, FIFO or
//!   device where an output goes is refused always (a link is never followed out of DIR);
//! * as a set: every file is written and `fsync`ed in a temporary directory inside DIR (the
//!   same filesystem), then moved into place one rename each; a rename that fails undoes the
//!   ones before it (an existing file swapped with `RENAME_EXCHANGE` is swapped back), so DIR
//!   holds the old set or the new one, never a half-written mix;
//! * a new file gets 0666 less the umask (like `>`); a replaced file keeps its mode.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

/// Writes `files` (paths relative to `dir`, contents) into `dir` as one set (see the module
/// docs). `dir` is created when missing. Returns the paths written, in the order given.
pub fn write_set(dir: &Path, files: &[(PathBuf, &[u8])], force: bool) -> io::Result<Vec<PathBuf>> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    let refuse = |msg: String| io::Error::new(io::ErrorKind::InvalidInput, msg);
    std::fs::create_dir_all(dir)?;
    // What each target is now: None (absent) or Some(mode) (a regular file, replaced only
    // with `force`). Checked before anything is written.
    let mut keep: Vec<Option<u32>> = Vec::new();
    for (rel, _) in files {
        if rel.as_os_str().is_empty()
            || !rel.components().all(|c| matches!(c, Component::Normal(_)))
        {
            return Err(refuse(format!(
                "{}: not a plain relative file name",
                rel.display()
            )));
        }
        // Every directory on the way must be a real directory inside DIR (not a link).
        let mut at = dir.to_path_buf();
        let comps: Vec<_> = rel.components().collect();
        for c in &comps[..comps.len() - 1] {
            at.push(c);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    return Err(refuse(format!(
                        "{} is not a directory (a symlink or a file): refusing to write through it",
                        at.display()
                    )));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        let target = dir.join(rel);
        keep.push(match std::fs::symlink_metadata(&target) {
            Ok(m) if m.file_type().is_file() => {
                if !force {
                    return Err(io::Error::new(
                        io::ErrorKind::AlreadyExists,
                        format!(
                            "{} exists: refusing to replace it (give --force to replace the learned files)",
                            target.display()
                        ),
                    ));
                }
                Some(m.permissions().mode() & 0o7777)
            }
            Ok(m) => {
                let kind = if m.file_type().is_symlink() {
                    "a symlink"
                } else {
                    crate::bounded::odd_kind(&m.file_type()).unwrap_or("not a regular file")
                };
                return Err(refuse(format!(
                    "{} is {kind}: refusing to replace it (output goes to regular files only)",
                    target.display()
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        });
    }
    // Every file written and synced in a temp directory of DIR's own filesystem.
    let tmp = tempfile::Builder::new()
        .prefix(".laneplan-learn.")
        .tempdir_in(dir)?;
    let mut staged = Vec::new();
    for (i, ((_, data), mode)) in files.iter().zip(&keep).enumerate() {
        let p = tmp.path().join(format!("{i}"));
        let mut f = File::create(&p)?;
        f.write_all(data)?;
        if let Some(m) = mode {
            f.set_permissions(std::fs::Permissions::from_mode(*m))?;
        }
        f.sync_all()?;
        staged.push(p);
    }
    for (rel, _) in files {
        if let Some(parent) = dir.join(rel).parent() {
            std::fs::create_dir_all(parent)?;
        }
    }
    // Into place. An existing file is exchanged (the old one lands in the temp directory and
    // is removed with it), a new name is taken only if still free; on a failure the renames
    // done are undone in reverse.
    let mut done: Vec<(usize, bool)> = Vec::new();
    let mut failed = None;
    for (i, (rel, _)) in files.iter().enumerate() {
        let target = dir.join(rel);
        let r = if keep[i].is_some() {
            renameat_with(CWD, &staged[i], CWD, &target, RenameFlags::EXCHANGE)
                .map(|()| true)
                .or_else(|e| {
                    // A filesystem without RENAME_EXCHANGE: a plain rename (not undoable).
                    if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS {
                        std::fs::rename(&staged[i], &target).map(|()| false)
                    } else {
                        Err(e.into())
                    }
                })
        } else {
            renameat_with(CWD, &staged[i], CWD, &target, RenameFlags::NOREPLACE)
                .map(|()| false)
                .map_err(io::Error::from)
        };
        match r {
            Ok(exchanged) => done.push((i, exchanged)),
            Err(e) => {
                failed = Some(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot move {} into place: {e} (nothing of this set was kept)",
                        target.display()
                    ),
                ));
                break;
            }
        }
    }
    if let Some(e) = failed {
        for (i, exchanged) in done.into_iter().rev() {
            let target = dir.join(&files[i].0);
            let _ = if exchanged {
                renameat_with(CWD, &staged[i], CWD, &target, RenameFlags::EXCHANGE)
                    .map_err(io::Error::from)
            } else {
                std::fs::remove_file(&target)
            };
        }
        return Err(e);
    }
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .filter_map(|(rel, _)| dir.join(rel).parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        if let Ok(f) = File::open(&d) {
            let _ = f.sync_all();
        }
    }
    Ok(files.iter().map(|(rel, _)| dir.join(rel)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> Vec<(PathBuf, &'static [u8])> {
        vec![
            (PathBuf::from("platform/a.toml"), b"a".as_slice()),
            (PathBuf::from("build.toml"), b"b".as_slice()),
        ]
    }

    #[test]
    fn writes_a_new_set_and_refuses_to_replace_it_without_force() {
        let t = tempfile::tempdir().unwrap();
        let out = write_set(t.path(), &set(), false).unwrap();
        assert_eq!(
            out,
            [
                t.path().join("platform/a.toml"),
                t.path().join("build.toml")
            ]
        );
        let e = write_set(t.path(), &set(), false).unwrap_err();
        assert!(
            e.to_string().contains("build.toml exists") || e.to_string().contains("a.toml exists"),
            "{e}"
        );
        std::fs::set_permissions(
            t.path().join("build.toml"),
            std::fs::Permissions::from_mode(0o640),
        )
        .unwrap();
        let new = vec![
            (PathBuf::from("platform/a.toml"), b"A".as_slice()),
            (PathBuf::from("build.toml"), b"B".as_slice()),
        ];
        write_set(t.path(), &new, true).unwrap();
        assert_eq!(std::fs::read(t.path().join("build.toml")).unwrap(), b"B");
        assert_eq!(
            std::fs::read(t.path().join("platform/a.toml")).unwrap(),
            b"A"
        );
        let mode = std::fs::metadata(t.path().join("build.toml"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
        // Nothing left behind but the set.
        let names: Vec<String> = std::fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_symlink_is_never_followed_or_replaced() {
        let t = tempfile::tempdir().unwrap();
        let victim = t.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = t.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&victim, out.join("build.toml")).unwrap();
        for force in [false, true] {
            let e = write_set(&out, &set(), force).unwrap_err();
            assert!(e.to_string().contains("is a symlink"), "{e}");
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        // Nothing of the set was written.
        assert!(!out.join("platform").exists());
        // A `platform` directory that is a link out of DIR is refused too.
        std::fs::remove_file(out.join("build.toml")).unwrap();
        std::os::unix::fs::symlink(t.path(), out.join("platform")).unwrap();
        let e = write_set(&out, &set(), true).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
        assert!(!t.path().join("a.toml").exists());
    }

    #[test]
    fn a_failed_rename_keeps_the_old_set() {
        let t = tempfile::tempdir().unwrap();
        write_set(t.path(), &set(), false).unwrap();
        // The second file cannot be placed: its name is taken by a directory after the checks
        // would have passed, simulated by a path whose parent is a file.
        let bad = vec![
            (PathBuf::from("platform/a.toml"), b"NEW".as_slice()),
            (PathBuf::from("build.toml/x"), b"NEW".as_slice()),
        ];
        assert!(write_set(t.path(), &bad, true).is_err());
        assert_eq!(
            std::fs::read(t.path().join("platform/a.toml")).unwrap(),
            b"a"
        );
    }

    #[test]
    fn names_must_stay_inside() {
        let t = tempfile::tempdir().unwrap();
        for rel in ["../x.toml", "/tmp/x.toml", "", "a/../../x"] {
            let f = vec![(PathBuf::from(rel), b"x".as_slice())];
            assert!(write_set(t.path(), &f, true).is_err(), "{rel}");
        }
    }
}
