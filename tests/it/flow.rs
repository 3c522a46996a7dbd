//! Bandwidth analysis: hand-computed cases and the reviewed example builds.

use laneplan::flow::{self, Dir, FlowReport, Memory, Options, Workload, net::Hints};
use laneplan::pcie::{Gen, LinkRate, Model};
use laneplan::plan::{self, Report};
use laneplan::platform::Catalog;
use laneplan::synth::{ItemSpec, TreeSpec, from_spec};
use std::path::Path;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn item(parent: usize, switch: bool, g: u8, w: u8, gmax: u8, r: f64, wr: f64) -> ItemSpec {
    ItemSpec {
        parent,
        switch,
        generation: g,
        width: w,
        max_generation: gmax,
        read_gbs: r,
        write_gbs: wr,
    }
}

fn analyze(spec: &TreeSpec, opts: Options) -> (FlowReport, Vec<laneplan::finding::Finding>) {
    flow::analyze(&from_spec(spec), &opts, &Hints::default()).unwrap()
}

/// 12 drives of 3.5 GB/s behind one Gen3 x16 switch uplink.
fn twelve_behind_uplink() -> TreeSpec {
    let mut items = vec![item(0, true, 3, 16, 3, 0.0, 0.0)];
    // Attach points: 0 = socket 0, 1 = socket 1, 2 = the switch.
    for _ in 0..12 {
        items.push(item(2, false, 3, 4, 3, 3.5, 3.5));
    }
    TreeSpec {
        fabric_gbs: 20.8,
        items,
    }
}

#[test]
fn twelve_drives_share_one_gen3_x16_uplink() {
    let (r, found) = analyze(&twelve_behind_uplink(), Options::default());
    // Gen3 x16, direction-aware, to host: 16 x 8 / 8 = 16 GB/s line; 128/130 and SKIP 375/376:
    // 15.711948; MWr 256/280: 14.365209 GB/s. Each drive: 14.365209 / 12 = 1.197101.
    assert!(
        close(r.read.max_flow_gbs, 14.365209, 0.00001),
        "{}",
        r.read.max_flow_gbs
    );
    assert!(close(r.read.fair_gbs, 14.365209, 0.00001));
    // Ceiling: each drive offers its own link's 3.591302; the uplink still caps the sum.
    assert!(close(r.read.ceiling_gbs, 14.365209, 0.00001));
    assert!(close(r.read.expected_gbs, r.read.max_flow_gbs, 1e-12));
    for d in &r.devices {
        assert!(close(d.read.share_gbs, 14.365209 / 12.0, 0.00001));
        assert_eq!(d.read.share_limited_by.kind, "switch-uplink");
        // Alone, each drive gets its spec: 3.5 is below its Gen3 x4 link's 3.591302,
        // which is its ceiling.
        assert!(close(d.read.alone_gbs, 3.5, 1e-9));
        assert!(d.read.capped_by.is_device());
        assert!(close(d.read.ceiling_gbs, 3.591302, 0.000001));
        assert_eq!(d.read.ceiling_by.kind, "link");
    }
    // Host to device: per 512 B request 2 x (256 + 20) = 552 B, ACK + UpdateFC 16 x 552/2688
    // (168 symbol times x 16 lanes): 15.711948 x 512/555.2857 = 14.487168 GB/s.
    assert!(
        close(r.write.max_flow_gbs, 14.487168, 0.00001),
        "{}",
        r.write.max_flow_gbs
    );
    assert!(close(
        r.devices[0].write.share_gbs,
        14.487168 / 12.0,
        0.00001
    ));
    // The uplink: demand 42 GB/s over 14.365209 = 2.924:1; 27.634791 GB/s lost.
    let up = r
        .elements
        .iter()
        .find(|e| e.element.kind == flow::net::ElementKind::SwitchUplink)
        .unwrap();
    assert!(close(up.read.ratio.unwrap(), 42.0 / 14.365209, 0.00001));
    assert!(close(up.read.lost_gbs, 42.0 - 14.365209, 0.00001));
    assert_eq!(up.read.ceiling_gbs, up.read.capacity_gbs);
    assert!(up.read.saturated && up.write.saturated);
    assert!(found.iter().any(|f| f.code == "LP0201"));
}

