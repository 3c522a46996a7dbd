//! `place` on the reviewed builds: each example's parts list placed, the optimum proven and
//! explained, compared with the example's own placement; every result passes `check`.

use laneplan::place::{self, BayPick, Objective, Placement, Request, SlotPick};
use laneplan::plan;
use laneplan::platform::Catalog;
use laneplan::platform::schema::{BuildFile, parse_bay_list};
use laneplan::source::{SourceFile, parse_toml};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// An example build: its platform, options, placement and parts list (in file order).
fn example(name: &str) -> (String, Placement, Vec<(String, usize)>) {
    let path = root().join("examples").join(name);
    let file = SourceFile::new(name, std::fs::read_to_string(path).unwrap());
    let b: BuildFile = parse_toml(&file).unwrap();
    let mut parts: Vec<(String, usize)> = Vec::new();
    let mut add = |id: &str, n: usize| match parts.iter_mut().find(|(p, _)| p == id) {
        Some(x) => x.1 += n,
        None => parts.push((id.to_string(), n)),
    };
    let mut slots = Vec::new();
    for s in &b.slots {
        add(s.part.get_ref(), 1);
        slots.push(SlotPick {
            slot: s.slot.get_ref().clone(),
            part: s.part.get_ref().clone(),
        });
    }
    let mut bays = Vec::new();
    for x in &b.bays {
        add(
            x.part.get_ref(),
            parse_bay_list(x.bays.get_ref()).unwrap().len(),
        );
        bays.push(BayPick {
            bays: x.bays.get_ref().clone(),
            part: x.part.get_ref().clone(),
        });
    }
    slots.sort();
    let options: BTreeMap<String, String> = b
        .options
        .iter()
        .map(|(k, v)| (k.clone(), v.get_ref().clone()))
        .collect();
    (
        b.platform.get_ref().clone(),
        Placement {
            options,
            slots,
            bays,
        },
        parts,
    )
}

fn request(platform: &str, parts: &[(String, usize)], options: &[(&str, &str)]) -> Request {
    Request {
        platform: platform.into(),
        parts: parts.to_vec(),
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        any_option: options.is_empty(),
        objective: Objective::Read,
        keep_free: Vec::new(),
        top: 3,
        // No time limit: the answers do not depend on the machine's load.
        budget: place::Budget {
            time_ms: 3_600_000,
            nodes: u64::MAX,
        },
        ..Request::default()
    }
}

/// Every ranked placement passes `check` with 0 errors.
fn assert_all_pass_check(cat: &Catalog, o: &place::Outcome) {
    for c in &o.ranked {
        let text = c.placement.to_toml(&o.platform, "ranked");
        let file = SourceFile::new("ranked.toml", text);
        let b: BuildFile = parse_toml(&file).unwrap();
        let r = plan::check_build(cat, &b, file).unwrap();
        let errors: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.severity == laneplan::finding::Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
    }
}

fn slots_of<'a>(p: &'a Placement, part: &str) -> Vec<&'a str> {
    p.slots
        .iter()
        .filter(|s| s.part == part)
        .map(|s| s.slot.as_str())
        .collect()
}

