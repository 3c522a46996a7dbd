//! `laneplan learn`: argument struct and printing only.

use clap::Args;
use laneplan::host::source::HostSource;
use laneplan::learn::{self, LearnOptions, LearnedId};
use laneplan::pciids::{IdsFile, PciNames};
use miette::{IntoDiagnostic, WrapErr, miette};
use std::path::PathBuf;
use std::process::ExitCode;

/// Write a platform file, a parts file and a build file from what a host shows.
#[derive(Args, Debug)]
pub struct LearnArgs {
    /// Learn this host (sysfs at `/`).
    #[arg(long, conflicts_with_all = ["sysfs_root", "lspci", "redfish", "hwloc_xml"])]
    pub host: bool,
    /// Learn from a sysfs tree below this root (a gathered capture); several captures of one
    /// model are merged into one platform.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with = "lspci")]
    pub sysfs_root: Vec<PathBuf>,
    /// Learn from an `lspci -vvnn` dump (read like `audit --lspci`: bounded, and what is no
    /// dump is refused); several dumps of one model are merged into one platform.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub lspci: Vec<PathBuf>,
    /// Learn from a Redfish tree (a BMC's resources as Redfish-Mockup-Creator saves them):
    /// slots with labels, lanes and CPU affinity, bays from drive locations (`laneplan man --doc redfish`).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["sysfs_root", "lspci", "hwloc_xml"], value_hint = clap::ValueHint::DirPath)]
    pub redfish: Option<PathBuf>,
    /// Learn from an hwloc XML topology (`lstopo --of xml`; `laneplan man --doc hwloc`).
    #[arg(long = "hwloc-xml", value_name = "FILE", conflicts_with_all = ["sysfs_root", "lspci"])]
    pub hwloc_xml: Option<PathBuf>,
    /// Directory to write `platform/<id>.toml`, `platform/<id>-parts.toml` and `build.toml`
    /// into, as one set (all or none). An existing file there is refused unless `--force`.
    #[arg(
        short = 'o',
        long = "output",
        visible_alias = "out",
        value_name = "DIR",
        value_hint = clap::ValueHint::DirPath,
        value_parser = super::output_path
    )]
    pub out: PathBuf,
    /// Replace learned files already in the output directory.
    #[arg(long)]
    pub force: bool,
    /// Platform id to write: lowercase letters, digits, `-`, `_`, `.`, starting with a letter
    /// or digit (default: `learned-` and the DMI product name, or `learned-host`).
    #[arg(long, value_parser = parse_id)]
    pub id: Option<LearnedId>,
    /// Names from this pci.ids (default: the host's own, else the embedded database); a
    /// missing or bad file is an error.
    #[arg(long, value_name = "FILE")]
    pub pci_ids: Option<PathBuf>,
    /// Compare the learned platform with this built-in one (default: the one whose
    /// `dmi_names` hold the host's DMI product name; an lspci dump has none).
    #[arg(long, value_name = "ID")]
    pub platform: Option<String>,
    /// Print what was written as JSON (schema: `laneplan man --doc PLATFORMS`, "Learning a platform").
    #[arg(long)]
    pub json: bool,
}

fn parse_id(s: &str) -> Result<LearnedId, String> {
    LearnedId::parse(s)
}

