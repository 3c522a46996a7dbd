//! Which variant of a platform a host is, and where the host contradicts the platform file.
//!
//! A platform's options (`[[option]]`) are its factory variants (risers, fronts) and host
//! settings (`setting = true`: EPYC NPS, which renumbers NUMA nodes and rewires nothing).
//! The host's evidence:
//! * every physical slot number it reports (lspci `Physical Slot:` on a port or a device,
//!   Slot Capabilities `Slot #`, sysfs `slots/*/address`; on EPYC the dummy host bridge of a
//!   hidden, empty port reports its slot too) and the root port that carries it;
//! * the NUMA node each root complex's functions report.
//!
//! Each choice is scored by the slots and bay ports it places where the host has them (a
//! slot on a port under the root complex's `locator`, at its electrical width) and, for a
//! setting, by the root complexes whose NUMA node it explains. A port narrower than its slot
//! may be one of the slot's bifurcated ports; one wider contradicts it. Per option the choice with
//! the most evidence and no contradiction wins; ties keep the default. What no choice allows
//! is a finding (LP0350-LP0354), located at the platform file's line to correct, with the
//! host's side and the platform's side as data.

use crate::finding::{Code, Finding, Location, Subject};
use crate::host::audit::{Audit, FunctionReport};
use crate::host::tree::FnKind;
use crate::pci::{Bdf, PciIds};
use crate::platform::schema::{
    BayGroupDef, ChoiceDef, PlatformFile, RootComplexDef, SlotDef, Via, parse_bay_list,
};
use crate::platform::{Platform, span};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// How the host told a function's physical slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlotEvidence {
    /// `Physical Slot:` (lspci) or `slots/*/address` (sysfs) on the port itself.
    PhysicalSlotOnPort,
    /// `Physical Slot:` on the device below the port.
    PhysicalSlotOnDevice,
    /// The port's Slot Capabilities (`SltCap ... Slot #N`).
    SlotCapabilities,
    /// A host bridge function at the hidden port's device number (EPYC hides an empty
    /// slot's root port; its dummy host bridge keeps the slot number).
    HostBridge,
}

/// A physical slot number the host reports, with the function that stands for its port.
#[derive(Debug, Clone, Serialize)]
pub struct HostSlot {
    pub slot_number: u32,
    /// The port (or the host bridge of a hidden port).
    #[serde(serialize_with = "crate::pci::ser_bdf")]
    pub bdf: crate::pci::Bdf,
    pub by: SlotEvidence,
    /// The port's maximum link width, where it has a link.
    pub width: Option<u8>,
    pub numa_node: Option<u32>,
    /// A device below the port (the card), if any.
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub device: Option<crate::pci::Bdf>,
}

/// The platform's side of a place: the definition, where it is in the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformSide {
    pub file: String,
    pub line: usize,
    /// The slot, bay group or root complex id (a bay group: its `bays` list).
    pub id: String,
    /// The option value that defines it (`riser1=1B`), or none for the base platform.
    pub variant: Option<String>,
    pub root_complex: Option<String>,
    pub locator: Vec<String>,
    pub width: Option<u8>,
    pub numa_nodes: Vec<u32>,
}

/// One contradiction: the host's side and every platform definition it was held against.
#[derive(Debug, Clone, Serialize)]
pub struct Contradiction {
    pub code: Code,
    pub host: HostSlotSide,
    pub platform: Vec<PlatformSide>,
}

/// The host's side of a contradiction.
#[derive(Debug, Clone, Serialize)]
pub struct HostSlotSide {
    /// The address, or for a root complex its first locator (`0000:3a`).
    pub bdf: String,
    pub slot_number: Option<u32>,
    pub width: Option<u8>,
    pub numa_node: Option<u32>,
    #[serde(serialize_with = "crate::pci::ser_opt_bdf")]
    pub device: Option<Bdf>,
}

/// How one choice of an option fares against the host.
#[derive(Debug, Clone, Serialize)]
pub struct ChoiceScore {
    pub value: String,
    /// Places and root complexes it puts where the host has them.
    pub matched: usize,
    /// Places and root complexes where the host shows otherwise.
    pub contradicted: usize,
}

/// The value of one option the host matches.
#[derive(Debug, Clone, Serialize)]
pub struct OptionMatch {
    pub key: String,
    /// The matched choice; `None` when every choice is contradicted.
    pub value: Option<String>,
    /// Whether the value was told by evidence (else the default, nothing contradicting it).
    pub evidence: bool,
    /// A host setting (NPS), not a wiring.
    pub setting: bool,
    /// A host variant (a riser configuration): `place` searches it only when named.
    pub host_variant: bool,
    /// The option's default value.
    #[serde(skip)]
    pub default: String,
    pub choices: Vec<ChoiceScore>,
}

/// Where one reported physical slot landed.
#[derive(Debug, Clone, Serialize)]
pub struct PlaceMatch {
    #[serde(flatten)]
    pub host: HostSlot,
    /// `slot1`, `Bay 3` (bay groups by index), or none.
    pub place: Option<String>,
    pub status: PlaceStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlaceStatus {
    /// On the root port and at the width the matched variant gives it.
    Ok,
    /// The platform has the slot number, but on another root port or width.
    Contradicted,
    /// No slot or bay of the platform has this number.
    Unmodelled,
}

/// How the platform was chosen when `--platform` named none: the host's DMI product name
/// (and vendor) and the platform file's line that lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Picked {
    pub platform: String,
    /// `dmi-product-name`.
    pub by: &'static str,
    pub product: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
    pub file: String,
    /// The line of the platform file's `dmi_names`.
    pub line: usize,
}

