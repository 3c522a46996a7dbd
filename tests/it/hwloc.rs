//! `--hwloc-xml FILE`: hwloc's own test topologies (tests/fixtures/shared/hwloc-xml, and the
//! NVMe one in hwloc-2n-nvme-slots). An oracle walks each XML with roxmltree on its own and
//! compares every PCI object's address, parent and ids with the audit's tree.

use crate::common::{as_text, pci_addr};
use crate::common::{fixtures, laneplan, laneplan_wide, run};
use laneplan::host::audit::{AuditOptions, LinkStatus};
use laneplan::host::source::{self, HostSource};
use laneplan::host::tree::FnKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// busid -> (parent busid, `vvvv:dddd`).
type Tree = BTreeMap<String, (Option<String>, String)>;
/// name, PCI function, size, model.
type Disk = (String, Option<String>, Option<u64>, Option<String>);

fn xml(name: &str) -> PathBuf {
    fixtures().join("shared/hwloc-xml").join(name)
}

fn nvme_xml() -> PathBuf {
    fixtures().join("shared/hwloc-2n-nvme-slots/32em64t-2n8c+dax+nvme+mic+dimms.xml")
}

fn audit(p: &Path) -> laneplan::host::audit::Audit {
    source::audit(
        &HostSource::HwlocXml(p.to_path_buf()),
        None,
        AuditOptions::default(),
    )
    .unwrap()
}

/// busid -> (parent busid, `vvvv:dddd`), walked here from the XML alone.
fn oracle(p: &Path) -> (Tree, Vec<String>) {
    let text = std::fs::read_to_string(p).unwrap();
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, opts).unwrap();
    let mut out = BTreeMap::new();
    let mut dups = Vec::new();
    for n in doc.descendants().filter(|n| n.has_tag_name("object")) {
        let Some(busid) = n.attribute("pci_busid") else {
            continue;
        };
        let parent = n
            .ancestors()
            .skip(1)
            .find_map(|a| a.attribute("pci_busid"))
            .map(str::to_string);
        let ids = n
            .attribute("pci_type")
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .trim_matches(['[', ']'])
            .to_string();
        if out.contains_key(busid) {
            dups.push(busid.to_string());
            continue;
        }
        out.insert(busid.to_string(), (parent, ids));
    }
    (out, dups)
}

#[test]
fn tree_equals_what_hwloc_holds() {
    for p in [
        xml("nvidiaDGX2.xml"),
        xml("24em64t-2n6c2t-pci.xml"),
        xml("32em64t-2n8c2t-pci-normalio.xml"),
        xml("16intel64-manyVFs.xml"),
        nvme_xml(),
    ] {
        let a = audit(&p);
        let (want, dups) = oracle(&p);
        let got: Tree = a
            .functions
            .iter()
            .map(|f| {
                (
                    f.bdf.to_string(),
                    (as_text(&f.parent), laneplan::pci::PciIds::text(f.ids)),
                )
            })
            .collect();
        assert_eq!(got, want, "{}", p.display());
        assert!(!want.is_empty());
        // A duplicate address in the file (normalio has two 0000:04:00.0) is a bus conflict.
        let conflicts: Vec<&str> = a
            .findings
            .iter()
            .filter(|f| f.code == "LP0310")
            .map(|f| f.message.as_str())
            .collect();
        assert_eq!(
            conflicts,
            dups.iter()
                .map(|d| format!("{d} appears twice in the input"))
                .collect::<Vec<_>>(),
            "{}",
            p.display()
        );
    }
}

