//! Direct-I/O probes: measure what each device delivers and set it beside the ceiling the
//! planner predicts.
//!
//! - [`workload`]: profiles, block-size mixes, offsets, trace replay
//! - [`target`]: what to probe and opening it for O_DIRECT
//! - [`safety`]: read-only by default, refusals for devices in use
//! - [`engine`]: io_uring and pread/pwrite engines
//! - [`results`]: figures, findings, the human table
//! - [`svg`]: the latency-against-IOPS plot of a `--curve` sweep
//!
//! [`run`] is the whole probe: it never prints; progress goes to a callback.

pub mod engine;
pub mod mapped;
pub mod parse;
pub mod progress;
pub mod results;
pub mod safety;
pub mod svg;
pub mod target;
pub mod workload;

use crate::finding::{Code, Finding};
use engine::{Bound, EngineKind, JobParams, JobStats};
use results::{Curve, CurvePoint, DeviceResult, ProbeReport, ResultContext, WorkloadInfo};
use safety::{Refusal, SafetyChecker};
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use target::{OpenTarget, ProbeTarget, TargetKind};
use workload::Workload;

/// `--engine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineChoice {
    /// io_uring where it works, the sync engine at queue depth 1 (one pread in flight costs
    /// less than a ring) or where io_uring is blocked.
    #[default]
    Auto,
    Sync,
    IoUring,
}

/// How to run.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    pub workload: Workload,
    pub bound: Bound,
    pub ramp: Duration,
    /// Fixed rate per device (IOPS), or as fast as possible.
    pub rate: Option<f64>,
    /// Fraction of the device or file covered, (0, 1].
    pub working_set: f64,
    /// Size of file targets to create when missing.
    pub size: Option<u64>,
    pub engine: EngineChoice,
    pub write_allowed: bool,
    pub destroy_data_on: Vec<String>,
    pub together: bool,
    pub curve: bool,
    pub seed: u64,
}

impl ProbeOptions {
    pub fn new(workload: Workload) -> Self {
        ProbeOptions {
            workload,
            bound: Bound::Time(Duration::from_secs(10)),
            ramp: Duration::from_secs(2),
            rate: None,
            working_set: DEFAULT_WORKING_SET,
            size: None,
            engine: EngineChoice::Auto,
            write_allowed: false,
            destroy_data_on: Vec::new(),
            together: false,
            curve: false,
            seed: 0x1a9e_91a4,
        }
    }
}

/// Why a probe could not run (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Target(#[from] target::TargetError),
    #[error(transparent)]
    Workload(#[from] workload::WorkloadError),
    /// Stopped (Ctrl-C) before anything was measured; exit 130.
    #[error("interrupted before any I/O was measured: {0}")]
    Interrupted(String),
}

impl ProbeError {
    pub fn help(&self) -> Option<String> {
        match self {
            ProbeError::Refused(r) => Some(r.help.clone()),
            _ => None,
        }
    }
}

/// A target checked, opened and sized, ready to run.
#[derive(Debug)]
pub struct Prepared {
    pub target: ProbeTarget,
    pub open: OpenTarget,
    pub file: Arc<File>,
    /// Working set in bytes, from offset 0.
    pub ws: u64,
    pub workload: Workload,
}

/// Progress of a running probe, for a progress line ([`progress::line`]).
#[derive(Debug, Clone)]
pub struct Progress {
    /// What is running: a device label, `all devices`, or a curve step.
    pub phase: String,
    /// This run's number (1-based) among all runs of the probe (devices one after the
    /// other, and each curve step, are runs).
    pub step: usize,
    pub steps: usize,
    /// Each device of this run, with its rate over the last second.
    pub devices: Vec<progress::DeviceRate>,
    /// Completed I/Os, ramp included, all devices of this run.
    pub done: u64,
    /// Time since this run (step) began: what the ETA of the step is counted from.
    pub elapsed: Duration,
    /// Time since the first run of the probe began: the elapsed time the line shows, of
    /// the whole probe like its ETA.
    pub total_elapsed: Duration,
    /// Expected length (ramp + runtime) for time-bounded runs.
    pub expected: Option<Duration>,
    /// Expected I/O count for count-bounded runs.
    pub expected_ios: Option<u64>,
}

/// CPU time of the whole process (every thread, io_uring workers included, as they belong
/// to the process) plus reaped children, in seconds.
pub fn process_cpu_seconds() -> f64 {
    fn one(who: libc::c_int) -> f64 {
        // SAFETY: getrusage fills the struct.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut ru) };
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        tv(ru.ru_utime) + tv(ru.ru_stime)
    }
    one(libc::RUSAGE_SELF) + one(libc::RUSAGE_CHILDREN)
}

