//! Benchmark (not a test): `learn` on generated dumps of 10k, 20k, 40k and 100k functions.
//! Prints the time of reading the dump (parse + audit), of learning from it and of the check
//! the CLI makes before writing (the files loaded, the build checked), per size, and the size
//! of the platform file written; the target is learn on 100k functions <= 2 s
//! (release; issue 22).
//!
//!     cargo bench --bench learn
//!
//! The dump is the four real captures (tests/fixtures/shared/lspci-*) repeated, each copy in a
//! domain of its own (`0001:3b:00.0`, ...), so every copy keeps its real bus numbers, bridges
//! and slots (about 170 functions a copy).

use laneplan::learn::{self, LearnOptions};
use laneplan::platform::Catalog;
use std::path::Path;
use std::time::Instant;

const CAPTURES: [&str; 4] = [
    "lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt",
    "lspci-r7425/dell-r7425-ubuntu2404-1C2794FDE243.lspci-vvnn.txt",
    "lspci-r7515/dell-r7515-ubuntu2004-510A7BE2AFDD.lspci-vvnn.txt",
    "lspci-r7525/dell-r7525-debian11-23F136DC785E.lspci-vvnn.txt",
];

/// Real dumps repeated until they hold at least `functions` functions, copy `k` in domain
/// `k`. Returns the dump and its function count.
fn generate(functions: usize) -> (String, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shared");
    let dumps: Vec<String> = CAPTURES
        .iter()
        .map(|c| std::fs::read_to_string(dir.join(c)).unwrap())
        .collect();
    let mut out = String::new();
    let mut n = 0;
    let mut domain = 0u32;
    while n < functions {
        for line in dumps[domain as usize % dumps.len()].lines() {
            if !line.is_empty() && !line.starts_with([' ', '\t']) {
                let rest = match line.split_once(' ') {
                    Some((a, r)) if a.matches(':').count() == 2 => (&a[5..], r),
                    Some((a, r)) => (a, r),
                    None => (line, ""),
                };
                out.push_str(&format!("{domain:04x}:{} {}\n", rest.0, rest.1));
                n += 1;
            } else {
                out.push_str(line);
                out.push('\n');
            }
        }
        out.push('\n');
        domain += 1;
    }
    (out, n)
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    // Under `cargo test` (a debug build) one small size only checks the pieces fit together.
    let sizes: &[usize] = if quick {
        &[1_000]
    } else {
        &[10_000, 20_000, 40_000, 100_000]
    };
    let catalog = Catalog::builtin().unwrap();
    let opts = LearnOptions {
        id: Some(learn::LearnedId::parse("learned").unwrap()),
        ..Default::default()
    };
    let mut times = Vec::new();
    for &want in sizes {
        let (dump, n) = generate(want);
        let t = Instant::now();
        let view = learn::read_lspci(&dump, "big");
        let read = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let l = learn::learn(&view, &catalog, &opts);
        let secs = t.elapsed().as_secs_f64();
        times.push((n, secs));
        // What the CLI does before writing: the files loaded and the build checked.
        let t = Instant::now();
        let loads = learn::loads(&l, &catalog);
        let check = t.elapsed().as_secs_f64();
        println!(
            "learn {n:>7} functions: read {read:.3} s, learn {secs:.3} s, load+check {check:.3} s ({}); platform {:.1} MB, {} root complexes",
            match &loads {
                Ok(()) => "loads".to_string(),
                Err(e) => format!("refused: {}", e.chars().take(300).collect::<String>()),
            },
            l.platform.len() as f64 / 1e6,
            l.summary.root_complexes
        );
    }
    if quick {
        println!("quick (debug build: run `cargo bench --bench learn` for timings)");
        return;
    }
    if let (Some(a), Some(b)) = (times.first(), times.last()) {
        println!(
            "growth {}k -> {}k functions: {:.1}x time for {:.1}x functions; learn at {}k: {:.3} s (target <= 2 s: {})",
            a.0 / 1000,
            b.0 / 1000,
            b.1 / a.1,
            b.0 as f64 / a.0 as f64,
            b.0 / 1000,
            b.1,
            if b.1 <= 2.0 { "met" } else { "missed" }
        );
    }
}
