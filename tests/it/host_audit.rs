//! Acceptance tests of the live-host audit against real captures and our own trees.

use crate::common;
use laneplan::finding::Code;

use common::*;
use laneplan::host::audit::{Audit, AuditOptions, LinkStatus};
use laneplan::host::model::LinkState;
use laneplan::host::tree::FnKind;
use laneplan::host::{self};
use laneplan::pcie::Gen;
use laneplan::render::host::{self as render, TreeStyle};
use std::path::Path;

fn audit(root: &Path) -> Audit {
    host::audit_sysfs(
        root,
        Some(&fixtures().join("pci.ids")),
        AuditOptions::default(),
    )
}

fn link(g: Gen, w: u8) -> Option<LinkState> {
    Some(LinkState {
        speed: Some(g),
        width: w,
    })
}

fn f<'a>(a: &'a Audit, bdf: &str) -> &'a laneplan::host::audit::FunctionReport {
    a.function(pci_addr(bdf))
        .unwrap_or_else(|| panic!("{bdf} missing"))
}

/// (code, node) of every finding, sorted.
fn codes_at(a: &Audit) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = a
        .findings
        .iter()
        .map(|f| {
            let node = f.location.node.clone().unwrap_or_default();
            let last = node.rsplit(" > ").next().unwrap_or_default().to_string();
            (f.code.to_string(), last)
        })
        .collect();
    v.sort();
    v
}

/// The audit's tree has the same bridges, bus ranges and parents as `lspci -t`.
fn assert_same_tree_as_lspci(root: &Path) {
    let a = audit(root);
    let theirs = parse_tree(&lspci(root, &["-t"]));
    let ours_rendered = parse_tree(&render::tree(&a, TreeStyle::Bare));
    let ours = structure_of(&a);
    assert!(
        !theirs.is_empty(),
        "lspci showed nothing for {}",
        root.display()
    );
    assert_eq!(ours, theirs, "audit vs lspci -t on {}", root.display());
    assert_eq!(
        ours_rendered,
        theirs,
        "rendered tree vs lspci -t on {}",
        root.display()
    );
    // The full tree (names and links) has the same structure too.
    assert_eq!(parse_tree(&render::tree(&a, TreeStyle::Full)), theirs);
}

#[test]
fn tree_equals_lspci_on_the_plx_capture() {
    let (_t, root) = unpack("hwloc-skx-2plx-ve/32intel64-2p8co2t+8ve.tar.bz2");
    assert_same_tree_as_lspci(&root);
}

#[test]
fn tree_equals_lspci_on_the_slots_capture() {
    let (_t, root) = unpack("hwloc-2n-nvme-slots/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2");
    assert_same_tree_as_lspci(&root);
}

#[test]
fn tree_equals_lspci_on_our_own_trees() {
    for name in ["r740xd-12nvme", "r6525-gen3"] {
        assert_same_tree_as_lspci(&fixtures().join("sysfs").join(name));
    }
}

