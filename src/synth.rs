//! Generated topologies for benchmarks and property tests.
//!
//! * [`platform`]: a large deterministic server: several sockets joined by a full mesh of
//!   inter-socket links, x16 root complexes, two levels of cascaded switches, NVMe drives.
//! * [`from_spec`]: a random tree described by a [`TreeSpec`] (proptest generates these):
//!   2 sockets and a fabric link, switches and devices with random widths, generations and
//!   specs, some trained below their maximum.

use crate::pcie::{Gen, LinkRate};
use crate::topology::{DeviceClass, FabricKind, Link, Node, NodeKind, NodeLimit, Perf, Topology};
use petgraph::stable_graph::NodeIndex;

fn socket(t: &mut Topology, i: u8) -> NodeIndex {
    t.add_node(Node::new(
        format!("cpu{}", i + 1),
        format!("CPU{}", i + 1),
        NodeKind::Socket {
            index: i,
            lanes: 128,
            numa_nodes: vec![u32::from(i)],
        },
    ))
    .expect("fresh id")
}

fn drive(id: String, read: f64, write: f64) -> Node {
    Node::new(
        id,
        "NVMe drive",
        NodeKind::Device {
            class: DeviceClass::Nvme,
            part: Some("synthetic".into()),
            perf: Some(Box::new(Perf {
                seq_read_gbs: read,
                seq_write_gbs: write,
                rand_read_iops: 1_000_000.0,
                rand_write_iops: 300_000.0,
            })),
        },
    )
}

fn pcie(g: Gen, w: u8) -> Link {
    Link::Pcie {
        rate: LinkRate::new(g, w),
        max: Some(LinkRate::new(g, w)),
    }
}

/// A generated server with `n_devices` Gen4 NVMe drives (6.5 / 3.7 GB/s): 4 sockets in a
/// full mesh (xGMI, 64 GB/s per direction each), per root complex an x16 Gen4 port to a
/// first-level switch with 4 x8 ports, each to a second-level switch with 8 x4 ports,
/// each port a bay with a drive (32 drives per root complex). Every tenth root complex
/// states a 24 GB/s limit.
pub fn platform(n_devices: usize) -> Topology {
    const SOCKETS: u8 = 4;
    let mut t = Topology::new(format!("synthetic {n_devices} drives"));
    let sockets: Vec<NodeIndex> = (0..SOCKETS).map(|i| socket(&mut t, i)).collect();
    for a in 0..sockets.len() {
        for b in a + 1..sockets.len() {
            t.link(
                sockets[a],
                sockets[b],
                Link::Fabric {
                    fabric: FabricKind::Xgmi,
                    links: 2,
                    gbs_per_direction: 64.0,
                },
            );
        }
    }
    let per_rc = 32;
    let n_rc = n_devices.div_ceil(per_rc);
    let mut placed = 0;
    for r in 0..n_rc {
        let s = sockets[r % sockets.len()];
        let sid = t.node(s).id.clone();
        let mut rc = Node::new(
            format!("{sid}/rc{r}"),
            format!("Root complex {r}"),
            NodeKind::RootComplex {
                lanes: 16,
                numa_node: None,
                generation: Gen::G4,
            },
        );
        if r % 10 == 9 {
            rc.limit = Some(Box::new(NodeLimit {
                read_gbs: 24.0,
                write_gbs: 24.0,
                what: "root complex limit 24 GB/s".into(),
            }));
        }
        let rc = t.add_node(rc).expect("fresh id");
        t.link(s, rc, Link::Attach);
        let rp = t
            .add_node(Node::new(
                format!("rc{r}/rp"),
                "Root port",
                NodeKind::RootPort {
                    width: 16,
                    generation: Gen::G4,
                },
            ))
            .expect("fresh id");
        t.link(rc, rp, Link::Attach);
        let sw1 = t
            .add_node(Node::new(
                format!("rc{r}/sw"),
                format!("Switch {r}"),
                NodeKind::Switch { part: None },
            ))
            .expect("fresh id");
        t.link(rp, sw1, pcie(Gen::G4, 16));
        'ports: for p in 0..4 {
            let dp = t
                .add_node(Node::new(
                    format!("rc{r}/sw/p{p}"),
                    format!("Downstream port {p}"),
                    NodeKind::SwitchPort {
                        width: 8,
                        generation: Gen::G4,
                        number: Some(p),
                    },
                ))
                .expect("fresh id");
            t.link(sw1, dp, Link::Attach);
            let sw2 = t
                .add_node(Node::new(
                    format!("rc{r}/sw/p{p}/sw"),
                    format!("Switch {r}.{p}"),
                    NodeKind::Switch { part: None },
                ))
                .expect("fresh id");
            t.link(dp, sw2, pcie(Gen::G4, 8));
            for q in 0..8 {
                if placed == n_devices {
                    break 'ports;
                }
                let dq = t
                    .add_node(Node::new(
                        format!("rc{r}/sw/p{p}/sw/p{q}"),
                        format!("Downstream port {q}"),
                        NodeKind::SwitchPort {
                            width: 4,
                            generation: Gen::G4,
                            number: Some(q),
                        },
                    ))
                    .expect("fresh id");
                t.link(sw2, dq, Link::Attach);
                let bay = t
                    .add_node(Node::new(
                        format!("bay{placed}"),
                        format!("Bay {placed}"),
                        NodeKind::Bay {
                            number: placed as u32,
                        },
                    ))
                    .expect("fresh id");
                t.link(dq, bay, Link::Attach);
                let d = t
                    .add_node(drive(format!("bay{placed}/drive"), 6.5, 3.7))
                    .expect("fresh id");
                t.link(bay, d, pcie(Gen::G4, 4));
                placed += 1;
            }
        }
    }
    t
}

