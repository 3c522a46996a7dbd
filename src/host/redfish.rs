//! Redfish trees as DMTF's Redfish-Mockup-Creator writes them: one `index.json` per URI
//! below `redfish/v1/` (the root given may be the mockup root or the `v1` folder itself).
//!
//! Reading follows `@odata.id` links from the service root along the schema's own paths
//! (Systems -> Processors, Memory, Storage -> Drives; Chassis -> PCIeSlots, PCIeDevices ->
//! PCIeFunctions, Drives), inside the tree only: a link outside `/redfish/v1` or resolving
//! outside the root (a symlink) is not followed and becomes a note (LP0341); a link to a
//! resource the dump lacks is a note (LP0342). Every read is bounded ([`Limits`]: file size,
//! resource count, link depth); nothing is fetched from the network.
//!
//! Standard properties come first; the Dell OEM block adds a CPU affinity (`CPUAffinity`)
//! and, on a device that carries it, the id `102-0` is bus 102, device 0 (decimal); the HPE
//! OEM block adds bus, device and function numbers. What the tree does not say stays
//! unknown (a tree without bus numbers has no bus tree: LP0344).

use super::chassis::{
    Chassis, ChassisCpu, ChassisDevice, ChassisDrive, ChassisFunction, ChassisSlot,
};
use super::model::{Bdf, LinkState};
use super::source::{HostFacts, unlocated};
use crate::finding::{Code, Finding, Subject};
use crate::pcie::Gen;
use crate::source::{InputError, SourceFile};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

/// Bounds on one read of a tree.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest `index.json` read.
    pub max_file_bytes: u64,
    /// Most resources read.
    pub max_resources: usize,
    /// Longest chain of links followed from the service root.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 8 << 20,
            max_resources: 20_000,
            max_depth: 16,
        }
    }
}

/// What a Redfish tree says.
#[derive(Debug, Clone, Default)]
pub struct RedfishHost {
    pub facts: HostFacts,
    pub chassis: Chassis,
    pub findings: Vec<Finding>,
    /// Resources read.
    pub resources: usize,
}

struct Doc {
    file: String,
    v: Value,
}

struct Reader {
    base: PathBuf,
    limits: Limits,
    docs: BTreeMap<String, Option<Rc<Doc>>>,
    outside: BTreeSet<String>,
    missing: BTreeSet<String>,
}

/// The folder that holds the service root's `index.json`: `DIR/redfish/v1`, else `DIR`.
pub fn service_root(dir: &Path) -> Result<PathBuf, InputError> {
    for cand in [dir.join("redfish").join("v1"), dir.to_path_buf()] {
        if cand.join("index.json").is_file() {
            return std::fs::canonicalize(&cand)
                .map_err(|e| unlocated(dir, format!("cannot read {}: {e}", cand.display())));
        }
    }
    Err(unlocated(
        dir,
        format!(
            "{} is no Redfish tree: neither {0}/redfish/v1/index.json nor {0}/index.json exists",
            dir.display()
        ),
    )
    .with_help("give the folder a Redfish mockup was written to (Redfish-Mockup-Creator -D DIR), or its redfish/v1 folder"))
}

/// Reads the tree below `dir` with the default [`Limits`].
pub fn read(dir: &Path) -> Result<RedfishHost, InputError> {
    read_with(dir, Limits::default())
}