/// The platform a host's DMI product name tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick {
    Picked(Picked),
    /// The host names a product no platform file lists (with that vendor).
    NoMatch {
        product: String,
        vendor: Option<String>,
        /// Platforms that list the product under another vendor.
        other_vendor: Vec<String>,
    },
    /// The source has no product name (an lspci dump).
    NoProduct,
}

/// The platform whose file lists the host's DMI product name in `dmi_names` (whole,
/// case-insensitively) and, where the file lists vendors and the host names one, its
/// vendor in `dmi_vendors`. Platforms are tried in id order; a name no file lists is no
/// match, never a guess from the name's words.
pub fn pick(catalog: &crate::platform::Catalog, audit: &Audit) -> Pick {
    let Some(product) = audit
        .product
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    else {
        return Pick::NoProduct;
    };
    let vendor = audit
        .vendor
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty());
    let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b);
    let mut other_vendor = Vec::new();
    for (id, p) in &catalog.platforms {
        let def = &p.def;
        if !def.dmi_names.iter().any(|n| same(n, product)) {
            continue;
        }
        let vendor_ok = match vendor {
            Some(v) if !def.dmi_vendors.is_empty() => def.dmi_vendors.iter().any(|d| same(d, v)),
            _ => true,
        };
        if !vendor_ok {
            other_vendor.push(id.clone());
            continue;
        }
        let line = p
            .file
            .text
            .lines()
            .position(|l| l.trim_start().starts_with("dmi_names"))
            .map_or(1, |i| i + 1);
        return Pick::Picked(Picked {
            platform: id.clone(),
            by: "dmi-product-name",
            product: product.to_string(),
            vendor: vendor.map(str::to_string),
            file: p.file.name.clone(),
            line,
        });
    }
    Pick::NoMatch {
        product: product.to_string(),
        vendor: vendor.map(str::to_string),
        other_vendor,
    }
}

/// The note for a host whose product name no platform lists (LP0355).
pub fn unrecognised(pick: &Pick) -> Option<Finding> {
    let Pick::NoMatch {
        product,
        vendor,
        other_vendor,
    } = pick
    else {
        return None;
    };
    let by = match vendor {
        Some(v) => format!("DMI product name `{product}` (vendor `{v}`)"),
        None => format!("DMI product name `{product}`"),
    };
    let why = if other_vendor.is_empty() {
        "no platform file lists it in `dmi_names`".to_string()
    } else {
        format!(
            "{} list{} the product under another vendor (`dmi_vendors`)",
            other_vendor.join(", "),
            if other_vendor.len() == 1 { "s" } else { "" }
        )
    };
    Some(
        Finding::of(
            Code::PlatformUnrecognised,
            format!("the host reports {by}; {why}: no platform variant is matched"),
        )
        .with_help(
            "name one with `--platform ID` (`laneplan platforms`), or add the name to a platform file's `dmi_names`",
        ),
    )
}

/// The audit's answer to "which variant is this host".
#[derive(Debug, Clone, Serialize)]
pub struct VariantMatch {
    pub platform: String,
    pub file: String,
    /// How the platform was chosen, where `--platform` named none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picked: Option<Picked>,
    pub options: Vec<OptionMatch>,
    /// Places and root complexes the matched variant explains, of all with evidence.
    pub matched: usize,
    pub total: usize,
    pub places: Vec<PlaceMatch>,
    pub contradictions: Vec<Contradiction>,
    #[serde(skip)]
    pub findings: Vec<Finding>,
}

impl VariantMatch {
    /// `key=value` of every matched option, for a build's `[options]`; a host variant at
    /// its default is left out (the build takes the default, and says nothing of it).
    pub fn chosen(&self) -> Vec<(String, String)> {
        self.options
            .iter()
            .filter(|o| !(o.host_variant && o.value.as_ref() == Some(&o.default)))
            .filter_map(|o| Some((o.key.clone(), o.value.clone()?)))
            .collect()
    }

    /// `r740xd: riser1=1B, front=24-sas, matched by 9 of 9 slots and ports`.
    pub fn summary(&self) -> String {
        let opts: Vec<String> = self
            .options
            .iter()
            .map(|o| match &o.value {
                Some(v) if o.evidence => format!("{}={v}", o.key),
                Some(v) => format!("{}={v} (default, no evidence)", o.key),
                None => format!("{}: no value matches", o.key),
            })
            .collect();
        let opts = if opts.is_empty() {
            "no options".to_string()
        } else {
            opts.join(", ")
        };
        format!(
            "{}: {opts}, matched by {} of {} slots, ports and NUMA nodes",
            self.platform, self.matched, self.total
        )
    }
}

