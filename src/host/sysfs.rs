//! The sysfs reader: PCI functions, slots, NVMe controllers, subsystems, namespaces, block
//! devices and mounts, read below a configurable root (`<root>/sys/...`, `<root>/proc/...`).
//!
//! Why not the `sysfs-class` crate: it hard-codes `/sys` (a gathered capture or a test fixture
//! cannot be read), knows nothing of link speed/width, NUMA nodes, bus numbers, physical
//! slots, the NVMe classes or AER counters, and one of its attribute macros panics on short
//! files. This reader is small, works on any root, records what it reads (for `gather`) and
//! turns every odd entry into a [`Finding`] instead of a panic or an abort.

use super::fs::{FsError, SysFs, join};
use super::model::*;
use crate::finding::{Code, Finding, Location, Severity};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const PCI_DEVICES: &str = "sys/bus/pci/devices";

/// Reads everything the audit needs. Never fails: problems come back as findings.
pub fn read_host(fs: &SysFs) -> (HostScan, Vec<Finding>) {
    let mut r = Reader {
        fs,
        findings: Vec::new(),
        view: None,
    };
    let mut scan = HostScan {
        has_parents: true,
        ..Default::default()
    };
    scan.functions = r.functions();
    r.slots(&mut scan.functions);
    let known: BTreeSet<Bdf> = scan.functions.iter().filter_map(|f| f.bdf).collect();
    scan.mounts = r.mounts();
    let (controllers, subsystems, blocks) =
        r.nvme_and_blocks(&known, &scan.mounts, &scan.functions);
    scan.controllers = controllers;
    scan.subsystems = subsystems;
    scan.blocks = blocks;
    (scan, r.findings)
}

struct Reader<'a> {
    fs: &'a SysFs,
    findings: Vec<Finding>,
    /// The listing of the function directory being read: its attributes open without a
    /// stat, and the absent ones (AER, bus numbers of endpoints) cost no syscall.
    view: Option<super::fs::DirView>,
}

/// The BDF-shaped components of a canonical path, in order.
fn bdfs_in_path(path: &str) -> Vec<Bdf> {
    path.split('/')
        .filter(|c| c.len() >= 12)
        .filter_map(Bdf::parse)
        .collect()
}

fn parse_hex_u16(s: &str) -> Option<u16> {
    u16::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok()
}

fn parse_hex_u32(s: &str) -> Option<u32> {
    u32::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok()
}

fn is_nvme_ctrl(name: &str) -> bool {
    name.strip_prefix("nvme")
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
}

