//! `bays`: arguments and printing. The view model is `laneplan::bays`; the pictures are
//! `laneplan::render::{bays_text, bays_svg}`.

use super::plan::CatalogArgs;
use clap::Args;
use laneplan::bays::BayLayout;
use laneplan::plan;
use laneplan::render::{bays_svg, bays_text};
use miette::{IntoDiagnostic, Result, miette};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct BaysArgs {
    /// A platform id (see `laneplan platforms`) or a build file (`*.toml`).
    pub target: String,
    /// Choose a platform option, e.g. `front=12nvme-12sas` (repeatable; platforms only:
    /// a build file sets its options itself).
    #[arg(long = "option", short = 'o', value_name = "KEY=VALUE", value_parser = parse_kv)]
    pub options: Vec<(String, String)>,
    /// Also write the layout as SVG to FILE (`-` writes the SVG to stdout instead of the
    /// text picture).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Plain ASCII, no box-drawing characters and no colour.
    #[arg(long)]
    pub ascii: bool,
    /// Print JSON (schema: docs/bays.md).
    #[arg(long, conflicts_with = "ascii")]
    pub json: bool,
}

fn parse_kv(s: &str) -> std::result::Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| format!("expected KEY=VALUE, got `{s}`"))
}

fn is_build_file(target: &str) -> bool {
    target.ends_with(".toml") || Path::new(target).is_file()
}

pub fn bays(args: &BaysArgs, cat: &CatalogArgs) -> Result<ExitCode> {
    let catalog = cat.load()?;
    let report = if is_build_file(&args.target) {
        if !args.options.is_empty() {
            return Err(miette!(
                help = "set options in the build file's [options] table",
                "--option applies to platforms, not to build files"
            ));
        }
        plan::check_build_file(&catalog, Path::new(&args.target)).map_err(miette::Report::new)?
    } else {
        let report =
            plan::plan_platform(&catalog, &args.target, &args.options).ok_or_else(|| {
                let known: Vec<&str> = catalog.platforms.keys().map(String::as_str).collect();
                miette!(
                    help = format!(
                        "known platforms: {}; or give a build file (*.toml)",
                        known.join(", ")
                    ),
                    "unknown platform `{}`",
                    args.target
                )
            })?;
        if let Some(f) = report.findings.iter().find(|f| f.code == "LP0115") {
            return Err(miette!(
                help = f.help.clone().unwrap_or_default(),
                "{}",
                f.message
            ));
        }
        report
    };
    let layout = BayLayout::from_report(&report, &catalog);

    let mut svg_to_stdout = false;
    if let Some(path) = &args.svg {
        let svg = bays_svg::render(&layout);
        if path.as_os_str() == "-" {
            svg_to_stdout = true;
            std::io::stdout()
                .write_all(svg.as_bytes())
                .into_diagnostic()?;
        } else {
            std::fs::write(path, svg)
                .map_err(|e| miette!("cannot write {}: {e}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
    }
    if args.json {
        if svg_to_stdout {
            return Err(miette!("--json and --svg - both want stdout"));
        }
        let v = serde_json::to_string_pretty(&layout).into_diagnostic()?;
        println!("{v}");
    } else if !svg_to_stdout {
        let opts = bays_text::TextOptions {
            ascii: args.ascii,
            color: !args.ascii,
            width: 120,
        };
        // anstream strips the colour for NO_COLOR and for output that is not a terminal.
        let mut out = anstream::stdout();
        out.write_all(bays_text::render(&layout, &opts).as_bytes())
            .into_diagnostic()?;
    }
    Ok(ExitCode::SUCCESS)
}