#[test]
fn a_gen4_drive_on_a_gen3_path_gets_the_gen3_x4_figure() {
    // A Gen4 drive (6.5 / 6.5) trained at Gen3 x4: 3.591302 to host, 3.576500 to device
    // (direction-aware; docs/bandwidth.md works both out by hand).
    let spec = TreeSpec {
        fabric_gbs: 20.8,
        items: vec![item(0, false, 3, 4, 4, 6.5, 6.5)],
    };
    let (r, found) = analyze(&spec, Options::default());
    let d = &r.devices[0];
    assert!(close(d.read.alone_gbs, 3.591302, 0.000001));
    assert!(close(d.write.alone_gbs, 3.576500, 0.000001));
    assert_eq!(d.read.capped_by.kind, "link");
    assert!(d.read.capped_by.label.contains("(max Gen4 x4)"));
    // The link sets both figures.
    assert!(close(d.read.ceiling_gbs, d.read.alone_gbs, 1e-12));
    let f = found.iter().find(|f| f.code == "LP0202").expect("LP0202");
    // 6.5 - 3.591302 = 2.908698 lost.
    assert!(f.message.contains("2.91 GB/s lost"), "{}", f.message);
    // Same drive at Gen4: its Gen4 x4 link carries 7.182605, above the spec: the drive is
    // the limit, the link the ceiling.
    let spec = TreeSpec {
        fabric_gbs: 20.8,
        items: vec![item(0, false, 4, 4, 4, 6.5, 6.5)],
    };
    let (r, _) = analyze(&spec, Options::default());
    assert!(close(r.devices[0].read.alone_gbs, 6.5, 1e-9));
    assert!(close(r.devices[0].read.ceiling_gbs, 7.182605, 0.000001));
    assert!(r.devices[0].read.capped_by.is_device());
}

#[test]
fn header_only_model_gives_3_6_for_gen3_x4() {
    let spec = TreeSpec {
        fabric_gbs: 20.8,
        items: vec![item(0, false, 3, 4, 4, 6.5, 6.5)],
    };
    let opts = Options {
        model: Model::HeaderOnly,
        ..Default::default()
    };
    let (r, _) = analyze(&spec, opts);
    // 3.93846 * 256/280 = 3.6009, both directions.
    assert!(close(r.devices[0].read.alone_gbs, 3.6009, 0.0005));
    assert!(close(r.devices[0].write.alone_gbs, 3.6009, 0.0005));
    assert!(close(LinkRate::new(Gen::G3, 4).raw_gbs(), 3.9385, 0.0005));
}

#[test]
fn remote_memory_crosses_the_fabric_and_fair_shares_are_max_min() {
    // Socket 1: three drives 4, 4, 1 GB/s on their own Gen4 x4 links; fabric 6 GB/s.
    // To socket 0's memory, water-filling: all rise to 1 (the small drive stops at its spec),
    // the others share the remaining 5: 2.5 each. Total 6 = the fabric.
    let spec = TreeSpec {
        fabric_gbs: 6.0,
        items: vec![
            item(1, false, 4, 4, 4, 4.0, 4.0),
            item(1, false, 4, 4, 4, 4.0, 4.0),
            item(1, false, 4, 4, 4, 1.0, 1.0),
        ],
    };
    let opts = Options {
        memory: Memory::Socket("CPU1".into()),
        ..Default::default()
    };
    let (r, found) = analyze(&spec, opts);
    assert!(close(r.read.max_flow_gbs, 6.0, 1e-5));
    let shares: Vec<f64> = r.devices.iter().map(|d| d.read.share_gbs).collect();
    assert!(close(shares[0], 2.5, 1e-9) && close(shares[1], 2.5, 1e-9));
    assert!(close(shares[2], 1.0, 1e-9));
    assert!(r.devices.iter().all(|d| d.crosses_sockets));
    assert_eq!(r.devices[0].read.share_limited_by.kind, "fabric");
    let f = found.iter().find(|f| f.code == "LP0203").expect("LP0203");
    assert_eq!(f.severity, laneplan::finding::Severity::Warning);
    assert!(found.iter().any(|f| f.code == "LP0205"));
    // Local memory: nothing crosses, every drive gets its spec.
    let (r, found) = analyze(&spec, Options::default());
    assert!(close(r.read.max_flow_gbs, 9.0, 1e-5));
    assert!(!found.iter().any(|f| f.code == "LP0203"));
    // A socket that does not exist is an error, not a guess.
    let bad = Options {
        memory: Memory::Socket("CPU6".into()),
        ..Default::default()
    };
    assert!(flow::analyze(&from_spec(&spec), &bad, &Hints::default()).is_err());
}