/// `nvme1n1` -> Some((1, 1)); partitions and paths -> None.
fn nvme_ns(name: &str) -> Option<(u32, u32)> {
    let r = name.strip_prefix("nvme")?;
    let (a, b) = r.split_once('n')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// `nvme1c2n1` -> Some((1, 2, 1)).
fn nvme_path(name: &str) -> Option<(u32, u32, u32)> {
    let r = name.strip_prefix("nvme")?;
    let (a, rest) = r.split_once('c')?;
    let (c, n) = rest.split_once('n')?;
    Some((a.parse().ok()?, c.parse().ok()?, n.parse().ok()?))
}

impl Reader<'_> {
    fn problem(&mut self, node: Option<String>, err: &FsError, what: &str) {
        let mut f = Finding::of(Code::Unreadable, format!("{what}: {}", err.reason))
            .with_help("the entry was skipped; the rest of the audit goes on")
            .at(Location {
                node,
                file: Some(format!("/{}", err.path)),
                ..Default::default()
            });
        if err.reason == "symlink loop" {
            f = f
                .with_help("a symlink in the capture points back to itself; the entry was skipped");
        }
        self.findings.push(f);
    }

    fn odd(&mut self, node: Option<String>, path: &str, msg: String) {
        self.findings.push(
            Finding::of(Code::Unreadable, msg)
                .with_help("the value was ignored; the rest of the audit goes on")
                .at(Location {
                    node,
                    file: Some(format!("/{path}")),
                    ..Default::default()
                }),
        );
    }

    /// An optional attribute: missing is normal (older kernels), unreadable is reported.
    fn opt(&mut self, bdf: &str, dir: &str, name: &str) -> Option<String> {
        match self.get(dir, name) {
            Ok(s) => Some(s),
            Err(e) if e.is_missing() => None,
            Err(e) => {
                self.problem(Some(bdf.to_string()), &e, &format!("cannot read {name}"));
                None
            }
        }
    }

    /// Reads `dir/name`, through the listing when `dir` is the listed directory.
    fn get(&self, dir: &str, name: &str) -> Result<String, FsError> {
        match &self.view {
            Some(v) if v.canon() == dir => self.fs.read_in(v, name),
            _ => self.fs.read(&join(dir, name)),
        }
    }

    /// The list of function directories: `/sys/bus/pci/devices`, or a walk of
    /// `/sys/devices/pci*` where a capture lacks it.
    fn function_dirs(&mut self) -> Vec<(Bdf, String)> {
        let mut out = Vec::new();
        match self.fs.list(PCI_DEVICES) {
            Ok(names) => {
                for n in names {
                    match Bdf::parse(&n) {
                        Some(b) => out.push((b, join(PCI_DEVICES, &n))),
                        None => self.odd(
                            None,
                            &join(PCI_DEVICES, &n),
                            format!("`{n}` in /sys/bus/pci/devices is not a PCI address"),
                        ),
                    }
                }
            }
            Err(e) => {
                let tops = self.fs.list("sys/devices").unwrap_or_default();
                let tops: Vec<String> = tops.into_iter().filter(|t| t.starts_with("pci")).collect();
                if tops.is_empty() {
                    if !e.is_missing() {
                        self.problem(None, &e, "cannot list PCI devices");
                    }
                    return out;
                }
                self.findings.push(
                    Finding::with_severity(
                        Code::Unreadable,
                        Severity::Note,
                        "no /sys/bus/pci/devices: PCI functions found by walking /sys/devices/pci*",
                    )
                    .with_help("a partial capture; identities and links may be missing"),
                );
                let mut stack: Vec<(String, usize)> = tops
                    .into_iter()
                    .map(|t| (join("sys/devices", &t), 0))
                    .collect();
                while let Some((dir, depth)) = stack.pop() {
                    if depth > 32 {
                        continue;
                    }
                    for n in self.fs.list(&dir).unwrap_or_default() {
                        if let Some(b) = Bdf::parse(&n) {
                            let p = join(&dir, &n);
                            if self.fs.is_dir(&p) {
                                out.push((b, p.clone()));
                                stack.push((p, depth + 1));
                            }
                        }
                    }
                }
                out.sort();
            }
        }
        out
    }

    fn functions(&mut self) -> Vec<PciFunction> {
        let dirs = self.function_dirs();
        let known: BTreeSet<Bdf> = dirs.iter().map(|(b, _)| *b).collect();
        let mut out = Vec::with_capacity(dirs.len());
        for (bdf, dir) in dirs {
            let id = bdf.to_string();
            let canon = match self.fs.canonical(&dir) {
                Ok(c) => c,
                Err(e) => {
                    self.problem(Some(id), &e, "cannot resolve the function's directory");
                    continue;
                }
            };
            let path_bdfs = bdfs_in_path(&canon);
            if path_bdfs.last() != Some(&bdf) {
                self.odd(
                    Some(id.clone()),
                    &canon,
                    format!("{id} resolves to /{canon}, which does not end in its own address"),
                );
                continue;
            }
            let mut f = PciFunction::new(bdf);
            let ancestors = &path_bdfs[..path_bdfs.len() - 1];
            for a in ancestors.iter().rev() {
                if known.contains(a) {
                    f.parent = Some(*a);
                    break;
                }
                f.hidden_ancestors.push(*a);
            }
            self.attributes(&mut f, &canon);
            out.push(f);
        }
        out
    }

    fn attributes(&mut self, f: &mut PciFunction, dir: &str) {
        let id = f.bdf().to_string();
        let (have_config, config) = self.config(f, dir, &id);
        self.ids_and_class(f, dir, &id);
        if f.revision.is_none()
            && let Some(s) = self.opt(&id, dir, "revision")
        {
            f.revision = parse_hex_u16(&s).and_then(|v| u8::try_from(v).ok());
        }
        self.driver_and_net(f, dir, &id);
        if let Some(s) = self.opt(&id, dir, "numa_node") {
            match s.trim().parse::<i64>() {
                Ok(n) if n >= 0 => f.numa_node = u32::try_from(n).ok(),
                Ok(_) => {}
                Err(_) => self.odd(
                    Some(id.clone()),
                    &join(dir, "numa_node"),
                    format!("{id}: numa_node is {s:?}"),
                ),
            }
        }
        f.local_cpulist = self.opt(&id, dir, "local_cpulist");
        // The kernel's link attributes win; config space stays where they are garbage.
        if let Some(l) = self.link(&id, dir, "current_link_speed", "current_link_width") {
            f.link = Some(l);
        }
        if let Some(l) = self.link(&id, dir, "max_link_speed", "max_link_width") {
            f.link_max = Some(l);
        }
        // Bus numbers: the attributes for bridges (the kernel's view); endpoints have none.
        if !have_config || f.is_bridge {
            self.bus_numbers(f, dir, &id);
        }
        // Without a full config space read first, it fills in what the attributes lacked.
        if let Some(cfg) = config {
            apply_config(f, &cfg);
        }
        if f.class.is_some_and(|c| c >> 8 == 0x0604) {
            f.is_bridge = true;
        }
        f.aer = self.aer(dir, &id);
        self.view = None;
    }

    /// Reads the function's config space (the standard 256 bytes) into `f`, and opens the
    /// directory view the other attributes are read through. Whether it gave the header
    /// (64 bytes or more, not recording), else the short read to apply after the attributes.
    fn config(&mut self, f: &mut PciFunction, dir: &str, id: &str) -> (bool, Option<Vec<u8>>) {
        let id = id.to_string();
        let mut config: Option<Vec<u8>> = None;
        // Config space first: one read gives the ids, class, revision, header type, bus
        // numbers and the Express capability (as lspci reads it). The attribute files are
        // read only for what it did not give (no config file, or a short one), which keeps
        // a 2,000-function audit near lspci's file count.
        let mut have_config = false;
        // A directory that cannot be listed is read by path, attribute by attribute.
        self.view = self.fs.dir(dir).ok();
        let cfg = match &self.view {
            // The standard header and capability list: the extended space (4 KiB on a live
            // host, 78 % of a live audit's time in the kernel when read whole) holds nothing
            // the audit reports.
            Some(v) => self.fs.read_bytes_in(v, "config", Some(256)),
            None => self.fs.read_bytes(&join(dir, "config")),
        };
        match cfg {
            Ok(cfg) => {
                // Recording for `gather`: read every attribute too, so lspci can replay it.
                have_config = cfg.len() >= 64 && !self.fs.is_recording();
                if have_config {
                    apply_config(f, &cfg);
                } else {
                    config = Some(cfg);
                }
            }
            Err(e) if e.is_missing() => {}
            Err(e) => self.problem(Some(id.clone()), &e, "cannot read config space"),
        }
        (have_config, config)
    }

    /// Vendor, device, subsystem ids and class from their attribute files, where config
    /// space did not give them; the essential ones missing are one LP0301 finding.
    fn ids_and_class(&mut self, f: &mut PciFunction, dir: &str, id: &str) {
        let id = id.to_string();
        let mut missing = Vec::new();
        for (name, slot) in [
            ("vendor", &mut f.vendor),
            ("device", &mut f.device),
            ("subsystem_vendor", &mut f.subsystem_vendor),
            ("subsystem_device", &mut f.subsystem_device),
        ] {
            if slot.is_some() {
                continue;
            }
            let essential = matches!(name, "vendor" | "device");
            match self.get(dir, name) {
                Ok(s) => match parse_hex_u16(&s) {
                    Some(v) => *slot = Some(v),
                    None => self.odd(
                        Some(id.clone()),
                        &join(dir, name),
                        format!("{id}: {name} is {s:?}, not a 16-bit hex id"),
                    ),
                },
                Err(e) if e.is_missing() => {
                    if essential {
                        missing.push(name)
                    }
                }
                Err(e) => self.problem(Some(id.clone()), &e, &format!("cannot read {name}")),
            }
        }
        if f.class.is_none() {
            match self.get(dir, "class") {
                Ok(s) => match parse_hex_u32(&s).filter(|c| *c <= 0xff_ffff) {
                    Some(c) => f.class = Some(c),
                    None => self.odd(
                        Some(id.clone()),
                        &join(dir, "class"),
                        format!("{id}: class is {s:?}, not a 24-bit class code"),
                    ),
                },
                Err(e) if e.is_missing() => missing.push("class"),
                Err(e) => self.problem(Some(id.clone()), &e, "cannot read class"),
            }
        }
        if !missing.is_empty() {
            self.findings.push(
                Finding::of(
                    Code::Unreadable,
                    format!("{id}: no {} in its sysfs directory", missing.join(", ")),
                )
                .with_help(
                    "a partial capture or an odd kernel; the function is listed without them",
                )
                .at(Location {
                    node: Some(id.clone()),
                    file: Some(format!("/{dir}")),
                    ..Default::default()
                }),
            );
        }
    }

    /// The bound driver and the network interfaces (`net/eth0`) of the function.
    fn driver_and_net(&mut self, f: &mut PciFunction, dir: &str, id: &str) {
        let id = id.to_string();
        let driver = match &self.view {
            Some(v) => self.fs.read_link_in(v, "driver"),
            None => self.fs.read_link(&join(dir, "driver")),
        };
        match driver {
            Ok(t) => f.driver = t.rsplit('/').next().map(str::to_string),
            Err(e) if e.is_missing() => {}
            Err(e) => self.problem(Some(id.clone()), &e, "cannot read the driver link"),
        }
        // Network interfaces (`net/eth0`): the name node_exporter's network series carry.
        if self.view.as_ref().is_some_and(|v| v.has("net")) {
            let net = join(dir, "net");
            match self.fs.list(&net) {
                // Each interface is a directory (`gather` records it, so a replay has it).
                Ok(names) => {
                    f.net = names
                        .into_iter()
                        .filter(|n| self.fs.is_dir(&join(&net, n)))
                        .collect()
                }
                Err(e) if e.is_missing() => {}
                Err(e) => self.problem(Some(id.clone()), &e, "cannot list its net/ directory"),
            }
        }
    }

    /// A bridge's secondary and subordinate bus numbers from their attributes.
    fn bus_numbers(&mut self, f: &mut PciFunction, dir: &str, id: &str) {
        let sec = self.opt(id, dir, "secondary_bus_number");
        let sub = self.opt(id, dir, "subordinate_bus_number");
        if let (Some(a), Some(b)) = (sec, sub) {
            match (a.trim().parse::<u8>(), b.trim().parse::<u8>()) {
                // Secondary 0: a bridge the firmware left unconfigured.
                (Ok(0), Ok(_)) => f.is_bridge = true,
                (Ok(a), Ok(b)) => f.bus_range = Some((a, b)),
                _ => self.odd(
                    Some(id.to_string()),
                    &join(dir, "secondary_bus_number"),
                    format!("{id}: bus numbers {a:?}/{b:?} are not numbers"),
                ),
            }
        }
    }

    /// The AER counters (correctable, non-fatal, fatal) with their per-error details.
    fn aer(&mut self, dir: &str, id: &str) -> Option<Aer> {
        let mut aer: Option<Aer> = None;
        for (file, which) in [
            ("aer_dev_correctable", 0),
            ("aer_dev_nonfatal", 1),
            ("aer_dev_fatal", 2),
        ] {
            let Some(text) = self.opt(id, dir, file) else {
                continue;
            };
            match parse_aer(&text) {
                Ok((total, details)) => {
                    let a = aer.get_or_insert_with(Aer::default);
                    match which {
                        0 => a.correctable = total,
                        1 => a.nonfatal = total,
                        _ => a.fatal = total,
                    }
                    a.details.extend(details);
                }
                Err(m) => self.odd(
                    Some(id.to_string()),
                    &join(dir, file),
                    format!("{id}: {file}: {m}"),
                ),
            }
        }
        aer
    }

    fn link(&mut self, id: &str, dir: &str, speed: &str, width: &str) -> Option<LinkState> {
        let s = self.opt(id, dir, speed);
        let w = self.opt(id, dir, width);
        let (s, w) = (s?, w?);
        let sp = match parse_speed(&s) {
            Ok(g) => g,
            Err(m) => {
                self.odd(
                    Some(id.to_string()),
                    &join(dir, speed),
                    format!("{id}: {speed}: {m}"),
                );
                return None;
            }
        };
        let wd = match parse_width(&w) {
            Ok(w) => w,
            Err(m) => {
                self.odd(
                    Some(id.to_string()),
                    &join(dir, width),
                    format!("{id}: {width}: {m}"),
                );
                return None;
            }
        };
        Some(LinkState {
            speed: sp,
            width: wd,
        })
    }

    fn slots(&mut self, functions: &mut [PciFunction]) {
        let names = match self.fs.list("sys/bus/pci/slots") {
            Ok(n) => n,
            Err(e) if e.is_missing() => return,
            Err(e) => {
                self.problem(None, &e, "cannot list PCI slots");
                return;
            }
        };
        let mut by_dev: HashMap<(u32, u8, u8), String> = HashMap::new();
        for n in names {
            let p = format!("sys/bus/pci/slots/{n}/address");
            let addr = match self.fs.read(&p) {
                Ok(a) => a,
                // `control` and similar entries have no address.
                Err(e) if e.is_missing() => continue,
                Err(e) => {
                    self.problem(None, &e, &format!("cannot read slot {n}"));
                    continue;
                }
            };
            let parts: Vec<&str> = addr.trim().split(':').collect();
            let parsed = match parts.as_slice() {
                [d, b, v] => (|| {
                    let d = u32::from_str_radix(d, 16).ok()?;
                    let b = u8::from_str_radix(b, 16).ok()?;
                    let v = u8::from_str_radix(v, 16).ok()?;
                    Some((d, b, v))
                })(),
                // `dddd:bb`: a slot with nothing in it.
                [d, b]
                    if u32::from_str_radix(d, 16).is_ok() && u8::from_str_radix(b, 16).is_ok() =>
                {
                    continue;
                }
                _ => None,
            };
            match parsed {
                Some(k) => {
                    by_dev.insert(k, n);
                }
                None => self.odd(
                    None,
                    &p,
                    format!("slot {n}: address {addr:?} is not dddd:bb:dd"),
                ),
            }
        }
        for f in functions.iter_mut() {
            if let Some(s) = f.bdf.and_then(|b| by_dev.get(&b.device_key())) {
                f.slot = Some(s.clone());
            }
        }
    }

    fn mounts(&mut self) -> Vec<(String, String, String)> {
        let text = match self.fs.read("proc/mounts") {
            Ok(t) => t,
            Err(e) if e.is_missing() => return Vec::new(),
            Err(e) => {
                self.problem(None, &e, "cannot read /proc/mounts");
                return Vec::new();
            }
        };
        text.lines()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                Some((
                    it.next()?.to_string(),
                    unescape_mount(it.next()?),
                    it.next()?.to_string(),
                ))
            })
            .collect()
    }

    fn nvme_and_blocks(
        &mut self,
        known: &BTreeSet<Bdf>,
        mounts: &[(String, String, String)],
        functions: &[PciFunction],
    ) -> (Vec<NvmeController>, Vec<NvmeSubsystem>, Vec<BlockDev>) {
        let mut scan = NvmeScan::default();
        self.nvme_controllers(&mut scan);
        let subsystems = self.nvme_subsystems(&mut scan);
        self.class_blocks(&mut scan, known);
        let dirs = std::mem::take(&mut scan.block_dirs);
        let mut blocks = Vec::new();
        for (name, dir) in &dirs {
            blocks.push(self.block_dev(&mut scan, name, dir, functions));
        }
        let NvmeScan {
            mut ctrls,
            partitions,
            ..
        } = scan;
        for (part, disk) in &partitions {
            if let Some(b) = blocks.iter_mut().find(|b| &b.name == disk)
                && !b.partitions.contains(part)
            {
                b.partitions.push(part.clone());
            }
        }
        for b in blocks.iter_mut() {
            b.partitions.sort();
            for (dev, mp, _) in mounts {
                let Some(d) = dev.strip_prefix("/dev/") else {
                    continue;
                };
                if d == b.name || b.partitions.iter().any(|p| p == d) {
                    b.mounts.push(mp.clone());
                }
            }
        }
        for c in ctrls.values_mut() {
            c.namespaces.sort();
        }
        (ctrls.into_values().collect(), subsystems, blocks)
    }

    /// The controllers /sys/class/nvme lists, with their namespaces and multipath paths.
    fn nvme_controllers(&mut self, scan: &mut NvmeScan) {
        let names = match self.fs.list("sys/class/nvme") {
            Ok(n) => n,
            Err(e) if e.is_missing() => Vec::new(),
            Err(e) => {
                self.problem(None, &e, "cannot list /sys/class/nvme");
                Vec::new()
            }
        };
        for n in names {
            let dir = format!("sys/class/nvme/{n}");
            let canon = match self.fs.canonical(&dir) {
                Ok(c) => c,
                Err(e) => {
                    self.problem(Some(n.clone()), &e, &format!("cannot resolve {n}"));
                    continue;
                }
            };
            let mut c = NvmeController {
                name: n.clone(),
                ..Default::default()
            };
            c.pci = bdfs_in_path(&canon).last().copied();
            c.model = self.opt(&n, &canon, "model").map(|s| s.trim().to_string());
            c.serial = self.opt(&n, &canon, "serial").map(|s| s.trim().to_string());
            c.firmware = self
                .opt(&n, &canon, "firmware_rev")
                .map(|s| s.trim().to_string());
            c.transport = self.opt(&n, &canon, "transport");
            c.address = self.opt(&n, &canon, "address");
            if c.pci.is_none() && c.transport.as_deref() == Some("pcie") {
                c.pci = c.address.as_deref().and_then(Bdf::parse);
            }
            c.numa_node = self
                .opt(&n, &canon, "numa_node")
                .and_then(|s| s.trim().parse::<i64>().ok())
                .and_then(|v| u32::try_from(v).ok());
            for e in self.fs.list(&canon).unwrap_or_default() {
                if nvme_path(&e).is_some() {
                    scan.paths.insert(e.clone(), (n.clone(), join(&canon, &e)));
                } else if nvme_ns(&e).is_some() {
                    scan.block_dirs.insert(e.clone(), join(&canon, &e));
                    c.namespaces.push(e);
                }
            }
            scan.ctrls.insert(n, c);
        }
    }

    /// The subsystems /sys/class/nvme-subsystem lists; each names its controllers' subsystem.
    fn nvme_subsystems(&mut self, scan: &mut NvmeScan) -> Vec<NvmeSubsystem> {
        let mut subsystems = Vec::new();
        let names = match self.fs.list("sys/class/nvme-subsystem") {
            Ok(n) => n,
            Err(e) if e.is_missing() => Vec::new(),
            Err(e) => {
                self.problem(None, &e, "cannot list /sys/class/nvme-subsystem");
                Vec::new()
            }
        };
        for n in names {
            let dir = format!("sys/class/nvme-subsystem/{n}");
            let canon = match self.fs.canonical(&dir) {
                Ok(c) => c,
                Err(e) => {
                    self.problem(Some(n.clone()), &e, &format!("cannot resolve {n}"));
                    continue;
                }
            };
            let mut s = NvmeSubsystem {
                name: n.clone(),
                nqn: self
                    .opt(&n, &canon, "subsysnqn")
                    .map(|s| s.trim().to_string()),
                iopolicy: self.opt(&n, &canon, "iopolicy"),
                ..Default::default()
            };
            for e in self.fs.list(&canon).unwrap_or_default() {
                if is_nvme_ctrl(&e) {
                    if let Some(c) = scan.ctrls.get_mut(&e) {
                        c.subsystem = Some(n.clone());
                    }
                    s.controllers.push(e);
                } else if nvme_ns(&e).is_some() {
                    scan.block_dirs.insert(e.clone(), join(&canon, &e));
                    s.namespaces.push(e);
                }
            }
            subsystems.push(s);
        }

        subsystems
    }

    /// Block devices the class lists (older kernels put NVMe namespaces under the PCI
    /// function, with no /sys/class/nvme at all): disks on the PCI functions `known` or on
    /// NVMe subsystems, partitions by their disk.
    fn class_blocks(&mut self, scan: &mut NvmeScan, known: &BTreeSet<Bdf>) {
        let class_dir = if self.fs.is_dir("sys/class/block") {
            "sys/class/block"
        } else {
            "sys/block"
        };
        for n in self.fs.list(class_dir).unwrap_or_default() {
            if scan.block_dirs.contains_key(&n) {
                continue;
            }
            let p = join(class_dir, &n);
            // Virtual disks (loop, ram, zram) are not the audit's business.
            if self
                .fs
                .read_link(&p)
                .is_ok_and(|t| t.contains("/virtual/block/"))
            {
                continue;
            }
            let canon = match self.fs.canonical(&p) {
                Ok(c) => c,
                Err(e) => {
                    self.problem(
                        Some(n.clone()),
                        &e,
                        &format!("cannot resolve block device {n}"),
                    );
                    continue;
                }
            };
            // Only disks on PCI functions or NVMe subsystems (not loop, ram, pmem).
            let on_pci = bdfs_in_path(&canon).iter().any(|b| known.contains(b));
            if !on_pci && !canon.contains("nvme-subsystem") {
                continue;
            }
            if self.fs.exists(&join(&canon, "partition")) {
                let parent = crate::host::fs::split(&canon).0;
                let disk = crate::host::fs::split(parent).1.to_string();
                scan.partitions.insert(n, disk);
            } else {
                scan.block_dirs.insert(n, canon);
            }
        }
    }

    /// One block device: size, block size, holders, partitions, and its controllers (the one
    /// in its path, the multipath paths to it, or on old kernels the PCI function above it).
    fn block_dev(
        &mut self,
        scan: &mut NvmeScan,
        name: &String,
        dir: &str,
        functions: &[PciFunction],
    ) -> BlockDev {
        let canon = self.fs.canonical(dir).unwrap_or_else(|_| dir.to_string());
        let mut b = BlockDev {
            name: name.clone(),
            ..Default::default()
        };
        if let Some(s) = self.opt(name, &canon, "size") {
            match s.trim().parse::<u64>() {
                Ok(v) => b.size_sectors = Some(v),
                Err(_) => self.odd(
                    Some(name.clone()),
                    &join(&canon, "size"),
                    format!("{name}: size is {s:?}"),
                ),
            }
        }
        if let Some(s) = self.opt(name, &canon, "queue/logical_block_size") {
            match s.trim().parse::<u32>() {
                Ok(v) => b.logical_block_size = Some(v),
                Err(_) => self.odd(
                    Some(name.clone()),
                    &join(&canon, "queue/logical_block_size"),
                    format!("{name}: logical_block_size is {s:?}"),
                ),
            }
        }
        b.holders = self.fs.list(&join(&canon, "holders")).unwrap_or_default();
        for e in self.fs.list(&canon).unwrap_or_default() {
            if e.starts_with(name.as_str())
                && e != *name
                && self.fs.exists(&join(&canon, &join(&e, "partition")))
            {
                scan.partitions.insert(e, name.clone());
            }
        }
        // Controllers: the one in its path, or the multipath paths to it.
        if let Some(c) = canon.split('/').rev().find(|c| is_nvme_ctrl(c)) {
            b.controllers.push(c.to_string());
        }
        if let Some((a, z)) = nvme_ns(name) {
            for (pname, (ctrl, pdir)) in &scan.paths {
                if let Some((pa, _, pz)) = nvme_path(pname)
                    && pa == a
                    && pz == z
                {
                    let numa = self.opt(pname, pdir, "numa_nodes");
                    b.paths.push(NsPath {
                        name: pname.clone(),
                        controller: ctrl.clone(),
                        numa_nodes: numa,
                    });
                    if !b.controllers.contains(ctrl) {
                        b.controllers.push(ctrl.clone());
                    }
                    if let Some(c) = scan.ctrls.get_mut(ctrl)
                        && !c.namespaces.contains(name)
                    {
                        c.namespaces.push(name.clone());
                    }
                }
            }
        }
        // Old kernels: a namespace directly below its PCI function.
        if b.controllers.is_empty()
            && let Some(bdf) = bdfs_in_path(&canon).last()
            && let Some((a, _)) = nvme_ns(name)
        {
            let cname = format!("nvme{a}");
            let c = scan
                .ctrls
                .entry(cname.clone())
                .or_insert_with(|| NvmeController {
                    name: cname.clone(),
                    pci: Some(*bdf),
                    transport: Some("pcie".into()),
                    numa_node: functions
                        .iter()
                        .find(|f| f.bdf == Some(*bdf))
                        .and_then(|f| f.numa_node),
                    ..Default::default()
                });
            if !c.namespaces.contains(name) {
                c.namespaces.push(name.clone());
            }
            b.controllers.push(cname);
        }
        b
    }
}

