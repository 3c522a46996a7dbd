//! Workloads: the built-in profiles, block-size distributions, the per-job offset generator
//! and trace replay (fio iolog v2/v3, blkparse text).
//!
//! The generator allocates nothing per I/O: it is a small state machine over a xorshift
//! random number generator, a fixed block-size table and (for traces) a list parsed once.

use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Errors in workload parameters (sizes, distributions, traces).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct WorkloadError(pub String);

fn err(msg: impl Into<String>) -> WorkloadError {
    WorkloadError(msg.into())
}

/// Parses `4k`, `64K`, `1m`, `1MiB`, `512`, `2G` (binary multiples) into bytes.
pub fn parse_size(s: &str) -> Result<u64, WorkloadError> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let stripped = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (num, mult) = match stripped.chars().last() {
        Some('k') => (&stripped[..stripped.len() - 1], 1u64 << 10),
        Some('m') => (&stripped[..stripped.len() - 1], 1 << 20),
        Some('g') => (&stripped[..stripped.len() - 1], 1 << 30),
        Some('t') => (&stripped[..stripped.len() - 1], 1 << 40),
        Some('p') => (&stripped[..stripped.len() - 1], 1 << 50),
        _ => (stripped, 1),
    };
    let n: u64 = num.trim().parse().map_err(|_| {
        err(format!(
            "`{s}` is not a size (examples: 4k, 64k, 1m, 2g, 512)"
        ))
    })?;
    n.checked_mul(mult)
        .ok_or_else(|| err(format!("size `{s}` is too large")))
}

/// `4096` -> `4k`, `65536` -> `64k`, `1048576` -> `1m`, others in bytes.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1 << 40, "t"),
        (1 << 30, "g"),
        (1 << 20, "m"),
        (1 << 10, "k"),
    ];
    for (m, u) in UNITS {
        if bytes >= m && bytes.is_multiple_of(m) {
            return format!("{}{u}", bytes / m);
        }
    }
    bytes.to_string()
}

/// A block-size distribution: `4k`, or `4k:30,8k:50,64k:20` (weights, like fio's bssplit).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BsDist {
    /// (size in bytes, weight), weights > 0.
    pub entries: Vec<(u32, u32)>,
}

impl BsDist {
    pub fn fixed(bs: u32) -> Self {
        BsDist {
            entries: vec![(bs, 1)],
        }
    }

    pub fn parse(s: &str) -> Result<Self, WorkloadError> {
        let mut entries = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (size, weight) = match part.split_once(':') {
                Some((a, b)) => {
                    let w: u32 = b.trim().trim_end_matches('%').parse().map_err(|_| {
                        err(format!("weight `{b}` in `{part}` is not a whole number"))
                    })?;
                    (a, w)
                }
                None => (part, 1),
            };
            let bytes = parse_size(size)?;
            if bytes == 0 || bytes > (64 << 20) {
                return Err(err(format!(
                    "block size `{size}` must be between 1 byte and 64m"
                )));
            }
            if weight == 0 {
                continue;
            }
            entries.push((bytes as u32, weight));
        }
        if entries.is_empty() {
            return Err(err(format!("`{s}` gives no block size")));
        }
        if s.contains(',') && !s.contains(':') {
            return Err(err(format!(
                "`{s}`: a distribution needs weights, e.g. 4k:30,8k:50,64k:20"
            )));
        }
        Ok(BsDist { entries })
    }

    pub fn max(&self) -> u32 {
        self.entries.iter().map(|e| e.0).max().unwrap_or(0)
    }

    pub fn min(&self) -> u32 {
        self.entries.iter().map(|e| e.0).min().unwrap_or(0)
    }

    pub fn total_weight(&self) -> u32 {
        self.entries.iter().map(|e| e.1).sum()
    }

    /// Mean block size, weighted.
    pub fn mean(&self) -> f64 {
        let w = self.total_weight() as f64;
        self.entries
            .iter()
            .map(|&(b, x)| b as f64 * x as f64)
            .sum::<f64>()
            / w
    }
}