#[test]
fn plx_capture_two_switches_and_the_x722_note() {
    let (_t, root) = unpack("hwloc-skx-2plx-ve/32intel64-2p8co2t+8ve.tar.bz2");
    let a = audit(&root);
    let switches: Vec<String> = a
        .functions
        .iter()
        .filter(|f| f.kind == FnKind::Switch)
        .map(|f| f.bdf.to_string())
        .collect();
    assert_eq!(switches, ["0000:18:00.0", "0000:3b:00.0"]);
    // The report names the part (PEX device ids are part numbers).
    let text = laneplan::render::host::text(&a);
    for sw in &switches {
        assert!(
            text.contains(&format!(
                "switch {sw} PEX 9797 (10b5:9797): up 8.0 GT/s x16; 5 downstream ports at 8.0 GT/s x16"
            )),
            "{text}"
        );
    }
    for sw in switches.iter().map(String::as_str) {
        assert_eq!(
            f(&a, sw)
                .ids
                .map_or_else(|| "????:????".to_string(), |i| i.to_string()),
            "10b5:9797"
        );
        // PEX 9797: this pci.ids has no name for it, so the vendor and the id it is.
        assert_eq!(f(&a, sw).name, "PLX Technology, Inc. Device 9797");
        let ports: Vec<_> = a
            .functions
            .iter()
            .filter(|p| as_text(&p.parent).as_deref() == Some(sw))
            .collect();
        assert_eq!(ports.len(), 5);
        for p in ports {
            assert_eq!(p.kind, FnKind::SwitchPort);
            assert_eq!(p.link, link(Gen::G3, 16));
            assert_eq!(p.link_max, link(Gen::G3, 16));
        }
    }
    for x in ["0000:60:00.0", "0000:60:00.1"] {
        let x722 = f(&a, x);
        assert_eq!(
            x722.ids
                .map_or_else(|| "????:????".into(), |i| i.to_string()),
            "8086:37d2"
        );
        assert_eq!(x722.link, link(Gen::G1, 1));
        assert_eq!(x722.link_max, link(Gen::G3, 1));
    }
    // One link, judged at function 0; function 1 shares it.
    assert_eq!(
        f(&a, "0000:60:00.0").link_status,
        LinkStatus::ChipsetReduced
    );
    assert_eq!(f(&a, "0000:60:00.1").link_status, LinkStatus::NotApplicable);
    let notes: Vec<_> = a
        .findings
        .iter()
        .filter(|f| f.code == Code::ChipsetLink)
        .collect();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0]
            .message
            .contains("runs at 2.5 GT/s x1, expected 8.0 GT/s x1")
    );
    assert_eq!(
        notes[0].help.as_deref(),
        Some("chipset-integrated devices often report this way; not a fault")
    );
    // 0000:5f:03.0 is in /sys/devices but not in /sys/bus/pci/devices: said so, not hidden.
    assert_eq!(
        codes_at(&a),
        vec![
            ("LP0306".into(), "0000:60:00.0".into()),
            ("LP0311".into(), "0000:60:00.0".into()),
            ("LP0311".into(), "0000:60:00.1".into()),
        ]
    );
    assert!(!a.has_errors());
}

#[test]
fn slots_capture_maps_slots_and_the_namespace() {
    let (_t, root) = unpack("hwloc-2n-nvme-slots/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2");
    let a = audit(&root);
    let slots: Vec<(String, &str)> = a
        .functions
        .iter()
        .filter_map(|f| f.slot.as_deref().map(|s| (f.bdf.to_string(), s)))
        .collect();
    assert_eq!(
        slots,
        [
            ("0000:82:00.0".to_string(), "01"),
            ("0000:83:00.0".to_string(), "02")
        ]
    );
    assert_eq!(a.drives.len(), 1);
    let d = &a.drives[0];
    assert_eq!(as_text(&d.bdf).as_deref(), Some("0000:00:02.0"));
    assert_eq!(d.controller.as_deref(), Some("nvme0"));
    assert_eq!(d.namespaces.len(), 1);
    assert_eq!(d.namespaces[0].name, "nvme0n1");
    assert_eq!(d.namespaces[0].size_sectors, Some(781_422_768));
    assert_eq!(d.namespaces[0].logical_block_size, Some(512));
    assert_eq!(d.namespaces[0].partitions, ["nvme0n1p1"]);
    let numa: std::collections::BTreeSet<Option<u32>> =
        a.functions.iter().map(|f| f.numa_node).collect();
    assert_eq!(numa, [None, Some(0), Some(1)].into_iter().collect());
    // 00:11.0 is a bridge the firmware left without buses: shown like lspci, not alarmed.
    assert_eq!(f(&a, "0000:00:11.0").buses, None);
    assert!(a.findings.is_empty(), "{:#?}", a.findings);
}