/// The physical slot numbers the host reports, one entry per (number, port); a real port
/// wins over the host bridge of a hidden one, and a number on a device names its port.
pub fn host_slots(audit: &Audit) -> Vec<HostSlot> {
    let mut out: BTreeMap<(u32, Bdf), HostSlot> = BTreeMap::new();
    for f in &audit.functions {
        let Some(n) = f.slot_number else { continue };
        let (port, by) = match f.kind {
            FnKind::RootPort | FnKind::SwitchPort | FnKind::Bridge => {
                let by = if f.slot.as_deref().and_then(|s| s.trim().parse::<u32>().ok()) == Some(n)
                {
                    SlotEvidence::PhysicalSlotOnPort
                } else {
                    SlotEvidence::SlotCapabilities
                };
                (f, by)
            }
            FnKind::Device => match f.parent.and_then(|p| audit.function(p)) {
                Some(p) if p.kind.is_port() => (p, SlotEvidence::PhysicalSlotOnDevice),
                _ => (f, SlotEvidence::PhysicalSlotOnDevice),
            },
            FnKind::Platform if is_host_bridge(f) => (f, SlotEvidence::HostBridge),
            _ => continue,
        };
        let device = audit
            .functions
            .iter()
            .find(|k| k.parent == Some(port.bdf) && k.kind == FnKind::Device)
            .map(|k| k.bdf);
        let entry = HostSlot {
            slot_number: n,
            bdf: port.bdf,
            by,
            width: port.link_max.map(|l| l.width).filter(|&w| w > 0),
            numa_node: port.numa_node,
            device,
        };
        out.entry((n, port.bdf))
            .and_modify(|e| e.by = e.by.min(by))
            .or_insert(entry);
    }
    // A hidden port's host bridge only where no real port reports the number on that device.
    // (slot number, domain, bus, device): the number on a device, whatever its function.
    let on_device = |s: &HostSlot| (s.slot_number, s.bdf.domain, s.bdf.bus, s.bdf.dev);
    let real: BTreeSet<(u32, u32, u8, u8)> = out
        .values()
        .filter(|s| s.by != SlotEvidence::HostBridge)
        .map(on_device)
        .collect();
    out.into_values()
        .filter(|s| s.by != SlotEvidence::HostBridge || !real.contains(&on_device(s)))
        .collect()
}

/// The slot of a kernel slot name the kernel made unique for another port of the same
/// physical slot (`1-2`: slot 1, its second port).
fn kernel_slot_of(f: &FunctionReport) -> Option<u32> {
    let (n, k) = f.slot.as_deref()?.split_once('-')?;
    k.parse::<u32>().ok()?;
    n.parse().ok()
}

fn is_host_bridge(f: &FunctionReport) -> bool {
    f.class.is_some_and(|c| c.base_sub() == 0x0600)
}

/// `0000:80:03` of `0000:80:03.1`.
fn device_prefix(bdf: &str) -> &str {
    bdf.rsplit_once('.').map_or(bdf, |(d, _)| d)
}

/// Whether a live function sits under one of the locators (a bus or address prefix); the
/// host bridge of a hidden port matches a locator of a port on its device.
fn located(bdf: Bdf, by: SlotEvidence, locator: &[String]) -> bool {
    let text = bdf.to_string();
    locator.iter().any(|l| {
        bdf.under(l)
            || (by == SlotEvidence::HostBridge
                && l.len() == text.len()
                && device_prefix(l) == device_prefix(&text))
    })
}

struct Def<'a> {
    slot: &'a SlotDef,
    variant: Option<(usize, usize)>,
}

/// Matches the host against `platform`: the value of each option, every reported slot
/// placed or contradicted, NUMA nodes explained or not.
pub fn match_platform(platform: &Platform, audit: &Audit) -> VariantMatch {
    let m = Matcher::new(platform, audit);
    let (options, chosen) = m.score_options();
    let bays = all_bay_numbers(m.def);
    let mut out = Outcome::default();
    for h in &m.slots {
        m.place(h, &chosen, &bays, &mut out);
    }
    m.numa(&chosen, &mut out);
    m.onboard(&mut out);
    m.no_variant(&options, &mut out);
    VariantMatch {
        platform: m.def.id.get_ref().clone(),
        file: m.file,
        picked: None,
        options,
        matched: out.matched,
        total: out.total,
        places: out.places,
        contradictions: out.contradictions,
        findings: out.findings,
    }
}

/// Every slot definition of a platform with its variant (base: None).
fn slot_defs(def: &PlatformFile) -> Vec<Def<'_>> {
    let mut slot_defs: Vec<Def> = def
        .slots
        .iter()
        .map(|s| Def {
            slot: s,
            variant: None,
        })
        .collect();
    for (oi, o) in def.options.iter().enumerate() {
        for (ci, c) in o.choices.iter().enumerate() {
            slot_defs.extend(c.slots.iter().map(|s| Def {
                slot: s,
                variant: Some((oi, ci)),
            }));
        }
    }
    slot_defs
}

/// The physical slot numbers a bay group gives its bays, in bay order.
fn bay_numbers(g: &BayGroupDef) -> Vec<u32> {
    g.slot_numbers
        .as_ref()
        .and_then(|n| parse_bay_list(n.get_ref()).ok())
        .unwrap_or_default()
}