#[test]
fn r740xd_review_extenders_in_slots_1_4_8() {
    let cat = Catalog::builtin().unwrap();
    let (platform, ex, parts) = example("r740xd-12nvme-micron9300.toml");
    // Any option: the search must find the front option too.
    let o = place::place(&cat, &request(&platform, &parts, &[])).unwrap();
    let best = o.best().expect("the reviewed parts fit");
    assert_eq!(best.placement.options["front"], "12nvme-12sas");
    assert_eq!(
        slots_of(&best.placement, "dell-nvme-extender-bridge"),
        ["slot1", "slot4", "slot8"]
    );
    assert_eq!(slots_of(&best.placement, "perc-h740p-mini"), ["mini-perc"]);
    assert_eq!(slots_of(&best.placement, "broadcom-57414-rndc"), ["rndc"]);
    // The review's BOSS slot: every free x8 slot scores the same; the vendor order breaks
    // the tie.
    assert_eq!(slots_of(&best.placement, "boss-s1"), ["slot2"]);
    assert!(
        (best.score.read_gbs - 48.80).abs() < 0.005,
        "{}",
        best.score.read_gbs
    );
    // Explained: the extenders are forced (every scored candidate has them there), and the
    // runner-up differs only in the vendor order.
    for s in ["slot1", "slot4", "slot8"] {
        assert!(o.common_slots.contains(&SlotPick {
            slot: s.into(),
            part: "dell-nvme-extender-bridge".into()
        }));
    }
    let gives_up: Vec<&str> = o.runner_up_gives_up.iter().map(|d| d.measure).collect();
    assert_eq!(gives_up, ["distance from the vendor order"]);
    // Read is bound by the PERC with its 12 SAS SSDs, as check says (LP0205): 12 x 1.2 GB/s
    // of SAS SSDs behind the controller's Gen3 x8 link (7.18 GB/s to the host) and its
    // 8-lane SAS side; the link, the tighter, comes first.
    assert_eq!(best.binding.kind, "elements");
    assert_eq!(
        best.binding.elements[..2],
        [
            "Integrated storage controller slot link Gen3 x8",
            "PERC H740P Mini SAS/SATA side 8 x 12 Gb/s"
        ],
        "{:?}",
        best.binding
    );
    // The review's own placement scores exactly as the optimum.
    let mine = place::score_placement(&cat, &request(&platform, &parts, &[]), &ex)
        .unwrap()
        .unwrap();
    assert_eq!(mine.key(), best.score.key());
    assert_eq!(o.stats.pruned_bound, 0);
    assert!(o.stats.nodes_explored > 0 && (o.stats.nodes_explored as f64) < o.stats.full_space);
    assert_all_pass_check(&cat, &o);
    // Vendor order (the option's extender slots, then the priority lists) is optimal too.
    let v = o.vendor.as_ref().unwrap();
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    assert!(v.gains.is_empty(), "{:?}", v.gains);
}

/// The issue's parts list: 12 x Micron 9300, an H740P Mini, a BOSS-S1 and a 25GbE rNDC, no
/// SAS drives; as written (no extender cards) and with the review's three extender cards.
/// Either way the front option that takes the extender cards wins with them in slots 1, 4
/// and 8; without them in the list, `place` adds the three as a vendor's configurator does.
#[test]
fn r740xd_issue_parts_list() {
    let cat = Catalog::builtin().unwrap();
    for extenders in [0, 3] {
        let mut parts: Vec<(String, usize)> = [
            ("micron-9300-pro-3.84tb", 12),
            ("perc-h740p-mini", 1),
            ("boss-s1", 1),
            ("broadcom-57414-rndc", 1),
        ]
        .iter()
        .map(|(p, n)| (p.to_string(), *n))
        .collect();
        if extenders > 0 {
            parts.push(("dell-nvme-extender-bridge".into(), extenders));
        }
        let o = place::place(&cat, &request("r740xd", &parts, &[])).unwrap();
        let best = o.best().unwrap();
        assert_eq!(best.placement.options["front"], "12nvme-12sas");
        assert_eq!(
            slots_of(&best.placement, "dell-nvme-extender-bridge"),
            ["slot1", "slot4", "slot8"]
        );
        let added: &[(String, usize)] = if extenders == 0 {
            &[("dell-nvme-extender-bridge".to_string(), 3)]
        } else {
            &[]
        };
        assert_eq!(o.implied_cards, added);
        // 12 drives at their spec, 3.50 GB/s each: nothing shared binds.
        assert!(
            (best.score.read_gbs - 42.0).abs() < 0.005,
            "{}",
            best.score.read_gbs
        );
        assert_eq!(best.binding.kind, "drives");
        assert_all_pass_check(&cat, &o);
        if extenders == 0 {
            // With the switched front fixed, no card is added and the two uplinks bind.
            let o = place::place(&cat, &request("r740xd", &parts, &[("front", "24nvme")])).unwrap();
            assert!(o.implied_cards.is_empty());
            assert!((o.best().unwrap().score.read_gbs - 28.73).abs() < 0.01);
        }
    }
}

#[test]
fn examples_placed_at_least_as_well_as_reviewed() {
    let cat = Catalog::builtin().unwrap();
    for name in [
        "r7415-4nvme-4sas.toml",
        "r7415-24nvme-switched.toml",
        "r6525-micron9300.toml",
        "r6525-pe8010-gen3-backplane.toml",
        "r6525-pe8010-gen4-kit.toml",
        "r740xd-4x-pm1725-plx.toml",
    ] {
        let (platform, ex, parts) = example(name);
        let opts: Vec<(&str, &str)> = ex
            .options
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        for fixed in [true, false] {
            let req = request(&platform, &parts, if fixed { &opts } else { &[] });
            let o = place::place(&cat, &req).unwrap();
            let best = o
                .best()
                .unwrap_or_else(|| panic!("{name}: {:?}", o.infeasible));
            let theirs = place::score_placement(&cat, &req, &ex).unwrap().unwrap();
            assert!(
                best.score.key() >= theirs.key(),
                "{name}: optimum {:?} below the example {:?}",
                best.score,
                theirs
            );
            assert_all_pass_check(&cat, &o);
        }
    }
}