impl fmt::Display for BsDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.entries.len() == 1 {
            return f.write_str(&format_size(self.entries[0].0 as u64));
        }
        let parts: Vec<String> = self
            .entries
            .iter()
            .map(|&(b, w)| format!("{}:{w}", format_size(b as u64)))
            .collect();
        f.write_str(&parts.join(","))
    }
}

/// Access pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    Random,
    Sequential,
}

/// A complete workload description (what to issue), independent of the target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Workload {
    /// Profile name, or `custom` / `trace`.
    pub name: String,
    pub bs: BsDist,
    pub pattern: Pattern,
    /// Percentage of reads, 0..=100.
    pub read_pct: u8,
    /// Outstanding I/Os per job.
    pub qd: u32,
    pub jobs: u32,
    /// Where the mix comes from (shown in docs and JSON); `None` for the four corners.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'static str>,
    /// A trace to replay instead of generated offsets.
    #[serde(skip)]
    pub trace: Option<Arc<Trace>>,
}

impl Workload {
    pub fn writes(&self) -> bool {
        self.read_pct < 100
            || self
                .trace
                .as_ref()
                .is_some_and(|t| t.ops.iter().any(|o| o.write))
    }

    /// The fio options that issue this workload (`--rw=randread --bs=4k --iodepth=128
    /// --ioengine=io_uring`), for `working_set` of the target (0..=1). `bytes`, when one
    /// target is known: its working set in bytes and its alignment, for exact sizes (fio takes
    /// whole percentages only). Our sequential jobs each walk an equal part of the working
    /// set: fio's `--offset_increment`. `None` for a trace (fio replays it with
    /// `--read_iolog=FILE --replay_no_stall=1`).
    pub fn fio_args(&self, working_set: f64, bytes: Option<(u64, u64)>) -> Option<String> {
        // One I/O in flight goes as a plain pread, as `--engine auto` does.
        let threads = self.qd == 1;
        let mut a = self.fio_job_args(threads)?;
        a.extend(self.fio_size_args(threads, working_set, bytes));
        Some(a.join(" "))
    }

    /// fio's jobs for one of ours: `jobs`, or with the pread/pwrite thread engine (which runs
    /// one thread per outstanding I/O) `jobs x qd` psync jobs.
    pub fn fio_jobs(&self, threads: bool) -> u32 {
        if threads {
            self.jobs.max(1) * self.qd.max(1)
        } else {
            self.jobs.max(1)
        }
    }

    /// The options of [`Workload::fio_args`] that hold for every target: pattern, sizes,
    /// mix, engine (`threads`: the pread/pwrite engine ran, fio's `psync` with one job per
    /// thread; else io_uring at the queue depth) and jobs. `None` for a trace.
    pub fn fio_job_args(&self, threads: bool) -> Option<Vec<String>> {
        if self.trace.is_some() {
            return None;
        }
        let mut a = vec![format!("--rw={}", self.fio_rw())];
        if self.bs.entries.len() == 1 {
            a.push(format!("--bs={}", self.bs));
        } else {
            let split: Vec<String> = self
                .bs
                .entries
                .iter()
                .map(|&(b, w)| format!("{}/{w}", format_size(u64::from(b))))
                .collect();
            a.push(format!("--bssplit={}", split.join(":")));
        }
        if !matches!(self.read_pct, 0 | 100) {
            a.push(format!("--rwmixread={}", self.read_pct));
        }
        if threads {
            a.push("--ioengine=psync".into());
        } else {
            a.push(format!("--ioengine=io_uring --iodepth={}", self.qd));
        }
        let jobs = self.fio_jobs(threads);
        if jobs > 1 {
            a.push(format!("--numjobs={jobs} --group_reporting"));
        }
        Some(a)
    }

    /// The per-target options: `share` of the working set, in bytes where known (its size
    /// and alignment), else whole percent; sequential jobs split it (`--offset_increment`).
    pub fn fio_size_args(
        &self,
        threads: bool,
        working_set: f64,
        bytes: Option<(u64, u64)>,
    ) -> Vec<String> {
        let size = |jobs: u64| match bytes {
            Some((ws, align)) => (ws / jobs / align.max(1) * align.max(1)).to_string(),
            None => format!("{}%", ((working_set * 100.0 / jobs as f64) as u64).max(1)),
        };
        let jobs = self.fio_jobs(threads);
        if jobs > 1 && self.pattern == Pattern::Sequential {
            let part = size(u64::from(jobs));
            return vec![format!("--size={part} --offset_increment={part}")];
        }
        vec![format!("--size={}", size(1))]
    }

