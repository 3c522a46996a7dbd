//! The metrics contract of `audit --prometheus` and the shipped alerting rules
//! (contrib/prometheus): `promtool test rules` on the shipped test (promtool required), the
//! test's input series are series laneplan writes for the R740xd captures, one label set per
//! family whatever the flags or source, and the kernel names that join node_exporter's disk
//! and network series.

use crate::common::*;
use crate::prom_textfile::parse_strict;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn contrib() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/prometheus")
}

fn promtool(args: &[&str], dir: &Path) -> (bool, String) {
    let out = std::process::Command::new("promtool")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("promtool not runnable ({e}): run scripts/test.sh, which installs it")
        });
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

/// `audit --prometheus` of `source` (flags before `--prometheus`); the textfile.
fn textfile(source: &[&str]) -> String {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("laneplan.prom");
    let (code, _, err) = run(laneplan().args(source).arg("--prometheus").arg(&p));
    assert!(code == 0 || code == 1, "{source:?}: {err}");
    std::fs::read_to_string(&p).unwrap()
}

fn r740xd_sysfs() -> String {
    fixtures().join("sysfs/r740xd-12nvme").display().to_string()
}

fn ids() -> String {
    fixtures().join("pci.ids").display().to_string()
}

/// Family -> the label names of its series (each family must have one).
fn label_sets(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for ((name, labels), _) in parse_strict(text).unwrap_or_else(|e| panic!("{e}\n{text}")) {
        let names: Vec<String> = labels.into_iter().map(|(k, _)| k).collect();
        let first = m.entry(name.clone()).or_insert_with(|| names.clone());
        assert_eq!(first, &names, "{name}: two label sets");
    }
    m
}

#[test]
fn shipped_rules_pass_promtool() {
    let (ok, said) = promtool(&["check", "rules", "laneplan.rules.yml"], &contrib());
    assert!(ok, "{said}");
    assert!(said.contains("SUCCESS: 5 rules found"), "{said}");
    let (ok, said) = promtool(&["test", "rules", "laneplan.rules.test.yml"], &contrib());
    assert!(ok, "{said}");
    assert!(said.contains("SUCCESS"), "{said}");

    // The test can fail: a rule that no longer fires (downtrained compared with 2) breaks it.
    let t = tempfile::tempdir().unwrap();
    let rules = std::fs::read_to_string(contrib().join("laneplan.rules.yml")).unwrap();
    let broken = rules.replace(
        "expr: laneplan_pcie_link_downtrained == 1",
        "expr: laneplan_pcie_link_downtrained == 2",
    );
    assert_ne!(broken, rules);
    std::fs::write(t.path().join("laneplan.rules.yml"), broken).unwrap();
    std::fs::copy(
        contrib().join("laneplan.rules.test.yml"),
        t.path().join("laneplan.rules.test.yml"),
    )
    .unwrap();
    let (ok, said) = promtool(&["test", "rules", "laneplan.rules.test.yml"], t.path());
    assert!(!ok, "{said}");
    assert!(said.contains("LaneplanPcieLinkDowntrained"), "{said}");
}

/// Every input series of the rules test is, label for label, a series laneplan writes for
/// the R740xd captures (the sysfs tree with and without `--against`, the lspci dump against
/// the build), plus the `instance` and `job` node_exporter adds: the test cannot drift
/// from the metrics.
#[test]
fn rule_test_series_are_series_laneplan_writes() {
    let build = "examples/r740xd-12nvme-micron9300.toml";
    let dump = lspci_dump("r740xd").display().to_string();
    let sysfs = r740xd_sysfs();
    let id = ids();
    let mut real: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for args in [
        vec!["audit", "--sysfs-root", &sysfs, "--pci-ids", &id],
        vec![
            "audit",
            "--sysfs-root",
            &sysfs,
            "--pci-ids",
            &id,
            "--against",
            build,
        ],
        vec!["audit", "--lspci", &dump, "--against", build],
    ] {
        let text = textfile(&args);
        real.extend(parse_strict(&text).unwrap().into_iter().map(|(s, _)| s));
    }
    let test = std::fs::read_to_string(contrib().join("laneplan.rules.test.yml")).unwrap();
    let mut n = 0;
    for line in test.lines() {
        let Some(series) = line.trim().strip_prefix("- series: '") else {
            continue;
        };
        let series = series.strip_suffix('\'').unwrap();
        // node_exporter's own series (the join test) are not ours.
        if !series.starts_with("laneplan_") {
            continue;
        }
        let text = format!("# HELP x X.\n# TYPE x gauge\n{series} 1\n");
        let text = text.replacen("# HELP x", &format!("# HELP {}", name_of(series)), 1);
        let text = text.replacen("# TYPE x", &format!("# TYPE {}", name_of(series)), 1);
        let ((name, labels), _) = parse_strict(&text).unwrap().remove(0);
        let labels: Vec<(String, String)> = labels
            .into_iter()
            .filter(|(k, _)| k != "instance" && k != "job")
            .collect();
        // The AER counter's other severities of the same function are written too.
        let found = real.iter().any(|(rn, rl)| rn == &name && rl == &labels);
        assert!(found, "not a series laneplan writes: {series}");
        n += 1;
    }
    assert_eq!(n, 11);
}

