//! Bad input is reported per item and the audit goes on; gather replays exactly.

mod common;

use common::*;
use laneplan::host::audit::{Audit, AuditOptions};
use laneplan::host::{self, codes};
use std::path::Path;

const DEVS: &str = "sys/devices/pci0000:5d";

fn audit(root: &Path) -> Audit {
    host::audit_sysfs(
        root,
        Some(&fixtures().join("pci.ids")),
        AuditOptions::default(),
    )
}

fn unreadable(a: &Audit) -> Vec<String> {
    a.findings
        .iter()
        .filter(|f| f.code == codes::UNREADABLE)
        .map(|f| f.message.clone())
        .collect()
}

#[test]
fn missing_files() {
    let (_t, root) = own_copy("r740xd-12nvme");
    let d = root.join(DEVS).join("0000:5d:00.0/0000:5e:00.0");
    std::fs::remove_file(d.join("vendor")).unwrap();
    std::fs::remove_file(d.join("class")).unwrap();
    std::fs::remove_file(d.join("config")).unwrap();
    std::fs::remove_file(root.join("proc/mounts")).unwrap();
    let a = audit(&root);
    assert_eq!(
        unreadable(&a),
        ["0000:5e:00.0: no vendor, class in its sysfs directory"]
    );
    assert_eq!(a.functions.len(), 32);
    assert_eq!(a.function("0000:5e:00.0").unwrap().ids, "????:????");
    // The rest of the audit is untouched.
    assert_eq!(
        a.findings
            .iter()
            .filter(|f| f.code == codes::DOWNTRAINED)
            .count(),
        2
    );
}

#[test]
fn garbage_values() {
    let (_t, root) = own_copy("r740xd-12nvme");
    let d = root.join(DEVS).join("0000:5d:01.0/0000:5f:00.0");
    std::fs::write(d.join("current_link_speed"), "fast\n").unwrap();
    std::fs::write(d.join("numa_node"), "zero\n").unwrap();
    std::fs::write(d.join("max_link_width"), "3\n").unwrap();
    std::fs::write(d.join("aer_dev_correctable"), "RxErr lots\n").unwrap();
    std::fs::write(
        root.join("sys/bus/pci/slots/1-2/address"),
        "not-an-address\n",
    )
    .unwrap();
    let a = audit(&root);
    let mut got = unreadable(&a);
    got.sort();
    assert_eq!(
        got,
        [
            "0000:5f:00.0: aer_dev_correctable: count \"lots\" of RxErr is not a number",
            "0000:5f:00.0: current_link_speed: not a link speed: \"fast\"",
            "0000:5f:00.0: max_link_width: x3 is not a PCIe link width",
            "0000:5f:00.0: numa_node is \"zero\"",
            "slot 1-2: address \"not-an-address\" is not dddd:bb:dd",
        ]
    );
    // The config space still gives the link (the attributes were garbage).
    let f = a.function("0000:5f:00.0").unwrap();
    assert_eq!(f.link.map(|l| l.label()).as_deref(), Some("8.0 GT/s x4"));
    assert_eq!(f.slot, None);
}

#[test]
fn unreadable_files() {
    let (_t, root) = own_copy("r740xd-12nvme");
    let d = root.join(DEVS).join("0000:5d:02.0/0000:60:00.0");
    // A directory where a file should be cannot be read, even by root. (The ids come from
    // config space, so an attribute the audit always reads is broken here.)
    std::fs::remove_file(d.join("numa_node")).unwrap();
    std::fs::create_dir(d.join("numa_node")).unwrap();
    let n = d.join("nvme/nvme2/model");
    std::fs::remove_file(&n).unwrap();
    std::fs::create_dir(&n).unwrap();
    let a = audit(&root);
    let mut got = unreadable(&a);
    got.sort();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].starts_with("cannot read model: "), "{got:?}");
    assert!(got[1].starts_with("cannot read numa_node: "), "{got:?}");
    let drive = a
        .drives
        .iter()
        .find(|d| d.controller.as_deref() == Some("nvme2"))
        .unwrap();
    assert_eq!(drive.model, None);
    assert_eq!(drive.serial.as_deref(), Some("1941002A5F03"));
}

#[test]
fn symlink_loops() {
    let (_t, root) = own_copy("r740xd-12nvme");
    let link = root.join("sys/bus/pci/devices/0000:61:00.0");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("0000:61:00.0", &link).unwrap();
    let cls = root.join("sys/class/nvme/nvme0");
    std::fs::remove_file(&cls).unwrap();
    std::os::unix::fs::symlink("../nvme/nvme0", &cls).unwrap();
    let a = audit(&root);
    let mut got = unreadable(&a);
    got.sort();
    assert_eq!(
        got,
        [
            "cannot resolve nvme0: symlink loop",
            "cannot resolve the function's directory: symlink loop",
        ]
    );
    assert!(a.function("0000:61:00.0").is_none());
    assert_eq!(a.functions.len(), 31);
}

