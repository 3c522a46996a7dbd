//! `platforms`, `show` and `check`: argument structs and printing.

use clap::Args;
use laneplan::finding::has_errors;
use laneplan::plan;
use laneplan::platform::Catalog;
use laneplan::render::{json, text};
use miette::{IntoDiagnostic, Result, miette};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CatalogArgs {
    /// Extra platform and parts files (*.toml) to load beside the built-in ones.
    #[arg(long, value_name = "DIR", global = true, value_hint = clap::ValueHint::DirPath)]
    pub platform_dir: Option<PathBuf>,
}

impl CatalogArgs {
    pub fn load(&self) -> Result<Catalog> {
        Catalog::with_dir(self.platform_dir.as_deref()).map_err(|e| e.into_report())
    }
}

#[derive(Args, Debug)]
pub struct PlatformsArgs {
    /// Print JSON (schema: `laneplan man --doc JSON`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct PartsArgs {
    /// Only parts of this class (nvme, sas-drive, sata-drive, raid, hba, nic, boot, gpu,
    /// extender).
    #[arg(long, value_parser = super::one_of(&laneplan::topology::DeviceClass::NAMES, parse_class))]
    pub class: Option<laneplan::topology::DeviceClass>,
    /// Only parts whose id, name or PCI vendor contains SEARCH (case ignored), e.g.
    /// `connectx-5`, `cx5`, `mellanox`.
    pub search: Option<String>,
    /// Print JSON (schema: `laneplan man --doc JSON`).
    #[arg(long)]
    pub json: bool,
}

fn parse_class(s: &str) -> std::result::Result<laneplan::topology::DeviceClass, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(|_| {
        format!(
            "expected nvme, sas-drive, sata-drive, raid, hba, nic, boot, gpu or extender, got `{s}`"
        )
    })
}

pub fn parts(args: &PartsArgs, cat: &CatalogArgs) -> Result<ExitCode> {
    let mut catalog = cat.load()?;
    if let Some(q) = &args.search {
        // As grep: nothing found is exit 1, with a word on stderr.
        catalog = catalog.with_parts_matching(q);
        if catalog.parts.is_empty() {
            eprintln!("no part's id, name or vendor contains `{q}`");
            return Ok(ExitCode::from(1));
        }
    }
    if args.json {
        print_json(&json::parts(&catalog, args.class))?;
    } else {
        out!("{}", text::parts_in(&catalog, args.class, &super::term()));
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Platform id (see `laneplan platforms`).
    pub platform: String,
    /// Choose a platform option, e.g. `front=12nvme-12sas` (repeatable).
    #[arg(long = "option", short = 'O', value_name = "KEY=VALUE", value_parser = parse_kv)]
    pub options: Vec<(String, String)>,
    /// Print JSON (schema: `laneplan man --doc JSON`).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A build file (TOML): platform, options, parts in slots and bays.
    pub build: PathBuf,
    /// Print JSON (schema: `laneplan man --doc JSON`).
    #[arg(long)]
    pub json: bool,
    /// Leave the planned tree out of the human report.
    #[arg(long)]
    pub no_tree: bool,
    #[command(flatten)]
    pub flow: super::flow::FlowOpts,
    #[command(flatten)]
    pub system: super::flow::SystemArgs,
}

/// `--option` pairs with each key once: a repeated key is a usage error (the last had won
/// silently).
pub fn options_once(options: &[(String, String)]) -> Result<()> {
    for (i, (k, v)) in options.iter().enumerate() {
        if let Some((_, first)) = options[..i].iter().find(|(k2, _)| k2 == k) {
            return Err(miette!(
                help = "give each option once",
                "--option {k} given twice ({k}={first} and {k}={v})"
            ));
        }
    }
    Ok(())
}

pub fn parse_kv(s: &str) -> std::result::Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| format!("expected KEY=VALUE, got `{s}`"))
}

fn print_json(v: &serde_json::Value) -> Result<()> {
    outln!("{}", serde_json::to_string_pretty(v).into_diagnostic()?);
    Ok(())
}

