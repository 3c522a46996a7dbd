//! hwloc XML (`lstopo --of xml`, `hwloc-gather-topology`): the PCI tree as hwloc holds it.
//!
//! * Host bridges (`bridge_type="0-1"`) are root buses; PCI bridges (`1-1`) and devices
//!   (`PCIDev`) are functions, each with its parent the nearest bridge above it (the tree is
//!   hwloc's, not rebuilt from bus ranges).
//! * `pci_type` is `CCCC [vvvv:dddd] [ssss:ssss] rr` (hwloc 2), hwloc 3 adds the
//!   programming interface (`... rr pp`): the class is `CCCCpp`.
//! * `pci_link_speed` is the current link in GB/s, no maximum and no generation or width
//!   (1.0 GB/s is Gen1 x4 or Gen2 x2): kept as it is, links are `unknown` (LP0343), never
//!   a guessed downtrain. `0.000000` is no figure at all.
//! * NUMA locality: the single NUMA node of the nearest ancestor's `nodeset`.
//! * `PCISlot` infos are the physical slot; OS devices of storage type (hwloc 2:
//!   `osdev_type="0"`, block; hwloc 3: bit 0 of the `osdev_type` mask) are disks, with
//!   `Size` (KiB), `SectorSize`, `Model` and `SerialNumber`.
//!
//! The file is read bounded (64 MiB, a million XML nodes); a malformed file is an error at
//! its line and column.

use super::model::*;
use super::source::{HostFacts, unlocated};
use crate::finding::{Code, Finding};
use crate::source::{InputError, SourceFile};
use roxmltree::Node;
use std::path::Path;

/// Largest hwloc XML read.
pub const MAX_BYTES: u64 = 64 << 20;
/// Most XML nodes parsed.
pub const MAX_NODES: u32 = 1_000_000;

/// What an hwloc XML file says.
#[derive(Debug, Clone, Default)]
pub struct HwlocHost {
    pub scan: HostScan,
    pub facts: HostFacts,
    pub disks: Vec<OsDisk>,
    pub findings: Vec<Finding>,
    /// The `version` of `<topology>` (`3.0`), `None` for hwloc 1.x files.
    pub version: Option<String>,
}

/// Reads the file at `path`.
pub fn read(path: &Path) -> Result<HwlocHost, InputError> {
    let name = if path.as_os_str() == "-" {
        crate::input::STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    };
    let text = crate::source::read_text(path, MAX_BYTES)
        .map_err(|why| unlocated(path, format!("{name}: {why}")))?;
    parse(&text, &name)
}

/// Parses hwloc XML text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<HwlocHost, InputError> {
    let opts = roxmltree::ParsingOptions {
        // hwloc writes `<!DOCTYPE topology SYSTEM "hwloc2.dtd">`; nothing external is read.
        allow_dtd: true,
        nodes_limit: MAX_NODES,
        ..Default::default()
    };
    let src = SourceFile::new(file.to_string(), text.to_string());
    let doc = roxmltree::Document::parse_with_options(text, opts).map_err(|e| {
        let pos = e.pos();
        let off = offset_of(text, pos.row as usize, pos.col as usize);
        src.error(off..off, format!("malformed XML: {e}"))
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "topology" {
        return Err(src.error(
            root.range().start..root.range().start,
            format!(
                "not an hwloc topology: the root element is <{}>",
                root.tag_name().name()
            ),
        ));
    }
    let version = root.attribute("version").map(str::to_string);
    let major: u32 = version
        .as_deref()
        .and_then(|v| v.split('.').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut w = Walk {
        src: &src,
        major,
        host: HwlocHost {
            version,
            ..Default::default()
        },
    };
    for obj in root.children().filter(|n| is_object(n)) {
        w.object(obj, None, None)?;
    }
    let mut host = w.host;
    host.scan.has_parents = true;
    host.scan.current_links_only = true;
    let judged = host
        .scan
        .functions
        .iter()
        .filter(|f| f.link_gbps.is_some())
        .count();
    if judged > 0 {
        host.findings.push(
            Finding::of(
                Code::CurrentLinkOnly,
                format!(
                    "hwloc gives the current link speed only ({judged} links, in GB/s): no maximum, so no downtrain can be judged"
                ),
            )
            .with_help("audit the host itself (sysfs or `lspci -vvnn`) to compare each link with its maximum")
            .at_node(file.to_string()),
        );
    }
    Ok(host)
}

fn is_object(n: &Node) -> bool {
    n.is_element() && n.tag_name().name() == "object"
}

struct Walk<'a> {
    src: &'a SourceFile,
    major: u32,
    host: HwlocHost,
}

/// One `<info name=.. value=..>` child.
fn info<'a>(n: &Node<'a, '_>, name: &str) -> Option<&'a str> {
    n.children()
        .filter(|c| c.is_element() && c.tag_name().name() == "info")
        .find(|c| c.attribute("name") == Some(name))
        .and_then(|c| c.attribute("value"))
}

/// The single NUMA node of a nodeset (`0x00000002` -> 1; comma-separated 32-bit words, the
/// highest first); `None` for none or several.
pub fn single_node(nodeset: &str) -> Option<u32> {
    let words: Vec<&str> = nodeset.split(',').collect();
    let mut found = None;
    for (k, w) in words.iter().rev().enumerate() {
        let w = w.trim().trim_start_matches("0x");
        if w.is_empty() {
            continue;
        }
        let v = u32::from_str_radix(w, 16).ok()?;
        if v == 0 {
            continue;
        }
        if v.count_ones() != 1 || found.is_some() {
            return None;
        }
        found = Some(k as u32 * 32 + v.trailing_zeros());
    }
    found
}

/// `0000:[2b-3b]` -> (secondary, subordinate).
fn bus_range(s: &str) -> Option<(u8, u8)> {
    let (_, r) = s.split_once('[')?;
    let (a, b) = r.trim_end_matches(']').split_once('-')?;
    Some((
        u8::from_str_radix(a, 16).ok()?,
        u8::from_str_radix(b, 16).ok()?,
    ))
}

/// `pci_type`: class, ids, subsystem ids, revision and (hwloc 3) prog-if.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PciType {
    pub class: u32,
    pub vendor: u16,
    pub device: u16,
    pub subsystem_vendor: u16,
    pub subsystem_device: u16,
    pub revision: u8,
}