/// One generated element of a random tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemSpec {
    /// Index into the attach points made so far (taken modulo their count).
    pub parent: usize,
    /// A switch (an attach point for later items) or a device.
    pub switch: bool,
    pub generation: u8,
    pub width: u8,
    /// The device's maximum generation (>= `generation`: above it, the link is downtrained).
    pub max_generation: u8,
    pub read_gbs: f64,
    pub write_gbs: f64,
}

/// A random tree: 2 sockets, a fabric link between them, items hung below.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeSpec {
    pub fabric_gbs: f64,
    pub items: Vec<ItemSpec>,
}

/// Builds the topology a [`TreeSpec`] describes. Ports are made on the fly: root ports below
/// a socket, switch ports below a switch; every device and switch hangs on its own port with
/// a PCIe link of the item's generation and width.
pub fn from_spec(spec: &TreeSpec) -> Topology {
    let mut t = Topology::new("random");
    let s0 = socket(&mut t, 0);
    let s1 = socket(&mut t, 1);
    t.link(
        s0,
        s1,
        Link::Fabric {
            fabric: FabricKind::Upi,
            links: 1,
            gbs_per_direction: spec.fabric_gbs,
        },
    );
    let mut attach = vec![s0, s1];
    for (i, it) in spec.items.iter().enumerate() {
        let parent = attach[it.parent % attach.len()];
        let g = Gen::new(it.generation.clamp(1, 5)).unwrap_or(Gen::G3);
        let gmax = Gen::new(it.max_generation.clamp(1, 5)).unwrap_or(g).max(g);
        let w = it.width;
        let port_kind = match t.node(parent).kind {
            NodeKind::Switch { .. } => NodeKind::SwitchPort {
                width: w,
                generation: g,
                number: None,
            },
            _ => NodeKind::RootPort {
                width: w,
                generation: g,
            },
        };
        let port = t
            .add_node(Node::new(
                format!("i{i}/port"),
                format!("Port {i}"),
                port_kind,
            ))
            .expect("fresh id");
        t.link(parent, port, Link::Attach);
        let link = Link::Pcie {
            rate: LinkRate::new(g, w),
            max: Some(LinkRate::new(gmax, w)),
        };
        if it.switch {
            let sw = t
                .add_node(Node::new(
                    format!("i{i}/switch"),
                    format!("Switch {i}"),
                    NodeKind::Switch { part: None },
                ))
                .expect("fresh id");
            t.link(port, sw, link);
            attach.push(sw);
        } else {
            let d = t
                .add_node(drive(format!("i{i}/drive"), it.read_gbs, it.write_gbs))
                .expect("fresh id");
            t.link(port, d, link);
        }
    }
    t
}

