//! Results: per-device and total figures, the comparison with predicted ceilings, and the
//! human table. JSON is the serde form of [`ProbeReport`] (documented in docs/probe-json.md).

use super::engine::{EngineKind, JobStats};
use crate::finding::{Code, Finding};
use crate::term::Term;
use comfy_table::CellAlignment;
use hdrhistogram::Histogram;
use serde::Serialize;

/// Version of the JSON output; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Latency in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Latency {
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p99_9_us: f64,
    pub max_us: f64,
}

impl Latency {
    pub fn from_histogram(h: &Histogram<u64>) -> Option<Self> {
        if h.is_empty() {
            return None;
        }
        let us = |ns: f64| (ns / 1000.0 * 100.0).round() / 100.0;
        Some(Latency {
            mean_us: us(h.mean()),
            p50_us: us(h.value_at_quantile(0.50) as f64),
            p99_us: us(h.value_at_quantile(0.99) as f64),
            p99_9_us: us(h.value_at_quantile(0.999) as f64),
            max_us: us(h.max() as f64),
        })
    }
}

/// What one device (or the total) did in the measured window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceResult {
    pub label: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    pub engine: EngineKind,
    /// Measured I/Os (after the ramp).
    pub ios: u64,
    pub reads: u64,
    pub writes: u64,
    pub bytes: u64,
    /// Length of the measured window.
    pub seconds: f64,
    pub iops: f64,
    /// 1e6 bytes per second.
    pub mb_per_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_latency: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_latency: Option<Latency>,
    /// CPU time of the whole process (all threads, kernel workers included) in the window;
    /// `None` for single devices of a `--together` run (shared process).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_us_per_io: Option<f64>,
    /// CPU cycles per I/O: CPU seconds x the host's clock / I/Os, the figure `check --cycles-per-io`
    /// takes back; `None` where CPU time or the clock is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_per_io: Option<f64>,
    /// The clock (GHz) `cycles_per_io` used: the host's base frequency (cpufreq), else its
    /// maximum, else /proc/cpuinfo's first `cpu MHz`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_ghz: Option<f64>,
    /// Predicted ceiling for this mix (GB/s), when the topology is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_gbs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_pct: Option<f64>,
    /// Expected figure for this mix (GB/s): the ceiling capped by the drive's specification,
    /// when the catalogue knows the drive; `expected_pct` is the measurement as a share of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_gbs: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_pct: Option<f64>,
    pub errors: u64,
    /// I/Os given up on after the drain grace (device stalled).
    pub abandoned: u64,
}

/// Inputs to [`DeviceResult::build`] besides the stats.
pub struct ResultContext<'a> {
    pub label: &'a str,
    pub path: &'a str,
    pub location: Option<&'a str>,
    pub engine: EngineKind,
    pub seconds: f64,
    pub cpu_seconds: Option<f64>,
    pub ceiling_read_gbs: Option<f64>,
    pub ceiling_write_gbs: Option<f64>,
    pub expected_read_gbs: Option<f64>,
    pub expected_write_gbs: Option<f64>,
}

/// The figure for a read/write mix: bytes split between the read and the write figure (a
/// harmonic mean weighted by bytes), or the one direction the run used.
fn mix_figure(read_bytes: u64, write_bytes: u64, r: Option<f64>, w: Option<f64>) -> Option<f64> {
    match (read_bytes, write_bytes, r, w) {
        (0, 0, _, _) => None,
        (_, 0, Some(r), _) => Some(r),
        (0, _, _, Some(w)) => Some(w),
        (rb, wb, Some(cr), Some(cw)) => {
            let fr = rb as f64 / (rb + wb) as f64;
            Some(1.0 / (fr / cr + (1.0 - fr) / cw))
        }
        _ => None,
    }
}

/// CPU cycles per I/O: `cpu_seconds` x `ghz` x 1e9 / `ios`, whole cycles.
pub fn cycles_per_io(cpu_seconds: f64, ghz: f64, ios: u64) -> f64 {
    (cpu_seconds * ghz * 1e9 / ios.max(1) as f64).round()
}

