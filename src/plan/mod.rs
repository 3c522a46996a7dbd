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
    /// The CPU in the sockets: the build's `cpu`, else the platform's `cpu_default`.
    pub cpu: Option<PlanCpu>,
}

/// The CPU a plan's sockets carry.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlanCpu {
    pub cpu: crate::cpu::Cpu,
    /// Sockets populated (every socket of the platform).
    pub sockets: u32,
    /// The memory speed the build runs (MT/s): its `memory_mts`, else the CPU's top speed.
    pub memory_mts: u32,
    /// `build` or `platform` (its default).
    pub from: &'static str,
}

impl PlanCpu {
    /// Cores of all sockets together.
    pub fn cores(&self) -> u32 {
        self.cpu.cores * self.sockets
    }
    /// Memory ceiling of all sockets together (channels x MT/s x 8 B each), GB/s.
    pub fn memory_gbs(&self) -> f64 {
        self.cpu.memory_gbs_at(self.memory_mts) * self.sockets as f64
    }
}

/// The CPU of a build on a platform: the build's `cpu` (an unknown id is an input error with
/// did-you-mean; one the platform's sockets do not take is LP0120), else the first socket's
/// `cpu_default`. A build's `memory_mts` above the CPU's top speed is LP0121.
fn resolve_cpu(
    platform: &crate::platform::Platform,
    build: Option<(&BuildFile, &SourceFile)>,
    findings: &mut Vec<crate::finding::Finding>,
) -> Result<Option<PlanCpu>, InputErrors> {
    use crate::finding::{Code, Finding, Location};
    let cat = crate::cpu::builtin();
    let sockets = &platform.def.sockets;
    let loc = |f: &SourceFile, span: std::ops::Range<usize>| {
        let (line, column) = f.line_col(span.start);
        Location {
            node: None,
            file: Some(f.name.clone()),
            line: Some(line),
            column: Some(column),
        }
    };
    let mut chosen = None;
    if let Some((b, f)) = build
        && let Some(c) = &b.cpu
    {
        let Some(cpu) = cat.cpu(c.get_ref()) else {
            return Err(f.error(c.span(), cat.unknown_cpu(c.get_ref())).into());
        };
        let mut allowed: Vec<&str> = Vec::new();
        for c in sockets.iter().flat_map(|s| &s.cpus) {
            if !allowed.contains(&c.get_ref().as_str()) {
                allowed.push(c.get_ref());
            }
        }
        if !allowed.is_empty() && !allowed.iter().any(|a| a.eq_ignore_ascii_case(&cpu.id)) {
            findings.push(
                Finding::of(
                    Code::CpuNotAllowed,
                    format!(
                        "{}'s sockets take {}; not {}",
                        platform.def.name,
                        allowed.join(", "),
                        cpu.name
                    ),
                )
                .with_help(
                    "name one of the CPUs the platform lists (`laneplan show` names its sockets)",
                )
                .at(loc(f, c.span())),
            );
        }
        chosen = Some((cpu.clone(), "build"));
    }
    if chosen.is_none() {
        chosen = sockets
            .iter()
            .find_map(|s| s.cpu_default.as_ref())
            .and_then(|c| cat.cpu(c.get_ref()))
            .map(|c| (c.clone(), "platform"));
    }
    let Some((cpu, from)) = chosen else {
        return Ok(None);
    };
    let mut memory_mts = cpu.memory_mts;
    if let Some((b, f)) = build
        && let Some(m) = &b.memory_mts
    {
        let v = *m.get_ref();
        if v == 0 || v > cpu.memory_mts {
            findings.push(
                Finding::of(
                    Code::MemorySpeed,
                    format!(
                        "memory_mts = {v}: {} runs memory at 1 to {} MT/s",
                        cpu.name, cpu.memory_mts
                    ),
                )
                .with_help(format!("give the DIMMs' speed, at most {}", cpu.memory_mts))
                .at(loc(f, m.span())),
            );
        } else {
            memory_mts = v;
        }
    }
    Ok(Some(PlanCpu {
        sockets: sockets.len() as u32,
        cpu,
        memory_mts,
        from,
    }))
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
    let req = Request::from_build(build, file.clone());
    let mut report = run(platform, catalog, &req, Some(name));
    let mut found = Vec::new();
    report.cpu = resolve_cpu(platform, Some((build, &file)), &mut found)?;
    if !found.is_empty() {
        report.findings.extend(found);
        sort_findings(&mut report.findings);
    }
    Ok(report)
}

/// Why a platform could not be planned by id and options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("unknown platform `{0}`")]
    UnknownPlatform(String),
    #[error(transparent)]
    Option(#[from] instantiate::OptionError),
}

/// Plans a platform with options only (`show`): an unknown platform, option or option value
/// is an error.
pub fn plan_platform(
    catalog: &Catalog,
    id: &str,
    options: &[(String, String)],
) -> Result<Report, PlanError> {
    let platform = catalog
        .platform(id)
        .ok_or_else(|| PlanError::UnknownPlatform(id.to_string()))?;
    let req = Request::options(options);
    instantiate::check_options(platform, &req)?;
    let mut report = run(platform, catalog, &req, None);
    report.cpu = resolve_cpu(platform, None, &mut report.findings)
        .ok()
        .flatten();
    Ok(report)
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
    sort_findings(&mut findings);
    Report {
        plan,
        budget,
        findings,
        file,
        cpu: None,
    }
}

fn sort_findings(findings: &mut [crate::finding::Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(&b.code))
            .then(a.location.line.cmp(&b.location.line))
    });
}
