//! Drives on a root bus with no port above them (a POWER host, issue #24): learned as bays
//! of their own, planned in the build, compared by the audit.

use crate::common::{laneplan, unpack};
use std::path::Path;

const POWER: &str = "libnvme-power-nvme-multipath/tree-pcie.tar.xz";

fn learn(root: &Path, out: &Path) -> String {
    let o = laneplan()
        .args(["learn", "--sysfs-root"])
        .arg(root)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

fn audit(root: &Path, out: &Path) -> (Option<i32>, String) {
    let o = laneplan()
        .args(["audit", "--sysfs-root"])
        .arg(root)
        .arg("--platform-dir")
        .arg(out.join("platform"))
        .arg("--against")
        .arg(out.join("build.toml"))
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn power_drives_on_root_buses_are_learned_planned_and_found() {
    let (_t, root) = unpack(POWER);
    let out = tempfile::tempdir().unwrap();
    let said = learn(&root, out.path());
    assert!(said.contains("3 sockets"), "{said}");
    assert!(!said.contains("LP0500"), "{said}");
    let build = std::fs::read_to_string(out.path().join("build.toml")).unwrap();
    assert_eq!(build.matches("[[bay]]").count(), 3, "{build}");
    assert!(build.contains("bays = \"0\"\npart = \"nvme-3-2tb-nvme-gen4-u-2-ssd-v\""));
    assert!(build.contains("bays = \"1\"\npart = \"nvme-3-2tb-nvme-gen4-u-2-ssd-iii\""));
    assert!(build.contains("bays = \"2\"\npart = \"nvme-3-2tb-nvme-gen4-u-2-ssd-iii\""));
    let plat = std::fs::read_to_string(out.path().join("platform/learned-host.toml")).unwrap();
    for loc in [
        "backplane = \"U78DA.ND0.WZS004R-P1-C4\"",
        "backplane = \"U50EE.001.WZS000E-P3-C14-R1\"",
        "backplane = \"U50EE.001.WZS000E-P3-C14-R2\"",
    ] {
        assert_eq!(plat.matches(loc).count(), 1, "{loc}");
    }
    // NUMA nodes from the nvme controllers: 0214:90 on 1, 052e:78 on 0, 058e:78 on 2.
    for (bus, numa) in [("0214-90", 1), ("052e-78", 0), ("058e-78", 2)] {
        let at = plat.find(&format!("id = \"bus-{bus}\"")).unwrap();
        let rc = &plat[at..at + 400];
        assert!(rc.contains(&format!("numa_node = {numa}\n")), "{rc}");
        assert!(rc.contains(&format!("socket = \"cpu{numa}\"")), "{rc}");
    }
    for n in 0..3 {
        assert!(plat.contains(&format!("numa_nodes = [{n}]")), "{plat}");
    }
    assert!(!plat.contains("[[builtin]]"), "{plat}");
    let parts =
        std::fs::read_to_string(out.path().join("platform/learned-host-parts.toml")).unwrap();
    assert!(parts.contains("class NVMe inferred from its nvme controller"));
    assert_eq!(parts.matches("[[part]]").count(), 2, "{parts}");

    let (code, text) = audit(&root, out.path());
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("3 of 3 planned found"), "{text}");
}

#[test]
fn a_missing_or_changed_power_drive_is_reported() {
    let (_t, root) = unpack(POWER);
    let out = tempfile::tempdir().unwrap();
    learn(&root, out.path());
    // A copy without the third drive's function.
    let (_t2, gone) = unpack(POWER);
    std::fs::remove_dir_all(gone.join("sys/devices/pci058e:78/058e:78:00.0")).unwrap();
    let (code, text) = audit(&gone, out.path());
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("2 of 3 planned found"), "{text}");
    assert!(text.contains("| Bay 2 | missing | -"), "{text}");
    // A copy whose second drive reports another model.
    let (_t3, other) = unpack(POWER);
    std::fs::write(
        other.join("sys/devices/pci052e:78/052e:78:00.0/nvme/nvme1/model"),
        "OTHER MODEL 9999\n",
    )
    .unwrap();
    let (code, text) = audit(&other, out.path());
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("2 of 3 planned found"), "{text}");
    assert!(
        text.contains(
            "Bay 1: wrong part: planned 3.2TB NVMe Gen4 U.2 SSD III, found OTHER MODEL 9999"
        ),
        "{text}"
    );
}

/// An Apple SoC's NVMe controller is no PCI function: the PCI build is empty, and learn says
/// why (LP0500 naming the controller), exit 0; the audit against it compares nothing.
#[test]
fn apple_nvme_learns_an_empty_pci_build_and_says_why() {
    let (_t, root) = unpack("libnvme-power-nvme-multipath/tree-apple-nvme.tar.xz");
    let out = tempfile::tempdir().unwrap();
    let said = learn(&root, out.path());
    assert!(
        said.contains("warning[LP0500]: the learned build plans no part: sysfs:"),
        "{said}"
    );
    assert!(
        said.contains(
            "shows no device on a root port; its NVMe controller(s) nvme0 (APPLE SSD AP2048Z, transport apple-nvme) are not PCI functions, so there is no PCI position to plan them in"
        ),
        "{said}"
    );
    let (code, text) = audit(&root, out.path());
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains(
            "(the plan has no bay, slot or card to compare with the host)\n0 of 0 planned found"
        ),
        "{text}"
    );
}