/// The clock of this host's CPUs in GHz (read once): cpufreq's `base_frequency`, else its
/// `cpuinfo_max_freq` (kHz), else the first `cpu MHz` of /proc/cpuinfo; every read bounded.
pub fn host_clock_ghz() -> Option<f64> {
    static CLOCK: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    *CLOCK.get_or_init(|| {
        let read = |p: &str| -> Option<String> {
            use std::io::Read;
            let mut s = String::new();
            std::fs::File::open(p)
                .ok()?
                .take(64 * 1024)
                .read_to_string(&mut s)
                .ok()?;
            Some(s)
        };
        let khz = |p: &str| {
            read(p)
                .and_then(|s| s.trim().parse::<f64>().ok())
                .filter(|k| k.is_finite() && *k > 0.0)
                .map(|k| k / 1e6)
        };
        khz("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency")
            .or_else(|| khz("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"))
            .or_else(|| {
                read("/proc/cpuinfo")?
                    .lines()
                    .find(|l| l.starts_with("cpu MHz"))
                    .and_then(|l| l.split(':').nth(1))
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .filter(|m| m.is_finite() && *m > 0.0)
                    .map(|m| m / 1e3)
            })
    })
}

fn round(x: f64, digits: i32) -> f64 {
    let m = 10f64.powi(digits);
    (x * m).round() / m
}

impl DeviceResult {
    pub fn build(s: &JobStats, c: &ResultContext<'_>) -> Self {
        let mut all = s.read_lat.clone();
        all.add(&s.write_lat).expect("same bounds");
        let ios = s.reads + s.writes;
        let bytes = s.read_bytes + s.write_bytes;
        let secs = c.seconds.max(1e-9);
        let mb_per_s = bytes as f64 / secs / 1e6;
        let ceiling = mix_figure(
            s.read_bytes,
            s.write_bytes,
            c.ceiling_read_gbs,
            c.ceiling_write_gbs,
        );
        let expected = mix_figure(
            s.read_bytes,
            s.write_bytes,
            c.expected_read_gbs,
            c.expected_write_gbs,
        );
        DeviceResult {
            label: c.label.to_string(),
            path: c.path.to_string(),
            location: c.location.map(str::to_string),
            engine: c.engine,
            ios,
            reads: s.reads,
            writes: s.writes,
            bytes,
            seconds: round(c.seconds, 3),
            iops: round(ios as f64 / secs, 1),
            mb_per_s: round(mb_per_s, 2),
            latency: Latency::from_histogram(&all),
            read_latency: (s.writes > 0)
                .then(|| Latency::from_histogram(&s.read_lat))
                .flatten(),
            write_latency: (s.reads > 0)
                .then(|| Latency::from_histogram(&s.write_lat))
                .flatten(),
            cpu_seconds: c.cpu_seconds.map(|x| round(x, 3)),
            cpu_us_per_io: c
                .cpu_seconds
                .filter(|_| ios > 0)
                .map(|x| round(x * 1e6 / ios as f64, 3)),
            cycles_per_io: c
                .cpu_seconds
                .filter(|_| ios > 0)
                .zip(host_clock_ghz())
                .map(|(x, ghz)| cycles_per_io(x, ghz, ios)),
            clock_ghz: c.cpu_seconds.and(host_clock_ghz()),
            ceiling_gbs: ceiling.map(|x| round(x, 3)),
            ceiling_pct: ceiling.map(|g| round(mb_per_s / 1000.0 / g * 100.0, 1)),
            expected_gbs: expected.map(|x| round(x, 3)),
            expected_pct: expected.map(|g| round(mb_per_s / 1000.0 / g * 100.0, 1)),
            errors: s.errors,
            abandoned: s.abandoned,
        }
    }

    /// Findings about this result: below half the ceiling, I/O errors, abandoned I/O.
    pub fn findings(&self, first_error: Option<&str>) -> Vec<Finding> {
        let mut out = Vec::new();
        if let (Some(pct), Some(c)) = (self.ceiling_pct, self.ceiling_gbs)
            && pct < 50.0
        {
            out.push(
                Finding::of(
                    Code::BelowCeiling,
                    format!(
                        "{} reached {:.2} GB/s, {pct:.1} % of its predicted ceiling of {c:.2} GB/s (less than half)",
                        self.label,
                        self.mb_per_s / 1000.0
                    ),
                )
                .with_help(
                    "check the link (downtrained width or speed), the slot, NUMA placement and queue depth; small-block workloads are bound by IOPS, not by the link",
                )
                .at_node(self.location.clone().unwrap_or_else(|| self.label.clone())),
            );
        }
        if self.errors > 0 {
            out.push(
                Finding::of(
                    Code::IoErrors,
                    format!(
                        "{}: {} I/O error(s); the first: {}",
                        self.label,
                        self.errors,
                        first_error.unwrap_or("unknown")
                    ),
                )
                .at_node(self.label.clone()),
            );
        }
        if self.abandoned > 0 {
            out.push(
                Finding::of(
                    Code::Stalled,
                    format!(
                        "{}: {} I/O(s) did not complete within the drain grace after the time bound; the device may be stalled",
                        self.label, self.abandoned
                    ),
                )
                .at_node(self.label.clone()),
            );
        }
        out
    }
}