/// Per physical slot number of a bay in any variant, that bay (`Bay 3`).
fn all_bay_numbers(def: &PlatformFile) -> BTreeMap<u32, String> {
    def.bays
        .iter()
        .chain(
            def.options
                .iter()
                .flat_map(|o| o.choices.iter().flat_map(|c| c.bays.iter())),
        )
        .flat_map(|g| {
            let bays = parse_bay_list(g.bays.get_ref()).unwrap_or_default();
            bay_numbers(g)
                .into_iter()
                .zip(bays)
                .map(|(n, b)| (n, format!("Bay {b}")))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The host's side of a reported slot.
fn host_side(h: &HostSlot) -> HostSlotSide {
    HostSlotSide {
        bdf: h.bdf.to_string(),
        slot_number: Some(h.slot_number),
        width: h.width,
        numa_node: h.numa_node,
        device: h.device,
    }
}

/// A platform held against a host: the platform file, every slot definition with its
/// variant, the slots the host reports and the NUMA nodes its root complexes show.
struct Matcher<'a> {
    platform: &'a Platform,
    def: &'a PlatformFile,
    audit: &'a Audit,
    file: String,
    slots: Vec<HostSlot>,
    slot_defs: Vec<Def<'a>>,
    numa_of_rc: BTreeMap<String, BTreeSet<u32>>,
}

/// The choice picked per option (by index), and the base slots a chosen host variant (a
/// riser) replaces by id.
struct Chosen<'a> {
    by_option: BTreeMap<usize, usize>,
    replaced: BTreeSet<&'a str>,
}

impl<'a> Chosen<'a> {
    /// The picked choices and the base slots their host variants replace.
    fn new(def: &'a PlatformFile, by_option: BTreeMap<usize, usize>) -> Chosen<'a> {
        let replaced = by_option
            .iter()
            .filter(|(oi, _)| def.options[**oi].host_variant)
            .flat_map(|(oi, ci)| def.options[*oi].choices[*ci].slots.iter())
            .map(|s| s.id.get_ref().as_str())
            .collect();
        Chosen {
            by_option,
            replaced,
        }
    }

    /// Whether a slot definition is in the matched variant: a base slot no chosen host
    /// variant replaces, or a slot of a chosen choice.
    fn active(&self, d: &Def) -> bool {
        match d.variant {
            None => !self.replaced.contains(d.slot.id.get_ref().as_str()),
            Some((oi, ci)) => self.by_option.get(&oi) == Some(&ci),
        }
    }
}

/// What matching found: every reported slot's place, the contradictions and their
/// findings, and how many places and root complexes the matched variant explains.
#[derive(Default)]
struct Outcome {
    places: Vec<PlaceMatch>,
    contradictions: Vec<Contradiction>,
    findings: Vec<Finding>,
    matched: usize,
    total: usize,
}

impl<'a> Matcher<'a> {
    /// The platform's slot definitions and the host's slots and NUMA nodes, ready to match.
    fn new(platform: &'a Platform, audit: &'a Audit) -> Matcher<'a> {
        let def = &platform.def;
        Matcher {
            platform,
            def,
            audit,
            file: platform.file.name.clone(),
            slots: host_slots(audit),
            slot_defs: slot_defs(def),
            numa_of_rc: observed_numa(def, audit),
        }
    }

    /// The platform file's line where a span starts.
    fn line_of(&self, r: std::ops::Range<usize>) -> usize {
        self.platform.file.line_col(r.start).0
    }

    /// `key=value` of an option's choice; none for the base platform.
    fn variant_name(&self, v: Option<(usize, usize)>) -> Option<String> {
        v.map(|(oi, ci)| {
            format!(
                "{}={}",
                self.def.options[oi].key.get_ref(),
                self.def.options[oi].choices[ci].value.get_ref()
            )
        })
    }

    /// The root complex with this id.
    fn rc(&self, id: &str) -> Option<&'a RootComplexDef> {
        self.def
            .root_complexes
            .iter()
            .find(|r| r.id.get_ref() == id)
    }

    /// The platform's side of a slot definition.
    fn side(&self, d: &Def) -> PlatformSide {
        let r = self.rc(d.slot.root_complex.get_ref());
        PlatformSide {
            file: self.file.clone(),
            line: self.line_of(span(&d.slot.root_complex)),
            id: d.slot.id.get_ref().clone(),
            variant: self.variant_name(d.variant),
            root_complex: Some(d.slot.root_complex.get_ref().clone()),
            locator: r.map(|r| r.locator.clone()).unwrap_or_default(),
            width: Some(d.slot.electrical.get_ref().get()),
            numa_nodes: r.and_then(|r| r.numa_node).into_iter().collect(),
        }
    }

    /// Whether a reported slot can be this definition: on a port under the slot's locator
    /// (else its root complex's), no wider than the slot.
    fn fits(&self, d: &Def, h: &HostSlot) -> bool {
        let Some(r) = self.rc(d.slot.root_complex.get_ref()) else {
            return false;
        };
        let locator = if d.slot.locator.is_empty() {
            &r.locator
        } else {
            &d.slot.locator
        };
        // A port narrower than the slot may be one of its bifurcated ports (an NVMe
        // extender's x4 ports, the kernel names them `1`, `1-1`, ...); wider is not the slot.
        let electrical = d.slot.electrical.get_ref().get();
        located(h.bdf, h.by, locator) && h.width.is_none_or(|w| w <= electrical)
    }

    /// Every option's choices scored against the host and its value picked: the choice with
    /// the most evidence and no contradiction, ties keeping the default.
    fn score_options(&self) -> (Vec<OptionMatch>, Chosen<'a>) {
        let def = self.def;
        let mut options = Vec::new();
        let mut chosen: BTreeMap<usize, usize> = BTreeMap::new();
        for (oi, o) in def.options.iter().enumerate() {
            let scores: Vec<ChoiceScore> = o
                .choices
                .iter()
                .enumerate()
                .map(|(ci, c)| {
                    let (m, x) = score_choice(
                        def,
                        c,
                        &self.slots,
                        &self.slot_defs,
                        (oi, ci),
                        &|d, h| self.fits(d, h),
                        &bay_numbers,
                        &self.numa_of_rc,
                        self.audit,
                    );
                    ChoiceScore {
                        value: c.value.get_ref().clone(),
                        matched: m,
                        contradicted: x,
                    }
                })
                .collect();
            let default = o
                .choices
                .iter()
                .position(|c| c.value.get_ref() == o.default.get_ref())
                .unwrap_or(0);
            let best = scores
                .iter()
                .enumerate()
                .filter(|(_, s)| s.contradicted == 0)
                .max_by_key(|(i, s)| (s.matched, *i == default))
                .map(|(i, _)| i);
            let evidence = best.is_some_and(|i| scores[i].matched > 0);
            if let Some(i) = best {
                chosen.insert(oi, i);
            }
            options.push(OptionMatch {
                key: o.key.get_ref().clone(),
                value: best.map(|i| scores[i].value.clone()),
                evidence,
                setting: o.setting,
                host_variant: o.host_variant,
                default: o.default.get_ref().clone(),
                choices: scores,
            });
        }
        (options, Chosen::new(def, chosen))
    }

    /// One reported slot: on a slot of the matched variant (or of any variant, or a place
    /// without a number on its very port), else contradicted (LP0351); a number no slot has
    /// goes to the bays.
    fn place(
        &self,
        h: &HostSlot,
        chosen: &Chosen,
        bays: &BTreeMap<u32, String>,
        out: &mut Outcome,
    ) {
        let same_number: Vec<&Def> = self
            .slot_defs
            .iter()
            .filter(|d| d.slot.slot_number.as_ref().map(|n| *n.get_ref()) == Some(h.slot_number))
            .collect();
        if same_number.is_empty() {
            self.place_unnumbered(h, bays, out);
            return;
        }
        out.total += 1;
        // A place without a slot number of its own on this very port (an integrated PERC
        // sharing the slot's number) explains it too.
        let own_port = self.slot_defs.iter().find(|d| {
            d.slot.slot_number.is_none()
                && !d.slot.locator.is_empty()
                && chosen.active(d)
                && self.fits(d, h)
        });
        let hit = same_number
            .iter()
            .copied()
            .filter(|d| chosen.active(d))
            .find(|d| self.fits(d, h))
            .or_else(|| same_number.iter().copied().find(|d| self.fits(d, h)))
            .or(own_port);
        match hit {
            Some(d) => {
                out.matched += 1;
                out.places.push(PlaceMatch {
                    host: h.clone(),
                    place: Some(d.slot.id.get_ref().clone()),
                    status: PlaceStatus::Ok,
                });
            }
            None => {
                out.places.push(PlaceMatch {
                    host: h.clone(),
                    place: same_number.first().map(|d| d.slot.id.get_ref().clone()),
                    status: PlaceStatus::Contradicted,
                });
                self.wired_elsewhere(h, &same_number, out);
            }
        }
    }

    /// A reported slot whose number no slot definition has: a bay's, else unmodelled
    /// (LP0350); an NVMe drive's own number says nothing where the platform numbers no bay.
    fn place_unnumbered(&self, h: &HostSlot, bays: &BTreeMap<u32, String>, out: &mut Outcome) {
        let holds_nvme = h
            .device
            .and_then(|d| self.audit.function(d))
            .is_some_and(|d| d.class.is_some_and(|c| c.base_sub() == 0x0108));
        if holds_nvme && bays.is_empty() {
            return;
        }
        out.total += 1;
        if let Some(bay) = bays.get(&h.slot_number) {
            out.matched += 1;
            out.places.push(PlaceMatch {
                host: h.clone(),
                place: Some(bay.clone()),
                status: PlaceStatus::Ok,
            });
            return;
        }
        out.places.push(PlaceMatch {
            host: h.clone(),
            place: None,
            status: PlaceStatus::Unmodelled,
        });
        self.lacks_slot(h, out);
    }

    /// LP0350: the host reports a physical slot the platform has no slot or bay for.
    fn lacks_slot(&self, h: &HostSlot, out: &mut Outcome) {
        let (def, file) = (self.def, &self.file);
        let line = def
            .slots
            .last()
            .map(|s| self.line_of(span(&s.id)))
            .unwrap_or(1);
        let what = match &h.device {
            Some(d) => format!(", holding {}", device_name(self.audit, *d)),
            None => String::from(", empty"),
        };
        out.findings.push(
            Finding::of(
                Code::PlatformLacksSlot,
                format!(
                    "the host reports physical slot {} at {}{what}; {} has no slot or bay with that number",
                    h.slot_number, h.bdf, def.name
                ),
            )
            .with_help(format!(
                "add a [[slot]] with `slot_number = {}` on the root complex whose locator holds {} to {file}, citing the capture",
                h.slot_number, h.bdf
            ))
            .about(Subject::Device { bdf: h.bdf })
            .at(file_loc(file, line)),
        );
        out.contradictions.push(Contradiction {
            code: Code::PlatformLacksSlot,
            host: host_side(h),
            platform: Vec::new(),
        });
    }

    /// LP0351: a reported slot on a port or width that every definition of its number
    /// (`same_number`, not empty) puts elsewhere.
    fn wired_elsewhere(&self, h: &HostSlot, same_number: &[&Def], out: &mut Outcome) {
        let sides: Vec<PlatformSide> = same_number.iter().map(|d| self.side(d)).collect();
        let first = &sides[0];
        let allowed: Vec<String> = sides
            .iter()
            .map(|s| {
                format!(
                    "{}{} on {} ({}) x{}",
                    s.id,
                    s.variant
                        .as_deref()
                        .map(|v| format!(" [{v}]"))
                        .unwrap_or_default(),
                    s.root_complex.clone().unwrap_or_default(),
                    s.locator.join(", "),
                    s.width.unwrap_or(0)
                )
            })
            .collect();
        out.findings.push(
            Finding::of(
                Code::SlotWiredElsewhere,
                format!(
                    "physical slot {} is on {}{}{}; every variant of {} puts it elsewhere: {}",
                    h.slot_number,
                    h.bdf,
                    h.width.map(|w| format!(" x{w}")).unwrap_or_default(),
                    h.numa_node
                        .map(|n| format!(", NUMA node {n}"))
                        .unwrap_or_default(),
                    self.def.id.get_ref(),
                    allowed.join("; ")
                ),
            )
            .with_help(format!(
                "correct the slot's root complex and width at {}:{} (or add the variant), citing the capture",
                self.file, first.line
            ))
            .about(Subject::Slot {
                id: first.id.clone(),
            })
            .at(file_loc(&self.file, first.line)),
        );
        out.contradictions.push(Contradiction {
            code: Code::SlotWiredElsewhere,
            host: host_side(h),
            platform: sides,
        });
    }

    /// The NUMA nodes each root complex reports against those the matched settings give it.
    fn numa(&self, chosen: &Chosen, out: &mut Outcome) {
        for r in &self.def.root_complexes {
            let Some(seen) = self.numa_of_rc.get(r.id.get_ref()) else {
                continue;
            };
            out.total += 1;
            let allowed = allowed_numa(self.def, r.id.get_ref(), &chosen.by_option);
            if allowed.is_empty() || seen.iter().all(|n| allowed.contains(n)) {
                out.matched += 1;
                continue;
            }
            self.numa_unexplained(r, seen, allowed, out);
        }
    }

    /// LP0352: a root complex reports NUMA nodes no value of the platform's settings gives it.
    fn numa_unexplained(
        &self,
        r: &RootComplexDef,
        seen: &BTreeSet<u32>,
        allowed: Vec<u32>,
        out: &mut Outcome,
    ) {
        let (def, file) = (self.def, &self.file);
        let line = self.line_of(span(&r.id));
        let settings: Vec<&str> = def
            .options
            .iter()
            .filter(|o| o.setting)
            .map(|o| o.key.get_ref().as_str())
            .collect();
        let seen_s: Vec<String> = seen.iter().map(|n| n.to_string()).collect();
        let allowed_s: Vec<String> = allowed.iter().map(|n| n.to_string()).collect();
        out.findings.push(
            Finding::of(
                Code::NumaUnexplained,
                format!(
                    "{} ({}) reports NUMA node {}; {} gives it {}{}",
                    r.id.get_ref(),
                    r.locator.join(", "),
                    seen_s.join(", "),
                    def.id.get_ref(),
                    allowed_s.join(", "),
                    if settings.is_empty() {
                        " and has no NUMA setting (NPS) that renumbers it".to_string()
                    } else {
                        format!(" under every value of {}", settings.join(", "))
                    }
                ),
            )
            .with_help(format!(
                "correct `numa_node` of the root complex at {file}:{line} or add the host setting's value, citing the capture"
            ))
            .about(Subject::RootComplex {
                id: r.id.get_ref().clone(),
            })
            .at(file_loc(file, line)),
        );
        out.contradictions.push(Contradiction {
            code: Code::NumaUnexplained,
            host: HostSlotSide {
                bdf: r.locator.first().cloned().unwrap_or_default(),
                slot_number: None,
                width: None,
                numa_node: seen.iter().next().copied(),
                device: None,
            },
            platform: vec![PlatformSide {
                file: file.clone(),
                line,
                id: r.id.get_ref().clone(),
                variant: None,
                root_complex: Some(r.id.get_ref().clone()),
                locator: r.locator.clone(),
                width: Some(*r.lanes.get_ref() as u8),
                numa_nodes: allowed,
            }],
        });
    }

    /// Onboard devices (no physical slot above them) below root ports no root complex of
    /// the platform locates.
    fn onboard(&self, out: &mut Outcome) {
        let audit = self.audit;
        let all_locators: Vec<&String> = self
            .def
            .root_complexes
            .iter()
            .flat_map(|r| &r.locator)
            .collect();
        for f in audit
            .functions
            .iter()
            .filter(|f| f.kind == FnKind::Device && f.bdf.func == 0 && f.parent.is_some())
        {
            let Some(top) = top_port(audit, f) else {
                continue;
            };
            let in_slot =
                std::iter::successors(Some(f), |x| x.parent.and_then(|p| audit.function(p)))
                    .take(64)
                    .any(|x| x.slot_number.is_some());
            if in_slot
                || all_locators
                    .iter()
                    .any(|l| f.bdf.under(l) || top.bdf.under(l))
            {
                continue;
            }
            out.total += 1;
            self.onboard_unmodelled(f, top, out);
        }
    }

    /// LP0353: an onboard device below root port `top`, which the platform does not model.
    fn onboard_unmodelled(&self, f: &FunctionReport, top: &FunctionReport, out: &mut Outcome) {
        let (def, file) = (self.def, &self.file);
        let line = def
            .builtins
            .last()
            .map(|b| self.line_of(span(&b.id)))
            .or_else(|| def.root_complexes.last().map(|r| self.line_of(span(&r.id))))
            .unwrap_or(1);
        out.findings.push(
            Finding::of(
                Code::OnboardUnmodelled,
                format!(
                    "{} at {} (below root port {}, no physical slot) is onboard where {} has no root complex or built-in",
                    device_name(self.audit, f.bdf),
                    f.bdf,
                    top.bdf,
                    def.id.get_ref()
                ),
            )
            .with_help(format!(
                "add a [[root_complex]] with `locator = [\"{}\"]` and a [[builtin]] to {file} near line {line}, citing the capture",
                top.bdf
            ))
            .about(Subject::Device { bdf: f.bdf })
            .at(file_loc(file, line)),
        );
        out.contradictions.push(Contradiction {
            code: Code::OnboardUnmodelled,
            host: HostSlotSide {
                bdf: f.bdf.to_string(),
                slot_number: None,
                width: f.link_max.map(|l| l.width),
                numa_node: f.numa_node,
                device: Some(f.bdf),
            },
            platform: Vec::new(),
        });
    }

    /// LP0354: an option none of whose values matches the host.
    fn no_variant(&self, options: &[OptionMatch], out: &mut Outcome) {
        let file = &self.file;
        for o in options.iter().filter(|o| o.value.is_none()) {
            let line = self
                .def
                .options
                .iter()
                .find(|d| d.key.get_ref() == &o.key)
                .map(|d| self.line_of(span(&d.key)))
                .unwrap_or(1);
            let scores: Vec<String> = o
                .choices
                .iter()
                .map(|c| format!("{} ({} contradicted)", c.value, c.contradicted))
                .collect();
            out.findings.push(
                Finding::of(
                    Code::NoVariant,
                    format!(
                        "no value of option `{}` matches the host: {}",
                        o.key,
                        scores.join(", ")
                    ),
                )
                .with_help(format!(
                    "add the host's variant as a choice at {file}:{line}, citing the capture"
                ))
                .at(file_loc(file, line)),
            );
        }
    }
}