#[test]
fn r7415_spreads_nvme_over_dies() {
    let cat = Catalog::builtin().unwrap();
    let (platform, ex, parts) = example("r7415-4nvme-4sas.toml");
    let req = request(&platform, &parts, &[("front", "12nvme-12sas")]);
    let o = place::place(&cat, &req).unwrap();
    let best = o.best().unwrap();
    // Same ceilings as the example (every drive at its spec or its SAS lane): 18.00 read.
    assert!((best.score.read_gbs - 18.0).abs() < 0.005);
    // The example puts all four NVMe drives on die 0 beside the PERC; the optimum moves
    // them to dies 1 and 2 (bays 4-7 and 8-11): a lower NUMA imbalance.
    let theirs = place::score_placement(&cat, &req, &ex).unwrap().unwrap();
    assert!(best.score.numa_imbalance_gbs + 1.0 < theirs.numa_imbalance_gbs);
    let nvme = best
        .placement
        .bays
        .iter()
        .find(|b| b.part == "samsung-pm1725a-1.6tb")
        .unwrap();
    let bays = parse_bay_list(&nvme.bays).unwrap();
    assert!(bays.iter().all(|&b| (4..12).contains(&b)), "{bays:?}");
    // The vendor order fills bays 0-3 first: the optimum gains NUMA balance over it.
    let v = o.vendor.as_ref().unwrap();
    assert_eq!(v.placement.as_ref().unwrap().bays[0].bays, "0-3");
    assert!(v.gains.iter().any(|g| g.measure == "NUMA imbalance"));
}

#[test]
fn r6525_balances_sockets_and_keeps_default_backplane() {
    let cat = Catalog::builtin().unwrap();
    let (platform, _, parts) = example("r6525-micron9300.toml");
    let o = place::place(&cat, &request(&platform, &parts, &[])).unwrap();
    let best = o.best().unwrap();
    // Gen3 drives gain nothing from the Gen4 kit: the default backplane stays.
    assert_eq!(best.placement.options["backplane"], "gen3");
    assert_eq!(best.placement.options["chassis"], "10x2.5-nvme");
    assert!((best.score.read_gbs - 14.0).abs() < 0.005);
    assert!(best.score.numa_imbalance_gbs < 0.005);
    assert_eq!(best.placement.bays[0].bays, "0-1,5-6");
    // Gen4 drives: the kit is worth it (26.00 read against 13.29).
    let (platform, _, parts) = example("r6525-pe8010-gen4-kit.toml");
    let o = place::place(&cat, &request(&platform, &parts, &[])).unwrap();
    let best = o.best().unwrap();
    assert_eq!(best.placement.options["backplane"], "gen4-kit");
    assert!((best.score.read_gbs - 26.0).abs() < 0.005);
}

#[test]
fn infeasible_names_the_constraint_fast() {
    let cat = Catalog::builtin().unwrap();
    let t = std::time::Instant::now();
    let req = request("r740xd", &[("micron-9300-pro-3.84tb".into(), 25)], &[]);
    let o = place::place(&cat, &req).unwrap();
    assert!(o.best().is_none());
    assert_eq!(o.infeasible.len(), 4);
    let c = o
        .infeasible
        .iter()
        .find(|c| c.options["front"] == "24nvme")
        .unwrap();
    assert_eq!(c.code, "bays");
    assert!(c.message.contains("24 bays"), "{}", c.message);
    // A missing controller: the SAS bays hang from an empty slot.
    let req = request(
        "r740xd",
        &[
            ("dell-nvme-extender-bridge".into(), 3),
            ("micron-9300-pro-3.84tb".into(), 12),
            ("toshiba-pm5-1.92tb".into(), 12),
        ],
        &[("front", "12nvme-12sas")],
    );
    let o = place::place(&cat, &req).unwrap();
    assert!(o.best().is_none());
    assert!(
        o.infeasible
            .iter()
            .any(|c| c.code == "controller" && c.message.contains("mini-perc")),
        "{:?}",
        o.infeasible
    );
    assert!(t.elapsed().as_secs_f64() < 1.0, "{:?}", t.elapsed());
}