/// Reads the tree below `dir`.
pub fn read_with(dir: &Path, limits: Limits) -> Result<RedfishHost, InputError> {
    let base = service_root(dir)?;
    let mut r = Reader {
        base,
        limits,
        docs: BTreeMap::new(),
        outside: BTreeSet::new(),
        missing: BTreeSet::new(),
    };
    let root = r
        .get("/redfish/v1", 0)?
        .ok_or_else(|| unlocated(dir, "the service root index.json cannot be read".into()))?;
    let mut host = RedfishHost::default();
    let mut ch = Chassis::default();
    let mut links = Links::default();
    // Systems: processors, memory, storage (and the older system-level PCIeDevices).
    for sys in r.members(&root, "/Systems", 1)? {
        read_system(&mut r, &sys, &mut host, &mut ch, &mut links)?;
    }
    // Chassis: slots, devices, drives.
    for c in r.members(&root, "/Chassis", 1)? {
        read_chassis(&mut r, &c, &mut ch, &mut links)?;
    }
    for uri in &links.devices {
        let Some(d) = r.get(uri, 4)? else { continue };
        ch.devices.push(device(&mut r, &d, uri, &ch.slots)?);
    }
    for uri in &links.drives {
        let Some(d) = r.get(uri, 5)? else { continue };
        let mut drive = drive(&d, uri)?;
        drive.storage = links.storage_of.remove(uri).unwrap_or_default();
        ch.drives.push(drive);
    }
    let mut findings = super::chassis::judge(&mut ch);
    findings.extend(tree_findings(&r, dir, &ch));
    host.chassis = ch;
    host.findings = findings;
    host.resources = r.docs.values().filter(|d| d.is_some()).count();
    Ok(host)
}

/// The devices and drives the systems and chassis link to, in the order first seen, and the
/// storage services each drive is listed under.
#[derive(Default)]
struct Links {
    storage_of: BTreeMap<String, Vec<String>>,
    drives: Vec<String>,
    devices: Vec<String>,
}

/// One system: product and vendor (the first system's), CPUs and sockets, memory, the
/// drives of its storage services and its system-level PCIe devices.
fn read_system(
    r: &mut Reader,
    sys: &Doc,
    host: &mut RedfishHost,
    ch: &mut Chassis,
    links: &mut Links,
) -> Result<(), InputError> {
    if host.facts.product.is_none() {
        host.facts.product = str_at(sys, "/Model")?;
    }
    if host.facts.vendor.is_none() {
        host.facts.vendor = str_at(sys, "/Manufacturer")?;
    }
    let mut sockets = BTreeSet::new();
    for p in r.members(sys, "/Processors", 3)? {
        let kind = str_at(&p, "/ProcessorType")?;
        if kind.as_deref().is_some_and(|k| k != "CPU") {
            continue;
        }
        let cpu = ChassisCpu {
            id: id_of(&p)?,
            socket: str_at(&p, "/Socket")?,
            model: str_at(&p, "/Model")?,
            cores: u64_at(&p, "/TotalCores")?.and_then(|n| u32::try_from(n).ok()),
        };
        sockets.insert(cpu.socket.clone().unwrap_or_else(|| cpu.id.clone()));
        ch.cpus.push(cpu);
    }
    if !sockets.is_empty() {
        host.facts.sockets = u32::try_from(sockets.len()).ok();
    } else if let Some(n) = u64_at(sys, "/ProcessorSummary/Count")? {
        host.facts.sockets = u32::try_from(n).ok();
    }
    host.facts.cpu_model = ch
        .cpus
        .iter()
        .find_map(|c| c.model.clone())
        .or(str_at(sys, "/ProcessorSummary/Model")?);
    let mut mib = None;
    for m in r.members(sys, "/Memory", 3)? {
        if let Some(c) = u64_at(&m, "/CapacityMiB")?
            && c > 0
        {
            mib = Some(mib.unwrap_or(0) + c);
            ch.dimms += 1;
        }
    }
    ch.memory_mib = mib;
    for st in r.members(sys, "/Storage", 3)? {
        let sid = id_of(&st)?;
        for d in links_at(&st.v, "/Drives") {
            links
                .storage_of
                .entry(d.clone())
                .or_default()
                .push(sid.clone());
            push_new(&mut links.drives, d);
        }
    }
    for d in links_at(&sys.v, "/PCIeDevices") {
        push_new(&mut links.devices, d);
    }
    Ok(())
}

