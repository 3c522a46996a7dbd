//! Platforms held against real captures (#24): the variant a host matches, contradictions
//! as findings (LP0350-LP0369), cards by physical slot, and what is a platform function.

use crate::common::{as_text, pci_addr, text_of};
use laneplan::host::{self, audit::AuditOptions, tree::FnKind};

/// An HPE ProLiant DL380 Gen10's chipset ports, as the real host shows them
/// (linuxhw/LsPCI `Server/HPE/ProLiant/ProLiant DL380 Gen10/4A81CFAB7E9A/...`, commit
/// c0a4a3a6: PCH root ports 00:1c.0 and 00:1c.4, the iLO 5 functions on bus 01 below
/// 00:1c.4) with the four-port 331i LOM below 00:1c.0 that issue #24 reports on another
/// DL380 Gen10. Synthetic: no capture in the corpus shows that LOM with its capabilities
/// readable, so the functions are written out here, ids and classes as the hosts print them.
const DL380_PCH: &str = "\
00:00.0 Host bridge [0600]: Intel Corporation Sky Lake-E DMI3 Registers [8086:2020] (rev 07)
\tNUMA node: 0

00:1c.0 PCI bridge [0604]: Intel Corporation C620 Series Chipset Family PCI Express Root Port #1 [8086:a190] (rev f9) (prog-if 00 [Normal decode])
\tNUMA node: 0
\tBus: primary=00, secondary=02, subordinate=02, sec-latency=0
\tCapabilities: [40] Express (v2) Root Port (Slot-), MSI 00
\t\tLnkCap:\tPort #1, Speed 5GT/s, Width x4, ASPM not supported
\t\tLnkSta:\tSpeed 5GT/s (ok), Width x4 (ok)

00:1c.4 PCI bridge [0604]: Intel Corporation C620 Series Chipset Family PCI Express Root Port #5 [8086:a194] (rev f9) (prog-if 00 [Normal decode])
\tNUMA node: 0
\tBus: primary=00, secondary=01, subordinate=01, sec-latency=0
\tCapabilities: [40] Express (v2) Root Port (Slot-), MSI 00
\t\tLnkCap:\tPort #5, Speed 5GT/s, Width x1, ASPM not supported
\t\tLnkSta:\tSpeed 5GT/s (ok), Width x1 (ok)

01:00.0 System peripheral [0880]: Hewlett-Packard Company Integrated Lights-Out Standard Slave Instrumentation & System Support [103c:3306] (rev 07)
\tSubsystem: Hewlett Packard Enterprise iLO5 [1590:00e4]
\tNUMA node: 0
\tCapabilities: [70] Express (v1) Legacy Endpoint, MSI 00
\t\tLnkCap:\tPort #0, Speed 2.5GT/s, Width x1, ASPM L0s L1
\t\tLnkSta:\tSpeed 2.5GT/s (ok), Width x1 (ok)

01:00.2 System peripheral [0880]: Hewlett-Packard Company Integrated Lights-Out Standard Management Processor Support and Messaging [103c:3307] (rev 07)
\tSubsystem: Hewlett Packard Enterprise Device [1590:00e4]
\tNUMA node: 0

02:00.0 Ethernet controller [0200]: Broadcom Inc. and subsidiaries NetXtreme BCM5719 Gigabit Ethernet PCIe [14e4:1657] (rev 01)
\tSubsystem: Hewlett-Packard Company Ethernet 1Gb 4-port 331i Adapter [103c:22be]
\tNUMA node: 0
\tCapabilities: [ac] Express (v2) Endpoint, MSI 00
\t\tLnkCap:\tPort #0, Speed 5GT/s, Width x4, ASPM not supported
\t\tLnkSta:\tSpeed 5GT/s (ok), Width x4 (ok)
\tKernel driver in use: tg3

02:00.1 Ethernet controller [0200]: Broadcom Inc. and subsidiaries NetXtreme BCM5719 Gigabit Ethernet PCIe [14e4:1657] (rev 01)
\tSubsystem: Hewlett-Packard Company Ethernet 1Gb 4-port 331i Adapter [103c:22be]
\tNUMA node: 0
\tCapabilities: [ac] Express (v2) Endpoint, MSI 00
\t\tLnkCap:\tPort #0, Speed 5GT/s, Width x4, ASPM not supported
\t\tLnkSta:\tSpeed 5GT/s (ok), Width x4 (ok)
\tKernel driver in use: tg3
";

#[test]
fn a_lom_beside_the_bmc_port_is_a_device_not_the_platform() {
    let a = host::audit_lspci(DL380_PCH, "dl380g10", AuditOptions::default());
    let kind = |bdf: &str| a.function(pci_addr(bdf)).map(|f| f.kind);
    // The LOM's functions are devices although 00:1c.4, their port's sibling, leads only to
    // the iLO (platform functions); the iLO stays the platform's.
    assert_eq!(kind("0000:02:00.0"), Some(FnKind::Device));
    assert_eq!(kind("0000:02:00.1"), Some(FnKind::Device));
    assert_eq!(kind("0000:01:00.0"), Some(FnKind::Platform));
    assert_eq!(kind("0000:01:00.2"), Some(FnKind::Platform));
}

#[test]
fn amd_internal_ports_still_hold_the_chipset_functions() {
    // The R7515's 80:08.2 and 80:08.3 (internal GPP bridges beside the dummy host bridge
    // 80:08.0, whose sibling 80:08.1 leads to the dummy function and PTDMA only) lead to
    // the FCH SATA controllers (91:00.0, 92:00.0): the platform's, not cards.
    let a = host::audit_lspci_file(&crate::common::lspci_dump("r7515"), AuditOptions::default())
        .unwrap();
    let sata: Vec<(&str, FnKind)> = a
        .functions
        .iter()
        .filter(|f| {
            as_text(&f.class)
                .as_deref()
                .is_some_and(|c| c.starts_with("0x0106"))
        })
        .map(|f| (text_of(f.bdf), f.kind))
        .collect();
    assert_eq!(
        sata,
        vec![
            ("0000:91:00.0", FnKind::Platform),
            ("0000:92:00.0", FnKind::Platform)
        ]
    );
}

// ---------------------------------------------------------------- every capture, by platform

use laneplan::platform::Catalog;
use laneplan::variant::{self, PlaceStatus, VariantMatch};

fn capture(rel: &str, platform: &str) -> VariantMatch {
    let path = crate::common::fixtures().join(rel);
    let a = host::audit_lspci_file(&path, AuditOptions::default()).unwrap();
    let catalog = Catalog::builtin().unwrap();
    variant::match_platform(catalog.platform(platform).unwrap(), &a)
}

