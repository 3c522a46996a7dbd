//! Reader for `lspci -vvnn` text as found in support bundles (with or without `-D`).
//!
//! It understands the three LnkSta formats: before pciutils 3.6 (`Speed 8GT/s, Width x4,
//! TrErr- ...` on one line), 3.6-3.7 (`Speed 8GT/s (ok), Width x4 (ok)` with
//! `(downgraded)`), and 3.8+ (the same marks, also on `Speed unknown`); LnkCap, `NUMA node:`,
//! `Physical Slot:`, bridges' `Bus: primary=, secondary=, subordinate=`, DevCtl MaxPayload and
//! `Kernel driver in use:`. A dump has no parents: the tree is derived later from the bridges'
//! bus ranges. Lines it cannot read become findings; the parser never panics (fuzzed).
//!
//! Lines end in LF, CRLF or a lone CR (dumps that passed through old Mac or Windows tools),
//! and a leading UTF-8 byte-order mark is skipped. [`read_dump`] reads a file with a size cap
//! and refuses what is no dump at all (empty, binary, UTF-16, no PCI function) with a
//! located error.

use super::model::*;
use crate::finding::{Code, Finding, Location};
use crate::source::InputError;
use std::path::Path;

/// The lines of `text`, ended by LF, CRLF or a lone CR, without a leading UTF-8 BOM.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\n', '\r']) {
            Some(i) => {
                let line = &rest[..i];
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
                Some(line)
            }
            None => {
                let line = rest;
                rest = "";
                Some(line)
            }
        }
    })
}

/// Reads and parses the dump at `path` through the bounded reader
/// ([`crate::input::read_text`] with [`crate::input::LSPCI_DUMP`]: at most
/// [`super::fs::LSPCI_CAP`] bytes, a FIFO does not hang, a device is refused). An input that
/// is no `lspci` dump is an error: empty, UTF-16, binary, or without a single PCI function.
/// Stray bytes inside a dump (raw VPD bytes) are replaced and reported (LP0330), first among
/// the findings.
pub fn read_dump(path: &Path) -> Result<(HostScan, Vec<Finding>), InputError> {
    let input = read_dump_text(path)?;
    parse_input(&input)
}

/// The checked text of the dump at `path` (the bounded reader's rules, see [`read_dump`]),
/// before parsing; its [`crate::input::TextInput::findings`] say what was replaced.
pub fn read_dump_text(path: &Path) -> Result<crate::input::TextInput, InputError> {
    crate::input::read_text(path, &crate::input::LSPCI_DUMP)
}

/// [`parse`] for raw bytes, refusing what is no dump (see [`read_dump`]).
pub fn parse_bytes(bytes: &[u8], file: &str) -> Result<(HostScan, Vec<Finding>), InputError> {
    let input = crate::input::decode(bytes, file, &crate::input::LSPCI_DUMP)?;
    parse_input(&input)
}

/// Parses decoded dump text; no PCI function in it is an error.
pub fn parse_input(
    input: &crate::input::TextInput,
) -> Result<(HostScan, Vec<Finding>), InputError> {
    let file = input.file.as_str();
    let (scan, parsed) = parse(&input.text, file);
    if scan.functions.is_empty() {
        // Point at the first line that was read and refused, else the start.
        let (line, column) = parsed
            .iter()
            .find_map(|f| Some((f.location.line?, f.location.column.unwrap_or(1))))
            .unwrap_or((1, 1));
        let mut e = InputError::whole_file(
            file,
            "no PCI function in it: not an `lspci -vvnn` dump (no line like `00:00.0 Host bridge [0600]: ... [8086:2020]`)",
        )
        .with_help(crate::input::LSPCI_DUMP.help);
        e.line = line;
        e.column = column;
        return Err(e);
    }
    let mut findings = input.findings();
    findings.extend(parsed);
    Ok((scan, findings))
}

