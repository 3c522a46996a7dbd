//! `probe --mapped`: every NVMe namespace the audit finds becomes a probe target, labelled
//! with its bay, slot and link, with the ceiling of its path (what its live link carries
//! under the direction-aware model: physics only) and, where the catalogue knows the drive
//! (by its PCI ids, or the plan's part for its bay when the host matches the plan), the
//! expected figure: that ceiling capped by the drive's specification.

use super::safety::{Reason, Refusal, SafetyChecker};
use super::target::ProbeTarget;
use crate::against::{Diff, DiffStatus, part_by_ids};
use crate::host::audit::Audit;
use crate::pci::Bdf;
use crate::pcie::{LinkRate, Model};
use crate::platform::Catalog;
use crate::term::Term;
use serde::Serialize;
use std::path::Path;

/// A mapped namespace: the target, and why it would be refused before any I/O.
#[derive(Debug, Clone, Serialize)]
pub struct Mapped {
    pub target: ProbeTarget,
    /// The controller's PCI function.
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub bdf: Option<crate::pci::Bdf>,
    pub model: Option<String>,
    /// Mounted, partitions in use, holders: the probe refuses it whatever the flags.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// Targets for every namespace, in the audit's drive order, each namespace once (a
/// multipath namespace is reached through several controllers). `dev` is where device nodes
/// live (`/dev`); `diff` adds the plan's bay names.
pub fn targets(
    audit: &Audit,
    diff: Option<&Diff>,
    dev: &Path,
    catalog: Option<&Catalog>,
) -> Vec<Mapped> {
    let mut out: Vec<Mapped> = Vec::new();
    for d in &audit.drives {
        for ns in &d.namespaces {
            if out.iter().any(|m| m.target.label == ns.name) {
                continue;
            }
            let mut t = ProbeTarget::from_path(dev.join(&ns.name));
            t.label = ns.name.clone();
            let bay = d.bay.map(|b| format!("Bay {b}")).or_else(|| {
                diff.and_then(|df| {
                    df.entries
                        .iter()
                        .find(|e| e.bdf.is_some() && e.bdf == d.bdf)
                        .map(|e| e.place.clone())
                })
            });
            let rate = d.link.and_then(|l| {
                l.speed
                    .filter(|_| l.width > 0)
                    .map(|g| LinkRate::new(g, l.width))
            });
            let mut parts = Vec::new();
            if let Some(b) = &bay {
                parts.push(b.clone());
            }
            if let Some(s) = &d.slot {
                parts.push(format!("slot {s}"));
            }
            if let Some(p) = &d.upstream_port {
                parts.push(format!("port {p}"));
            }
            if let Some(n) = d.numa_node {
                parts.push(format!("NUMA {n}"));
            }
            let mut loc = parts.join(" > ");
            if let Some(r) = rate {
                loc.push_str(&format!(", {}", r.label()));
                // The live link's payload ceiling (direction-aware model, MPS 256) per direction.
                t.ceiling_read_gbs = Some(round3(r.to_host_gbs(Model::DirectionAware)));
                t.ceiling_write_gbs = Some(round3(r.to_device_gbs(Model::DirectionAware)));
            }
            // Nothing known about where it sits: no location, not an empty one.
            t.location = (!loc.is_empty()).then_some(loc);
            t.part = drive_part(audit, diff, catalog, d.bdf);
            if let (Some(c), Some(id)) = (catalog, t.part.as_deref())
                && let Some(perf) = c.part(id).and_then(|p| p.def.perf)
            {
                let cap = |ceiling: Option<f64>, spec: f64| {
                    Some(round3(ceiling.map_or(spec, |c| c.min(spec))))
                };
                t.expected_read_gbs = cap(t.ceiling_read_gbs, perf.seq_read_gbs);
                t.expected_write_gbs = cap(t.ceiling_write_gbs, perf.seq_write_gbs);
            }
            let mut why = Vec::new();
            if !ns.mounts.is_empty() {
                why.push(format!("mounted at {}", ns.mounts.join(", ")));
            }
            if !ns.holders.is_empty() {
                why.push(format!("held by {}", ns.holders.join(", ")));
            }
            out.push(Mapped {
                target: t,
                bdf: d.bdf,
                model: d.model.clone(),
                refused: (!why.is_empty()).then(|| why.join("; ")),
            });
        }
    }
    out
}

/// The catalogue part a drive is: identified by its PCI ids (vendor:device and subsystem), or,
/// where the ids name no part, the plan's part for the bay it matched (unless the audit found
/// another part there).
fn drive_part(
    audit: &Audit,
    diff: Option<&Diff>,
    catalog: Option<&Catalog>,
    bdf: Option<Bdf>,
) -> Option<String> {
    let catalog = catalog?;
    let bdf = bdf?;
    if let Some(id) = audit.function(bdf).and_then(|f| part_by_ids(catalog, f)) {
        return Some(id);
    }
    diff?
        .entries
        .iter()
        .find(|e| e.bdf == Some(bdf) && e.status != DiffStatus::WrongPart)
        .and_then(|e| e.expected_part.clone())
}

/// Whether a mapped target is, on the live host `checker` looks at, the namespace the audit
/// described: its node is a block device, `/sys/dev/block/M:m` resolves to a device of the
/// same kernel name, and that device sits under the same PCI function. A capture
/// (`--sysfs-root`) describes another moment or another host; I/O goes only to nodes that pass
/// this, and then through the full safety check against the live /proc and /sys.
pub fn verify_live(m: &Mapped, checker: &SafetyChecker) -> Result<(), Refusal> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let node = m.target.path.display().to_string();
    let refuse = |why: String| {
        Refusal::new(
            Reason::NotVerified {
                node: node.clone(),
                why: why.clone(),
            },
            format!(
                "{node} was not verified on this host ({why}); --mapped does I/O only on namespaces found on the live host"
            ),
            "list a capture with --dry-run; probe on the host itself (without --sysfs-root), or name the device directly",
        )
    };
    let meta = std::fs::metadata(&m.target.path).map_err(|e| refuse(format!("{node}: {e}")))?;
    if !meta.file_type().is_block_device() {
        return Err(refuse(format!("{node} is not a block device")));
    }
    let (ma, mi) = (
        rustix::fs::major(meta.rdev()),
        rustix::fs::minor(meta.rdev()),
    );
    let Some(ident) = checker.ident(ma, mi) else {
        return Err(refuse(format!(
            "{} does not resolve",
            checker
                .sys_root
                .join(format!("dev/block/{ma}:{mi}"))
                .display()
        )));
    };
    if ident.name != m.target.label {
        return Err(refuse(format!(
            "it is {} here, not {}",
            ident.name, m.target.label
        )));
    }
    if let Some(bdf) = m.bdf.map(|b| b.to_string())
        && !ident
            .sys_dir
            .components()
            .any(|c| c.as_os_str().to_str() == Some(bdf.as_str()))
    {
        return Err(refuse(format!(
            "{} is not under PCI function {bdf} here",
            ident.name
        )));
    }
    Ok(())
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The mapped targets as a table (`probe --mapped --dry-run`) fitted to `term`; a line saying
/// so, not an empty table, when the host has no NVMe namespace. A narrow terminal loses the
/// model, the BDF, the write ceiling and the expected figures first (named in a note;
/// `--json` has them all), and the cells left wrap.
pub fn render_in(mapped: &[Mapped], term: &Term) -> String {
    if mapped.is_empty() {
        return "no NVMe namespaces found\n".into();
    }
    let header = [
        "target",
        "model",
        "BDF",
        "where",
        "read ceiling",
        "write ceiling",
        "expected r/w",
        "probe",
    ];
    let gbs = |v: Option<f64>| v.map(|v| format!("{v:.2} GB/s")).unwrap_or("-".into());
    let rows: Vec<Vec<String>> = mapped
        .iter()
        .map(|m| {
            vec![
                m.target.path.display().to_string(),
                m.model.clone().unwrap_or_default(),
                m.bdf.map(|b| b.to_string()).unwrap_or_default(),
                m.target.location.clone().unwrap_or_default(),
                gbs(m.target.ceiling_read_gbs),
                gbs(m.target.ceiling_write_gbs),
                match (m.target.expected_read_gbs, m.target.expected_write_gbs) {
                    (Some(r), Some(w)) => format!("{r:.2} / {w:.2} GB/s"),
                    _ => "-".into(),
                },
                m.refused
                    .as_ref()
                    .map(|r| format!("refused: {r}"))
                    .unwrap_or_else(|| "yes".into()),
            ]
        })
        .collect();
    format!(
        "{}\n",
        term.fitted_table(&header, &rows, &[1, 2, 5, 6]).render()
    )
}