#[test]
fn small_block_workload_uses_iops_times_4k() {
    let (r, _) = analyze(
        &twelve_behind_uplink(),
        Options {
            workload: Workload::Rand4k,
            ..Default::default()
        },
    );
    // Synthetic drives: 1,000,000 x 4096 B = 4.096 GB/s read, 300,000 x 4096 = 1.2288 write.
    assert!(close(r.devices[0].read.spec_gbs, 4.096, 1e-9));
    assert!(close(r.devices[0].write.spec_gbs, 1.2288, 1e-9));
    // Writes: 12 x 1.2288 = 14.7456 > 14.487168 uplink: still capped.
    assert!(close(r.write.max_flow_gbs, 14.487168, 0.00001));
}

// ------------------------------------------------------------------ the reviewed builds

fn example(name: &str, opts: &Options) -> (Report, FlowReport) {
    let catalog = Catalog::builtin().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let mut report = plan::check_build_file(&catalog, &path).unwrap();
    let f = flow::attach(&mut report, opts).unwrap();
    (report, f)
}

#[test]
fn r740xd_micron_9300s_are_limited_by_the_drives() {
    let (report, f) = example("r740xd-12nvme-micron9300.toml", &Options::default());
    let nvme: Vec<_> = f
        .devices
        .iter()
        .filter(|d| d.label.starts_with("Micron 9300"))
        .collect();
    assert_eq!(nvme.len(), 12);
    for d in &nvme {
        // The drive (3.5 GB/s) is the limit, below its Gen3 x4 link's ceiling: 3.591302 to
        // host, 3.576500 to device (direction-aware, MPS 256).
        assert!(d.read.capped_by.is_device(), "{:?}", d.read.capped_by);
        assert!(d.write.capped_by.is_device());
        assert!(close(d.read.alone_gbs, 3.5, 1e-9));
        assert!(close(d.read.share_gbs, 3.5, 1e-9));
        assert!(close(d.read.ceiling_gbs, 3.591302, 0.000001));
        assert!(close(d.write.ceiling_gbs, 3.576500, 0.000001));
        assert_eq!(d.read.ceiling_by.kind, "link");
    }
    // No spec above its link any more for the Micron drives; the SAS SSDs' 2.1 GB/s (a
    // dual-port figure) is above their 12 Gb/s lane.
    assert!(
        !report
            .findings
            .iter()
            .any(|x| x.code == "LP0204" && x.message.contains("Micron 9300"))
    );
    assert!(
        report
            .findings
            .iter()
            .any(|x| x.code == "LP0204" && x.message.contains("Toshiba"))
    );
    // Ceilings, all at once: CPU1 4 x 3.591302 + the H740P's Gen3 x8 link 7.182605 (below
    // its 9.6 GB/s SAS side; its 6.8 GB/s spec is not a ceiling) = 21.547813; CPU2
    // 8 x 3.591302 = 28.730418; 50.278231 in all.
    assert!(
        close(f.read.ceiling_gbs, 50.278231, 0.00001),
        "{}",
        f.read.ceiling_gbs
    );
    assert!(close(f.read.expected_gbs, 48.8, 1e-4));
    // 12 SAS SSDs: each 2.1 GB/s read on a 1.2 GB/s SAS lane; together 14.4 over the
    // controller's 8 x 1.2 = 9.6 GB/s SAS side and its 6.8 GB/s spec: the controller caps.
    // Read all at once: CPU1 4 x 3.5 + 6.8 = 20.8; CPU2 8 x 3.5 = 28; 48.8 in all.
    assert!(
        close(f.read.max_flow_gbs, 48.8, 1e-4),
        "{}",
        f.read.max_flow_gbs
    );
    assert!(close(f.read.per_socket[0].gbs, 20.8, 1e-6));
    assert!(close(f.read.per_socket[1].gbs, 28.0, 1e-6));
    let sas = f
        .devices
        .iter()
        .find(|d| d.label.starts_with("Toshiba"))
        .unwrap();
    assert_eq!(sas.read.capped_by.kind, "storage-link");
    assert!(close(sas.read.share_gbs, 6.8 / 12.0, 1e-9));
    assert_eq!(sas.read.share_limited_by.kind, "transit");
}