fn file_loc(file: &str, line: usize) -> Location {
    Location {
        file: Some(file.to_string()),
        line: Some(line),
        column: Some(1),
        node: None,
    }
}

fn device_name(audit: &Audit, bdf: Bdf) -> String {
    audit
        .function(bdf)
        .map(|f| format!("{} [{}]", f.name, PciIds::text(f.ids)))
        .unwrap_or_else(|| bdf.to_string())
}

/// The topmost port above a function (its root port).
fn top_port<'a>(audit: &'a Audit, f: &FunctionReport) -> Option<&'a FunctionReport> {
    std::iter::successors(f.parent.and_then(|p| audit.function(p)), |x| {
        x.parent.and_then(|p| audit.function(p))
    })
    .take(64)
    .filter(|x| x.kind.is_port())
    .last()
}

/// The NUMA nodes the host's functions report under each root complex's locators (ports
/// and devices, not the CPU's own functions).
fn observed_numa(def: &PlatformFile, audit: &Audit) -> BTreeMap<String, BTreeSet<u32>> {
    let mut out: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for r in &def.root_complexes {
        for f in audit
            .functions
            .iter()
            .filter(|f| f.kind != FnKind::Platform && r.locator.iter().any(|l| f.bdf.under(l)))
        {
            if let Some(n) = f.numa_node {
                out.entry(r.id.get_ref().clone()).or_default().insert(n);
            }
        }
    }
    out
}

