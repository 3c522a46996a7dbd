//! End to end (#21): the CPU, memory and NICs beside the drives and links, on the two
//! reference systems: the R740xd 2 x Gold 6130 + 4 x PM1725 and the NF5280M4 2 x E5-2699 v4
//! + 4 x DC S3510. Each case asserts the binding element (the JSON field) and its figure.

use crate::common::{laneplan, run};
use serde_json::Value;

const R740XD: &str = "examples/r740xd-2x6130-4x-pm1725.toml";
const NF5280: &str = "examples/nf5280m4-4x-s3510-ceph.toml";
const R740XD_SAS: &str = "examples/r740xd-24sas-hba330.toml";

fn system(cmd: &str, build: &str, extra: &[&str]) -> Value {
    let mut args = vec![cmd, build, "--json"];
    args.extend_from_slice(extra);
    let (code, out, err) = run(laneplan().args(&args));
    assert!(code == 0 || code == 1, "{args:?}: exit {code}: {err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
    v["system"].clone()
}

/// (binding, client IOPS, CPU cores spare) of a view and direction.
fn bind(s: &Value, view: &str, dir: &str) -> (String, f64, Option<f64>) {
    let e = &s[view][dir];
    (
        e["binding"].as_str().unwrap().to_string(),
        e["iops"].as_f64().unwrap(),
        e["cpu_cores_spare"].as_f64(),
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn r740xd_kernel_stack_the_drives_bind_and_cores_are_spare() {
    for cmd in ["check", "flow"] {
        let s = system(cmd, R740XD, &["--stack", "kernel-libaio"]);
        let (b, iops, spare) = bind(&s, "iops", "read");
        // 4 x 750k 4K random-read IOPS (spec); 3.0 M x 10,000 cycles / 2.1 GHz = 14.29 cores
        assert_eq!(b, "drives");
        assert!(close(iops, 3_000_000.0), "{iops}");
        assert!(close(spare.unwrap(), 32.0 - 3e6 * 1e4 / 2.1e9), "{spare:?}");
        // The CPU's own bound: 32 x 2.1 GHz / 10,000 cycles = 6.72 M IOPS.
        let cpu = s["iops"]["read"]["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["element"] == "cpu")
            .unwrap();
        assert!(close(cpu["iops"].as_f64().unwrap(), 6_720_000.0));
        assert_eq!(s["cpu"]["id"], "xeon-gold-6130");
        assert_eq!(s["cpu"]["cores"], 32);
        // Sequential: 4 x 3.1 GB/s of specs, under the PLX uplink's 14.37.
        assert_eq!(s["bandwidth"]["read"]["binding"], "drives");
        assert!(close(s["bandwidth"]["read"]["gbs"].as_f64().unwrap(), 12.4));
    }
}

#[test]
fn r740xd_ceph_read_is_cpu_bound() {
    let s = system("flow", R740XD, &["--stack", "ceph-osd-read"]);
    let (b, iops, spare) = bind(&s, "iops", "read");
    // 32 cores x 2.1 GHz / 200,000 cycles per 4K read = 336k IOPS, far below the drives' 3 M.
    assert_eq!(b, "cpu");
    assert!(close(iops, 336_000.0), "{iops}");
    assert_eq!(spare, Some(0.0));
}

#[test]
fn r740xd_per_op_cost_is_cpu_bound_at_the_oracle_rate() {
    // 1,792,000 cycles per transaction = 32 cores x 2.1 GHz x 0.8 / 30,000 TPS (the CPUs ran
    // above 80 % at ~30k TPS): at 100 % the ceiling is 37.5k, at 80 % 30.0k.
    let s = system(
        "check",
        R740XD,
        &["--cycles-per-op", "1792000", "--ios-per-op", "1"],
    );
    let e = &s["iops"]["read"];
    assert_eq!(e["binding"], "cpu");
    assert!(close(e["ops"].as_f64().unwrap(), 37_500.0), "{e}");
    let s = system(
        "check",
        R740XD,
        &[
            "--cycles-per-op",
            "1792000",
            "--ios-per-op",
            "1",
            "--cpu-utilisation",
            "0.8",
        ],
    );
    assert!(close(s["iops"]["read"]["ops"].as_f64().unwrap(), 30_000.0));
    let (code, out, _) = run(laneplan().args([
        "--wide",
        "check",
        R740XD,
        "--no-tree",
        "--cycles-per-op",
        "1792000",
        "--ios-per-op",
        "1",
    ]));
    assert_eq!(code, 0);
    assert!(
        out.contains("warning[LP0206]: 4K read: CPU-bound at 37.5 k IOPS (37.5 k ops/s) (32 cores x 2.10 GHz x 100 % / 1,792,000 cycles per op, 1 I/Os per op)"),
        "{out}"
    );
}

#[test]
fn nf5280m4_the_sata_ssds_bind_and_the_cpus_have_headroom() {
    for stack in ["kernel-libaio", "ceph-osd-read"] {
        let s = system("check", NF5280, &["--stack", stack, "--serve"]);
        let (b, iops, spare) = bind(&s, "iops", "read");
        // 4 x 68k 4K random-read IOPS (DC S3510 spec).
        assert_eq!(b, "drives", "{stack}");
        assert!(close(iops, 272_000.0), "{stack}: {iops}");
        let spare = spare.unwrap();
        assert!(spare > 0.0, "{stack}: {spare}");
        if stack == "ceph-osd-read" {
            // 44 cores - 272k x 200,000 cycles / 2.2 GHz = 19.27 cores to spare.
            assert!(close(spare, 44.0 - 272e3 * 2e5 / 2.2e9), "{spare}");
        }
        // Sequential reads: the DMI2 uplink of the PCH's SATA ports (Gen2 x4, 1.82 GB/s)
        // binds below the SSDs' 4 x 0.5 GB/s.
        assert_eq!(s["bandwidth"]["read"]["binding"], "links");
        assert!(
            s["bandwidth"]["read"]["binding_id"]
                .as_str()
                .unwrap()
                .contains("pch-sata"),
            "{}",
            s["bandwidth"]["read"]
        );
        assert!((s["bandwidth"]["read"]["gbs"].as_f64().unwrap() - 1.8238).abs() < 1e-3);
    }
    // The E5-2699 v3 (18 cores, 2.3 GHz): 36 x 2.3 GHz / 200,000 = 414k, above 272k.
    let s = system(
        "flow",
        NF5280,
        &["--stack", "ceph-osd-read", "--cpu", "xeon-e5-2699-v3"],
    );
    assert_eq!(bind(&s, "iops", "read").0, "drives");
    let cpu = s["iops"]["read"]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["element"] == "cpu")
        .unwrap()["iops"]
        .as_f64()
        .unwrap();
    assert!(close(cpu, 36.0 * 2.3e9 / 2e5), "{cpu}");
}

#[test]
fn nf5280m4_per_op_cost_binds_the_cpu() {
    let s = system(
        "flow",
        NF5280,
        &["--cycles-per-op", "1792000", "--ios-per-op", "1"],
    );
    let e = &s["iops"]["read"];
    assert_eq!(e["binding"], "cpu");
    // 44 cores x 2.2 GHz / 1,792,000 cycles.
    assert!(close(e["ops"].as_f64().unwrap(), 44.0 * 2.2e9 / 1.792e6));
}

#[test]
fn served_writes_with_replication_multiply_device_writes_and_nic_traffic() {
    let s = system(
        "flow",
        NF5280,
        &["--stack", "ceph-osd-write", "--serve", "--replication", "3"],
    );
    let e = &s["iops"]["write"];
    // 4 x 20k device writes / 3 copies = 26.67k client writes; the CPU: 44 x 2.2 GHz /
    // (3 x 642,857 cycles) = 50.2k.
    assert_eq!(e["binding"], "drives");
    assert!(close(e["iops"].as_f64().unwrap(), 80_000.0 / 3.0));
    assert_eq!(s["replication"], 3);
    let nic = e["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["element"] == "nic")
        .unwrap();
    // 2 x 10GbE (2.5 GB/s) in: 3 x 4 KiB per client write.
    assert!(close(nic["iops"].as_f64().unwrap(), 2.5e9 / (3.0 * 4096.0)));
}

#[test]
fn a_served_workload_on_a_build_without_a_nic_is_an_error() {
    let (code, out, _) = run(laneplan().args([
        "flow",
        "examples/r740xd-4x-pm1725-plx.toml",
        "--serve",
        "--stack",
        "kernel-libaio",
    ]));
    assert_eq!(code, 1);
    assert!(out.contains("error[LP0209]"), "{out}");
}

#[test]
fn bad_input_is_a_usage_error_with_the_figure_or_name() {
    for (args, want) in [
        (
            vec!["--stack", "ceph-osd-rd"],
            "did you mean `ceph-osd-read`?",
        ),
        (
            vec!["--cpu", "xeon-gold-6310"],
            "did you mean `xeon-gold-6130`?",
        ),
        (
            vec!["--cycles-per-op", "5"],
            "--cycles-per-op needs --ios-per-op",
        ),
        (
            vec!["--cycles-per-io", "nan"],
            "--cycles-per-io must be a finite figure",
        ),
        (
            vec!["--cycles-per-io=-3"],
            "--cycles-per-io must be a finite figure",
        ),
        (
            vec!["--cycles-per-io", "1e15"],
            "--cycles-per-io must be a finite figure",
        ),
        (
            vec!["--stack", "spdk", "--cpu-utilisation", "1.5"],
            "--cpu-utilisation must be a finite figure",
        ),
        (
            vec!["--serve", "--replication", "0"],
            "--replication must be 1 to 16",
        ),
    ] {
        let mut a = vec!["flow", R740XD];
        a.extend(args.iter().copied());
        let (code, _, err) = run(laneplan().args(&a));
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(err.contains(want), "{a:?}: {err}");
    }
}

#[test]
fn a_cpu_the_platform_does_not_take_and_an_unknown_one_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("b.toml");
    let base = std::fs::read_to_string(R740XD).unwrap();
    std::fs::write(
        &p,
        base.replace("cpu = \"xeon-gold-6130\"", "cpu = \"xeon-e5-2699-v4\""),
    )
    .unwrap();
    let (code, out, _) = run(laneplan().args(["check", "--no-tree"]).arg(&p));
    assert_eq!(code, 1);
    assert!(out.contains("error[LP0120]"), "{out}");
    assert!(out.contains("b.toml:12:7"), "{out}");
    std::fs::write(
        &p,
        base.replace("cpu = \"xeon-gold-6130\"", "cpu = \"xeon-gold-613\""),
    )
    .unwrap();
    let (code, _, err) = run(laneplan().args(["check"]).arg(&p));
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `xeon-gold-6130`?"), "{err}");
}

#[test]
fn a_platform_naming_an_unknown_cpu_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("platforms/nf5280m4.toml")
        .unwrap()
        .replace("id = \"nf5280m4\"", "id = \"nf5280m4-lab\"")
        .replacen(
            "cpu_default = \"xeon-e5-2699-v4\"",
            "cpu_default = \"xeon-e5-2699-v5\"",
            1,
        );
    let line = text
        .lines()
        .position(|l| l.contains("xeon-e5-2699-v5"))
        .unwrap()
        + 1;
    std::fs::write(dir.path().join("lab.toml"), text).unwrap();
    let (code, _, err) = run(laneplan()
        .arg("--platform-dir")
        .arg(dir.path())
        .args(["show", "nf5280m4-lab"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("lab.toml:{line}:15")), "{err}");
    assert!(err.contains("unknown CPU `xeon-e5-2699-v5`"), "{err}");
}

#[test]
fn a_builds_memory_speed_sets_the_memory_ceiling() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("b.toml");
    let base = std::fs::read_to_string(NF5280).unwrap();
    let with = |mts: &str| {
        base.replace(
            "cpu = \"xeon-e5-2699-v4\"",
            &format!("cpu = \"xeon-e5-2699-v4\"\nmemory_mts = {mts}"),
        )
    };
    // DDR4-2133 on the E5-2699 v4: 2 sockets x 4 channels x 2133 MT/s x 8 B = 136.51 GB/s.
    std::fs::write(&p, with("2133")).unwrap();
    let s = system("flow", p.to_str().unwrap(), &["--stack", "kernel-libaio"]);
    assert_eq!(s["cpu"]["memory_mts"], 2133);
    assert!(close(s["cpu"]["memory_gbs"].as_f64().unwrap(), 136.512));
    // Above what the CPU runs: LP0121 at the value.
    std::fs::write(&p, with("3200")).unwrap();
    let (code, out, _) = run(laneplan().args(["check", "--no-tree"]).arg(&p));
    assert_eq!(code, 1);
    assert!(out.contains("error[LP0121]"), "{out}");
    assert!(out.contains("b.toml:10:14"), "{out}");
}

#[test]
fn r740xd_24_sas_ssds_on_an_hba330_bind_at_its_x8_host_link_by_name() {
    // 24 x Toshiba PM5 (340k 4K reads, 2.1 GB/s each, each on its own 12 Gb/s SAS link of
    // 1.2 GB/s) behind an HBA330 Mini: 8 SAS ports (9.6 GB/s) and a PCIe Gen3 x8 host link
    // (7.1826 GB/s device to host, direction-aware, MPS 256). The link binds both views.
    let s = system("flow", R740XD_SAS, &["--stack", "kernel-libaio"]);
    for view in ["iops", "bandwidth"] {
        let e = &s[view]["read"];
        assert_eq!(e["binding"], "links", "{view}: {e}");
        assert_eq!(e["binding_id"], "link:mini-perc>mini-perc/card", "{view}");
        assert_eq!(
            e["binding_label"], "Integrated storage controller slot link Gen3 x8 (HBA330 Mini)",
            "{view}"
        );
        assert!(
            (e["gbs"].as_f64().unwrap() - 7.1826).abs() < 1e-4,
            "{view}: {e}"
        );
    }
    // 7.1826 GB/s / 4,096 B = 1.754 M 4K reads, against the drives' 24 x 340k = 8.16 M.
    let (_, iops, spare) = bind(&s, "iops", "read");
    assert!((iops - 1_753_565.4).abs() < 1.0, "{iops}");
    // The CPUs: 1.754 M x 10,000 cycles / 2.1 GHz = 8.35 of 32 cores, 23.65 to spare.
    assert!(
        close(spare.unwrap(), 32.0 - iops * 1e4 / 2.1e9),
        "{spare:?}"
    );
    let drives = s["iops"]["read"]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["element"] == "drives")
        .unwrap()["iops"]
        .as_f64()
        .unwrap();
    assert!(close(drives, 8_160_000.0), "{drives}");
    // 4K writes: the drives' 24 x 60k = 1.44 M bind (5.90 GB/s, under the link); a sum of 24
    // specs that equals the expected max-flow is not a controller bound.
    let w = &s["iops"]["write"];
    assert_eq!(w["binding"], "drives", "{w}");
    assert!(close(w["iops"].as_f64().unwrap(), 1_440_000.0), "{w}");
    assert!(
        w["elements"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["element"] != "controller"),
        "{w}"
    );
    let (code, out, _) = run(laneplan().args([
        "--wide",
        "check",
        R740XD_SAS,
        "--no-tree",
        "--stack",
        "kernel-libaio",
    ]));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("4K read: 1.75 M IOPS, Integrated storage controller slot link Gen3 x8 (HBA330 Mini) bind"),
        "{out}"
    );
}