/// (option, value) of every option, `None` where no value matches.
fn options(m: &VariantMatch) -> Vec<(&str, Option<&str>, bool)> {
    m.options
        .iter()
        .map(|o| (o.key.as_str(), o.value.as_deref(), o.evidence))
        .collect()
}

/// (physical slot, port, place, status) of every slot that is no bay.
fn slots(m: &VariantMatch) -> Vec<(u32, &str, Option<&str>, PlaceStatus)> {
    m.places
        .iter()
        .filter(|p| !p.place.as_deref().is_some_and(|s| s.starts_with("Bay ")))
        .map(|p| {
            (
                p.host.slot_number,
                text_of(p.host.bdf),
                p.place.as_deref(),
                p.status,
            )
        })
        .collect()
}

/// The 1-based line of the first line equal to `text` at or after the line equal to `after`
/// in a platform file: where a finding must point.
fn line_of(platform: &str, after: &str, text: &str) -> usize {
    let body = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("platforms/{platform}.toml")),
    )
    .unwrap();
    let lines: Vec<&str> = body.lines().collect();
    let start = lines.iter().position(|l| *l == after).unwrap();
    start + lines[start..].iter().position(|l| *l == text).unwrap() + 1
}

fn codes(m: &VariantMatch) -> Vec<&str> {
    m.findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn r7515_shared_capture_has_slots_2_3_4_in_the_platform() {
    let m = capture(
        "shared/lspci-r7515/dell-r7515-ubuntu2004-510A7BE2AFDD.lspci-vvnn.txt",
        "r7515",
    );
    assert_eq!(options(&m), vec![("front", Some("24nvme"), true)]);
    use PlaceStatus::Ok;
    assert_eq!(
        slots(&m),
        vec![
            (1, "0000:00:03.1", Some("slot1"), Ok),
            (1, "0000:00:03.2", Some("mini-perc"), Ok),
            (2, "0000:80:03.0", Some("slot2"), Ok),
            (3, "0000:c0:01.0", Some("slot3"), Ok),
            (4, "0000:40:01.0", Some("slot4"), Ok),
            (5, "0000:00:01.1", Some("slot5"), Ok),
        ]
    );
    // 6 slots, 24 bay ports, 5 root complexes' NUMA nodes.
    assert_eq!((m.matched, m.total), (35, 35));
    assert!(codes(&m).is_empty(), "{:?}", m.findings);
    assert_eq!(
        m.summary(),
        "r7515: front=24nvme, matched by 35 of 35 slots, ports and NUMA nodes"
    );
}

#[test]
fn r7525_shared_capture_is_nps4_with_every_slot_placed() {
    let m = capture(
        "shared/lspci-r7525/dell-r7525-debian11-23F136DC785E.lspci-vvnn.txt",
        "r7525",
    );
    assert_eq!(
        options(&m),
        vec![("front", Some("8nvme"), true), ("nps", Some("nps4"), true)]
    );
    use PlaceStatus::Ok;
    assert_eq!(
        slots(&m),
        vec![
            (2, "0000:20:03.1", Some("slot2"), Ok),
            (3, "0000:40:01.0", Some("slot3"), Ok),
            (5, "0000:80:01.0", Some("slot5"), Ok),
            (6, "0000:a0:03.0", Some("slot6"), Ok),
            (7, "0000:e0:03.0", Some("slot7"), Ok),
        ]
    );
    assert_eq!((m.matched, m.total), (18, 18));
    assert!(codes(&m).is_empty(), "{:?}", m.findings);
}

#[test]
fn r7525_corpus_capture_is_nps1_with_a_front_perc_the_platform_lacks() {
    let m = capture(
        "corpus/r7525/dell-r7525-ubuntu2004-6B51CAA01B7C.lspci-vvnn.txt",
        "r7525",
    );
    assert_eq!(
        options(&m),
        vec![("front", None, false), ("nps", Some("nps1"), true)]
    );
    use PlaceStatus::Ok;
    assert_eq!(
        slots(&m),
        vec![
            (2, "0000:20:03.0", Some("slot2"), Ok),
            (7, "0000:e0:03.0", Some("slot7"), Ok),
        ]
    );
    // The LOM on e0:05.1 the platform has no built-in for; no front explains the PERC
    // H745 Front on 00:01.1, where the 8nvme front's cables would be.
    assert_eq!(codes(&m), vec!["LP0353", "LP0354"]);
    let lom = &m.contradictions[0];
    assert_eq!(lom.host.bdf, "0000:e1:00.0");
    let front = &m.findings[1];
    assert_eq!(front.location.file.as_deref(), Some("platforms/r7525.toml"));
    assert_eq!(
        front.location.line,
        Some(line_of("r7525", "[[option]]", "key = \"front\""))
    );
}

#[test]
fn r740xd_corpus_capture_with_slot1_on_stack_3a_is_riser_1b() {
    // BB55A2E30656 has Slot 1 on root port 3a:00.0 (CPU1 stack 2, x8): Riser 1B's Slot 1,
    // not Riser 1A's (x16 on stack 5d, the base slot), which the same evidence contradicts.
    let m = capture(
        "corpus/r740xd/dell-r740xd-alma87-BB55A2E30656.lspci-vvnn.txt",
        "r740xd",
    );
    assert_eq!(
        options(&m),
        vec![
            ("front", Some("24-sas"), false),
            ("riser1", Some("1B"), true)
        ]
    );
    assert_eq!(
        slots(&m),
        vec![(1, "0000:3a:00.0", Some("slot1"), PlaceStatus::Ok)]
    );
    let riser = |v: &str| {
        m.options[1]
            .choices
            .iter()
            .find(|c| c.value == v)
            .map(|c| (c.matched, c.contradicted))
    };
    assert_eq!(riser("1A"), Some((0, 1)));
    assert_eq!(riser("1B"), Some((1, 0)));
    // Slot 1 and the three stacks' NUMA nodes.
    assert_eq!((m.matched, m.total), (4, 4));
    assert!(codes(&m).is_empty(), "{:?}", m.findings);
    assert!(m.contradictions.is_empty());
}

#[test]
fn riser_1b_is_a_host_variant_that_show_and_check_take_when_named() {
    // Named, Riser 1B moves Slot 1 to stack 2 (x8 in an x16 connector); the default keeps
    // the base Slot 1 on stack 3.
    let show = |opt: Option<&str>| {
        let mut c = crate::common::laneplan();
        c.args(["show", "r740xd", "--ascii"]);
        if let Some(o) = opt {
            c.args(["--option", o]);
        }
        let (code, out, err) = crate::common::run(&mut c);
        assert_eq!(code, 0, "{err}");
        out
    };
    let stack_of_slot1 = |out: &str| {
        let lines: Vec<&str> = out.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.contains("Slot 1 ["))
            .expect("Slot 1 drawn");
        let stack = lines[..i]
            .iter()
            .rev()
            .find(|l| l.contains("PCIe stack"))
            .unwrap()
            .to_string();
        (
            stack,
            lines[i]
                .trim_start_matches(['|', ' ', '+', '-', '`'])
                .to_string(),
        )
    };
    let (stack, slot) = stack_of_slot1(&show(Some("riser1=1B")));
    assert!(stack.contains("CPU1 PCIe stack 2 (bus 3a)"), "{stack}");
    assert!(
        slot.starts_with("Slot 1 [x8 in x16 connector Gen3, Riser 1B]"),
        "{slot}"
    );
    let (stack, slot) = stack_of_slot1(&show(None));
    assert!(stack.contains("CPU1 PCIe stack 3 (bus 5d)"), "{stack}");
    assert!(slot.starts_with("Slot 1 [x16 Gen3, Riser 1A]"), "{slot}");
}

