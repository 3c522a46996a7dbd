//! The host-source flags, one struct shared by `audit`, `bays`, `learn` and `probe --mapped`:
//! at most one source (clap group `host_source`), turned into a
//! [`laneplan::host::source::HostSource`].

use clap::Args;
use laneplan::host::source::HostSource;
use std::path::PathBuf;

#[derive(Args, Debug, Clone, Default)]
pub struct HostArgs {
    /// Read sysfs below this root (`<root>/sys/...`, `<root>/proc/...`); a gathered capture
    /// replays here.
    #[arg(long, value_name = "DIR", group = "host_source")]
    pub sysfs_root: Option<PathBuf>,
    /// Read an `lspci -vvnn` dump instead of sysfs.
    #[arg(long, value_name = "FILE", group = "host_source")]
    pub lspci: Option<PathBuf>,
    /// Read a Redfish tree (a BMC's resources as Redfish-Mockup-Creator saves them: the
    /// mockup root or its `redfish/v1` folder): slots, devices, drives. See docs/redfish.md.
    #[arg(long, value_name = "DIR", group = "host_source", value_hint = clap::ValueHint::DirPath)]
    pub redfish: Option<PathBuf>,
    /// Read an hwloc XML topology (`lstopo --of xml`): the PCI tree, NUMA, slots and disks as
    /// hwloc holds them; links carry their current speed only. See docs/hwloc.md.
    #[arg(long = "hwloc-xml", value_name = "FILE", group = "host_source")]
    pub hwloc_xml: Option<PathBuf>,
    /// Names from this pci.ids (default: the host's own, else the embedded database).
    #[arg(long, value_name = "FILE")]
    pub pci_ids: Option<PathBuf>,
}

impl HostArgs {
    /// The source named, if any.
    pub fn source(&self) -> Option<HostSource> {
        if let Some(p) = &self.lspci {
            return Some(HostSource::Lspci(p.clone()));
        }
        if let Some(p) = &self.hwloc_xml {
            return Some(HostSource::HwlocXml(p.clone()));
        }
        if let Some(p) = &self.redfish {
            return Some(HostSource::Redfish(p.clone()));
        }
        self.sysfs_root.clone().map(HostSource::Sysfs)
    }

    /// The source named, else this host.
    pub fn source_or_live(&self) -> HostSource {
        self.source().unwrap_or(HostSource::Live)
    }
}
