//! `laneplan audit` and `laneplan gather`: argument structs and printing only.

use clap::Args;
use laneplan::host::{self, audit::AuditOptions};
use laneplan::render::host as render;
use miette::{IntoDiagnostic, WrapErr, miette};
use std::path::PathBuf;
use std::process::ExitCode;

/// Audit the live PCIe tree: links, NUMA, slots, NVMe, AER.
#[derive(Args, Debug)]
pub struct AuditArgs {
    /// The host to audit (default: this one, sysfs below `/`).
    #[command(flatten)]
    pub host: super::host::HostArgs,
    /// Print the audit as JSON on stdout (schema: `laneplan man --doc audit-json`).
    #[arg(long)]
    pub json: bool,
    /// Also write a node_exporter textfile (atomically: temp file + rename; a symlink's
    /// target is replaced; an existing file keeps its mode; devices and FIFOs are refused).
    /// `-` writes the textfile to stdout instead of the report.
    #[arg(long, value_name = "FILE")]
    pub prometheus: Option<PathBuf>,
    /// Correctable AER errors above this count are a warning.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub aer_threshold: u64,
    /// Compare with a build file: per-bay and per-slot diff (missing, unexpected,
    /// downtrained, wrong socket, wrong part).
    #[arg(long, value_name = "BUILD.toml")]
    pub against: Option<PathBuf>,
    /// Hold the host against this platform: which variant (risers, front, NPS) it
    /// matches, and where it contradicts the platform file (LP0350-LP0354).
    #[arg(long, value_name = "ID")]
    pub platform: Option<String>,
    /// List every empty port with its slot number (the text otherwise summarises them per
    /// switch or root bus; the JSON always lists them in `empty_ports`).
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

/// Save exactly the files `audit` reads, for replay with `audit --sysfs-root`.
#[derive(Args, Debug)]
pub struct GatherArgs {
    /// The archive to write (`.tar.gz`; `-`: stdout, e.g. `laneplan gather - | ssh ...`).
    pub out: PathBuf,
    /// Gather from below this root.
    #[arg(long, value_name = "DIR", default_value = "/")]
    pub sysfs_root: PathBuf,
}

pub fn run(args: AuditArgs, catalog: &super::plan::CatalogArgs) -> miette::Result<ExitCode> {
    let opts = AuditOptions {
        aer_threshold: args.aer_threshold,
    };
    let src = args.host.source_or_live();
    // A pci.ids named by the user: missing or bad is an error, not a fallback.
    let audit = host::source::audit(&src, args.host.pci_ids.as_deref(), opts)?;
    // The platform named, else the one the DMI product name tells (a note when none).
    let cat = catalog.load()?;
    let (variant, note) = laneplan::variant::recognise(&cat, args.platform.as_deref(), &audit)
        .map_err(|e| miette!("{e}"))?;
    let mut audit = audit;
    audit.findings.extend(note);
    let chosen = variant.as_ref().map(|v| v.chosen()).unwrap_or_default();
    let matched = variant.as_ref().map(|v| v.platform.as_str());
    let diff = super::plan::against(catalog, args.against.as_deref(), &audit, matched, &chosen)?;
    let report = laneplan::audit::HostReport::new(audit, variant, diff);
    let prom_stdout = args
        .prometheus
        .as_deref()
        .is_some_and(laneplan::outfile::is_stdout);
    if prom_stdout && args.json {
        return Err(miette!("--json and --prometheus - both want stdout"));
    }
    if let Some(p) = &args.prometheus {
        laneplan::outfile::write_or_stdout(p, render::prometheus(&report).as_bytes())
            .into_diagnostic()
            .wrap_err_with(|| format!("cannot write {}", p.display()))?;
    }
    let out = if prom_stdout {
        String::new()
    } else if args.json {
        let mut s = serde_json::to_string_pretty(&report).into_diagnostic()?;
        s.push('\n');
        s
    } else {
        let term = super::term();
        // The platform variant before the findings, so the summary line stays the audit's
        // last word on them (the --against diff follows with its own count).
        let (mut s, findings) = render::text_parts(&report.audit, args.verbose, &term);
        if let Some(v) = &report.variant {
            s.push_str(&term.wrap(&laneplan::variant::render(v)));
            s.push('\n');
        }
        s.push_str(&findings);
        if let Some(d) = &report.diff {
            s.push('\n');
            // Wrapped as plain text (names escaped): its table is not painted.
            let plain = laneplan::render::term::Term {
                color: laneplan::render::term::Color::Never,
                ..term
            };
            s.push_str(&term.wrap(&laneplan::against::render_in(d, &plain)));
        }
        s
    };
    print(&out)?;
    Ok(if report.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn gather(args: GatherArgs) -> miette::Result<ExitCode> {
    if !args.sysfs_root.join("sys").is_dir() {
        return Err(miette!(
            "{} has no sys/ directory",
            args.sysfs_root.display()
        ));
    }
    if laneplan::outfile::is_stdout(&args.out)
        && std::io::IsTerminal::is_terminal(&std::io::stdout())
    {
        return Err(miette!(
            "refusing to write a gzip archive to a terminal: redirect stdout (`gather - > host.tar.gz`) or name a file"
        ));
    }
    let g = host::gather::gather(&args.sysfs_root, &args.out, AuditOptions::default())
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot write {}", args.out.display()))?;
    eoutln!(
        "wrote {}: {} files, {} symlinks, {} directories ({} functions, {} NVMe controllers)",
        if laneplan::outfile::is_stdout(&args.out) {
            "the archive to stdout".to_string()
        } else {
            args.out.display().to_string()
        },
        g.files,
        g.links,
        g.dirs,
        g.audit.functions.len(),
        g.audit.drives.len()
    );
    // What the capture has but the archive leaves out, never without a word.
    if !g.skipped.is_empty() {
        eoutln!(
            "skipped {} file{} (not archived):",
            g.skipped.len(),
            if g.skipped.len() == 1 { "" } else { "s" }
        );
        for e in &g.skipped {
            eoutln!(
                "  {}",
                laneplan::render::escape::terminal(&format!("{}: {}", e.path, e.reason))
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print(s: &str) -> miette::Result<()> {
    use std::io::Write;
    let mut out = super::stdout();
    match out.write_all(s.as_bytes()) {
        Ok(()) => Ok(()),
        // `| head` closing the pipe is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(miette!("cannot write to stdout: {e}")),
    }
}