#[test]
fn sas_and_sata_drive_links_come_from_the_parts_data() {
    // The bays' own links: SATA 6 Gb/s (DC S3510, 0.6 GB/s after 8b/10b) and SAS 12 Gb/s
    // (PM5, 1.2 GB/s), from `storage_gbps` in platforms/parts.toml; the HBA330's SAS side
    // 8 x 12 Gb/s = 9.6 GB/s.
    let flow = |build: &str| -> Value {
        let (code, out, err) = run(laneplan().args(["flow", build, "--json"]));
        assert!(code == 0 || code == 1, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        v["bandwidth"].clone()
    };
    let find = |v: &Value, id: &str| -> Value {
        v["elements"]
            .as_array()
            .unwrap_or_else(|| panic!("no elements: {v}"))
            .iter()
            .find(|e| e["id"] == id)
            .unwrap_or_else(|| panic!("no element {id}"))
            .clone()
    };
    let e = find(&flow(NF5280), "link:bay0>bay0/drive");
    assert_eq!(e["label"], "Bay 0 SATA link 6 Gb/s");
    assert!(
        close(e["read"]["capacity_gbs"].as_f64().unwrap(), 0.6),
        "{e}"
    );
    let v = flow(R740XD_SAS);
    let e = find(&v, "link:bay23>bay23/drive");
    assert_eq!(e["label"], "Bay 23 SAS link 12 Gb/s");
    assert!(
        close(e["read"]["capacity_gbs"].as_f64().unwrap(), 1.2),
        "{e}"
    );
    let side = find(&v, "limit:mini-perc/card");
    assert!(
        close(side["read"]["capacity_gbs"].as_f64().unwrap(), 9.6),
        "{side}"
    );
}

#[test]
fn a_drive_link_above_its_interface_is_a_located_error() {
    let mut cat = laneplan::platform::Catalog::builtin().unwrap();
    let text = "[[part]]\nid = \"fast-sata\"\nname = \"Fast SATA\"\nclass = \"sata-drive\"\ninterface = \"sata\"\nsize = \"2.5\"\ngen = 1\nwidth = 1\nstorage_gbps = 12.0\n";
    let errs = cat
        .add_file(laneplan::source::SourceFile::new("extra-parts.toml", text))
        .unwrap_err();
    assert_eq!(errs.errors.len(), 1, "{errs:?}");
    let e = &errs.errors[0];
    assert_eq!(
        e.message,
        "drive `fast-sata`: storage_gbps 12 is above SATA's 6 Gb/s"
    );
    // Located at the figure: line 9, after `storage_gbps = `.
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        ("extra-parts.toml", 9, 16)
    );
}

