//! `laneplan probe` from the outside: exit codes, refusal messages, the JSON shape.

use crate::probe_common;

use assert_cmd::Command;
use predicates::prelude::*;
use probe_common::{loop_device, random_file};

fn lp() -> Command {
    Command::cargo_bin("laneplan").unwrap()
}

/// `laneplan probe ARGS... TARGET --json` that must succeed: its JSON.
fn probe_json(args: &[&str], target: &std::path::Path) -> serde_json::Value {
    let out = lp()
        .arg("probe")
        .args(args)
        .arg("--json")
        .arg(target)
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

#[test]
fn json_shape() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 1 << 20);
    let v = probe_json(&["--ios", "250", "--qd", "4", "--ceiling-read", "2.5"], &f);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["mode"], "sequential");
    assert_eq!(v["workload"]["name"], "4k-randread (custom)");
    assert_eq!(v["workload"]["bs"], "4k");
    assert_eq!(v["workload"]["qd"], 4);
    assert_eq!(v["workload"]["ios"], 250);
    let d0 = &v["devices"][0];
    assert_eq!(d0["ios"], 250);
    assert_eq!(d0["reads"], 250);
    assert_eq!(d0["bytes"], 250 * 4096);
    assert_eq!(d0["ceiling_gbs"], 2.5);
    for k in [
        "iops",
        "mb_per_s",
        "seconds",
        "cpu_seconds",
        "cpu_us_per_io",
        "ceiling_pct",
    ] {
        assert!(d0[k].is_number(), "{k} missing");
    }
    for k in ["mean_us", "p50_us", "p99_us", "p99_9_us", "max_us"] {
        assert!(d0["latency"][k].is_number(), "latency.{k} missing");
    }
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "LP0412")
    );
}

#[test]
fn human_output_has_the_table() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 1 << 20);
    lp().args(["probe", "--ios", "100", "--profile", "64k-seqread"])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "64k-seqread: bs 64k Sequential read 100 % qd 16",
        ))
        .stdout(predicate::str::contains("t.img"))
        .stdout(predicate::str::contains("p99 µs"));
}

#[test]
fn write_without_flag_is_refused_with_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 1 << 20);
    lp().args(["probe", "--ios", "10", "--profile", "4k-randwrite"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("LP0401"))
        .stderr(predicate::str::contains(
            "probes are read-only unless --write is given",
        ));
}

#[test]
fn input_errors_exit_2() {
    lp().args(["probe", "--profile", "nope", "/tmp/x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value 'nope' for '--profile <PROFILE>'",
        ))
        .stderr(predicate::str::contains(
            "[possible values: 4k-randread, 4k-randwrite,",
        ));
    lp().args(["probe", "--ios", "1", "/nonexistent/dir/x.img"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give --size"));
    lp().args(["probe", "--svg", "x.svg", "/tmp/x"])
        .assert()
        .code(2);
}

#[test]
fn list_profiles() {
    lp().args(["probe", "--list-profiles"])
        .assert()
        .success()
        .stdout(predicate::str::contains("oracle-80-20"))
        .stdout(predicate::str::contains("4k-randread    bs 4k"));
}

#[test]
fn block_device_refusals() {
    let Some(l) = loop_device("block_device_refusals", 4 << 20) else {
        return;
    };
    let dev = l.dev.display().to_string();
    // Write without --destroy-data-on.
    lp().args([
        "probe",
        "--ios",
        "10",
        "--profile",
        "4k-randwrite",
        "--write",
        &dev,
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("LP0402"))
    .stderr(predicate::str::contains(format!("--destroy-data-on {dev}")));
    // Mounted (a fake mount table): refused even for reads.
    let fake = tempfile::tempdir().unwrap();
    std::fs::write(
        fake.path().join("mounts"),
        format!("{dev} /mnt/x ext4 rw 0 0\n"),
    )
    .unwrap();
    lp().args(["probe", "--ios", "10", "--proc-root"])
        .arg(fake.path())
        .arg(&dev)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("LP0403"))
        .stderr(predicate::str::contains(
            "has a mounted filesystem at /mnt/x",
        ));
    // Swap (fake /proc/swaps).
    std::fs::write(fake.path().join("mounts"), "").unwrap();
    std::fs::write(
        fake.path().join("swaps"),
        format!("Filename Type Size Used Priority\n{dev} partition 4096 0 -2\n"),
    )
    .unwrap();
    lp().args(["probe", "--ios", "10", "--proc-root"])
        .arg(fake.path())
        .arg(&dev)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("LP0405"));
    // Free: a read probe runs.
    lp().args(["probe", "--ios", "50", "--json", &dev])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"ios\": 50"));
}

/// The fio command a run reports runs the same workload: fio (installed by scripts/test.sh;
/// this test fails without it) accepts it and issues the same number of I/Os.
#[test]
fn the_reported_fio_command_runs_the_same_workload() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("t.img");
    random_file(&f, 8 << 20);
    for (profile, extra, ios) in [
        ("4k-randread", vec!["--qd", "8"], 400u64),
        ("64k-seqread", vec!["--qd", "4", "--jobs", "2"], 200),
        ("sql", vec!["--qd", "4", "--write"], 300),
        ("4k-randread", vec!["--qd", "1"], 100),
    ] {
        let n = ios.to_string();
        let mut args = vec!["--profile", profile, "--ios", &n];
        args.extend(&extra);
        let v = probe_json(&args, &f);
        let cmd = v["workload"]["fio"]
            .as_str()
            .expect("workload.fio")
            .to_string();
        assert!(
            cmd.contains(&format!("--filename={}", f.display())),
            "{cmd}"
        );
        let args: Vec<&str> = cmd.split_whitespace().collect();
        assert_eq!(args[0], "fio");
        let run = std::process::Command::new("fio")
            .args(&args[1..])
            .arg("--output-format=json")
            .output()
            .expect("fio is not installed: run scripts/test.sh, which installs it");
        assert!(
            run.status.success(),
            "{cmd}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let j: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        let jobs = j["jobs"].as_array().unwrap();
        let total: u64 = jobs
            .iter()
            .map(|job| {
                job["read"]["total_ios"].as_u64().unwrap()
                    + job["write"]["total_ios"].as_u64().unwrap()
            })
            .sum();
        assert_eq!(total, ios, "{profile} {extra:?}: {cmd}");
        let dev = &v["devices"][0];
        assert_eq!(dev["ios"].as_u64(), Some(ios));
    }
}

/// The README's profile table is what the code says (`--list-profiles`): one source.
#[test]
fn readme_lists_every_profile_with_its_fio_options() {
    use laneplan::probe::workload::{Overrides, PROFILES, Workload};
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for p in PROFILES {
        let w = Workload::from_profile(p.name, &Overrides::default()).unwrap();
        let fio = w
            .fio_args(laneplan::probe::DEFAULT_WORKING_SET, None)
            .unwrap();
        let row = format!("| `{}` | `{fio}` |", p.name);
        assert!(readme.contains(&row), "README lacks the row {row}");
    }
}
