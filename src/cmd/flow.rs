//! `flow` and `dot`: argument structs and printing. The analysis lives in `laneplan::flow`.

use super::plan::{CatalogArgs, parse_kv};
use clap::Args;
use laneplan::finding::has_errors;
use laneplan::flow::system::{self, Cost, SystemOptions, SystemReport};
use laneplan::flow::{self, Memory, Options, Scope, Workload};
use laneplan::pcie::{self, Model, TlpParams};
use laneplan::plan::{self, Report};
use laneplan::render::{dot, json, text};
use miette::{IntoDiagnostic, Result, miette};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Options of the bandwidth analysis (shared by `check`, `flow` and `dot`).
#[derive(Args, Debug, Clone)]
pub struct FlowOpts {
    /// Whose memory the work targets: `local` (each device's own socket) or one socket as
    /// the platform labels it, e.g. `CPU2` (everything to that socket, crossing UPI/xGMI).
    #[arg(long, default_value = "local", value_name = "local|CPUn")]
    pub memory: Memory,
    /// Device demand: `seq` (vendor sequential GB/s) or `4k` (4K IOPS x 4 KiB).
    #[arg(long, default_value = "seq", value_name = "seq|4k",
          value_parser = super::one_of(&Workload::NAMES, |s| s.parse::<Workload>()))]
    pub workload: Workload,
    /// PCIe link model: `direction-aware` (each direction its own TLPs, SKIPs and the
    /// reverse stream's DLLPs), `tlp-level` (Neugebauer et al. 2018) or `header-only`.
    #[arg(
        long = "link-model",
        alias = "model",
        default_value = "direction-aware",
        value_name = "direction-aware|tlp-level|header-only",
        value_parser = link_models()
    )]
    pub model: Model,
    /// Max Payload Size in bytes (128-4096); a lower MPS on a link (from the platform file or
    /// the host), or on any link above it, governs that link.
    #[arg(long, default_value_t = pcie::DEFAULT_MPS, value_name = "BYTES")]
    pub mps: u16,
    /// Max Read Request Size in bytes (128-4096): a device's writes fetch data in requests of
    /// this size.
    #[arg(long, default_value_t = pcie::DEFAULT_MRRS, value_name = "BYTES")]
    pub mrrs: u16,
    /// Read Completion Boundary of the root complex (64 or 128).
    #[arg(long, default_value_t = pcie::DEFAULT_RCB, value_name = "BYTES")]
    pub rcb: u16,
    /// Completion payload the root complex returns (bounded by MPS and MRRS, rounded to the
    /// RCB); 64 models a root complex that splits every completion at 64 B.
    #[arg(long, default_value_t = pcie::DEFAULT_COMPLETION, value_name = "BYTES")]
    pub completion: u16,
    /// Which devices offer traffic: `drives`, `nvme` or `all` (NICs, GPUs, boot cards too).
    #[arg(
        long = "devices",
        default_value = "drives",
        value_name = "drives|nvme|all",
        value_parser = super::one_of(&Scope::NAMES, |s| s.parse::<Scope>())
    )]
    pub scope: Scope,
}

/// `--link-model`: the three models, each with its short alias (`tlp`).
fn link_models() -> impl clap::builder::TypedValueParser<Value = Model> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        Model::NAMES.map(|(name, alias)| PossibleValue::new(name).alias(alias)),
    )
    .try_map(|s: String| s.parse::<Model>())
}

impl FlowOpts {
    /// Validated options (a bad MPS, MRRS, RCB or completion size is a usage error).
    pub fn options(&self) -> Result<Options> {
        let tlp = TlpParams {
            mps: self.mps,
            mrrs: self.mrrs,
            rcb: self.rcb,
            completion: self.completion,
            ecrc: false,
        };
        tlp.validate().map_err(|e| miette!("{e}"))?;
        Ok(Options {
            model: self.model,
            memory: self.memory.clone(),
            workload: self.workload,
            scope: self.scope,
            tlp,
        })
    }
}

