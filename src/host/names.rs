//! Vendor and device names. The host's own `pci.ids` wins when present, so names match what
//! `lspci` prints on that host; otherwise the database embedded by the `pci-ids` crate.

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

    pub fn load(path: &Path) -> Option<IdsFile> {
        let bytes = std::fs::read(path).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        Some(Self::parse(&text, path.display().to_string()))
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

/// Names for a host below `root`: an explicit file, else the host's pci.ids, else embedded.
pub fn for_root(root: &Path, explicit: Option<&Path>) -> Box<dyn PciNames> {
    if let Some(p) = explicit
        && let Some(f) = IdsFile::load(p)
    {
        return Box::new(f);
    }
    for rel in ["usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids"] {
        if let Some(f) = IdsFile::load(&root.join(rel)) {
            return Box::new(f);
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
