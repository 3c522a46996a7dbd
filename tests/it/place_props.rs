//! Property: on generated small platforms and parts lists, `place`'s optimum scores exactly
//! what exhaustive enumeration (every assignment, each run through `check`) finds best, and
//! every placement `place` ranks passes `check` with 0 errors.

use laneplan::finding::Severity;
use laneplan::place::{self, Objective, Request, exhaustive};
use laneplan::plan;
use laneplan::platform::Catalog;
use laneplan::platform::schema::BuildFile;
use laneplan::source::{SourceFile, parse_toml};
use proptest::prelude::*;
use std::fmt::Write;

#[derive(Debug, Clone)]
struct Gen {
    sockets: usize,
    socket_lanes: u16,
    /// Per slot: (root complex index, electrical, mechanical, full height).
    slots: Vec<(usize, u8, u8, bool)>,
    mini_perc: bool,
    /// Per NVMe group: (root complex index, bays).
    nvme: Vec<(usize, u16)>,
    /// SAS bays behind the mini PERC slot.
    sas: u16,
    /// A second front option: the NVMe groups of the first choice merged into one, on the
    /// last root complex.
    option: bool,
    card_rule: bool,
    cards: Vec<(usize, usize)>,
    drives: Vec<(usize, usize)>,
    objective: usize,
}

const CARDS: [&str; 4] = [
    "intel-x710-da2",
    "mellanox-cx5-100g",
    "boss-s1",
    "hba330-mini",
];
const DRIVES: [&str; 3] = [
    "micron-9300-pro-3.84tb",
    "samsung-pm1725a-1.6tb",
    "toshiba-pm5-1.92tb",
];

fn generated() -> impl Strategy<Value = Gen> {
    (
        1usize..=2,
        prop::sample::select(vec![16u16, 24, 32]),
        prop::collection::vec(
            (
                0usize..4,
                prop::sample::select(vec![4u8, 8, 16]),
                prop::bool::ANY,
                prop::bool::ANY,
            ),
            1..=4,
        ),
        prop::bool::weighted(0.7),
        prop::collection::vec((0usize..4, 1u16..=4), 1..=3),
        0u16..=3,
        prop::bool::ANY,
        prop::bool::weighted(0.3),
        prop::collection::vec((0usize..3, 1usize..=1), 0..=2),
        prop::collection::vec((0usize..3, 1usize..=2), 1..=2),
        0usize..4,
    )
        .prop_map(
            |(
                sockets,
                socket_lanes,
                slots,
                mini_perc,
                nvme,
                sas,
                option,
                card_rule,
                cards,
                drives,
                objective,
            )| Gen {
                sockets,
                socket_lanes,
                slots: slots
                    .into_iter()
                    .map(|(rc, e, wide, full)| (rc, e, if wide { 16 } else { e }, full))
                    .collect(),
                mini_perc: mini_perc || drives.iter().any(|d| d.0 == 2),
                nvme,
                sas,
                option,
                card_rule,
                // SAS drives come with the HBA that serves their bays.
                cards: if drives.iter().any(|d| d.0 == 2) {
                    cards.into_iter().chain([(3, 1)]).collect()
                } else {
                    cards
                },
                drives,
                objective,
            },
        )
}

