//! `place`: argument struct and printing; the search is `laneplan::place`.

use clap::Args;
use laneplan::flow::Scope;
use laneplan::place::{self, Objective, Request, parse_part_arg, report};
use miette::{IntoDiagnostic, Result, miette};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct PlaceArgs {
    /// Platform id (see `laneplan platforms`).
    pub platform: String,
    /// A part to place, `ID` or `ID=COUNT` (repeatable; see `laneplan parts`).
    #[arg(long = "part", value_name = "ID[=COUNT]", value_parser = parse_part_arg, required = true)]
    pub parts: Vec<(String, usize)>,
    /// Fix a platform option, e.g. `front=12nvme-12sas` (repeatable). Options not fixed take
    /// their defaults unless --any-option.
    #[arg(long = "option", short = 'O', value_name = "KEY=VALUE", value_parser = super::plan::parse_kv)]
    pub options: Vec<(String, String)>,
    /// Search every value of the options not fixed with --option (a host variant, such as a
    /// riser configuration, keeps its default unless --option names it).
    #[arg(long)]
    pub any_option: bool,
    /// What the score maximises first (`laneplan man --doc place`): `auto` is `served` when a NIC with a
    /// spec is listed, `read` otherwise.
    #[arg(long, default_value = "auto", value_parser = super::one_of(&Objective::NAMES, parse_objective))]
    pub objective: Objective,
    /// Which devices offer traffic to the read and write aggregates: `drives`, `nvme` or
    /// `all` (NICs, GPUs, boot cards too), as in `flow`.
    #[arg(
        long = "devices",
        default_value = "drives",
        value_name = "drives|nvme|all",
        value_parser = super::one_of(&Scope::NAMES, |s| s.parse::<Scope>())
    )]
    pub devices: Scope,
    /// Search time budget in milliseconds: the best placement found by then is the answer,
    /// with the gap to the bound when it is not proven optimal.
    #[arg(long, default_value_t = place::DEFAULT_BUDGET_MS, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub budget_ms: u64,
    /// Search node budget (option sets, card and bay-group decisions); unlimited by default.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub budget_nodes: Option<u64>,
    /// A slot that must stay empty (repeatable).
    #[arg(long, value_name = "SLOT")]
    pub keep_free: Vec<String>,
    /// How many distinct placements to list, best first.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub top: u16,
    /// Print JSON (schema: `laneplan man --doc place`).
    #[arg(long)]
    pub json: bool,
    /// Write the best placement as a build file (atomically: a temporary file, then rename;
    /// `-`: the build file on stdout, the report on stderr).
    #[arg(short = 'o', long = "output", value_name = "BUILD.toml", value_parser = super::output_path)]
    pub output: Option<PathBuf>,
}

fn parse_objective(s: &str) -> std::result::Result<Objective, String> {
    s.parse()
}

pub fn run(args: &PlaceArgs, cat: &super::plan::CatalogArgs) -> Result<ExitCode> {
    let catalog = cat.load()?;
    let req = Request {
        platform: args.platform.clone(),
        parts: args.parts.clone(),
        options: {
            super::plan::options_once(&args.options)?;
            args.options.clone()
        },
        any_option: args.any_option,
        objective: args.objective,
        keep_free: args.keep_free.clone(),
        top: args.top as usize,
        devices: args.devices,
        budget: place::Budget {
            time_ms: args.budget_ms,
            nodes: args.budget_nodes.unwrap_or(u64::MAX),
        },
    };
    // A progress line on a terminal (stderr only, redrawn in place), for long runs.
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut drew = false;
    let mut progress = |p: &place::Progress| {
        if !tty || p.elapsed < std::time::Duration::from_millis(300) {
            return;
        }
        drew = true;
        eprint!("\r\x1b[2K{}", report::progress_line(p));
    };
    let result = place::place_with_progress(&catalog, &req, &mut progress);
    if drew {
        eprint!("\r\x1b[2K");
    }
    let outcome = result.map_err(|e| match &e.help {
        Some(h) => miette!(help = h.clone(), "{}", e.message),
        None => miette!("{}", e.message),
    })?;
    let to_stdout = args
        .output
        .as_deref()
        .is_some_and(laneplan::outfile::is_stdout);
    if to_stdout && args.json {
        return Err(miette!("--json and -o - both want stdout"));
    }
    if let (Some(path), Some(text)) = (&args.output, outcome.best_toml()) {
        laneplan::outfile::write_or_stdout(path, text.as_bytes())
            .map_err(|e| miette!("cannot write {}: {e}", path.display()))?;
    }
    if to_stdout {
        // stdout holds the build file; the report goes to stderr.
        eout!("{}", place_text(&outcome));
    } else if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&report::json(&outcome)).into_diagnostic()?
        );
    } else {
        out!("{}", place_text(&outcome));
        if let (Some(path), Some(_)) = (&args.output, outcome.best()) {
            outln!("\nWrote {}", path.display());
        }
    }
    Ok(if outcome.best().is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The report for the terminal: painted (its text escaped by `text_painted`) unless
/// `--color never`, then plain and escaped by `wrap`.
fn place_text(outcome: &laneplan::place::Outcome) -> String {
    let term = super::term();
    if term.paints() {
        term.wrap_painted(&report::text_painted(outcome, true))
    } else {
        term.wrap(&report::text(outcome))
    }
}