/// `/proc/mounts` escapes spaces as `\040`.
fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\134", "\\")
}

/// Parses an `aer_dev_*` file: `NAME count` lines and a `TOTAL_ERR_*` line.
pub fn parse_aer(text: &str) -> Result<(u64, Vec<(String, u64)>), String> {
    let mut total = None;
    let mut sum: u64 = 0;
    let mut details = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut it = line.split_whitespace();
        let (Some(name), Some(count), None) = (it.next(), it.next(), it.next()) else {
            return Err(format!("line {line:?} is not `NAME count`"));
        };
        let count: u64 = count
            .parse()
            .map_err(|_| format!("count {count:?} of {name} is not a number"))?;
        if name.starts_with("TOTAL_") {
            total = Some(count);
        } else {
            sum = sum.saturating_add(count);
            if count > 0 {
                details.push((name.to_string(), count));
            }
        }
    }
    Ok((total.unwrap_or(sum), details))
}

/// Reads the header and the Express capability from config space bytes.
pub fn apply_config(f: &mut PciFunction, cfg: &[u8]) {
    let byte = |o: usize| cfg.get(o).copied();
    let word = |o: usize| Some(u16::from_le_bytes([byte(o)?, byte(o + 1)?]));
    if f.vendor.is_none() {
        f.vendor = word(0);
    }
    if f.device.is_none() {
        f.device = word(2);
    }
    if f.revision.is_none() {
        f.revision = byte(8);
    }
    if f.class.is_none()
        && let (Some(p), Some(s), Some(c)) = (byte(9), byte(10), byte(11))
    {
        f.class = Some(u32::from(c) << 16 | u32::from(s) << 8 | u32::from(p));
    }
    let header = byte(0x0e).map(|h| h & 0x7f);
    if header == Some(0) {
        if f.subsystem_vendor.is_none() {
            f.subsystem_vendor = word(0x2c);
        }
        if f.subsystem_device.is_none() {
            f.subsystem_device = word(0x2e);
        }
    }
    if header == Some(1) {
        f.is_bridge = true;
        if f.bus_range.is_none()
            && let (Some(s), Some(u)) = (byte(0x19), byte(0x1a))
            && s != 0
        {
            f.bus_range = Some((s, u));
        }
    }
    // Capability list (bit 4 of the status register).
    if word(6).is_none_or(|s| s & 0x10 == 0) {
        return;
    }
    let mut ptr = byte(0x34).map(|p| usize::from(p & 0xfc)).unwrap_or(0);
    let mut guard = 0;
    while ptr >= 0x40 && guard < 48 {
        guard += 1;
        let (Some(id), Some(next)) = (byte(ptr), byte(ptr + 1)) else {
            return;
        };
        if id == 0x10 {
            if let Some(caps) = word(ptr + 2) {
                f.port_type = PortType::from_field(((caps >> 4) & 0xf) as u8);
            }
            if let Some(ctl) = word(ptr + 8) {
                f.mps = Some(128u16 << ((ctl >> 5) & 0x7).min(5));
            }
            let link = |v: u32| LinkState {
                speed: crate::pcie::Gen::new((v & 0xf) as u8),
                width: ((v >> 4) & 0x3f) as u8,
            };
            if f.link_max.is_none()
                && let Some(lo) = word(ptr + 0x0c)
            {
                f.link_max = Some(link(u32::from(lo)));
            }
            if f.link.is_none()
                && let Some(st) = word(ptr + 0x12)
            {
                f.link = Some(link(u32::from(st)));
            }
            return;
        }
        ptr = usize::from(next & 0xfc);
    }
}