#[test]
fn truncated_lspci_dump() {
    let dir = fixtures().join("shared/lspci-r740xd");
    let text =
        std::fs::read_to_string(dir.join("dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt"))
            .unwrap();
    // Cut in the middle of a device line (an incomplete header).
    let at = text.find("\n5d:05.0").unwrap() + 6;
    let (scan, findings) = host::lspci::parse(&text[..at], "cut.txt");
    let n = scan.functions.len();
    assert_eq!(n, text[..at].matches("\n\n").count());
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].code, codes::LSPCI_PARSE);
    assert_eq!(findings[0].message, "not an lspci device line: \"5d:05\"");
    assert_eq!(findings[0].location.line, Some(text[..at].lines().count()));
    // Cut inside a LnkSta line.
    let at = text.find("LnkSta:\tSpeed 8GT/s (ok), Width").unwrap() + 14;
    let (_, findings) = host::lspci::parse(&text[..at], "cut.txt");
    assert_eq!(findings.len(), 1);
    assert!(
        findings[0]
            .message
            .starts_with("LnkSta: no speed and width"),
        "{}",
        findings[0].message
    );
}

#[test]
fn gather_replays_exactly() {
    for name in ["r740xd-12nvme", "r6525-gen3"] {
        let root = fixtures().join("sysfs").join(name);
        let t = tempfile::tempdir().unwrap();
        let out = t.path().join("capture.tar.gz");
        let g = host::gather::gather(&root, &out, AuditOptions::default()).unwrap();
        assert!(g.files > 100 && g.links > 20, "{g:?}");
        let un = t.path().join("unpacked");
        let f = std::fs::File::open(&out).unwrap();
        tar::Archive::new(flate2::read::GzDecoder::new(f))
            .unpack(&un)
            .unwrap();
        // Links stay links.
        let l = un.join("sys/bus/pci/devices/0000:01:00.0");
        if name == "r6525-gen3" {
            assert!(
                std::fs::symlink_metadata(&l)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
        }
        let a = serde_json::to_value(audit(&root)).unwrap();
        let b = serde_json::to_value(audit(&un)).unwrap();
        let strip = |mut v: serde_json::Value| {
            v.as_object_mut().unwrap().remove("source");
            v
        };
        assert_eq!(strip(a), strip(b), "{name}");
        // Nothing else was read: the capture holds no config of a function never read.
        assert!(!un.join("sys/bus/pci/drivers").exists());
    }
}

#[test]
fn gather_of_a_real_capture_replays_and_is_small() {
    let (_t, root) = unpack("hwloc-skx-2plx-ve/32intel64-2p8co2t+8ve.tar.bz2");
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("c.tar.gz");
    host::gather::gather(&root, &out, AuditOptions::default()).unwrap();
    let un = t.path().join("u");
    let f = std::fs::File::open(&out).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(f))
        .unpack(&un)
        .unwrap();
    let text = |r: &Path| laneplan::host::render::text(&audit(r));
    assert_eq!(text(&root), text(&un));
    // lspci agrees with the replay too.
    assert_eq!(
        parse_tree(&lspci(&un, &["-t"])),
        parse_tree(&lspci(&root, &["-t"]))
    );
}

#[test]
fn nvme_controller_without_namespace_and_conflicting_buses() {
    let (_t, root) = own_copy("r6525-gen3");
    let ctrl = root.join("sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0");
    std::fs::remove_dir_all(ctrl.join("nvme0n1")).unwrap();
    std::fs::remove_file(root.join("sys/class/block/nvme0n1")).unwrap();
    // 00:01.2 claims bus 01 too.
    let p = root.join("sys/devices/pci0000:00/0000:00:01.2");
    std::fs::write(p.join("secondary_bus_number"), "1\n").unwrap();
    std::fs::write(p.join("subordinate_bus_number"), "2\n").unwrap();
    let a = audit(&root);
    let got: Vec<(&str, &str)> = a
        .findings
        .iter()
        .filter(|f| f.code != codes::DOWNTRAINED)
        .map(|f| (f.code, f.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "LP0310",
                "0000:00:01.1 [01-01] and 0000:00:01.2 [01-02] claim the same buses"
            ),
            ("LP0309", "nvme0: NVMe controller without a namespace"),
            (
                "LP0305",
                "0000:00:05.1 runs at 8.0 GT/s x8 of 16.0 GT/s x16: its device 0000:05:00.0 tops out at 8.0 GT/s x8"
            ),
        ]
    );
    assert!(a.has_errors());
}