/// One chassis: its PCIe slots (with the devices they link), devices and drives.
fn read_chassis(
    r: &mut Reader,
    c: &Doc,
    ch: &mut Chassis,
    links: &mut Links,
) -> Result<(), InputError> {
    let cid = id_of(c)?;
    if let Some(u) = link_at(&c.v, "/PCIeSlots")
        && let Some(slots) = r.get(&u, 3)?
    {
        let Some(list) = slots.v.get("Slots") else {
            return Ok(());
        };
        let Some(list) = list.as_array() else {
            return Err(type_error(&slots, "/Slots", "an array", list));
        };
        for i in 0..list.len() {
            let p = |s: &str| format!("/Slots/{i}{s}");
            let devices = links_at(&slots.v, &p("/Links/PCIeDevice"));
            for d in &devices {
                push_new(&mut links.devices, d.clone());
            }
            ch.slots.push(ChassisSlot {
                chassis: cid.clone(),
                label: str_at(&slots, &p("/Location/PartLocation/ServiceLabel"))?,
                ordinal: u64_at(&slots, &p("/Location/PartLocation/LocationOrdinalValue"))?
                    .and_then(|n| u32::try_from(n).ok()),
                slot_type: str_at(&slots, &p("/SlotType"))?,
                generation: gen_at(&slots, &p("/PCIeType"))?,
                lanes: u64_at(&slots, &p("/Lanes"))?.and_then(|n| u8::try_from(n).ok()),
                state: str_at(&slots, &p("/Status/State"))?,
                cpu: dell_cpu(&slots, &p(""))?,
                devices,
            });
        }
    }
    if let Some(u) = link_at(&c.v, "/PCIeDevices")
        && let Some(col) = r.get(&u, 3)?
    {
        for d in links_at(&col.v, "/Members") {
            push_new(&mut links.devices, d);
        }
    }
    for d in links_at(&c.v, "/Links/Drives") {
        push_new(&mut links.drives, d);
    }
    if let Some(u) = link_at(&c.v, "/Drives")
        && let Some(col) = r.get(&u, 3)?
    {
        for d in links_at(&col.v, "/Members") {
            push_new(&mut links.drives, d);
        }
    }
    Ok(())
}

/// What the tree itself lacks: PCI addresses for every device (LP0344), links that point
/// outside it or to resources it does not hold.
fn tree_findings(r: &Reader, dir: &Path, ch: &Chassis) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !ch.devices.is_empty() && ch.devices.iter().all(|d| d.bdf.is_none()) {
        findings.push(
            Finding::of(
                Code::NoBusNumbers,
                format!(
                    "the Redfish tree gives no PCI addresses for its {} devices: the bus tree is unknown; devices are listed by slot",
                    ch.devices.len()
                ),
            )
            .with_help("a BMC whose OEM block carries bus numbers (Dell, HPE) fills it; else audit the host itself (sysfs, lspci)")
            .at_node(dir.display().to_string()),
        );
    }
    for u in &r.outside {
        findings.push(
            Finding::of(
                Code::LinkOutsideTree,
                format!("{u}: a link outside the tree, not followed"),
            )
            .about(Subject::Node { id: u.clone() })
            .at_node(u.clone()),
        );
    }
    if !r.missing.is_empty() {
        let list: Vec<&str> = r.missing.iter().map(String::as_str).collect();
        findings.push(
            Finding::of(
                Code::LinkMissing,
                format!(
                    "{} linked resource(s) not in the tree: {}",
                    list.len(),
                    list.join(", ")
                ),
            )
            .at_node(dir.display().to_string()),
        );
    }
    findings
}