#[test]
fn libnvme_multipath_one_namespace_two_controllers_two_numa_nodes() {
    let (_t, root) = unpack("libnvme-power-nvme-multipath/tree-pcie.tar.xz");
    let a = audit(&root);
    let ns: Vec<_> = a
        .drives
        .iter()
        .filter(|d| d.namespaces.iter().any(|n| n.name == "nvme1n1"))
        .collect();
    assert_eq!(ns.len(), 2);
    assert_eq!(ns[0].controller.as_deref(), Some("nvme1"));
    assert_eq!(as_text(&ns[0].bdf).as_deref(), Some("052e:78:00.0"));
    assert_eq!(ns[0].numa_node, Some(0));
    assert_eq!(ns[1].controller.as_deref(), Some("nvme2"));
    assert_eq!(as_text(&ns[1].bdf).as_deref(), Some("058e:78:00.0"));
    assert_eq!(ns[1].numa_node, Some(2));
    let head = &ns[0].namespaces[0];
    assert_eq!(head.controllers, ["nvme1", "nvme2"]);
    let paths: Vec<(&str, &str, Option<&str>)> = head
        .paths
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.controller.as_str(),
                p.numa_nodes.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        paths,
        [
            ("nvme1c1n1", "nvme1", Some("0-1")),
            ("nvme1c2n1", "nvme2", Some("2-3"))
        ]
    );
    assert_eq!(head.size_sectors, Some(11_233_968));
    let sub = a
        .subsystems
        .iter()
        .find(|s| s.name == "nvme-subsys1")
        .unwrap();
    assert_eq!(sub.controllers, ["nvme1", "nvme2"]);
    assert_eq!(sub.namespaces, ["nvme1n1"]);
    assert_eq!(ns[0].slot.as_deref(), Some("U50EE.001.WZS000E-P3-C14-R1"));
    // The capture has no /sys/bus/pci/devices and its functions have no attributes: said so.
    assert_eq!(
        codes_at(&a),
        vec![
            ("LP0301".into(), "".into()),
            ("LP0301".into(), "0214:90:00.0".into()),
            ("LP0301".into(), "052e:78:00.0".into()),
            ("LP0301".into(), "058e:78:00.0".into()),
        ]
    );
    // lspci itself cannot read this capture.
    let out = std::process::Command::new("lspci")
        .args(["-A", "linux-sysfs", "-O"])
        .arg(format!("sysfs.path={}", root.join("sys/bus/pci").display()))
        .arg("-t")
        .output()
        .expect("this test needs lspci (apt-get install -y pciutils)");
    assert!(!out.status.success());
}

#[test]
fn libnvme_apple_controller_without_pci() {
    let (_t, root) = unpack("libnvme-power-nvme-multipath/tree-apple-nvme.tar.xz");
    let a = audit(&root);
    assert!(a.functions.is_empty());
    assert_eq!(a.drives.len(), 1);
    let d = &a.drives[0];
    assert_eq!(d.bdf, None);
    assert_eq!(d.transport.as_deref(), Some("apple-nvme"));
    assert_eq!(d.model.as_deref(), Some("APPLE SSD AP2048Z"));
    let names: Vec<&str> = d.namespaces.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["nvme0n1", "nvme0n2", "nvme0n3"]);
    assert_eq!(d.namespaces[0].partitions.len(), 6);
    assert!(a.findings.is_empty(), "{:#?}", a.findings);
}

#[test]
fn r740xd_12nvme_names_exactly_its_problems() {
    let a = audit(&fixtures().join("sysfs/r740xd-12nvme"));
    assert_eq!(
        codes_at(&a),
        vec![
            ("LP0302".into(), "0000:b0:00.0".into()),
            ("LP0302".into(), "0000:d9:00.0".into()),
            // 0000:00:00.0 (the DMI3 host bridge) is a platform function: not judged.
            ("LP0304".into(), "0000:d7:03.0".into()),
            ("LP0305".into(), "0000:17:00.0".into()),
            ("LP0307".into(), "0000:5d:02.0".into()),
            ("LP0308".into(), "0000:5d:02.0".into()),
        ]
    );
    assert_eq!(a.drives.len(), 11);
    let models: std::collections::BTreeSet<_> =
        a.drives.iter().map(|d| d.model.clone().unwrap()).collect();
    assert_eq!(models.len(), 1);
    assert!(models.contains("Micron_9300_MTFDHAL3T8TDP"));
    let by_numa = |n| a.drives.iter().filter(|d| d.numa_node == Some(n)).count();
    assert_eq!((by_numa(0), by_numa(1)), (4, 7));
    let d = a
        .drives
        .iter()
        .find(|d| as_text(&d.bdf).as_deref() == Some("0000:b0:00.0"))
        .unwrap();
    assert_eq!(d.link, link(Gen::G3, 2));
    assert_eq!(d.slot.as_deref(), Some("4-2"));
    assert_eq!(as_text(&d.upstream_port).as_deref(), Some("0000:ae:01.0"));
    let d0 = &a.drives[0];
    assert_eq!(
        (as_text(&d0.bdf).as_deref(), d0.slot.as_deref()),
        (Some("0000:5e:00.0"), Some("1"))
    );
    assert_eq!(d0.namespaces[0].mounts, ["/data 0"]);
    assert_eq!(
        f(&a, "0000:3b:00.0")
            .ids
            .map_or_else(|| "????:????".into(), |i| i.to_string()),
        "1000:0016"
    );
    assert_eq!(f(&a, "0000:3b:00.0").link, link(Gen::G3, 8));
    assert_eq!(f(&a, "0000:d7:03.0").link_status, LinkStatus::Empty);
    // The BOSS-S1 is a Gen2 x2 part: its port trains to it, a note and not a fault.
    assert_eq!(f(&a, "0000:18:00.0").link, link(Gen::G2, 2));
    assert_eq!(f(&a, "0000:18:00.0").link_status, LinkStatus::Ok);
    let aer = f(&a, "0000:5d:02.0").aer.clone().unwrap();
    assert_eq!((aer.correctable, aer.nonfatal, aer.fatal), (57, 1, 0));
    // Higher threshold: the correctable warning goes.
    let b = host::audit_sysfs(
        &fixtures().join("sysfs/r740xd-12nvme"),
        None,
        AuditOptions { aer_threshold: 100 },
    );
    assert!(!b.findings.iter().any(|f| f.code == Code::AerCorrectable));
}