/// What the NVMe and block scan collects before the block devices are read.
#[derive(Default)]
struct NvmeScan {
    ctrls: BTreeMap<String, NvmeController>,
    /// Block devices to read: name -> directory.
    block_dirs: BTreeMap<String, String>,
    /// Multipath paths: path name -> (controller, dir).
    paths: BTreeMap<String, (String, String)>,
    /// Partition -> its disk.
    partitions: BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aer_files() {
        let t = "RxErr 2\nBadTLP 1\nBadDLLP 0\nTOTAL_ERR_COR 3\n";
        assert_eq!(
            parse_aer(t),
            Ok((3, vec![("RxErr".into(), 2), ("BadTLP".into(), 1)]))
        );
        assert_eq!(parse_aer("Undefined 0\n"), Ok((0, vec![])));
        assert!(parse_aer("RxErr lots\n").is_err());
        assert!(parse_aer("garbage\n").is_err());
    }

    #[test]
    fn nvme_names() {
        assert_eq!(nvme_ns("nvme1n1"), Some((1, 1)));
        assert_eq!(nvme_ns("nvme1n1p2"), None);
        assert_eq!(nvme_ns("nvme1c2n1"), None);
        assert_eq!(nvme_path("nvme1c2n1"), Some((1, 2, 1)));
        assert!(is_nvme_ctrl("nvme12") && !is_nvme_ctrl("nvme") && !is_nvme_ctrl("nvme0n1"));
    }
}