fn push_new(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

fn device(
    r: &mut Reader,
    d: &Doc,
    uri: &str,
    slots: &[ChassisSlot],
) -> Result<ChassisDevice, InputError> {
    let width = |p: &str| -> Result<Option<u8>, InputError> {
        Ok(u64_at(d, p)?.and_then(|n| u8::try_from(n).ok()))
    };
    let link = link_state(
        gen_at(d, "/PCIeInterface/PCIeType")?,
        width("/PCIeInterface/LanesInUse")?,
    );
    let link_max = link_state(
        gen_at(d, "/PCIeInterface/MaxPCIeType")?,
        width("/PCIeInterface/MaxLanes")?,
    );
    let slot = slots
        .iter()
        .find(|s| s.devices.iter().any(|x| x == uri))
        .and_then(|s| s.label.clone())
        .or(str_at(d, "/Slot/Location/PartLocation/ServiceLabel")?);
    let id = str_at(d, "/Id")?;
    let has_dell = d.v.pointer("/Oem/Dell").is_some();
    // Dell: the id `102-0` is bus 102, device 0, in decimal.
    let mut bdf = if has_dell {
        id.as_deref().and_then(dell_bus)
    } else {
        None
    };
    if bdf.is_none() {
        bdf = hpe_bdf(d, "")?;
    }
    let mut functions = Vec::new();
    let mut fn_uris = links_at(&d.v, "/PCIeFunctions/Members");
    if let Some(u) = link_at(&d.v, "/PCIeFunctions")
        && let Some(col) = r.get(&u, 5)?
    {
        for m in links_at(&col.v, "/Members") {
            push_new(&mut fn_uris, m);
        }
    }
    for fu in fn_uris {
        let Some(f) = r.get(&fu, 6)? else { continue };
        let hex = |p: &str| -> Result<Option<u32>, InputError> {
            Ok(str_at(&f, p)?.and_then(|s| {
                u32::from_str_radix(
                    s.trim().trim_start_matches("0x").trim_start_matches("0X"),
                    16,
                )
                .ok()
            }))
        };
        let h16 = |p: &str| -> Result<Option<u16>, InputError> {
            Ok(hex(p)?.and_then(|n| u16::try_from(n).ok()))
        };
        let function = u64_at(&f, "/FunctionId")?.and_then(|n| u8::try_from(n).ok());
        let fbdf = hpe_bdf(&f, "")?.or(bdf.map(|b| Bdf {
            func: function.unwrap_or(0),
            ..b
        }));
        functions.push(ChassisFunction {
            id: fu.clone(),
            function,
            vendor: h16("/VendorId")?,
            device: h16("/DeviceId")?,
            subsystem_vendor: h16("/SubsystemVendorId")?,
            subsystem_device: h16("/SubsystemId")?,
            class: hex("/ClassCode")?,
            device_class: str_at(&f, "/DeviceClass")?,
            bdf: fbdf,
        });
    }
    let slot_cpu = slots
        .iter()
        .find(|s| s.devices.iter().any(|x| x == uri))
        .and_then(|s| s.cpu);
    Ok(ChassisDevice {
        id: uri.to_string(),
        name: str_at(d, "/Name")?,
        manufacturer: str_at(d, "/Manufacturer")?,
        model: str_at(d, "/Model")?,
        serial: str_at(d, "/SerialNumber")?,
        firmware: str_at(d, "/FirmwareVersion")?,
        device_type: str_at(d, "/DeviceType")?,
        link,
        link_max,
        link_status: Default::default(),
        slot,
        cpu: dell_cpu(d, "")?.or(slot_cpu),
        bdf,
        functions,
    })
}

fn drive(d: &Doc, uri: &str) -> Result<ChassisDrive, InputError> {
    let label = str_at(d, "/PhysicalLocation/PartLocation/ServiceLabel")?;
    let ordinal = u64_at(d, "/PhysicalLocation/PartLocation/LocationOrdinalValue")?
        .and_then(|n| u32::try_from(n).ok());
    // An HPE-style label names its bay: `Port=1I:Box=1:Bay=1`.
    let labelled_bay = label.as_deref().and_then(|l| {
        l.split(':')
            .find_map(|p| p.trim().strip_prefix("Bay="))
            .and_then(|n| n.trim().parse().ok())
    });
    Ok(ChassisDrive {
        id: uri.to_string(),
        name: str_at(d, "/Name")?,
        manufacturer: str_at(d, "/Manufacturer")?,
        model: str_at(d, "/Model")?,
        serial: str_at(d, "/SerialNumber")?,
        protocol: str_at(d, "/Protocol")?,
        media: str_at(d, "/MediaType")?,
        capacity_bytes: u64_at(d, "/CapacityBytes")?,
        state: str_at(d, "/Status/State")?,
        location: label,
        bay: ordinal.or(labelled_bay),
        location_type: str_at(d, "/PhysicalLocation/PartLocation/LocationType")?,
        cpu: dell_cpu(d, "")?,
        storage: Vec::new(),
    })
}

fn link_state(g: Option<Gen>, w: Option<u8>) -> Option<LinkState> {
    match (g, w) {
        (None, None) => None,
        (g, w) => Some(LinkState {
            speed: g,
            width: w.unwrap_or(0),
        }),
    }
}

/// `102-0` -> bus 102, device 0 (decimal), function 0.
fn dell_bus(id: &str) -> Option<Bdf> {
    let (b, d) = id.split_once('-')?;
    let bus: u8 = b.parse().ok()?;
    let dev: u8 = d.parse().ok()?;
    (dev <= 31).then_some(Bdf {
        domain: 0,
        bus,
        dev,
        func: 0,
    })
}

/// The Dell OEM CPU affinity at `at` (`Oem.Dell.CPUAffinity`, or one level deeper, as in
/// `Oem.Dell.DellPCIeFunction.CPUAffinity`): a number or a string holding one.
fn dell_cpu(d: &Doc, at: &str) -> Result<Option<u32>, InputError> {
    let Some(dell) = d.v.pointer(&format!("{at}/Oem/Dell")) else {
        return Ok(None);
    };
    let val = dell.get("CPUAffinity").or_else(|| {
        dell.as_object()?
            .values()
            .find_map(|v| v.get("CPUAffinity"))
    });
    Ok(match val {
        Some(Value::Number(n)) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Some(Value::String(s)) => s.trim().trim_start_matches("CPU").trim().parse().ok(),
        _ => None,
    })
}

/// The HPE OEM bus, device and function numbers (`Oem.Hpe.BusNumber` ...).
fn hpe_bdf(d: &Doc, at: &str) -> Result<Option<Bdf>, InputError> {
    let p = |k: &str| format!("{at}/Oem/Hpe/{k}");
    let (Some(bus), Some(dev)) = (u64_at(d, &p("BusNumber"))?, u64_at(d, &p("DeviceNumber"))?)
    else {
        return Ok(None);
    };
    let func = u64_at(d, &p("FunctionNumber"))?.unwrap_or(0);
    Ok(
        match (u8::try_from(bus), u8::try_from(dev), u8::try_from(func)) {
            (Ok(bus), Ok(dev), Ok(func)) if dev <= 31 && func <= 7 => Some(Bdf {
                domain: 0,
                bus,
                dev,
                func,
            }),
            _ => None,
        },
    )
}

impl Reader {
    /// The members of the collection linked at `ptr` of `doc`.
    fn members(&mut self, doc: &Doc, ptr: &str, depth: usize) -> Result<Vec<Rc<Doc>>, InputError> {
        let Some(u) = link_at(&doc.v, ptr) else {
            return Ok(Vec::new());
        };
        let Some(col) = self.get(&u, depth)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for m in links_at(&col.v, "/Members") {
            if let Some(d) = self.get(&m, depth + 1)? {
                out.push(d);
            }
        }
        Ok(out)
    }

    /// The resource at `uri`, read once; `None` for a link outside the tree or a resource
    /// the tree lacks (both noted).
    fn get(&mut self, uri: &str, depth: usize) -> Result<Option<Rc<Doc>>, InputError> {
        let key = uri
            .split('#')
            .next()
            .unwrap_or("")
            .trim_end_matches('/')
            .to_string();
        if let Some(d) = self.docs.get(&key) {
            return Ok(d.clone());
        }
        let Some(rest) = key.strip_prefix("/redfish/v1") else {
            self.outside.insert(uri.to_string());
            return Ok(None);
        };
        let rel = Path::new(rest.trim_start_matches('/'));
        if rel.components().any(|c| !matches!(c, Component::Normal(_)))
            || (!rest.is_empty() && !rest.starts_with('/'))
        {
            self.outside.insert(uri.to_string());
            return Ok(None);
        }
        if depth > self.limits.max_depth {
            return Err(unlocated(
                &self.base,
                format!(
                    "{uri}: links nest deeper than {} levels below the service root; the tree is refused",
                    self.limits.max_depth
                ),
            ));
        }
        if self.docs.len() >= self.limits.max_resources {
            return Err(unlocated(
                &self.base,
                format!(
                    "the tree holds more than {} resources; the read stops (at {uri})",
                    self.limits.max_resources
                ),
            ));
        }
        let path = self.base.join(rel).join("index.json");
        if !path.exists() {
            self.missing.insert(key.clone());
            self.docs.insert(key, None);
            return Ok(None);
        }
        match std::fs::canonicalize(&path) {
            Ok(c) if c.starts_with(&self.base) => {}
            _ => {
                self.outside.insert(uri.to_string());
                self.docs.insert(key, None);
                return Ok(None);
            }
        }
        let file = path.display().to_string();
        let text = crate::source::read_text(&path, self.limits.max_file_bytes)
            .map_err(|why| unlocated(&path, format!("{file}: {why}")))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| {
            let src = SourceFile::new(file.clone(), text.clone());
            let off = offset_of(&text, e.line(), e.column());
            let msg = e.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
            src.error(off..off, format!("malformed JSON: {msg}"))
        })?;
        if !v.is_object() {
            return Err(unlocated(
                &path,
                format!(
                    "{file}: a Redfish resource is a JSON object, this is {}",
                    kind(&v)
                ),
            ));
        }
        let d = Rc::new(Doc { file, v });
        self.docs.insert(key, Some(d.clone()));
        Ok(Some(d))
    }
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len())
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn type_error(d: &Doc, ptr: &str, want: &str, got: &Value) -> InputError {
    let mut shown = got.to_string();
    if shown.len() > 40 {
        shown.truncate(40);
        shown.push_str("...");
    }
    unlocated(
        Path::new(&d.file),
        format!(
            "{}: at JSON pointer {ptr}: expected {want}, found {} ({shown})",
            d.file,
            kind(got)
        ),
    )
}