pub fn run(args: LearnArgs, catalog: &super::plan::CatalogArgs) -> miette::Result<ExitCode> {
    if laneplan::outfile::is_stdout(&args.out) {
        return Err(miette::miette!(
            help = "name a directory (`-o learned/`); --json prints what was written",
            "-o names a directory for three files; `-` (stdout) cannot hold them"
        ));
    }
    // Named by the user: missing or bad is an error, not a fallback.
    let ids = match &args.pci_ids {
        Some(p) => Some(IdsFile::open(p)?),
        None => None,
    };
    let names = ids.as_ref().map(|i| i as &dyn PciNames);
    let views = read_views(&args, names)?;
    let cat = catalog.load()?;
    if let Some(p) = &args.platform
        && cat.platform(p).is_none()
    {
        return Err(miette!(
            "no platform `{}` to compare with (see `laneplan platforms`)",
            learn::shown(p)
        ));
    }
    // A Redfish tree has a chassis and no bus tree: its own mapping (learn::redfish).
    let redfish = match &views[..] {
        [v] => laneplan::learn::redfish::learn(&v.audit, &cat, args.id.as_ref()),
        _ => None,
    };
    let learned = match redfish {
        Some(l) => l,
        None => learn::learn_all(
            &views,
            &cat,
            &LearnOptions {
                id: args.id.clone(),
                compare: args.platform.clone(),
            },
        ),
    };
    // What the loader would refuse is never written.
    learn::loads(&learned, &cat).map_err(|why| {
        miette!(
            "refusing to write the learned files: {why}; nothing was written into {}",
            args.out.display()
        )
    })?;
    let files = learn::write(&learned, &args.out, args.force)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot write into {}", args.out.display()))?;
    let mut findings = learn::input_findings(&views);
    findings.extend(learn::learn_findings(&learned, &views));
    if args.json {
        let doc = serde_json::json!({
            "schema_version": 1,
            "id": learned.id.as_str(),
            "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "summary": learned.summary,
            "findings": laneplan::render::json::findings(&findings),
            "differences": learned.differences,
            "notes": learned.notes,
        });
        outln!("{}", serde_json::to_string_pretty(&doc).into_diagnostic()?);
    } else {
        print_text(&args, &learned, &files, &findings);
    }
    Ok(if laneplan::finding::has_errors(&findings) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The host views to learn from: one Redfish tree or hwloc XML, the lspci dumps, or the
/// sysfs roots (`--host`: `/`), each read through its bounded reader.
fn read_views(
    args: &LearnArgs,
    names: Option<&dyn PciNames>,
) -> miette::Result<Vec<learn::HostView>> {
    let mut views = Vec::new();
    let one_source = match (&args.redfish, &args.hwloc_xml) {
        (Some(d), _) => Some(HostSource::Redfish(d.clone())),
        (None, Some(f)) => Some(HostSource::HwlocXml(f.clone())),
        (None, None) => None,
    };
    if let Some(src) = &one_source {
        // Every source through the one bounded reader (host::source).
        let read = laneplan::host::source::read(src, args.pci_ids.as_deref())?;
        views.push(learn::HostView {
            audit: laneplan::host::source::audit_read(&read, Default::default()),
            cpu: read.facts.cpu_model.clone(),
            sockets: None,
            source: read.source.clone(),
            scan: read.scan,
        });
    } else if !args.lspci.is_empty() {
        for p in &args.lspci {
            views.push(learn::read_lspci_file(p, names)?);
        }
    } else {
        let roots = match (args.sysfs_root.is_empty(), args.host) {
            (false, _) => args.sysfs_root.clone(),
            (true, true) => vec![PathBuf::from("/")],
            (true, false) => {
                return Err(miette!(
                    "say what to learn from: --host, --sysfs-root DIR or --lspci FILE (or --redfish DIR, --hwloc-xml FILE)"
                ));
            }
        };
        for root in roots {
            if !root.join("sys").is_dir() {
                return Err(miette!(
                    "{} has no sys/ directory: not a host root or a gathered capture",
                    root.display()
                ));
            }
            views.push(learn::read_sysfs_with(&root, names));
        }
    }
    Ok(views)
}

/// The text report: findings on stderr, the summary line, notes, the files written, the
/// differences from the built-in platform and the command that checks the result.
fn print_text(
    args: &LearnArgs,
    learned: &learn::Learned,
    files: &[PathBuf],
    findings: &[laneplan::finding::Finding],
) {
    if !findings.is_empty() {
        eout!(
            "{}",
            laneplan::render::text::findings_in(findings, None, &super::term())
        );
    }
    let s = &learned.summary;
    let bold = if super::term().paints() {
        anstyle::Style::new().bold()
    } else {
        anstyle::Style::new()
    };
    let line = format!(
        "Learned {bold}{}{bold:#} from {} capture{}: {} sockets ({}), {} NUMA nodes, {} root complexes, {} slots, {} switches, {} bays, {} onboard devices; parts: {} from the catalogue, {} new, {} planned in the build; {} root ports led nowhere",
        learned.id.as_str(),
        s.captures,
        if s.captures == 1 { "" } else { "s" },
        s.sockets,
        s.sockets_from,
        s.numa_nodes,
        s.root_complexes,
        s.slots,
        s.switches,
        s.bays,
        s.builtins,
        s.parts_reused,
        s.parts_new,
        s.planned,
        s.skipped_ports
    );
    // The id is a checked plain id; the line's only SGR is its bold.
    outln!("{}", super::term().wrap_painted(&line));
    for n in &learned.notes {
        outln!("{}", super::term().wrap(&format!("note: {n}")));
    }
    for f in files {
        outln!(
            "  wrote {}",
            laneplan::learn::shown(&f.display().to_string())
        );
    }
    if let Some(d) = &learned.differences {
        outln!("{}", super::term().wrap(&learn::render_differences(d)));
    }
    let plat = args.out.join("platform");
    outln!(
        "Check it: laneplan --platform-dir {} check {}",
        learn::shown(&plat.display().to_string()),
        learn::shown(&args.out.join("build.toml").display().to_string())
    );
}