/// The end-to-end flags (`check` and `flow`): CPU, I/O stack cost, memory, NICs.
#[derive(Args, Debug, Clone, Default)]
pub struct SystemArgs {
    /// An I/O stack of platforms/stacks.toml whose cost the CPUs pay per I/O (kernel-psync,
    /// kernel-libaio, io-uring, io-uring-polled, spdk, ceph-osd-read, ceph-osd-write).
    #[arg(long, value_name = "ID")]
    pub stack: Option<String>,
    /// CPU cycles per I/O (a measured figure: `laneplan probe` prints one).
    #[arg(long, value_name = "CYCLES", conflicts_with = "stack")]
    pub cycles_per_io: Option<f64>,
    /// CPU cycles per byte moved, beside --cycles-per-io (default 0).
    #[arg(long, value_name = "CYCLES", requires = "cycles_per_io")]
    pub cycles_per_byte: Option<f64>,
    /// CPU cycles per application operation (a transaction); needs --ios-per-op.
    #[arg(long, value_name = "CYCLES", conflicts_with_all = ["stack", "cycles_per_io"])]
    pub cycles_per_op: Option<f64>,
    /// I/Os one operation issues (with --cycles-per-op).
    #[arg(long, value_name = "N")]
    pub ios_per_op: Option<f64>,
    /// The CPU in every socket, overriding the build's (an id of platforms/cpus.toml).
    #[arg(long, value_name = "ID")]
    pub cpu: Option<String>,
    /// The share of the cores the I/O may use (0 to 1; default 1).
    #[arg(long, value_name = "FRACTION", alias = "cpu-utilization")]
    pub cpu_utilisation: Option<f64>,
    /// Served storage: the data leaves through the NICs (drives -> memory -> NIC).
    #[arg(long)]
    pub serve: bool,
    /// Copies of each write (device writes, CPU cost and NIC traffic grow with it).
    #[arg(long, value_name = "N")]
    pub replication: Option<u32>,
    /// I/O size of the bandwidth view in bytes (default 131072).
    #[arg(long, value_name = "BYTES")]
    pub io_size: Option<f64>,
}

impl SystemArgs {
    /// `None` when no end-to-end flag was given (the report stays the bandwidth one).
    pub fn options(&self) -> Result<Option<SystemOptions>> {
        let any = self.stack.is_some()
            || self.cycles_per_io.is_some()
            || self.cycles_per_op.is_some()
            || self.ios_per_op.is_some()
            || self.cpu.is_some()
            || self.cpu_utilisation.is_some()
            || self.serve
            || self.replication.is_some()
            || self.io_size.is_some();
        if !any {
            return Ok(None);
        }
        let cat = laneplan::cpu::builtin();
        let cost = match (&self.stack, self.cycles_per_io, self.cycles_per_op) {
            (Some(id), _, _) => {
                Some(Cost::Stack(cat.stack(id).cloned().ok_or_else(|| {
                    miette!("--stack: {}", cat.unknown_stack(id))
                })?))
            }
            (None, Some(c), _) => Some(
                Cost::per_io(c, self.cycles_per_byte.unwrap_or(0.0)).map_err(|e| miette!("{e}"))?,
            ),
            (None, None, Some(c)) => {
                Some(Cost::per_op(c, self.ios_per_op).map_err(|e| miette!("{e}"))?)
            }
            (None, None, None) => {
                if self.ios_per_op.is_some() {
                    return Err(miette!("--ios-per-op needs --cycles-per-op"));
                }
                None
            }
        };
        if let Some(id) = &self.cpu
            && cat.cpu(id).is_none()
        {
            return Err(miette!("--cpu: {}", cat.unknown_cpu(id)));
        }
        let utilisation = match self.cpu_utilisation {
            Some(u) => system::check_figure("--cpu-utilisation", u, 1e-3, 1.0)
                .map_err(|e| miette!("{e}"))?,
            None => 1.0,
        };
        let replication = self.replication.unwrap_or(1);
        if !(1..=16).contains(&replication) {
            return Err(miette!("--replication must be 1 to 16, got {replication}"));
        }
        let seq_io_bytes = match self.io_size {
            Some(b) => system::check_figure("--io-size", b, 512.0, 64.0 * 1024.0 * 1024.0)
                .map_err(|e| miette!("{e}"))?,
            None => system::DEFAULT_SEQ_IO,
        };
        Ok(Some(SystemOptions {
            cost,
            cpu: self.cpu.clone(),
            utilisation,
            serve: self.serve,
            replication,
            seq_io_bytes,
        }))
    }
}

