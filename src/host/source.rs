//! The one host-source seam: every place a host's facts can come from, read by one function
//! ([`read`]) into one [`HostRead`] (the [`HostScan`] the audit builds its tree from, the
//! names to print, and the facts about the machine itself), and audited by one function
//! ([`audit`]). `audit`, `bays`, `learn` and `probe --mapped` all go through here.
//!
//! Adding a source: a variant here, a reader module that returns a [`HostRead`] (bounded,
//! located errors), and a flag in `cmd::HostArgs` (docs/ARCHITECTURE.md has the recipe).

use super::audit::{self, Audit, AuditOptions};
use super::model::HostScan;
use super::{fs, lspci};
use crate::finding::Finding;
use crate::pciids::{self as names, PciNames};
use crate::source::InputError;
use std::path::{Path, PathBuf};

/// Where a host's facts come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostSource {
    /// This machine (sysfs below `/`).
    Live,
    /// A sysfs tree below a root: a copied tree or an unpacked `gather` archive.
    Sysfs(PathBuf),
    /// An `lspci -vvnn` dump.
    Lspci(PathBuf),
    /// A Redfish tree (Redfish-Mockup-Creator's layout: `index.json` per URI).
    Redfish(PathBuf),
    /// An hwloc XML topology (`lstopo --of xml`).
    HwlocXml(PathBuf),
}

impl HostSource {
    /// The sysfs root to read, for the sources that are one.
    pub fn sysfs_root(&self) -> Option<&Path> {
        match self {
            HostSource::Live => Some(Path::new("/")),
            HostSource::Sysfs(r) => Some(r),
            _ => None,
        }
    }

    /// True for anything but this machine: a capture is only listed, never written to.
    pub fn is_capture(&self) -> bool {
        match self {
            HostSource::Live => false,
            HostSource::Sysfs(r) => std::fs::canonicalize(r).map_or(true, |r| r != Path::new("/")),
            _ => true,
        }
    }

    /// The path named on the command line (`/` for the live host).
    pub fn path(&self) -> &Path {
        match self {
            HostSource::Live => Path::new("/"),
            HostSource::Sysfs(p)
            | HostSource::Lspci(p)
            | HostSource::Redfish(p)
            | HostSource::HwlocXml(p) => p,
        }
    }
}

/// The machine itself, where the source says: DMI product name, CPU model, socket count.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct HostFacts {
    pub product: Option<String>,
    pub vendor: Option<String>,
    pub cpu_model: Option<String>,
    pub sockets: Option<u32>,
}

/// What one source gave: the scan the audit reads, its findings, the names to print and the
/// machine's own facts.
pub struct HostRead {
    pub scan: HostScan,
    pub findings: Vec<Finding>,
    pub names: Box<dyn PciNames>,
    /// `sysfs:/`, `lspci:FILE` (the audit's `source`).
    pub source: String,
    pub facts: HostFacts,
    /// Slots, devices and drives, from a source that describes the chassis (Redfish).
    pub chassis: Option<super::chassis::Chassis>,
    /// Disks an OS-level source names (hwloc).
    pub disks: Vec<super::model::OsDisk>,
    /// The temporary directory a `gather` archive named as `--sysfs-root` was unpacked
    /// into; removed when the read is dropped.
    pub unpacked: Option<std::sync::Arc<tempfile::TempDir>>,
    /// Whether the audit reports the CPU model and socket count: true for the sources added
    /// with the seam (Redfish, hwloc); false for sysfs and lspci, whose audit JSON stays as
    /// it was (their CPU is read for `learn`).
    pub report_cpu: bool,
}