    /// fio `--rw` for this pattern and mix.
    pub fn fio_rw(&self) -> &'static str {
        match (self.pattern, self.read_pct) {
            (Pattern::Random, 100) => "randread",
            (Pattern::Random, 0) => "randwrite",
            (Pattern::Random, _) => "randrw",
            (Pattern::Sequential, 100) => "read",
            (Pattern::Sequential, 0) => "write",
            (Pattern::Sequential, _) => "rw",
        }
    }
}

/// Every `--rw` pattern, fio's names (`readwrite` is `rw`).
pub const RW_NAMES: [&str; 7] = [
    "read",
    "write",
    "randread",
    "randwrite",
    "rw",
    "readwrite",
    "randrw",
];

/// One built-in profile.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub name: &'static str,
    pub bs: &'static str,
    pub pattern: Pattern,
    pub read_pct: u8,
    pub qd: u32,
    pub description: &'static str,
    pub source: Option<&'static str>,
}

const SQL_SOURCE: &str = "approximation: SQL Server 8 KiB pages read/written singly and 64 KiB \
extents (read-ahead, scans) (Microsoft, Pages and extents architecture guide); 100 % random and \
70/30 read/write like Dell VxRail OLTP; 90-10/80-20 taken as read/write percentages. The reviews' \
own mixes are not public.";
const ORACLE_SOURCE: &str = "approximation: Oracle 8 KiB db_block_size with 1 MiB multiblock \
reads, 99 % 8 KiB / 1 % 1 MiB like SPEC SFS2014 DATABASE table traffic; 100 % random, 70/30 \
read/write like Dell VxRail OLTP; 90-10/80-20 taken as read/write percentages. The reviews' own \
mixes are not public.";

/// The built-in profiles: VDBench four corners with the reviews' thread counts, then the
/// database mixes (approximations, see `source`).
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "4k-randread",
        bs: "4k",
        pattern: Pattern::Random,
        read_pct: 100,
        qd: 128,
        description: "4K random read, 128 outstanding I/Os (the reviews' VDBench corner)",
        source: None,
    },
    Profile {
        name: "4k-randwrite",
        bs: "4k",
        pattern: Pattern::Random,
        read_pct: 0,
        qd: 64,
        description: "4K random write, 64 outstanding I/Os",
        source: None,
    },
    Profile {
        name: "64k-seqread",
        bs: "64k",
        pattern: Pattern::Sequential,
        read_pct: 100,
        qd: 16,
        description: "64K sequential read, 16 outstanding I/Os",
        source: None,
    },
    Profile {
        name: "64k-seqwrite",
        bs: "64k",
        pattern: Pattern::Sequential,
        read_pct: 0,
        qd: 8,
        description: "64K sequential write, 8 outstanding I/Os",
        source: None,
    },
    Profile {
        name: "sql",
        bs: "8k:90,64k:10",
        pattern: Pattern::Random,
        read_pct: 70,
        qd: 64,
        description: "SQL Server OLTP approximation, 70 % read",
        source: Some(SQL_SOURCE),
    },
    Profile {
        name: "sql-90-10",
        bs: "8k:90,64k:10",
        pattern: Pattern::Random,
        read_pct: 90,
        qd: 64,
        description: "SQL Server OLTP approximation, 90 % read",
        source: Some(SQL_SOURCE),
    },
    Profile {
        name: "sql-80-20",
        bs: "8k:90,64k:10",
        pattern: Pattern::Random,
        read_pct: 80,
        qd: 64,
        description: "SQL Server OLTP approximation, 80 % read",
        source: Some(SQL_SOURCE),
    },
    Profile {
        name: "oracle",
        bs: "8k:99,1m:1",
        pattern: Pattern::Random,
        read_pct: 70,
        qd: 64,
        description: "Oracle OLTP approximation, 70 % read",
        source: Some(ORACLE_SOURCE),
    },
    Profile {
        name: "oracle-90-10",
        bs: "8k:99,1m:1",
        pattern: Pattern::Random,
        read_pct: 90,
        qd: 64,
        description: "Oracle OLTP approximation, 90 % read",
        source: Some(ORACLE_SOURCE),
    },
    Profile {
        name: "oracle-80-20",
        bs: "8k:99,1m:1",
        pattern: Pattern::Random,
        read_pct: 80,
        qd: 64,
        description: "Oracle OLTP approximation, 80 % read",
        source: Some(ORACLE_SOURCE),
    },
];

pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// Overrides on top of a profile (the CLI's `--bs`, `--rw`, ...).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub bs: Option<String>,
    /// fio-style: read, write, randread, randwrite, rw/readwrite, randrw.
    pub rw: Option<String>,
    pub read_pct: Option<u8>,
    pub qd: Option<u32>,
    pub jobs: Option<u32>,
}

impl Workload {
    /// A profile with overrides applied.
    pub fn from_profile(name: &str, o: &Overrides) -> Result<Self, WorkloadError> {
        let p = profile(name).ok_or_else(|| {
            let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
            let mean = crate::suggest::hint(name, names.iter().copied())
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            err(format!(
                "unknown profile `{name}`{mean}; known: {}",
                names.join(", ")
            ))
        })?;
        let mut w = Workload {
            name: p.name.to_string(),
            bs: BsDist::parse(p.bs)?,
            pattern: p.pattern,
            read_pct: p.read_pct,
            qd: p.qd,
            jobs: 1,
            source: p.source,
            trace: None,
        };
        let mut custom = false;
        if let Some(bs) = &o.bs {
            w.bs = BsDist::parse(bs)?;
            custom = true;
        }
        if let Some(rw) = &o.rw {
            let (pat, pct) = match rw.as_str() {
                "read" => (Pattern::Sequential, Some(100)),
                "write" => (Pattern::Sequential, Some(0)),
                "randread" => (Pattern::Random, Some(100)),
                "randwrite" => (Pattern::Random, Some(0)),
                "rw" | "readwrite" => (Pattern::Sequential, None),
                "randrw" => (Pattern::Random, None),
                other => {
                    return Err(err(format!(
                        "unknown --rw `{other}`; use read, write, randread, randwrite, rw or randrw"
                    )));
                }
            };
            w.pattern = pat;
            w.read_pct = pct.unwrap_or(if w.read_pct == 100 || w.read_pct == 0 {
                50
            } else {
                w.read_pct
            });
            custom = true;
        }
        if let Some(pct) = o.read_pct {
            if pct > 100 {
                return Err(err("--read-pct must be 0..=100"));
            }
            w.read_pct = pct;
            custom = true;
        }
        if let Some(qd) = o.qd {
            if qd == 0 || qd > 4096 {
                return Err(err("--qd must be 1..=4096"));
            }
            w.qd = qd;
            custom = true;
        }
        if let Some(j) = o.jobs {
            if j == 0 || j > 256 {
                return Err(err("--jobs must be 1..=256"));
            }
            w.jobs = j;
        }
        if custom {
            w.name = format!("{} (custom)", p.name);
        }
        Ok(w)
    }
}

/// One I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoReq {
    pub offset: u64,
    pub len: u32,
    pub write: bool,
}

/// A parsed trace: the I/Os in order (timing is not replayed: the trace is issued as fast as
/// the queue depth allows, like fio's `replay_no_stall`).
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub format: &'static str,
    pub ops: Vec<IoReq>,
}

impl Trace {
    /// Detects the format from the first line: `fio version 2 iolog`, `fio version 3 iolog`,
    /// otherwise blkparse's default text output.
    pub fn parse(text: &str) -> Result<Self, WorkloadError> {
        let first = text.lines().next().unwrap_or("").trim();
        let (format, ops) = match first {
            "fio version 2 iolog" => ("fio-iolog-v2", parse_iolog(text, false)?),
            "fio version 3 iolog" => ("fio-iolog-v3", parse_iolog(text, true)?),
            _ => ("blkparse", parse_blkparse(text)?),
        };
        if ops.is_empty() {
            return Err(err(format!("the {format} trace holds no read or write")));
        }
        Ok(Trace { format, ops })
    }

