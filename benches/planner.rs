//! Planner growth benchmark (`cargo bench --bench planner`): generated platforms and builds
//! (`laneplan::synth::platform_toml`: 4 sockets, x16 root complexes, cascaded switches, 32
//! NVMe bays a root complex, every bay filled) of 1,000, 10,000 and 100,000 devices, each
//! run the way `laneplan check` runs it:
//!
//! * load  = the built-in catalogue and the generated platform file, parsed and validated;
//! * check = the build parsed, instantiated, its lanes budgeted and checked;
//! * flow  = the bandwidth analysis (ceilings, max-flow, fair shares, findings);
//! * text  = the human report `check` prints on a pipe (80 columns, ASCII): header, tree,
//!   lane budget, bandwidth table and aggregates, findings;
//! * json  = the `--json` document, for comparison.
//!
//! The sizes run interleaved (one run of each in turn, several rounds); medians per size and
//! the 1k -> 10k and 10k -> 100k ratios of the total (target: each <= 10x). Then the whole
//! CLI (`laneplan check BUILD --platform-dir DIR`, stdout piped) on a 16,384-bay build
//! (target: text output under 1 s), median of interleaved text and `--json` runs.
//!
//! Exits non-zero when a target is missed. Under `cargo test` (no `--bench`: a debug build)
//! one run at 1,000 devices and one CLI run on the 1,000-device build check that both work;
//! their figures are no measurement.

use laneplan::flow::{self, Options};
use laneplan::plan;
use laneplan::platform::Catalog;
use laneplan::render::{json, text};
use laneplan::source::SourceFile;
use laneplan::synth;
use laneplan::term;
use std::process::Command;
use std::time::{Duration, Instant};

/// mimalloc instead of glibc's malloc (the CLI's allocator; the bench uses the same, so it
/// measures what `laneplan check` runs).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The phases of one run, in order.
const PHASES: [&str; 5] = ["load", "check", "flow", "text", "json"];

/// One load + check + flow + text + json of a generated platform and build: the durations
/// of the phases and the bytes of text printed.
fn once(platform: &str, build: &str) -> ([Duration; 5], f64, usize) {
    let c0 = thread_cpu();
    let t0 = Instant::now();
    let mut catalog = Catalog::builtin().expect("catalogue");
    catalog
        .add_file(SourceFile::new("synthetic.toml", platform))
        .expect("generated platform is valid");
    let t1 = Instant::now();
    let file = SourceFile::new("synthetic-build.toml", build);
    let parsed = laneplan::source::parse_toml(&file).expect("generated build parses");
    let mut report = plan::check_build(&catalog, &parsed, file.clone()).expect("platform known");
    let t2 = Instant::now();
    let bw = flow::attach(&mut report, &Options::default()).expect("flow");
    let t3 = Instant::now();
    // What `check` prints on a pipe: no width limit, ASCII.
    let pipe = term::Term {
        width: None,
        ascii: true,
        color: term::Color::Never,
    };
    let out = text::check_report(&report, &bw, None, &file, true, &pipe);
    let t4 = Instant::now();
    let cpu = thread_cpu() - c0;
    let doc = json::report(&report, Some(("bandwidth", json::bandwidth(&bw))));
    let js = serde_json::to_string_pretty(&doc).expect("json");
    let t5 = Instant::now();
    assert!(
        !laneplan::finding::has_errors(&report.findings),
        "{:#?}",
        &report.findings[..report.findings.len().min(3)]
    );
    assert!(
        out.contains("\n0 errors, "),
        "{}",
        &out[..out.len().min(2000)]
    );
    std::hint::black_box(&js);
    (
        [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4],
        cpu,
        out.len(),
    )
}