#[test]
fn r740xd_captures_without_slot_numbers_keep_the_defaults() {
    for rel in [
        "corpus/r740xd/dell-r740xd-ubuntu2004-952A49F90697.lspci-vvnn.txt",
        "shared/lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt",
    ] {
        let m = capture(rel, "r740xd");
        assert_eq!(
            options(&m),
            vec![
                ("front", Some("24-sas"), false),
                ("riser1", Some("1A"), false)
            ],
            "{rel}"
        );
        assert!(slots(&m).is_empty(), "{rel}");
        // The NUMA nodes of the three stacks with functions below them.
        assert_eq!((m.matched, m.total), (3, 3), "{rel}");
        assert!(codes(&m).is_empty(), "{rel}: {:?}", m.findings);
    }
}

#[test]
fn r7425_shared_capture_places_slots_1_and_3() {
    let m = capture(
        "shared/lspci-r7425/dell-r7425-ubuntu2404-1C2794FDE243.lspci-vvnn.txt",
        "r7425",
    );
    use PlaceStatus::Ok;
    assert_eq!(
        slots(&m),
        vec![
            (1, "0000:40:03.1", Some("slot1"), Ok),
            (3, "0000:60:03.1", Some("slot3"), Ok),
        ]
    );
    assert_eq!((m.matched, m.total), (5, 5));
    assert!(codes(&m).is_empty(), "{:?}", m.findings);
}

#[test]
fn a_slot_the_platform_lacks_names_the_platform_file() {
    // The R740xd capture with Slot 1 on 3a:00.0 held against the R7515, which has a
    // Slot 1 on another port: a contradiction located in platforms/r7515.toml.
    let m = capture(
        "corpus/r740xd/dell-r740xd-alma87-BB55A2E30656.lspci-vvnn.txt",
        "r7515",
    );
    assert_eq!(
        slots(&m),
        vec![(1, "0000:3a:00.0", Some("slot1"), PlaceStatus::Contradicted)]
    );
    let c = m
        .contradictions
        .iter()
        .find(|c| c.code == "LP0351")
        .expect("LP0351");
    assert_eq!(c.host.bdf, "0000:3a:00.0");
    assert_eq!(c.host.width, Some(8));
    assert_eq!(c.platform[0].id, "slot1");
    assert_eq!(c.platform[0].file, "platforms/r7515.toml");
    assert_eq!(c.platform[0].locator, vec!["0000:00:03.1", "0000:00:03.2"]);
    let f = m.findings.iter().find(|f| f.code == "LP0351").unwrap();
    assert_eq!(f.location.file.as_deref(), Some("platforms/r7515.toml"));
}

