//! The one host-source seam (`host::source`): every command reads a host through it, with the
//! same flags and the same bounded readers.

use crate::common::{laneplan, lspci_dump};
use laneplan::host::audit::AuditOptions;
use laneplan::host::source::{self, HostSource};

/// `learn --lspci` reads through the bounded dump reader `audit` uses: an empty, binary or
/// UTF-16 dump is an input error (exit 2), as it is for `audit`.
#[test]
fn learn_lspci_refuses_what_audit_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 3] = [
        ("empty.txt", b"", "empty: no lspci output in it"),
        (
            "binary.txt",
            b"00:00.0 Host\0bridge\n",
            "binary data (a NUL byte)",
        ),
        ("utf16.txt", b"\xff\xfe0\x000\x00", "UTF-16 text"),
    ];
    for (name, bytes, msg) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        for cmd in ["learn", "audit"] {
            let mut c = laneplan();
            c.arg(cmd).arg("--lspci").arg(&p);
            if cmd == "learn" {
                c.arg("-o").arg(dir.path().join("out"));
            }
            let o = c.output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{cmd} {name}: {err}");
            assert!(err.contains(msg), "{cmd} {name}: {err}");
        }
    }
    assert!(!dir.path().join("out").exists());
}

/// The seam gives the same audit as the lspci entry point it replaced.
#[test]
fn seam_matches_the_lspci_reader() {
    let p = lspci_dump("r740xd");
    let a = source::audit(&HostSource::Lspci(p.clone()), None, AuditOptions::default()).unwrap();
    let b = laneplan::host::audit_lspci_file(&p, AuditOptions::default()).unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    assert_eq!(a.functions.len(), b.functions.len());
    assert!(a.functions.len() > 100, "{}", a.functions.len());
}

/// One source at a time, for every command that reads a host.
#[test]
fn one_source_at_a_time() {
    for cmd in [
        &["audit"][..],
        &["bays", "r740xd"],
        &["learn", "-o", "/nonexistent-out"],
        &["probe", "--mapped", "--dry-run"],
    ] {
        let o = laneplan()
            .args(cmd)
            .args(["--sysfs-root", "/", "--lspci", "x.txt"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("cannot be used with"),
            "{cmd:?}"
        );
    }
}

/// `probe --mapped --dry-run` lists the NVMe drives of an lspci dump; without `--dry-run` a
/// dump is refused (nothing to do I/O on).
#[test]
fn probe_mapped_lists_a_dump() {
    let p = lspci_dump("r7525");
    let o = laneplan()
        .args(["probe", "--mapped", "--dry-run", "--json", "--lspci"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    let o = laneplan()
        .args(["probe", "--mapped", "--lspci"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("only lists its drives (--dry-run)"));
}