#[test]
fn r6525_gen4_drives_at_gen3_are_downtrained() {
    let a = audit(&fixtures().join("sysfs/r6525-gen3"));
    let mut expect: Vec<(String, String)> = ["01", "02", "03", "04"]
        .iter()
        .map(|b| ("LP0302".to_string(), format!("0000:{b}:00.0")))
        .collect();
    // The OCP NIC's x16 port runs x8: the NIC is an x8 part (a note).
    expect.push(("LP0305".to_string(), "0000:00:05.1".to_string()));
    assert_eq!(codes_at(&a), expect);
    for d in &a.drives {
        assert_eq!(d.link, link(Gen::G3, 4));
        assert_eq!(d.link_max, link(Gen::G4, 4));
        assert_eq!(d.link_status, LinkStatus::Downtrained);
    }
    assert_eq!(f(&a, "0000:05:00.0").link_status, LinkStatus::Ok);
    // The topology is the plan's type: devices under root ports under NUMA "sockets".
    let t = &a.topology;
    let d = t.node_by_id("0000:03:00.0").unwrap();
    assert_eq!(
        t.describe_path(d),
        "NUMA node 0 > [0000:00] > 0000:00:01.3 > 0000:03:00.0"
    );
    let rate = t.pcie_path(d)[0].1;
    assert_eq!((rate.generation, rate.width), (Gen::G3, 4));
}

fn lspci_fixture() -> String {
    let dir = fixtures().join("shared/lspci-r740xd");
    std::fs::read_to_string(dir.join("dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt")).unwrap()
}

#[test]
fn r740xd_lspci_dump_parses_whole() {
    let text = lspci_fixture();
    let a = host::audit_lspci(&text, "r740xd.txt", AuditOptions::default());
    assert_eq!(a.functions.len(), 194);
    let numa: std::collections::BTreeSet<Option<u32>> =
        a.functions.iter().map(|f| f.numa_node).collect();
    assert_eq!(numa, [Some(0), Some(1)].into_iter().collect());
    // Every function whose block has a LnkSta line has its link read.
    let mut with_lnksta = Vec::new();
    for block in text.split("\n\n") {
        if block.contains("\t\tLnkSta:") {
            let addr = block.split_whitespace().next().unwrap();
            with_lnksta.push(format!("0000:{addr}"));
        }
    }
    let with_link: Vec<String> = a
        .functions
        .iter()
        .filter(|f| f.link.is_some() && f.link_max.is_some())
        .map(|f| f.bdf.to_string())
        .collect();
    assert_eq!(with_link, with_lnksta);
    assert_eq!(with_link.len(), 11);
    assert_eq!(
        f(&a, "0000:00:00.0").link,
        Some(LinkState {
            speed: None,
            width: 0
        })
    );
    assert_eq!(f(&a, "0000:00:1c.0").link, link(Gen::G2, 2));
    assert_eq!(f(&a, "0000:00:1c.0").link_max, link(Gen::G3, 2));
    assert_eq!(
        as_text(&f(&a, "0000:01:00.0").parent).as_deref(),
        Some("0000:00:1c.0")
    );
    assert!(
        a.functions
            .iter()
            .all(|f| f.link_status != LinkStatus::Downtrained)
    );
    assert_eq!(
        codes_at(&a),
        vec![("LP0305".into(), "0000:00:1c.0".into()),]
    );
    let n1c = a
        .findings
        .iter()
        .find(|f| f.code == Code::PortLimited)
        .unwrap();
    assert_eq!(
        n1c.message,
        "0000:00:1c.0 runs at 5.0 GT/s x2 of 8.0 GT/s x2: its device 0000:01:00.0 tops out at 5.0 GT/s x2"
    );
}