/// Checks every target (safety first), opens, sizes and prefills them.
pub fn prepare(
    targets: &[ProbeTarget],
    opts: &ProbeOptions,
    checker: &SafetyChecker,
) -> Result<(Vec<Prepared>, Vec<Finding>), ProbeError> {
    prepare_until(targets, opts, checker, &AtomicBool::new(false))
}

/// Most buffer memory one device's jobs may pin (`jobs x qd x largest block`).
pub const MAX_BUFFER_BYTES: u64 = 4 << 30;

/// Whether `path` names something under the device directory (`/dev`), where a missing
/// target is a missing device, never a file to create.
fn under_dev(path: &Path, dev_root: &Path) -> bool {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let dev = std::fs::canonicalize(dev_root).unwrap_or_else(|_| dev_root.to_path_buf());
    let parent = abs
        .parent()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .unwrap_or_else(|| abs.clone());
    abs.starts_with(dev_root) || abs.starts_with(&dev) || parent.starts_with(&dev)
}

/// [`prepare`], giving up once `stop` is set (Ctrl-C while a big file is prefilled). Files
/// it created are removed again when it fails.
pub fn prepare_until(
    targets: &[ProbeTarget],
    opts: &ProbeOptions,
    checker: &SafetyChecker,
    stop: &AtomicBool,
) -> Result<(Vec<Prepared>, Vec<Finding>), ProbeError> {
    let mut created = Vec::new();
    let r = prepare_inner(targets, opts, checker, stop, &mut created);
    if r.is_err() {
        for p in created {
            let _ = std::fs::remove_file(p);
        }
    }
    r
}

fn prepare_inner(
    targets: &[ProbeTarget],
    opts: &ProbeOptions,
    checker: &SafetyChecker,
    stop: &AtomicBool,
    created: &mut Vec<std::path::PathBuf>,
) -> Result<(Vec<Prepared>, Vec<Finding>), ProbeError> {
    // All refusals before anything is opened or created.
    refuse_options(targets, opts)?;
    if opts.together {
        refuse_aliases(targets)?;
    }
    let write = opts.workload.writes();
    let mut kinds = Vec::new();
    for t in targets {
        let kind = target::classify(&t.path)?;
        if kind.is_none() && under_dev(&t.path, &checker.dev_root) {
            return Err(ProbeError::Input(format!(
                "{}: no such device on this host (nothing is created under {}); `laneplan audit` lists the drives it has",
                t.path.display(),
                checker.dev_root.display()
            )));
        }
        checker.check(
            &t.path,
            kind,
            write,
            opts.write_allowed,
            &opts.destroy_data_on,
        )?;
        kinds.push(kind);
    }
    let mut findings = Vec::new();
    let mut out = Vec::new();
    for (t, kind) in targets.iter().zip(kinds) {
        out.push(prepare_one(t, kind, opts, stop, created, &mut findings)?);
    }
    Ok((out, findings))
}

/// The options a probe refuses whatever its targets are: none, a working set outside (0, 1],
/// I/O buffers over [`MAX_BUFFER_BYTES`] per device.
fn refuse_options(targets: &[ProbeTarget], opts: &ProbeOptions) -> Result<(), ProbeError> {
    if targets.is_empty() {
        return Err(ProbeError::Input(
            "no target: name block devices or files to probe".into(),
        ));
    }
    if !(opts.working_set > 0.0 && opts.working_set <= 1.0) {
        return Err(ProbeError::Input(
            "--working-set must be a fraction in (0, 1] or a percentage in (0, 100]".into(),
        ));
    }
    let w = &opts.workload;
    let jobs_bytes = u64::from(w.jobs)
        * u64::from(w.qd)
        * w.trace
            .as_ref()
            .map_or(u64::from(w.bs.max()), |t| u64::from(t.max_len()));
    if jobs_bytes > MAX_BUFFER_BYTES {
        return Err(ProbeError::Input(format!(
            "--jobs x --qd x the largest block needs {jobs_bytes} bytes of I/O buffers per device; at most {MAX_BUFFER_BYTES} (4 GiB)"
        )));
    }
    Ok(())
}

/// `--together`: one file or device named twice (by another path, a link, an alias node)
/// would be counted twice in the total.
fn refuse_aliases(targets: &[ProbeTarget]) -> Result<(), ProbeError> {
    use std::os::unix::fs::MetadataExt;
    let mut seen: Vec<((u64, u64), &std::path::Path)> = Vec::new();
    for t in targets {
        let Ok(m) = std::fs::metadata(&t.path) else {
            continue;
        };
        let key = if m.file_type().is_file() {
            (m.dev(), m.ino())
        } else {
            (u64::MAX, m.rdev())
        };
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
            return Err(ProbeError::Input(format!(
                "{} and {} are the same target: --together would count it twice",
                first.display(),
                t.path.display()
            )));
        }
        seen.push((key, &t.path));
    }
    Ok(())
}

