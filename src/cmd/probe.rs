//! `laneplan probe`: arguments, progress bar and printing. The probe itself is
//! `laneplan::probe::run`.

use laneplan::finding::{Finding, has_errors};
use laneplan::probe::engine::Bound;
use laneplan::probe::parse;
use laneplan::probe::results::{render_curve_table_in, render_table_in};
use laneplan::probe::safety::{Reason, Refusal, SafetyChecker};
use laneplan::probe::target::ProbeTarget;
use laneplan::probe::workload::{Overrides, PROFILES, Trace, Workload};
use laneplan::probe::{EngineChoice, ProbeError, ProbeOptions, Progress};
use miette::{IntoDiagnostic, miette};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::time::Duration;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineArg {
    Auto,
    Sync,
    #[value(name = "io_uring")]
    IoUring,
}

/// `--profile`: the built-in profiles (listed in `--help`, completed, did-you-mean).
fn profiles() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        laneplan::probe::workload::PROFILES.iter().map(|p| p.name),
    )
}

/// Direct-I/O probes: IOPS, bandwidth and latency per device, beside the predicted ceiling.
///
/// Read-only by default. Writing needs --write, and on a block device also
/// --destroy-data-on naming it. Targets in use (mounted, holders, swap, a file backing a loop
/// device, open for writing elsewhere) are always refused. Ctrl-C prints what was measured
/// and exits 130.
#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("host_source").requires("mapped"))]
pub struct ProbeArgs {
    /// Block devices or files to probe (a missing file is created with --size).
    pub targets: Vec<PathBuf>,
    /// Built-in workload (see --list-profiles).
    #[arg(long, default_value = "4k-randread", value_parser = profiles())]
    pub profile: String,
    /// List the built-in profiles and exit.
    #[arg(long)]
    pub list_profiles: bool,
    /// Block size, or a distribution like 4k:30,8k:50,64k:20.
    #[arg(long)]
    pub bs: Option<String>,
    /// Pattern as in fio: read, write, randread, randwrite, rw, randrw.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(laneplan::probe::workload::RW_NAMES))]
    pub rw: Option<String>,
    /// Share of reads in percent (mixes).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_pct: Option<u8>,
    /// Outstanding I/Os per job.
    #[arg(long)]
    pub qd: Option<u32>,
    /// Jobs per device (one ring or thread group each).
    #[arg(long)]
    pub jobs: Option<u32>,
    /// Replay a trace: fio iolog (v2/v3) or blkparse text output.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Measured time per run, after the ramp (e.g. 10s, 500ms, 2m). Default 10s.
    /// At most 30 days.
    #[arg(long, conflicts_with = "ios", value_parser = parse::parse_duration)]
    pub runtime: Option<Duration>,
    /// Stop after exactly this many measured I/Os per device instead of a time (1 to 10^12).
    #[arg(long, value_parser = parse::parse_ios)]
    pub ios: Option<u64>,
    /// Warm-up excluded from the results. Default 2s with --runtime, 0 with --ios; at most 30
    /// days.
    #[arg(long, value_parser = parse::parse_duration)]
    pub ramp: Option<Duration>,
    /// Fixed rate per device (IOPS, 0.001 to 1e9); latency counts from the scheduled issue
    /// time.
    #[arg(long, value_parser = parse::parse_rate, allow_negative_numbers = true)]
    pub rate: Option<f64>,
    /// Share of each device covered, e.g. 25% or 0.25 (the reviews used 25 %).
    #[arg(long, default_value = "25%", value_parser = parse::parse_fraction)]
    pub working_set: f64,
    /// Size of a file target to create when it does not exist (e.g. 1g; 512 bytes to 1p,
    /// and no more than the filesystem has free).
    #[arg(long, value_parser = parse::parse_file_size)]
    pub size: Option<u64>,
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Run all devices at once (each device's share and the total).
    #[arg(long)]
    pub together: bool,
    /// vdbench-style sweep: a max run, then fixed rates at 10..100 % and 110/120 % of it.
    #[arg(long)]
    pub curve: bool,
    /// Write the --curve plot (latency against IOPS) as SVG (`-`: stdout, instead of the
    /// text report).
    #[arg(long, requires = "curve")]
    pub svg: Option<PathBuf>,
    /// Allow workloads that write.
    #[arg(long)]
    pub write: bool,
    /// Block device (path or serial) whose data may be destroyed by writes; repeat per device.
    #[arg(long, value_name = "SERIAL|PATH")]
    pub destroy_data_on: Vec<String>,
    /// Predicted read ceiling of each named target, GB/s (the planner fills this with --mapped).
    #[arg(long, value_name = "GB/S", value_parser = parse::parse_ceiling, allow_negative_numbers = true)]
    pub ceiling_read: Option<f64>,
    /// Predicted write ceiling of each named target, GB/s.
    #[arg(long, value_name = "GB/S", value_parser = parse::parse_ceiling, allow_negative_numbers = true)]
    pub ceiling_write: Option<f64>,
    /// No progress line on stderr (there is none either when stderr is not a terminal).
    #[arg(short, long)]
    pub quiet: bool,
    /// JSON on stdout (schema in `laneplan man --doc probe-json`); no progress line.
    #[arg(long)]
    pub json: bool,
    /// Probe every NVMe namespace the audit finds, labelled with its bay, slot and link, each
    /// beside the ceiling of its path. Namespaces in use are skipped, with the reason.
    #[arg(long, conflicts_with = "targets")]
    pub mapped: bool,
    /// With --mapped: the host to audit (default: this one). A capture (any sysfs root but
    /// `/`) only lists: writes are refused, and I/O goes only to nodes verified on the live
    /// host; a dump (`--lspci`) only lists (`--dry-run`). Safety is always checked against
    /// the live /proc and /sys.
    #[command(flatten)]
    pub host: super::host::HostArgs,
    /// With --mapped: the build the host should match; bays are named from it.
    #[arg(long, value_name = "BUILD.toml", requires = "mapped")]
    pub against: Option<PathBuf>,
    /// With --mapped: list the targets, their ceilings and safety verdicts, and do no I/O.
    #[arg(long, requires = "mapped")]
    pub dry_run: bool,
    /// Where device nodes live (tests).
    #[arg(long, hide = true, default_value = "/dev")]
    pub dev_root: PathBuf,
    /// Root of /proc for the safety checks (tests).
    #[arg(long, hide = true, default_value = "/proc")]
    pub proc_root: PathBuf,
    /// Root of /sys for the safety checks (tests).
    #[arg(long, hide = true, default_value = "/sys")]
    pub sys_root: PathBuf,
}

/// Largest trace file read (`--trace`).
const MAX_TRACE_BYTES: u64 = 1 << 30;

/// A trace file's text: a regular file (a FIFO would block) of at most 1 GiB.
fn read_trace(t: &std::path::Path) -> miette::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(t)
        .map_err(|e| miette!("{}: {e}", t.display()))?;
    let m = f.metadata().map_err(|e| miette!("{}: {e}", t.display()))?;
    if !m.is_file() {
        return Err(miette!("{}: a trace must be a regular file", t.display()));
    }
    if m.len() > MAX_TRACE_BYTES {
        return Err(miette!(
            "{}: {} bytes; traces of at most {MAX_TRACE_BYTES} bytes (1 GiB) are read",
            t.display(),
            m.len()
        ));
    }
    let mut text = String::new();
    f.take(MAX_TRACE_BYTES)
        .read_to_string(&mut text)
        .map_err(|e| miette!("{}: {e}", t.display()))?;
    Ok(text)
}