    /// Aligns every I/O to `align` (offset down, length up) and folds offsets into
    /// `[0, span)`.
    pub fn fit(&mut self, align: u64, span: u64) -> Result<(), WorkloadError> {
        for op in &mut self.ops {
            let len = (op.len as u64).div_ceil(align).max(1) * align;
            if len > span {
                return Err(err(format!(
                    "a trace I/O of {} bytes is larger than the target's {span} bytes",
                    op.len
                )));
            }
            let slots = (span - len) / align + 1;
            op.offset = (op.offset / align % slots) * align;
            op.len = len as u32;
        }
        Ok(())
    }

    pub fn max_len(&self) -> u32 {
        self.ops.iter().map(|o| o.len).max().unwrap_or(0)
    }
}

fn parse_iolog(text: &str, v3: bool) -> Result<Vec<IoReq>, WorkloadError> {
    let mut ops = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let rest = if v3 {
            fields.get(1..)
        } else {
            Some(&fields[..])
        };
        let Some(rest) = rest else { continue };
        // filename action [offset length]
        if rest.len() < 4 {
            continue; // add/open/close, or empty
        }
        let write = match rest[1] {
            "read" => false,
            "write" => true,
            _ => continue, // sync, datasync, trim, wait
        };
        let num = |s: &str| {
            s.parse::<u64>()
                .map_err(|_| err(format!("iolog line {}: `{s}` is not a number", n + 1)))
        };
        let offset = num(rest[2])?;
        let len = num(rest[3])?;
        ops.push(IoReq {
            offset,
            len: len.min(64 << 20) as u32,
            write,
        });
    }
    Ok(ops)
}

/// blkparse default format: `dev cpu seq time pid action rwbs sector + nsectors [proc]`.
/// Uses one action kind: queue (Q) events when present, else issue (D), else complete (C).
fn parse_blkparse(text: &str) -> Result<Vec<IoReq>, WorkloadError> {
    let mut by_action: [Vec<IoReq>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut recognised = false;
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 10 || f[8] != "+" || !f[0].contains(',') {
            continue;
        }
        recognised = true;
        let slot = match f[5] {
            "Q" => 0,
            "D" => 1,
            "C" => 2,
            _ => continue,
        };
        let rwbs = f[6];
        let write = if rwbs.contains('W') {
            true
        } else if rwbs.contains('R') {
            false
        } else {
            continue;
        };
        let (Ok(sector), Ok(n)) = (f[7].parse::<u64>(), f[9].parse::<u64>()) else {
            continue;
        };
        if n == 0 {
            continue;
        }
        by_action[slot].push(IoReq {
            offset: sector * 512,
            len: (n * 512).min(64 << 20) as u32,
            write,
        });
    }
    if !recognised {
        return Err(err(
            "the trace is neither a fio iolog (first line `fio version 2 iolog` or `fio version 3 iolog`) nor blkparse text output",
        ));
    }
    Ok(by_action
        .into_iter()
        .find(|v| !v.is_empty())
        .unwrap_or_default())
}

/// xorshift64*: fast, good enough for offsets, no allocation, reproducible from a seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias is negligible for our ranges).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// The per-job generator of I/Os.
#[derive(Debug, Clone)]
pub struct IoGen {
    rng: Rng,
    /// (size, cumulative weight)
    sizes: [(u32, u32); 8],
    nsizes: usize,
    total_weight: u32,
    read_pct: u8,
    kind: GenKind,
}

#[derive(Debug, Clone)]
enum GenKind {
    Random {
        base: u64,
        len: u64,
        align: u64,
    },
    Sequential {
        base: u64,
        len: u64,
        pos: u64,
    },
    /// One sequential stream walked by several threads: `cursor` counts bytes issued.
    SharedSequential {
        base: u64,
        len: u64,
        cursor: Arc<AtomicU64>,
    },
    Trace {
        trace: Arc<Trace>,
        next: usize,
    },
}