fn name_of(series: &str) -> &str {
    &series[..series.find('{').unwrap_or(series.len())]
}

/// One label set per family whatever the flags (`--against`) and the source (sysfs, lspci,
/// hwloc): the per-function families always carry pci, device, serial, slot, bay, model.
#[test]
fn one_label_set_per_family_whatever_the_flags_and_source() {
    let sysfs = r740xd_sysfs();
    let id = ids();
    let dump = lspci_dump("r740xd").display().to_string();
    let build = "examples/r740xd-12nvme-micron9300.toml";
    let hw = fixtures()
        .join("shared/hwloc-xml/nvidiaDGX2.xml")
        .display()
        .to_string();
    let runs = [
        vec!["audit", "--sysfs-root", &sysfs, "--pci-ids", &id],
        vec![
            "audit",
            "--sysfs-root",
            &sysfs,
            "--pci-ids",
            &id,
            "--against",
            build,
        ],
        vec!["audit", "--lspci", &dump],
        vec!["audit", "--lspci", &dump, "--against", build],
        vec!["audit", "--hwloc-xml", &hw],
    ];
    let sets: Vec<BTreeMap<String, Vec<String>>> =
        runs.iter().map(|a| label_sets(&textfile(a))).collect();
    let function = ["pci", "device", "serial", "slot", "bay", "model"];
    let mut all: BTreeMap<&String, &Vec<String>> = BTreeMap::new();
    for (args, set) in runs.iter().zip(&sets) {
        for (name, labels) in set {
            let first = all.entry(name).or_insert(labels);
            assert_eq!(*first, labels, "{name} under {args:?}");
            if name.starts_with("laneplan_pcie_") {
                assert_eq!(labels[..6], function, "{name}");
            }
        }
    }
    // The families of a sysfs run are the families of the same run with --against (the
    // plan's family has no series without a plan, but is declared).
    let families = |args: &[&str]| -> Vec<String> {
        textfile(args)
            .lines()
            .filter_map(|l| l.strip_prefix("# TYPE "))
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(families(&runs[0]), families(&runs[1]));
    assert!(!sets[0].contains_key("laneplan_plan_place_status"));
    assert_eq!(
        sets[1]["laneplan_plan_place_status"],
        [
            "place",
            "pci",
            "device",
            "slot",
            "bay",
            "expected_part",
            "found_part",
            "found",
            "status"
        ]
    );
    // --against fills the bay, nothing else: the drive's series differs only there.
    let series = |args: &[&str]| {
        parse_strict(&textfile(args))
            .unwrap()
            .into_iter()
            .find(|((n, l), _)| {
                n == "laneplan_pcie_link_downtrained"
                    && l.iter().any(|(k, v)| k == "pci" && v == "0000:b0:00.0")
            })
            .unwrap()
            .0
            .1
    };
    let plain = series(&runs[0]);
    let planned = series(&runs[1]);
    let differ: Vec<_> = plain.iter().zip(&planned).filter(|(a, b)| a != b).collect();
    assert_eq!(
        differ,
        [(
            &("bay".to_string(), String::new()),
            &("bay".to_string(), "17".to_string())
        )]
    );
}

/// A real capture with network interfaces (hwloc's 2-socket Skylake sysfs tree): the X722
/// ports carry their kernel names, `enp96s0f0` and `enp96s0f1`.
#[test]
fn device_label_is_the_interface_of_a_real_capture() {
    let (_t, root) = unpack("hwloc-skx-2plx-ve/32intel64-2p8co2t+8ve.tar.bz2");
    let root = root.display().to_string();
    let text = textfile(&["audit", "--sysfs-root", &root]);
    let named: Vec<(String, String)> = parse_strict(&text)
        .unwrap()
        .into_iter()
        .filter(|((n, _), _)| n == "laneplan_pcie_link_width")
        .filter_map(|((_, l), _)| {
            let get = |k: &str| l.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            Some((get("pci")?, get("device")?)).filter(|(_, d)| !d.is_empty())
        })
        .collect();
    assert_eq!(
        named,
        [
            ("0000:60:00.0".to_string(), "enp96s0f0".to_string()),
            ("0000:60:00.1".to_string(), "enp96s0f1".to_string())
        ]
    );
}

/// `device` is the kernel's name: the NVMe namespace of a drive (node_exporter's disk
/// series) and a NIC's interface from sysfs `net/` (its network series), here the
/// R740xd capture's rNDC with an interface added below it.
#[test]
fn device_label_joins_node_exporters_disk_and_network_series() {
    let (_t, root) = own_copy("r740xd-12nvme");
    let nic = root.join("sys/devices/pci0000:17/0000:17:02.0/0000:19:00.0");
    assert!(nic.is_dir());
    std::fs::create_dir_all(nic.join("net/eno1")).unwrap();
    let root = root.display().to_string();
    let text = textfile(&["audit", "--sysfs-root", &root, "--pci-ids", &ids()]);
    let samples = parse_strict(&text).unwrap();
    let device_of = |pci: &str| {
        samples
            .iter()
            .find(|((n, l), _)| {
                n == "laneplan_pcie_link_width" && l.iter().any(|(k, v)| k == "pci" && v == pci)
            })
            .and_then(|((_, l), _)| l.iter().find(|(k, _)| k == "device"))
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    assert_eq!(device_of("0000:19:00.0"), "eno1");
    assert_eq!(device_of("0000:b0:00.0"), "nvme5n1");
    assert_eq!(device_of("0000:17:02.0"), "");
    let (_, out, _) = run(laneplan().args(["audit", "--json", "--sysfs-root", &root]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["bdf"] == "0000:19:00.0")
        .unwrap();
    assert_eq!(f["net"], serde_json::json!(["eno1"]));

    // `gather` keeps the interface: a replay of its archive has the same label.
    let t = tempfile::tempdir().unwrap();
    let archive = t.path().join("host.tar.gz");
    let (code, _, err) = run(laneplan()
        .args(["gather", "--sysfs-root", &root])
        .arg(&archive));
    assert_eq!(code, 0, "{err}");
    let un = t.path().join("u");
    std::fs::create_dir(&un).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&archive).unwrap(),
    ))
    .unpack(&un)
    .unwrap();
    let un = un.display().to_string();
    let replay = textfile(&["audit", "--sysfs-root", &un, "--pci-ids", &ids()]);
    assert!(
        replay.contains("laneplan_pcie_link_width{pci=\"0000:19:00.0\",device=\"eno1\","),
        "{replay}"
    );
}

/// `promtool check metrics` (format and lint) accepts the textfile of every source and with
/// `--against` (the plan's family with its series).
#[test]
fn promtool_accepts_every_source_and_flag() {
    let sysfs = r740xd_sysfs();
    let id = ids();
    let dump = lspci_dump("r740xd").display().to_string();
    let build = "examples/r740xd-12nvme-micron9300.toml";
    let hw = fixtures()
        .join("shared/hwloc-xml/nvidiaDGX2.xml")
        .display()
        .to_string();
    let rf = fixtures()
        .join("shared/redfish-public-tower")
        .display()
        .to_string();
    for args in [
        vec![
            "audit",
            "--sysfs-root",
            &sysfs,
            "--pci-ids",
            &id,
            "--against",
            build,
        ],
        vec!["audit", "--lspci", &dump, "--against", build],
        vec!["audit", "--hwloc-xml", &hw],
        vec!["audit", "--redfish", &rf],
    ] {
        let text = textfile(&args);
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("t.prom"), &text).unwrap();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg("promtool check metrics < t.prom")
            .current_dir(t.path())
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success() && said.trim().is_empty(),
            "{args:?}: {said}"
        );
    }
}
