//! Vendor and device names. The host's own `pci.ids` wins when present, so names match what
//! `lspci` prints on that host; otherwise the database embedded by the `pci-ids` crate.

use super::fs::SysFs;
use crate::source::InputError;
use std::collections::HashMap;
use std::path::Path;

/// Looks names up by id.
pub trait PciNames {
    fn vendor(&self, vendor: u16) -> Option<String>;
    fn device(&self, vendor: u16, device: u16) -> Option<String>;
    /// Where the names come from, for reports.
    fn source(&self) -> String;

    /// `Intel Corporation Ethernet Connection X722 for 10GBASE-T`, like `lspci -tv`.
    fn describe(&self, vendor: Option<u16>, device: Option<u16>) -> String {
        let (Some(v), Some(d)) = (vendor, device) else {
            return "Unknown device".to_string();
        };
        let vn = self.vendor(v).unwrap_or_else(|| format!("Vendor {v:04x}"));
        let dn = self
            .device(v, d)
            .unwrap_or_else(|| format!("Device {d:04x}"));
        format!("{vn} {dn}")
    }
}

/// The database compiled into the binary (crate `pci-ids`).
pub struct Embedded;

impl PciNames for Embedded {
    fn vendor(&self, vendor: u16) -> Option<String> {
        pci_ids::Vendors::iter()
            .find(|v| v.id() == vendor)
            .map(|v| v.name().to_string())
    }
    fn device(&self, vendor: u16, device: u16) -> Option<String> {
        pci_ids::Device::from_vid_pid(vendor, device).map(|d| d.name().to_string())
    }
    fn source(&self) -> String {
        "embedded pci.ids (crate pci-ids)".into()
    }
}

/// A parsed `pci.ids` file (vendor lines, tab-indented device lines; subsystems and the
/// class section are skipped).
#[derive(Debug, Default)]
pub struct IdsFile {
    path: String,
    vendors: HashMap<u16, String>,
    devices: HashMap<(u16, u16), String>,
}

impl IdsFile {
    pub fn parse(text: &str, path: impl Into<String>) -> IdsFile {
        let mut out = IdsFile {
            path: path.into(),
            ..Default::default()
        };
        let mut cur: Option<u16> = None;
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if line.starts_with("C ") {
                // The class section ends the vendor list.
                break;
            }
            if let Some(rest) = line.strip_prefix('\t') {
                if rest.starts_with('\t') {
                    continue; // subsystem
                }
                if let (Some(v), Some((id, name))) = (cur, split_id(rest)) {
                    out.devices.insert((v, id), name.to_string());
                }
            } else if let Some((id, name)) = split_id(line) {
                cur = Some(id);
                out.vendors.insert(id, name.to_string());
            } else {
                cur = None;
            }
        }
        out
    }

    /// Loads a `pci.ids` named by the user (`--pci-ids`): a missing, unreadable or
    /// oversized file, a FIFO nobody writes, a device node, or a file without a single vendor
    /// line is an error, never a silent fallback to other names.
    pub fn open(path: &Path) -> Result<IdsFile, InputError> {
        let name = path.display().to_string();
        let bytes = super::fs::read_input(path, super::fs::PCI_IDS_CAP)
            .map_err(|why| InputError::unreadable(&name, &why))?;
        let f = Self::parse(&String::from_utf8_lossy(&bytes), name.clone());
        if f.vendors.is_empty() {
            return Err(InputError::whole_file(
                &name,
                "not a pci.ids file: no `vendor  name` line",
            )
            .with_help("give the path of a pci.ids database (as `lspci -i FILE` takes)"));
        }
        Ok(f)
    }
}

fn split_id(s: &str) -> Option<(u16, &str)> {
    let (id, name) = s.split_once("  ")?;
    if id.len() != 4 {
        return None;
    }
    Some((u16::from_str_radix(id, 16).ok()?, name.trim()))
}

impl PciNames for IdsFile {
    fn vendor(&self, vendor: u16) -> Option<String> {
        self.vendors.get(&vendor).cloned()
    }
    fn device(&self, vendor: u16, device: u16) -> Option<String> {
        self.devices.get(&(vendor, device)).cloned()
    }
    fn source(&self) -> String {
        self.path.clone()
    }
}

/// Names for a host: an explicit file, else the host's own pci.ids (read through `fs`, so
/// inside a capture's root, bounded, and recorded by `gather`), else embedded. Lenient: an
/// explicit file that cannot be loaded falls back too (the CLI loads it with
/// [`IdsFile::open`] first and stops there).
pub fn for_root(fs: &SysFs, explicit: Option<&Path>) -> Box<dyn PciNames> {
    if let Some(p) = explicit
        && let Ok(f) = IdsFile::open(p)
    {
        return Box::new(f);
    }
    for rel in ["usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids"] {
        if let Ok(bytes) = fs.read_bytes(rel) {
            let f = IdsFile::parse(
                &String::from_utf8_lossy(&bytes),
                fs.root().join(rel).display().to_string(),
            );
            if !f.vendors.is_empty() {
                return Box::new(f);
            }
        }
    }
    Box::new(Embedded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_simple_format() {
        let t = "# comment\n8086  Intel Corporation\n\t37d2  Ethernet Connection X722 for 10GBASE-T\n\t\t1028 0000  sub\n10b5  PLX Technology, Inc.\n\t9797  PEX 9797\nC 01  Mass storage\n\t08  NVM\n";
        let f = IdsFile::parse(t, "x");
        assert_eq!(
            f.describe(Some(0x8086), Some(0x37d2)),
            "Intel Corporation Ethernet Connection X722 for 10GBASE-T"
        );
        assert_eq!(
            f.describe(Some(0x10b5), Some(0x1)),
            "PLX Technology, Inc. Device 0001"
        );
        assert_eq!(
            f.describe(Some(0x1234), Some(0x1)),
            "Vendor 1234 Device 0001"
        );
        assert_eq!(
            Embedded.vendor(0x8086).as_deref(),
            Some("Intel Corporation")
        );
    }
}
