//! The fio line a probe prints is the workload it ran: run with fio (`--output-format=json`,
//! fio required), the job parameters fio reports (rw, bs, iodepth, numjobs, ioengine,
//! runtime, filename) equal the run's own, for a file, a sub-second runtime, the thread
//! engine (LP0418's fallback on zram), `--together` and devices one after the other. Also
//! the progress line's elapsed time, of the whole probe like its ETA.

use crate::probe_common::{random_file, zram_device};
use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `laneplan probe ARGS... TARGETS --json`: its JSON.
fn probe(args: &[&str], targets: &[&Path]) -> Value {
    let out = Command::cargo_bin("laneplan")
        .unwrap()
        .arg("probe")
        .args(args)
        .arg("--json")
        .args(targets)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs the printed line with fio; fio's JSON (written to a file: with several jobs fio
/// also prints their banners on stdout).
fn run_fio(cmd: &str) -> Value {
    let args: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(args[0], "fio", "{cmd}");
    let t = tempfile::tempdir().unwrap();
    let json = t.path().join("fio.json");
    let out = std::process::Command::new("fio")
        .args(&args[1..])
        .arg("--output-format=json")
        .arg(format!("--output={}", json.display()))
        .output()
        .expect("fio is not installed: run scripts/test.sh, which installs it");
    assert!(
        out.status.success(),
        "{cmd}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&json).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{cmd}: {e}\n{text}"))
}

/// fio's reported options of job `i`: its global options under its own.
fn options(fio: &Value, i: usize) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for src in [&fio["global options"], &fio["jobs"][i]["job options"]] {
        if let Some(o) = src.as_object() {
            for (k, v) in o {
                m.insert(k.clone(), v.as_str().unwrap_or_default().to_string());
            }
        }
    }
    m
}

/// A fio time (`300ms`, `2s`, `10`) in seconds.
fn seconds(v: &str) -> f64 {
    let (num, unit) = v.split_at(v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len()));
    let n: f64 = num.parse().unwrap();
    n * match unit {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "us" => 1e-6,
        u => panic!("unit {u}"),
    }
}

/// fio's reported parameters of every job against the probe's own workload and targets.
fn same_parameters(v: &Value, fio: &Value, paths: &[PathBuf]) {
    let w = &v["workload"];
    let cmd = w["fio"].as_str().unwrap();
    let jobs = fio["jobs"].as_array().unwrap();
    // A job (reporting group) per target, in order.
    assert_eq!(jobs.len(), paths.len(), "{cmd}");
    let rw = match (
        w["pattern"].as_str().unwrap(),
        w["read_pct"].as_u64().unwrap(),
    ) {
        ("random", 100) => "randread",
        ("random", 0) => "randwrite",
        ("random", _) => "randrw",
        ("sequential", 100) => "read",
        ("sequential", 0) => "write",
        _ => "rw",
    };
    let (qd, per_device_jobs) = (w["qd"].as_u64().unwrap(), w["jobs"].as_u64().unwrap());
    let threads = w["engine"] == "sync";
    for (i, path) in paths.iter().enumerate() {
        let o = options(fio, i);
        assert_eq!(o["filename"], path.display().to_string(), "{cmd}");
        assert_eq!(o["rw"], rw, "{cmd}");
        assert_eq!(o["bs"], w["bs"].as_str().unwrap(), "{cmd}");
        assert_eq!(o["direct"], "1", "{cmd}");
        if threads {
            // The thread engine: one pread/pwrite thread per outstanding I/O per job.
            assert_eq!(o["ioengine"], "psync", "{cmd}");
            assert!(!o.contains_key("iodepth"), "{cmd}");
            assert_eq!(o["numjobs"], (qd * per_device_jobs).to_string(), "{cmd}");
        } else {
            assert_eq!(o["ioengine"], "io_uring", "{cmd}");
            assert_eq!(o["iodepth"], qd.to_string(), "{cmd}");
            assert_eq!(
                o.get("numjobs").map_or(1, |n| n.parse::<u64>().unwrap()),
                per_device_jobs,
                "{cmd}"
            );
        }
        if let Some(rt) = w["runtime_s"].as_f64() {
            assert_eq!(seconds(&o["runtime"]), rt, "{cmd}");
            assert_eq!(
                seconds(&o["ramp_time"]),
                w["ramp_s"].as_f64().unwrap(),
                "{cmd}"
            );
            // fio ran that long (ms, summed over a group's jobs), ramp excluded, as the
            // probe measured.
            let fio_jobs = o.get("numjobs").map_or(1.0, |n| n.parse::<f64>().unwrap());
            let ran = jobs[i]["job_runtime"].as_f64().unwrap() / 1e3 / fio_jobs;
            assert!(
                ran >= rt * 0.97 && ran < rt + 0.25,
                "{cmd}: fio ran {ran} s"
            );
            let ours = v["devices"][i]["seconds"].as_f64().unwrap();
            assert!(
                ours >= rt * 0.97 && ours < rt + 0.25,
                "{cmd}: we ran {ours} s"
            );
        }
    }
}

fn files(n: usize, len: usize) -> (tempfile::TempDir, Vec<PathBuf>) {
    let d = tempfile::tempdir().unwrap();
    let paths: Vec<PathBuf> = (0..n).map(|i| d.path().join(format!("t{i}.img"))).collect();
    for p in &paths {
        random_file(p, len);
    }
    (d, paths)
}