#[test]
fn dgx2_plx_fan_out_numa_and_gpus() {
    let a = audit(&xml("nvidiaDGX2.xml"));
    assert_eq!(a.product.as_deref(), Some("NVIDIA DGX-2H"));
    assert_eq!(
        a.cpu_model.as_deref(),
        Some("Intel(R) Xeon(R) Platinum 8174 CPU @ 3.10GHz")
    );
    assert_eq!(a.sockets, Some(2));
    assert_eq!(a.functions.len(), 84);
    let by = |b: &str| a.function(pci_addr(b)).unwrap();
    let gpus: Vec<String> = a
        .functions
        .iter()
        .filter(|f| f.ids.map(|i| i.to_string()).as_deref() == Some("10de:1db8"))
        .map(|f| f.bdf.to_string())
        .collect();
    assert_eq!(gpus.len(), 16);
    for g in &gpus {
        // Five bridges above every GPU: root port, PLX upstream, downstream, a second PLX
        // upstream and its downstream port.
        let mut chain = Vec::new();
        let mut cur = as_text(&by(g).parent);
        while let Some(p) = cur {
            let f = by(&p);
            chain.push((f.kind, laneplan::pci::PciIds::text(f.ids)));
            cur = as_text(&f.parent);
        }
        chain.reverse();
        let kinds: Vec<FnKind> = chain.iter().map(|c| c.0).collect();
        assert_eq!(
            kinds,
            [
                FnKind::RootPort,
                FnKind::Switch,
                FnKind::SwitchPort,
                FnKind::Switch,
                FnKind::SwitchPort
            ],
            "{g}"
        );
        assert_eq!(chain[0].1, "8086:2030", "{g}");
        assert!(
            chain[1].1 == "10b5:9781" || chain[1].1 == "10b5:9797",
            "{g}"
        );
        assert_eq!(chain[3].1, "10b5:9781", "{g}");
        let f = by(g);
        assert_eq!(as_text(&f.class).as_deref(), Some("0x030200"));
        assert_eq!(f.link_speed_gbs, Some(15.753846));
        assert_eq!(f.link_status, LinkStatus::Unknown);
        assert!(f.link.is_none() && f.link_max.is_none());
    }
    // NUMA from the package each host bridge hangs from: roots 2b and 4e on node 0, ae and
    // d7 on node 1.
    let numa: BTreeMap<String, Option<u32>> = a
        .functions
        .iter()
        .filter(|f| f.parent.is_none())
        .map(|f| (f.bdf.to_string(), f.numa_node))
        .collect();
    assert_eq!(
        numa,
        BTreeMap::from([
            ("0000:2b:00.0".to_string(), Some(0)),
            ("0000:4e:00.0".to_string(), Some(0)),
            ("0000:ae:00.0".to_string(), Some(1)),
            ("0000:d7:00.0".to_string(), Some(1)),
        ])
    );
    assert_eq!(
        gpus.iter().filter(|g| by(g).numa_node == Some(0)).count(),
        8
    );
    // Twelve NVSwitches (one reads as 0000:0000 in the file), each below a PEX 8725 port at
    // 1.0 GB/s.
    let nvswitch: Vec<String> = a
        .functions
        .iter()
        .filter(|f| {
            as_text(&f.parent).as_deref().is_some_and(|p| {
                a.function(pci_addr(p))
                    .unwrap()
                    .ids
                    .map(|i| i.to_string())
                    .as_deref()
                    == Some("10b5:8725")
            }) && f.kind == FnKind::Device
        })
        .map(|f| f.ids.map(|i| i.to_string()).unwrap_or_default())
        .collect();
    assert_eq!(nvswitch.len(), 12);
    assert_eq!(nvswitch.iter().filter(|i| **i == "10de:1ac2").count(), 11);
    let switches = a
        .functions
        .iter()
        .filter(|f| f.kind == FnKind::Switch)
        .count();
    assert_eq!(switches, 14);
    // The one note: current speeds only, never a guessed downtrain.
    let codes: Vec<&str> = a.findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(codes, ["LP0343"]);
    assert!(a.findings[0].message.contains("(84 links, in GB/s)"));
}

