//! Benchmark (not a test): `laneplan audit` on generated 2,000- and 10,000-function sysfs
//! trees, whole process, against `lspci -tv` on the same root. Prints the medians of
//! interleaved runs (wall and CPU time: the machine is shared, CPU time is the steadier),
//! their ratios (target <= 1.0), and the files each opens (when `strace` is installed).
//!
//!     cargo bench --bench audit_vs_lspci
//!
//! Tree: domains x 5 root ports x (switch upstream port + 24 downstream ports + 24 NVMe
//! endpoints), 250 functions a domain, every one with a 256-byte config space and link
//! attributes. Under `cargo test` one pair on a 500-function tree (debug build: the
//! figures are printed, marked as no measurement).

use std::path::Path;

#[path = "common/tree.rs"]
mod tree;
use std::process::Command;
use std::time::Instant;
use tree::generate;

/// Runs `cmd` once: (wall seconds, CPU seconds of the child: user + system).
fn time(cmd: &mut Command) -> (f64, f64) {
    let before = child_cpu();
    let t = Instant::now();
    let out = cmd.output().expect("run");
    let wall = t.elapsed().as_secs_f64();
    assert!(
        !out.stdout.is_empty(),
        "{:?} printed nothing: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    (wall, child_cpu() - before)
}

/// CPU seconds of all waited-for children so far.
fn child_cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn ours(bin: &str, root: &Path) -> Command {
    let mut c = Command::new(bin);
    c.args(["audit", "--sysfs-root"]).arg(root);
    c
}

fn lspci(root: &Path) -> Command {
    let mut c = Command::new("lspci");
    c.args(["-A", "linux-sysfs", "-O"])
        .arg(format!("sysfs.path={}", root.join("sys/bus/pci").display()))
        .arg("-tv");
    c
}

/// Files a command opens (`openat` calls under `strace -f`), or None without strace.
fn opens(cmd: &Command) -> Option<usize> {
    let log = tempfile::NamedTempFile::new().ok()?;
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=openat,open", "-o"])
        .arg(log.path())
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = std::fs::read_to_string(log.path()).ok()?;
    Some(text.lines().filter(|l| l.contains("open")).count())
}

fn main() {
    // LANEPLAN_BENCH_TREE=DIR: only write the tree there (for profiling both tools on it);
    // LANEPLAN_BENCH_DOMAINS: its size, 250 functions a domain (8 unless told).
    if let Ok(keep) = std::env::var("LANEPLAN_BENCH_TREE") {
        let domains = std::env::var("LANEPLAN_BENCH_DOMAINS")
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(8);
        let n = generate(Path::new(&keep), domains);
        println!("wrote {n} functions below {keep}");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_laneplan");
    // Under `cargo test` (no `--bench`) the binary is a debug build: one pair only checks that
    // both tools read the tree; its figures are printed but are no measurement.
    let quick = !std::env::args().any(|a| a == "--bench");
    let sizes: &[(u32, usize)] = if quick {
        &[(2, 1)]
    } else {
        &[(8, 11), (40, 7)]
    };
    let mut missed = false;
    for &(domains, runs) in sizes {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let n = generate(root, domains);
        assert_eq!(n, 250 * domains as usize);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            a.push(time(&mut ours(bin, root)));
            b.push(time(&mut lspci(root)));
        }
        let wall = |v: &[(f64, f64)]| median(v.iter().map(|x| x.0).collect());
        let cpu = |v: &[(f64, f64)]| median(v.iter().map(|x| x.1).collect());
        let (aw, ac, bw, bc) = (wall(&a), cpu(&a), wall(&b), cpu(&b));
        let note = if quick {
            " (debug build under cargo test: no measurement; run `cargo bench --bench audit_vs_lspci`)"
        } else {
            ""
        };
        println!("functions: {n}, runs: {runs} (interleaved){note}");
        println!(
            "  laneplan audit (whole process): median wall {:.1} ms, cpu {:.1} ms",
            aw * 1e3,
            ac * 1e3
        );
        println!(
            "  lspci -tv (whole process):      median wall {:.1} ms, cpu {:.1} ms",
            bw * 1e3,
            bc * 1e3
        );
        println!(
            "  ratio laneplan/lspci: wall {:.2}, cpu {:.2} (target <= 1.0)",
            aw / bw,
            ac / bc
        );
        if !quick {
            missed |= aw / bw > 1.0;
            match (opens(&ours(bin, root)), opens(&lspci(root))) {
                (Some(x), Some(y)) => println!("  files opened: laneplan {x}, lspci -tv {y}"),
                _ => println!("  files opened: not counted (no strace)"),
            }
        }
    }
    if missed {
        eprintln!("benchmark target missed");
        std::process::exit(1);
    }
}
