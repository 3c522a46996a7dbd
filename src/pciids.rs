//! Vendor and device names. The host's own `pci.ids` wins when present, so names match what
//! `lspci` prints on that host; otherwise the database embedded by the `pci-ids` crate.

use crate::source::InputError;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
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
        // The crate looks vendors up by a scan of all of them: index them once.
        static BY_ID: std::sync::OnceLock<HashMap<u16, &'static str>> = std::sync::OnceLock::new();
        BY_ID
            .get_or_init(|| {
                pci_ids::Vendors::iter()
                    .map(|v| (v.id(), v.name()))
                    .collect()
            })
            .get(&vendor)
            .map(|n| n.to_string())
    }
    fn device(&self, vendor: u16, device: u16) -> Option<String> {
        pci_ids::Device::from_vid_pid(vendor, device).map(|d| d.name().to_string())
    }
    fn source(&self) -> String {
        "embedded pci.ids (crate pci-ids)".into()
    }
}

/// A `pci.ids` file (vendor lines, tab-indented device lines; subsystems and the class
/// section are skipped). Parsed once, lazily: loading indexes the vendor lines only; a
/// vendor's device lines are parsed on its first lookup, so an audit pays for the vendors
/// its host has, not the whole database.
#[derive(Debug, Default)]
pub struct IdsFile {
    path: String,
    text: String,
    /// Vendor id -> (name, byte ranges of its device lines in `text`).
    vendors: HashMap<u16, (Range<usize>, Vec<Range<usize>>)>,
    /// Device names of the vendors looked up so far.
    devices: RefCell<HashMap<u16, HashMap<u16, String>>>,
}

impl IdsFile {
    /// The names in `text` (a pci.ids file read from `source`), or `None` when it names no
    /// vendor (an empty or foreign file).
    pub fn from_text(text: String, source: String) -> Option<Self> {
        let f = Self::index(text, source);
        (!f.vendors.is_empty()).then_some(f)
    }

    pub fn parse(text: &str, path: impl Into<String>) -> IdsFile {
        Self::index(text.to_string(), path.into())
    }

    fn index(text: String, path: String) -> IdsFile {
        let mut vendors: HashMap<u16, (Range<usize>, Vec<Range<usize>>)> = HashMap::new();
        // The vendor whose device lines are being passed, and where they began.
        let mut open: Option<(u16, usize)> = None;
        let close = |open: &mut Option<(u16, usize)>, at: usize, vendors: &mut HashMap<_, _>| {
            if let Some((v, start)) = open.take()
                && let Some((_, blocks)) = vendors.get_mut(&v)
            {
                let blocks: &mut Vec<Range<usize>> = blocks;
                blocks.push(start..at);
            }
        };
        let len = text.len();
        let mut pos = 0;
        while pos < len {
            let end = text[pos..].find('\n').map_or(len, |i| pos + i);
            let line = &text[pos..end];
            let next = (end + 1).min(len);
            if line.starts_with('#') || line.starts_with('\t') || line.trim().is_empty() {
                pos = next;
                continue;
            }
            close(&mut open, pos, &mut vendors);
            if line.starts_with("C ") {
                // The class section ends the vendor list.
                break;
            }
            if let Some((id, name)) = split_id(line) {
                let at = name.as_ptr() as usize - text.as_ptr() as usize;
                // A vendor listed twice: its last name, all its device lines (last wins).
                vendors.entry(id).or_default().0 = at..at + name.len();
                open = Some((id, next));
            }
            pos = next;
        }
        close(&mut open, pos, &mut vendors);
        IdsFile {
            path,
            text,
            vendors,
            devices: RefCell::default(),
        }
    }

    /// Loads a `pci.ids` named by the user (`--pci-ids`): a missing, unreadable or
    /// oversized file, a FIFO nobody writes, a device node, or a file without a single vendor
    /// line is an error, never a silent fallback to other names.
    pub fn open(path: &Path) -> Result<IdsFile, InputError> {
        let name = path.display().to_string();
        let bytes = crate::bounded::read_input(path, crate::bounded::PCI_IDS_CAP)
            .map_err(|why| InputError::unreadable(&name, &why))?;
        let f = Self::index(String::from_utf8_lossy(&bytes).into_owned(), name.clone());
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
        self.vendors
            .get(&vendor)
            .map(|(name, _)| self.text[name.clone()].to_string())
    }
    fn device(&self, vendor: u16, device: u16) -> Option<String> {
        let (_, blocks) = self.vendors.get(&vendor)?;
        let mut cache = self.devices.borrow_mut();
        let devs = cache.entry(vendor).or_insert_with(|| {
            let mut devs = HashMap::new();
            for line in blocks.iter().flat_map(|b| self.text[b.clone()].lines()) {
                let Some(rest) = line.strip_prefix('\t') else {
                    continue; // a comment or blank line inside the block
                };
                if rest.starts_with('\t') {
                    continue; // subsystem
                }
                if let Some((id, name)) = split_id(rest) {
                    devs.insert(id, name.to_string());
                }
            }
            devs
        });
        devs.get(&device).cloned()
    }
    fn source(&self) -> String {
        self.path.clone()
    }
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

    #[test]
    fn lazy_lookups_match_a_full_parse() {
        // A vendor listed twice, comments and blank lines inside blocks, a vendor with no
        // devices, an unparsable top-level line that ends a block, CRLF endings, classes.
        let t = "1000  First\r\n\t0001  a\r\n# c\n\n\t0002  b\n2000  Empty\nnot an id line\n\t0003  orphan\n1000  Again\n\t0002  b2\n\t\t1028 0000  sub\nC 01  Mass storage\n\t08  NVM\n";
        let f = IdsFile::parse(t, "x");
        assert_eq!(f.vendor(0x1000).as_deref(), Some("Again"));
        assert_eq!(f.device(0x1000, 0x0001).as_deref(), Some("a"));
        assert_eq!(f.device(0x1000, 0x0002).as_deref(), Some("b2"));
        assert_eq!(f.vendor(0x2000).as_deref(), Some("Empty"));
        assert_eq!(f.device(0x2000, 0x0003), None);
        assert_eq!(f.vendor(0x0001), None);
        assert_eq!(f.device(0x0008, 0x0000), None);
    }
}