/// The run's findings on stderr in the one diagnostic style, with the summary line.
fn print_findings(findings: &[Finding]) {
    if findings.is_empty() {
        return;
    }
    eout!(
        "{}",
        laneplan::render::text::findings_in(findings, None, &super::term())
    );
}

fn probe_error(e: ProbeError) -> miette::Report {
    match e {
        ProbeError::Refused(r) => miette!(code = r.code.as_str(), help = r.help, "{}", r.message),
        other => miette!("{other}"),
    }
}

/// `--mapped`: the audit's namespaces as targets (refused ones dropped with a message). With
/// a capture (`--sysfs-root` other than `/`) it lists only: writes are refused, and I/O goes
/// only to nodes verified on the live host (`verify_live`), else the run is refused.
fn mapped_targets(
    a: &ProbeArgs,
    catalog: &super::plan::CatalogArgs,
    writes: bool,
    live: &SafetyChecker,
) -> miette::Result<Option<Vec<ProbeTarget>>> {
    let src = a.host.source_or_live();
    let root = src.path().to_path_buf();
    let capture = src.is_capture();
    if src.sysfs_root().is_none() && !a.dry_run {
        return Err(miette!(
            help = "list it with --dry-run; to probe, run on the host itself",
            "{} is a dump, not a host: probe --mapped only lists its drives (--dry-run)",
            root.display()
        ));
    }
    let mut audit = laneplan::host::source::audit(
        &src,
        a.host.pci_ids.as_deref(),
        laneplan::host::audit::AuditOptions::default(),
    )?;
    let diff = super::plan::against(catalog, a.against.as_deref(), &audit, None, &[])?;
    if let Some(d) = &diff {
        laneplan::audit::with_diff(&mut audit, d);
    }
    let cat = catalog.load()?;
    let mapped = laneplan::probe::mapped::targets(&audit, diff.as_ref(), &a.dev_root, Some(&cat));
    if a.dry_run {
        if a.json {
            let v = serde_json::json!({"schema_version": 1, "mapped": mapped});
            outln!("{}", serde_json::to_string_pretty(&v).into_diagnostic()?);
        } else {
            out!(
                "{}",
                laneplan::probe::mapped::render_in(&mapped, &super::term())
            );
        }
        return Ok(None);
    }
    if capture && writes {
        let r = Refusal::new(
            Reason::CaptureWrite,
            format!(
                "--sysfs-root {} is a capture, not this host: probe --mapped only lists and reads there, never writes",
                root.display()
            ),
            "list it with --dry-run; to write, run on the host itself and name each device with --destroy-data-on",
        );
        return Err(probe_error(ProbeError::Refused(r)));
    }
    if mapped.is_empty() {
        return Err(miette!(
            "no NVMe namespaces found under {}",
            root.join("sys").display()
        ));
    }
    let mut out = Vec::new();
    for m in mapped {
        if m.refused.is_none()
            && let Err(r) = laneplan::probe::mapped::verify_live(&m, live)
        {
            return Err(probe_error(ProbeError::Refused(r)));
        }
        match &m.refused {
            Some(why) => eoutln!("skipping {}: {why}", m.target.path.display()),
            None => out.push(m.target),
        }
    }
    if out.is_empty() {
        return Err(miette!("no NVMe namespace to probe: all in use"));
    }
    Ok(Some(out))
}

