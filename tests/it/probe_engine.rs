//! The probe engine on real targets: files in a temp dir and loop devices over them.

use crate::probe_common;

use laneplan::probe::engine::Bound;
use laneplan::probe::safety::SafetyChecker;
use laneplan::probe::target::ProbeTarget;
use laneplan::probe::workload::{Overrides, Trace, Workload};
use laneplan::probe::{EngineChoice, ProbeError, ProbeOptions, run};
use probe_common::{checksum, loop_device, random_file, zram_device};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn opts(profile: &str, o: Overrides, ios: u64) -> ProbeOptions {
    let mut p = ProbeOptions::new(Workload::from_profile(profile, &o).unwrap());
    p.bound = Bound::Ios(ios);
    p.ramp = Duration::ZERO;
    p.working_set = 1.0;
    p
}

fn qd(qd: u32, jobs: u32) -> Overrides {
    Overrides {
        qd: Some(qd),
        jobs: Some(jobs),
        ..Default::default()
    }
}

fn go(
    t: &std::path::Path,
    o: &ProbeOptions,
) -> Result<laneplan::probe::results::ProbeReport, ProbeError> {
    let stop = Arc::new(AtomicBool::new(false));
    run(
        &[ProbeTarget::from_path(t)],
        o,
        &SafetyChecker::default(),
        &stop,
        &|_| {},
    )
}

#[test]
fn exact_counts_on_a_file_both_engines() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 4 << 20);
    for (engine, q, jobs, n) in [
        (EngineChoice::IoUring, 16, 1, 1000),
        (EngineChoice::IoUring, 8, 3, 1001),
        (EngineChoice::Sync, 4, 2, 777),
        (EngineChoice::Auto, 1, 1, 300),
    ] {
        let mut o = opts("4k-randread", qd(q, jobs), n);
        o.engine = engine;
        let r = go(&f, &o).unwrap();
        let dev = &r.devices[0];
        assert_eq!(
            (dev.ios, dev.reads, dev.writes),
            (n, n, 0),
            "{engine:?} qd {q} jobs {jobs}"
        );
        assert_eq!(dev.bytes, n * 4096);
        assert_eq!(dev.errors, 0);
        let lat = dev.latency.unwrap();
        assert!(lat.p50_us > 0.0 && lat.p50_us <= lat.p99_us && lat.p99_us <= lat.max_us);
        assert!(dev.cpu_seconds.is_some());
    }
}

#[test]
fn read_probe_leaves_content_unchanged() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 2 << 20);
    let before = checksum(&f);
    for profile in ["4k-randread", "64k-seqread"] {
        let r = go(&f, &opts(profile, qd(8, 2), 500)).unwrap();
        assert_eq!(r.devices[0].ios, 500);
    }
    assert_eq!(checksum(&f), before);
}

#[test]
fn writes_need_write_flag_and_count_exactly() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 2 << 20);
    let before = checksum(&f);
    let o = opts("4k-randwrite", qd(8, 1), 400);
    match go(&f, &o) {
        Err(ProbeError::Refused(r)) => assert_eq!(r.code, "LP0401"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(checksum(&f), before, "refused run touched the file");
    let mut o = o;
    o.write_allowed = true;
    let r = go(&f, &o).unwrap();
    assert_eq!((r.devices[0].writes, r.devices[0].reads), (400, 0));
    assert_ne!(checksum(&f), before);
}

#[test]
fn mixed_workload_splits_reads_and_writes() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 4 << 20);
    let mut o = opts("sql-80-20", qd(16, 1), 2000);
    o.write_allowed = true;
    let r = go(&f, &o).unwrap();
    let dev = &r.devices[0];
    assert_eq!(dev.reads + dev.writes, 2000);
    assert!((1450..1750).contains(&dev.reads), "{}", dev.reads);
    assert!(dev.read_latency.is_some() && dev.write_latency.is_some());
}

#[test]
fn created_file_is_prefilled() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("new.img");
    let mut o = opts("4k-randread", qd(4, 1), 100);
    o.size = Some(1 << 20);
    o.working_set = 0.5;
    let r = go(&f, &o).unwrap();
    assert_eq!(r.devices[0].ios, 100);
    let data = std::fs::read(&f).unwrap();
    assert_eq!(data.len(), 1 << 20);
    assert!(data[..512 << 10].iter().filter(|&&b| b == 0).count() < 16 << 10);
    // Without --size a missing file is an input error.
    let missing = d.path().join("missing.img");
    assert!(matches!(
        go(&missing, &opts("4k-randread", qd(1, 1), 1)),
        Err(ProbeError::Target(_))
    ));
}

