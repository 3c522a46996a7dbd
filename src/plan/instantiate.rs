//! Platform + options + build -> `Topology`, with the findings about what does not fit.
//! Link training happens here: each PCIe link runs at the lowest generation of its ends and
//! of every passive part between them (riser, cable, backplane), and at the narrower width.
//!
//! A [`Builder`] runs one stage per method, in the order the tree is made (node insertion
//! order is output order): options, sockets, root complexes, built-in devices, slots and
//! risers, cards, switches, backplanes and bays, drives. The platform was validated when it
//! loaded (ids unique in every combination of options, none reserved), so a node id clash
//! here is a laneplan bug: an [`InternalError`], never a renamed node.

use crate::finding::{Code, Finding, Location, Subject};
use crate::pcie::{Gen, LinkRate};
use crate::platform::schema::*;
use crate::platform::{Catalog, Part, Platform, SlotKindInfo};
use crate::source::SourceFile;
pub use crate::topology::compress_ranges;
use crate::topology::*;
use foldhash::{HashMap, HashMapExt};
use petgraph::stable_graph::NodeIndex;
use std::collections::BTreeMap;
use std::ops::Range;

/// What a build asks for, with where each request was written (for findings).
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Option key -> (value, span in the build file).
    pub options: BTreeMap<String, (String, Option<Range<usize>>)>,
    pub slots: Vec<(String, String, Range<usize>, Range<usize>)>,
    pub bays: Vec<(String, String, Range<usize>, Range<usize>)>,
    /// The build file, when there is one.
    pub file: Option<SourceFile>,
    pub name: Option<String>,
    /// Draw the cards the options ship with in their slots (`show`, not `check`).
    pub implied_cards: bool,
}

impl Request {
    pub fn from_build(build: &BuildFile, file: SourceFile) -> Self {
        Request {
            options: build
                .options
                .iter()
                .map(|(k, v)| (k.clone(), (v.get_ref().clone(), Some(v.span()))))
                .collect(),
            slots: build
                .slots
                .iter()
                .map(|s| {
                    (
                        s.slot.get_ref().clone(),
                        s.part.get_ref().clone(),
                        s.slot.span(),
                        s.part.span(),
                    )
                })
                .collect(),
            bays: build
                .bays
                .iter()
                .map(|b| {
                    (
                        b.bays.get_ref().clone(),
                        b.part.get_ref().clone(),
                        b.bays.span(),
                        b.part.span(),
                    )
                })
                .collect(),
            name: build.name.clone(),
            file: Some(file),
            implied_cards: false,
        }
    }

    /// Options only (`laneplan show r740xd --option front=24nvme`).
    pub fn options(opts: &[(String, String)]) -> Self {
        Request {
            options: opts
                .iter()
                .map(|(k, v)| (k.clone(), (v.clone(), None)))
                .collect(),
            implied_cards: true,
            ..Default::default()
        }
    }

    fn loc(&self, span: &Option<Range<usize>>) -> Location {
        match (&self.file, span) {
            (Some(f), Some(s)) => {
                let (line, column) = f.line_col(s.start);
                Location {
                    node: None,
                    file: Some(f.name.clone()),
                    line: Some(line),
                    column: Some(column),
                }
            }
            (Some(f), None) => Location {
                file: Some(f.name.clone()),
                ..Default::default()
            },
            _ => Location::default(),
        }
    }
}

/// A placed slot: its definition and the nodes made for it.
#[derive(Debug, Clone)]
pub struct SlotInfo {
    pub def: SlotDef,
    /// The slot's kind as its platform declares it (label, chassis name, sort order).
    pub kind: SlotKindInfo,
    pub port: NodeIndex,
    pub slot: NodeIndex,
    pub card: Option<(NodeIndex, String)>,
    /// Where the build placed the card (for findings about it).
    pub card_loc: Location,
    pub reserved_by: Option<String>,
}

/// A bay and what feeds it.
#[derive(Debug, Clone)]
pub struct BayInfo {
    pub number: u32,
    /// Shared by every bay of the group (large builds have tens of thousands of bays).
    pub group: std::sync::Arc<BayGroupDef>,
    pub node: Option<NodeIndex>,
    pub drive: Option<(NodeIndex, String)>,
}

/// The result of instantiating a platform.
#[derive(Debug, Clone)]
pub struct Plan {
    pub topology: Topology,
    pub platform_id: String,
    pub platform_name: String,
    pub build_name: Option<String>,
    /// Chosen option values.
    pub options: BTreeMap<String, String>,
    pub slots: BTreeMap<String, SlotInfo>,
    pub bays: BTreeMap<u32, BayInfo>,
    /// Root complex id -> node.
    pub root_complexes: BTreeMap<String, NodeIndex>,
    /// Root complex defs by id (lanes, bifurcation, budget rule).
    pub rc_defs: BTreeMap<String, RootComplexDef>,
    pub switches: BTreeMap<String, NodeIndex>,
    pub card_rules: Vec<CardRule>,
    /// Slots holding double-width cards (service-manual GPU rules count these).
    pub double_width_slots: std::collections::BTreeSet<String>,
}

/// A bug in laneplan: the validated platform made a plan it cannot hold (two nodes with
/// one id). Reported, never worked around.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("internal error while building the plan of {platform}: {what}; please report it")]
pub struct InternalError {
    pub platform: String,
    pub what: String,
}

/// Instantiates a platform with a build: the plan and the findings about what does not fit
/// (unknown option or value, parts that do not fit, missing bays). An internal error comes
/// back as an error finding (`LP0100`) beside the plan made so far; [`try_instantiate`]
/// returns it as an error instead.
pub fn instantiate(platform: &Platform, catalog: &Catalog, req: &Request) -> (Plan, Vec<Finding>) {
    let mut b = Builder::new(platform, catalog, req);
    match b.run() {
        Ok(()) => b.finish(),
        Err(e) => {
            let (plan, mut findings) = b.finish();
            findings.push(Finding::of(Code::Internal, e.to_string()));
            (plan, findings)
        }
    }
}