/// Two root complexes per socket: rc k on socket k % sockets.
fn platform_toml(g: &Gen) -> String {
    let mut p = String::from("id = \"gen\"\nname = \"Generated\"\nform = \"2U\"\n\n");
    for s in 0..g.sockets {
        let _ = writeln!(
            p,
            "[[socket]]\nid = \"cpu{s}\"\nlabel = \"CPU{s}\"\nindex = {s}\ncpu = \"gen\"\nlanes = {}\ngen = 3\nnuma_nodes = [{s}]\n",
            g.socket_lanes
        );
    }
    if g.sockets == 2 {
        p.push_str("[[fabric]]\nkind = \"UPI\"\nbetween = [\"cpu0\", \"cpu1\"]\nlinks = 1\ngbs_per_link = 10.0\n\n");
    }
    let rcs = 2 * g.sockets;
    for r in 0..rcs {
        let s = r % g.sockets;
        let _ = writeln!(
            p,
            "[[root_complex]]\nid = \"rc{r}\"\nlabel = \"RC {r}\"\nsocket = \"cpu{s}\"\nlanes = 16\ngen = 3\nnuma_node = {s}\nbifurcation = [\"x16\", \"x8x8\", \"x4x4x4x4\"]\n"
        );
    }
    for (i, (rc, e, m, full)) in g.slots.iter().enumerate() {
        let _ = writeln!(
            p,
            "[[slot]]\nid = \"slot{i}\"\nlabel = \"Slot {i}\"\nroot_complex = \"rc{}\"\nelectrical = {e}\nmechanical = {m}\nheight = \"{}\"\nlength = \"half\"\n",
            rc % rcs,
            if *full { "full" } else { "low" }
        );
    }
    if g.mini_perc {
        p.push_str(
            "[[slot_kind]]\nid = \"mini-perc\"\nlabel = \"PERC mini\"\nsource = \"generated\"\n\n",
        );
        p.push_str("[[slot]]\nid = \"mini-perc\"\nlabel = \"Mini\"\nkind = \"mini-perc\"\nroot_complex = \"rc0\"\nelectrical = 8\nmechanical = 8\n\n");
    }
    if g.card_rule && !g.slots.is_empty() {
        p.push_str("[[card_rule]]\nclass = \"nic\"\nslots = [\"slot0\"]\nmax = 1\n\n");
    }
    let mut groups = Vec::new();
    let mut bay = 0u16;
    for (rc, n) in &g.nvme {
        groups.push(format!(
            "bays = \"{}-{}\"\nsize = \"2.5\"\ninterfaces = [\"nvme\"]\nvia = \"direct\"\nto = \"rc{}\"\nbackplane_gen = 3\n",
            bay,
            bay + n - 1,
            rc % rcs
        ));
        bay += n;
    }
    let nvme_bays = bay;
    if g.sas > 0 && g.mini_perc {
        groups.push(format!(
            "bays = \"{}-{}\"\nsize = \"2.5\"\ninterfaces = [\"sas\", \"sata\"]\nvia = \"controller\"\nto = \"mini-perc\"\n",
            bay,
            bay + g.sas - 1
        ));
    }
    if g.option {
        p.push_str("[[option]]\nkey = \"front\"\nlabel = \"Front\"\ndefault = \"split\"\n\n[[option.choice]]\nvalue = \"split\"\nlabel = \"split\"\n");
        for grp in &groups {
            let _ = writeln!(p, "[[option.choice.bays]]\n{grp}");
        }
        p.push_str("[[option.choice]]\nvalue = \"merged\"\nlabel = \"merged\"\n");
        if nvme_bays > 0 {
            let _ = writeln!(
                p,
                "[[option.choice.bays]]\nbays = \"0-{}\"\nsize = \"2.5\"\ninterfaces = [\"nvme\"]\nvia = \"direct\"\nto = \"rc{}\"\nbackplane_gen = 3\n",
                nvme_bays - 1,
                rcs - 1
            );
        }
        if g.sas > 0 && g.mini_perc {
            let _ = writeln!(p, "[[option.choice.bays]]\n{}", groups.last().unwrap());
        }
    } else {
        for grp in &groups {
            let _ = writeln!(p, "[[bays]]\n{grp}");
        }
    }
    p
}

fn passes_check(cat: &Catalog, text: String) -> bool {
    let file = SourceFile::new("placed.toml", text);
    let b: BuildFile = parse_toml(&file).unwrap();
    let r = plan::check_build(cat, &b, file).unwrap();
    !r.findings.iter().any(|f| f.severity == Severity::Error)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn optimum_equals_enumeration(g in generated()) {
        let mut cat = Catalog::builtin().unwrap();
        let text = platform_toml(&g);
        cat.add_file(SourceFile::new("gen.toml", text.clone()))
            .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let mut parts: Vec<(String, usize)> = Vec::new();
        let ids = g
            .cards
            .iter()
            .map(|&(i, n)| (CARDS[i], n))
            .chain(g.drives.iter().map(|&(i, n)| (DRIVES[i], n)));
        for (id, n) in ids {
            match parts.iter_mut().find(|(p, _)| p == id) {
                Some(x) => x.1 += n,
                None => parts.push((id.to_string(), n)),
            }
        }
        let req = Request {
            platform: "gen".into(),
            parts,
            options: Vec::new(),
            any_option: true,
            objective: [Objective::Read, Objective::Write, Objective::Mixed, Objective::Balanced][g.objective],
            keep_free: Vec::new(),
            top: 3,
            // A node budget only: the answers do not depend on the machine's load.
            budget: place::Budget { time_ms: 3_600_000, nodes: u64::MAX },
            ..Request::default()
        };
        let (reference, count) = exhaustive::best(&cat, &req, 1_500).unwrap();
        prop_assume!(count <= 1_500);
        let o = place::place(&cat, &req).unwrap();
        if std::env::var_os("PLACE_PROPS_VERBOSE").is_some() {
            eprintln!("enumerated {count}, feasible {}, place explored {} nodes, {} leaves, bound cuts {}",
                reference.is_some(), o.stats.nodes_explored, o.stats.leaves, o.stats.pruned_bound);
        }
        match (&reference, o.best()) {
            (None, None) => prop_assert!(!o.infeasible.is_empty(), "nothing fits, and no constraint named"),
            (Some((s, pl)), Some(b)) => {
                prop_assert_eq!(b.score.key(), s.key(), "place {:?}\nenumeration {:?} {:?}\n{}", b, s, pl, text);
            }
            (r, b) => prop_assert!(false, "enumeration {:?}, place {:?}\n{}", r, b.map(|c| &c.placement), text),
        }
        for c in &o.ranked {
            prop_assert!(passes_check(&cat, c.placement.to_toml("gen", "ranked")));
        }
        // Ranked best first, distinct.
        for w in o.ranked.windows(2) {
            prop_assert!(w[0].score.key() >= w[1].score.key());
            prop_assert!(w[0].placement != w[1].placement);
        }
    }
}