/// Opens (or creates) one checked target, fits the workload to its alignment and working
/// set, and prefills a file it created (or notes a hole in one it reads).
fn prepare_one(
    t: &ProbeTarget,
    kind: Option<TargetKind>,
    opts: &ProbeOptions,
    stop: &AtomicBool,
    created: &mut Vec<std::path::PathBuf>,
    findings: &mut Vec<Finding>,
) -> Result<Prepared, ProbeError> {
    let w = &opts.workload;
    if kind == Some(TargetKind::File)
        && let Some(size) = opts.size
        && std::fs::metadata(&t.path).is_ok_and(|m| m.len() < size)
    {
        return Err(ProbeError::Input(format!(
            "{} exists and is smaller than --size; remove it or drop --size",
            t.path.display()
        )));
    }
    let (open, mut f) = target::open_target(t, w.writes(), opts.size)?;
    if open.created {
        created.push(t.path.clone());
    }
    findings.append(&mut f);
    let align = open.align;
    let mut workload = w.clone();
    for &(bs, _) in &w.bs.entries {
        if !(bs as u64).is_multiple_of(align) {
            return Err(ProbeError::Input(format!(
                "block size {bs} is not a multiple of {}'s direct I/O alignment of {align} bytes",
                t.path.display()
            )));
        }
    }
    let ws = ((open.size as f64 * opts.working_set) as u64) / align * align;
    let max_bs = w
        .trace
        .as_ref()
        .map_or(w.bs.max() as u64, |t| t.max_len() as u64);
    if ws < max_bs.max(align) {
        return Err(ProbeError::Input(format!(
            "{}: the working set ({ws} bytes = {:.0} % of {} bytes) is smaller than one I/O ({max_bs} bytes)",
            t.path.display(),
            opts.working_set * 100.0,
            open.size
        )));
    }
    if let Some(tr) = &w.trace {
        let mut tr = (**tr).clone();
        tr.fit(align, ws)?;
        workload.trace = Some(Arc::new(tr));
    }
    let reads = w.read_pct > 0 || w.trace.is_some();
    if open.kind == TargetKind::File && reads {
        if open.created {
            target::prefill_until(&t.path, ws, align, stop).map_err(|e| match e {
                target::TargetError::Interrupted { .. } => ProbeError::Interrupted(e.to_string()),
                e => e.into(),
            })?;
        } else if let Some(hole) = target::first_hole(&open.file, ws) {
            findings.push(
                Finding::of(
                    Code::SparseFile,
                    format!(
                        "{} has a hole or unwritten extent at byte {hole}, inside the working set: reads there return zeros without touching the disk",
                        t.path.display()
                    ),
                )
                .with_help("write the file first (dd, fio), or let laneplan create it with --size on a new path")
                .at_node(t.label.clone()),
            );
        }
    }
    let file = Arc::new(
        open.file
            .try_clone()
            .map_err(|e| ProbeError::Input(format!("{}: {e}", t.path.display())))?,
    );
    Ok(Prepared {
        target: t.clone(),
        open,
        file,
        ws,
        workload,
    })
}

/// Picks the engine; io_uring requested but unavailable is an input error.
pub fn select_engine(
    choice: EngineChoice,
    qd: u32,
) -> Result<(EngineKind, Option<Finding>), ProbeError> {
    match choice {
        EngineChoice::Sync => Ok((EngineKind::Sync, None)),
        EngineChoice::IoUring => match engine::io_uring_available() {
            Ok(()) => Ok((EngineKind::IoUring, None)),
            Err(e) => Err(ProbeError::Input(format!(
                "io_uring is not available here ({e}); use --engine sync or auto"
            ))),
        },
        EngineChoice::Auto if qd == 1 => Ok((EngineKind::Sync, None)),
        EngineChoice::Auto => match engine::io_uring_available() {
            Ok(()) => Ok((EngineKind::IoUring, None)),
            Err(e) => Ok((
                EngineKind::Sync,
                Some(Finding::of(
                    Code::NoIoUring,
                    format!(
                        "io_uring is not available here ({e}); using the pread/pwrite thread engine, one thread per outstanding I/O"
                    ),
                )
                .with_help("containers and seccomp profiles often block io_uring; check /proc/sys/kernel/io_uring_disabled")),
            )),
        },
    }
}

/// `--engine auto` where io_uring would punt every I/O on every device to its worker threads
/// (zram, brd: drivers that take no non-blocking issue). There one `iou-wrk` thread ends up
/// doing all the I/O in turn, far below what threads calling `pread` reach (zram, 4K QD 32 on
/// 2 CPUs: about 440k against 780k IOPS; docs/probe.md). Returns the note that says so, or
/// `None` to keep the ring.
fn prefer_threads(prepared: &[Prepared]) -> Option<Finding> {
    let mut names = Vec::new();
    for p in prepared {
        // Block devices only: on a file the first reads also punt while the filesystem
        // loads its extent metadata, which says nothing about the steady state.
        if !matches!(p.open.kind, TargetKind::BlockDevice { .. }) {
            return None;
        }
        let len = (p.open.align.max(4096)) as u32;
        if engine::uring_punts(&p.file, len, p.open.mem_align as usize, p.ws) != Some(true) {
            return None;
        }
        names.push(p.target.path.display().to_string());
    }
    if names.is_empty() {
        return None;
    }
    Some(
        Finding::of(
            Code::UringPunts,
            format!(
                "io_uring hands every I/O on {} to a kernel worker thread (the driver takes no non-blocking issue): the pread/pwrite thread engine runs instead, one thread per outstanding I/O",
                names.join(", ")
            ),
        )
        .with_help("--engine io_uring keeps the ring"),
    )
}

