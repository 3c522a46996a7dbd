//! `laneplan probe`: arguments, progress bar and printing. The probe itself is
//! `laneplan::probe::run`.

use laneplan::finding::{Finding, has_errors};
use laneplan::probe::engine::Bound;
use laneplan::probe::results::{render_curve_table, render_table};
use laneplan::probe::safety::SafetyChecker;
use laneplan::probe::target::ProbeTarget;
use laneplan::probe::workload::{Overrides, PROFILES, Trace, Workload, parse_size};
use laneplan::probe::{EngineChoice, ProbeError, ProbeOptions, Progress};
use miette::{IntoDiagnostic, miette};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineArg {
    Auto,
    Sync,
    #[value(name = "io_uring")]
    IoUring,
}

/// Direct-I/O probes: IOPS, bandwidth and latency per device, beside the predicted ceiling.
///
/// Read-only by default. Writing needs --write, and on a block device also
/// --destroy-data-on naming it. Devices in use (mounted, holders, swap) are always refused.
#[derive(clap::Args, Debug)]
pub struct ProbeArgs {
    /// Block devices or files to probe (a missing file is created with --size).
    pub targets: Vec<PathBuf>,
    /// Built-in workload (see --list-profiles).
    #[arg(long, default_value = "4k-randread")]
    pub profile: String,
    /// List the built-in profiles and exit.
    #[arg(long)]
    pub list_profiles: bool,
    /// Block size, or a distribution like 4k:30,8k:50,64k:20.
    #[arg(long)]
    pub bs: Option<String>,
    /// Pattern as in fio: read, write, randread, randwrite, rw, randrw.
    #[arg(long)]
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
    #[arg(long, conflicts_with = "ios")]
    pub runtime: Option<String>,
    /// Stop after exactly this many measured I/Os per device instead of a time.
    #[arg(long)]
    pub ios: Option<u64>,
    /// Warm-up excluded from the results. Default 2s with --runtime, 0 with --ios.
    #[arg(long)]
    pub ramp: Option<String>,
    /// Fixed rate per device (IOPS); latency counts from the scheduled issue time.
    #[arg(long)]
    pub rate: Option<f64>,
    /// Share of each device covered, e.g. 25% or 0.25 (the reviews used 25 %).
    #[arg(long, default_value = "25%")]
    pub working_set: String,
    /// Size of a file target to create when it does not exist (e.g. 1g).
    #[arg(long)]
    pub size: Option<String>,
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Run all devices at once (each device's share and the total).
    #[arg(long)]
    pub together: bool,
    /// vdbench-style sweep: a max run, then fixed rates at 10..100 % and 110/120 % of it.
    #[arg(long)]
    pub curve: bool,
    /// Write the --curve plot (latency against IOPS) as SVG.
    #[arg(long, requires = "curve")]
    pub svg: Option<PathBuf>,
    /// Allow workloads that write.
    #[arg(long)]
    pub write: bool,
    /// Block device (path or serial) whose data may be destroyed by writes; repeat per device.
    #[arg(long, value_name = "SERIAL|PATH")]
    pub destroy_data_on: Vec<String>,
    /// Predicted read ceiling of each named target, GB/s (the planner fills this with --mapped).
    #[arg(long, value_name = "GB/S")]
    pub ceiling_read: Option<f64>,
    /// Predicted write ceiling of each named target, GB/s.
    #[arg(long, value_name = "GB/S")]
    pub ceiling_write: Option<f64>,
    /// JSON on stdout (schema in docs/probe-json.md); no progress bar.
    #[arg(long)]
    pub json: bool,
    /// Probe every NVMe namespace the audit finds, labelled with its bay, slot and link, each
    /// beside the ceiling of its path. Namespaces in use are skipped, with the reason.
    #[arg(long, conflicts_with = "targets")]
    pub mapped: bool,
    /// With --mapped: the host root to audit (`<root>/sys`, `<root>/proc`); also used for the
    /// safety checks.
    #[arg(long, value_name = "DIR", requires = "mapped")]
    pub sysfs_root: Option<PathBuf>,
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

/// `5s`, `500ms`, `2m`, `1.5` (seconds).
fn parse_duration(s: &str) -> miette::Result<Duration> {
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
        .map_err(|_| miette!("`{s}` is not a duration (examples: 10s, 500ms, 2m)"))?;
    if !(v >= 0.0 && v.is_finite()) {
        return Err(miette!("`{s}` is not a duration"));
    }
    Ok(Duration::from_secs_f64(v * mult))
}

fn parse_fraction(s: &str) -> miette::Result<f64> {
    let t = s.trim();
    let v = if let Some(p) = t.strip_suffix('%') {
        p.trim().parse::<f64>().map(|x| x / 100.0)
    } else {
        t.parse::<f64>()
            .map(|x| if x > 1.0 { x / 100.0 } else { x })
    }
    .map_err(|_| miette!("`{s}` is not a fraction (examples: 25%, 0.25, 100%)"))?;
    Ok(v)
}

fn print_findings(findings: &[Finding]) {
    for f in findings {
        let at = f.location.short();
        let at = if at.is_empty() {
            String::new()
        } else {
            format!(" ({at})")
        };
        eprintln!("{}[{}]: {}{at}", f.severity, f.code, f.message);
        if let Some(h) = &f.help {
            eprintln!("  help: {h}");
        }
    }
}

fn probe_error(e: ProbeError) -> miette::Report {
    match e {
        ProbeError::Refused(r) => miette!(code = r.code, help = r.help, "{}", r.message),
        other => miette!("{other}"),
    }
}

/// `--mapped`: the audit's namespaces as targets (refused ones dropped with a message).
fn mapped_targets(
    a: &ProbeArgs,
    catalog: &super::plan::CatalogArgs,
) -> miette::Result<Option<Vec<ProbeTarget>>> {
    let root = a.sysfs_root.clone().unwrap_or_else(|| PathBuf::from("/"));
    if !root.join("sys").is_dir() {
        return Err(miette!("{} has no sys/ directory", root.display()));
    }
    let mut audit =
        laneplan::host::audit_sysfs(&root, None, laneplan::host::audit::AuditOptions::default());
    let diff = super::plan::against(catalog, a.against.as_deref(), &mut audit)?;
    let mapped = laneplan::probe::mapped::targets(&audit, diff.as_ref(), &a.dev_root);
    if a.dry_run {
        if a.json {
            let v = serde_json::json!({"schema_version": 1, "mapped": mapped});
            println!("{}", serde_json::to_string_pretty(&v).into_diagnostic()?);
        } else {
            print!("{}", laneplan::probe::mapped::render(&mapped));
        }
        return Ok(None);
    }
    let mut out = Vec::new();
    for m in mapped {
        match &m.refused {
            Some(why) => eprintln!("skipping {}: {why}", m.target.path.display()),
            None => out.push(m.target),
        }
    }
    if out.is_empty() {
        return Err(miette!(
            "no NVMe namespace to probe (none found, or all in use)"
        ));
    }
    Ok(Some(out))
}

pub fn run(a: ProbeArgs, catalog: &super::plan::CatalogArgs) -> miette::Result<ExitCode> {
    if a.list_profiles {
        for p in PROFILES {
            println!(
                "{:<14} bs {:<14} {:<10} read {:>3} %  qd {:>3}  {}",
                p.name,
                p.bs,
                format!("{:?}", p.pattern).to_lowercase(),
                p.read_pct,
                p.qd,
                p.description
            );
            let w = Workload::from_profile(p.name, &Overrides::default())
                .map_err(|e| miette!("{e}"))?;
            if let Some(fio) = w.fio_args(laneplan::probe::DEFAULT_WORKING_SET, None) {
                println!("{:<14} fio {fio}", "");
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
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
        let text = std::fs::read_to_string(t)
            .into_diagnostic()
            .map_err(|e| miette!("{}: {e}", t.display()))?;
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
    opts.bound = match (a.ios, &a.runtime) {
        (Some(0), _) => return Err(miette!("--ios must be at least 1")),
        (Some(n), _) => Bound::Ios(n),
        (None, Some(r)) => Bound::Time(parse_duration(r)?),
        (None, None) => Bound::Time(Duration::from_secs(10)),
    };
    if opts.bound == Bound::Time(Duration::ZERO) {
        return Err(miette!("--runtime must be more than 0"));
    }
    opts.ramp = match (&a.ramp, a.ios) {
        (Some(r), _) => parse_duration(r)?,
        (None, Some(_)) => Duration::ZERO,
        (None, None) => Duration::from_secs(2),
    };
    if let Some(r) = a.rate
        && !(r > 0.0 && r.is_finite())
    {
        return Err(miette!("--rate must be a positive number of IOPS"));
    }
    opts.rate = a.rate;
    opts.working_set = parse_fraction(&a.working_set)?;
    opts.size = a
        .size
        .as_deref()
        .map(parse_size)
        .transpose()
        .map_err(|e| miette!("--size: {e}"))?;
    opts.engine = match a.engine {
        EngineArg::Auto => EngineChoice::Auto,
        EngineArg::Sync => EngineChoice::Sync,
        EngineArg::IoUring => EngineChoice::IoUring,
    };
    opts.write_allowed = a.write;
    opts.destroy_data_on = a.destroy_data_on.clone();
    opts.together = a.together;
    opts.curve = a.curve;
    let targets: Vec<ProbeTarget> = if a.mapped {
        match mapped_targets(&a, catalog)? {
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
    // A --sysfs-root host is checked against its own mount table and holders.
    let (proc_root, sys_root) = match (&a.sysfs_root, a.mapped) {
        (Some(r), true) => (r.join("proc"), r.join("sys")),
        _ => (a.proc_root.clone(), a.sys_root.clone()),
    };
    let checker = SafetyChecker::with_roots(&proc_root, &sys_root);

    // Ctrl-C: the first stops the run cleanly (results so far are printed), a second exits.
    let stop = Arc::new(AtomicBool::new(false));
    let _ = signal_hook::flag::register_conditional_shutdown(
        signal_hook::consts::SIGINT,
        130,
        stop.clone(),
    );
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone());

    let bar = if a.json || !std::io::stderr().is_terminal() {
        indicatif::ProgressBar::hidden()
    } else {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {msg:24} [{bar:30}] {pos}/{len} {per_sec}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        b
    };
    let show = |p: &Progress| {
        bar.set_message(p.phase.clone());
        match (p.expected, p.expected_ios) {
            (Some(d), _) => {
                bar.set_length(d.as_millis() as u64);
                bar.set_position((p.elapsed.as_millis() as u64).min(d.as_millis() as u64));
            }
            (None, Some(n)) => {
                bar.set_length(n);
                bar.set_position(p.done.min(n));
            }
            _ => {}
        }
    };
    let report = laneplan::probe::run(&targets, &opts, &checker, &stop, &show);
    bar.finish_and_clear();
    let report = report.map_err(probe_error)?;

    if let Some(path) = &a.svg {
        let title = format!("{}: latency against IOPS", report.workload.name);
        let svg = laneplan::probe::svg::render(&title, &report.curves);
        laneplan::outfile::write(path, svg.as_bytes())
            .map_err(|e| miette!("cannot write {}: {e}", path.display()))?;
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| miette!("{e}"))?
        );
    } else {
        let w = &report.workload;
        println!(
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
        if let Some(fio) = &w.fio {
            println!("same workload in fio: {fio}");
        }
        println!("{}", render_table(&report));
        for c in &report.curves {
            println!("{}", render_curve_table(c));
        }
        print_findings(&report.findings);
    }
    Ok(if has_errors(&report.findings) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