#[test]
fn place_searches_a_riser_only_when_named_and_bays_take_the_matched_riser() {
    // Named: place plans with it (one option set, as without the option).
    let (code, out, err) = crate::common::run(crate::common::laneplan().args([
        "place",
        "r740xd",
        "--part",
        "intel-x710-da2=1",
        "--option",
        "riser1=1B",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Search: 1 option set(s),"), "{out}");
    assert!(out.contains("  options  front=24-sas riser1=1B\n"), "{out}");
    // --any-option does not search it: the four fronts, no riser.
    let (_, out, _) = crate::common::run(crate::common::laneplan().args([
        "place",
        "r740xd",
        "--part",
        "intel-x710-da2=1",
        "--any-option",
    ]));
    assert!(out.contains("Search: 4 option set(s),"), "{out}");
    assert!(!out.contains("riser1"), "{out}");
    // bays of the BB55A2E30656 capture: the riser it matched.
    let f = crate::common::fixtures()
        .join("corpus/r740xd/dell-r740xd-alma87-BB55A2E30656.lspci-vvnn.txt");
    let (_, out, _) = crate::common::run(
        crate::common::laneplan()
            .args(["bays", "r740xd", "--lspci"])
            .arg(&f),
    );
    assert!(
        out.starts_with("Dell EMC PowerEdge R740xd (front=24-sas, riser1=1B)\n"),
        "{out}"
    );
}

#[test]
fn audit_cli_names_the_variant_in_text_and_json() {
    let f = crate::common::fixtures()
        .join("corpus/r740xd/dell-r740xd-alma87-BB55A2E30656.lspci-vvnn.txt");
    let out = crate::common::laneplan()
        .args(["audit", "--platform", "r740xd", "--lspci"])
        .arg(&f)
        .arg("--json")
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["variant"]["platform"], "r740xd");
    assert_eq!(j["variant"]["options"][1]["key"], "riser1");
    assert_eq!(j["variant"]["options"][1]["value"], "1B");
    assert_eq!(j["variant"]["contradictions"], serde_json::json!([]));
    // Named, not picked: the lspci dump has no DMI product name.
    assert!(j["variant"].get("picked").is_none());
    assert_eq!(j["variant"]["places"][0]["bdf"], "0000:3a:00.0");
    assert_eq!(j["variant"]["places"][0]["by"], "physical-slot-on-port");
    assert_eq!(j["variant"]["places"][0]["status"], "ok");
    let out = crate::common::laneplan()
        .args(["audit", "--platform", "r740xd", "--lspci"])
        .arg(&f)
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("Platform r740xd: front=24-sas (default, no evidence), riser1=1B, matched by 4 of 4 slots, ports and NUMA nodes"),
        "{s}"
    );
    assert!(
        s.contains("physical slot 1 at 0000:3a:00.0 (Physical Slot on the port): = slot1"),
        "{s}"
    );
}

#[test]
fn audit_cli_carries_both_sides_of_a_contradiction_in_json() {
    // The R7425 EEF1E1F22650 reports Slot 2 on 60:03.3 (die 3, x8, NUMA node 3); the
    // platform's inferred Slot 2 is x16 on die 4 (80:03.1).
    let f = crate::common::fixtures()
        .join("corpus/r7425/dell-r7425-opensuse151-EEF1E1F22650.lspci-vvnn.txt");
    let out = crate::common::laneplan()
        .args(["audit", "--platform", "r7425", "--json", "--lspci"])
        .arg(&f)
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &j["variant"]["contradictions"][0];
    assert_eq!(c["code"], "LP0351");
    assert_eq!(c["host"]["bdf"], "0000:60:03.3");
    assert_eq!(c["host"]["slot_number"], 2);
    assert_eq!(c["host"]["width"], 8);
    assert_eq!(c["host"]["numa_node"], 3);
    assert_eq!(c["platform"][0]["id"], "slot2");
    assert_eq!(c["platform"][0]["root_complex"], "die4");
    assert_eq!(
        c["platform"][0]["locator"],
        serde_json::json!(["0000:80:03.1"])
    );
    assert_eq!(c["platform"][0]["width"], 16);
    assert_eq!(c["platform"][0]["file"], "platforms/r7425.toml");
    assert_eq!(
        c["platform"][0]["line"],
        line_of("r7425", "id = \"slot2\"", "root_complex = \"die4\"")
    );
}

#[test]
fn an_unknown_platform_is_a_usage_error() {
    let f = crate::common::lspci_dump("r7515");
    let out = crate::common::laneplan()
        .args(["audit", "--platform", "r7516", "--lspci"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown platform `r7516`"));
}

// ---------------------------------------------------------------- cards by physical slot

fn against_bb55(part: &str) -> laneplan::against::Diff {
    let path = crate::common::fixtures()
        .join("corpus/r740xd/dell-r740xd-alma87-BB55A2E30656.lspci-vvnn.txt");
    let a = host::audit_lspci_file(&path, AuditOptions::default()).unwrap();
    let catalog = Catalog::builtin().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let build = dir.path().join("b.toml");
    std::fs::write(
        &build,
        format!("platform = \"r740xd\"\n[[slot]]\nslot = \"slot1\"\npart = \"{part}\"\n"),
    )
    .unwrap();
    let report = laneplan::plan::check_build_file(&catalog, &build).unwrap();
    laneplan::against::diff_in(&report.plan, &a, Some(&catalog))
}

#[test]
fn a_card_in_a_planned_physical_slot_on_another_root_port_is_that_slots() {
    use laneplan::against::{DiffStatus, MatchMethod};
    // The platform's Slot 1 is on stack 5d; the host's Physical Slot 1 is 3a:00.0. The
    // ConnectX-5 there (15b3:1017) is Slot 1's card, matched by physical slot; its x16 link
    // at x8 on an x8 root port is not a downtrain (the platform's width is what is wrong:
    // LP0351 in the variant match).
    let d = against_bb55("mellanox-cx5-100g");
    let e = d.entries.iter().find(|e| e.place == "Slot 1").unwrap();
    assert_eq!(e.status, DiffStatus::Ok, "{:?}", e.problems);
    assert_eq!(e.method, MatchMethod::PhysicalSlot);
    assert_eq!(as_text(&e.bdf).as_deref(), Some("0000:3b:00.0"));
    assert!(!d.entries.iter().any(|e| e.status == DiffStatus::Unexpected
        && as_text(&e.bdf).as_deref() == Some("0000:3b:00.0")));
    assert_eq!(d.found_count(), (1, 1));
}

#[test]
fn a_wrong_part_in_a_planned_physical_slot_is_never_unexpected_nor_found() {
    use laneplan::against::{DiffStatus, MatchMethod};
    let d = against_bb55("mellanox-cx4lx-25g");
    let e = d.entries.iter().find(|e| e.place == "Slot 1").unwrap();
    assert_eq!(e.status, DiffStatus::WrongPart);
    assert_eq!(e.method, MatchMethod::PhysicalSlot);
    assert_eq!(as_text(&e.bdf).as_deref(), Some("0000:3b:00.0"));
    assert!(!d.entries.iter().any(|e| e.status == DiffStatus::Unexpected
        && as_text(&e.bdf).as_deref() == Some("0000:3b:00.0")));
    assert_eq!(d.found_count(), (0, 1));
}

/// A capture, its slots (number, port, place, status) and (matched, total).
type Case<'a> = (
    &'a str,
    Vec<(u32, &'a str, Option<&'a str>, PlaceStatus)>,
    (usize, usize),
);

#[test]
fn r7515_corpus_captures_place_every_physical_slot() {
    use PlaceStatus::Ok;
    let cases: [Case; 3] = [
        (
            "corpus/r7515/dell-r7515-ubuntu2204-723F15A8AB49.lspci-vvnn.txt",
            vec![
                (1, "0000:00:03.1", Some("slot1"), Ok),
                (1, "0000:00:03.2", Some("mini-perc"), Ok),
                (2, "0000:80:03.0", Some("slot2"), Ok),
                (3, "0000:c0:01.0", Some("slot3"), Ok),
                (4, "0000:40:01.0", Some("slot4"), Ok),
                (5, "0000:00:01.1", Some("slot5"), Ok),
            ],
            (6, 6),
        ),
        (
            // Cards in Slots 3 and 4: their root ports c0:01.1 and 40:01.1, x16.
            "corpus/r7515/dell-r7515-ubuntu2004-9A7A286BD3E1.lspci-vvnn.txt",
            vec![
                (1, "0000:00:03.2", Some("mini-perc"), Ok),
                (2, "0000:80:03.0", Some("slot2"), Ok),
                (3, "0000:c0:01.1", Some("slot3"), Ok),
                (4, "0000:40:01.1", Some("slot4"), Ok),
                (5, "0000:00:01.1", Some("slot5"), Ok),
            ],
            (5, 5),
        ),
        (
            "corpus/r7515/dell-r7515-fedora39-8E207635BBF5.lspci-vvnn.txt",
            vec![
                (1, "0000:00:03.2", Some("mini-perc"), Ok),
                (2, "0000:80:03.0", Some("slot2"), Ok),
                (3, "0000:c0:01.0", Some("slot3"), Ok),
                (4, "0000:40:01.0", Some("slot4"), Ok),
                (5, "0000:00:01.0", Some("slot5"), Ok),
            ],
            (5, 5),
        ),
    ];
    for (rel, want, counts) in cases {
        let m = capture(rel, "r7515");
        assert_eq!(slots(&m), want, "{rel}");
        assert_eq!((m.matched, m.total), counts, "{rel}");
        // No front bay port in these captures: the default front, without evidence.
        assert_eq!(options(&m), vec![("front", Some("24nvme"), false)], "{rel}");
        assert!(codes(&m).is_empty(), "{rel}: {:?}", m.findings);
    }
}

#[test]
fn bays_of_a_capture_take_the_matched_variant() {
    let f = crate::common::fixtures()
        .join("corpus/r7525/dell-r7525-ubuntu2004-6B51CAA01B7C.lspci-vvnn.txt");
    let out = crate::common::laneplan()
        .args(["bays", "r7525", "--lspci"])
        .arg(&f)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.starts_with("Dell EMC PowerEdge R7525 (front=8nvme, nps=nps1)"),
        "{s}"
    );
    // A named option wins over the match.
    let out = crate::common::laneplan()
        .args(["bays", "r7525", "-O", "nps=nps4", "--lspci"])
        .arg(&f)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.starts_with("Dell EMC PowerEdge R7525 (front=8nvme, nps=nps4)"),
        "{s}"
    );
}

