//! Shared helpers: fixture roots (unpacked at test time), running the real lspci, and a
//! parser for `lspci -t` trees that reduces them to structure (function -> parent, ranges).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The `lspci -vvnn` dump of a real host in `tests/fixtures/shared/lspci-<host>/` (r740xd,
/// r7525, r7515, r7425).
pub fn lspci_dump(host: &str) -> PathBuf {
    let dir = fixtures().join("shared").join(format!("lspci-{host}"));
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".lspci-vvnn.txt"))
        .unwrap_or_else(|| panic!("no dump in {}", dir.display()))
}

/// Unpacks a shared capture with the system tar (bzip2/xz) into a fresh tempdir; returns
/// the tempdir and the capture's root (the directory that holds `sys/`).
pub fn unpack(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = fixtures().join("shared").join(rel);
    let out = Command::new("tar")
        .arg("xf")
        .arg(&src)
        .arg("-C")
        .arg(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `tar` to unpack {}: {e}", src.display()));
    assert!(
        out.status.success(),
        "tar failed on {} (needs bzip2/xz): {}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let root = find_root(dir.path()).unwrap_or_else(|| panic!("no sys/ in {}", src.display()));
    (dir, root)
}

fn find_root(p: &Path) -> Option<PathBuf> {
    if p.join("sys").is_dir() {
        return Some(p.to_path_buf());
    }
    for e in std::fs::read_dir(p).ok()?.flatten() {
        if e.path().is_dir()
            && let Some(r) = find_root(&e.path())
        {
            return Some(r);
        }
    }
    None
}

/// A copy of one of our own sysfs trees in a tempdir (tests may mutate it).
pub fn own_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let dst = dir.path().join(name);
    copy_tree(&fixtures().join("sysfs").join(name), &dst);
    (dir, dst)
}

pub fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let ft = e.file_type().unwrap();
        let to = dst.join(e.file_name());
        if ft.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &to).unwrap();
        } else if ft.is_dir() {
            copy_tree(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// Runs the real lspci over a sysfs root. Fails the test loudly when lspci is missing.
pub fn lspci(root: &Path, args: &[&str]) -> String {
    let out = Command::new("lspci")
        .arg("-A")
        .arg("linux-sysfs")
        .arg("-O")
        .arg(format!("sysfs.path={}", root.join("sys/bus/pci").display()))
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "this test needs `lspci` (apt-get install -y pciutils) and could not run it: {e}"
            )
        });
    assert!(
        out.status.success(),
        "lspci failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("lspci output is UTF-8")
}

/// The structure of an `lspci -t` tree: each function's full address -> (parent function
/// or `root`, bus range `[ss-uu]` when it is a bridge).
pub type Structure = BTreeMap<String, (String, Option<String>)>;

#[derive(Clone)]
enum Ctx {
    Bus {
        domain: String,
        bus: String,
        parent: String,
    },
    Dev {
        bdf: String,
        domain: String,
        secondary: Option<String>,
    },
}