/// A generated platform file and a build filling it, as TOML text, for the load + check
/// benchmark: `sockets` sockets, x16 root complexes, each feeding a first-level switch
/// (x16 up) with four second-level switches (x8 up, cascaded), each serving eight x4 NVMe
/// bays: 32 drives per root complex, `n_devices` drives in all (rounded up to 32).
pub fn platform_toml(n_devices: usize, sockets: usize) -> (String, String) {
    use std::fmt::Write;
    let rcs = n_devices.div_ceil(32);
    let per_socket = rcs.div_ceil(sockets);
    let mut p = String::with_capacity(rcs * 1600);
    let _ = writeln!(
        p,
        "id = \"synthetic\"\nname = \"Synthetic {n_devices}-drive server\"\nform = \"4U\"\n"
    );
    for s in 0..sockets {
        let _ = writeln!(
            p,
            "[[socket]]\nid = \"cpu{s}\"\nlabel = \"CPU{s}\"\nindex = {s}\ncpu = \"synthetic\"\nlanes = {}\ngen = 4\nnuma_nodes = [{s}]\n",
            per_socket * 16
        );
    }
    for s in 1..sockets {
        let _ = writeln!(
            p,
            "[[fabric]]\nkind = \"XGMI\"\nbetween = [\"cpu0\", \"cpu{s}\"]\nlinks = 4\ngbs_per_link = 32.0\n"
        );
    }
    let mut bay = 0usize;
    for r in 0..rcs {
        let s = r % sockets;
        let _ = writeln!(
            p,
            "[[root_complex]]\nid = \"rc{r}\"\nlabel = \"RC {r}\"\nsocket = \"cpu{s}\"\nlanes = 16\ngen = 4\nnuma_node = {s}\n"
        );
        let _ = writeln!(
            p,
            "[[switch]]\nid = \"sw{r}\"\nlabel = \"Switch {r}\"\nuplink = \"rc{r}\"\nuplink_width = 16\ngen = 4\n"
        );
        for k in 0..4 {
            let _ = writeln!(
                p,
                "[[switch]]\nid = \"sw{r}.{k}\"\nlabel = \"Switch {r}.{k}\"\nuplink = \"sw{r}\"\nuplink_width = 8\ngen = 4\n"
            );
            let _ = writeln!(
                p,
                "[[bays]]\nbays = \"{}-{}\"\nsize = \"2.5\"\ninterfaces = [\"nvme\"]\nvia = \"switch\"\nto = \"sw{r}.{k}\"\nbackplane_gen = 4\n",
                bay,
                bay + 7
            );
            bay += 8;
        }
    }
    // One `[[bay]]` entry per 32,768 bays: a bay list names at most `MAX_LIST_BAYS`.
    let mut build = String::from("platform = \"synthetic\"\nname = \"all bays filled\"\n");
    for first in (0..bay).step_by(32_768) {
        let _ = write!(
            build,
            "\n[[bay]]\nbays = \"{first}-{}\"\npart = \"skhynix-pe8010-3.84tb\"\n",
            (first + 32_768).min(bay) - 1
        );
    }
    (p, build)
}

/// A generated platform for `place`'s stress benchmark (benches/place.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlaceStress {
    /// Distinct card types in the parts list, one card each (1 to 8).
    pub card_types: usize,
    /// PCIe slots (2 to 40): two x8 slots sharing an x16 root complex (x8x8), then an x16
    /// slot on its own, and so on.
    pub slots: usize,
    /// NVMe bay groups of four bays, each on its own root complex (2 to 16).
    pub bay_groups: usize,
    /// Option keys with two choices each (0 to 10: up to 1,024 option sets). Key k < bay
    /// groups switches group k between a Gen3 backplane (default) and a Gen4 kit; the keys
    /// beyond change nothing (their second choice is dominated).
    pub option_keys: usize,
}

/// The card types the stress parts lists draw from, in order (PCIe cards of the built-in
/// catalogue: NICs of x8 and x16 edge, a boot card, an x16 accelerator).
pub const STRESS_CARDS: [&str; 8] = [
    "intel-x710-da2",
    "mellanox-cx5-100g",
    "mellanox-cx4lx-25g",
    "boss-s1",
    "mellanox-cx6dx-100g",
    "intel-i350-t4",
    "broadcom-5720-2p-dell",
    "xilinx-10ee-5000",
];

