//! The probe's numeric flags, each parsed with a bound: a value out of range is a usage error
//! (exit 2) with the range in its message, never an overflow or a panic further on.

use std::time::Duration;

/// Longest `--runtime` or `--ramp`: 30 days. Time bounds are kept in u64 nanoseconds from a
/// monotonic start; 30 days leaves room for any uptime.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Most measured I/Os per device (`--ios`): 10^12, 11 days at a million IOPS.
pub const MAX_IOS: u64 = 1_000_000_000_000;

/// Highest `--rate`, IOPS per device; and the lowest (one I/O every 1000 s).
pub const MAX_RATE: f64 = 1e9;
pub const MIN_RATE: f64 = 1e-3;

/// Highest `--ceiling-read` / `--ceiling-write`, GB/s (far above any PCIe link).
pub const MAX_CEILING_GBS: f64 = 1e4;

/// Biggest file `--size` creates: 1 PiB (the filesystem's free space is checked as well).
pub const MAX_SIZE: u64 = 1 << 50;

/// Shortest `--runtime`: 1 ms, the step of the equivalent fio command's `--runtime=` (seconds
/// with three decimals; 100ns would be fio's `--runtime=0`, which means no limit).
pub const MIN_RUNTIME: Duration = Duration::from_millis(1);

/// `5s`, `500ms`, `250us`, `2m`, `1h`, `1.5` (seconds), at most [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix("us") {
        (n, 1e-6)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (examples: 10s, 500ms, 2m)"))?;
    if !(v >= 0.0 && v.is_finite()) {
        return Err(format!(
            "`{s}` is not a duration: it must be a finite number, 0 or more (examples: 10s, 500ms, 2m)"
        ));
    }
    let secs = v * mult;
    if secs > MAX_DURATION.as_secs_f64() {
        return Err(format!(
            "`{s}` is too long: at most {} days ({}s)",
            MAX_DURATION.as_secs() / 86400,
            MAX_DURATION.as_secs()
        ));
    }
    // In range, so from_secs_f64 cannot panic.
    Ok(Duration::from_secs_f64(secs))
}

/// `25%`, `0.25`, `100%`; a bare number above 1 is a percentage. Must land in (0, 1].
pub fn parse_fraction(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v = if let Some(p) = t.strip_suffix('%') {
        p.trim().parse::<f64>().map(|x| x / 100.0)
    } else {
        t.parse::<f64>()
            .map(|x| if x > 1.0 { x / 100.0 } else { x })
    }
    .map_err(|_| format!("`{s}` is not a fraction (examples: 25%, 0.25, 100%)"))?;
    if !(v > 0.0 && v <= 1.0) {
        return Err(format!(
            "`{s}` must be a fraction in (0, 1] or a percentage in (0, 100]"
        ));
    }
    Ok(v)
}

/// A predicted ceiling in GB/s: finite, more than 0, at most [`MAX_CEILING_GBS`].
pub fn parse_ceiling(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of GB/s (example: 3.2)"))?;
    if !(v > 0.0 && v <= MAX_CEILING_GBS) {
        return Err(format!(
            "`{s}` is not a ceiling: it must be more than 0 and at most {MAX_CEILING_GBS} GB/s"
        ));
    }
    Ok(v)
}

/// `--rate`: IOPS per device in [`MIN_RATE`, `MAX_RATE`].
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a rate in IOPS (example: 5000)"))?;
    if !(MIN_RATE..=MAX_RATE).contains(&v) {
        return Err(format!(
            "`{s}` is out of range: --rate must be between {MIN_RATE} and {MAX_RATE:e} IOPS"
        ));
    }
    Ok(v)
}

/// `--ios`: 1 to [`MAX_IOS`].
pub fn parse_ios(s: &str) -> Result<u64, String> {
    let v: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a count of I/Os (example: 100000)"))?;
    if !(1..=MAX_IOS).contains(&v) {
        return Err(format!(
            "`{s}` is out of range: --ios must be 1 to {MAX_IOS}"
        ));
    }
    Ok(v)
}

/// `--size` for a file target: 1 block (512 bytes) to [`MAX_SIZE`].
pub fn parse_file_size(s: &str) -> Result<u64, String> {
    let v = super::workload::parse_size(s).map_err(|e| e.to_string())?;
    if !(512..=MAX_SIZE).contains(&v) {
        return Err(format!(
            "`{s}` is out of range: --size must be 512 bytes to 1p (1 PiB)"
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("30d").is_err());
        assert_eq!(parse_duration("720h"), Ok(MAX_DURATION));
        for bad in [
            "2e19s", "1e20s", "721h", "inf", "nan", "-1s", "", "s", "1e308h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_duration("2e19s").unwrap_err(),
            "`2e19s` is too long: at most 30 days (2592000s)"
        );
    }

    #[test]
    fn ceilings_rates_counts_sizes() {
        assert_eq!(parse_ceiling("2.5"), Ok(2.5));
        for bad in ["-1", "0", "nan", "inf", "-inf", "1e5", "x"] {
            assert!(parse_ceiling(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_rate("0.05"), Ok(0.05));
        for bad in ["0", "-3", "nan", "inf", "1e10", "0.0001"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_ios("250"), Ok(250));
        for bad in ["0", "-1", "1000000000001", "18446744073709551616"] {
            assert!(parse_ios(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_file_size("1g"), Ok(1 << 30));
        for bad in ["0", "511", "2048t", "99999999999999t"] {
            assert!(parse_file_size(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_fraction("25%"), Ok(0.25));
        for bad in ["0", "nan", "inf", "101%", "-5%"] {
            assert!(parse_fraction(bad).is_err(), "{bad}");
        }
    }
}
