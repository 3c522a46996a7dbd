//! Benchmark (not a test): a 50 MB `lspci -vvnn` dump, parsed and audited. Prints the time of
//! each stage and of one whole CLI run; the target is under 2 s for the CLI run (release).
//!
//!     cargo bench --bench lspci_dump
//!
//! The dump is the four real captures (tests/fixtures/shared/lspci-*) repeated, each copy in a
//! domain of its own (`0001:3b:00.0`, ...), so every copy keeps its real bus numbers and
//! bridges: 182 hosts, about 31,000 functions.

use laneplan::host;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const CAPTURES: [&str; 4] = [
    "lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt",
    "lspci-r7425/dell-r7425-ubuntu2404-1C2794FDE243.lspci-vvnn.txt",
    "lspci-r7515/dell-r7515-ubuntu2004-510A7BE2AFDD.lspci-vvnn.txt",
    "lspci-r7525/dell-r7525-debian11-23F136DC785E.lspci-vvnn.txt",
];

/// Real dumps repeated to at least `bytes`, copy `k` in domain `k`. Returns the dump and the
/// number of functions in it.
fn generate(bytes: usize) -> (String, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shared");
    let dumps: Vec<String> = CAPTURES
        .iter()
        .map(|c| std::fs::read_to_string(dir.join(c)).unwrap())
        .collect();
    let mut out = String::with_capacity(bytes + 400_000);
    let mut functions = 0;
    let mut domain = 0u32;
    while out.len() < bytes {
        for line in dumps[domain as usize % dumps.len()].lines() {
            if !line.is_empty() && !line.starts_with([' ', '\t']) {
                // `3b:00.0 ...` or `0000:3b:00.0 ...`: the same address in this copy's domain.
                let rest = match line.split_once(' ') {
                    Some((a, r)) if a.matches(':').count() == 2 => (&a[5..], r),
                    Some((a, r)) => (a, r),
                    None => (line, ""),
                };
                out.push_str(&format!("{domain:04x}:{} {}\n", rest.0, rest.1));
                functions += 1;
            } else {
                out.push_str(line);
                out.push('\n');
            }
        }
        out.push('\n');
        domain += 1;
    }
    (out, functions)
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    // Under `cargo test` (a debug build) a 2 MB dump only checks the pieces fit together.
    let size = if quick { 2 << 20 } else { 50_000_000 };
    let (dump, n) = generate(size);

    let t = Instant::now();
    let (scan, findings) = host::lspci::parse(&dump, "big");
    let parse = t.elapsed().as_secs_f64();
    assert_eq!(scan.functions.len(), n);

    let t = Instant::now();
    let a = host::audit_lspci(&dump, "big", Default::default());
    let audit = t.elapsed().as_secs_f64();
    assert_eq!(a.functions.len(), n);
    let orphans = a.functions.iter().filter(|f| f.parent.is_none()).count();

    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &dump).unwrap();
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_laneplan"))
        .args(["audit", "--json", "--lspci"])
        .arg(file.path())
        .output()
        .unwrap();
    let cli = t.elapsed().as_secs_f64();
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if quick {
        println!(
            "quick: {} bytes, {n} functions read (debug build: run `cargo bench --bench lspci_dump` for timings)",
            dump.len()
        );
        return;
    }
    println!(
        "dump: {:.1} MB, {n} functions ({orphans} on root buses), {} lines skipped",
        dump.len() as f64 / 1e6,
        findings.len()
    );
    println!("lspci::parse:                 {:.3} s", parse);
    println!("parse + tree + verdicts:      {:.3} s", audit);
    println!(
        "laneplan audit --json --lspci (whole process): {:.3} s (target < 2 s)",
        cli
    );
}