#[test]
fn a_sysfs_tree_with_extender_cards_is_the_12nvme_front() {
    // Our own sysfs tree (tests/fixtures/sysfs/r740xd-12nvme, generated: see generate.py):
    // drives behind the extender cards in Slots 1, 4 and 8, the kernel's slot names on them.
    let root = crate::common::fixtures().join("sysfs/r740xd-12nvme");
    let a = host::audit_sysfs(&root, None, AuditOptions::default());
    let catalog = Catalog::builtin().unwrap();
    let m = variant::match_platform(catalog.platform("r740xd").unwrap(), &a);
    // Slot 1 on stack 5d: Riser 1A (Riser 1B's Slot 1 is on 3a:00.0).
    assert_eq!(
        options(&m),
        vec![
            ("front", Some("12nvme-12sas"), true),
            ("riser1", Some("1A"), true)
        ]
    );
    use PlaceStatus::Ok;
    assert_eq!(
        slots(&m),
        vec![
            (1, "0000:5d:00.0", Some("slot1"), Ok),
            (2, "0000:17:00.0", Some("slot2"), Ok),
            (4, "0000:ae:00.0", Some("slot4"), Ok),
            (8, "0000:d7:00.0", Some("slot8"), Ok),
        ]
    );
    assert_eq!(
        m.summary(),
        "r740xd: front=12nvme-12sas, riser1=1A, matched by 9 of 9 slots, ports and NUMA nodes"
    );
    let choice = |v: &str| {
        m.options[0]
            .choices
            .iter()
            .find(|c| c.value == v)
            .map(|c| (c.matched, c.contradicted))
    };
    // The 11 drives behind the three extender cards (slot names 1, 1-2 .. 1-4, 4 .. 4-4,
    // 8 .. 8-3).
    assert_eq!(choice("12nvme-12sas"), Some((11, 0)));
    assert_eq!(choice("24-sas"), Some((0, 0)));
}

// ---------------------------------------------------------------- every capture, one table

#[test]
fn r7425_corpus_capture_has_slot2_on_die3_at_x8_where_the_platform_infers_die4() {
    // EEF1E1F22650 (PERC H740P Adapter; slot numbers in Slot Capabilities only): Slot 3 on
    // 60:03.1 and Slot 2 on 60:03.3, the two x8 halves of die 3's x16 group; the platform's
    // Slot 2 is inferred x16 on die 4. And a BCM5720 LOM below 00:01.4 that no root
    // complex of the platform locates.
    let m = capture(
        "corpus/r7425/dell-r7425-opensuse151-EEF1E1F22650.lspci-vvnn.txt",
        "r7425",
    );
    use PlaceStatus::{Contradicted, Ok};
    assert_eq!(
        slots(&m),
        vec![
            (1, "0000:40:03.1", Some("slot1"), Ok),
            (2, "0000:60:03.3", Some("slot2"), Contradicted),
            (3, "0000:60:03.1", Some("slot3"), Ok),
        ]
    );
    assert_eq!(codes(&m), vec!["LP0351", "LP0353"]);
    let slot2 = &m.contradictions[0];
    assert_eq!(
        (
            slot2.host.slot_number,
            slot2.host.width,
            slot2.host.numa_node
        ),
        (Some(2), Some(8), Some(3))
    );
    let lom = &m.contradictions[1];
    assert_eq!(lom.host.bdf, "0000:04:00.0");
    assert_eq!(lom.host.width, Some(2));
    assert!(lom.platform.is_empty());
    let f = &m.findings[1];
    assert_eq!(f.location.file.as_deref(), Some("platforms/r7425.toml"));
    assert!(
        f.message.contains("below root port 0000:00:01.4"),
        "{}",
        f.message
    );
}

#[test]
fn r7525_corpus_centos_capture_is_nps1_with_two_unmodelled_broadcom_ports() {
    // FFBAD7145460 (CentOS 7.8): Slots 2 and 7 by the host bridges of their hidden ports,
    // NPS1; a BCM5720 on 64:00.0 below 60:03.2 and the LOM board on e1:00.0 below e0:05.1,
    // neither with a physical slot, where the platform has no built-in; the PERC H745 Front
    // where the 8nvme front's cables would be.
    let m = capture(
        "corpus/r7525/dell-r7525-centos78-FFBAD7145460.lspci-vvnn.txt",
        "r7525",
    );
    assert_eq!(
        options(&m),
        vec![("front", None, false), ("nps", Some("nps1"), true)]
    );
    use PlaceStatus::Ok;
    assert_eq!(
        slots(&m),
        vec![
            (2, "0000:20:03.0", Some("slot2"), Ok),
            (7, "0000:e0:03.0", Some("slot7"), Ok),
        ]
    );
    assert_eq!(codes(&m), vec!["LP0353", "LP0353", "LP0354"]);
    let hosts: Vec<(&str, Option<u8>)> = m
        .contradictions
        .iter()
        .map(|c| (c.host.bdf.as_str(), c.host.width))
        .collect();
    assert_eq!(
        hosts,
        vec![("0000:64:00.0", Some(2)), ("0000:e1:00.0", Some(2))]
    );
    assert_eq!(
        m.findings[2].location.line,
        Some(line_of("r7525", "[[option]]", "key = \"front\""))
    );
}

/// (capture, platform, summary, contradictions (code, host bdf), LP035x finding codes).
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
);

