//! Mutated real platform and build files never panic or hang the loader and the planner,
//! and every error they cause is located inside the file (the cargo-fuzz target
//! `fuzz/fuzz_targets/toml_files.rs` does the same with coverage guidance).

use laneplan::platform::{Catalog, EMBEDDED};
use laneplan::source::SourceFile;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Mutation {
    /// Delete `len` bytes at a fraction of the file.
    Delete(f64, usize),
    /// Insert text at a fraction of the file.
    Insert(f64, String),
    /// Replace the n-th number with another.
    Number(usize, i64),
    /// Repeat the line at a fraction of the file.
    RepeatLine(f64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0f64, 1usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (
            0.0..1.0f64,
            prop_oneof![
                Just("\n[[slot]]\n".to_string()),
                Just("\n[[bays]]\n".to_string()),
                Just("\"".to_string()),
                Just("]]".to_string()),
                Just(" = nan".to_string()),
                Just("\nid = \"slot1\"\n".to_string()),
                "[ -~\n]{0,12}",
            ]
        )
            .prop_map(|(a, s)| Mutation::Insert(a, s)),
        (
            0usize..400,
            prop_oneof![
                Just(0i64),
                Just(-1),
                Just(3),
                Just(255),
                Just(65536),
                any::<i64>()
            ]
        )
            .prop_map(|(i, v)| Mutation::Number(i, v)),
        (0.0..1.0f64).prop_map(Mutation::RepeatLine),
    ]
}

fn at(text: &str, frac: f64) -> usize {
    let mut i = ((text.len() as f64) * frac) as usize;
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i.min(text.len())
}

fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut t = text.to_string();
    for m in muts {
        match m {
            Mutation::Delete(a, n) => {
                let s = at(&t, *a);
                let mut e = (s + n).min(t.len());
                while !t.is_char_boundary(e) {
                    e -= 1;
                }
                t.replace_range(s..e, "");
            }
            Mutation::Insert(a, s) => {
                let i = at(&t, *a);
                t.insert_str(i, s);
            }
            Mutation::Number(k, v) => {
                let spans: Vec<(usize, usize)> = {
                    let b = t.as_bytes();
                    let mut out = Vec::new();
                    let mut i = 0;
                    while i < b.len() {
                        if b[i].is_ascii_digit() {
                            let s = i;
                            while i < b.len() && b[i].is_ascii_digit() {
                                i += 1;
                            }
                            out.push((s, i));
                        } else {
                            i += 1;
                        }
                    }
                    out
                };
                if !spans.is_empty() {
                    let (s, e) = spans[k % spans.len()];
                    t.replace_range(s..e, &v.to_string());
                }
            }
            Mutation::RepeatLine(a) => {
                let i = at(&t, *a);
                let start = t[..i].rfind('\n').map_or(0, |p| p + 1);
                let end = t[i..].find('\n').map_or(t.len(), |p| i + p + 1);
                let line = t[start..end].to_string();
                t.insert_str(end, &line);
            }
        }
    }
    t
}

fn check_located(errs: &laneplan::source::InputErrors, file: &SourceFile) {
    let lines = file.text.split('\n').count();
    for e in &errs.errors {
        assert_eq!(e.file, file.name);
        assert!(
            e.line >= 1 && e.line <= lines && e.column >= 1,
            "{}:{}: {} (file has {lines} lines)",
            e.line,
            e.column,
            e.message
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mutated_platform_files_load_or_fail_located(
        which in 0usize..3,
        muts in proptest::collection::vec(mutation(), 1..4),
    ) {
        let platforms: Vec<&(&str, &str)> =
            EMBEDDED.iter().filter(|(n, _)| !n.ends_with("parts.toml")).collect();
        let (name, text) = platforms[which % platforms.len()];
        let mutated = apply(text, &muts);
        let mut cat = Catalog::default();
        let parts = EMBEDDED.iter().find(|(n, _)| n.ends_with("parts.toml")).unwrap();
        cat.add_file(SourceFile::new(parts.0, parts.1)).unwrap();
        let file = SourceFile::new(*name, mutated);
        match cat.add_file(file.clone()) {
            Err(errs) => check_located(&errs, &file),
            Ok(()) => {
                for id in cat.platforms.keys() {
                    let r = laneplan::plan::plan_platform(&cat, id, &[]).expect("planned");
                    // A validated platform never hits an internal error.
                    prop_assert!(
                        r.findings.iter().all(|f| f.code != "LP0100"),
                        "{:?}",
                        r.findings
                    );
                    let _ = r.plan.topology.depth_first();
                }
            }
        }
    }

    #[test]
    fn mutated_build_files_check_or_fail_located(
        muts in proptest::collection::vec(mutation(), 1..4),
    ) {
        let text = include_str!("../../examples/r740xd-12nvme-micron9300.toml");
        let file = SourceFile::new("build.toml", apply(text, &muts));
        let cat = Catalog::builtin().unwrap();
        match laneplan::source::parse_toml::<laneplan::platform::schema::BuildFile>(&file) {
            Err(e) => check_located(&e.into(), &file),
            Ok(build) => match laneplan::plan::check_build(&cat, &build, file.clone()) {
                Err(errs) => check_located(&errs, &file),
                Ok(r) => prop_assert!(r.findings.iter().all(|f| f.code != "LP0100")),
            },
        }
    }
}
