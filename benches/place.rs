//! `laneplan place` benchmark (`cargo bench --bench place`): each example build's parts list
//! placed by the release binary, whole process, with proof of optimality (the search ends
//! with every branch explored or cut by `check` or the bound), once with the example's
//! options fixed and once with `--any-option`; plus a parts list that cannot fit. Reports the
//! median wall time of 15 runs per case (and hyperfine's mean where hyperfine is installed),
//! nodes explored against the full space. Target: every median under 1 s; exits non-zero when
//! one is missed. Under `cargo test` (no `--bench`), one run per case checks the answers.
//!
//! Then the stress platforms (`laneplan::synth::place_stress`: 1-8 card types, 2-40 slots,
//! 2-16 bay groups, up to 1,024 option sets), one run each with `--any-option` under the
//! default budget: nodes, wall time, proven or the gap, peak memory (the child's VmHWM, from
//! `wait4`), against the budget. `PLACE_BENCH_EXE=path` runs another binary (an older
//! build: then `PLACE_BENCH_LEGACY=1` leaves out `--budget-ms`, and `PLACE_BENCH_KILL_S`
//! kills a run after that many seconds, 30 by default).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `place` arguments for an example build: its platform, options and parts list.
fn case(path: &Path, any_option: bool) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let v: toml::Table = toml::from_str(&text).unwrap();
    let mut parts: Vec<(String, usize)> = Vec::new();
    let mut add = |id: &str, n: usize| match parts.iter_mut().find(|(p, _)| p == id) {
        Some(x) => x.1 += n,
        None => parts.push((id.to_string(), n)),
    };
    for s in v
        .get("slot")
        .and_then(|x| x.as_array())
        .into_iter()
        .flatten()
    {
        add(s["part"].as_str().unwrap(), 1);
    }
    for b in v
        .get("bay")
        .and_then(|x| x.as_array())
        .into_iter()
        .flatten()
    {
        let n = laneplan::platform::schema::parse_bay_list(b["bays"].as_str().unwrap())
            .unwrap()
            .len();
        add(b["part"].as_str().unwrap(), n);
    }
    let mut args = vec![
        "place".to_string(),
        v["platform"].as_str().unwrap().to_string(),
    ];
    for (p, n) in parts {
        args.push("--part".into());
        args.push(format!("{p}={n}"));
    }
    if any_option {
        args.push("--any-option".into());
    } else if let Some(o) = v.get("options").and_then(|o| o.as_table()) {
        for (k, val) in o {
            args.push("--option".into());
            args.push(format!("{k}={}", val.as_str().unwrap()));
        }
    }
    args
}

fn run(exe: &str, args: &[String]) -> (Duration, i32, serde_json::Value) {
    let t = Instant::now();
    let out = Command::new(exe).args(args).arg("--json").output().unwrap();
    let d = t.elapsed();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (d, out.status.code().unwrap_or(-1), v)
}