/// `--runtime 300ms`: the line says `--runtime=300ms` (not 0.3), fio runs 300 ms, as we do.
#[test]
fn sub_second_runtime_on_a_file() {
    let (_d, paths) = files(1, 16 << 20);
    let v = probe(
        &["--runtime", "300ms", "--ramp", "100ms", "--qd", "4"],
        &[&paths[0]],
    );
    let cmd = v["workload"]["fio"].as_str().unwrap();
    assert!(cmd.contains(" --ramp_time=100ms --runtime=300ms "), "{cmd}");
    assert_eq!(v["workload"]["engine"], "io_uring");
    same_parameters(&v, &run_fio(cmd), &paths);
}

/// The thread engine asked for by name, two jobs at QD 4: 8 psync jobs in fio.
#[test]
fn thread_engine_is_psync_with_a_job_per_thread() {
    let (_d, paths) = files(1, 16 << 20);
    let v = probe(
        &[
            "--engine",
            "sync",
            "--qd",
            "4",
            "--jobs",
            "2",
            "--runtime",
            "250ms",
            "--ramp",
            "0s",
        ],
        &[&paths[0]],
    );
    let cmd = v["workload"]["fio"].as_str().unwrap();
    assert!(
        cmd.contains("--ioengine=psync --numjobs=8 --group_reporting"),
        "{cmd}"
    );
    same_parameters(&v, &run_fio(cmd), &paths);
}

/// `--together` on two files: one command, a job (own reporting group) per file, with each
/// file's own size; one after the other without it (`--stonewall`).
#[test]
fn together_and_sequential_runs_are_one_job_per_target() {
    let (_d, paths) = files(2, 8 << 20);
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let v = probe(
        &[
            "--together",
            "--runtime",
            "200ms",
            "--ramp",
            "0s",
            "--qd",
            "2",
        ],
        &refs,
    );
    assert_eq!(v["mode"], "together");
    let cmd = v["workload"]["fio"].as_str().unwrap();
    assert!(!cmd.contains("DEV") && !cmd.contains('%'), "{cmd}");
    assert_eq!(cmd.matches(" --name=").count(), 2, "{cmd}");
    assert!(
        cmd.contains(" --new_group") && !cmd.contains("--stonewall"),
        "{cmd}"
    );
    let fio = run_fio(cmd);
    same_parameters(&v, &fio, &paths);
    // Ran at once: fio's two jobs overlap in time as ours did.
    let v = probe(&["--runtime", "200ms", "--ramp", "0s", "--qd", "2"], &refs);
    assert_eq!(v["mode"], "sequential");
    let cmd = v["workload"]["fio"].as_str().unwrap();
    assert!(
        cmd.contains(" --stonewall") && !cmd.contains("--new_group"),
        "{cmd}"
    );
    same_parameters(&v, &run_fio(cmd), &paths);
}

/// zram at QD 32: the default engine falls back to 32 pread threads (LP0418); the line says
/// psync with 32 jobs, which is what fio must run to compare.
#[test]
fn zram_thread_fallback_is_in_the_fio_line() {
    let Some(z) = zram_device("zram_thread_fallback_is_in_the_fio_line", 32 << 20) else {
        return;
    };
    let v = probe(
        &["--qd", "32", "--runtime", "300ms", "--ramp", "0s"],
        &[&z.dev],
    );
    assert_eq!(v["workload"]["engine"], "sync");
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "LP0418")
    );
    let cmd = v["workload"]["fio"].as_str().unwrap();
    assert!(cmd.contains("--ioengine=psync --numjobs=32 "), "{cmd}");
    same_parameters(&v, &run_fio(cmd), std::slice::from_ref(&z.dev));
}

/// The progress line's elapsed time is the whole probe's, like its ETA: in the second of
/// two 300 ms runs it counts the first.
#[test]
fn progress_elapsed_counts_the_whole_probe() {
    use laneplan::probe::{self, ProbeOptions, Progress, safety::SafetyChecker, target};
    use std::sync::{Arc, Mutex, atomic::AtomicBool};
    let (_d, paths) = files(2, 8 << 20);
    let w = probe::workload::Workload::from_profile(
        "4k-randread",
        &probe::workload::Overrides::default(),
    )
    .unwrap();
    let mut opts = ProbeOptions::new(w);
    opts.bound = probe::engine::Bound::Time(Duration::from_millis(300));
    opts.ramp = Duration::ZERO;
    let targets: Vec<_> = paths
        .iter()
        .map(|p| target::ProbeTarget::from_path(p.clone()))
        .collect();
    let seen: Mutex<Vec<Progress>> = Mutex::new(Vec::new());
    let stop = Arc::new(AtomicBool::new(false));
    probe::run(&targets, &opts, &SafetyChecker::default(), &stop, &|p| {
        seen.lock().unwrap().push(p.clone())
    })
    .unwrap();
    let seen = seen.into_inner().unwrap();
    let second: Vec<&Progress> = seen.iter().filter(|p| p.step == 2).collect();
    assert!(!second.is_empty() && seen.iter().any(|p| p.step == 1));
    for p in &second {
        assert!(
            p.total_elapsed >= p.elapsed + Duration::from_millis(300),
            "{:?} of the probe, {:?} of the step",
            p.total_elapsed,
            p.elapsed
        );
    }
    // Elapsed plus ETA is the probe's length (2 x 300 ms), at every refresh.
    let p = second.last().unwrap();
    let eta = probe::progress::eta(p).unwrap();
    assert!(p.total_elapsed + eta >= Duration::from_millis(600));
    // The line shows the whole probe's: 61 s in, 1 s into step 2.
    let mut q = (*p).clone();
    q.elapsed = Duration::from_secs(1);
    q.total_elapsed = Duration::from_secs(61);
    assert!(
        probe::progress::line(&q).contains("; 1:01 elapsed"),
        "{}",
        probe::progress::line(&q)
    );
}
