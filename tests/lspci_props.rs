//! The lspci parser never panics: random text, and the real dump cut, spliced and mutated.

mod common;

use laneplan::host::{self, audit::AuditOptions};
use proptest::prelude::*;

fn dump() -> String {
    let p = common::fixtures()
        .join("shared/lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt");
    std::fs::read_to_string(p).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics(s in "\\PC{0,2000}") {
        let _ = host::audit_lspci(&s, "x", AuditOptions::default());
    }

    #[test]
    fn lspci_like_lines_never_panic(lines in prop::collection::vec(
        prop_oneof![
            "[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f] [A-Za-z ]{0,12}\\[[0-9a-f]{4}\\]: [ -~]{0,40}",
            "\t\tLnkSta:\t[ -~]{0,40}",
            "\t\tLnkCap:\t[ -~]{0,40}",
            "\tBus: [ -~]{0,50}",
            "\tNUMA node: [-0-9a-z]{0,5}",
            "\t\t\tMaxPayload [0-9]{0,6} bytes",
            "\tCapabilities: \\[[0-9a-f]{2}\\] Express[ -~]{0,30}",
            Just(String::new()),
        ], 0..60)) {
        let text = lines.join("\n");
        let a = host::audit_lspci(&text, "x", AuditOptions::default());
        // Whatever it read is a consistent tree.
        for f in &a.functions {
            if let Some(p) = &f.parent {
                prop_assert!(a.function(p).is_some());
            }
        }
    }

    #[test]
    fn mutated_real_dump_never_panics(cut in 0usize..160_000, at in 0usize..160_000, junk in "\\PC{0,40}") {
        let d = dump();
        let cut = d.floor_char_boundary(cut.min(d.len()));
        let at = d.floor_char_boundary(at.min(cut));
        let mut s = d[..cut].to_string();
        s.insert_str(at, &junk);
        let (scan, _) = host::lspci::parse(&s, "x");
        prop_assert!(scan.functions.len() <= 194 + junk.matches('\n').count() + 1);
        let _ = host::audit_lspci(&s, "x", AuditOptions::default());
    }
}
