//! Properties of the probe's bounded flag parsers: no input panics, every accepted duration
//! is within the bound, and in-range values come back exactly.

use laneplan::probe::parse::{
    MAX_DURATION, parse_ceiling, parse_duration, parse_file_size, parse_fraction, parse_ios,
    parse_rate,
};
use proptest::prelude::*;
use std::time::Duration;

const UNITS: [(&str, u64); 6] = [
    ("", 1_000_000_000),
    ("s", 1_000_000_000),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any text: an error or a duration within the bound, never a panic.
    #[test]
    fn any_text_is_bounded(s in ".{0,24}") {
        if let Ok(d) = parse_duration(&s) {
            prop_assert!(d <= MAX_DURATION, "{s} -> {d:?}");
        }
        let _ = (parse_ceiling(&s), parse_rate(&s), parse_ios(&s), parse_fraction(&s), parse_file_size(&s));
    }

    /// Any float (exponents, infinities, NaN, negatives) with any unit: accepted exactly when
    /// it is finite, not negative and within the bound.
    #[test]
    fn any_float_with_any_unit(v in prop::num::f64::ANY, unit in 0usize..UNITS.len()) {
        let (suffix, ns) = UNITS[unit];
        let s = format!("{v:e}{suffix}");
        let secs = v * ns as f64 / 1e9;
        let ok = v >= 0.0 && v.is_finite() && secs <= MAX_DURATION.as_secs_f64();
        let r = parse_duration(&s);
        prop_assert_eq!(r.is_ok(), ok, "{} -> {:?}", s, r);
        if let Ok(d) = r {
            prop_assert!(d <= MAX_DURATION);
        }
    }

    /// Whole numbers of each unit within the bound come back exactly.
    #[test]
    fn whole_units_round_trip(n in 0u64..=2_592_000_000_000u64, unit in 0usize..UNITS.len()) {
        let (suffix, ns) = UNITS[unit];
        let total = n.checked_mul(ns).map(Duration::from_nanos);
        let r = parse_duration(&format!("{n}{suffix}"));
        match total {
            Some(d) if d <= MAX_DURATION && n < (1 << 50) => {
                // f64 seconds carry the value exactly to within a nanosecond here.
                let got = r.unwrap();
                let diff = got.abs_diff(d);
                prop_assert!(diff <= Duration::from_nanos(1 + d.as_nanos() as u64 / (1u64 << 50)), "{n}{suffix}: {got:?} vs {d:?}");
            }
            _ => prop_assert!(r.is_err(), "{}{} accepted: {:?}", n, suffix, r),
        }
    }
}
