//! The planner: instantiate a platform with a build, then check it and budget its lanes.

pub mod budget;
pub mod check;
pub mod instantiate;

use crate::finding::Finding;
use crate::platform::schema::{BuildFile, MAX_TOTAL_BAYS, over_total_bays};
use crate::platform::{Catalog, read_source};
use crate::source::{InputError, InputErrors, SourceFile, parse_toml};
use budget::Budget;
use instantiate::{Plan, Request};
use std::path::Path;

/// What `check` returns: the plan, its lane budget, and every finding.
#[derive(Debug, Clone)]
pub struct Report {
    pub plan: Plan,
    pub budget: Budget,
    pub findings: Vec<Finding>,
    /// The build file's name, when a build was checked.
    pub file: Option<String>,
}

/// Reads and parses a build file.
pub fn load_build(path: &Path) -> Result<(BuildFile, SourceFile), InputError> {
    let file = read_source(path)?;
    let build: BuildFile = parse_toml(&file)?;
    Ok((build, file))
}

/// Plans a build file: unknown platform is an input error (exit 2); everything else is a
/// finding.
pub fn check_build_file(catalog: &Catalog, path: &Path) -> Result<Report, InputErrors> {
    let (build, file) = load_build(path)?;
    check_build(catalog, &build, file)
}

pub fn check_build(
    catalog: &Catalog,
    build: &BuildFile,
    file: SourceFile,
) -> Result<Report, InputErrors> {
    let Some(platform) = catalog.platform(build.platform.get_ref()) else {
        let known: Vec<String> = catalog.platforms.keys().map(|k| format!("`{k}`")).collect();
        return Err(file
            .error(
                build.platform.span(),
                format!("unknown platform `{}`", build.platform.get_ref()),
            )
            .with_help(crate::suggest::help_with(
                build.platform.get_ref(),
                catalog.platforms.keys().map(String::as_str),
                &format!("expected one of: {}", known.join(", ")),
            ))
            .into());
    };
    if let Some(i) = over_total_bays(build.bays.iter().map(|b| b.bays.get_ref().as_str())) {
        return Err(file
            .error(
                build.bays[i].bays.span(),
                format!("the build's [[bay]] lists name more than {MAX_TOTAL_BAYS} bays"),
            )
            .into());
    }
    let name = file.name.clone();
    let req = Request::from_build(build, file);
    Ok(run(platform, catalog, &req, Some(name)))
}

/// Plans a platform with options only (`show`).
pub fn plan_platform(catalog: &Catalog, id: &str, options: &[(String, String)]) -> Option<Report> {
    let platform = catalog.platform(id)?;
    Some(run(platform, catalog, &Request::options(options), None))
}

fn run(
    platform: &crate::platform::Platform,
    catalog: &Catalog,
    req: &Request,
    file: Option<String>,
) -> Report {
    let (plan, mut findings) = instantiate::instantiate(platform, catalog, req);
    let budget = budget::budget(&plan);
    findings.extend(check::check(&plan, &budget, file.as_deref()));
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(b.code))
            .then(a.location.line.cmp(&b.location.line))
    });
    Report {
        plan,
        budget,
        findings,
        file,
    }
}
