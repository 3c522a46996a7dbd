//! A sysfs tree as text, one entry a line, for the `sysfs_tree` fuzz target and its seeds
//! (real captures converted with `fuzz/seeds/sysfs_seed.py`):
//!
//! ```text
//! d sys/bus/pci/devices
//! l sys/bus/pci/devices/0000:00:00.0 ../../../devices/pci0000:00/0000:00:00.0
//! f sys/devices/pci0000:00/0000:00:00.0/vendor 0x8086\n
//! ```
//!
//! `d PATH` a directory, `l PATH TARGET` a symlink (any target: absolute, `..`, loops; the
//! reader must stay inside the root), `f PATH CONTENT` a file whose content has `\n`, `\\`
//! and `\xNN` escapes. A path is relative, its components plain (no `.`, `..` or empty
//! component); a line that is no entry is skipped. [`build`] makes the tree below a root,
//! bounded: at most [`MAX_ENTRIES`] entries, [`MAX_FILE`] bytes a file.

use std::path::Path;

/// Entries [`build`] makes at most.
pub const MAX_ENTRIES: usize = 4096;
/// Bytes of one file at most.
pub const MAX_FILE: usize = 1 << 16;

/// A path of plain components, or `None`.
fn plain(p: &str) -> Option<&str> {
    let p = p.trim_start_matches('/');
    (!p.is_empty()
        && p.len() < 1024
        && p.split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && c.len() < 256))
    .then_some(p)
}

/// `\n`, `\\` and `\xNN` unescaped.
pub fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => {
                    out.push(b'\n');
                    i += 2;
                    continue;
                }
                b'\\' => {
                    out.push(b'\\');
                    i += 2;
                    continue;
                }
                b'x' if i + 3 < b.len() => {
                    if let Ok(v) = u8::from_str_radix(&s[i + 2..i + 4], 16) {
                        out.push(v);
                        i += 4;
                        continue;
                    }
                }
                _ => {}
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// Makes the tree `data` describes below `root` (an empty directory); errors of single
/// entries (a file where a directory is wanted, a name clash) skip the entry. Returns how
/// many entries were made.
pub fn build(root: &Path, data: &[u8]) -> usize {
    let text = String::from_utf8_lossy(data);
    let mut made = 0;
    for line in text.split('\n').take(MAX_ENTRIES) {
        let Some((kind, rest)) = line.split_once(' ') else {
            continue;
        };
        let (path, arg) = rest.split_once(' ').unwrap_or((rest, ""));
        let Some(path) = plain(path) else {
            continue;
        };
        let p = root.join(path);
        // Never below a symlink made earlier: it could lead out of the root.
        let mut prefix = root.to_path_buf();
        let through_link = path.split('/').any(|c| {
            let linked =
                std::fs::symlink_metadata(&prefix).is_ok_and(|m| m.file_type().is_symlink());
            prefix.push(c);
            linked
        });
        if through_link {
            continue;
        }
        if let Some(parent) = p.parent()
            && !parent.is_dir()
            && std::fs::create_dir_all(parent).is_err()
        {
            continue;
        }
        let ok = match kind {
            "d" => std::fs::create_dir_all(&p).is_ok(),
            "l" if !arg.is_empty() => std::os::unix::fs::symlink(arg, &p).is_ok(),
            "f" => {
                let mut bytes = unescape(arg);
                bytes.truncate(MAX_FILE);
                // Never through a symlink made earlier: a plain new file only.
                use std::io::Write;
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&p)
                    .and_then(|mut f| f.write_all(&bytes))
                    .is_ok()
            }
            _ => false,
        };
        made += usize::from(ok);
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_dirs_links_and_escaped_files_inside_the_root_only() {
        let t = tempfile::tempdir().unwrap();
        let data = b"d sys/bus\nf sys/a 0x8086\\n\\x00\\\\\nl sys/bus/x ../../../../etc\nf ../escape x\nf /abs/ok y\nf sys/a again\nbogus\n";
        assert_eq!(build(t.path(), data), 4);
        assert_eq!(
            std::fs::read(t.path().join("sys/a")).unwrap(),
            b"0x8086\n\0\\"
        );
        assert_eq!(
            std::fs::read_link(t.path().join("sys/bus/x")).unwrap(),
            Path::new("../../../../etc")
        );
        assert_eq!(std::fs::read(t.path().join("abs/ok")).unwrap(), b"y");
        assert!(!t.path().parent().unwrap().join("escape").exists());
        // Nothing is made through a link, even one that leads back inside.
        let data = b"d out\nl sys/out ../out\nf sys/out/evil y\nd sys/out/sub\n";
        assert_eq!(build(t.path(), data), 2);
        assert!(!t.path().join("out/evil").exists());
        assert!(!t.path().join("out/sub").exists());
    }
}