pub fn platforms(args: &PlatformsArgs, cat: &CatalogArgs) -> Result<ExitCode> {
    let catalog = cat.load()?;
    if args.json {
        print_json(&json::platforms(&catalog))?;
    } else {
        let term = super::term();
        // The names are escaped by `platforms_in`; only its bold ids are SGR.
        out!(
            "{}",
            term.wrap_painted(&text::platforms_in(&catalog, &term))
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A platform planned with options only. An unknown platform, option or value is a usage
/// error (exit 2) here, not a finding.
pub fn platform_report(
    catalog: &Catalog,
    id: &str,
    options: &[(String, String)],
) -> Result<plan::Report> {
    options_once(options)?;
    match plan::plan_platform(catalog, id, options) {
        Ok(report) => Ok(report),
        Err(plan::PlanError::UnknownPlatform(_)) => {
            let known: Vec<&str> = catalog.platforms.keys().map(String::as_str).collect();
            Err(miette!(
                help = laneplan::suggest::help_with(
                    id,
                    known.iter().copied(),
                    &format!(
                        "known platforms: {}; or give a build file (*.toml)",
                        known.join(", ")
                    )
                ),
                "unknown platform `{id}`"
            ))
        }
        Err(plan::PlanError::Option(e)) => Err(miette!(
            help = option_help(catalog, id, options, &e.help),
            "{}",
            e.message
        )),
    }
}

/// `rest`, after a did-you-mean for the first `--option KEY=VALUE` whose key or value the
/// platform lacks.
fn option_help(catalog: &Catalog, id: &str, options: &[(String, String)], rest: &str) -> String {
    let Some(p) = catalog.platforms.get(id) else {
        return rest.to_string();
    };
    let defs = &p.def.options;
    for (k, v) in options {
        return match defs.iter().find(|d| d.key.get_ref() == k) {
            None => {
                laneplan::suggest::help_with(k, defs.iter().map(|d| d.key.get_ref().as_str()), rest)
            }
            Some(d) if !d.choices.iter().any(|c| c.value.get_ref() == v) => {
                laneplan::suggest::help_with(
                    v,
                    d.choices.iter().map(|c| c.value.get_ref().as_str()),
                    rest,
                )
            }
            Some(_) => continue,
        };
    }
    rest.to_string()
}

/// `--against BUILD`: the plan's per-bay diff of an audited host (its own value: the audit is
/// not changed). `matched` is the platform the host matched and `variant` its options.
pub fn against(
    cat: &CatalogArgs,
    build: Option<&std::path::Path>,
    audit: &laneplan::host::audit::Audit,
    matched: Option<&str>,
    variant: &[(String, String)],
) -> Result<Option<laneplan::against::Diff>> {
    let Some(build) = build else {
        return Ok(None);
    };
    let catalog = cat.load()?;
    let (mut file, source) = plan::load_build(build).map_err(miette::Report::new)?;
    // Options the build leaves open take the variant the host matches (riser, front, NPS).
    let same_platform = matched == Some(file.platform.get_ref().as_str());
    if same_platform {
        for (k, v) in variant {
            file.options
                .entry(k.clone())
                .or_insert_with(|| toml::Spanned::new(0..0, v.clone()));
        }
    }
    let report = plan::check_build(&catalog, &file, source).map_err(|e| e.into_report())?;
    Ok(Some(laneplan::against::diff_in(
        &report.plan,
        audit,
        Some(&catalog),
    )))
}

pub fn show(args: &ShowArgs, cat: &CatalogArgs) -> Result<ExitCode> {
    let catalog = cat.load()?;
    let report = platform_report(&catalog, &args.platform, &args.options)?;
    if args.json {
        print_json(&json::report(&report, None))?;
    } else {
        let term = super::term();
        out!("{}", term.wrap(&text::header(&report)));
        outln!();
        out!("{}", term.fit(&text::tree(&report.plan.topology)));
        outln!();
        outln!("Lane budget");
        out!("{}", text::budget_in(&report.budget, &term));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn check(args: &CheckArgs, cat: &CatalogArgs) -> Result<ExitCode> {
    let catalog = cat.load()?;
    let (build, file) = plan::load_build(&args.build).map_err(miette::Report::new)?;
    let mut report =
        plan::check_build(&catalog, &build, file.clone()).map_err(miette::Report::new)?;
    let opts = args.flow.options()?;
    let bandwidth = laneplan::flow::attach(&mut report, &opts).map_err(|e| miette!("{e}"))?;
    let sys = super::flow::system_report(&report, &opts, &args.system)?;
    if let Some((_, more)) = &sys {
        report.findings.extend(more.iter().cloned());
        // Errors first, as `check` orders them.
        report
            .findings
            .sort_by(|a, b| b.severity.cmp(&a.severity).then(a.code.cmp(&b.code)));
    }
    if args.json {
        let mut v = json::report(&report, Some(("bandwidth", json::bandwidth(&bandwidth))));
        if let (Some((s, _)), Some(o)) = (&sys, v.as_object_mut()) {
            o.insert("system".into(), json::system(s));
        }
        print_json(&v)?;
    } else {
        out!(
            "{}",
            text::check_report(
                &report,
                &bandwidth,
                sys.as_ref().map(|(s, _)| s),
                &file,
                !args.no_tree,
                &super::term()
            )
        );
    }
    let code = if has_errors(&report.findings) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    // The process ends here: freeing a large plan node by node only costs time (5 % of a
    // 100,000-drive `check`); the OS takes the memory back at exit.
    std::mem::forget((report, bandwidth, sys, build, file));
    Ok(code)
}
