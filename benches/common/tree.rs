//! The generated sysfs tree of the audit and gather benchmarks: domains x 5 root ports x
//! (switch upstream port + 24 downstream ports + 24 NVMe endpoints), 250 functions a domain,
//! every one with a 256-byte config space and link attributes.

use std::os::unix::fs::symlink;
use std::path::Path;

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

pub fn generate(root: &Path, domains: u32) -> usize {
    let mut n = 0;
    for dom in 0..domains {
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