/// Every lspci capture of a model with a built-in platform, as the audit holds it against
/// that platform. A capture added under tests/fixtures/corpus/<model>/ fails
/// `every_capture_of_a_builtin_platform_is_in_the_table` until it has a row here.
const CAPTURES: &[Row] = &[
    (
        "shared/lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt",
        "r740xd",
        "r740xd: front=24-sas (default, no evidence), riser1=1A (default, no evidence), matched by 3 of 3 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "shared/lspci-r7425/dell-r7425-ubuntu2404-1C2794FDE243.lspci-vvnn.txt",
        "r7425",
        "r7425: front=24-sas (default, no evidence), matched by 5 of 5 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "shared/lspci-r7515/dell-r7515-ubuntu2004-510A7BE2AFDD.lspci-vvnn.txt",
        "r7515",
        "r7515: front=24nvme, matched by 35 of 35 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "shared/lspci-r7525/dell-r7525-debian11-23F136DC785E.lspci-vvnn.txt",
        "r7525",
        "r7525: front=8nvme, nps=nps4, matched by 18 of 18 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "corpus/r740xd/dell-r740xd-alma87-BB55A2E30656.lspci-vvnn.txt",
        "r740xd",
        "r740xd: front=24-sas (default, no evidence), riser1=1B, matched by 4 of 4 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "corpus/r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt",
        "r740xd",
        "r740xd: front=24-sas (default, no evidence), riser1=1A (default, no evidence), matched by 3 of 3 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "corpus/r740xd/dell-r740xd-ubuntu2004-952A49F90697.lspci-vvnn.txt",
        "r740xd",
        "r740xd: front=24-sas (default, no evidence), riser1=1A (default, no evidence), matched by 3 of 3 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "corpus/r7425/dell-r7425-ubuntu2404-1C2794FDE243.lspci-vvnn.txt",
        "r7425",
        "r7425: front=24-sas (default, no evidence), matched by 5 of 5 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "corpus/r7425/dell-r7425-opensuse151-EEF1E1F22650.lspci-vvnn.txt",
        "r7425",
        "r7425: front=24-sas (default, no evidence), matched by 5 of 7 slots, ports and NUMA nodes",
        &[("LP0351", "0000:60:03.3"), ("LP0353", "0000:04:00.0")],
        &["LP0351", "LP0353"],
    ),
    (
        "corpus/r7515/dell-r7515-fedora39-8E207635BBF5.lspci-vvnn.txt",
        "r7515",
        "r7515: front=24nvme (default, no evidence), matched by 5 of 5 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "corpus/r7515/dell-r7515-ubuntu2004-9A7A286BD3E1.lspci-vvnn.txt",
        "r7515",
        "r7515: front=24nvme (default, no evidence), matched by 5 of 5 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "corpus/r7515/dell-r7515-ubuntu2204-723F15A8AB49.lspci-vvnn.txt",
        "r7515",
        "r7515: front=24nvme (default, no evidence), matched by 6 of 6 slots, ports and NUMA nodes",
        &[],
        &[],
    ),
    (
        "corpus/r7525/dell-r7525-centos78-FFBAD7145460.lspci-vvnn.txt",
        "r7525",
        "r7525: front: no value matches, nps=nps1, matched by 5 of 7 slots, ports and NUMA nodes",
        &[("LP0353", "0000:64:00.0"), ("LP0353", "0000:e1:00.0")],
        &["LP0353", "LP0353", "LP0354"],
    ),
    (
        "corpus/r7525/dell-r7525-ubuntu2004-6B51CAA01B7C.lspci-vvnn.txt",
        "r7525",
        "r7525: front: no value matches, nps=nps1, matched by 5 of 6 slots, ports and NUMA nodes",
        &[("LP0353", "0000:e1:00.0")],
        &["LP0353", "LP0354"],
    ),
];

/// Captures of near relatives, held against the built-in platform whose CPU-side wiring they
/// share: the R740 has the R740xd's system board (Dell's BOM names one "PowerEdge
/// R740/R740XD Motherboard") and its risers. Each row as in `CAPTURES`.
const RELATIVES: &[Row] = &[(
    "corpus/r740/dell-r740-debian12-102E11A0DB9A.lspci-vvnn.txt",
    "r740xd",
    "r740xd: front=24-sas (default, no evidence), riser1=1B, matched by 4 of 5 slots, ports and NUMA nodes",
    &[("LP0351", "0000:17:00.0")],
    &["LP0351"],
)];

#[test]
fn relatives_confirm_riser_1b_and_contradict_the_inferred_slot6() {
    // 102E11A0DB9A (R740): Physical Slot 1 on 3a:00.0 (Riser 1B's Slot 1 again) and
    // Physical Slot 6 on 17:00.0 (stack 1, x8) where the platform infers stack 2 (3a).
    for (rel, platform, summary, contradictions, finding_codes) in RELATIVES {
        let m = capture(rel, platform);
        assert_eq!(m.summary(), *summary, "{rel}");
        let got: Vec<(&str, &str)> = m
            .contradictions
            .iter()
            .map(|c| (c.code.as_str(), c.host.bdf.as_str()))
            .collect();
        assert_eq!(got, *contradictions, "{rel}");
        assert_eq!(codes(&m), *finding_codes, "{rel}");
    }
    let m = capture(RELATIVES[0].0, "r740xd");
    let slot6 = &m.contradictions[0];
    assert_eq!(slot6.host.slot_number, Some(6));
    assert_eq!(slot6.host.width, Some(8));
    assert_eq!(
        slot6.platform[0].root_complex.as_deref(),
        Some("cpu1.stack2")
    );
    assert_eq!(
        slot6.platform[0].line,
        line_of("r740xd", "id = \"slot6\"", "root_complex = \"cpu1.stack2\"")
    );
    // Every relative capture on disk has a row.
    let mut on_disk = Vec::new();
    dumps_below(&crate::common::fixtures().join("corpus/r740"), &mut on_disk);
    on_disk.sort();
    let mut listed: Vec<String> = RELATIVES
        .iter()
        .filter(|r| r.0.starts_with("corpus/r740/"))
        .map(|r| r.0.to_string())
        .collect();
    listed.sort();
    assert_eq!(listed, on_disk);
}

/// Every `*.lspci-vvnn.txt` below `dir`, relative to the fixtures directory.
fn dumps_below(dir: &std::path::Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            dumps_below(&p, out);
        } else if p.to_string_lossy().ends_with(".lspci-vvnn.txt") {
            let rel = p.strip_prefix(crate::common::fixtures()).unwrap();
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn every_capture_of_a_builtin_platform_is_in_the_table() {
    let catalog = Catalog::builtin().unwrap();
    let fx = crate::common::fixtures();
    let mut on_disk = Vec::new();
    // tests/fixtures/shared/lspci-<id>/ and tests/fixtures/corpus/<id>/ (and <id>/<host>/)
    // where <id> is a built-in platform.
    for (base, prefix) in [("shared", "lspci-"), ("corpus", "")] {
        for e in std::fs::read_dir(fx.join(base)).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if let Some(id) = name.strip_prefix(prefix)
                && catalog.platform(id).is_some()
            {
                dumps_below(&e.path(), &mut on_disk);
            }
        }
    }
    on_disk.sort();
    let mut listed: Vec<String> = CAPTURES.iter().map(|r| r.0.to_string()).collect();
    listed.sort();
    assert_eq!(listed, on_disk);
    // Each row's platform is the model directory's.
    for (rel, platform, ..) in CAPTURES {
        let dir = rel.split('/').nth(1).unwrap();
        assert_eq!(dir.trim_start_matches("lspci-"), *platform, "{rel}");
    }
}