#[test]
fn rate_limit_paces_the_run() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 2 << 20);
    for engine in [EngineChoice::IoUring, EngineChoice::Sync] {
        let mut o = opts("4k-randread", qd(4, 1), 200);
        o.rate = Some(2000.0);
        o.engine = engine;
        let t0 = Instant::now();
        let r = go(&f, &o).unwrap();
        let el = t0.elapsed();
        assert_eq!(r.devices[0].ios, 200);
        assert!(el >= Duration::from_millis(95), "{engine:?} ran in {el:?}");
        // Never faster than the rate; a loaded machine may make it slower.
        assert!(
            (500.0..2100.0).contains(&r.devices[0].iops),
            "{}",
            r.devices[0].iops
        );
    }
}

#[test]
fn time_bound_is_kept() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 2 << 20);
    let mut o = opts("4k-randread", qd(16, 2), 0);
    o.bound = Bound::Time(Duration::from_millis(300));
    o.ramp = Duration::from_millis(100);
    let t0 = Instant::now();
    let r = go(&f, &o).unwrap();
    let el = t0.elapsed();
    assert!(el < Duration::from_millis(1500), "{el:?}");
    let dev = &r.devices[0];
    assert!(dev.ios > 0);
    assert!((0.29..0.5).contains(&dev.seconds), "{}", dev.seconds);
}

#[test]
fn stop_flag_reports_partial_results() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 1 << 20);
    let o = opts("4k-randread", qd(4, 1), 1_000_000_000);
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        s2.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let r = run(
        &[ProbeTarget::from_path(&f)],
        &o,
        &SafetyChecker::default(),
        &stop,
        &|_| {},
    )
    .unwrap();
    t.join().unwrap();
    assert!(r.interrupted);
    assert!(r.devices[0].ios > 0 && r.devices[0].ios < 1_000_000_000);
    assert!(r.findings.iter().any(|f| f.code == "LP0415"));
}

#[test]
fn ceiling_comparison_and_finding() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 1 << 20);
    let mut t = ProbeTarget::from_path(&f);
    t.ceiling_read_gbs = Some(1000.0);
    let stop = Arc::new(AtomicBool::new(false));
    let r = run(
        &[t],
        &opts("64k-seqread", qd(4, 1), 200),
        &SafetyChecker::default(),
        &stop,
        &|_| {},
    )
    .unwrap();
    let dev = &r.devices[0];
    assert_eq!(dev.ceiling_gbs, Some(1000.0));
    assert!(dev.ceiling_pct.unwrap() < 50.0);
    assert!(r.findings.iter().any(|f| f.code == "LP0412"));
}

#[test]
fn together_reports_each_and_total() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a.img"), d.path().join("b.img"));
    random_file(&a, 1 << 20);
    random_file(&b, 1 << 20);
    let mut o = opts("4k-randread", qd(4, 1), 300);
    o.together = true;
    let stop = Arc::new(AtomicBool::new(false));
    let r = run(
        &[ProbeTarget::from_path(&a), ProbeTarget::from_path(&b)],
        &o,
        &SafetyChecker::default(),
        &stop,
        &|_| {},
    )
    .unwrap();
    assert_eq!(r.mode, "together");
    assert_eq!(
        r.devices.iter().map(|d| d.ios).collect::<Vec<_>>(),
        vec![300, 300]
    );
    assert_eq!(r.total.as_ref().unwrap().ios, 600);
    assert!(r.devices[0].cpu_seconds.is_none() && r.total.unwrap().cpu_seconds.is_some());
}

#[test]
fn curve_sweeps_rates() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 1 << 20);
    let mut o = opts("4k-randread", qd(4, 1), 0);
    o.bound = Bound::Time(Duration::from_millis(60));
    o.curve = true;
    o.engine = EngineChoice::IoUring;
    let r = go(&f, &o).unwrap();
    let c = &r.curves[0];
    assert_eq!(c.points.len(), 13);
    assert_eq!(c.points[0].pct, None);
    let max = c.points[0].iops;
    let p50 = &c.points[5];
    assert_eq!(p50.pct, Some(50));
    assert!((p50.offered_iops.unwrap() - max / 2.0).abs() < 1.0);
}

#[test]
fn trace_replay_loops_over_the_trace() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 1 << 20);
    let trace = Trace::parse(
        "fio version 2 iolog\nx add\nx open\nx read 0 4096\nx read 65536 8192\nx read 131072 4096\nx close\n",
    )
    .unwrap();
    let mut o = opts("4k-randread", qd(2, 1), 7);
    o.workload.trace = Some(Arc::new(trace));
    let r = go(&f, &o).unwrap();
    assert_eq!(r.devices[0].ios, 7);
    // Two passes of 4k + 8k + 4k, then the first 4k again.
    assert_eq!(r.devices[0].bytes, 2 * 16384 + 4096);
}

#[test]
fn misaligned_block_size_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 1 << 20);
    let o = opts(
        "4k-randread",
        Overrides {
            bs: Some("100".into()),
            ..Default::default()
        },
        10,
    );
    let e = go(&f, &o).unwrap_err().to_string();
    assert!(e.contains("not a multiple"), "{e}");
}