#[test]
fn nics_slots_and_disks() {
    let a = audit(&xml("24em64t-2n6c2t-pci.xml"));
    assert_eq!(a.product.as_deref(), Some("ProLiant SL390s G7"));
    let nic = a.function(pci_addr("0000:04:00.0")).unwrap();
    assert_eq!(
        nic.ids
            .map_or_else(|| "????:????".into(), |i| i.to_string()),
        "8086:10c9"
    );
    assert_eq!(as_text(&nic.class).as_deref(), Some("0x020000"));
    assert_eq!(as_text(&nic.parent).as_deref(), Some("0000:00:01.0"));
    assert_eq!(nic.numa_node, Some(0));
    assert_eq!(nic.link_speed_gbs, Some(0.2));

    let a = audit(&nvme_xml());
    assert_eq!(a.product.as_deref(), Some("DCS8000Z"));
    assert_eq!(a.sockets, Some(2));
    // PCISlot infos are physical slot numbers.
    let ib = a.function(pci_addr("0000:82:00.0")).unwrap();
    assert_eq!(
        (ib.slot.as_deref(), ib.slot_number, ib.numa_node),
        (Some("01"), Some(1), Some(1))
    );
    let mic = a.function(pci_addr("0000:83:00.0")).unwrap();
    assert_eq!(
        (mic.slot_number, mic.ids.map(|i| i.to_string())),
        (Some(2), Some("8086:225c".to_string()))
    );
    // The NVMe drive: its namespace below its PCI function, with hwloc's size.
    assert_eq!(a.drives.len(), 1);
    let d = &a.drives[0];
    assert_eq!(as_text(&d.bdf).as_deref(), Some("0000:00:02.0"));
    assert_eq!(d.numa_node, Some(0));
    assert_eq!(d.namespaces.len(), 1);
    assert_eq!(d.namespaces[0].name, "nvme0n1");
    assert_eq!(d.namespaces[0].size_bytes(), Some(390711384 * 1024));
    let disks: Vec<Disk> = a
        .disks
        .iter()
        .take(2)
        .map(|d| {
            (
                d.name.clone(),
                d.pci.map(|b| b.to_string()),
                d.size_bytes,
                d.model.clone(),
            )
        })
        .collect();
    assert_eq!(
        disks,
        [
            (
                "nvme0n1".into(),
                Some("0000:00:02.0".into()),
                Some(390711384 * 1024),
                None
            ),
            (
                "sda".into(),
                Some("0000:00:1f.2".into()),
                Some(244198584 * 1024),
                Some("MTFDDAK256MAM-1K12".into())
            ),
        ]
    );
    // The rest are NVDIMM (DAX, pmem) storage without a PCI function.
    assert_eq!(a.disks.len(), 10);
    assert!(
        a.disks[2..]
            .iter()
            .all(|d| d.pci.is_none() && d.subtype.as_deref() == Some("NVM"))
    );
}

/// hwloc 2 numbers OS device types (0 = block), hwloc 3 uses a mask (1 = storage, 16 =
/// network). Synthetic: the fixtures are all hwloc 3 files, so this small hwloc 2 topology
/// is written here to show the difference.
#[test]
fn v2_and_v3_os_device_types() {
    let doc = |version: &str, disk: u32, nic: u32| {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="{version}">
  <object type="Machine" os_index="0" cpuset="0x1" nodeset="0x1">
    <object type="Bridge" bridge_type="0-1" depth="0" bridge_pci="0000:[00-01]">
      <object type="PCIDev" pci_busid="0000:00:17.0" pci_type="0106 [8086:a352] [1028:0000] 10" pci_link_speed="0.000000">
        <object type="OSDev" name="sda" osdev_type="{disk}"/>
      </object>
      <object type="PCIDev" pci_busid="0000:00:1f.6" pci_type="0200 [8086:15bb] [1028:0000] 10" pci_link_speed="0.000000">
        <object type="OSDev" name="eth0" osdev_type="{nic}"/>
      </object>
    </object>
  </object>
</topology>
"#
        )
    };
    for (v, disk, nic) in [("2.0", 0, 2), ("3.0", 1, 16)] {
        let h = laneplan::host::hwloc::parse(&doc(v, disk, nic), "t.xml").unwrap();
        let names: Vec<&str> = h.disks.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["sda"], "hwloc {v}");
        assert_eq!(h.scan.functions[0].class, Some(0x010600));
        assert_eq!(h.scan.functions[0].numa_node, Some(0));
    }
    // hwloc 2's 1 is a GPU, not a disk.
    let h = laneplan::host::hwloc::parse(&doc("2.0", 1, 2), "t.xml").unwrap();
    assert!(h.disks.is_empty());
}