/// Parses a whole dump. `file` names the input in findings.
pub fn parse(text: &str, file: &str) -> (HostScan, Vec<Finding>) {
    let mut scan = HostScan::default();
    let mut findings = Vec::new();
    let mut cur: Option<PciFunction> = None;
    let mut label = String::new();
    let mut in_express = false;
    let bad = |findings: &mut Vec<Finding>, line_no: usize, msg: String| {
        findings.push(
            Finding::of(Code::LspciParse, msg)
                .with_help("the line was skipped; the rest of the dump was read")
                .at(Location {
                    file: Some(file.to_string()),
                    line: Some(line_no),
                    column: Some(1),
                    ..Default::default()
                }),
        );
    };
    // `Capabilities: <access denied>` (lspci run without root): the functions and the first
    // such line, and whether any link status was read at all (LP0335).
    let (mut denied, mut first_denied, mut link_lines) = (0usize, None, 0usize);
    let mut it = lines(text).enumerate().peekable();
    while let Some((i, line)) = it.next() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            // Some lspci versions print a blank line inside a block (after `L1SubCtl1:`):
            // the block goes on when the next line is indented. The next line as `lines`
            // ends it (LF, CRLF or a lone CR), like every other line.
            let next_indented = it
                .peek()
                .is_some_and(|(_, n)| n.starts_with([' ', '\t']) && !n.trim().is_empty());
            if !next_indented && let Some(f) = cur.take() {
                scan.functions.push(f);
            }
            continue;
        }
        if !line.starts_with([' ', '\t']) {
            if let Some(f) = cur.take() {
                scan.functions.push(f);
            }
            match parse_header(line) {
                Some(f) => cur = Some(f),
                None => bad(
                    &mut findings,
                    line_no,
                    format!("not an lspci device line: {:?}", clip(line)),
                ),
            }
            label.clear();
            in_express = false;
            continue;
        }
        let Some(f) = cur.as_mut() else {
            bad(
                &mut findings,
                line_no,
                format!("detail line outside any device: {:?}", clip(line)),
            );
            continue;
        };
        let t = line.trim();
        // The label of this line, if any (`LnkSta:`), else a continuation of the last one.
        if let Some((l, _)) = t.split_once(':')
            && !l.is_empty()
            && l.len() <= 24
            && !l.contains(' ')
        {
            label = l.to_string();
        } else if t.starts_with("Capabilities:") {
            label = "Capabilities".into();
        }
        if let Some(rest) = t.strip_prefix("Capabilities:") {
            if rest.trim() == "<access denied>" {
                denied += 1;
                first_denied.get_or_insert(line_no);
            }
            // `[40] Express (v2) Root Port`, not `[250 v1] Secondary PCI Express`.
            in_express = rest.contains("] Express");
            if in_express && let Some(t) = express_port_type(rest) {
                f.port_type = Some(t);
            }
            continue;
        }
        if let Some(msg) = detail(f, t, &label, in_express, &mut link_lines) {
            bad(&mut findings, line_no, msg);
        }
    }
    if let Some(f) = cur.take() {
        scan.functions.push(f);
    }
    if let Some(line) = first_denied {
        findings.push(
            Finding::of(
                Code::NotRootDump,
                format!(
                    "{denied} of {} functions show `Capabilities: <access denied>` and the dump has {link_lines} LnkSta line{}: it was not captured as root, so links, link capabilities and AER are unknown",
                    scan.functions.len(),
                    if link_lines == 1 { "" } else { "s" },
                ),
            )
            .with_help("capture it again as root: `sudo lspci -vvnn > lspci.txt`")
            .at(Location {
                file: Some(file.to_string()),
                line: Some(line),
                column: Some(1),
                ..Default::default()
            }),
        );
    }
    (scan, findings)
}