#[test]
fn sysfs_and_lspci_readers_agree_on_the_same_host() {
    for name in ["r740xd-12nvme", "r6525-gen3"] {
        let root = fixtures().join("sysfs").join(name);
        let from_sysfs = audit(&root);
        let dump = lspci(&root, &["-vvnn"]);
        let from_lspci = host::audit_lspci(&dump, "generated", AuditOptions::default());
        assert_eq!(
            structure_of(&from_lspci),
            structure_of(&from_sysfs),
            "{name}"
        );
        for (x, y) in from_sysfs.functions.iter().zip(&from_lspci.functions) {
            assert_eq!(x.bdf, y.bdf);
            assert_eq!((x.link, x.link_max), (y.link, y.link_max), "{}", x.bdf);
            assert_eq!(
                (x.numa_node, &x.slot, x.kind),
                (y.numa_node, &y.slot, y.kind),
                "{}",
                x.bdf
            );
            assert_eq!(
                (x.ids.map(|i| i.to_string()).unwrap_or_default(), &x.class),
                (y.ids.map(|i| i.to_string()).unwrap_or_default(), &y.class),
                "{}",
                x.bdf
            );
            assert_eq!(x.link_status, y.link_status, "{}", x.bdf);
        }
        // Same link verdicts (AER exists only in sysfs).
        let link_codes = |a: &Audit| {
            codes_at(a)
                .into_iter()
                .filter(|(c, _)| c != "LP0307" && c != "LP0308")
                .collect::<Vec<_>>()
        };
        assert_eq!(link_codes(&from_sysfs), link_codes(&from_lspci), "{name}");
    }
}

/// The libnvme captures have no /sys/bus/pci: lspci cannot read them at all (so there is no
/// tree to compare), while the audit still finds their functions by walking /sys/devices.
#[test]
fn libnvme_captures_are_beyond_lspci_but_not_the_audit() {
    let (_t, root) = unpack("libnvme-power-nvme-multipath/tree-pcie.tar.xz");
    let out = std::process::Command::new("lspci")
        .args(["-A", "linux-sysfs", "-O"])
        .arg(format!("sysfs.path={}", root.join("sys/bus/pci").display()))
        .arg("-t")
        .output()
        .expect("lspci is installed (scripts/test.sh installs pciutils)");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Cannot open"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = audit(&root);
    let bdfs: Vec<String> = a.functions.iter().map(|f| f.bdf.to_string()).collect();
    assert_eq!(bdfs, ["0214:90:00.0", "052e:78:00.0", "058e:78:00.0"]);
    // Each alone on a flat root bus with no PCIe capability and no bridge (no config space
    // in the capture): devices, not the root complex's own functions.
    assert!(a.functions.iter().all(|f| f.kind == FnKind::Device));
}

#[test]
fn platform_functions_by_class_port_type_and_position() {
    let (_t, root) = unpack("hwloc-2n-nvme-slots/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2");
    let a = audit(&root);
    let kind = |b: &str| f(&a, b).kind;
    // An NVMe drive on a root bus (partial capture) stays a device; the uncore, the DMA
    // engine, the PCH SATA and the host bridge are the platform's.
    assert_eq!(kind("0000:00:02.0"), FnKind::Device);
    assert_eq!(kind("0000:00:00.0"), FnKind::Platform);
    assert_eq!(kind("0000:00:04.0"), FnKind::Platform);
    assert_eq!(kind("0000:00:1f.2"), FnKind::Platform);
    assert_eq!(kind("0000:7f:0e.1"), FnKind::Platform);
    // With the subsystem name, as lspci -vv prints it (sysfs: from pci.ids).
    assert_eq!(
        f(&a, "0000:00:02.0").name,
        "Intel Corporation PCIe Data Center SSD (Intel Corporation DC P3600 SSD [Add-in Card])"
    );
}