#[test]
fn malformed_xml_is_located() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("bad.xml");
    std::fs::write(
        &p,
        "<?xml version=\"1.0\"?>\n<topology version=\"3.0\">\n  <object type=\"Machine\">\n    <object type=\"PCIDev\" pci_busid=0000:00:01.0/>\n",
    )
    .unwrap();
    let (code, _, err) = run(laneplan().args(["audit", "--hwloc-xml"]).arg(&p));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{}:4:", p.display())), "{err}");
    assert!(err.contains("malformed XML"), "{err}");

    std::fs::write(&p, "<html><body/></html>").unwrap();
    let (code, _, err) = run(laneplan().args(["audit", "--hwloc-xml"]).arg(&p));
    assert_eq!(code, 2);
    assert!(
        err.contains("not an hwloc topology: the root element is <html>"),
        "{err}"
    );

    std::fs::write(
        &p,
        "<topology version=\"3.0\">\n<object type=\"PCIDev\" pci_busid=\"zz:00.0\" pci_type=\"0200 [8086:15bb] [0000:0000] 00\"/>\n</topology>\n",
    )
    .unwrap();
    let e = laneplan::host::hwloc::read(&p).unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert_eq!(e.message, "pci_busid \"zz:00.0\" is not a PCI address");

    let (code, _, err) = run(laneplan().args(["audit", "--hwloc-xml", "/nonexistent.xml"]));
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent.xml"), "{err}");
}

#[test]
fn dgx2_text() {
    let (code, out, err) = run(laneplan_wide()
        .args(["audit", "--hwloc-xml"])
        .arg("tests/fixtures/shared/hwloc-xml/nvidiaDGX2.xml"));
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("hwloc-dgx2.txt", out);
}

/// `--prometheus`: hwloc's current link in bytes per second per function, no downtrain gauge (no maximum).
#[test]
fn dgx2_prometheus() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("hw.prom");
    let (code, _, err) = run(laneplan()
        .args(["audit", "--hwloc-xml"])
        .arg(xml("nvidiaDGX2.xml"))
        .arg("--prometheus")
        .arg(&p));
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&p).unwrap();
    let gbs: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("laneplan_pcie_link_current_bytes_per_second{"))
        .collect();
    assert_eq!(gbs.len(), 84);
    // hwloc's 15.753846 GB/s in base units.
    assert!(gbs.contains(&"laneplan_pcie_link_current_bytes_per_second{pci=\"0000:34:00.0\",device=\"\",serial=\"\",slot=\"\",bay=\"\",model=\"NVIDIA Corporation GV100GL [Tesla V100 SXM3 32GB] (NVIDIA Corporation Tesla V100-SXM3-32GB-H)\"} 15753846000"));
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("laneplan_pcie_link_downtrained{"))
    );
}

/// `learn --hwloc-xml` -> `check` -> `audit --hwloc-xml --against`: the two PCISlot cards
/// (ConnectX-3 in slot 1, Xeon Phi in slot 2) are found where the learned build puts them.
#[test]
fn learn_round_trip_nvme_slots() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let (code, _, err) = run(laneplan()
        .args(["learn", "--hwloc-xml"])
        .arg(nvme_xml())
        .arg("-o")
        .arg(&out));
    assert_eq!(code, 0, "{err}");
    let plat = out.join("platform");
    let (code, _, err) = run(laneplan()
        .arg("--platform-dir")
        .arg(&plat)
        .arg("check")
        .arg(out.join("build.toml")));
    assert_eq!(code, 0, "{err}");
    let (_, stdout, err) = run(laneplan()
        .arg("--platform-dir")
        .arg(&plat)
        .args(["audit", "--json", "--hwloc-xml"])
        .arg(nvme_xml())
        .arg("--against")
        .arg(out.join("build.toml")));
    let a: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    let slots: Vec<(String, String, String)> = a["bays"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["slot_number"].is_number())
        .map(|e| {
            (
                e["place"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
                e["bdf"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect();
    assert_eq!(
        slots,
        [
            (
                "Slot 1".to_string(),
                "ok".to_string(),
                "0000:82:00.0".to_string()
            ),
            (
                "Slot 2".to_string(),
                "ok".to_string(),
                "0000:83:00.0".to_string()
            ),
        ]
    );
}
