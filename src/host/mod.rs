//! The live host: sysfs reader (configurable root), lspci-dump reader, the live tree as a
//! [`Topology`](crate::topology::Topology), verdicts and `gather`.
//!
//! Flow: a reader (`sysfs::read_host` or `lspci::parse`) gives a [`model::HostScan`] plus
//! findings; [`audit::audit`] builds the tree, judges links, AER and NVMe, and returns an
//! [`audit::Audit`]; [`crate::render::host`] turns it into text and Prometheus.

pub mod audit;
pub mod chassis;
pub mod fs;
pub mod gather;
pub mod hwloc;
pub mod lspci;
pub mod model;
use crate::pciids as names;
pub mod placed;
pub mod redfish;

pub mod source;
pub mod sysfs;
pub mod tree;

use std::path::Path;

/// Audits the host (or capture) below `root`.
pub fn audit_sysfs(root: &Path, pci_ids: Option<&Path>, opts: audit::AuditOptions) -> audit::Audit {
    let fs = fs::SysFs::new(root);
    audit_with(&fs, pci_ids, opts)
}

/// Audits with a given reader (a recording one for `gather`).
pub fn audit_with(
    fs: &fs::SysFs,
    pci_ids: Option<&Path>,
    opts: audit::AuditOptions,
) -> audit::Audit {
    let (scan, findings) = sysfs::read_host(fs);
    let names = names_for_root(fs, pci_ids);
    audit_scan(fs, &scan, findings, names.as_ref(), opts)
}

/// Audits the host below `root` with names from a `pci.ids` the caller loaded
/// ([`names::IdsFile::open`]: a missing or bad `--pci-ids` is then an error, not a fallback).
pub fn audit_sysfs_names(
    root: &Path,
    names: &dyn names::PciNames,
    opts: audit::AuditOptions,
) -> audit::Audit {
    let fs = fs::SysFs::new(root);
    let (scan, findings) = sysfs::read_host(&fs);
    audit_scan(&fs, &scan, findings, names, opts)
}

fn audit_scan(
    fs: &fs::SysFs,
    scan: &model::HostScan,
    findings: Vec<crate::finding::Finding>,
    names: &dyn names::PciNames,
    opts: audit::AuditOptions,
) -> audit::Audit {
    let mut a = audit::audit(
        scan,
        names,
        &format!("sysfs:{}", fs.root().display()),
        opts,
        findings,
    );
    // Read through the (recording) reader, so `gather` keeps it for replays.
    a.product = fs
        .read("sys/class/dmi/id/product_name")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    a.vendor = fs
        .read("sys/class/dmi/id/sys_vendor")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    a
}

/// Audits an `lspci -vvnn` dump. Names come from the dump itself.
pub fn audit_lspci(text: &str, file: &str, opts: audit::AuditOptions) -> audit::Audit {
    let (scan, findings) = lspci::parse(text, file);
    audit_lspci_scan(&scan, findings, file, opts)
}

/// Reads and audits the `lspci -vvnn` dump at `path` ([`lspci::read_dump`]: bounded, and
/// an input that is no dump is a located error).
pub fn audit_lspci_file(
    path: &Path,
    opts: audit::AuditOptions,
) -> Result<audit::Audit, crate::source::InputError> {
    let (scan, findings) = lspci::read_dump(path)?;
    Ok(audit_lspci_scan(
        &scan,
        findings,
        &path.display().to_string(),
        opts,
    ))
}

fn audit_lspci_scan(
    scan: &model::HostScan,
    findings: Vec<crate::finding::Finding>,
    file: &str,
    opts: audit::AuditOptions,
) -> audit::Audit {
    audit::audit(
        scan,
        &names::Embedded,
        &format!("lspci:{file}"),
        opts,
        findings,
    )
}

/// Names for a host: an explicit file, else the host's own pci.ids (read through `fs`, so
/// inside a capture's root, bounded, and recorded by `gather`), else embedded. Lenient: an
/// explicit file that cannot be loaded falls back too (the CLI loads it with
/// [`names::IdsFile::open`](crate::pciids::IdsFile::open) first and stops there).
pub fn names_for_root(fs: &fs::SysFs, explicit: Option<&Path>) -> Box<dyn names::PciNames> {
    if let Some(p) = explicit
        && let Ok(f) = names::IdsFile::open(p)
    {
        return Box::new(f);
    }
    for rel in ["usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids"] {
        if let Ok(bytes) = fs.read_bytes(rel)
            && let Some(f) = names::IdsFile::from_text(
                String::from_utf8_lossy(&bytes).into_owned(),
                fs.root().join(rel).display().to_string(),
            )
        {
            return Box::new(f);
        }
    }
    Box::new(names::Embedded)
}