#[test]
fn r7415_switched_is_capped_by_the_two_switch_uplinks() {
    let (report, f) = example("r7415-24nvme-switched.toml", &Options::default());
    assert_eq!(f.devices.len(), 24);
    for d in &f.devices {
        assert_eq!(d.read.share_limited_by.kind, "switch-uplink");
        assert!(d.read.share_limited_by.label.contains("PCIe switch"));
        assert!(close(d.read.share_gbs, 14.365209 / 12.0, 0.00001));
    }
    // Two Gen3 x16 uplinks: 2 x 14.365209 read, 2 x 14.487168 write.
    assert!(close(f.read.max_flow_gbs, 2.0 * 14.365209, 0.00002));
    assert!(close(f.write.max_flow_gbs, 2.0 * 14.487168, 0.00002));
    assert!(close(f.read.ceiling_gbs, 2.0 * 14.365209, 0.00002));
    let lp0201: Vec<_> = report
        .findings
        .iter()
        .filter(|x| x.code == "LP0201")
        .collect();
    assert_eq!(lp0201.len(), 2);
    assert!(lp0201[0].message.contains("PCIe switch A"));
    assert!(lp0201[1].message.contains("PCIe switch B"));
    // 12 x 3.3 = 39.6 GB/s of demand over 14.365209: 2.76:1.
    assert!(
        lp0201[0].message.contains("2.76:1"),
        "{}",
        lp0201[0].message
    );
    assert_eq!(f.read.bottlenecks.len(), 2);
}

#[test]
fn r6525_gen3_backplane_names_the_backplane_and_the_kit() {
    let (report, f) = example("r6525-pe8010-gen3-backplane.toml", &Options::default());
    assert_eq!(f.devices.len(), 4);
    for d in &f.devices {
        let c = &d.read.capped_by;
        assert_eq!(c.kind, "link");
        assert!(
            c.label.contains("Front NVMe backplane (Gen3)"),
            "{}",
            c.label
        );
        assert!(
            c.fix
                .as_deref()
                .unwrap()
                .contains("Gen4 backplane and cable kit")
        );
        assert!(close(d.read.alone_gbs, 3.591302, 0.000001));
    }
    let lp = report.findings.iter().find(|x| x.code == "LP0202").unwrap();
    assert!(lp.message.contains("bays 0-3"));
    assert!(lp.help.as_deref().unwrap().contains("backplane=gen4-kit"));
    // With the kit: Gen4 x4 end to end, the drives' spec: 4 x 6.5 = 26 read.
    let (_, f) = example("r6525-pe8010-gen4-kit.toml", &Options::default());
    assert!(f.devices.iter().all(|d| d.read.capped_by.is_device()));
    assert!(close(f.read.max_flow_gbs, 26.0, 1e-4));
}

#[test]
fn r740xd_to_one_socket_crosses_upi() {
    let opts = Options {
        memory: Memory::Socket("CPU1".into()),
        ..Default::default()
    };
    let (report, f) = example("r740xd-12nvme-micron9300.toml", &opts);
    // The 8 drives on CPU2 (28 GB/s) cross 2 UPI links (41.6 GB/s per direction): no loss.
    let crossing = f.devices.iter().filter(|d| d.crosses_sockets).count();
    assert_eq!(crossing, 8);
    assert!(close(f.read.max_flow_gbs, 48.8, 1e-4));
    let note = report.findings.iter().find(|x| x.code == "LP0203").unwrap();
    assert_eq!(note.severity, laneplan::finding::Severity::Note);
    assert!(
        note.message
            .starts_with("8 devices on CPU2 send their traffic to CPU1's memory")
    );
    assert_eq!(Dir::Read.name(), "read");
}