/// The NUMA nodes a root complex may report under the chosen settings.
fn allowed_numa(def: &PlatformFile, rc: &str, chosen: &BTreeMap<usize, usize>) -> Vec<u32> {
    let Some(r) = def.root_complexes.iter().find(|r| r.id.get_ref() == rc) else {
        return Vec::new();
    };
    let choice = def
        .options
        .iter()
        .enumerate()
        .filter_map(|(oi, o)| chosen.get(&oi).map(|&ci| &o.choices[ci]))
        .find(|c| {
            c.numa
                .iter()
                .any(|n| n.socket.get_ref() == r.socket.get_ref())
        });
    allowed_under(def, r, choice)
}

/// The NUMA nodes a root complex may report under a setting's choice (or none): the
/// choice's nodes for its socket, narrowed to the root complex's own `numa_node` when that
/// is one of them (NPS4 numbers each quadrant); else its `numa_node`, else its socket's.
fn allowed_under(def: &PlatformFile, r: &RootComplexDef, choice: Option<&ChoiceDef>) -> Vec<u32> {
    if let Some(n) = choice.and_then(|c| {
        c.numa
            .iter()
            .find(|n| n.socket.get_ref() == r.socket.get_ref())
    }) {
        return match r.numa_node {
            Some(own) if n.nodes.contains(&own) => vec![own],
            _ => n.nodes.clone(),
        };
    }
    match r.numa_node {
        Some(n) => vec![n],
        None => def
            .sockets
            .iter()
            .find(|s| s.id.get_ref() == r.socket.get_ref())
            .map(|s| s.numa_nodes.clone())
            .unwrap_or_default(),
    }
}

