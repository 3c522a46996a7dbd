//! Benchmark (not a test): `laneplan gather` of a generated 2,000-function sysfs tree, whole
//! process, against `tar czf` of exactly the entries the gather archived (the same files,
//! links and directories, `--no-recursion`). Prints the medians of interleaved runs (wall
//! and CPU time) and their ratio (target <= 1.0).
//!
//!     cargo bench --bench gather
//!
//! Under `cargo test` one pair on a 500-function tree (debug build: the figures are printed, marked as no
//! measurement).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

#[path = "common/tree.rs"]
mod tree;

fn run(cmd: &mut Command) -> f64 {
    let t = Instant::now();
    let out = cmd.output().expect("run");
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    t.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 11 };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    // Quick mode (a debug build under `cargo test`): a 500-function tree, a few seconds.
    let n = tree::generate(&root, if quick { 2 } else { 8 });
    let out = dir.path().join("ours.tar.gz");
    let theirs = dir.path().join("tar.tar.gz");
    let bin = env!("CARGO_BIN_EXE_laneplan");
    let gather = |out: &Path| {
        let mut c = Command::new(bin);
        c.arg("gather").arg(out).arg("--sysfs-root").arg(&root);
        c
    };
    // The entries the gather stores, for tar to store the same.
    run(&mut gather(&out));
    let list = Command::new("tar").arg("tzf").arg(&out).output().unwrap();
    assert!(list.status.success());
    let list_file = dir.path().join("list");
    std::fs::write(&list_file, &list.stdout).unwrap();
    let entries = list.stdout.iter().filter(|&&b| b == b'\n').count();
    let tar = || {
        let mut c = Command::new("tar");
        c.arg("czf")
            .arg(&theirs)
            .arg("-C")
            .arg(&root)
            .arg("--no-recursion")
            .arg("-T")
            .arg(&list_file);
        c
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        a.push(run(&mut gather(&out)));
        b.push(run(&mut tar()));
    }
    let (a, b) = (median(a), median(b));
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let note = if quick {
        " (debug build under cargo test: no measurement; run `cargo bench --bench gather`)"
    } else {
        ""
    };
    println!("functions: {n}, archive entries: {entries}, runs: {runs} (interleaved){note}");
    println!(
        "  laneplan gather (whole process): median {:.1} ms, {} bytes",
        a * 1e3,
        size(&out)
    );
    println!(
        "  tar czf (same entries):          median {:.1} ms, {} bytes",
        b * 1e3,
        size(&theirs)
    );
    println!("  ratio gather/tar czf: {:.2} (target <= 1.0)", a / b);
    if !quick && a / b > 1.0 {
        eprintln!("benchmark target missed");
        std::process::exit(1);
    }
}