/// The share of each device a run covers unless told (the reviews ran 25 %, fio's `--size=25%`).
pub const DEFAULT_WORKING_SET: f64 = 0.25;

/// One target of the fio command: its path, and its working set and alignment in bytes
/// where known (else the share is given in percent).
#[derive(Debug, Clone, Copy)]
pub struct FioTarget<'a> {
    pub filename: &'a str,
    pub bytes: Option<(u64, u64)>,
}

/// A duration as fio takes it, in the unit it is whole in: `10s`, `300ms`, `1500us`.
pub fn fio_duration(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else if d.as_nanos().is_multiple_of(1_000_000) {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}us", d.as_micros())
    }
}

/// A word for the shell: as is when plain, else single-quoted.
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The fio command line that runs what the probe ran: the workload on each target (one fio
/// job, or `numjobs` of them, per target), the engine as it ran (`threads`: the pread/pwrite
/// thread engine, fio's psync with one job per thread; else io_uring at the queue depth),
/// the bounds in the units given (`--runtime=300ms`), the rate per fio job. Several
/// targets: `together` runs them at once (a reporting group each, `--new_group`), else one
/// after the other (`--stonewall`), as the probe does. `None` for a trace.
pub fn fio_command(
    w: &Workload,
    opts: &ProbeOptions,
    threads: bool,
    targets: &[FioTarget<'_>],
    together: bool,
) -> Option<String> {
    let mut common = w.fio_job_args(threads)?;
    let fio_jobs = u64::from(w.fio_jobs(threads));
    common.insert(0, "--direct=1".into());
    match opts.bound {
        Bound::Time(d) => common.push(format!(
            "--time_based --ramp_time={} --runtime={}",
            fio_duration(opts.ramp),
            fio_duration(d)
        )),
        // Ours counts per device, fio's per job. `--io_size` lets fio, like laneplan, go
        // round the working set again instead of stopping at its end (enough bytes for the
        // largest block every time); `--number_ios` stops it at the count.
        Bound::Ios(n) => {
            let per_job = n.div_ceil(fio_jobs);
            common.push(format!(
                "--io_size={} --number_ios={per_job}",
                per_job.saturating_mul(u64::from(w.bs.max()))
            ));
        }
    }
    if let Some(r) = opts.rate {
        // Ours is per device, fio's per job.
        let per_job = r / fio_jobs as f64;
        // fio takes whole IOPS, and 0 means no limit: never print 0.
        common.push(format!("--rate_iops={}", (per_job.round() as u64).max(1)));
    }
    if w.pattern == workload::Pattern::Random {
        // Offsets drawn with replacement, a new sequence every run, as laneplan draws them.
        common.push("--norandommap --randrepeat=0".into());
    }
    common.push("--lat_percentiles=1".into());
    let job = |t: &FioTarget<'_>, name: &str| {
        let mut j = vec![
            format!("--name={name}"),
            format!("--filename={}", shell_word(t.filename)),
        ];
        j.extend(w.fio_size_args(threads, opts.working_set, t.bytes));
        j
    };
    let mut c = vec!["fio".to_string()];
    match targets {
        [] => return None,
        // One target: every option belongs to its job.
        [t] => {
            let mut j = job(t, "probe");
            let size = j.split_off(2);
            c.extend(j);
            c.extend(common);
            c.extend(size);
        }
        // Several: the common options are global (before the first job), each target a job.
        many => {
            c.extend(common);
            for (i, t) in many.iter().enumerate() {
                c.extend(job(t, &format!("probe{}", i + 1)));
                if i > 0 {
                    c.push(
                        if together {
                            "--new_group"
                        } else {
                            "--stonewall"
                        }
                        .into(),
                    );
                }
            }
        }
    }
    Some(c.join(" "))
}

/// What one set of devices running at once measured.
struct SetResult {
    stats: Vec<JobStats>,
    seconds: Vec<f64>,
    total_seconds: f64,
    cpu_seconds: f64,
}

/// Runs `set` at once, each device with its own jobs. `rate` is per device; `phase` names
/// the run and its step (k of n) for progress, `run_start` (ns) when the probe's first run
/// began.
fn run_set(
    set: &[&Prepared],
    opts: &ProbeOptions,
    engine: EngineKind,
    rate: Option<f64>,
    stop: &Arc<AtomicBool>,
    (phase, step, run_start): (&str, (usize, usize), u64),
    progress: &dyn Fn(&Progress),
) -> SetResult {
    let start = engine::now_ns();
    let ramp_ns = opts.ramp.as_nanos() as u64;
    let counters: Vec<(Arc<AtomicU64>, Arc<AtomicU64>)> = set
        .iter()
        .map(|_| (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0))))
        .collect();
    let mut cpu0 = (ramp_ns == 0).then(process_cpu_seconds);
    let handles: Vec<Vec<JobHandle>> = set
        .iter()
        .enumerate()
        .map(|(ti, p)| {
            let spawn = JobSpawn {
                opts,
                engine,
                rate,
                stop,
                start,
                counters: &counters[ti],
            };
            spawn.jobs(ti, p)
        })
        .collect();
    let watch = Watch {
        set,
        opts,
        phase,
        step,
        run_start,
        start,
        counters: &counters,
    };
    watch.until_done(&handles, progress, || {
        if cpu0.is_none() && engine::now_ns() >= start + ramp_ns {
            cpu0 = Some(process_cpu_seconds());
        }
    });
    let wall_end = engine::now_ns();
    let cpu1 = process_cpu_seconds();
    let ramp_end = start + ramp_ns;
    // A timed run is measured over its wall time, not from the first to the last completion
    // (one I/O at --rate 0.05 in a 1 s run is 1 IOPS, not 1 over its own latency): the whole
    // runtime (a job may end early when its next I/O is due after the deadline), or until
    // the stop if the run was interrupted before it (the poll above sees it within 50 ms).
    let window_end = match opts.bound {
        Bound::Time(d) => {
            let deadline = ramp_end + d.as_nanos() as u64;
            Some(if stop.load(Ordering::Relaxed) {
                wall_end.min(deadline)
            } else {
                deadline
            })
        }
        Bound::Ios(_) => None,
    };
    let mut stats = Vec::new();
    let mut seconds = Vec::new();
    let mut last = ramp_end;
    for per_target in handles {
        let s = join_jobs(per_target);
        let end = s.end_ns.max(ramp_end).max(window_end.unwrap_or(0));
        last = last.max(end);
        seconds.push((end - ramp_end) as f64 / 1e9);
        stats.push(s);
    }
    SetResult {
        stats,
        seconds,
        total_seconds: (last - ramp_end) as f64 / 1e9,
        cpu_seconds: cpu1 - cpu0.unwrap_or(cpu1),
    }
}