#[test]
fn every_capture_names_its_variant_or_its_contradictions() {
    for (rel, platform, summary, contradictions, finding_codes) in CAPTURES {
        let m = capture(rel, platform);
        assert_eq!(m.summary(), *summary, "{rel}");
        let got: Vec<(&str, &str)> = m
            .contradictions
            .iter()
            .map(|c| (c.code.as_str(), c.host.bdf.as_str()))
            .collect();
        assert_eq!(got, *contradictions, "{rel}");
        assert_eq!(codes(&m), *finding_codes, "{rel}");
        // Every contradiction names the platform file, at a line of it.
        for f in &m.findings {
            assert_eq!(
                f.location.file.as_deref(),
                Some(format!("platforms/{platform}.toml").as_str()),
                "{rel}: {}",
                f.message
            );
            assert!(f.location.line.is_some_and(|l| l > 0), "{rel}");
        }
    }
}

#[test]
fn no_card_in_a_planned_physical_slot_is_unexpected_in_any_capture() {
    use laneplan::against::{DiffStatus, MatchMethod};
    let catalog = Catalog::builtin().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (rel, platform, ..) in CAPTURES {
        let path = crate::common::fixtures().join(rel);
        let a = host::audit_lspci_file(&path, AuditOptions::default()).unwrap();
        let m = variant::match_platform(catalog.platform(platform).unwrap(), &a);
        // Plan a card (an x4 low-profile NIC, the right part or not) in every standard slot
        // the host shows a card in, with the options the host matched.
        let def = &catalog.platform(platform).unwrap().def;
        let is_pcie = |id: &str| {
            def.slots
                .iter()
                .chain(
                    def.options
                        .iter()
                        .flat_map(|o| o.choices.iter().flat_map(|c| c.slots.iter())),
                )
                .any(|s| s.id.get_ref() == id && s.kind.get_ref().as_str() == "pcie")
        };
        let carded: Vec<(&str, String)> = m
            .places
            .iter()
            .filter(|p| p.status == PlaceStatus::Ok && p.host.device.is_some())
            .filter_map(|p| Some((p.place.as_deref()?, as_text(&p.host.device)?)))
            .filter(|(slot, _)| is_pcie(slot))
            .collect();
        let mut build = format!("platform = \"{platform}\"\n[options]\n");
        for (k, v) in m.chosen() {
            build.push_str(&format!("{k} = \"{v}\"\n"));
        }
        for (slot, _) in &carded {
            build.push_str(&format!(
                "[[slot]]\nslot = \"{slot}\"\npart = \"intel-i350-t4\"\n"
            ));
        }
        let file = dir.path().join(format!("{platform}.toml"));
        std::fs::write(&file, &build).unwrap();
        let report = laneplan::plan::check_build_file(&catalog, &file).unwrap();
        let d = laneplan::against::diff_in(&report.plan, &a, Some(&catalog));
        for (slot, device) in &carded {
            let e = d
                .entries
                .iter()
                .find(|e| e.slot.as_deref() == Some(slot) || e.place == slot_label(def, slot))
                .unwrap_or_else(|| panic!("{rel}: no entry for {slot}"));
            assert!(
                matches!(e.status, DiffStatus::Ok | DiffStatus::WrongPart),
                "{rel}: {slot}: {:?} {:?}",
                e.status,
                e.problems
            );
            assert_eq!(e.method, MatchMethod::PhysicalSlot, "{rel}: {slot}");
            assert_eq!(as_text(&e.bdf).as_deref(), Some(&**device), "{rel}: {slot}");
            assert!(
                !d.entries.iter().any(|x| x.status == DiffStatus::Unexpected
                    && as_text(&x.bdf).as_deref() == Some(&**device)),
                "{rel}: {device} in {slot} is also unexpected"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, CARDS_IN_NUMBERED_SLOTS);
}

/// The cards right below a numbered standard slot's port in the captures: R7425 1C2794FDE243
/// Slot 3 (SAS3008; twice, the shared capture and its corpus copy); R7515 510A7BE2AFDD Slots 1 and 5; R7525 23F136DC785E Slot 2 (Xilinx);
/// R740xd BB55A2E30656 Slot 1 (ConnectX-5); R7425 EEF1E1F22650 Slots 1 (BCM57416) and 3
/// (SAS3508); R7515 9A7A286BD3E1 Slots 3 (DeckLink), 4 (GT 710) and 5 (X550); R7515
/// 723F15A8AB49 Slots 1 (BCM57416) and 5 (Tesla T4). (A card behind a switch on its port,
/// the GRID K2 in 1C2794FDE243's Slot 1, is not counted: the port's child is the switch.)
const CARDS_IN_NUMBERED_SLOTS: usize = 13;

fn slot_label(def: &laneplan::platform::schema::PlatformFile, id: &str) -> String {
    def.slots
        .iter()
        .find(|s| s.id.get_ref() == id)
        .map(|s| s.label.clone())
        .unwrap_or_default()
}

// ---------------------------------------------------------------- the platform from DMI

/// The 1-based line of `dmi_names` in a platform file.
fn dmi_line(platform: &str) -> usize {
    let body = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("platforms/{platform}.toml")),
    )
    .unwrap();
    body.lines()
        .position(|l| l.starts_with("dmi_names"))
        .unwrap()
        + 1
}

fn audit_json(args: &[&str], root: &std::path::Path) -> (i32, serde_json::Value) {
    let mut c = crate::common::laneplan();
    c.arg("audit").args(args).arg(root).arg("--json");
    let (code, out, err) = crate::common::run(&mut c);
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}")),
    )
}