/// (matched, contradicted) evidence for one choice.
#[allow(clippy::too_many_arguments)]
fn score_choice(
    def: &PlatformFile,
    c: &ChoiceDef,
    slots: &[HostSlot],
    slot_defs: &[Def],
    me: (usize, usize),
    fits: &dyn Fn(&Def, &HostSlot) -> bool,
    bay_numbers: &dyn Fn(&BayGroupDef) -> Vec<u32>,
    numa_of_rc: &BTreeMap<String, BTreeSet<u32>>,
    audit: &Audit,
) -> (usize, usize) {
    let mut m = 0;
    let mut x = 0;
    // A host variant's choice is its own slots and the base slots that another choice of
    // the option replaces and it keeps (Riser 1A is the base Slot 1 where Riser 1B has its
    // own): both sides of the choice are held against the host.
    let option = &def.options[me.0];
    let own: BTreeSet<&str> = c.slots.iter().map(|s| s.id.get_ref().as_str()).collect();
    let kept: BTreeSet<&str> = if option.host_variant {
        option
            .choices
            .iter()
            .flat_map(|o| o.slots.iter())
            .map(|s| s.id.get_ref().as_str())
            .filter(|id| !own.contains(id))
            .collect()
    } else {
        BTreeSet::new()
    };
    for d in slot_defs.iter().filter(|d| {
        d.variant == Some(me)
            || (d.variant.is_none() && kept.contains(d.slot.id.get_ref().as_str()))
    }) {
        let Some(n) = d.slot.slot_number.as_ref().map(|n| *n.get_ref()) else {
            continue;
        };
        let on_host: Vec<&HostSlot> = slots.iter().filter(|h| h.slot_number == n).collect();
        if on_host.is_empty() {
            continue;
        }
        if on_host.iter().any(|h| fits(d, h)) {
            m += 1;
        } else {
            x += 1;
        }
    }
    for g in &c.bays {
        let numbers = bay_numbers(g);
        m += slots
            .iter()
            .filter(|h| numbers.contains(&h.slot_number))
            .count();
        // NVMe through an extender card in a numbered slot: the drives the host shows
        // in that slot.
        if g.via == Via::Card
            && let Some(n) = slot_defs
                .iter()
                .find(|d| d.slot.id.get_ref() == g.to.get_ref())
                .and_then(|d| d.slot.slot_number.as_ref().map(|n| *n.get_ref()))
        {
            m += audit
                .functions
                .iter()
                .filter(|f| {
                    f.class.is_some_and(|c| c.base_sub() == 0x0108)
                        && std::iter::successors(Some(*f), |x| {
                            x.parent.and_then(|p| audit.function(p))
                        })
                        .take(64)
                        .any(|x| x.slot_number == Some(n) || kernel_slot_of(x) == Some(n))
                })
                .count();
        }
        // NVMe cabled straight to a root complex whose ports hold a storage controller
        // (a front PERC where the NVMe cables would be): this front is not the host's.
        if g.via == Via::Direct
            && let Some(r) = def
                .root_complexes
                .iter()
                .find(|r| r.id.get_ref() == g.to.get_ref())
            && audit.functions.iter().any(|f| {
                f.kind == FnKind::Device
                    && f.class
                        .is_some_and(|c| matches!(c.base_sub(), 0x0104 | 0x0107))
                    && r.locator
                        .iter()
                        .any(|l| f.bdf.under(l) || f.parent.is_some_and(|p| p.under(l)))
            })
        {
            x += 1;
        }
    }
    if !c.numa.is_empty() {
        for r in &def.root_complexes {
            let Some(seen) = numa_of_rc.get(r.id.get_ref()) else {
                continue;
            };
            if !c
                .numa
                .iter()
                .any(|n| n.socket.get_ref() == r.socket.get_ref())
            {
                continue;
            }
            let allowed = allowed_under(def, r, Some(c));
            if seen.iter().all(|s| allowed.contains(s)) {
                m += 1;
            } else {
                x += 1;
            }
        }
    }
    (m, x)
}