type JobHandle = std::thread::JoinHandle<JobStats>;

/// What every job of one device in a set starts from.
struct JobSpawn<'a> {
    opts: &'a ProbeOptions,
    engine: EngineKind,
    rate: Option<f64>,
    stop: &'a Arc<AtomicBool>,
    start: u64,
    counters: &'a (Arc<AtomicU64>, Arc<AtomicU64>),
}

impl JobSpawn<'_> {
    /// Starts the jobs of device `ti` (`p`): each its share of an I/O count, its own seed.
    fn jobs(&self, ti: usize, p: &Prepared) -> Vec<JobHandle> {
        let w = &p.workload;
        let jobs = w.jobs;
        (0..jobs)
            .map(|j| {
                let bound = match self.opts.bound {
                    Bound::Ios(n) => {
                        Bound::Ios(n / jobs as u64 + u64::from((j as u64) < n % jobs as u64))
                    }
                    b => b,
                };
                let seed = self.opts.seed ^ ((ti as u64) << 40) ^ ((j as u64) << 20);
                let io_gen = workload::IoGen::new(w, p.ws, p.open.align, j, jobs, seed)
                    .expect("checked in prepare");
                let params = JobParams {
                    file: p.file.clone(),
                    qd: w.qd,
                    max_bs: w
                        .trace
                        .as_ref()
                        .map_or(w.bs.max() as usize, |t| t.max_len() as usize),
                    mem_align: p.open.mem_align as usize,
                    io_gen,
                    bound,
                    start_ns: self.start,
                    ramp_ns: self.opts.ramp.as_nanos() as u64,
                    rate: self.rate.map(|r| r / jobs as f64),
                    stop: self.stop.clone(),
                    done: self.counters.0.clone(),
                    done_bytes: self.counters.1.clone(),
                    seed,
                };
                let engine = self.engine;
                std::thread::spawn(move || match engine {
                    EngineKind::IoUring => engine::run_uring(params).unwrap_or_else(|e| {
                        let mut s = JobStats::new();
                        s.errors = 1;
                        s.first_error = Some(format!("io_uring setup: {e}"));
                        s
                    }),
                    EngineKind::Sync => engine::run_sync(params),
                })
            })
            .collect()
    }
}