impl IoGen {
    /// Generator for job `job` of `jobs` over the working set `[0, ws)`. Random jobs cover
    /// the whole working set; sequential jobs each walk their own equal region.
    pub fn new(
        w: &Workload,
        ws: u64,
        align: u64,
        job: u32,
        jobs: u32,
        seed: u64,
    ) -> Result<Self, WorkloadError> {
        if w.bs.entries.len() > 8 {
            return Err(err("at most 8 block sizes in a distribution"));
        }
        let mut sizes = [(0u32, 0u32); 8];
        let mut cum = 0;
        for (i, &(b, wt)) in w.bs.entries.iter().enumerate() {
            cum += wt;
            sizes[i] = (b, cum);
        }
        let kind = if let Some(t) = &w.trace {
            let n = t.ops.len();
            GenKind::Trace {
                trace: t.clone(),
                next: n * job as usize / jobs as usize,
            }
        } else {
            match w.pattern {
                Pattern::Random => {
                    let a = align.max(w.bs.min() as u64);
                    GenKind::Random {
                        base: 0,
                        len: ws,
                        align: a,
                    }
                }
                Pattern::Sequential => {
                    let region = ws / jobs as u64 / align * align;
                    GenKind::Sequential {
                        base: region * job as u64,
                        len: region,
                        pos: 0,
                    }
                }
            }
        };
        let max = w.bs.max() as u64;
        match &kind {
            GenKind::Random { len, .. } | GenKind::Sequential { len, .. } if *len < max => {
                return Err(err(format!(
                    "the working set per job ({len} bytes) is smaller than the largest block size ({max} bytes)"
                )));
            }
            _ => {}
        }
        Ok(IoGen {
            rng: Rng::new(seed ^ ((job as u64 + 1) << 32)),
            sizes,
            nsizes: w.bs.entries.len(),
            total_weight: cum,
            read_pct: w.read_pct,
            kind,
        })
    }

    #[inline]
    fn pick_size(&mut self) -> u32 {
        if self.nsizes == 1 {
            return self.sizes[0].0;
        }
        let r = self.rng.below(self.total_weight as u64) as u32;
        for &(b, c) in &self.sizes[..self.nsizes] {
            if r < c {
                return b;
            }
        }
        self.sizes[self.nsizes - 1].0
    }