pub fn parse_pci_type(s: &str) -> Option<PciType> {
    let t: Vec<&str> = s.split_whitespace().collect();
    if t.len() < 4 {
        return None;
    }
    let class16 = u16::from_str_radix(t[0], 16).ok()?;
    let pair = |x: &str| -> Option<(u16, u16)> {
        let (a, b) = x.strip_prefix('[')?.strip_suffix(']')?.split_once(':')?;
        Some((
            u16::from_str_radix(a, 16).ok()?,
            u16::from_str_radix(b, 16).ok()?,
        ))
    };
    let (vendor, device) = pair(t[1])?;
    let (subsystem_vendor, subsystem_device) = pair(t[2])?;
    let revision = u8::from_str_radix(t[3], 16).ok()?;
    let progif = match t.get(4) {
        Some(p) => u8::from_str_radix(p, 16).ok()?,
        None => 0,
    };
    Some(PciType {
        class: (u32::from(class16) << 8) | u32::from(progif),
        vendor,
        device,
        subsystem_vendor,
        subsystem_device,
        revision,
    })
}

impl Walk<'_> {
    fn err(&self, n: &Node, msg: String) -> InputError {
        let at = n.range().start;
        self.src.error(at..at, msg)
    }

    /// Walks `n` with the nearest PCI bridge above it and the NUMA node of its locality.
    fn object(
        &mut self,
        n: Node,
        bridge: Option<Bdf>,
        numa: Option<u32>,
    ) -> Result<(), InputError> {
        let ty = n.attribute("type").unwrap_or("");
        let numa = match ty {
            "Bridge" | "PCIDev" | "OSDev" | "Misc" => numa,
            _ => n.attribute("nodeset").map(single_node).unwrap_or(numa),
        };
        match ty {
            "Machine" => {
                if let Some(p) = info(&n, "DMIProductName") {
                    self.host.facts.product = Some(p.trim().to_string()).filter(|s| !s.is_empty());
                }
                if let Some(v) = info(&n, "DMISysVendor") {
                    self.host.facts.vendor = Some(v.trim().to_string()).filter(|s| !s.is_empty());
                }
            }
            "Package" => {
                self.host.facts.sockets = Some(self.host.facts.sockets.unwrap_or(0) + 1);
                if self.host.facts.cpu_model.is_none() {
                    self.host.facts.cpu_model = info(&n, "CPUModel").map(|s| s.trim().to_string());
                }
            }
            _ => {}
        }
        let mut below = bridge;
        if matches!(ty, "Bridge" | "PCIDev")
            && let Some(busid) = n.attribute("pci_busid")
        {
            let bdf = Bdf::parse(busid)
                .ok_or_else(|| self.err(&n, format!("pci_busid {busid:?} is not a PCI address")))?;
            let mut f = PciFunction::new(bdf);
            if let Some(t) = n.attribute("pci_type") {
                let t = parse_pci_type(t).ok_or_else(|| {
                    self.err(
                        &n,
                        format!("pci_type {t:?} is not `CCCC [vvvv:dddd] [ssss:ssss] rr [pp]`"),
                    )
                })?;
                f.class = Some(t.class);
                f.vendor = Some(t.vendor);
                f.device = Some(t.device);
                f.subsystem_vendor = Some(t.subsystem_vendor);
                f.subsystem_device = Some(t.subsystem_device);
                f.revision = Some(t.revision);
            }
            if let Some(sp) = n.attribute("pci_link_speed") {
                let v: f64 = sp
                    .trim()
                    .parse()
                    .map_err(|_| self.err(&n, format!("pci_link_speed {sp:?} is not a number")))?;
                f.link_gbps = (v.is_finite() && v > 0.0).then_some(v);
            }
            if ty == "Bridge" {
                f.is_bridge = true;
                f.bus_range = n.attribute("bridge_pci").and_then(bus_range);
            }
            f.parent = bridge;
            f.numa_node = numa;
            f.slot = info(&n, "PCISlot").map(|s| s.trim().to_string());
            self.host.scan.functions.push(f);
            below = Some(bdf);
        }
        if ty == "OSDev" {
            self.osdev(&n, bridge);
        }
        for c in n.children().filter(|c| is_object(c)) {
            self.object(c, below, numa)?;
        }
        Ok(())
    }

    /// A storage OS device below PCI function `pci`.
    fn osdev(&mut self, n: &Node, pci: Option<Bdf>) {
        let ty: u32 = n
            .attribute("osdev_type")
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(u32::MAX);
        // hwloc 2: an enum, 0 = block; hwloc 3: a mask, bit 0 = storage.
        let storage = if self.major >= 3 {
            ty != u32::MAX && ty & 1 == 1
        } else {
            ty == 0
        };
        if !storage {
            return;
        }
        let Some(name) = n.attribute("name") else {
            return;
        };
        let size_kib = info(n, "Size")
            .and_then(|s| s.trim().strip_suffix("KiB"))
            .and_then(|s| s.trim().parse::<u64>().ok());
        let disk = OsDisk {
            name: name.to_string(),
            pci,
            subtype: n.attribute("subtype").map(str::to_string),
            model: info(n, "Model").map(|s| s.trim().to_string()),
            serial: info(n, "SerialNumber").map(|s| s.trim().to_string()),
            size_bytes: size_kib.map(|k| k.saturating_mul(1024)),
            sector_size: info(n, "SectorSize").and_then(|s| s.trim().parse().ok()),
        };
        // An NVMe namespace: its controller is the PCI function (hwloc names no controller).
        let nvme_fn = pci.and_then(|b| {
            self.host
                .scan
                .functions
                .iter()
                .find(|f| f.bdf == Some(b) && f.class.map(|c| c >> 8) == Some(0x0108))
        });
        if let (Some(b), Some(_)) = (pci, nvme_fn) {
            let cname = b.to_string();
            self.host.scan.blocks.push(BlockDev {
                name: disk.name.clone(),
                size_sectors: disk.size_bytes.map(|s| s / 512),
                logical_block_size: disk.sector_size,
                controllers: vec![cname.clone()],
                ..Default::default()
            });
            match self
                .host
                .scan
                .controllers
                .iter_mut()
                .find(|c| c.pci == Some(b))
            {
                Some(c) => c.namespaces.push(disk.name.clone()),
                None => self.host.scan.controllers.push(NvmeController {
                    name: cname,
                    pci: Some(b),
                    transport: Some("pcie".into()),
                    model: disk.model.clone(),
                    serial: disk.serial.clone(),
                    numa_node: None,
                    namespaces: vec![disk.name.clone()],
                    ..Default::default()
                }),
            }
        }
        self.host.disks.push(disk);
    }
}