/// The jobs of one device joined into its stats; a job that panicked counts as an error.
fn join_jobs(per_target: Vec<JobHandle>) -> JobStats {
    let mut s = JobStats::new();
    for h in per_target {
        match h.join() {
            Ok(js) => s.merge(&js),
            Err(_) => {
                let mut js = JobStats::new();
                js.errors = 1;
                js.first_error = Some("a probe job panicked".into());
                s.merge(&js);
            }
        }
    }
    s
}

/// The progress of one running set, as the progress line shows it.
struct Watch<'a> {
    set: &'a [&'a Prepared],
    opts: &'a ProbeOptions,
    phase: &'a str,
    step: (usize, usize),
    run_start: u64,
    start: u64,
    counters: &'a [(Arc<AtomicU64>, Arc<AtomicU64>)],
}

impl Watch<'_> {
    /// Reports progress every 50 ms until every job has ended (`tick` runs at each poll,
    /// before the counters are read).
    fn until_done(
        &self,
        handles: &[Vec<JobHandle>],
        progress: &dyn Fn(&Progress),
        mut tick: impl FnMut(),
    ) {
        let expected = match self.opts.bound {
            Bound::Time(d) => Some(self.opts.ramp + d),
            Bound::Ios(_) => None,
        };
        let expected_ios = match self.opts.bound {
            Bound::Ios(n) => Some(n.saturating_mul(self.set.len() as u64)),
            Bound::Time(_) => None,
        };
        let mut window = progress::RateWindow::new(Duration::from_secs(1));
        loop {
            let all_done = handles.iter().flatten().all(|h| h.is_finished());
            tick();
            let now = engine::now_ns();
            let counts: Vec<(u64, u64)> = self
                .counters
                .iter()
                .map(|(n, b)| (n.load(Ordering::Relaxed), b.load(Ordering::Relaxed)))
                .collect();
            let done = counts.iter().map(|c| c.0).sum();
            let elapsed = Duration::from_nanos(now - self.start);
            let rates = window.push(elapsed, counts);
            progress(&Progress {
                phase: self.phase.to_string(),
                step: self.step.0,
                steps: self.step.1,
                devices: self
                    .set
                    .iter()
                    .zip(rates)
                    .map(|(p, (iops, mb_per_s))| progress::DeviceRate {
                        label: p.target.label.clone(),
                        iops,
                        mb_per_s,
                    })
                    .collect(),
                done,
                elapsed,
                total_elapsed: Duration::from_nanos(now.saturating_sub(self.run_start)),
                expected,
                expected_ios,
            });
            if all_done {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn context<'a>(
    p: &'a Prepared,
    path: &'a str,
    engine: EngineKind,
    seconds: f64,
    cpu: Option<f64>,
) -> ResultContext<'a> {
    ResultContext {
        label: &p.target.label,
        path,
        location: p.target.location.as_deref(),
        engine,
        seconds,
        cpu_seconds: cpu,
        ceiling_read_gbs: p.target.ceiling_read_gbs,
        ceiling_write_gbs: p.target.ceiling_write_gbs,
        expected_read_gbs: p.target.expected_read_gbs,
        expected_write_gbs: p.target.expected_write_gbs,
    }
}

/// Offered rates of a curve sweep, in percent of the maximum: 10..100 and 110, 120.
pub const CURVE_STEPS: [u32; 12] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120];

/// The whole probe: safety checks, preparation, the runs, results and findings.
/// `stop` ends a run early (Ctrl-C): what was measured is still reported.
pub fn run(
    targets: &[ProbeTarget],
    opts: &ProbeOptions,
    checker: &SafetyChecker,
    stop: &Arc<AtomicBool>,
    progress: &dyn Fn(&Progress),
) -> Result<ProbeReport, ProbeError> {
    refuse_conflicts(opts)?;
    let (mut engine, engine_finding) = select_engine(opts.engine, opts.workload.qd)?;
    let (prepared, findings) = prepare_until(targets, opts, checker, stop)?;
    let mut runs = Runs {
        findings,
        ..Runs::default()
    };
    runs.findings.extend(engine_finding);
    if opts.engine == EngineChoice::Auto
        && engine == EngineKind::IoUring
        && let Some(f) = prefer_threads(&prepared)
    {
        engine = EngineKind::Sync;
        runs.findings.push(f);
    }
    let probe = Probe {
        prepared: &prepared,
        paths: prepared
            .iter()
            .map(|p| p.target.path.display().to_string())
            .collect(),
        opts,
        engine,
        stop,
        progress,
        // The progress line's elapsed time counts from here, like its ETA (the whole probe).
        run_start: engine::now_ns(),
    };
    let together = opts.together && prepared.len() > 1;
    if together {
        probe.run_together(&mut runs);
    } else {
        probe.run_sequential(&mut runs);
    }
    let interrupted = stop.load(Ordering::Relaxed);
    if interrupted {
        runs.findings.push(interrupted_finding(&prepared));
    }
    let mode = if opts.curve {
        "curve"
    } else if together {
        "together"
    } else {
        "sequential"
    };
    Ok(ProbeReport {
        schema_version: results::SCHEMA_VERSION,
        mode: mode.to_string(),
        workload: workload_info(&probe, runs.ring_setup, mode == "together"),
        devices: runs.devices,
        total: runs.total,
        curves: runs.curves,
        interrupted,
        findings: runs.findings,
    })
}