#[test]
fn audit_picks_the_platform_from_a_sysfs_trees_dmi_product_name() {
    for (tree, platform, product, summary) in [
        (
            "r740xd-12nvme",
            "r740xd",
            "PowerEdge R740xd",
            "Platform r740xd: front=12nvme-12sas, riser1=1A, matched by 9 of 9 slots, ports and NUMA nodes",
        ),
        (
            "r6525-gen3",
            "r6525",
            "PowerEdge R6525",
            "Platform r6525: chassis=10x2.5-nvme (default, no evidence), backplane=gen3 (default, no evidence), matched by 2 of 2 slots, ports and NUMA nodes",
        ),
    ] {
        let root = crate::common::fixtures().join("sysfs").join(tree);
        let (_, j) = audit_json(&["--sysfs-root"], &root);
        let picked = &j["variant"]["picked"];
        assert_eq!(picked["platform"], platform, "{tree}");
        assert_eq!(picked["by"], "dmi-product-name");
        assert_eq!(picked["product"], product);
        // These trees have no sys_vendor: the vendor is not asked for.
        assert!(picked.get("vendor").is_none(), "{tree}");
        assert_eq!(picked["file"], format!("platforms/{platform}.toml"));
        assert_eq!(picked["line"], dmi_line(platform));
        assert_eq!(j["variant"]["platform"], platform);
        let mut c = crate::common::laneplan();
        c.args(["audit", "--sysfs-root"])
            .arg(&root)
            .env("COLUMNS", "250");
        // The r740xd tree's own link and AER errors make its exit status 1; never 2.
        let (code, out, err) = crate::common::run(&mut c);
        assert_ne!(code, 2, "{err}");
        assert!(out.contains(summary), "{out}");
        let why = format!(
            "  picked from the DMI product name `{product}`, listed at platforms/{platform}.toml:{}\n",
            dmi_line(platform)
        );
        assert!(out.contains(&why), "{out}");
    }
}

#[test]
fn a_sys_vendor_the_platform_does_not_list_is_no_match() {
    let (_d, root) = crate::common::own_copy("r740xd-12nvme");
    let vendor = root.join("sys/class/dmi/id/sys_vendor");
    std::fs::write(&vendor, "Dell Inc.\n").unwrap();
    let (_, j) = audit_json(&["--sysfs-root"], &root);
    assert_eq!(j["vendor"], "Dell Inc.");
    assert_eq!(j["variant"]["picked"]["vendor"], "Dell Inc.");
    assert_eq!(j["variant"]["picked"]["platform"], "r740xd");
    std::fs::write(&vendor, "Another Vendor\n").unwrap();
    let (code, j) = audit_json(&["--sysfs-root"], &root);
    assert_ne!(code, 2);
    assert!(j.get("variant").is_none(), "{}", j["variant"]);
    let notes: Vec<&serde_json::Value> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "LP0355")
        .collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["severity"], "note");
    assert_eq!(
        notes[0]["message"],
        "the host reports DMI product name `PowerEdge R740xd` (vendor `Another Vendor`); r740xd lists the product under another vendor (`dmi_vendors`): no platform variant is matched"
    );
}

#[test]
fn a_real_sysfs_capture_of_an_unlisted_model_gets_a_note_not_a_guess() {
    // hwloc's 32em64t-2n8c+1mic sysfs capture: DMI `DCS8000Z`, vendor `Dell`.
    let (_d, root) =
        crate::common::unpack("hwloc-2n-nvme-slots/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2");
    let (code, j) = audit_json(&["--sysfs-root"], &root);
    assert_eq!(code, 0);
    assert_eq!(j["product"], "DCS8000Z");
    assert_eq!(j["vendor"], "Dell");
    assert!(j.get("variant").is_none());
    let msgs: Vec<&str> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "LP0355")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        msgs,
        vec![
            "the host reports DMI product name `DCS8000Z` (vendor `Dell`); no platform file lists it in `dmi_names`: no platform variant is matched"
        ]
    );
}

#[test]
fn redfish_model_and_manufacturer_are_the_dmi_facts() {
    // The public Redfish tower mockup's ComputerSystem: Model `3500`, Manufacturer `Contoso`.
    let dir = crate::common::fixtures().join("shared/redfish-public-tower");
    let (_, j) = audit_json(&["--redfish"], &dir);
    assert_eq!(j["product"], "3500");
    assert_eq!(j["vendor"], "Contoso");
    assert!(j.get("variant").is_none());
    assert!(j["findings"].as_array().unwrap().iter().any(|f| {
        f["code"] == "LP0355"
            && f["message"]
                .as_str()
                .unwrap()
                .contains("`3500` (vendor `Contoso`)")
    }));
}

#[test]
fn an_lspci_dump_has_no_product_name_and_no_note() {
    let f = crate::common::lspci_dump("r7515");
    let (code, j) = audit_json(&["--lspci"], &f);
    assert_eq!(code, 0);
    assert!(j.get("product").is_none());
    assert!(j.get("variant").is_none());
    assert!(
        !j["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "LP0355")
    );
}

#[test]
fn a_product_name_is_matched_whole_never_by_its_words() {
    let catalog = Catalog::builtin().unwrap();
    let mut a =
        host::audit_lspci_file(&crate::common::lspci_dump("r7515"), AuditOptions::default())
            .unwrap();
    let pick = |a: &laneplan::host::audit::Audit| match variant::pick(&catalog, a) {
        variant::Pick::Picked(p) => Some(p.platform),
        _ => None,
    };
    assert_eq!(pick(&a), None);
    assert_eq!(variant::pick(&catalog, &a), variant::Pick::NoProduct);
    a.product = Some("  poweredge r7515 ".into());
    assert_eq!(pick(&a).as_deref(), Some("r7515"));
    // A name holding a platform id as a word, or a neighbour's name, is no match.
    for other in ["Custom r7515 clone", "PowerEdge R7515xd", "PowerEdge R740"] {
        a.product = Some(other.into());
        assert_eq!(pick(&a), None, "{other}");
    }
    // The bays command takes the same pick: no platform, no guess.
    a.product = Some("Custom r7515 clone".into());
    assert_eq!(laneplan::variant::platform_of(&a, &catalog), None);
}

#[test]
fn hwloc_xml_dmi_product_and_vendor_are_the_dmi_facts() {
    // hwloc's 24em64t-2n6c2t-pci.xml: DMIProductName `ProLiant SL390s G7`, DMISysVendor `HP`.
    let f = crate::common::fixtures().join("shared/hwloc-xml/24em64t-2n6c2t-pci.xml");
    let (_, j) = audit_json(&["--hwloc-xml"], &f);
    assert_eq!(j["product"], "ProLiant SL390s G7");
    assert_eq!(j["vendor"], "HP");
    assert!(j.get("variant").is_none());
    let msgs: Vec<&str> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "LP0355")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        msgs,
        vec![
            "the host reports DMI product name `ProLiant SL390s G7` (vendor `HP`); no platform file lists it in `dmi_names`: no platform variant is matched"
        ]
    );
}
