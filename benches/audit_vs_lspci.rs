//! Benchmark (not a test): `laneplan audit` on a generated 2,000-function sysfs tree, whole
//! process, against `lspci -tv` on the same root. Prints the medians and their ratio.
//!
//!     cargo bench --bench audit_vs_lspci
//!
//! Tree: 8 domains x 5 root ports x (switch upstream port + 24 downstream ports + 24 NVMe
//! endpoints) = 2,000 functions, every one with a 256-byte config space and link attributes.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn write(p: &Path, s: &str) {
    std::fs::write(p, s).unwrap();
}

#[allow(clippy::too_many_arguments)]
fn func(
    root: &Path,
    rel: &str,
    bdf: &str,
    vendor: u16,
    device: u16,
    class: u32,
    bus_range: Option<(u8, u8)>,
    ptype: u8,
) {
    let d = root.join("sys/devices").join(rel);
    std::fs::create_dir_all(&d).unwrap();
    write(&d.join("vendor"), &format!("0x{vendor:04x}\n"));
    write(&d.join("device"), &format!("0x{device:04x}\n"));
    write(&d.join("class"), &format!("0x{class:06x}\n"));
    write(&d.join("subsystem_vendor"), "0x1028\n");
    write(&d.join("subsystem_device"), "0x0000\n");
    write(&d.join("numa_node"), "0\n");
    write(&d.join("irq"), "0\n");
    write(
        &d.join("resource"),
        &"0x0000000000000000 0x0000000000000000 0x0000000000000000\n".repeat(13),
    );
    write(&d.join("current_link_speed"), "8.0 GT/s PCIe\n");
    write(&d.join("current_link_width"), "4\n");
    write(&d.join("max_link_speed"), "8.0 GT/s PCIe\n");
    write(&d.join("max_link_width"), "4\n");
    let mut c = vec![0u8; 256];
    c[0..2].copy_from_slice(&vendor.to_le_bytes());
    c[2..4].copy_from_slice(&device.to_le_bytes());
    c[6] = 0x10;
    c[9] = (class & 0xff) as u8;
    c[10] = (class >> 8) as u8;
    c[11] = (class >> 16) as u8;
    if let Some((s, u)) = bus_range {
        c[0x0e] = 1;
        c[0x19] = s;
        c[0x1a] = u;
        write(&d.join("secondary_bus_number"), &format!("{s}\n"));
        write(&d.join("subordinate_bus_number"), &format!("{u}\n"));
    }
    c[0x34] = 0x40;
    c[0x40] = 0x10;
    c[0x42] = 2 | (ptype << 4);
    c[0x4c] = 3 | (4 << 4);
    c[0x52] = 3 | (4 << 4);
    std::fs::write(d.join("config"), &c).unwrap();
    let devs = root.join("sys/bus/pci/devices");
    std::fs::create_dir_all(&devs).unwrap();
    symlink(format!("../../../devices/{rel}"), devs.join(bdf)).unwrap();
}

fn generate(root: &Path) -> usize {
    let mut n = 0;
    for dom in 0..8u32 {
        let mut next_bus: u8 = 1;
        for rp in 0..5u8 {
            let rp_bdf = format!("{dom:04x}:00:{:02x}.0", rp + 1);
            let rp_rel = format!("pci{dom:04x}:00/{rp_bdf}");
            let up_bus = next_bus;
            let sub = up_bus + 25;
            func(
                root,
                &rp_rel,
                &rp_bdf,
                0x8086,
                0x2030,
                0x060400,
                Some((up_bus, sub)),
                4,
            );
            let up_bdf = format!("{dom:04x}:{up_bus:02x}:00.0");
            let up_rel = format!("{rp_rel}/{up_bdf}");
            func(
                root,
                &up_rel,
                &up_bdf,
                0x10b5,
                0x9797,
                0x060400,
                Some((up_bus + 1, sub)),
                5,
            );
            n += 2;
            for p in 0..24u8 {
                let dn_bus = up_bus + 1;
                let ep_bus = up_bus + 2 + p;
                let dn_bdf = format!("{dom:04x}:{dn_bus:02x}:{p:02x}.0");
                let dn_rel = format!("{up_rel}/{dn_bdf}");
                func(
                    root,
                    &dn_rel,
                    &dn_bdf,
                    0x10b5,
                    0x9797,
                    0x060400,
                    Some((ep_bus, ep_bus)),
                    6,
                );
                let ep_bdf = format!("{dom:04x}:{ep_bus:02x}:00.0");
                func(
                    root,
                    &format!("{dn_rel}/{ep_bdf}"),
                    &ep_bdf,
                    0x1344,
                    0x51b1,
                    0x010802,
                    None,
                    0,
                );
                n += 2;
            }
            next_bus = sub + 1;
        }
    }
    n
}

fn time(cmd: &mut Command) -> f64 {
    let t = Instant::now();
    let out = cmd.output().expect("run");
    assert!(
        !out.stdout.is_empty(),
        "{:?} printed nothing: {}",
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
    // LANEPLAN_BENCH_TREE=DIR: only write the tree there (for profiling both tools on it).
    if let Ok(keep) = std::env::var("LANEPLAN_BENCH_TREE") {
        let n = generate(Path::new(&keep));
        println!("wrote {n} functions below {keep}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let n = generate(root);
    assert_eq!(n, 2000);
    let bin = env!("CARGO_BIN_EXE_laneplan");
    // Under `cargo test` (no `--bench`) the binary is a debug build: one pair only checks that
    // both tools read the tree; its times are no measurement and are not printed as one.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 11 };
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ours.push(time(
            Command::new(bin).args(["audit", "--sysfs-root"]).arg(root),
        ));
        theirs.push(time(
            Command::new("lspci")
                .args(["-A", "linux-sysfs", "-O"])
                .arg(format!("sysfs.path={}", root.join("sys/bus/pci").display()))
                .arg("-tv"),
        ));
    }
    let (a, b) = (median(ours), median(theirs));
    if quick {
        println!(
            "quick: both tools read the {n}-function tree (debug build: run `cargo bench --bench audit_vs_lspci` for timings)"
        );
        return;
    }
    println!("functions: {n}, runs: {runs} (interleaved)");
    println!("laneplan audit (whole process): median {:.1} ms", a * 1e3);
    println!("lspci -tv (whole process):      median {:.1} ms", b * 1e3);
    println!("ratio laneplan/lspci: {:.2} (target <= 1.0)", a / b);
}