/// The option pairs a probe refuses before it touches a device.
fn refuse_conflicts(opts: &ProbeOptions) -> Result<(), ProbeError> {
    if opts.curve && opts.rate.is_some() {
        return Err(ProbeError::Input(
            "--curve sets the rates itself; drop --rate".into(),
        ));
    }
    if opts.curve && opts.together {
        return Err(ProbeError::Input(
            "--curve sweeps one device at a time; drop --together".into(),
        ));
    }
    Ok(())
}

/// What the runs of a probe collect, in the order they ran.
#[derive(Default)]
struct Runs {
    devices: Vec<DeviceResult>,
    total: Option<DeviceResult>,
    curves: Vec<Curve>,
    ring_setup: Option<String>,
    findings: Vec<Finding>,
}

impl Runs {
    /// One device's result and the findings it carries.
    fn push_device(&mut self, s: &JobStats, d: DeviceResult) {
        self.findings.extend(d.findings(s.first_error.as_deref()));
        self.devices.push(d);
    }
}

/// The prepared targets and the settings every run of one probe shares.
struct Probe<'a> {
    prepared: &'a [Prepared],
    paths: Vec<String>,
    opts: &'a ProbeOptions,
    engine: EngineKind,
    stop: &'a Arc<AtomicBool>,
    progress: &'a dyn Fn(&Progress),
    run_start: u64,
}

impl Probe<'_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Runs `set` at `rate` per device, named `label`, as step `step` of `steps`.
    fn run(
        &self,
        set: &[&Prepared],
        rate: Option<f64>,
        label: &str,
        step: (usize, usize),
    ) -> SetResult {
        run_set(
            set,
            self.opts,
            self.engine,
            rate,
            self.stop,
            (label, step, self.run_start),
            self.progress,
        )
    }

    /// Every device at once (`--together`): one result each and their total.
    fn run_together(&self, runs: &mut Runs) {
        let set: Vec<&Prepared> = self.prepared.iter().collect();
        let r = self.run(&set, self.opts.rate, "all devices", (1, 1));
        let mut all = JobStats::new();
        for (i, p) in self.prepared.iter().enumerate() {
            let d = DeviceResult::build(
                &r.stats[i],
                &context(p, &self.paths[i], self.engine, r.seconds[i], None),
            );
            runs.ring_setup = runs.ring_setup.take().or(r.stats[i].ring_setup.clone());
            all.merge(&r.stats[i]);
            runs.push_device(&r.stats[i], d);
        }
        let sum = |f: fn(&ProbeTarget) -> Option<f64>| {
            self.prepared
                .iter()
                .map(|p| f(&p.target))
                .sum::<Option<f64>>()
        };
        runs.total = Some(DeviceResult::build(
            &all,
            &ResultContext {
                label: "total",
                path: "",
                location: None,
                engine: self.engine,
                seconds: r.total_seconds,
                cpu_seconds: Some(r.cpu_seconds),
                ceiling_read_gbs: sum(|t| t.ceiling_read_gbs),
                ceiling_write_gbs: sum(|t| t.ceiling_write_gbs),
                expected_read_gbs: sum(|t| t.expected_read_gbs),
                expected_write_gbs: sum(|t| t.expected_write_gbs),
            },
        ));
    }

    /// One device after the other, and with `--curve` each device's sweep after its run.
    fn run_sequential(&self, runs: &mut Runs) {
        // Runs in all: each device, and with --curve its steps after it.
        let per_device = 1 + if self.opts.curve {
            CURVE_STEPS.len()
        } else {
            0
        };
        let steps = self.prepared.len() * per_device;
        let mut step = 0;
        for (i, p) in self.prepared.iter().enumerate() {
            if self.stopped() {
                break;
            }
            let label = p.target.label.clone();
            step += 1;
            let r = self.run(&[p], self.opts.rate, &label, (step, steps));
            runs.ring_setup = runs.ring_setup.take().or(r.stats[0].ring_setup.clone());
            let d = DeviceResult::build(
                &r.stats[0],
                &context(
                    p,
                    &self.paths[i],
                    self.engine,
                    r.seconds[0],
                    Some(r.cpu_seconds),
                ),
            );
            let first = d.clone();
            runs.push_device(&r.stats[0], d);
            if !self.opts.curve {
                continue;
            }
            if first.iops <= 0.0 {
                if !self.stopped() {
                    runs.findings.push(no_maximum(&label));
                }
                continue;
            }
            let curve = self.sweep(i, &label, &first, (&mut step, steps), &mut runs.findings);
            runs.curves.push(curve);
        }
    }

    /// The curve of device `i`: its maximum run `first`, then each of [`CURVE_STEPS`] as a
    /// rate of that maximum.
    fn sweep(
        &self,
        i: usize,
        label: &str,
        first: &DeviceResult,
        (step, steps): (&mut usize, usize),
        findings: &mut Vec<Finding>,
    ) -> Curve {
        let p = &self.prepared[i];
        let max_iops = first.iops;
        let mut points = vec![curve_point(None, None, first)];
        for pct in CURVE_STEPS {
            if self.stopped() {
                break;
            }
            let rate = max_iops * pct as f64 / 100.0;
            *step += 1;
            let r = self.run(
                &[p],
                Some(rate),
                &format!("{label} at {pct} %"),
                (*step, steps),
            );
            let d = DeviceResult::build(
                &r.stats[0],
                &context(
                    p,
                    &self.paths[i],
                    self.engine,
                    r.seconds[0],
                    Some(r.cpu_seconds),
                ),
            );
            findings.extend(d.findings(r.stats[0].first_error.as_deref()));
            if pct <= 100 && d.iops < rate * 0.9 && !self.stopped() {
                findings.push(
                    Finding::of(
                        Code::CurveShort,
                        format!(
                            "{label}: the {pct} % step offered {rate:.0} IOPS but reached {:.0}",
                            d.iops
                        ),
                    )
                    .at_node(label.to_string()),
                );
            }
            points.push(curve_point(Some(pct), Some(rate), &d));
        }
        Curve {
            label: label.to_string(),
            points,
        }
    }
}