/// The platform to hold a host against: the one named (an unknown id is an error, with the
/// known ones), else the one the host's DMI product name names ([`pick`]: the match says
/// which and why), else none, with a note (LP0355) when the host names a product no
/// platform file lists.
pub fn recognise(
    catalog: &crate::platform::Catalog,
    named: Option<&str>,
    audit: &Audit,
) -> Result<(Option<VariantMatch>, Option<Finding>), String> {
    let (id, picked) = match named {
        Some(id) => {
            if catalog.platform(id).is_none() {
                return Err(format!(
                    "unknown platform `{id}`; {}",
                    crate::suggest::help_with(
                        id,
                        catalog.platforms.keys().map(String::as_str),
                        &format!(
                            "expected one of: {}",
                            catalog
                                .platforms
                                .keys()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                ));
            }
            (id.to_string(), None)
        }
        None => match pick(catalog, audit) {
            Pick::Picked(p) => (p.platform.clone(), Some(p)),
            other => return Ok((None, unrecognised(&other))),
        },
    };
    Ok((
        catalog.platform(&id).map(|p| {
            let mut m = match_platform(p, audit);
            m.picked = picked;
            m
        }),
        None,
    ))
}

/// The platform a host is, from its DMI product name: the built-in (or `--platform-dir`)
/// platform whose file lists the name in `dmi_names` (whole, case-insensitively) and, where
/// the file and the host both name one, the system vendor in `dmi_vendors`. Never a guess
/// from the name's words: [`pick`] says why none matched.
pub fn platform_of(audit: &Audit, catalog: &crate::platform::Catalog) -> Option<String> {
    match pick(catalog, audit) {
        Pick::Picked(p) => Some(p.platform),
        _ => None,
    }
}

/// The match as text: the summary line, then each reported slot and where it landed.
pub fn render(m: &VariantMatch) -> String {
    let mut out = format!("Platform {}\n", m.summary());
    if let Some(p) = &m.picked {
        out.push_str(&format!(
            "  picked from the DMI product name `{}`{}, listed at {}:{}\n",
            p.product,
            p.vendor
                .as_deref()
                .map(|v| format!(" (vendor `{v}`)"))
                .unwrap_or_default(),
            p.file,
            p.line
        ));
    }
    for p in &m.places {
        let by = match p.host.by {
            SlotEvidence::PhysicalSlotOnPort => "Physical Slot on the port",
            SlotEvidence::PhysicalSlotOnDevice => "Physical Slot on the device",
            SlotEvidence::SlotCapabilities => "Slot Capabilities",
            SlotEvidence::HostBridge => "host bridge of a hidden port",
        };
        let status = match p.status {
            PlaceStatus::Ok => format!("= {}", p.place.clone().unwrap_or_default()),
            PlaceStatus::Contradicted => format!(
                "contradicts {} (another root port or width)",
                p.place.clone().unwrap_or_default()
            ),
            PlaceStatus::Unmodelled => "not in the platform".to_string(),
        };
        // Bays are many: only the slots get a line each.
        if p.place.as_deref().is_some_and(|s| s.starts_with("Bay ")) && p.status == PlaceStatus::Ok
        {
            continue;
        }
        out.push_str(&format!(
            "  physical slot {} at {} ({by}): {status}\n",
            p.host.slot_number, p.host.bdf
        ));
    }
    let bays = m
        .places
        .iter()
        .filter(|p| p.place.as_deref().is_some_and(|s| s.starts_with("Bay ")))
        .count();
    if bays > 0 {
        out.push_str(&format!("  {bays} bay ports by physical slot number\n"));
    }
    out
}
