//! `flow` and `dot`: argument structs and printing. The analysis lives in `laneplan::flow`.

use super::plan::{CatalogArgs, parse_kv};
use clap::Args;
use laneplan::finding::has_errors;
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
    #[arg(long, default_value = "seq", value_name = "seq|4k")]
    pub workload: Workload,
    /// PCIe link model: `direction-aware` (each direction its own TLPs, SKIPs and the
    /// reverse stream's DLLPs), `tlp-level` (Neugebauer et al. 2018) or `header-only`.
    #[arg(
        long = "link-model",
        alias = "model",
        default_value = "direction-aware",
        value_name = "direction-aware|tlp-level|header-only"
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
        value_name = "drives|nvme|all"
    )]
    pub scope: Scope,
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

#[derive(Args, Debug)]
pub struct FlowArgs {
    /// A build file (TOML).
    pub build: PathBuf,
    #[command(flatten)]
    pub opts: FlowOpts,
    /// Print JSON (schema: docs/JSON.md, section "bandwidth").
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct DotArgs {
    /// A platform id (see `laneplan platforms`) or a build file (*.toml).
    pub target: String,
    /// Choose a platform option, e.g. `front=24nvme` (repeatable; platforms only). Long form
    /// only here: `-o` is `--output`, as in graphviz's own `dot`.
    #[arg(long = "option", value_name = "KEY=VALUE", value_parser = parse_kv)]
    pub options: Vec<(String, String)>,
    /// Write the graph to FILE (atomically: temp file + rename) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
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
    let (f, flow_found) =
        flow::analyze_plan(&report.plan, &args.opts.options()?).map_err(|e| miette!("{e}"))?;
    // The build's own findings first (what `check` reports): a device the plan could not
    // place is never dropped without a word, and an error exits 1 as `check` does.
    let mut found = report.findings.clone();
    found.extend(flow_found);
    if args.json {
        let v = json::flow_document(&report, &f, &found);
        println!("{}", serde_json::to_string_pretty(&v).into_diagnostic()?);
    } else {
        let term = super::term();
        print!("{}", term.wrap(&text::header(&report)));
        println!();
        print!("{}", laneplan::render::flow::report_in(&f, &term));
        if !found.is_empty() {
            println!();
            print!("{}", term.wrap(&text::findings(&found, None)));
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
        Some(path) => laneplan::outfile::write(path, text.as_bytes())
            .map_err(|e| miette!("cannot write {}: {e}", path.display()))?,
        None => print!("{text}"),
    }
    // The graph is drawn; what `check` rejects is said on stderr and exits 1.
    if has_errors(&report.findings) {
        eprint!(
            "{}",
            super::term().wrap(&text::findings(&report.findings, None))
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