#[test]
fn a_workload_without_a_cost_figure_says_which_is_missing() {
    // A CPU named but no cost: the CPU is not weighed, and the output says which figures
    // would weigh it; JSON `system.cost` is null and no `cpu` bound is computed.
    let (code, out, _) = run(laneplan().args([
        "--wide",
        "check",
        R740XD,
        "--no-tree",
        "--cpu",
        "xeon-gold-6130",
    ]));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "no cost figure (--stack, --cycles-per-io or --cycles-per-op): the CPU is not weighed"
        ),
        "{out}"
    );
    let s = system("flow", R740XD, &["--cpu", "xeon-gold-6130"]);
    assert!(s["cost"].is_null(), "{s}");
    assert!(
        s["iops"]["read"]["elements"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["element"] != "cpu")
    );
    // Half a cost: each names the figure it lacks (usage errors, exit 2).
    for (args, want) in [
        (vec!["--cycles-per-byte", "2"], "--cycles-per-io"),
        (
            vec!["--ios-per-op", "2"],
            "--ios-per-op needs --cycles-per-op",
        ),
        (
            vec!["--stack", "spdk", "--io-size", "0"],
            "--io-size must be a finite figure",
        ),
        (
            vec!["--stack", "spdk", "--io-size", "nan"],
            "--io-size must be a finite figure",
        ),
    ] {
        let mut a = vec!["flow", R740XD];
        a.extend(args.iter().copied());
        let (code, _, err) = run(laneplan().args(&a));
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(err.contains(want), "{a:?}: {err}");
    }
}