/// One point of a curve: the step (`None` for the maximum run), the rate offered and what the
/// run reached.
fn curve_point(pct: Option<u32>, offered: Option<f64>, d: &DeviceResult) -> CurvePoint {
    let lat = d.latency.unwrap_or_default();
    CurvePoint {
        pct,
        offered_iops: offered.map(|x| (x * 10.0).round() / 10.0),
        iops: d.iops,
        mb_per_s: d.mb_per_s,
        mean_us: lat.mean_us,
        p99_us: lat.p99_us,
        p99_9_us: lat.p99_9_us,
    }
}

/// A device whose maximum run measured nothing: no curve to sweep.
fn no_maximum(label: &str) -> Finding {
    Finding::of(
        Code::CurveNoMaximum,
        format!("{label}: the maximum run measured 0 IOPS: no curve to sweep"),
    )
    .with_help("check the device with a plain run (no --curve) first")
    .at_node(label.to_string())
}

/// The interrupted run's finding; a scratch file this run created (`--size`) goes with the
/// interrupted run, as it does when the interrupt comes during the prefill.
fn interrupted_finding(prepared: &[Prepared]) -> Finding {
    let mut removed = Vec::new();
    for p in prepared {
        if p.open.created && std::fs::remove_file(&p.target.path).is_ok() {
            removed.push(p.target.path.display().to_string());
        }
    }
    let also = if removed.is_empty() {
        String::new()
    } else {
        format!(
            "; the file{} this run created ({}) removed",
            if removed.len() == 1 { "" } else { "s" },
            removed.join(", ")
        )
    };
    Finding::of(
        Code::Interrupted,
        format!("interrupted: the figures cover only what was measured before the stop{also}"),
    )
}

/// The workload as run: its settings, the engine, and the equivalent fio command line.
fn workload_info(probe: &Probe<'_>, ring_setup: Option<String>, together: bool) -> WorkloadInfo {
    let (w, opts, engine) = (&probe.opts.workload, probe.opts, probe.engine);
    let targets: Vec<FioTarget<'_>> = probe
        .prepared
        .iter()
        .zip(&probe.paths)
        .map(|(p, path)| FioTarget {
            filename: path,
            bytes: Some((p.ws, p.open.align)),
        })
        .collect();
    WorkloadInfo {
        name: w.name.clone(),
        bs: w.bs.to_string(),
        pattern: w.pattern,
        read_pct: w.read_pct,
        qd: w.qd,
        jobs: w.jobs,
        engine,
        ring_setup,
        ramp_s: opts.ramp.as_secs_f64(),
        runtime_s: match opts.bound {
            Bound::Time(d) => Some(d.as_secs_f64()),
            Bound::Ios(_) => None,
        },
        ios: match opts.bound {
            Bound::Ios(n) => Some(n),
            Bound::Time(_) => None,
        },
        rate_iops: opts.rate,
        working_set: opts.working_set,
        trace: w.trace.as_ref().map(|t| t.format.to_string()),
        source: w.source.map(str::to_string),
        fio: fio_command(w, opts, engine == EngineKind::Sync, &targets, together),
    }
}
