//! The audit composed with what it was held against: the host's [`Audit`] (host facts and
//! verdicts, `host/`), the platform variant it matches ([`crate::variant`]) and the plan's
//! per-bay diff ([`crate::against`]), each its own value. The variant match and the diff are
//! computed from the audit and never change it; [`HostReport::new`] puts the three together
//! (the diff's bay numbers on the functions and drives, every finding in one list) for the
//! renderers and the JSON document (`docs/audit-json.md`).

use crate::against::{Diff, DiffEntry};
use crate::finding::Finding;
use crate::host::audit::{Audit, DriveReport, EmptyPort, FunctionReport};
use crate::host::chassis::Chassis;
use crate::host::model::{NvmeSubsystem, OsDisk};
use crate::variant::VariantMatch;
use serde::Serialize;

/// An audit with its variant match and its diff.
#[derive(Debug, Clone)]
pub struct HostReport {
    /// The audit, with the diff's bay numbers on its functions and drives and the match's
    /// and the diff's findings after its own.
    pub audit: Audit,
    /// The platform variant the host matches (`--platform`, or the DMI product name).
    pub variant: Option<VariantMatch>,
    /// The plan's per-bay comparison (`--against`).
    pub diff: Option<Diff>,
}

impl HostReport {
    /// Puts the three together: the match's findings, then the diff's, follow the audit's.
    pub fn new(mut audit: Audit, variant: Option<VariantMatch>, diff: Option<Diff>) -> Self {
        if let Some(m) = &variant {
            audit.findings.extend(m.findings.iter().cloned());
        }
        if let Some(d) = &diff {
            with_diff(&mut audit, d);
        }
        HostReport {
            audit,
            variant,
            diff,
        }
    }

    pub fn has_errors(&self) -> bool {
        self.audit.has_errors()
    }
}

/// The audit as the diff sees it: each function and drive the diff placed gets its bay
/// number, and the diff's findings follow the audit's.
pub fn with_diff(audit: &mut Audit, diff: &Diff) {
    for e in &diff.entries {
        let (Some(bdf), Some(bay)) = (&e.bdf, e.bay) else {
            continue;
        };
        if let Some(f) = audit.functions.iter_mut().find(|f| &f.bdf == bdf) {
            f.bay = Some(bay);
        }
        if let Some(d) = audit.drives.iter_mut().find(|d| d.bdf == Some(*bdf)) {
            d.bay = Some(bay);
        }
    }
    audit.findings.extend(diff.findings.iter().cloned());
}

/// The JSON document: the audit's fields, with the diff's entries as `bays` (empty without
/// one) and the match as `variant`, in the order `docs/audit-json.md` lists them.
#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    product: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vendor: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sockets: Option<u32>,
    names: &'a str,
    functions: &'a [FunctionReport],
    drives: &'a [DriveReport],
    subsystems: &'a [NvmeSubsystem],
    empty_ports: &'a [EmptyPort],
    bays: &'a [DiffEntry],
    #[serde(skip_serializing_if = "Option::is_none")]
    variant: Option<&'a VariantMatch>,
    findings: &'a [Finding],
    #[serde(skip_serializing_if = "Option::is_none")]
    chassis: Option<&'a Chassis>,
    #[serde(skip_serializing_if = "<[OsDisk]>::is_empty")]
    disks: &'a [OsDisk],
}

impl Serialize for HostReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = &self.audit;
        Document {
            schema_version: a.schema_version,
            source: &a.source,
            product: a.product.as_deref(),
            vendor: a.vendor.as_deref(),
            cpu_model: a.cpu_model.as_deref(),
            sockets: a.sockets,
            names: &a.names,
            functions: &a.functions,
            drives: &a.drives,
            subsystems: &a.subsystems,
            empty_ports: &a.empty_ports,
            bays: self.diff.as_ref().map_or(&[], |d| &d.entries),
            variant: self.variant.as_ref(),
            findings: &a.findings,
            chassis: a.chassis.as_ref(),
            disks: &a.disks,
        }
        .serialize(s)
    }
}