/// Runs `exe args` to the end (or kills it after `kill_s`): wall time, exit status, stdout
/// as JSON, peak resident memory in KiB (`ru_maxrss` of the child: its VmHWM).
// `wait4` reaps the child (std's `wait` has no rusage).
#[allow(clippy::zombie_processes)]
fn run_measured(
    exe: &str,
    args: &[String],
    kill_s: u64,
) -> (Duration, Option<i32>, serde_json::Value, i64) {
    use std::io::Read;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let t = Instant::now();
    let mut child = Command::new(exe)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let done = Arc::new(AtomicBool::new(false));
    let killer = {
        let done = done.clone();
        std::thread::spawn(move || {
            let until = Instant::now() + Duration::from_secs(kill_s);
            while Instant::now() < until {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if !done.load(Ordering::Relaxed) {
                // SAFETY: `pid` is our own child, not yet reaped (wait4 below reaps it).
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        })
    };
    let mut out = Vec::new();
    let _ = child.stdout.take().unwrap().read_to_end(&mut out);
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child process.
    unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    done.store(true, Ordering::Relaxed);
    let _ = killer.join();
    let d = t.elapsed();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let v = serde_json::from_slice(&out).unwrap_or(serde_json::Value::Null);
    (d, code, v, ru.ru_maxrss)
}

fn stress(exe: &str) {
    use laneplan::synth::{PlaceStress, place_stress};
    let legacy = std::env::var_os("PLACE_BENCH_LEGACY").is_some();
    let kill_s: u64 = std::env::var("PLACE_BENCH_KILL_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let cases = [
        (1, 2, 2, 0),
        (2, 4, 2, 1),
        (3, 8, 4, 2),
        (5, 8, 4, 0),
        (8, 12, 2, 0),
        (4, 40, 4, 0),
        (4, 40, 4, 10),
        (6, 24, 8, 6),
        (8, 16, 16, 3),
        (8, 40, 16, 0),
        (8, 40, 16, 8),
        (8, 40, 16, 10),
    ];
    let dir = tempfile::tempdir().unwrap();
    println!(
        "\nstress platforms, --any-option, {}: one run each",
        if legacy {
            "no budget (legacy binary)".to_string()
        } else {
            format!("default budget ({} ms)", laneplan::place::DEFAULT_BUDGET_MS)
        }
    );
    println!(
        "  {:<34} {:>5} {:>9} {:>8} {:>9} {:>10} {:>9} {:>9}",
        "case (types/slots/groups/keys)",
        "sets",
        "nodes",
        "planner",
        "wall ms",
        "answer",
        "gap GB/s",
        "VmHWM MB"
    );
    for (types, slots, groups, keys) in cases {
        let spec = PlaceStress {
            card_types: types,
            slots,
            bay_groups: groups,
            option_keys: keys,
        };
        let (platform, parts) = place_stress(&spec);
        std::fs::write(dir.path().join("stress.toml"), platform).unwrap();
        let mut args: Vec<String> = vec![
            "--platform-dir".into(),
            dir.path().display().to_string(),
            "place".into(),
            "stress".into(),
        ];
        for (p, n) in &parts {
            args.push("--part".into());
            args.push(format!("{p}={n}"));
        }
        args.push("--any-option".into());
        args.push("--json".into());
        let (d, code, v, rss) = run_measured(exe, &args, kill_s);
        let st = &v["stats"];
        let answer = match (code, &v["proven_optimal"], &v["stopped"]) {
            (None, _, _) => format!("killed {kill_s}s"),
            (Some(1), _, _) => "infeasible".into(),
            (_, serde_json::Value::Bool(true), _) => "proven".into(),
            (_, _, serde_json::Value::String(s)) => format!("stop:{s}"),
            (Some(c), _, _) => format!("exit {c}"),
        };
        println!(
            "  {:<34} {:>5} {:>9} {:>8} {:>9.1} {:>10} {:>9} {:>9.1}",
            format!("{types}/{slots}/{groups}/{keys}"),
            1u64 << keys,
            st["nodes_explored"]
                .as_u64()
                .map(|x| x.to_string())
                .unwrap_or("-".into()),
            st["evaluations"]
                .as_u64()
                .map(|x| x.to_string())
                .unwrap_or("-".into()),
            d.as_secs_f64() * 1000.0,
            answer,
            v["gap_gbs"]
                .as_f64()
                .map(|g| format!("{g:.2}"))
                .unwrap_or("-".into()),
            rss as f64 / 1024.0
        );
    }
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let own = env!("CARGO_BIN_EXE_laneplan").to_string();
    let other = std::env::var("PLACE_BENCH_EXE").ok();
    let exe = other.as_deref().unwrap_or(&own);
    if std::env::var_os("PLACE_BENCH_STRESS_ONLY").is_some() {
        stress(exe);
        return;
    }
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    examples.sort();
    let mut cases: Vec<(String, Vec<String>, bool)> = Vec::new();
    for p in &examples {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        cases.push((format!("{name} (options fixed)"), case(p, false), true));
        cases.push((format!("{name} (--any-option)"), case(p, true), true));
    }
    // Checking the answers (cargo test, a debug build on a busy machine): no wall-time
    // limit, so that they do not depend on the load; the bench runs the default budget.
    if !bench && std::env::var_os("PLACE_BENCH_LEGACY").is_none() {
        for (_, args, _) in &mut cases {
            args.extend(["--budget-ms".to_string(), "3600000".to_string()]);
        }
    }
    cases.push((
        "25 x Micron 9300 in an R740xd (cannot fit)".into(),
        [
            "place",
            "r740xd",
            "--part",
            "micron-9300-pro-3.84tb=25",
            "--any-option",
        ]
        .map(String::from)
        .to_vec(),
        false,
    ));
    let hyperfine = bench
        && Command::new("hyperfine")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    let runs = if bench { 15 } else { 1 };
    println!(
        "laneplan place, release binary, whole process: median of {runs} run(s){}",
        if hyperfine {
            "; hyperfine mean beside it"
        } else {
            ""
        }
    );
    println!(
        "  {:<50} {:>9} {:>10} {:>7} {:>6} {:>6} {:>8} {:>16}",
        "case", "median ms", "hyperfine", "nodes", "cut-ck", "cut-bd", "planner", "full space"
    );
    let mut worst = Duration::ZERO;
    for (name, args, feasible) in &cases {
        let mut times = Vec::new();
        let mut last = serde_json::Value::Null;
        for _ in 0..runs {
            let (d, code, v) = run(exe, args);
            assert_eq!(code, if *feasible { 0 } else { 1 }, "{name}: {v}");
            assert_eq!(v["proven_optimal"], *feasible, "{name}");
            if !feasible {
                assert!(!v["infeasible"].as_array().unwrap().is_empty(), "{name}");
            }
            times.push(d);
            last = v;
        }
        times.sort();
        let median = times[times.len() / 2];
        worst = worst.max(median);
        let hf = if hyperfine {
            let mut cmd = vec![exe.to_string()];
            cmd.extend(args.iter().map(|a| format!("'{a}'")));
            let out = Command::new("hyperfine")
                .args([
                    "--warmup",
                    "2",
                    "--runs",
                    "15",
                    "-N",
                    "-i",
                    "--export-json",
                    "/dev/stdout",
                    "--style",
                    "none",
                ])
                .arg(cmd.join(" "))
                .output()
                .unwrap();
            // hyperfine prints its JSON export on stdout after its summary lines.
            let text = String::from_utf8_lossy(&out.stdout);
            let start = text.find('{').unwrap_or(0);
            serde_json::from_str::<serde_json::Value>(&text[start..])
                .ok()
                .and_then(|v| v["results"][0]["mean"].as_f64())
                .map(|m| format!("{:.1}", m * 1000.0))
                .unwrap_or_else(|| "-".into())
        } else {
            "-".into()
        };
        let s = &last["stats"];
        println!(
            "  {:<50} {:>9.1} {:>10} {:>7} {:>6} {:>6} {:>8} {:>16.0}",
            name,
            median.as_secs_f64() * 1000.0,
            hf,
            s["nodes_explored"].as_u64().unwrap_or(0),
            s["pruned_infeasible"].as_u64().unwrap_or(0),
            s["pruned_bound"].as_u64().unwrap_or(0),
            s["evaluations"].as_u64().unwrap_or(0),
            s["full_space"].as_f64().unwrap_or(0.0)
        );
    }
    println!(
        "worst median {:.1} ms (target < 1000 ms)",
        worst.as_secs_f64() * 1000.0
    );
    if bench {
        stress(exe);
    }
    if bench && worst >= Duration::from_secs(1) {
        eprintln!("target missed");
        std::process::exit(1);
    }
}