/// CPU seconds this thread has run: steadier than wall time on a shared machine.
fn thread_cpu() -> f64 {
    // SAFETY: clock_gettime fills the timespec it is given.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// CPU seconds of all waited-for children so far (user + system).
fn child_cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The generated platform written below `root` (`root/platforms`, as `--platform-dir` reads
/// it: every file there is a platform or parts file) and the build beside it: their paths.
fn write_files(root: &std::path::Path, n: usize) -> (std::path::PathBuf, std::path::PathBuf) {
    let (p, b) = synth::platform_toml(n, 4);
    let dir = root.join("platforms");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("synthetic.toml"), p).unwrap();
    let build = root.join("build.toml");
    std::fs::write(&build, b).unwrap();
    (dir, build)
}

/// One whole-process `laneplan check` (stdout piped and counted): wall seconds, CPU seconds,
/// bytes.
fn cli(bin: &str, dir: &std::path::Path, build: &std::path::Path, json: bool) -> (f64, f64, usize) {
    let mut c = Command::new(bin);
    c.arg("check").arg(build).arg("--platform-dir").arg(dir);
    if json {
        c.arg("--json");
    }
    c.env_remove("COLUMNS");
    let c0 = child_cpu();
    let t = Instant::now();
    let out = c.output().expect("run laneplan");
    let secs = t.elapsed().as_secs_f64();
    let cpu = child_cpu() - c0;
    assert!(
        out.status.success(),
        "{c:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.stdout.is_empty());
    (secs, cpu, out.stdout.len())
}

fn main() {
    // LANEPLAN_BENCH_WRITE=DIR: only write a generated platform (DIR/platforms) and build
    // (DIR/build.toml) there, for profiling `laneplan check` on them; LANEPLAN_BENCH_BAYS:
    // its size (16,384 unless told).
    if let Ok(keep) = std::env::var("LANEPLAN_BENCH_WRITE") {
        let n = std::env::var("LANEPLAN_BENCH_BAYS")
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(16_384);
        let (p, b) = write_files(std::path::Path::new(&keep), n);
        println!("wrote {} and {}", p.display(), b.display());
        return;
    }
    let quick = !std::env::args().any(|a| a == "--bench");
    let bin = env!("CARGO_BIN_EXE_laneplan");
    let dir = tempfile::tempdir().unwrap();
    if quick {
        let (p, b) = synth::platform_toml(1_000, 4);
        let (d, _, bytes) = once(&p, &b);
        println!(
            "quick (debug build under cargo test: no measurement; run `cargo bench --bench planner`): 1,000 devices {d:?}, {bytes} bytes of text"
        );
        let (platforms, build) = write_files(dir.path(), 1_000);
        let (secs, _, bytes) = cli(bin, &platforms, &build, false);
        println!("quick: laneplan check, 1,000 bays: {secs:.3} s, {bytes} bytes");
        return;
    }
    // LANEPLAN_BENCH_SIZES=1000,5000: other sizes (for profiling), in increasing order.
    let sizes: Vec<usize> = std::env::var("LANEPLAN_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let files: Vec<(String, String)> = sizes.iter().map(|&n| synth::platform_toml(n, 4)).collect();
    let rounds = 5;
    // times[size][phase] = one figure a round, in ms; cpu[size] = CPU ms of load..text.
    let mut times = vec![vec![Vec::new(); PHASES.len()]; sizes.len()];
    let mut cpu = vec![Vec::new(); sizes.len()];
    let mut text_bytes = vec![0; sizes.len()];
    for _ in 0..rounds {
        for (i, (p, b)) in files.iter().enumerate() {
            let (d, c, bytes) = once(p, b);
            for (k, x) in d.iter().enumerate() {
                times[i][k].push(x.as_secs_f64() * 1e3);
            }
            cpu[i].push(c * 1e3);
            text_bytes[i] = bytes;
        }
    }
    println!("Generated builds, in process (median of {rounds} interleaved rounds, wall ms):");
    println!(
        "  devices      load     check      flow      text      json | total wall  total CPU  text bytes"
    );
    // The total is what `check` does: every phase but the JSON, which it prints instead of
    // the text; a round's sum, so the median is of whole runs.
    let mut totals = Vec::new();
    let mut phase_medians = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        let m: Vec<f64> = times[i].iter().map(|v| median(v.clone())).collect();
        let wall = median(
            (0..rounds)
                .map(|r| (0..4).map(|k| times[i][k][r]).sum())
                .collect(),
        );
        let c = median(cpu[i].clone());
        println!(
            "  {n:>7} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} | {wall:>10.2} {c:>10.2} {:>11}",
            m[0], m[1], m[2], m[3], m[4], text_bytes[i]
        );
        totals.push((wall, c));
        phase_medians.push(m);
    }
    let mut ok = true;
    for w in 0..sizes.len() - 1 {
        let (ra, rc) = (totals[w + 1].0 / totals[w].0, totals[w + 1].1 / totals[w].1);
        let per_phase: Vec<String> = PHASES
            .iter()
            .enumerate()
            .map(|(k, name)| {
                format!(
                    "{name} {:.2}x",
                    phase_medians[w + 1][k] / phase_medians[w][k]
                )
            })
            .collect();
        println!(
            "{} -> {} devices: {ra:.2}x the wall time, {rc:.2}x the CPU time (target <= 10x); {}",
            sizes[w],
            sizes[w + 1],
            per_phase.join(", ")
        );
        ok &= ra.min(rc) <= 10.0;
    }

    let bays = 16_384;
    let (platforms, build) = write_files(dir.path(), bays);
    let runs = 7;
    let (mut t, mut j) = (Vec::new(), Vec::new());
    let (mut tb, mut jb) = (0, 0);
    for _ in 0..runs {
        let (s, c, b) = cli(bin, &platforms, &build, false);
        t.push((s, c));
        tb = b;
        let (s, c, b) = cli(bin, &platforms, &build, true);
        j.push((s, c));
        jb = b;
    }
    let wall = |v: &[(f64, f64)]| median(v.iter().map(|x| x.0).collect());
    let cpu = |v: &[(f64, f64)]| median(v.iter().map(|x| x.1).collect());
    println!(
        "laneplan check, {bays}-bay build (whole process, stdout piped, median of {runs} interleaved):"
    );
    println!(
        "  text:   wall {:.3} s, CPU {:.3} s ({tb} bytes; target < 1 s)",
        wall(&t),
        cpu(&t)
    );
    println!(
        "  --json: wall {:.3} s, CPU {:.3} s ({jb} bytes)",
        wall(&j),
        cpu(&j)
    );
    // CPU time is what the command costs; wall time on a machine shared with other builds
    // adds their load to it.
    ok &= wall(&t).min(cpu(&t)) < 1.0;
    if !ok {
        eprintln!("benchmark target missed");
        std::process::exit(1);
    }
}
