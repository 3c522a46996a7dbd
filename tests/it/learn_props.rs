//! `learn` on damaged input: real dumps cut, spliced and mutated never make it panic, and what
//! it writes always loads and checks without errors, the same bytes each time.

use crate::common;

use laneplan::learn::{self, LearnOptions};
use laneplan::platform::Catalog;
use laneplan::source::SourceFile;
use proptest::prelude::*;

fn dump(host: &str) -> String {
    std::fs::read_to_string(common::lspci_dump(host)).unwrap()
}

/// Learns from `text`, loads the files into the built-in catalogue and checks the build:
/// no input error, no error finding.
fn learn_and_check(text: &str) -> Result<(), TestCaseError> {
    let view = learn::read_lspci(text, "x");
    let builtin = Catalog::builtin().unwrap();
    let opts = LearnOptions {
        id: Some(learn::LearnedId::parse("learned").unwrap()),
        ..Default::default()
    };
    let l = learn::learn(&view, &builtin, &opts);
    prop_assert_eq!(&l, &learn::learn(&view, &builtin, &opts));
    let mut cat = builtin;
    if let Some(parts) = &l.parts {
        let r = cat.add_file(SourceFile::new("parts.toml", parts.clone()));
        prop_assert!(r.is_ok(), "parts: {:?}\n{}", r.err(), parts);
    }
    let r = cat.add_file(SourceFile::new("learned.toml", l.platform.clone()));
    prop_assert!(r.is_ok(), "platform: {:?}\n{}", r.err(), l.platform);
    let file = SourceFile::new("build.toml", l.build.clone());
    let build = laneplan::source::parse_toml(&file);
    prop_assert!(build.is_ok(), "build: {:?}", build.err());
    let report = laneplan::plan::check_build(&cat, &build.unwrap(), file);
    prop_assert!(report.is_ok());
    let report = report.unwrap();
    prop_assert!(
        !laneplan::finding::has_errors(&report.findings),
        "{:?}\n{}\n{}",
        report.findings,
        l.platform,
        l.build
    );
    Ok(())
}

#[test]
fn every_real_dump_learns_and_checks() {
    for host in ["r7525", "r7515", "r7425", "r740xd"] {
        learn_and_check(&dump(host)).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn cut_and_mutated_dumps_learn_and_check(
        host in prop::sample::select(vec!["r7525", "r7515", "r7425"]),
        cut in 0usize..330_000,
        drop_from in 0usize..330_000,
        drop_len in 0usize..4_000,
        junk in "\\PC{0,40}",
    ) {
        let d = dump(host);
        let cut = d.floor_char_boundary(cut.min(d.len()));
        let a = d.floor_char_boundary(drop_from.min(cut));
        let b = d.floor_char_boundary((a + drop_len).min(cut));
        let mut s = format!("{}{}", &d[..a], &d[b..cut]);
        s.insert_str(s.floor_char_boundary(a.min(s.len())), &junk);
        learn_and_check(&s)?;
    }
}