/// Parses `lspci -t` (or our bare tree): tokens are `[dddd:bb]` bus headers and `dd.f`
/// functions with an optional `-[ss-uu]`; a token's parent is the token whose children's
/// branch column is this token's (start - 2).
pub fn parse_tree(text: &str) -> Structure {
    let mut out = Structure::new();
    let mut by_col: BTreeMap<usize, Ctx> = BTreeMap::new();
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        let mut prev: Option<Ctx> = None;
        while i < chars.len() {
            let c = chars[i];
            if c == '['
                && i + 9 < chars.len() + 1
                && chars.get(i + 5) == Some(&':')
                && chars.get(i + 8) == Some(&']')
            {
                let domain: String = chars[i + 1..i + 5].iter().collect();
                let bus: String = chars[i + 6..i + 8].iter().collect();
                let parent = parent_of(&prev, &by_col, i);
                let parent_bdf = match &parent {
                    Some(Ctx::Dev { bdf, .. }) => bdf.clone(),
                    Some(Ctx::Bus { parent, .. }) => parent.clone(),
                    None => "root".to_string(),
                };
                let ctx = Ctx::Bus {
                    domain,
                    bus,
                    parent: parent_bdf,
                };
                i += 9;
                register(&chars, i, &ctx, &mut by_col);
                prev = Some(ctx);
                continue;
            }
            if c.is_ascii_hexdigit()
                && i + 4 <= chars.len()
                && chars[i + 2] == '.'
                && (i == 0 || chars[i - 1] == '-')
            {
                let devfn: String = chars[i..i + 4].iter().collect();
                let parent = parent_of(&prev, &by_col, i);
                let (domain, bus, parent_bdf) = match &parent {
                    Some(Ctx::Bus {
                        domain,
                        bus,
                        parent,
                    }) => (domain.clone(), bus.clone(), parent.clone()),
                    Some(Ctx::Dev {
                        bdf,
                        domain,
                        secondary,
                    }) => (
                        domain.clone(),
                        secondary.clone().unwrap_or_default(),
                        bdf.clone(),
                    ),
                    None => panic!("token {devfn} without a parent in {line:?}"),
                };
                let bdf = format!("{domain}:{bus}:{devfn}");
                let mut j = i + 4;
                let mut range = None;
                if chars.get(j) == Some(&'-') && chars.get(j + 1) == Some(&'[') {
                    let end = chars[j..]
                        .iter()
                        .position(|&c| c == ']')
                        .map(|p| p + j)
                        .unwrap();
                    let r: String = chars[j + 2..end].iter().collect();
                    range = Some(r);
                    j = end + 1;
                }
                let secondary = range.as_ref().map(|r| r[..2].to_string());
                out.insert(bdf.clone(), (parent_bdf, range));
                let ctx = Ctx::Dev {
                    bdf,
                    domain,
                    secondary,
                };
                register(&chars, j, &ctx, &mut by_col);
                prev = Some(ctx);
                i = j;
                // Names follow two spaces: stop at them.
                if chars.get(i) == Some(&' ') {
                    break;
                }
                continue;
            }
            if c == ' ' && chars.get(i + 1) == Some(&' ') && prev.is_some() {
                break;
            }
            i += 1;
        }
    }
    out
}

/// After a token ending at `end`, its children start where the dashes stop: the branch
/// column is the first non-dash (a `+` or `\`), or, for an only child, two before the child.
fn register(chars: &[char], end: usize, ctx: &Ctx, by_col: &mut BTreeMap<usize, Ctx>) {
    let mut k = end;
    while k < chars.len() && chars[k] == '-' {
        k += 1;
    }
    if k >= chars.len() {
        return;
    }
    let col = if chars[k] == '+' || chars[k] == '\\' {
        k
    } else {
        k - 2
    };
    by_col.insert(col, ctx.clone());
}

fn parent_of(prev: &Option<Ctx>, by_col: &BTreeMap<usize, Ctx>, start: usize) -> Option<Ctx> {
    if start < 2 {
        return None;
    }
    by_col.get(&(start - 2)).cloned().or_else(|| prev.clone())
}

/// The same structure from an audit (functions' parents and ranges).
pub fn structure_of(audit: &laneplan::host::audit::Audit) -> Structure {
    audit
        .functions
        .iter()
        .map(|f| {
            (
                f.bdf.to_string(),
                (
                    f.parent.map_or_else(|| "root".into(), |p| p.to_string()),
                    f.buses.map(|[s, u]| {
                        if s == u {
                            format!("{s:02x}")
                        } else {
                            format!("{s:02x}-{u:02x}")
                        }
                    }),
                ),
            )
        })
        .collect()
}

/// A PCI address written in a test (`0000:3b:00.0`); a typo fails the test.
pub fn pci_addr(s: &str) -> laneplan::pci::Bdf {
    laneplan::pci::Bdf::parse(s).unwrap_or_else(|| panic!("{s} is not a PCI address"))
}

/// A typed fact as the text the JSON and lspci show (`0000:3b:00.0`, `8086:2030`,
/// `0x010802`), to compare with a literal.
pub fn as_text<T: std::fmt::Display>(v: &Option<T>) -> Option<String> {
    v.as_ref().map(|x| x.to_string())
}

/// A typed fact's text as a `&str` for tuples compared with literals (tests only: the few
/// bytes are never freed).
pub fn text_of(v: impl std::fmt::Display) -> &'static str {
    Box::leak(v.to_string().into_boxed_str())
}

/// The binary, run from the crate root, with a time limit so that a hang fails the test.
pub fn laneplan() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("laneplan").expect("the binary builds");
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .timeout(std::time::Duration::from_secs(120));
    c
}

/// [`laneplan`] with the layout before terminal fitting (`--wide --utf8`);
/// `term_width` covers the fitted one.
pub fn laneplan_wide() -> assert_cmd::Command {
    let mut c = laneplan();
    c.args(["--wide", "--utf8"]);
    c
}

/// Runs a command: exit code (-1 when killed), stdout and stderr as text.
pub fn run(cmd: &mut assert_cmd::Command) -> (i32, String, String) {
    let out = cmd.output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