/// The platform file (id `stress`) and the parts list: one card of each type, Gen4 drives
/// in three quarters of the bays and Gen3 drives in the rest.
pub fn place_stress(s: &PlaceStress) -> (String, Vec<(String, usize)>) {
    use std::fmt::Write;
    let mut p =
        String::from("id = \"stress\"\nname = \"Generated stress platform\"\nform = \"2U\"\n\n");
    let mut rcs: Vec<(usize, &str)> = Vec::new(); // (socket, bifurcation)
    let mut slot_rc = Vec::new();
    let mut i = 0;
    while i < s.slots {
        if i % 3 == 2 {
            rcs.push((rcs.len() % 2, "[\"x16\"]"));
            slot_rc.push((rcs.len() - 1, 16u8));
            i += 1;
        } else {
            rcs.push((rcs.len() % 2, "[\"x16\", \"x8x8\"]"));
            slot_rc.push((rcs.len() - 1, 8));
            if i + 1 < s.slots && (i + 1) % 3 != 2 {
                slot_rc.push((rcs.len() - 1, 8));
                i += 1;
            }
            i += 1;
        }
    }
    let first_group_rc = rcs.len();
    for _ in 0..s.bay_groups {
        rcs.push((rcs.len() % 2, "[\"x16\", \"x4x4x4x4\"]"));
    }
    for k in 0..2 {
        let lanes = 16 * rcs.iter().filter(|r| r.0 == k).count();
        let _ = writeln!(
            p,
            "[[socket]]\nid = \"cpu{k}\"\nlabel = \"CPU{k}\"\nindex = {k}\ncpu = \"generated\"\nlanes = {lanes}\ngen = 4\nnuma_nodes = [{k}]\n"
        );
    }
    p.push_str("[[fabric]]\nkind = \"UPI\"\nbetween = [\"cpu0\", \"cpu1\"]\nlinks = 2\ngbs_per_link = 20.8\n\n");
    for (r, (sock, bif)) in rcs.iter().enumerate() {
        let _ = writeln!(
            p,
            "[[root_complex]]\nid = \"rc{r}\"\nlabel = \"RC {r}\"\nsocket = \"cpu{sock}\"\nlanes = 16\ngen = 4\nnuma_node = {sock}\nbifurcation = {bif}\n"
        );
    }
    for (i, (rc, w)) in slot_rc.iter().enumerate() {
        let _ = writeln!(
            p,
            "[[slot]]\nid = \"slot{}\"\nlabel = \"Slot {}\"\nroot_complex = \"rc{rc}\"\nelectrical = {w}\nmechanical = {w}\nheight = \"low\"\nlength = \"half\"\n",
            i + 1,
            i + 1
        );
    }
    let group = |g: usize, bp: u8| {
        format!(
            "bays = \"{}-{}\"\nsize = \"2.5\"\ninterfaces = [\"nvme\"]\nvia = \"direct\"\nto = \"rc{}\"\nbackplane_gen = {bp}\n",
            4 * g,
            4 * g + 3,
            first_group_rc + g
        )
    };
    for g in s.option_keys.min(s.bay_groups)..s.bay_groups {
        let _ = writeln!(p, "[[bays]]\n{}", group(g, 4));
    }
    for k in 0..s.option_keys {
        let _ = writeln!(
            p,
            "[[option]]\nkey = \"opt{k}\"\nlabel = \"Option {k}\"\ndefault = \"a\"\n\n[[option.choice]]\nvalue = \"a\"\nlabel = \"a\""
        );
        if k < s.bay_groups {
            let _ = writeln!(p, "\n[[option.choice.bays]]\n{}", group(k, 3));
        }
        p.push_str("\n[[option.choice]]\nvalue = \"b\"\nlabel = \"b\"\n");
        if k < s.bay_groups {
            let _ = writeln!(p, "\n[[option.choice.bays]]\n{}", group(k, 4));
        }
        p.push('\n');
    }
    let bays = 4 * s.bay_groups;
    let mut parts: Vec<(String, usize)> = STRESS_CARDS[..s.card_types.clamp(1, 8)]
        .iter()
        .map(|c| (c.to_string(), 1))
        .collect();
    let gen4 = bays * 3 / 4;
    parts.push(("skhynix-pe8010-3.84tb".into(), gen4));
    if bays > gen4 {
        parts.push(("micron-9300-pro-3.84tb".into(), bays - gen4));
    }
    (p, parts)
}