/// A point of a `--curve` sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Offered rate as a percentage of the maximum run; `None` for the maximum run itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pct: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offered_iops: Option<f64>,
    pub iops: f64,
    pub mb_per_s: f64,
    pub mean_us: f64,
    pub p99_us: f64,
    pub p99_9_us: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    pub label: String,
    pub points: Vec<CurvePoint>,
}

/// Everything a probe run produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeReport {
    pub schema_version: u32,
    /// `sequential`, `together` or `curve`.
    pub mode: String,
    pub workload: WorkloadInfo,
    pub devices: Vec<DeviceResult>,
    /// All devices together (only for `--together` runs with more than one device).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<DeviceResult>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<Curve>,
    /// The run was stopped early (Ctrl-C); the figures cover what was measured.
    pub interrupted: bool,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkloadInfo {
    pub name: String,
    pub bs: String,
    pub pattern: super::workload::Pattern,
    pub read_pct: u8,
    pub qd: u32,
    pub jobs: u32,
    /// `sync` or `io_uring`.
    pub engine: EngineKind,
    /// io_uring setup flags that took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ring_setup: Option<String>,
    pub ramp_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ios: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<f64>,
    pub working_set: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The fio command line that runs the same workload (absent for traces), to compare
    /// side by side; `DEV` stands for the target when there are several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fio: Option<String>,
}

fn fmt_num(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn fmt_iops(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// The human table: one row per device (and the total), no width limit (snapshots).
pub fn render_table(report: &ProbeReport) -> String {
    render_table_in(report, &Term::WIDE)
}

/// [`render_table`] fitted to `term`: a narrow terminal loses p50, max, mean, CPU and p99.9
/// (in that order, named in a note; `--json` has them all) before any cell wraps.
pub fn render_table_in(report: &ProbeReport, term: &Term) -> String {
    let header = [
        "device",
        "IOPS",
        "cycles/IO",
        "MB/s",
        "mean µs",
        "p50 µs",
        "p99 µs",
        "p99.9 µs",
        "max µs",
        "CPU µs/IO",
        "ceiling",
        "expected",
    ];
    let pct_of = |p: Option<f64>, g: Option<f64>| match (p, g) {
        (Some(p), Some(g)) => format!("{p:.0} % of {g:.2} GB/s"),
        _ => "-".to_string(),
    };
    let rows: Vec<Vec<String>> = report
        .devices
        .iter()
        .chain(report.total.iter())
        .map(|d| {
            let lat = d.latency.unwrap_or_default();
            vec![
                d.label.clone(),
                fmt_iops(d.iops),
                d.cycles_per_io.map_or("-".into(), fmt_num),
                fmt_num(d.mb_per_s),
                fmt_num(lat.mean_us),
                fmt_num(lat.p50_us),
                fmt_num(lat.p99_us),
                fmt_num(lat.p99_9_us),
                fmt_num(lat.max_us),
                d.cpu_us_per_io.map_or("-".into(), fmt_num),
                pct_of(d.ceiling_pct, d.ceiling_gbs),
                pct_of(d.expected_pct, d.expected_gbs),
            ]
        })
        .collect();
    let mut t = term.fitted_table(&header, &rows, &[5, 8, 4, 9, 7]);
    t.table.force_no_tty();
    // The figures (IOPS to CPU) align right.
    for i in 1..10 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t.render()
}

/// The curve as a table, one per device.
pub fn render_curve_table(curve: &Curve) -> String {
    render_curve_table_in(curve, &Term::WIDE)
}

/// [`render_curve_table`] in `term`'s style and width.
pub fn render_curve_table_in(curve: &Curve, term: &Term) -> String {
    let mut t = term.table();
    t.force_no_tty();
    t.set_header(vec![
        "rate",
        "offered IOPS",
        "IOPS",
        "MB/s",
        "mean µs",
        "p99 µs",
        "p99.9 µs",
    ]);
    for p in &curve.points {
        t.add_row(vec![
            p.pct.map_or("max".into(), |x| format!("{x} %")),
            p.offered_iops.map_or("-".into(), fmt_iops),
            fmt_iops(p.iops),
            fmt_num(p.mb_per_s),
            fmt_num(p.mean_us),
            fmt_num(p.p99_us),
            fmt_num(p.p99_9_us),
        ]);
    }
    for i in 0..7 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    format!("{}\n{t}", curve.label)
}