/// Reads a host source. `pci_ids` names a `pci.ids` for the names of a sysfs source (named
/// by the user: missing or bad is an error); the other sources carry their own names.
pub fn read(src: &HostSource, pci_ids: Option<&Path>) -> Result<HostRead, InputError> {
    match src {
        HostSource::Live | HostSource::Sysfs(_) => {
            let named = src.sysfs_root().unwrap_or(Path::new("/"));
            // A `gather` archive replays as its unpacked root.
            let unpacked = if super::gather::is_archive(named) {
                let (dir, root) = super::gather::unpack(named).map_err(|why| {
                    unlocated(named, format!("cannot read {}: {why}", named.display()))
                })?;
                Some((std::sync::Arc::new(dir), root))
            } else {
                None
            };
            let root = unpacked.as_ref().map_or(named, |(_, r)| r.as_path());
            if !root.join("sys").is_dir() {
                return Err(unlocated(
                    root,
                    format!(
                        "{} has no sys/ directory: not a host root or a gathered capture",
                        root.display()
                    ),
                ));
            }
            let fsys = fs::SysFs::new(root);
            let names: Box<dyn PciNames> = match pci_ids {
                Some(p) => Box::new(names::IdsFile::open(p)?),
                None => crate::host::names_for_root(&fsys, None),
            };
            let (scan, findings) = super::sysfs::read_host(&fsys);
            let facts = sysfs_facts(&fsys);
            Ok(HostRead {
                scan,
                findings,
                names,
                source: format!("sysfs:{}", named.display()),
                facts,
                chassis: None,
                disks: Vec::new(),
                report_cpu: false,
                unpacked: unpacked.map(|(d, _)| d),
            })
        }
        HostSource::Lspci(p) => {
            let (scan, findings) = lspci::read_dump(p)?;
            Ok(HostRead {
                scan,
                findings,
                names: Box::new(names::Embedded),
                source: format!("lspci:{}", p.display()),
                facts: HostFacts::default(),
                chassis: None,
                disks: Vec::new(),
                report_cpu: false,
                unpacked: None,
            })
        }
        HostSource::Redfish(dir) => {
            let r = super::redfish::read(dir)?;
            Ok(HostRead {
                scan: HostScan::default(),
                findings: r.findings,
                names: Box::new(names::Embedded),
                source: format!("redfish:{}", dir.display()),
                facts: r.facts,
                chassis: Some(r.chassis),
                disks: Vec::new(),
                report_cpu: true,
                unpacked: None,
            })
        }
        HostSource::HwlocXml(p) => {
            let h = super::hwloc::read(p)?;
            Ok(HostRead {
                scan: h.scan,
                findings: h.findings,
                names: Box::new(names::Embedded),
                source: format!("hwloc:{}", p.display()),
                facts: h.facts,
                chassis: None,
                disks: h.disks,
                report_cpu: true,
                unpacked: None,
            })
        }
    }
}

/// An error about a path as a whole (no line, no snippet).
pub fn unlocated(path: &Path, message: String) -> InputError {
    let mut e = InputError::whole_file(path.display().to_string(), message);
    e.line = 0;
    e.column = 0;
    e
}

/// The DMI product name, the CPU model and the socket count of a sysfs tree (`/proc/cpuinfo`:
/// `model name`, distinct `physical id`s).
pub fn sysfs_facts(fsys: &fs::SysFs) -> HostFacts {
    let product = fsys
        .read("sys/class/dmi/id/product_name")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let vendor = fsys
        .read("sys/class/dmi/id/sys_vendor")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let cpuinfo = fsys.read("proc/cpuinfo").ok();
    let field = |l: &str, name: &str| {
        l.strip_prefix(name)
            .and_then(|r| r.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let cpu_model = cpuinfo.as_deref().and_then(|t| {
        t.lines()
            .find_map(|l| field(l, "model name"))
            .filter(|s| !s.is_empty())
    });
    let sockets = cpuinfo.as_deref().and_then(|t| {
        let ids: std::collections::BTreeSet<String> =
            t.lines().filter_map(|l| field(l, "physical id")).collect();
        u32::try_from(ids.len()).ok().filter(|&n| n > 0)
    });
    HostFacts {
        product,
        vendor,
        cpu_model,
        sockets,
    }
}

/// Reads and audits a host source: the one entry point of `audit`, `bays` and `probe`.
pub fn audit(
    src: &HostSource,
    pci_ids: Option<&Path>,
    opts: AuditOptions,
) -> Result<Audit, InputError> {
    let read = read(src, pci_ids)?;
    Ok(audit_read(&read, opts))
}

/// Audits what [`read`] gave.
pub fn audit_read(read: &HostRead, opts: AuditOptions) -> Audit {
    let mut a = audit::audit(
        &read.scan,
        read.names.as_ref(),
        &read.source,
        opts,
        read.findings.clone(),
    );
    a.product = read.facts.product.clone();
    a.vendor = read.facts.vendor.clone();
    if read.report_cpu {
        a.cpu_model = read.facts.cpu_model.clone();
        a.sockets = read.facts.sockets;
    }
    a.disks = read.disks.clone();
    if let Some(ch) = &read.chassis {
        a.chassis = Some(ch.clone());
        crate::finding::sort(&mut a.findings);
    }
    a
}
