//! `laneplan learn`: argument struct and printing only.

use clap::Args;
use laneplan::learn::{self, LearnOptions};
use miette::{IntoDiagnostic, WrapErr, miette};
use std::path::PathBuf;
use std::process::ExitCode;

/// Write a platform file, a parts file and a build file from what a host shows.
#[derive(Args, Debug)]
pub struct LearnArgs {
    /// Learn this host (sysfs at `/`).
    #[arg(long, conflicts_with = "host_source")]
    pub host: bool,
    /// Learn from a host source (a gathered capture, a dump).
    #[command(flatten)]
    pub source: super::host::HostArgs,
    /// Directory to write `platform/<id>.toml`, `platform/<id>-parts.toml` and `build.toml`
    /// into (each written atomically: temp file + rename).
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// Platform id to write (default: `learned-` and the DMI product name, or `learned-host`).
    #[arg(long)]
    pub id: Option<String>,
    /// Print what was written as JSON (`{"schema_version":1,"id":..,"files":[..],"summary":{..}}`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: LearnArgs, catalog: &super::plan::CatalogArgs) -> miette::Result<ExitCode> {
    // Every source through the one bounded reader (host::source).
    let src = match (args.source.source(), args.host) {
        (Some(s), _) => s,
        (None, true) => laneplan::host::source::HostSource::Live,
        (None, false) => {
            return Err(miette!(
                "say what to learn from: --host, --sysfs-root DIR or --lspci FILE (or --redfish DIR, --hwloc-xml FILE)"
            ));
        }
    };
    let read = laneplan::host::source::read(&src, args.source.pci_ids.as_deref())?;
    let view = learn::HostView {
        audit: laneplan::host::source::audit_read(&read, Default::default()),
        cpu: read.facts.cpu_model.clone(),
        source: read.source.clone(),
        scan: read.scan,
    };
    let cat = catalog.load()?;
    // A Redfish tree has a chassis and no bus tree: its own mapping (host::redfish_learn).
    let learned = match laneplan::host::redfish_learn::learn(&view.audit, &cat, args.id.as_deref())
    {
        Some(l) => l,
        None => learn::learn(
            &view,
            &cat,
            &LearnOptions {
                id: args.id.clone(),
            },
        ),
    };
    let files = learn::write(&learned, &args.out)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot write into {}", args.out.display()))?;
    if args.json {
        let doc = serde_json::json!({
            "schema_version": 1,
            "id": learned.id,
            "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "summary": learned.summary,
            "notes": learned.notes,
        });
        println!("{}", serde_json::to_string_pretty(&doc).into_diagnostic()?);
    } else {
        let s = &learned.summary;
        let line = format!(
            "Learned {}: {} sockets, {} root complexes, {} slots, {} switches, {} bays, {} onboard devices; parts: {} from the catalogue, {} new; {} root ports led nowhere",
            learned.id,
            s.sockets,
            s.root_complexes,
            s.slots,
            s.switches,
            s.bays,
            s.builtins,
            s.parts_reused,
            s.parts_new,
            s.skipped_ports
        );
        println!("{}", super::term().wrap(&line));
        for n in &learned.notes {
            println!("{}", super::term().wrap(&format!("note: {n}")));
        }
        for f in &files {
            println!("  wrote {}", f.display());
        }
        let plat = args.out.join("platform");
        println!(
            "Check it: laneplan --platform-dir {} check {}",
            plat.display(),
            args.out.join("build.toml").display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