#[test]
fn keep_free_and_bad_requests() {
    let cat = Catalog::builtin().unwrap();
    let (platform, _, parts) = example("r740xd-12nvme-micron9300.toml");
    let mut req = request(&platform, &parts, &[("front", "12nvme-12sas")]);
    req.keep_free = vec!["slot2".into(), "slot3".into()];
    let o = place::place(&cat, &req).unwrap();
    assert_eq!(slots_of(&o.best().unwrap().placement, "boss-s1"), ["slot5"]);
    req.keep_free = vec!["slot99".into()];
    assert!(place::place(&cat, &req).is_err());
    let bad = request("r740xd", &[("no-such-part".into(), 1)], &[]);
    assert_eq!(
        place::place(&cat, &bad).unwrap_err().message,
        "unknown part `no-such-part`"
    );
    let bad = request("r740xd", &[("boss-s1".into(), 1)], &[("front", "nope")]);
    assert!(place::place(&cat, &bad).is_err());
    assert!(place::place(&cat, &request("r9999", &[("boss-s1".into(), 1)], &[])).is_err());
}

#[test]
fn objectives_change_the_answer() {
    let cat = Catalog::builtin().unwrap();
    // 13 Micron 9300 on the R740xd: only the switched 24 NVMe front takes them; read splits
    // them 7 + 6 over the two uplinks, each Gen3 x16 carrying 14.365 GB/s to the host
    // (direction-aware model): 28.73 GB/s.
    let mut req = request("r740xd", &[("micron-9300-pro-3.84tb".into(), 13)], &[]);
    let o = place::place(&cat, &req).unwrap();
    let b = o.best().unwrap();
    assert_eq!(b.placement.options["front"], "24nvme");
    assert!(
        (b.score.read_gbs - 28.73).abs() < 0.01,
        "{}",
        b.score.read_gbs
    );
    // Bays filled 7 + 6 first; 8 + 5 and beyond cannot beat it: the bound cuts them.
    assert!(o.stats.pruned_bound > 0, "{:?}", o.stats);
    let v = o.vendor.as_ref().unwrap();
    assert_eq!(v.placement.as_ref().unwrap().bays[0].bays, "0-12");
    assert!(v.score.as_ref().unwrap().read_gbs < b.score.read_gbs - 9.0);
    req.objective = Objective::Write;
    let w = place::place(&cat, &req).unwrap();
    assert!((w.best().unwrap().score.value - w.best().unwrap().score.write_gbs).abs() < 1e-9);
    req.objective = Objective::Balanced;
    let bal = place::place(&cat, &req).unwrap();
    // Balanced weighs read and write half each less the NUMA imbalance: never above half the
    // best read plus half the best write.
    let best_write = w.best().unwrap().score.write_gbs;
    assert!(bal.best().unwrap().score.value <= 0.5 * b.score.read_gbs + 0.5 * best_write + 1e-9);
}

/// The bench's generated stress platforms load, and on small ones `place` proves the
/// optimum that exhaustive enumeration finds (the bench runs the large ones), for the drive
/// objectives and the served one.
#[test]
fn stress_platforms_small_agree_with_enumeration() {
    use laneplan::synth::{PlaceStress, place_stress};
    for (card_types, slots, bay_groups, option_keys, objective) in [
        (2, 3, 2, 2, Objective::Read),
        (2, 3, 2, 2, Objective::Served),
        (3, 4, 2, 1, Objective::Mixed),
        (1, 2, 2, 3, Objective::Balanced),
    ] {
        let spec = PlaceStress {
            card_types,
            slots,
            bay_groups,
            option_keys,
        };
        let (text, parts) = place_stress(&spec);
        let mut cat = Catalog::builtin().unwrap();
        cat.add_file(laneplan::source::SourceFile::new(
            "stress.toml",
            text.clone(),
        ))
        .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let mut req = request("stress", &parts, &[]);
        req.objective = objective;
        let o = place::place(&cat, &req).unwrap();
        assert!(o.proven_optimal, "{spec:?}: {:?}", o.stats);
        let (reference, count) = place::exhaustive::best(&cat, &req, 100_000).unwrap();
        assert!(count < 100_000);
        let (s, pl) = reference.unwrap();
        assert_eq!(
            o.best().unwrap().score.key(),
            s.key(),
            "{spec:?} {objective:?}: place {:?}, enumeration {pl:?}",
            o.best().unwrap().placement
        );
        assert_all_pass_check(&cat, &o);
    }
}