pub fn run(a: ProbeArgs, catalog: &super::plan::CatalogArgs) -> miette::Result<ExitCode> {
    if a.json && a.svg.as_deref().is_some_and(laneplan::outfile::is_stdout) {
        return Err(miette!("--json and --svg - both want stdout"));
    }
    if a.list_profiles {
        list_profiles()?;
        return Ok(ExitCode::SUCCESS);
    }
    let opts = probe_options(&a)?;
    // Safety is always checked on the live host (the hidden roots are for tests); with
    // --mapped --sysfs-root the capture only says what to probe.
    let checker = SafetyChecker::with_roots(&a.proc_root, &a.sys_root).with_dev_root(&a.dev_root);
    let targets: Vec<ProbeTarget> = if a.mapped {
        match mapped_targets(&a, catalog, opts.workload.writes(), &checker)? {
            Some(t) => t,
            None => return Ok(ExitCode::SUCCESS),
        }
    } else {
        a.targets
            .iter()
            .map(|p| {
                let mut t = ProbeTarget::from_path(p);
                t.ceiling_read_gbs = a.ceiling_read;
                t.ceiling_write_gbs = a.ceiling_write;
                t
            })
            .collect()
    };

    // Ctrl-C (or SIGTERM): the first stops the run cleanly (results so far are printed, marked
    // interrupted, exit 128 + the signal: 130 for Ctrl-C); a second exits at once.
    let stop = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicUsize::new(0));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, stop.clone());
        let _ = signal_hook::flag::register_usize(sig, signal.clone(), 128 + sig as usize);
        let _ = signal_hook::flag::register(sig, stop.clone());
    }
    let interrupted_code = || {
        let code = signal.load(std::sync::atomic::Ordering::Relaxed);
        ExitCode::from(if code == 0 { 130 } else { code as u8 })
    };

    // One live line on stderr, fio-style (laneplan::probe::progress::line); nothing when
    // stderr is not a terminal, with --json or with --quiet.
    let bar = if a.json || a.quiet || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_style(
            indicatif::ProgressStyle::with_template("{wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        b
    };
    let show = |p: &Progress| bar.set_message(laneplan::probe::progress::line(p));
    let report = laneplan::probe::run(&targets, &opts, &checker, &stop, &show);
    bar.finish_and_clear();
    let report = match report {
        Err(ProbeError::Interrupted(what)) => {
            eoutln!("interrupted before any I/O: {what}");
            return Ok(interrupted_code());
        }
        r => r.map_err(probe_error)?,
    };

    if let Some(path) = &a.svg {
        let title = laneplan::probe::svg::title(&report);
        let svg = laneplan::probe::svg::render(&title, &report.curves);
        laneplan::outfile::write_or_stdout(path, svg.as_bytes())
            .map_err(|e| miette!("cannot write {}: {e}", path.display()))?;
    }
    print_report(&a, &report)?;
    Ok(if report.interrupted {
        interrupted_code()
    } else if has_errors(&report.findings) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--list-profiles`: each profile, and the fio arguments of the same workload.
fn list_profiles() -> miette::Result<()> {
    for p in PROFILES {
        outln!(
            "{:<14} bs {:<14} {:<10} read {:>3} %  qd {:>3}  {}",
            p.name,
            p.bs,
            format!("{:?}", p.pattern).to_lowercase(),
            p.read_pct,
            p.qd,
            p.description
        );
        let w =
            Workload::from_profile(p.name, &Overrides::default()).map_err(|e| miette!("{e}"))?;
        if let Some(fio) = w.fio_args(laneplan::probe::DEFAULT_WORKING_SET, None) {
            outln!("{:<14} fio {fio}", "");
        }
    }
    Ok(())
}

/// The workload and run options of the flags, validated (a trace file read and parsed).
fn probe_options(a: &ProbeArgs) -> miette::Result<ProbeOptions> {
    let overrides = Overrides {
        bs: a.bs.clone(),
        rw: a.rw.clone(),
        read_pct: a.read_pct,
        qd: a.qd,
        jobs: a.jobs,
    };
    let mut workload =
        Workload::from_profile(&a.profile, &overrides).map_err(|e| miette!("{e}"))?;
    if let Some(t) = &a.trace {
        let text = read_trace(t)?;
        let trace = Trace::parse(&text).map_err(|e| miette!("{}: {e}", t.display()))?;
        workload.name = format!("trace {}", t.display());
        workload.read_pct = if trace.ops.iter().any(|o| o.write) {
            99
        } else {
            100
        };
        workload.trace = Some(Arc::new(trace));
        workload.source = None;
    }
    let mut opts = ProbeOptions::new(workload);
    opts.bound = match (a.ios, a.runtime) {
        (Some(n), _) => Bound::Ios(n),
        (None, Some(r)) => Bound::Time(r),
        (None, None) => Bound::Time(Duration::from_secs(10)),
    };
    if let Bound::Time(d) = opts.bound
        && d < laneplan::probe::parse::MIN_RUNTIME
    {
        return Err(miette!(
            "--runtime must be at least 1ms (the step of fio's --runtime in the equivalent command)"
        ));
    }
    opts.ramp = match (a.ramp, a.ios) {
        (Some(r), _) => r,
        (None, Some(_)) => Duration::ZERO,
        (None, None) => Duration::from_secs(2),
    };
    opts.rate = a.rate;
    opts.working_set = a.working_set;
    opts.size = a.size;
    opts.engine = match a.engine {
        EngineArg::Auto => EngineChoice::Auto,
        EngineArg::Sync => EngineChoice::Sync,
        EngineArg::IoUring => EngineChoice::IoUring,
    };
    opts.write_allowed = a.write;
    opts.destroy_data_on = a.destroy_data_on.clone();
    opts.together = a.together;
    opts.curve = a.curve;
    Ok(opts)
}

/// The report on stdout as asked: nothing but the findings (on stderr) when stdout holds the
/// SVG, JSON, or the text tables.
fn print_report(
    a: &ProbeArgs,
    report: &laneplan::probe::results::ProbeReport,
) -> miette::Result<()> {
    let svg_stdout = a.svg.as_deref().is_some_and(laneplan::outfile::is_stdout);
    if svg_stdout {
        // stdout holds the SVG: the findings still go to stderr.
        print_findings(&report.findings);
    } else if a.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(report).map_err(|e| miette!("{e}"))?
        );
    } else {
        let w = &report.workload;
        let headline = format!(
            "{}: bs {} {:?} read {} % qd {} x {} job(s), engine {}{}",
            w.name,
            w.bs,
            w.pattern,
            w.read_pct,
            w.qd,
            w.jobs,
            w.engine,
            w.ring_setup
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default()
        );
        outln!("{}", super::term().wrap(&headline));
        if let Some(fio) = &w.fio {
            outln!("same workload in fio: {fio}");
        }
        outln!("{}", render_table_in(report, &super::term()));
        for c in &report.curves {
            outln!("{}", render_curve_table_in(c, &super::term()));
        }
        print_findings(&report.findings);
    }
    Ok(())
}