/// The disks as text: name, the PCI function above it, size, model.
pub fn render_disks(disks: &[OsDisk]) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect()
    };
    let mut s = String::from("Disks (hwloc)\n");
    for d in disks {
        s.push_str(&format!(
            "  {:<10} {:<14} {:>10}  {}\n",
            clean(&d.name),
            d.pci.map(|b| b.to_string()).unwrap_or_else(|| "-".into()),
            d.size_bytes
                .map(|b| format!("{:.0} GB", b as f64 / 1e9))
                .unwrap_or_else(|| "-".into()),
            clean(d.model.as_deref().unwrap_or("-"))
        ));
    }
    s
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let line_text = &text[start.min(text.len())..];
    let col: usize = line_text
        .chars()
        .take(column.saturating_sub(1))
        .map(char::len_utf8)
        .sum();
    (start + col).min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodesets() {
        assert_eq!(single_node("0x00000001"), Some(0));
        assert_eq!(single_node("0x00000002"), Some(1));
        assert_eq!(single_node("0x00000003"), None);
        assert_eq!(single_node("0x00000001,0x00000000"), Some(32));
        assert_eq!(single_node("0x0"), None);
    }

    #[test]
    fn pci_types_of_both_versions() {
        let v3 = parse_pci_type("0108 [8086:0953] [8086:3709] 01 02").unwrap();
        assert_eq!(
            (v3.class, v3.vendor, v3.device, v3.revision),
            (0x010802, 0x8086, 0x0953, 1)
        );
        let v2 = parse_pci_type("0302 [10de:1db8] [10de:131d] a1").unwrap();
        assert_eq!((v2.class, v2.subsystem_device), (0x030200, 0x131d));
        assert_eq!(parse_pci_type("0302 [10de:1db8]"), None);
        assert_eq!(bus_range("0000:[2b-3b]"), Some((0x2b, 0x3b)));
    }
}
