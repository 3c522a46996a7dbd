//! Property tests of the bandwidth analysis on generated topologies: random trees of
//! switches and devices below 2 sockets joined by a fabric link.

use laneplan::flow::{
    self, Dir, Memory, Options, maxflow,
    net::{Hints, Net},
};
use laneplan::synth::{ItemSpec, TreeSpec, from_spec};
use proptest::prelude::*;

fn item() -> impl Strategy<Value = ItemSpec> {
    (
        0usize..16,
        prop::bool::weighted(0.3),
        1u8..=5,
        prop::sample::select(vec![1u8, 2, 4, 8, 16]),
        1u8..=5,
        0.0f64..16.0,
        0.0f64..16.0,
    )
        .prop_map(|(parent, switch, g, w, gmax, r, wr)| ItemSpec {
            parent,
            switch,
            generation: g,
            width: w,
            max_generation: gmax,
            read_gbs: r,
            write_gbs: wr,
        })
}

fn tree() -> impl Strategy<Value = TreeSpec> {
    (0.5f64..80.0, prop::collection::vec(item(), 1..40))
        .prop_map(|(fabric_gbs, items)| TreeSpec { fabric_gbs, items })
}

fn memory() -> impl Strategy<Value = Memory> {
    prop::sample::select(vec![
        Memory::Local,
        Memory::Socket("CPU1".into()),
        Memory::Socket("cpu2".into()),
    ])
}

const EPS: f64 = 1e-4;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn aggregate_respects_specs_cuts_and_capacities(spec in tree(), mem in memory()) {
        let t = from_spec(&spec);
        let opts = Options { memory: mem.clone(), ..Default::default() };
        let (r, _) = flow::analyze(&t, &opts, &Hints::default()).unwrap();
        for dir in Dir::BOTH {
            let a = r.aggregate(dir);
            // Never more than the devices offer, nor than they reach alone.
            prop_assert!(a.max_flow_gbs <= a.demand_gbs + EPS);
            prop_assert!(a.max_flow_gbs <= a.alone_sum_gbs + EPS);
            // Fair shares are a feasible flow: never above the maximum.
            prop_assert!(a.fair_gbs <= a.max_flow_gbs + EPS * (1.0 + r.devices.len() as f64));
            // Each device: share <= alone <= spec.
            for d in &r.devices {
                let x = d.dir(dir);
                prop_assert!(x.share_gbs <= x.alone_gbs + EPS);
                prop_assert!(x.alone_gbs <= x.spec_gbs + EPS);
            }
            // Every element is a cut for the devices behind it: flow through it (max-flow and
            // fair) stays within its capacity when it constrains.
            for e in &r.elements {
                let x = e.dir(dir);
                if e.element.passive.is_none()
                    && let Some(c) = x.capacity_gbs
                {
                    prop_assert!(x.max_flow_gbs <= c + EPS, "{} {} > {}", e.element.id, x.max_flow_gbs, c);
                    prop_assert!(x.fair_gbs <= c + EPS, "{} {} > {}", e.element.id, x.fair_gbs, c);
                }
            }
            // Each socket's subtree is a cut: the aggregate is at most what each socket's
            // devices reach alone, summed over sockets.
            let per_socket_alone: f64 = [0u8, 1]
                .iter()
                .map(|s| {
                    r.devices
                        .iter()
                        .filter(|d| d.socket == Some(*s))
                        .map(|d| d.dir(dir).alone_gbs)
                        .fold(0.0, |a, b| a + b)
                })
                .fold(0.0, |a, b| a + b);
            prop_assert!(a.max_flow_gbs <= per_socket_alone + EPS);
            // With everything to one socket, what crosses is at most the fabric.
            if let Memory::Socket(name) = &mem {
                // CPU1 is index 0, cpu2 index 1 (the synthetic sockets' labels).
                let k: u8 = name[3..].parse::<u8>().unwrap() - 1;
                let remote: f64 = r
                    .devices
                    .iter()
                    .filter(|d| d.socket != Some(k))
                    .map(|d| d.dir(dir).share_gbs)
                    .fold(0.0, |a, b| a + b);
                prop_assert!(remote <= spec.fabric_gbs + EPS);
            }
        }
    }

    #[test]
    fn tree_reduced_max_flow_equals_dinics_on_the_whole_network(spec in tree(), mem in memory()) {
        let t = from_spec(&spec);
        let opts = Options { memory: mem, ..Default::default() };
        let net = Net::build(&t, &opts, &Hints::default()).unwrap();
        for dir in Dir::BOTH {
            let fast = maxflow::max_flow(&net, dir);
            let full = maxflow::max_flow_reference(&net, dir);
            // Both floor each capacity to whole kB/s: equal within a few kB/s.
            prop_assert!((fast.total - full.total).abs() < 1e-4, "{} vs {}", fast.total, full.total);
            let per_source: f64 = fast.per_source.iter().fold(0.0, |a, b| a + b);
            prop_assert!((per_source - fast.total).abs() < 1e-4);
            for (i, s) in net.sources.iter().enumerate() {
                prop_assert!(fast.per_source[i] <= s.demand(dir) + 1e-9);
            }
        }
    }

    #[test]
    fn adding_capacity_never_lowers_the_aggregate(
        spec in tree(),
        mem in memory(),
        pick in 0usize..40,
        extra_fabric in 0.0f64..40.0,
    ) {
        let opts = Options { memory: mem, ..Default::default() };
        let (before, _) = flow::analyze(&from_spec(&spec), &opts, &Hints::default()).unwrap();
        // More capacity: a wider fabric, and one item one generation faster (its maximum too,
        // so the faster link is not reported as downtrained).
        let mut more = spec.clone();
        more.fabric_gbs += extra_fabric;
        let n = more.items.len();
        let it = &mut more.items[pick % n];
        if it.generation < 5 {
            it.generation += 1;
            it.max_generation = it.max_generation.max(it.generation);
        }
        let (after, _) = flow::analyze(&from_spec(&more), &opts, &Hints::default()).unwrap();
        for dir in Dir::BOTH {
            prop_assert!(
                after.aggregate(dir).max_flow_gbs + EPS >= before.aggregate(dir).max_flow_gbs,
                "{:?}: {} < {}", dir, after.aggregate(dir).max_flow_gbs, before.aggregate(dir).max_flow_gbs
            );
        }
    }

    #[test]
    fn ceilings_bound_the_expected_figures(spec in tree(), mem in memory()) {
        // The expected figure is the ceiling capped by specs: never above it, for each
        // device alone and for every aggregate.
        let opts = Options { memory: mem, ..Default::default() };
        let (r, _) = flow::analyze(&from_spec(&spec), &opts, &Hints::default()).unwrap();
        for dir in Dir::BOTH {
            let a = r.aggregate(dir);
            prop_assert!(a.expected_gbs <= a.ceiling_gbs + EPS, "{:?}: {} > {}", dir, a.expected_gbs, a.ceiling_gbs);
            prop_assert!(a.expected_gbs == a.max_flow_gbs);
            for d in &r.devices {
                let x = d.dir(dir);
                prop_assert!(x.alone_gbs <= x.ceiling_gbs + 1e-9, "{}: {} > {}", d.id, x.alone_gbs, x.ceiling_gbs);
                prop_assert!(x.share_gbs <= x.ceiling_gbs + EPS);
            }
        }
    }
}