/// The end-to-end report of a checked build, when end-to-end flags were given.
pub fn system_report(
    report: &Report,
    opts: &Options,
    sys: &SystemArgs,
) -> Result<Option<(SystemReport, Vec<laneplan::finding::Finding>)>> {
    let Some(so) = sys.options()? else {
        return Ok(None);
    };
    let mut out = system::analyze(report, opts, &so).map_err(|e| miette!("{e}"))?;
    for f in &mut out.1 {
        if f.location.file.is_none() {
            f.location.file = report.file.clone();
        }
    }
    Ok(Some(out))
}

#[derive(Args, Debug)]
pub struct FlowArgs {
    /// A build file (TOML).
    pub build: PathBuf,
    #[command(flatten)]
    pub opts: FlowOpts,
    #[command(flatten)]
    pub system: SystemArgs,
    /// Print JSON (schema: `laneplan man --doc JSON`, sections "bandwidth" and "system").
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct DotArgs {
    /// A platform id (see `laneplan platforms`) or a build file (*.toml).
    pub target: String,
    /// Choose a platform option, e.g. `front=24nvme` (repeatable; platforms only); `-O` as
    /// in every command: `-o` is `--output`, as in graphviz's own `dot`.
    #[arg(long = "option", short = 'O', value_name = "KEY=VALUE", value_parser = parse_kv)]
    pub options: Vec<(String, String)>,
    /// Write the graph to FILE (atomically: temp file + rename) instead of stdout (`-`:
    /// stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE", value_parser = super::output_path)]
    pub output: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub opts: FlowOpts,
}

fn load_build(cat: &CatalogArgs, path: &Path) -> Result<Report> {
    let catalog = cat.load()?;
    let (build, file) = plan::load_build(path).map_err(miette::Report::new)?;
    plan::check_build(&catalog, &build, file).map_err(miette::Report::new)
}

pub fn flow(args: &FlowArgs, cat: &CatalogArgs) -> Result<ExitCode> {
    let report = load_build(cat, &args.build)?;
    let opts = args.opts.options()?;
    let (f, flow_found) = flow::analyze_plan(&report.plan, &opts).map_err(|e| miette!("{e}"))?;
    // The build's own findings first (what `check` reports): a device the plan could not
    // place is never dropped without a word, and an error exits 1 as `check` does.
    let mut found = report.findings.clone();
    found.extend(flow_found);
    let sys = system_report(&report, &opts, &args.system)?;
    if let Some((_, more)) = &sys {
        found.extend(more.iter().cloned());
        // Errors first, as `check` orders them.
        found.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.code.cmp(&b.code)));
    }
    if args.json {
        let mut v = json::flow_document(&report, &f, &found);
        if let (Some((s, _)), Some(o)) = (&sys, v.as_object_mut()) {
            o.insert("system".into(), json::system(s));
        }
        outln!("{}", serde_json::to_string_pretty(&v).into_diagnostic()?);
    } else {
        let term = super::term();
        out!("{}", term.wrap(&text::header(&report)));
        outln!();
        out!("{}", laneplan::render::flow::report_in(&f, &term));
        if let Some((s, _)) = &sys {
            outln!();
            out!("{}", term.wrap(&laneplan::render::flow::system(s)));
        }
        if !found.is_empty() {
            outln!();
            out!("{}", text::findings_in(&found, None, &term));
        }
    }
    Ok(if has_errors(&found) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn dot(args: &DotArgs, cat: &CatalogArgs) -> Result<ExitCode> {
    let catalog = cat.load()?;
    let report = if args.target.ends_with(".toml") || Path::new(&args.target).is_file() {
        load_build(cat, Path::new(&args.target))?
    } else {
        super::plan::platform_report(&catalog, &args.target, &args.options)?
    };
    let opts = args.opts.options()?;
    let (f, _) = flow::analyze_plan(&report.plan, &opts).map_err(|e| miette!("{e}"))?;
    let text = dot::dot(&report.plan.topology, Some(&f), opts.model);
    match &args.output {
        Some(path) => laneplan::outfile::write_or_stdout(path, text.as_bytes())
            .map_err(|e| miette!("cannot write {}: {e}", path.display()))?,
        None => out!("{text}"),
    }
    // The graph is drawn; what `check` rejects is said on stderr and exits 1.
    if has_errors(&report.findings) {
        eout!(
            "{}",
            text::findings_in(&report.findings, None, &super::term())
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
