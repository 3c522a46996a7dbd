//! The lspci parser never panics: random text and bytes, and the real dumps cut, spliced,
//! mutated and re-ended (LF, CRLF, CR, BOM).

use crate::common;

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
                prop_assert!(a.function(*p).is_some());
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

    #[test]
    fn arbitrary_bytes_are_a_dump_or_a_located_error(bytes in prop::collection::vec(any::<u8>(), 0..4000)) {
        match host::lspci::parse_bytes(&bytes, "x") {
            Ok((scan, _)) => prop_assert!(!scan.functions.is_empty()),
            Err(e) => prop_assert!(e.line >= 1 && e.column >= 1),
        }
    }
}

proptest! {
    // Four whole-dump parses per case, in a debug build: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn mutated_real_dumps_read_the_same_with_any_line_ending(
        which in 0usize..4,
        cut in 0usize..330_000,
        at in 0usize..330_000,
        junk in "\\PC{0,40}",
        flips in prop::collection::vec((0usize..330_000, any::<u8>()), 0..8),
    ) {
        let d = real(which);
        let cut = d.floor_char_boundary(cut.min(d.len()));
        let at = d.floor_char_boundary(at.min(cut));
        let mut s = d[..cut].to_string();
        s.insert_str(at, &junk);
        // Byte flips (the result need not be UTF-8: read as lspci output is, lossily).
        let mut b = s.into_bytes();
        for (i, v) in flips {
            if !b.is_empty() {
                let i = i % b.len();
                b[i] = v;
            }
        }
        let lf = host::lspci::parse_bytes(&b, "x")
            .map(|(s, f)| (s.functions.len(), f.len()))
            .map_err(|e| e.message);
        let with = |end: &[u8], bom: bool| {
            let mut out: Vec<u8> = if bom { vec![0xef, 0xbb, 0xbf] } else { Vec::new() };
            for &c in &b {
                if c == b'\n' { out.extend_from_slice(end) } else { out.push(c) }
            }
            host::lspci::parse_bytes(&out, "x")
                .map(|(s, f)| (s.functions.len(), f.len()))
                .map_err(|e| e.message)
        };
        // A flipped byte may itself be a CR, which splits a line in the CR-only copy only;
        // compare where the dump held no CR of its own.
        if !b.contains(&b'\r') && !b.starts_with(&[0xff]) && !b.starts_with(&[0xfe]) {
            for (name, got) in [("CRLF", with(b"\r\n", false)), ("CR", with(b"\r", false)), ("BOM", with(b"\n", true))] {
                match (&lf, &got) {
                    (Ok(x), Ok(y)) => prop_assert_eq!(x, y, "{}", name),
                    (Err(_), Err(_)) => {}
                    _ => prop_assert!(false, "{name}: {:?} vs {:?}", lf.as_ref().err(), got.as_ref().err()),
                }
            }
        }
    }
}

fn real(which: usize) -> String {
    let c = [
        "lspci-r740xd/dell-r740xd-ubuntu2004-62F4A9812E0F.lspci-vvnn.txt",
        "lspci-r7425/dell-r7425-ubuntu2404-1C2794FDE243.lspci-vvnn.txt",
        "lspci-r7515/dell-r7515-ubuntu2004-510A7BE2AFDD.lspci-vvnn.txt",
        "lspci-r7525/dell-r7525-debian11-23F136DC785E.lspci-vvnn.txt",
    ][which];
    std::fs::read_to_string(common::fixtures().join("shared").join(c)).unwrap()
}

/// One function of a generated dump: domain, bus, device, function, bus range.
type Gen = (u32, u8, u8, u8, Option<(u8, u8)>);

fn generated_dump(fs: &[Gen]) -> String {
    let mut s = String::new();
    for &(dom, bus, dev, func, range) in fs {
        match range {
            Some((sec, sub)) => {
                s.push_str(&format!("{dom:04x}:{bus:02x}:{dev:02x}.{func} PCI bridge [0604]: Intel Corporation Port [8086:2030]\n"));
                s.push_str(&format!("\tBus: primary={bus:02x}, secondary={sec:02x}, subordinate={sub:02x}, sec-latency=0\n\n"));
            }
            None => s.push_str(&format!("{dom:04x}:{bus:02x}:{dev:02x}.{func} Non-Volatile memory controller [0108]: Micron Technology Inc Device [1344:51b1]\n\n")),
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Parents from bus ranges and bus conflicts are what the rules say, pair by pair: the
    /// narrowest bridge (same domain, range above its own bus) that holds the function's bus
    /// (ties: the highest address), and every pair of claimed ranges that collide.
    #[test]
    fn parents_and_conflicts_follow_the_pairwise_rules(
        fs in prop::collection::vec(
            (0u32..2, 0u8..12, 0u8..4, 0u8..2, prop::option::of((0u8..14, 0u8..14))),
            0..40,
        )
    ) {
        let a = host::audit_lspci(&generated_dump(&fs), "gen", AuditOptions::default());
        // The functions as the tree sees them: first copy of each address, ranges with a
        // secondary bus of 0 dropped (an unconfigured bridge), sorted by address.
        let mut seen = std::collections::BTreeMap::new();
        for &(d, b, dv, f, r) in &fs {
            seen.entry((d, b, dv, f)).or_insert(r.filter(|(s, _)| *s != 0));
        }
        let funcs: Vec<_> = seen.into_iter().collect();
        let name = |k: &(u32, u8, u8, u8)| format!("{:04x}:{:02x}:{:02x}.{}", k.0, k.1, k.2, k.3);
        for (k, _) in &funcs {
            let want = funcs
                .iter()
                .filter(|(j, r)| j.0 == k.0 && r.is_some_and(|(s, u)| (s..=u).contains(&k.1) && j.1 < s))
                .min_by_key(|(j, r)| {
                    let (s, u) = r.unwrap();
                    (u.saturating_sub(s), std::cmp::Reverse(*j))
                })
                .map(|(j, _)| name(j));
            let got = a.function(laneplan::pci::Bdf::parse(&name(k)).unwrap()).unwrap().parent.map(|p| p.to_string());
            prop_assert_eq!(got, want, "{}", name(k));
        }
        let bridges: Vec<_> = funcs.iter().filter_map(|(k, r)| r.map(|(s, u)| (*k, s, u))).collect();
        let mut want = Vec::new();
        for (i, &(a, s1, u1)) in bridges.iter().enumerate() {
            if s1 > u1 || s1 <= a.1 {
                want.push((name(&a), format!("{} has bus range [{s1:02x}-{u1:02x}] on bus {:02x}", name(&a), a.1)));
                continue;
            }
            for &(b, s2, u2) in &bridges[i + 1..] {
                if a.0 != b.0 || s2 > u2 {
                    continue;
                }
                let overlap = s1.max(s2) <= u1.min(u2);
                let nested = (s1 <= s2 && u2 <= u1) || (s2 <= s1 && u1 <= u2);
                if s1 == s2 || (overlap && !nested) {
                    want.push((name(&b), format!("{} [{s1:02x}-{u1:02x}] and {} [{s2:02x}-{u2:02x}] claim the same buses", name(&a), name(&b))));
                }
            }
        }
        // The audit sorts its findings by node, then message.
        want.sort();
        let want: Vec<String> = want.into_iter().map(|(_, m)| m).collect();
        let got: Vec<String> = a
            .findings
            .iter()
            .filter(|f| f.code == "LP0310" && !f.message.contains("appears twice"))
            .map(|f| f.message.clone())
            .collect();
        prop_assert_eq!(got, want);
    }
}
