//! `bays`: arguments and printing. The view model is `laneplan::bays`; the pictures are
//! `laneplan::render::{bays_text, bays_svg}`.

use super::plan::{CatalogArgs, parse_kv};
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
    /// A platform id (see `laneplan platforms`) or a build file (`*.toml`). With a host
    /// (--host, --sysfs-root, --lspci) it may be left out: the platform is then read from
    /// the host's DMI product name.
    pub target: Option<String>,
    /// Show what the live host holds in each bay (sysfs below /).
    #[arg(long, conflicts_with = "host_source")]
    pub host: bool,
    /// Show what a host source (a gathered capture, a dump) holds in each bay.
    #[command(flatten)]
    pub source: super::host::HostArgs,
    /// Choose a platform option, e.g. `front=12nvme-12sas` (repeatable; platforms only:
    /// a build file sets its options itself).
    #[arg(long = "option", short = 'O', value_name = "KEY=VALUE", value_parser = parse_kv)]
    pub options: Vec<(String, String)>,
    /// Also write the layout as SVG to FILE (`-` writes the SVG to stdout instead of the
    /// text picture).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Print JSON (schema: `laneplan man --doc bays`).
    #[arg(long)]
    pub json: bool,
}

/// The audit of the host named on the command line, if any.
fn audit_of(args: &BaysArgs) -> Result<Option<laneplan::host::audit::Audit>> {
    let opts = laneplan::host::audit::AuditOptions::default();
    let src = match (args.source.source(), args.host) {
        (Some(s), _) => s,
        (None, true) => laneplan::host::source::HostSource::Live,
        (None, false) => return Ok(None),
    };
    Ok(Some(laneplan::host::source::audit(
        &src,
        args.source.pci_ids.as_deref(),
        opts,
    )?))
}

fn is_build_file(target: &str) -> bool {
    target.ends_with(".toml") || Path::new(target).is_file()
}

pub fn bays(args: &BaysArgs, cat: &CatalogArgs) -> Result<ExitCode> {
    let catalog = cat.load()?;
    let audit = audit_of(args)?;
    let target = match (&args.target, &audit) {
        (Some(t), _) => t.clone(),
        (None, Some(a)) => laneplan::variant::platform_of(a, &catalog).ok_or_else(|| {
            miette!(
                help = "name the platform or a build file: `laneplan bays r740xd --sysfs-root DIR`",
                "cannot tell the platform from the host's DMI product name ({})",
                a.product.as_deref().unwrap_or("none")
            )
        })?,
        (None, None) => {
            return Err(miette!(
                help =
                    "`laneplan bays r740xd`, `laneplan bays build.toml` or `laneplan bays --host`",
                "name a platform, a build file or a host"
            ));
        }
    };
    let target = &target;
    let report = if is_build_file(target) {
        if !args.options.is_empty() {
            return Err(miette!(
                help = "set options in the build file's [options] table",
                "--option applies to platforms, not to build files"
            ));
        }
        plan::check_build_file(&catalog, Path::new(target)).map_err(|e| e.into_report())?
    } else {
        // Options not given take the variant the host matches (front, risers, NPS).
        let mut options = args.options.clone();
        if let Some(a) = &audit
            && let Some(p) = catalog.platform(target)
        {
            for (k, v) in laneplan::variant::match_platform(p, a).chosen() {
                if !options.iter().any(|(ok, _)| ok == &k) {
                    options.push((k, v));
                }
            }
        }
        super::plan::platform_report(&catalog, target, &options)?
    };
    let mut layout = BayLayout::from_report(&report, &catalog);
    if let Some(audit) = &audit {
        let diff = laneplan::against::diff_in(&report.plan, audit, Some(&catalog));
        layout.apply_diff_with(&diff, is_build_file(target), Some(audit));
    }

    let mut svg_to_stdout = false;
    if args.json && args.svg.as_ref().is_some_and(|p| p.as_os_str() == "-") {
        return Err(miette!("--json and --svg - both want stdout"));
    }
    if let Some(path) = &args.svg {
        let svg = bays_svg::render(&layout);
        if path.as_os_str() == "-" {
            svg_to_stdout = true;
            std::io::stdout()
                .write_all(svg.as_bytes())
                .into_diagnostic()?;
        } else {
            laneplan::outfile::write(path, svg.as_bytes())
                .map_err(|e| miette!("cannot write {}: {e}", path.display()))?;
            eoutln!("wrote {}", path.display());
        }
    }
    if args.json {
        if svg_to_stdout {
            return Err(miette!("--json and --svg - both want stdout"));
        }
        let v = serde_json::to_string_pretty(&layout).into_diagnostic()?;
        outln!("{v}");
    } else if !svg_to_stdout {
        let term = super::term();
        // Colour is painted always and kept or stripped by `--color` (below); the character
        // set is independent of it.
        let opts = bays_text::TextOptions {
            ascii: term.ascii,
            color: true,
            width: term
                .width
                .unwrap_or(bays_text::TextOptions::default().width),
            // No width (a pipe, --wide): the tables are never wrapped, as in every command.
            unlimited_tables: term.width.is_none(),
        };
        // --color: auto strips the colour for NO_COLOR and for output that is not a terminal.
        let mut out = super::stdout();
        out.write_all(
            term.wrap_painted(&bays_text::render(&layout, &opts))
                .as_bytes(),
        )
        .into_diagnostic()?;
    }
    // A build `check` rejects: drawn with its problems marked, the findings said, exit 1.
    if report
        .findings
        .iter()
        .any(|f| f.severity == laneplan::finding::Severity::Error)
    {
        let text = laneplan::render::text::findings_in(&report.findings, None, &super::term());
        if args.json || svg_to_stdout {
            eout!("{text}");
        } else {
            outln!();
            out!("{text}");
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
