//! Issue 18 (hardening) regressions outside `learn`: the bounded text reader, the output-file
//! rule, control characters in names, renders of rejected builds, interrupted curves and the
//! small ones. Each test names the issue item it holds.

use crate::common::{laneplan, lspci_dump};
use std::path::Path;

/// The R740xd capture with NUL bytes INSERTED (the capture itself has none): after each of
/// its four Broadcom BCM5720 VPD blocks' `[RV] Reserved` line, 150 lines
/// `\t\t\t[x\0] Unknown: \0\0\0\0`, the shape of the public R740 dump in issue 18 item 11
/// (lspci prints the raw VPD key bytes of the LOM), 3,000 NULs in all. Returns the dump and
/// the 1-based line numbers of the inserted lines.
fn r740xd_with_vpd_nuls() -> (Vec<u8>, Vec<usize>) {
    let text = std::fs::read_to_string(lspci_dump("r740xd")).unwrap();
    let mut out = Vec::new();
    let mut inserted = Vec::new();
    let mut line_no = 0;
    for line in text.split_inclusive('\n') {
        out.extend_from_slice(line.as_bytes());
        line_no += 1;
        if line.contains("[RV] Reserved:") {
            for _ in 0..150 {
                out.extend_from_slice(b"\t\t\t[x\0] Unknown: \0\0\0\0\n");
                line_no += 1;
                inserted.push(line_no);
            }
        }
    }
    assert_eq!(inserted.len(), 600, "four VPD blocks in the capture");
    (out, inserted)
}

fn audit_json(dump: &Path) -> (Option<i32>, serde_json::Value) {
    let out = laneplan()
        .args(["audit", "--json", "--lspci"])
        .arg(dump)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), v)
}

/// Item 11: a dump with stray NULs in VPD lines is read (the same functions and verdicts as
/// the clean capture), the bytes are replaced and reported (LP0330, with every line), and a
/// binary file is still refused.
#[test]
fn item11_a_dump_with_nul_bytes_in_vpd_lines_is_read_and_the_bytes_reported() {
    let (bytes, inserted) = r740xd_with_vpd_nuls();
    assert_eq!(bytes.iter().filter(|&&b| b == 0).count(), 3000);
    let t = tempfile::tempdir().unwrap();
    let dump = t.path().join("r740-vpd-nul.txt");
    std::fs::write(&dump, &bytes).unwrap();
    let (clean_code, clean) = audit_json(&lspci_dump("r740xd"));
    let (code, v) = audit_json(&dump);
    assert_eq!(code, clean_code);
    assert_eq!(v["functions"], clean["functions"]);
    assert_eq!(v["functions"].as_array().unwrap().len(), 194);
    let findings = v["findings"].as_array().unwrap();
    let stray: Vec<_> = findings.iter().filter(|f| f["code"] == "LP0330").collect();
    assert_eq!(stray.len(), 1, "{findings:?}");
    let f = stray[0];
    assert_eq!(f["severity"], "warning");
    let lines: Vec<usize> = f["subject"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(lines, inserted);
    assert_eq!(f["location"]["line"], inserted[0]);
    assert_eq!(f["location"]["column"], 6);
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!(
            "3000 stray bytes (control characters or invalid UTF-8; 3000 NUL) replaced by U+FFFD on 600 lines: {}, ",
            inserted[0]
        )),
        "{msg}"
    );
    assert!(msg.ends_with(" and 590 more"), "{msg}");
    // No other finding is new: the replaced lines are read as VPD detail lines.
    let others: Vec<_> = findings.iter().filter(|f| f["code"] != "LP0330").collect();
    assert_eq!(others.len(), clean["findings"].as_array().unwrap().len());
    // A binary file is still refused (exit 2), at its first stray byte.
    let bin = t.path().join("a.out");
    let mut elf = b"\x7fELF\x02\x01\x01\0".to_vec();
    elf.extend(bytes.iter().take(4000));
    std::fs::write(&bin, &elf).unwrap();
    let out = laneplan()
        .args(["audit", "--lspci"])
        .arg(&bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a.out:1:1: binary data (a NUL byte): not an lspci dump"),
        "{err}"
    );
}
