//! Platforms held against real captures (#24): the variant a host matches, contradictions
//! as findings (LP0350-LP0369), cards by physical slot, and what is a platform function.

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
    let kind = |bdf: &str| a.function(bdf).map(|f| f.kind);
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
        .filter(|f| f.class.as_deref().is_some_and(|c| c.starts_with("0x0106")))
        .map(|f| (f.bdf.as_str(), f.kind))
        .collect();
    assert_eq!(
        sata,
        vec![
            ("0000:91:00.0", FnKind::Platform),
            ("0000:92:00.0", FnKind::Platform)
        ]
    );
}