// Loop devices (root; skipped with a message elsewhere unless LANEPLAN_REQUIRE_LOOP=1).

#[test]
fn loop_device_exact_counts_and_unchanged() {
    let Some(l) = loop_device("loop_device_exact_counts_and_unchanged", 8 << 20) else {
        return;
    };
    let before = checksum(&l.backing);
    for (engine, n) in [(EngineChoice::IoUring, 1500), (EngineChoice::Sync, 600)] {
        let mut o = opts("4k-randread", qd(16, 2), n);
        o.engine = engine;
        o.working_set = 0.25;
        let r = go(&l.dev, &o).unwrap();
        assert_eq!(r.devices[0].ios, n);
        assert_eq!(r.devices[0].errors, 0);
    }
    let r = go(&l.dev, &opts("64k-seqread", qd(4, 1), 100)).unwrap();
    assert_eq!(r.devices[0].bytes, 100 * 65536);
    assert_eq!(checksum(&l.backing), before);
}

#[test]
fn loop_device_writes_need_destroy_flag() {
    let Some(l) = loop_device("loop_device_writes_need_destroy_flag", 4 << 20) else {
        return;
    };
    let before = checksum(&l.backing);
    let mut o = opts("4k-randwrite", qd(4, 1), 200);
    for (write, destroy, code) in [
        (false, vec![], "LP0401"),
        (true, vec![], "LP0402"),
        (true, vec!["/dev/loop-not-this".to_string()], "LP0402"),
    ] {
        o.write_allowed = write;
        o.destroy_data_on = destroy;
        match go(&l.dev, &o) {
            Err(ProbeError::Refused(r)) => assert_eq!(r.code, code),
            other => panic!("expected {code}, got {other:?}"),
        }
    }
    assert_eq!(checksum(&l.backing), before, "a refused run wrote");
    o.destroy_data_on = vec![l.dev.display().to_string()];
    let r = go(&l.dev, &o).unwrap();
    assert_eq!(r.devices[0].writes, 200);
    assert_ne!(checksum(&l.backing), before);
}

// The auto engine: where io_uring punts every I/O to its worker threads (zram), threads
// calling pread run instead (LP0418); a blk-mq loop device and a file keep the ring.
#[test]
fn auto_engine_keeps_the_ring_on_loop_devices_and_files() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 4 << 20);
    let mut o = opts("4k-randread", qd(8, 1), 400);
    o.engine = EngineChoice::Auto;
    let r = go(&f, &o).unwrap();
    assert_eq!(
        r.workload.engine,
        laneplan::probe::engine::EngineKind::IoUring
    );
    assert!(r.findings.iter().all(|f| f.code != "LP0418"));
    let Some(l) = loop_device(
        "auto_engine_keeps_the_ring_on_loop_devices_and_files",
        4 << 20,
    ) else {
        return;
    };
    let file = std::sync::Arc::new(std::fs::File::open(&l.dev).unwrap());
    assert_eq!(
        laneplan::probe::engine::uring_punts(&file, 4096, 4096, 4 << 20),
        Some(false)
    );
    let r = go(&l.dev, &o).unwrap();
    assert_eq!(
        r.workload.engine,
        laneplan::probe::engine::EngineKind::IoUring
    );
    assert!(r.findings.iter().all(|f| f.code != "LP0418"));
    assert_eq!(r.devices[0].ios, 400);
}

#[test]
fn auto_engine_uses_threads_where_io_uring_punts() {
    let Some(z) = zram_device("auto_engine_uses_threads_where_io_uring_punts", 16 << 20) else {
        return;
    };
    let file = std::sync::Arc::new(std::fs::File::open(&z.dev).unwrap());
    assert_eq!(
        laneplan::probe::engine::uring_punts(&file, 4096, 4096, 16 << 20),
        Some(true)
    );
    let mut o = opts("4k-randread", qd(8, 1), 2000);
    o.engine = EngineChoice::Auto;
    let r = go(&z.dev, &o).unwrap();
    assert_eq!(r.workload.engine, laneplan::probe::engine::EngineKind::Sync);
    let note = r
        .findings
        .iter()
        .find(|f| f.code == "LP0418")
        .expect("LP0418");
    assert!(
        note.message.contains(&z.dev.display().to_string()),
        "{}",
        note.message
    );
    assert_eq!((r.devices[0].ios, r.devices[0].errors), (2000, 0));
    // Asked for by name, the ring runs all the same.
    o.engine = EngineChoice::IoUring;
    let r = go(&z.dev, &o).unwrap();
    assert_eq!(
        r.workload.engine,
        laneplan::probe::engine::EngineKind::IoUring
    );
    assert!(r.findings.iter().all(|f| f.code != "LP0418"));
}