/// One indented line of the function `f`'s block: `label` is the line's label (or the last
/// one's, for a continuation), `in_express` whether it is inside the PCI Express capability.
/// An unreadable value is the message of an LP0312 finding (the line is skipped).
fn detail(
    f: &mut PciFunction,
    t: &str,
    label: &str,
    in_express: bool,
    link_lines: &mut usize,
) -> Option<String> {
    if let Some(rest) = t.strip_prefix("NUMA node:") {
        match rest.trim().parse::<i64>() {
            Ok(n) if n >= 0 => f.numa_node = u32::try_from(n).ok(),
            Ok(_) => {}
            Err(_) => return Some(format!("NUMA node {:?} is not a number", rest.trim())),
        }
    } else if let Some(rest) = t.strip_prefix("Physical Slot:") {
        f.slot = Some(rest.trim().to_string());
    } else if let Some(rest) = t.strip_prefix("Kernel driver in use:") {
        f.driver = Some(rest.trim().to_string());
    } else if let Some(rest) = t.strip_prefix("Subsystem:") {
        if let Some((v, d)) = last_ids(rest) {
            f.subsystem_vendor = Some(v);
            f.subsystem_device = Some(d);
            let tag = format!("[{v:04x}:{d:04x}]");
            f.subsystem_name = rest
                .find(&tag)
                .map(|i| rest[..i].trim().to_string())
                .filter(|n| !n.is_empty());
        }
    } else if let Some(rest) = t.strip_prefix("Bus:") {
        let get = |k: &str| {
            rest.split(',')
                .filter_map(|kv| kv.trim().split_once('='))
                .find(|(key, _)| *key == k)
                .and_then(|(_, v)| u8::from_str_radix(v.trim(), 16).ok())
        };
        match (get("secondary"), get("subordinate")) {
            (Some(s), Some(u)) => {
                // Secondary 0: a bridge the firmware left unconfigured.
                f.bus_range = (s != 0).then_some((s, u));
                f.is_bridge = true;
            }
            _ => return Some(format!("bridge bus numbers unreadable: {:?}", clip(t))),
        }
    } else if in_express && label == "SltCap" {
        // `SltCap: AttnBtn- ... HotPlug+ Surprise+` then `Slot #161, PowerLimit 75.000W; ...`
        let cap = f.slot_cap.get_or_insert_with(SlotCap::default);
        if t.contains("HotPlug+") {
            cap.hotplug = true;
        }
        if let Some(i) = t.find("Slot #") {
            let digits: String = t[i + "Slot #".len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .take(10)
                .collect();
            match digits.parse::<u32>() {
                Ok(n) => cap.number = Some(n),
                Err(_) => return Some(format!("SltCap: slot number unreadable: {:?}", clip(t))),
            }
        }
    } else if in_express && let Some(rest) = t.strip_prefix("LnkCap:") {
        match parse_link(rest) {
            Ok(l) => f.link_max = Some(l),
            Err(m) => return Some(format!("LnkCap: {m}")),
        }
    } else if in_express && let Some(rest) = t.strip_prefix("LnkSta:") {
        *link_lines += 1;
        match parse_link(rest) {
            Ok(l) => f.link = Some(l),
            Err(m) => return Some(format!("LnkSta: {m}")),
        }
    } else if in_express
        && label == "DevCtl"
        && let Some(i) = t.find("MaxPayload ")
    {
        let n = t[i + "MaxPayload ".len()..]
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u16>().ok());
        match n {
            Some(v) if crate::pcie::valid_mps(v) => f.mps = Some(v),
            _ => return Some(format!("DevCtl MaxPayload unreadable: {:?}", clip(t))),
        }
    }
    None
}

fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

/// `[8086:2020]`-style ids, the last pair on the line.
fn last_ids(s: &str) -> Option<(u16, u16)> {
    let mut best = None;
    let mut rest = s;
    while let Some(i) = rest.find('[') {
        let after = &rest[i + 1..];
        if let Some(j) = after.find(']') {
            let inner = &after[..j];
            if let Some((v, d)) = inner.split_once(':')
                && v.len() == 4
                && d.len() == 4
                && let (Ok(v), Ok(d)) = (u16::from_str_radix(v, 16), u16::from_str_radix(d, 16))
            {
                best = Some((v, d));
            }
            rest = &after[j..];
        } else {
            break;
        }
    }
    best
}

/// `00:1c.0 PCI bridge [0604]: Intel Corporation ... [8086:a190] (rev f9) (prog-if 00 [Normal decode])`
fn parse_header(line: &str) -> Option<PciFunction> {
    let (addr, rest) = line.split_once(' ')?;
    let bdf = Bdf::parse(addr)?;
    let mut f = PciFunction::new(bdf);
    // Class: the first `[xxxx]:`.
    let colon = rest.find("]: ")?;
    let open = rest[..colon].rfind('[')?;
    let class = u16::from_str_radix(&rest[open + 1..colon], 16).ok()?;
    let body = &rest[colon + 3..];
    let (v, d) = last_ids_before_rev(body)?;
    f.vendor = Some(v);
    f.device = Some(d);
    let prog = body
        .find("(prog-if ")
        .and_then(|i| body.get(i + 9..i + 11))
        .and_then(|p| u8::from_str_radix(p, 16).ok())
        .unwrap_or(0);
    f.class = Some(u32::from(class) << 8 | u32::from(prog));
    f.revision = body
        .find("(rev ")
        .and_then(|i| body.get(i + 5..i + 7))
        .and_then(|p| u8::from_str_radix(p, 16).ok());
    let name_end = body
        .find(&format!("[{v:04x}:{d:04x}]"))
        .unwrap_or(body.len());
    f.name = Some(body[..name_end].trim().to_string());
    f.is_bridge = class == 0x0604;
    Some(f)
}