fn str_at(d: &Doc, ptr: &str) -> Result<Option<String>, InputError> {
    match d.v.pointer(ptr) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Some(v) => Err(type_error(d, ptr, "a string", v)),
    }
}

fn u64_at(d: &Doc, ptr: &str) -> Result<Option<u64>, InputError> {
    match d.v.pointer(ptr) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| type_error(d, ptr, "a whole number", &Value::Number(n.clone()))),
        Some(v) => Err(type_error(d, ptr, "a whole number", v)),
    }
}

fn gen_at(d: &Doc, ptr: &str) -> Result<Option<Gen>, InputError> {
    let Some(s) = str_at(d, ptr)? else {
        return Ok(None);
    };
    match s
        .strip_prefix("Gen")
        .and_then(|n| n.parse().ok())
        .and_then(Gen::new)
    {
        Some(g) => Ok(Some(g)),
        None => Err(type_error(
            d,
            ptr,
            "a PCIe generation (Gen1 .. Gen6)",
            &Value::String(s),
        )),
    }
}

fn id_of(d: &Doc) -> Result<String, InputError> {
    Ok(str_at(d, "/@odata.id")?.unwrap_or_else(|| d.file.clone()))
}

/// The `@odata.id` of the link object at `ptr`.
fn link_at(v: &Value, ptr: &str) -> Option<String> {
    v.pointer(ptr)?
        .get("@odata.id")?
        .as_str()
        .map(str::to_string)
}

/// The `@odata.id`s of the array of link objects at `ptr`.
fn links_at(v: &Value, ptr: &str) -> Vec<String> {
    v.pointer(ptr)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|m| m.get("@odata.id")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dell_ids_are_decimal_bus_and_device() {
        assert_eq!(
            dell_bus("102-0").map(|b| b.to_string()),
            Some("0000:66:00.0".into())
        );
        assert_eq!(dell_bus("59-3").map(|b| b.short()), Some("3b:03.0".into()));
        assert_eq!(dell_bus("300-0"), None);
        assert_eq!(dell_bus("1-40"), None);
        assert_eq!(dell_bus("Slot1"), None);
    }
}