    #[inline]
    /// The generator for one of several threads serving the same job, so the threads need no
    /// lock: random jobs draw from their own seed; sequential jobs take their offsets from
    /// `cursor`, shared by the job's threads, so the job stays one stream. `None` for trace
    /// jobs, whose threads must share one generator to keep the trace's order.
    pub fn fork(&self, thread: u32, cursor: &Arc<AtomicU64>) -> Option<IoGen> {
        let mut g = self.clone();
        g.rng = Rng::new(self.rng.0 ^ (u64::from(thread) + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
        g.kind = match &self.kind {
            GenKind::Random { .. } => self.kind.clone(),
            GenKind::Sequential { base, len, .. } => GenKind::SharedSequential {
                base: *base,
                len: *len,
                cursor: cursor.clone(),
            },
            GenKind::SharedSequential { .. } | GenKind::Trace { .. } => return None,
        };
        Some(g)
    }

    pub fn next_io(&mut self) -> IoReq {
        let write = match self.read_pct {
            100 => false,
            0 => true,
            p => self.rng.below(100) >= p as u64,
        };
        if let GenKind::Trace { trace, next } = &mut self.kind {
            let op = trace.ops[*next];
            *next += 1;
            if *next == trace.ops.len() {
                *next = 0;
            }
            return op;
        }
        let len = self.pick_size();
        let offset = match &mut self.kind {
            GenKind::Random {
                base,
                len: ws,
                align,
            } => {
                let slots = (*ws - len as u64) / *align + 1;
                *base + self.rng.below(slots) * *align
            }
            GenKind::Sequential { base, len: ws, pos } => {
                if *pos + len as u64 > *ws {
                    *pos = 0;
                }
                let o = *base + *pos;
                *pos += len as u64;
                o
            }
            GenKind::SharedSequential {
                base,
                len: ws,
                cursor,
            } => {
                let at = cursor.fetch_add(len as u64, Ordering::Relaxed) % *ws;
                *base + if at + len as u64 > *ws { 0 } else { at }
            }
            GenKind::Trace { .. } => unreachable!(),
        };
        IoReq { offset, len, write }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("64KiB").unwrap(), 65536);
        assert_eq!(parse_size("1M").unwrap(), 1 << 20);
        assert_eq!(parse_size("512").unwrap(), 512);
        assert!(parse_size("4q").is_err());
        assert_eq!(format_size(65536), "64k");
        assert_eq!(format_size(1000), "1000");
    }

    #[test]
    fn distribution() {
        let d = BsDist::parse("4k:30,8k:50,64k:20").unwrap();
        assert_eq!(d.entries, vec![(4096, 30), (8192, 50), (65536, 20)]);
        assert_eq!(d.to_string(), "4k:30,8k:50,64k:20");
        assert_eq!(d.max(), 65536);
        assert!(BsDist::parse("4k,8k").is_err());
        assert!(BsDist::parse("").is_err());
    }

    #[test]
    fn generator_respects_mix_and_bounds() {
        let mut w = Workload::from_profile("sql-80-20", &Overrides::default()).unwrap();
        w.bs = BsDist::parse("4k:50,64k:50").unwrap();
        let ws = 1 << 20;
        let mut g = IoGen::new(&w, ws, 4096, 0, 1, 7).unwrap();
        let (mut reads, mut small) = (0, 0);
        for _ in 0..10_000 {
            let io = g.next_io();
            assert_eq!(io.offset % 4096, 0);
            assert!(io.offset + io.len as u64 <= ws);
            reads += !io.write as u32;
            small += (io.len == 4096) as u32;
        }
        assert!((7600..8400).contains(&reads), "{reads}");
        assert!((4600..5400).contains(&small), "{small}");
    }

    #[test]
    fn sequential_jobs_walk_own_regions() {
        let w = Workload::from_profile("64k-seqread", &Overrides::default()).unwrap();
        let mut g = IoGen::new(&w, 1 << 20, 4096, 1, 2, 1).unwrap();
        let offs: Vec<u64> = (0..9).map(|_| g.next_io().offset).collect();
        assert_eq!(offs[0], 512 << 10);
        assert_eq!(offs[1], (512 << 10) + 65536);
        assert_eq!(offs[8], 512 << 10, "wraps after 8 x 64k");
    }

    #[test]
    fn fio_args_for_profiles_overrides_and_known_sizes() {
        let w = Workload::from_profile("oracle", &Overrides::default()).unwrap();
        assert_eq!(
            w.fio_args(0.25, None).unwrap(),
            "--rw=randrw --bssplit=8k/99:1m/1 --rwmixread=70 --ioengine=io_uring --iodepth=64 --size=25%"
        );
        let o = Overrides {
            qd: Some(1),
            ..Default::default()
        };
        let w = Workload::from_profile("4k-randread", &o).unwrap();
        assert_eq!(
            w.fio_args(1.0, None).unwrap(),
            "--rw=randread --bs=4k --ioengine=psync --size=100%"
        );
        // Three sequential jobs over 25 % of 1 GiB: fio takes whole percentages only, so the
        // known size goes in bytes, each job's part aligned down like laneplan's.
        let o = Overrides {
            jobs: Some(3),
            ..Default::default()
        };
        let w = Workload::from_profile("64k-seqread", &o).unwrap();
        assert_eq!(
            w.fio_args(0.25, Some((1 << 28, 4096))).unwrap(),
            "--rw=read --bs=64k --ioengine=io_uring --iodepth=16 --numjobs=3 --group_reporting --size=89477120 --offset_increment=89477120"
        );
        assert_eq!(
            w.fio_args(0.25, None).unwrap(),
            "--rw=read --bs=64k --ioengine=io_uring --iodepth=16 --numjobs=3 --group_reporting --size=8% --offset_increment=8%"
        );
    }

    #[test]
    fn forked_threads_share_a_sequential_stream_and_split_random_seeds() {
        let w = Workload::from_profile("64k-seqread", &Overrides::default()).unwrap();
        let g = IoGen::new(&w, 1 << 20, 4096, 1, 2, 1).unwrap();
        let cursor = Arc::new(AtomicU64::new(0));
        let mut a = g.fork(0, &cursor).unwrap();
        let mut b = g.fork(1, &cursor).unwrap();
        // Turns of two threads: one stream through the job's region, then around again.
        let offs: Vec<u64> = (0..9)
            .map(|i| if i % 2 == 0 { a.next_io() } else { b.next_io() }.offset)
            .collect();
        let expect: Vec<u64> = (0..9).map(|i| (512 << 10) + (i % 8) * 65536).collect();
        assert_eq!(offs, expect);

        let w = Workload::from_profile("4k-randread", &Overrides::default()).unwrap();
        let g = IoGen::new(&w, 1 << 30, 4096, 0, 1, 7).unwrap();
        let (mut a, mut b) = (g.fork(0, &cursor).unwrap(), g.fork(1, &cursor).unwrap());
        let xa: Vec<u64> = (0..64).map(|_| a.next_io().offset).collect();
        let xb: Vec<u64> = (0..64).map(|_| b.next_io().offset).collect();
        assert_ne!(xa, xb, "each thread draws its own offsets");
        assert!(xa.iter().chain(&xb).all(|o| o % 4096 == 0 && *o < 1 << 30));
        assert_eq!(
            cursor.load(Ordering::Relaxed),
            9 * 65536,
            "random jobs leave it alone"
        );
    }

    #[test]
    fn rw_override() {
        let o = Overrides {
            rw: Some("randrw".into()),
            bs: Some("16k".into()),
            ..Default::default()
        };
        let w = Workload::from_profile("4k-randread", &o).unwrap();
        assert_eq!(w.read_pct, 50);
        assert_eq!(w.bs, BsDist::fixed(16384));
        assert_eq!(w.fio_rw(), "randrw");
        assert_eq!(w.name, "4k-randread (custom)");
    }

    #[test]
    fn iolog_v2_v3_and_blkparse() {
        let v2 = "fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x read 4096 4096\n/dev/x write 8192 512\n/dev/x sync 0 0\n/dev/x close\n";
        let t = Trace::parse(v2).unwrap();
        assert_eq!(t.format, "fio-iolog-v2");
        assert_eq!(
            t.ops,
            vec![
                IoReq {
                    offset: 4096,
                    len: 4096,
                    write: false
                },
                IoReq {
                    offset: 8192,
                    len: 512,
                    write: true
                }
            ]
        );
        let v3 = "fio version 3 iolog\n0 /dev/x add\n0 /dev/x open\n10 /dev/x read 0 8192\n20 /dev/x close\n";
        let t = Trace::parse(v3).unwrap();
        assert_eq!(
            t.ops,
            vec![IoReq {
                offset: 0,
                len: 8192,
                write: false
            }]
        );
        let bp = "  8,0    3        1     0.000000000   697  Q   R 2048 + 8 [fio]\n  8,0    3        2     0.000001000   697  D   R 2048 + 8 [fio]\n  8,0    3        3     0.000002000   697  Q  WS 4096 + 16 [fio]\nCPU0 (8,0):\n";
        let t = Trace::parse(bp).unwrap();
        assert_eq!(t.format, "blkparse");
        assert_eq!(
            t.ops,
            vec![
                IoReq {
                    offset: 1 << 20,
                    len: 4096,
                    write: false
                },
                IoReq {
                    offset: 2 << 20,
                    len: 8192,
                    write: true
                }
            ]
        );
        assert!(Trace::parse("hello\n").is_err());
    }

    #[test]
    fn trace_fit_aligns_and_folds() {
        let mut t = Trace {
            format: "x",
            ops: vec![IoReq {
                offset: 10_000,
                len: 100,
                write: false,
            }],
        };
        t.fit(4096, 8192).unwrap();
        assert_eq!(
            t.ops[0],
            IoReq {
                offset: 0,
                len: 4096,
                write: false
            }
        );
    }
}