/// The vendor:device pair of the header (before `(rev` and `(prog-if`).
fn last_ids_before_rev(body: &str) -> Option<(u16, u16)> {
    let end = body
        .find(" (rev ")
        .or_else(|| body.find(" (prog-if "))
        .unwrap_or(body.len());
    last_ids(&body[..end])
}

fn express_port_type(rest: &str) -> Option<PortType> {
    // `[40] Express (v2) Root Port (Slot+), MSI 00`
    let order = [
        (
            "Root Complex Integrated Endpoint",
            PortType::IntegratedEndpoint,
        ),
        ("Root Complex Event Collector", PortType::EventCollector),
        ("Legacy Endpoint", PortType::LegacyEndpoint),
        ("Root Port", PortType::RootPort),
        ("Upstream Port", PortType::Upstream),
        ("Downstream Port", PortType::Downstream),
        ("PCI-Express to PCI/PCI-X Bridge", PortType::PcieToPci),
        ("PCI/PCI-X to PCI-Express Bridge", PortType::PciToPcie),
        ("Endpoint", PortType::Endpoint),
    ];
    order
        .into_iter()
        .find(|(k, _)| rest.contains(k))
        .map(|(_, t)| t)
}

/// `Port #0, Speed 8GT/s, Width x4, ASPM ...` or `Speed 5GT/s (downgraded), Width x2 (ok)`.
pub fn parse_link(rest: &str) -> Result<LinkState, String> {
    let mut speed = None;
    let mut width = None;
    for part in rest.split(',') {
        let p = part.trim();
        if let Some(s) = p.strip_prefix("Speed ") {
            let s = s.split(" (").next().unwrap_or(s);
            speed = Some(parse_speed(s)?);
        } else if let Some(w) = p.strip_prefix("Width ") {
            let w = w.split(" (").next().unwrap_or(w);
            width = Some(parse_width(w)?);
        }
    }
    match (speed, width) {
        (Some(s), Some(w)) => Ok(LinkState { speed: s, width: w }),
        _ => Err(format!("no speed and width in {:?}", clip(rest.trim()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pcie::Gen;

    #[test]
    fn three_lnksta_formats() {
        let old =
            parse_link(" Speed 8GT/s, Width x4, TrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-")
                .unwrap();
        let mid = parse_link(" Speed 5GT/s (downgraded), Width x2 (ok)").unwrap();
        let new = parse_link(" Speed unknown (downgraded), Width x0 (downgraded)").unwrap();
        let g4 = parse_link(" Speed 16GT/s (ok), Width x4 (ok)").unwrap();
        assert_eq!(
            old,
            LinkState {
                speed: Some(Gen::G3),
                width: 4
            }
        );
        assert_eq!(
            mid,
            LinkState {
                speed: Some(Gen::G2),
                width: 2
            }
        );
        assert_eq!(
            new,
            LinkState {
                speed: None,
                width: 0
            }
        );
        assert_eq!(
            g4,
            LinkState {
                speed: Some(Gen::G4),
                width: 4
            }
        );
        assert!(parse_link(" ASPM L1").is_err());
    }

    #[test]
    fn header_lines() {
        let f = parse_header("00:1c.0 PCI bridge [0604]: Intel Corporation C620 Series Chipset Family PCI Express Root Port #1 [8086:a190] (rev f9) (prog-if 00 [Normal decode])").unwrap();
        assert_eq!(f.bdf().to_string(), "0000:00:1c.0");
        assert_eq!(f.ids(), "8086:a190");
        assert_eq!(f.class, Some(0x060400));
        assert_eq!(f.revision, Some(0xf9));
        assert_eq!(
            f.name.as_deref(),
            Some("Intel Corporation C620 Series Chipset Family PCI Express Root Port #1")
        );
        let g = parse_header("0000:3b:00.0 Non-Volatile memory controller [0108]: Micron Technology Inc 9300 [1344:51c3] (rev 02) (prog-if 02 [NVM Express])").unwrap();
        assert_eq!(g.class, Some(0x010802));
        assert!(parse_header("00:1f.").is_none());
        assert!(parse_header("garbage").is_none());
    }
}