/// [`instantiate`], with an internal error as an error.
pub fn try_instantiate(
    platform: &Platform,
    catalog: &Catalog,
    req: &Request,
) -> Result<(Plan, Vec<Finding>), InternalError> {
    let mut b = Builder::new(platform, catalog, req);
    b.run()?;
    Ok(b.finish())
}

/// An option, or an option value, the platform does not have: the typed error of planning
/// a platform by options (`show --option`); in a build file it is finding `LP0115`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OptionError {
    /// `r740xd has no option `x``, `option `front` has no choice `y``.
    pub message: String,
    /// The options or choices there are.
    pub help: String,
}

/// The first option of `req` the platform lacks (options in request order).
pub fn check_options(platform: &Platform, req: &Request) -> Result<(), OptionError> {
    match req
        .options
        .iter()
        .find_map(|(k, (v, _))| option_error(&platform.def, k, v))
    {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Why option `k` = `v` is not one of the platform's, if it is not.
fn option_error(def: &PlatformFile, k: &str, v: &str) -> Option<OptionError> {
    match def.options.iter().find(|o| o.key.get_ref() == k) {
        None => {
            let keys: Vec<String> = def
                .options
                .iter()
                .map(|o| format!("`{}`", o.key.get_ref()))
                .collect();
            Some(OptionError {
                message: format!("{} has no option `{k}`", def.name),
                help: format!("options: {}", keys.join(", ")),
            })
        }
        Some(o) if o.choices.iter().any(|c| c.value.get_ref() == v) => None,
        Some(o) => {
            let vals: Vec<String> = o
                .choices
                .iter()
                .map(|c| format!("`{}`", c.value.get_ref()))
                .collect();
            Some(OptionError {
                message: format!("option `{k}` has no choice `{v}`"),
                help: format!("choices: {}", vals.join(", ")),
            })
        }
    }
}

/// Builds a plan one stage at a time; each stage reads what the earlier ones made.
pub struct Builder<'a> {
    platform: &'a Platform,
    def: &'a PlatformFile,
    catalog: &'a Catalog,
    req: &'a Request,
    t: Topology,
    findings: Vec<Finding>,
    chosen: BTreeMap<String, String>,
    slots_def: Vec<SlotDef>,
    switches_def: Vec<SwitchDef>,
    bays_def: Vec<BayGroupDef>,
    builtins_def: Vec<BuiltinDef>,
    /// Slot id -> label of the choice that reserves it.
    reserved: HashMap<String, String>,
    sockets: HashMap<String, NodeIndex>,
    rcs: BTreeMap<String, NodeIndex>,
    rc_defs: BTreeMap<String, RootComplexDef>,
    slots: BTreeMap<String, SlotInfo>,
    double_width_slots: std::collections::BTreeSet<String>,
    switch_nodes: BTreeMap<String, NodeIndex>,
    switch_gen: HashMap<String, Gen>,
    bays: BTreeMap<u32, BayInfo>,
}

impl<'a> Builder<'a> {
    pub fn new(platform: &'a Platform, catalog: &'a Catalog, req: &'a Request) -> Self {
        let def = &platform.def;
        Builder {
            platform,
            def,
            catalog,
            req,
            t: Topology::new(def.name.clone()),
            findings: Vec::new(),
            chosen: BTreeMap::new(),
            slots_def: Vec::new(),
            switches_def: Vec::new(),
            bays_def: Vec::new(),
            builtins_def: Vec::new(),
            reserved: HashMap::new(),
            sockets: HashMap::new(),
            rcs: BTreeMap::new(),
            rc_defs: BTreeMap::new(),
            slots: BTreeMap::new(),
            double_width_slots: Default::default(),
            switch_nodes: BTreeMap::new(),
            switch_gen: HashMap::new(),
            bays: BTreeMap::new(),
        }
    }

    /// Every stage, in order.
    pub fn run(&mut self) -> Result<(), InternalError> {
        self.options();
        self.sockets()?;
        self.root_complexes()?;
        self.builtins()?;
        self.slots_and_risers()?;
        self.cards()?;
        self.switches()?;
        self.backplanes_and_bays()?;
        self.drives()
    }

    /// The plan and the findings.
    pub fn finish(mut self) -> (Plan, Vec<Finding>) {
        let def = self.def;
        // A host variant (a riser configuration) at its default is the base platform: the
        // plan lists it only off its default, so headers and JSON stay the base platform's.
        for o in def.options.iter().filter(|o| o.host_variant) {
            let key = o.key.get_ref();
            if self.chosen.get(key) == Some(o.default.get_ref()) {
                self.chosen.remove(key);
            }
        }
        let plan = Plan {
            topology: self.t,
            platform_id: def.id.get_ref().clone(),
            platform_name: def.name.clone(),
            build_name: self.req.name.clone(),
            options: self.chosen,
            slots: self.slots,
            bays: self.bays,
            root_complexes: self.rcs,
            rc_defs: self.rc_defs,
            switches: self.switch_nodes,
            card_rules: def.card_rules.clone(),
            double_width_slots: self.double_width_slots,
        };
        (plan, self.findings)
    }

    fn add(&mut self, node: Node) -> Result<NodeIndex, InternalError> {
        self.t.add_node(node).map_err(|e| InternalError {
            platform: self.def.name.clone(),
            what: format!("two nodes with id `{}`", e.0),
        })
    }

    fn add_with(
        &mut self,
        id: String,
        label: String,
        kind: NodeKind,
        confidence: Confidence,
        source: Option<String>,
    ) -> Result<NodeIndex, InternalError> {
        let mut n = Node::new(id, label, kind);
        n.confidence = confidence;
        n.source = source;
        self.add(n)
    }

    fn rc_gen(&self, id: &str) -> Gen {
        self.rc_defs
            .get(id)
            .map(|r| r.generation.get_ref().pcie())
            .unwrap_or(Gen::G3)
    }

    /// Options: the requested values (unknown ones are findings), defaults for the rest,
    /// and the slots, switches, bays and built-ins the chosen choices add.
    pub fn options(&mut self) {
        let def = self.def;
        let req = self.req;
        for (k, (v, span)) in &req.options {
            match option_error(def, k, v) {
                Some(e) => self.findings.push(
                    Finding::of(Code::UnknownOption, e.message)
                        .with_help(e.help)
                        .at(req.loc(span)),
                ),
                None => {
                    self.chosen.insert(k.clone(), v.clone());
                }
            }
        }
        for o in &def.options {
            self.chosen
                .entry(o.key.get_ref().clone())
                .or_insert_with(|| o.default.get_ref().clone());
        }
        let chosen = &self.chosen;
        let choices: Vec<&ChoiceDef> = def
            .options
            .iter()
            .filter_map(|o| {
                let v = &chosen[o.key.get_ref()];
                o.choices.iter().find(|c| c.value.get_ref() == v)
            })
            .collect();
        self.slots_def = def.slots.clone();
        self.switches_def = def.switches.clone();
        self.bays_def = def.bays.clone();
        self.builtins_def = def.builtins.clone();
        for c in &choices {
            // A host variant's slot replaces the base slot of its id (in place, so the
            // slot order stays the platform file's); validation allows nothing else.
            for s in &c.slots {
                match self
                    .slots_def
                    .iter_mut()
                    .find(|b| b.id.get_ref() == s.id.get_ref())
                {
                    Some(b) => *b = s.clone(),
                    None => self.slots_def.push(s.clone()),
                }
            }
            self.switches_def.extend(c.switches.iter().cloned());
            self.bays_def.extend(c.bays.iter().cloned());
            self.builtins_def.extend(c.builtins.iter().cloned());
            for r in &c.reserves {
                self.reserved.insert(r.get_ref().clone(), c.label.clone());
            }
        }
        // Size the graph once: growing it by doubling copies every node (224 bytes each) and
        // rehashes the id index, which made large platforms superlinear. A bay becomes about
        // three nodes (port, bay, drive), a slot up to three (port, slot, card).
        let bay_count: usize = self
            .bays_def
            .iter()
            .map(|g| parse_bay_list(g.bays.get_ref()).map_or(0, |v| v.len()))
            .sum();
        self.t.reserve(
            3 * (bay_count + self.slots_def.len())
                + 2 * (self.switches_def.len()
                    + def.root_complexes.len()
                    + self.builtins_def.len())
                + def.sockets.len()
                + 16,
        );
        for c in &choices {
            if let Some(g) = &c.nvme_path_gen {
                for b in self
                    .bays_def
                    .iter_mut()
                    .filter(|b| b.interfaces.contains(&Interface::Nvme))
                {
                    b.backplane_gen = Some(g.clone());
                    b.cable_gen = Some(g.clone());
                }
            }
        }
    }

    /// Sockets and the fabric between them.
    pub fn sockets(&mut self) -> Result<(), InternalError> {
        let def = self.def;
        for s in &def.sockets {
            // A host setting (NPS) renumbers the socket's NUMA nodes.
            let numa_nodes = def
                .options
                .iter()
                .filter_map(|o| {
                    let v = self.chosen.get(o.key.get_ref())?;
                    o.choices.iter().find(|c| c.value.get_ref() == v)
                })
                .flat_map(|c| c.numa.iter())
                .find(|n| n.socket.get_ref() == s.id.get_ref())
                .map(|n| n.nodes.clone())
                .unwrap_or_else(|| s.numa_nodes.clone());
            let mut n = Node::new(
                s.id.get_ref().clone(),
                s.label.clone(),
                NodeKind::Socket {
                    index: s.index,
                    lanes: *s.lanes.get_ref(),
                    numa_nodes,
                },
            );
            n.confidence = s.confidence;
            n.source = s.source.clone();
            let ix = self.add(n)?;
            self.sockets.insert(s.id.get_ref().clone(), ix);
        }
        for f in &def.fabrics {
            let [a, b] = f.between.get_ref();
            if let (Some(&a), Some(&b)) =
                (self.sockets.get(a.get_ref()), self.sockets.get(b.get_ref()))
            {
                let links = *f.links.get_ref();
                self.t.link(
                    a,
                    b,
                    Link::Fabric {
                        fabric: f.kind,
                        links,
                        gbs_per_direction: f.gbs_per_link.get_ref() * f64::from(links),
                    },
                );
            }
        }
        Ok(())
    }

    /// Root complexes below their sockets.
    pub fn root_complexes(&mut self) -> Result<(), InternalError> {
        for r in &self.def.root_complexes {
            let Some(&sock) = self.sockets.get(r.socket.get_ref()) else {
                continue;
            };
            // Under a host setting (NPS) that numbers the socket otherwise, the root
            // complex's node is the socket's one node, or unknown among several.
            let setting = self
                .def
                .options
                .iter()
                .filter_map(|o| {
                    let v = self.chosen.get(o.key.get_ref())?;
                    o.choices.iter().find(|c| c.value.get_ref() == v)
                })
                .flat_map(|c| c.numa.iter())
                .find(|n| n.socket.get_ref() == r.socket.get_ref());
            let numa_node = match setting {
                Some(s) if r.numa_node.is_some_and(|n| !s.nodes.contains(&n)) => {
                    (s.nodes.len() == 1).then(|| s.nodes[0])
                }
                _ => r.numa_node,
            };
            let mut n = Node::new(
                r.id.get_ref().clone(),
                r.label.clone(),
                NodeKind::RootComplex {
                    lanes: *r.lanes.get_ref(),
                    numa_node,
                    generation: r.generation.get_ref().pcie(),
                },
            );
            n.confidence = r.confidence;
            n.source = r.source.clone();
            n.limit = r.max_gbs.as_ref().map(|g| {
                let g = *g.get_ref();
                Box::new(NodeLimit {
                    read_gbs: g,
                    write_gbs: g,
                    what: format!("root complex limit {g} GB/s"),
                })
            });
            let ix = self.add(n)?;
            self.t.link(sock, ix, Link::Attach);
            self.rcs.insert(r.id.get_ref().clone(), ix);
            self.rc_defs.insert(r.id.get_ref().clone(), r.clone());
        }
        Ok(())
    }

    /// On-board devices (PCH on DMI, LOM), each on its own root port.
    pub fn builtins(&mut self) -> Result<(), InternalError> {
        let builtins = std::mem::take(&mut self.builtins_def);
        for b in &builtins {
            let Some(&rc) = self.rcs.get(b.root_complex.get_ref()) else {
                continue;
            };
            let w = b.width.get_ref().get();
            let g = b
                .generation
                .get_ref()
                .pcie()
                .min(self.rc_gen(b.root_complex.get_ref()));
            let port = self.add_with(
                format!("{}/{}", b.root_complex.get_ref(), b.id.get_ref()),
                format!("Port for {}", b.label),
                NodeKind::RootPort {
                    width: w,
                    generation: g,
                },
                b.confidence,
                None,
            )?;
            self.t.link(rc, port, Link::Attach);
            let kind = if b.pch {
                NodeKind::Pch
            } else {
                NodeKind::Device {
                    class: b.class,
                    part: None,
                    perf: None,
                }
            };
            let dev = self.add_with(
                b.id.get_ref().clone(),
                b.label.clone(),
                kind,
                b.confidence,
                b.source.clone(),
            )?;
            let rate = LinkRate::new(g, w).with_mps(b.mps.unwrap_or(crate::pcie::DEFAULT_MPS));
            self.t.link(
                port,
                dev,
                Link::Pcie {
                    rate,
                    max: Some(rate),
                },
            );
        }
        self.builtins_def = builtins;
        Ok(())
    }

    /// Slots (empty; cards come next), each on a root port, through its riser if any.
    pub fn slots_and_risers(&mut self) -> Result<(), InternalError> {
        let slots_def = std::mem::take(&mut self.slots_def);
        for s in &slots_def {
            let Some(&rc) = self.rcs.get(s.root_complex.get_ref()) else {
                continue;
            };
            let rc_gen = self.rc_gen(s.root_complex.get_ref());
            let g = s
                .generation
                .as_ref()
                .map(|g| g.get_ref().pcie())
                .unwrap_or(rc_gen)
                .min(rc_gen);
            let port = self.add_with(
                format!("{}/{}", s.root_complex.get_ref(), s.id.get_ref()),
                format!("Root port ({})", s.label),
                NodeKind::RootPort {
                    width: s.electrical.get_ref().get(),
                    generation: g,
                },
                s.confidence,
                None,
            )?;
            self.t.link(rc, port, Link::Attach);
            let mut above = port;
            if let Some(r) = &s.riser {
                let riser = self.add_with(
                    format!("{}/riser", s.id.get_ref()),
                    r.clone(),
                    NodeKind::Riser,
                    s.confidence,
                    None,
                )?;
                self.t.node_mut(riser).rated_gen = Some(g);
                self.t.link(port, riser, Link::Attach);
                above = riser;
            }
            let mut slot = Node::new(
                s.id.get_ref().clone(),
                s.label.clone(),
                NodeKind::Slot {
                    electrical: s.electrical.get_ref().get(),
                    mechanical: s.mechanical.get_ref().get(),
                },
            );
            slot.rated_gen = Some(g);
            slot.note = self
                .reserved
                .get(s.id.get_ref())
                .map(|by| format!("reserved by {by}"));
            slot.confidence = s.confidence;
            slot.source = s.source.clone();
            let slot = self.add(slot)?;
            self.t.link(above, slot, Link::Attach);
            let kind = self
                .platform
                .slot_kind(s.kind.get_ref())
                .cloned()
                .ok_or_else(|| InternalError {
                    platform: self.def.name.clone(),
                    what: format!("slot kind `{}` is not declared", s.kind.get_ref()),
                })?;
            self.slots.insert(
                s.id.get_ref().clone(),
                SlotInfo {
                    def: s.clone(),
                    kind,
                    port,
                    slot,
                    card: None,
                    card_loc: Location::default(),
                    reserved_by: self.reserved.get(s.id.get_ref()).cloned(),
                },
            );
        }
        self.slots_def = slots_def;
        Ok(())
    }

    /// Cards the build places (and, for `show`, the cards the options ship with).
    pub fn cards(&mut self) -> Result<(), InternalError> {
        let req = self.req;
        let catalog = self.catalog;
        let mut fills: Vec<Fill> = req
            .slots
            .iter()
            .map(|(s, p, a, b)| (s.clone(), p.clone(), Some(a.clone()), Some(b.clone())))
            .collect();
        if req.implied_cards {
            for g in &self.bays_def {
                if let Some(card) = &g.card
                    && !fills.iter().any(|f| &f.0 == g.to.get_ref())
                {
                    fills.push((g.to.get_ref().clone(), card.clone(), None, None));
                }
            }
        }
        for (slot_id, part_id, sspan, pspan) in &fills {
            let sloc = req.loc(sspan);
            let ploc = req.loc(pspan);
            let Some(info) = self.slots.get(slot_id) else {
                let known: Vec<String> = self.slots.keys().map(|k| format!("`{k}`")).collect();
                self.findings.push(
                    Finding::of(
                        Code::NoSuchPlace,
                        format!("{} has no slot `{slot_id}`", self.def.name),
                    )
                    .with_help(format!(
                        "slots with the chosen options: {}",
                        known.join(", ")
                    ))
                    .at(sloc),
                );
                continue;
            };
            let Some(part) = catalog.part(part_id) else {
                self.findings.push(unknown_part(catalog, part_id, ploc));
                continue;
            };
            if let Some((_, prev)) = &info.card {
                self.findings.push(
                    Finding::of(
                        Code::FilledTwice,
                        format!("{} already holds `{prev}`", info.def.label),
                    )
                    .at(sloc),
                );
                continue;
            }
            if part.def.class.is_drive() {
                self.findings.push(
                    Finding::of(
                        Code::WrongPlace,
                        format!("`{part_id}` is a drive, not a card: place it in a bay"),
                    )
                    .at(ploc),
                );
                continue;
            }
            let info = info.clone();
            let (mut fl, fatal) = check_card_fits(self.platform, &info, part, &sloc);
            if let Some(by) = &info.reserved_by
                && part.def.class != DeviceClass::Extender
            {
                fl.push(
                    Finding::of(
                        Code::OptionConflict,
                        format!(
                            "{} is taken by the front option \"{by}\"; it cannot hold {}",
                            info.def.label, part.def.name
                        ),
                    )
                    .with_help("choose another slot, or another front option")
                    .at(sloc.clone()),
                );
            }
            self.findings.extend(fl);
            if fatal {
                continue;
            }
            let card = self.place_card(&info, part)?;
            if let Some(s) = self.slots.get_mut(slot_id) {
                s.card = Some((card, part_id.clone()));
                s.card_loc = sloc.clone();
            }
            if part.def.double_width {
                self.double_width_slots.insert(slot_id.clone());
            }
        }
        Ok(())
    }

    /// Puts a card into a slot; extender cards get one port node per drive.
    fn place_card(&mut self, info: &SlotInfo, part: &Part) -> Result<NodeIndex, InternalError> {
        let slot_gen = self.t.node(info.slot).rated_gen.unwrap_or(Gen::G3);
        let elec = info.def.electrical.get_ref().get();
        let card_id = format!("{}/card", info.def.id.get_ref());
        let mut n = Node::new(
            card_id.clone(),
            part.def.name.clone(),
            NodeKind::Device {
                class: part.def.class,
                part: Some(part.id().to_string()),
                perf: part.def.perf.map(Box::new),
            },
        );
        n.confidence = part.def.confidence;
        n.source = part.def.source.clone();
        n.limit = storage_side(part).map(Box::new);
        let card = self.add(n)?;
        let max = LinkRate::new(part.generation(), part.width());
        let rate = LinkRate::new(part.generation().min(slot_gen), part.width().min(elec));
        self.t.link(
            info.slot,
            card,
            Link::Pcie {
                rate,
                max: Some(max),
            },
        );
        if part.def.class == DeviceClass::Extender {
            let ports = part.def.ports.unwrap_or(4);
            let pw = part.def.port_width.map_or(4, Width::get);
            let parent = match part.def.switch.clone() {
                Some(sw_part) => {
                    let s = self.add(Node::new(
                        format!("{card_id}/switch"),
                        format!("{sw_part} switch"),
                        NodeKind::Switch {
                            part: Some(sw_part),
                        },
                    ))?;
                    self.t.link(card, s, Link::Attach);
                    Some(s)
                }
                None => None,
            };
            for p in 0..ports {
                let kind = if parent.is_some() {
                    NodeKind::SwitchPort {
                        width: pw,
                        generation: part.generation(),
                        number: Some(u32::from(p)),
                    }
                } else {
                    NodeKind::Cable { port: p }
                };
                let label = if parent.is_some() {
                    format!("Downstream port {p}")
                } else {
                    format!("Port {p} (x{pw} from the bifurcated slot)")
                };
                let mut pn = Node::new(format!("{card_id}/p{p}"), label, kind);
                pn.rated_gen = Some(part.generation().min(slot_gen));
                let pix = self.add(pn)?;
                self.t.link(parent.unwrap_or(card), pix, Link::Attach);
            }
        }
        Ok(card)
    }

    /// Switches: uplinked to a root complex or, cascaded, to another switch. Validation
    /// refused cycles, so creating them in dependency order always makes progress.
    pub fn switches(&mut self) -> Result<(), InternalError> {
        let switches_def = std::mem::take(&mut self.switches_def);
        let mut pending: Vec<&SwitchDef> = switches_def.iter().collect();
        while !pending.is_empty() {
            let before = pending.len();
            let mut rest = Vec::new();
            for s in pending {
                let up = s.uplink.get_ref();
                let (parent, up_gen) = if let Some(&rc) = self.rcs.get(up) {
                    (rc, self.rc_gen(up))
                } else if let Some(&sw) = self.switch_nodes.get(up) {
                    (sw, self.switch_gen[up])
                } else if switches_def.iter().any(|d| d.id.get_ref() == up) {
                    rest.push(s);
                    continue;
                } else {
                    continue;
                };
                let own = s.generation.get_ref().pcie();
                let g = own.min(up_gen);
                let w = s.uplink_width.get_ref().get();
                let port_kind = if self.rcs.contains_key(up) {
                    NodeKind::RootPort {
                        width: w,
                        generation: up_gen,
                    }
                } else {
                    NodeKind::SwitchPort {
                        width: w,
                        generation: up_gen,
                        number: None,
                    }
                };
                let port = self.add_with(
                    format!("{up}/{}", s.id.get_ref()),
                    format!("Port to {}", s.label),
                    port_kind,
                    s.confidence,
                    None,
                )?;
                self.t.link(parent, port, Link::Attach);
                let sw = self.add_with(
                    s.id.get_ref().clone(),
                    s.label.clone(),
                    NodeKind::Switch {
                        part: s.part.clone(),
                    },
                    s.confidence,
                    s.source.clone(),
                )?;
                self.t.link(
                    port,
                    sw,
                    Link::Pcie {
                        rate: LinkRate::new(g, w),
                        max: Some(LinkRate::new(own, w)),
                    },
                );
                self.switch_nodes.insert(s.id.get_ref().clone(), sw);
                self.switch_gen.insert(s.id.get_ref().clone(), own);
            }
            if rest.len() == before {
                break;
            }
            pending = rest;
        }
        self.switches_def = switches_def;
        Ok(())
    }

    /// Backplanes and bays: each group hangs from a controller (through its backplane), an
    /// extender card's ports, a root port per bay, or a switch port per bay.
    pub fn backplanes_and_bays(&mut self) -> Result<(), InternalError> {
        let bays_def = std::mem::take(&mut self.bays_def);
        let mut switch_port_count: HashMap<String, u32> = HashMap::new();
        for g in &bays_def {
            let shared = std::sync::Arc::new(g.clone());
            let numbers = parse_bay_list(g.bays.get_ref()).unwrap_or_default();
            let rated = [&g.backplane_gen, &g.cable_gen]
                .into_iter()
                .flatten()
                .map(|v| v.get_ref().pcie())
                .min();
            // Where the group hangs: one parent for the whole group (card, controller) or
            // one port per bay (direct, switch).
            let t = &self.t;
            let group_parent: Option<NodeIndex> = match g.via {
                Via::Card | Via::Controller => self
                    .slots
                    .get(g.to.get_ref())
                    .and_then(|s| s.card.as_ref().map(|(c, _)| *c))
                    .filter(|&c| {
                        let class = match &t.node(c).kind {
                            NodeKind::Device { class, .. } => Some(*class),
                            _ => None,
                        };
                        match g.via {
                            Via::Card => class == Some(DeviceClass::Extender),
                            _ => matches!(class, Some(DeviceClass::Raid | DeviceClass::Hba)),
                        }
                    }),
                _ => None,
            };
            // For an extender card, the drives hang off its ports (made in place_card).
            let card_ports: Vec<NodeIndex> = group_parent
                .filter(|_| g.via == Via::Card)
                .map(|c| {
                    // A switch card's ports sit below its switch.
                    t.children(c)
                        .into_iter()
                        .flat_map(|p| match t.node(p).kind {
                            NodeKind::Switch { .. } => t.children(p),
                            _ => vec![p],
                        })
                        .collect()
                })
                .unwrap_or_default();
            let group_node = match (g.via, group_parent) {
                (Via::Controller, Some(ctrl)) => {
                    let bp = self.add_with(
                        format!("{}/backplane{}", g.to.get_ref(), g.bays.get_ref()),
                        g.backplane
                            .clone()
                            .unwrap_or_else(|| format!("Backplane (bays {})", g.bays.get_ref())),
                        NodeKind::Backplane,
                        g.confidence,
                        g.source.clone(),
                    )?;
                    self.t.link(ctrl, bp, Link::Attach);
                    Some(bp)
                }
                _ => None,
            };
            let source = bay_source(g);
            let width = g.width.get();
            for (k, &n) in numbers.iter().enumerate() {
                let mut bay = Node::new(
                    format!("bay{n}"),
                    format!("Bay {n}"),
                    NodeKind::Bay { number: n },
                );
                bay.rated_gen = rated;
                bay.confidence = g.confidence;
                bay.source = Some(source.clone());
                let bix = self.add(bay)?;
                let parent = match g.via {
                    Via::Controller => group_node,
                    Via::Card => card_ports.get(k).copied(),
                    Via::Direct => match self.rcs.get(g.to.get_ref()).copied() {
                        Some(rc) => {
                            let gg = self.rc_gen(g.to.get_ref());
                            let port = self.add_with(
                                format!("{}/bay{n}", g.to.get_ref()),
                                format!("Root port (bay {n})"),
                                NodeKind::RootPort {
                                    width,
                                    generation: gg,
                                },
                                g.confidence,
                                None,
                            )?;
                            self.t.link(rc, port, Link::Attach);
                            Some(port)
                        }
                        None => None,
                    },
                    Via::Switch => match self.switch_nodes.get(g.to.get_ref()).copied() {
                        Some(sw) => {
                            let count =
                                switch_port_count.entry(g.to.get_ref().clone()).or_default();
                            *count += 1;
                            let count = *count;
                            let sgen = self
                                .switch_gen
                                .get(g.to.get_ref())
                                .copied()
                                .unwrap_or(Gen::G3);
                            let port = self.add_with(
                                format!("{}/port{}", g.to.get_ref(), count),
                                format!("Downstream port {count} (bay {n})"),
                                NodeKind::SwitchPort {
                                    width,
                                    generation: sgen,
                                    number: Some(count),
                                },
                                g.confidence,
                                None,
                            )?;
                            self.t.link(sw, port, Link::Attach);
                            Some(port)
                        }
                        None => None,
                    },
                };
                if let Some(p) = parent {
                    self.t.link(p, bix, Link::Attach);
                }
                self.bays.insert(
                    n,
                    BayInfo {
                        number: n,
                        group: shared.clone(),
                        node: Some(bix),
                        drive: None,
                    },
                );
            }
        }
        self.bays_def = bays_def;
        Ok(())
    }

    /// Drives the build places in bays.
    pub fn drives(&mut self) -> Result<(), InternalError> {
        let req = self.req;
        let catalog = self.catalog;
        let def = self.def;
        // Help texts that list bays, made once per build (a build of many wrong entries
        // stays linear).
        let mut have_bays: Option<String> = None;
        let mut iface_help: HashMap<Interface, String> = HashMap::new();
        for (list, part_id, bspan, pspan) in &req.bays {
            let bloc = req.loc(&Some(bspan.clone()));
            let ploc = req.loc(&Some(pspan.clone()));
            let numbers = match parse_bay_list(list) {
                Ok(n) => n,
                Err(e) => {
                    self.findings
                        .push(Finding::of(Code::NoSuchPlace, e).at(bloc));
                    continue;
                }
            };
            let Some(part) = catalog.part(part_id) else {
                self.findings.push(unknown_part(catalog, part_id, ploc));
                continue;
            };
            if !part.def.class.is_drive() {
                self.findings.push(
                    Finding::of(
                        Code::WrongPlace,
                        format!(
                            "`{part_id}` is a {}, not a drive: place it in a slot",
                            part.def.class.name()
                        ),
                    )
                    .at(ploc),
                );
                continue;
            }
            let mut missing = Vec::new();
            for n in numbers {
                let Some(info) = self.bays.get(&n) else {
                    missing.push(n);
                    continue;
                };
                if let Some((_, prev)) = &info.drive {
                    self.findings.push(
                        Finding::of(Code::FilledTwice, format!("bay {n} already holds `{prev}`"))
                            .about(Subject::Bay { number: n })
                            .at(bloc.clone()),
                    );
                    continue;
                }
                let group = info.group.clone();
                let node = info.node;
                let iface = part.def.interface.unwrap_or(Interface::Sata);
                if !group.interfaces.contains(&iface) {
                    let accepts: Vec<&str> = group.interfaces.iter().map(|i| i.name()).collect();
                    self.findings.push(
                        Finding::of(
                            Code::InterfaceMismatch,
                            format!(
                                "bay {n} takes {} drives; {} is {}",
                                accepts.join("/"),
                                part.def.name,
                                iface.name()
                            ),
                        )
                        .with_help(
                            iface_help
                                .entry(iface)
                                .or_insert_with(|| bay_interface_help(&self.bays, iface))
                                .clone(),
                        )
                        .about(Subject::Bay { number: n })
                        .at(bloc.clone())
                        .at_node(format!("Bay {n}")),
                    );
                    continue;
                }
                if part.def.size.as_deref() == Some("3.5") && group.size == "2.5" {
                    self.findings.push(
                        Finding::of(
                            Code::TooBig,
                            format!("bay {n} is 2.5\"; {} is a 3.5\" drive", part.def.name),
                        )
                        .about(Subject::Bay { number: n })
                        .at(bloc.clone()),
                    );
                    continue;
                }
                let Some(bix) = node else { continue };
                let connected = self.t.parent(bix).is_some();
                if !connected {
                    let slot = slot_label(&self.slots, group.to.get_ref());
                    let (what, help) = match group.via {
                        Via::Card => (
                            format!(
                                "bay {n} is cabled to an NVMe extender card in {slot}, and that slot holds none"
                            ),
                            format!(
                                "add an NVMe extender card to {slot} (see `laneplan show {}`)",
                                def.id.get_ref()
                            ),
                        ),
                        _ => (
                            format!(
                                "bay {n} is served by the storage controller in {slot}, and that slot holds none"
                            ),
                            format!("add a RAID controller or HBA to {slot}"),
                        ),
                    };
                    self.findings.push(
                        Finding::of(Code::NoUpstream, what)
                            .with_help(help)
                            .about(Subject::Bay { number: n })
                            .at(bloc.clone()),
                    );
                }
                let drive = place_drive(&mut self.t, bix, n, part).map_err(|e| InternalError {
                    platform: def.name.clone(),
                    what: format!("two nodes with id `{}`", e.0),
                })?;
                if let Some(b) = self.bays.get_mut(&n) {
                    b.drive = Some((drive, part_id.clone()));
                }
            }
            if !missing.is_empty() {
                let bays = &self.bays;
                let have = have_bays.get_or_insert_with(|| {
                    compress_ranges(&bays.keys().copied().collect::<Vec<u32>>())
                });
                self.findings.push(
                    Finding::of(
                        Code::NoSuchPlace,
                        format!(
                            "no bay {} with the chosen options",
                            missing
                                .iter()
                                .map(u32::to_string)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                    .with_help(format!("bays are {have}"))
                    .at(bloc),
                );
            }
        }
        Ok(())
    }
}

/// A card to place: slot id, part id, and where the build names each.
type Fill = (String, String, Option<Range<usize>>, Option<Range<usize>>);

fn bay_source(g: &BayGroupDef) -> String {
    let mut parts = Vec::new();
    if let Some(b) = &g.backplane {
        parts.push(match &g.backplane_gen {
            Some(v) => format!("{b} (Gen{})", v.get_ref()),
            None => b.clone(),
        });
    }
    if let Some(c) = &g.cable {
        parts.push(match &g.cable_gen {
            Some(v) => format!("{c} (Gen{})", v.get_ref()),
            None => c.clone(),
        });
    }
    parts.join(", ")
}

fn slot_label(slots: &BTreeMap<String, SlotInfo>, id: &str) -> String {
    slots
        .get(id)
        .map(|s| s.def.label.clone())
        .unwrap_or_else(|| id.to_string())
}

fn bay_interface_help(bays: &BTreeMap<u32, BayInfo>, iface: Interface) -> String {
    let ok: Vec<u32> = bays
        .values()
        .filter(|b| b.group.interfaces.contains(&iface))
        .map(|b| b.number)
        .collect();
    if ok.is_empty() {
        format!(
            "no bay takes {} drives with the chosen options: pick another front option",
            iface.name()
        )
    } else {
        format!("{} bays: {}", iface.name(), compress_ranges(&ok))
    }
}

fn unknown_part(catalog: &Catalog, id: &str, loc: Location) -> Finding {
    // A near typo, else the parts the id is a search for (`cx5`), as `--part` does.
    Finding::of(Code::UnknownPart, format!("unknown part `{id}`"))
        .with_help(catalog.unknown_part_help(id))
        .at(loc)
}

/// Mechanical, electrical and size checks of a card against its slot, and whether one of
/// them keeps the card out (wrong kind of slot, edge wider than the connector).
fn check_card_fits(
    platform: &Platform,
    info: &SlotInfo,
    part: &Part,
    loc: &Location,
) -> (Vec<Finding>, bool) {
    let mut out = Vec::new();
    let s = &info.def;
    let fits = part.fits();
    if !fits.contains(s.kind.get_ref()) {
        // Name the kinds as this platform calls them; a kind it does not have by its id.
        let names: Vec<String> = fits
            .iter()
            .map(|k| {
                platform
                    .slot_kind(k)
                    .map_or_else(|| format!("`{k}`"), |i| format!("{} slots", i.label))
            })
            .collect();
        out.push(
            Finding::of(
                Code::WrongPlace,
                format!(
                    "{} does not fit {} (a {} slot)",
                    part.def.name, s.label, info.kind.label
                ),
            )
            .with_help(format!("it fits: {}", names.join(", ")))
            .about(Subject::Slot {
                id: s.id.get_ref().clone(),
            })
            .at(loc.clone()),
        );
        return (out, true);
    }
    let mech = s.mechanical.get_ref().get();
    let elec = s.electrical.get_ref().get();
    let mut fatal = false;
    if part.mechanical() > mech {
        fatal = true;
        out.push(
            Finding::of(
                Code::CardDoesNotFit,
                format!(
                    "{} has an x{} edge; {} has an x{} connector: it does not fit",
                    part.def.name,
                    part.mechanical(),
                    s.label,
                    mech
                ),
            )
            .with_help("use a slot with an x16 connector")
            .about(Subject::Slot {
                id: s.id.get_ref().clone(),
            })
            .at(loc.clone()),
        );
    } else if part.width() > elec {
        out.push(
            Finding::of(
                Code::CardNarrower,
                format!(
                    "{} is x{}; {} is wired x{}: it runs at x{}",
                    part.def.name,
                    part.width(),
                    s.label,
                    elec,
                    elec
                ),
            )
            .with_help("an x16-wired slot gives it all its lanes")
            .about(Subject::Slot {
                id: s.id.get_ref().clone(),
            })
            .at(loc.clone()),
        );
    }
    if let (Some(ph), Some(sh)) = (part.def.height, s.height)
        && ph > sh
    {
        out.push(
            Finding::of(
                Code::TooBig,
                format!(
                    "{} is full height; {} takes low-profile cards",
                    part.def.name, s.label
                ),
            )
            .about(Subject::Slot {
                id: s.id.get_ref().clone(),
            })
            .at(loc.clone()),
        );
    }
    if let (Some(pl), Some(sl)) = (part.def.length, s.length)
        && pl > sl
    {
        out.push(
            Finding::of(
                Code::TooBig,
                format!(
                    "{} is full length; {} takes half-length cards",
                    part.def.name, s.label
                ),
            )
            .about(Subject::Slot {
                id: s.id.get_ref().clone(),
            })
            .at(loc.clone()),
        );
    }
    (out, fatal)
}

/// A storage controller's SAS/SATA side: `storage_lanes` x `storage_gbps`, 8b/10b.
fn storage_side(part: &Part) -> Option<NodeLimit> {
    let lanes = part.def.storage_lanes?;
    let gbps = *part.def.storage_gbps.as_ref()?.get_ref();
    let gbs = f64::from(lanes) * crate::pcie::serial_lane_gbs(gbps);
    Some(NodeLimit {
        read_gbs: gbs,
        write_gbs: gbs,
        what: format!("SAS/SATA side {lanes} x {gbps} Gb/s"),
    })
}

/// Puts a drive into a bay and trains its link.
fn place_drive(
    t: &mut Topology,
    bay: NodeIndex,
    n: u32,
    part: &Part,
) -> Result<NodeIndex, DuplicateId> {
    let mut node = Node::new(
        format!("bay{n}/drive"),
        part.def.name.clone(),
        NodeKind::Device {
            class: part.def.class,
            part: Some(part.id().to_string()),
            perf: part.def.perf.map(Box::new),
        },
    );
    node.confidence = part.def.confidence;
    node.source = part.def.source.clone();
    let d = t.add_node(node)?;
    let link = match part.def.interface {
        Some(Interface::Nvme) => {
            let (g, w) = train_upstream(t, bay, part.generation(), part.width());
            Link::Pcie {
                rate: LinkRate::new(g, w),
                max: Some(LinkRate::new(part.generation(), part.width())),
            }
        }
        // The drive's own interface link: its part's `storage_gbps` (SATA 6 Gb/s, SAS 12 Gb/s,
        // with the datasheet as source), else the interface's usual rate.
        Some(Interface::Sas) => Link::Storage {
            protocol: StorageProtocol::Sas,
            gbps: drive_link_gbps(part, 12.0),
        },
        _ => Link::Storage {
            protocol: StorageProtocol::Sata,
            gbps: drive_link_gbps(part, 6.0),
        },
    };
    t.link(bay, d, link);
    Ok(d)
}

/// A SAS/SATA drive's interface rate (Gb/s): its part's `storage_gbps`, else `default`.
fn drive_link_gbps(part: &Part, default: f64) -> f64 {
    part.def
        .storage_gbps
        .as_ref()
        .map_or(default, |g| *g.get_ref())
}

/// Walks up from a bay to the port that is the drive's link partner, taking the lowest
/// generation and narrowest width on the way.
fn train_upstream(t: &Topology, from: NodeIndex, mut g: Gen, mut w: u8) -> (Gen, u8) {
    for ix in t.ancestors(from) {
        let node = t.node(ix);
        if let Some(r) = node.rated_gen {
            g = g.min(r);
        }
        match &node.kind {
            NodeKind::RootPort { width, generation }
            | NodeKind::SwitchPort {
                width, generation, ..
            } => {
                return (g.min(*generation), w.min(*width));
            }
            NodeKind::Slot { electrical, .. } => w = w.min(*electrical),
            _ => {}
        }
    }
    (g, w)
}
