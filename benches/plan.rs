//! Planner benchmark (`cargo bench --bench plan`): build a generated platform
//! (`laneplan::synth::platform`: 4 sockets in a full mesh, cascaded switches) and run the
//! whole bandwidth analysis on it (capacities, ceilings alone, max-flow both directions,
//! fair shares, findings), for 1,000, 10,000 and 100,000 devices.
//!
//! Targets: 10,000 devices under 100 ms; 10x the devices costs at most 12x the time.
//! Prints the fastest of several runs per size and the peak RSS (VmHWM) at the end; exits
//! non-zero when a target is missed.

use laneplan::flow::{self, Options, net::Hints};
use laneplan::synth;
use std::time::{Duration, Instant};

fn run(n: usize) -> (Duration, Duration, usize) {
    let t0 = Instant::now();
    let topo = synth::platform(n);
    let t1 = Instant::now();
    let (report, findings) =
        flow::analyze(&topo, &Options::default(), &Hints::default()).expect("analysis");
    let t2 = Instant::now();
    assert_eq!(report.devices.len(), n);
    std::hint::black_box(&findings);
    (t1 - t0, t2 - t1, report.elements.len())
}

/// The fastest run: the machine is shared with other builds, and the minimum is the
/// estimate least disturbed by them.
fn fastest(v: Vec<Duration>) -> Duration {
    v.into_iter().min().unwrap_or_default()
}

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: keep it quick then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let sizes: &[usize] = if quick {
        &[1_000]
    } else {
        &[1_000, 10_000, 100_000]
    };
    let mut totals = Vec::new();
    for &n in sizes {
        let reps = if n >= 100_000 { 3 } else { 7 };
        let mut build = Vec::new();
        let mut analyze = Vec::new();
        let mut elements = 0;
        for _ in 0..reps {
            let (b, a, e) = run(n);
            build.push(b);
            analyze.push(a);
            elements = e;
        }
        let (b, a) = (fastest(build), fastest(analyze));
        println!(
            "{n:>7} devices ({elements} elements): build {:>8.2} ms, analysis {:>8.2} ms, total {:>8.2} ms",
            b.as_secs_f64() * 1e3,
            a.as_secs_f64() * 1e3,
            (a + b).as_secs_f64() * 1e3
        );
        totals.push((n, a + b));
    }
    let mut ok = true;
    for w in totals.windows(2) {
        let ratio = w[1].1.as_secs_f64() / w[0].1.as_secs_f64();
        println!(
            "{} -> {} devices: {ratio:.2}x the time (target <= 12x)",
            w[0].0, w[1].0
        );
        ok &= ratio <= 12.0;
    }
    if let Some((_, d)) = totals.iter().find(|(n, _)| *n == 10_000) {
        println!(
            "10,000 devices: {:.2} ms (target < 100 ms)",
            d.as_secs_f64() * 1e3
        );
        ok &= d.as_millis() < 100;
    }
    if let Some(kib) = peak_rss_kib() {
        println!("peak RSS (VmHWM): {:.1} MiB", kib as f64 / 1024.0);
    }
    if !ok {
        eprintln!("benchmark target missed");
        std::process::exit(1);
    }
}
