//! Platforms and parts as data: the TOML files under `platforms/`, embedded in the binary at
//! build time, plus any the user adds with `--platform-dir`. Loading validates references,
//! widths and generations, and reports each problem at its file, line and column.

pub mod schema;

use crate::pcie;
use crate::source::{InputError, InputErrors, SourceFile, parse_toml};
use foldhash::{HashSet, HashSetExt};
use schema::*;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

/// The files shipped with laneplan (name, text).
pub const EMBEDDED: &[(&str, &str)] = &[
    (
        "platforms/r7415.toml",
        include_str!("../../platforms/r7415.toml"),
    ),
    (
        "platforms/r740xd.toml",
        include_str!("../../platforms/r740xd.toml"),
    ),
    (
        "platforms/r6525.toml",
        include_str!("../../platforms/r6525.toml"),
    ),
    (
        "platforms/r7525.toml",
        include_str!("../../platforms/r7525.toml"),
    ),
    (
        "platforms/r7515.toml",
        include_str!("../../platforms/r7515.toml"),
    ),
    (
        "platforms/r7425.toml",
        include_str!("../../platforms/r7425.toml"),
    ),
    (
        "platforms/parts.toml",
        include_str!("../../platforms/parts.toml"),
    ),
];

/// A validated platform file.
#[derive(Debug, Clone)]
pub struct Platform {
    pub def: PlatformFile,
    pub file: SourceFile,
}

/// A validated part.
#[derive(Debug, Clone)]
pub struct Part {
    pub def: PartDef,
    pub file: SourceFile,
}

impl Part {
    pub fn id(&self) -> &str {
        self.def.id.get_ref()
    }
    pub fn generation(&self) -> pcie::Gen {
        pcie::Gen::new(*self.def.generation.get_ref()).unwrap_or(pcie::Gen::G1)
    }
    pub fn width(&self) -> u8 {
        *self.def.width.get_ref()
    }
    pub fn mechanical(&self) -> u8 {
        self.def
            .mechanical
            .as_ref()
            .map(|m| *m.get_ref())
            .unwrap_or(self.width())
    }
}

/// Everything laneplan knows: platforms by id and parts by id.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub platforms: BTreeMap<String, Platform>,
    pub parts: BTreeMap<String, Part>,
}

impl Catalog {
    /// The embedded platforms and parts.
    pub fn builtin() -> Result<Catalog, InputErrors> {
        let mut cat = Catalog::default();
        for (name, text) in EMBEDDED {
            cat.add_file(SourceFile::new(*name, *text))?;
        }
        Ok(cat)
    }

    /// The embedded files plus every `*.toml` in `dir` (platform or parts files; a file with
    /// a top-level `part` array is a parts file). A user file may replace a built-in platform.
    pub fn with_dir(dir: Option<&Path>) -> Result<Catalog, InputErrors> {
        let mut cat = Catalog::builtin()?;
        if let Some(dir) = dir {
            let entries = std::fs::read_dir(dir).map_err(|e| {
                InputError::whole_file(dir.display().to_string(), format!("cannot read: {e}"))
            })?;
            let mut paths: Vec<_> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            paths.sort();
            for p in paths {
                cat.add_file(read_source(&p)?)?;
            }
        }
        Ok(cat)
    }

    /// Adds one platform or parts file.
    pub fn add_file(&mut self, file: SourceFile) -> Result<(), InputErrors> {
        if is_parts_file(&file.text) {
            let parts: PartsFile = parse_toml(&file)?;
            let mut errors = Vec::new();
            for p in parts.parts {
                validate_part(&p, &file, &mut errors);
                if self.parts.contains_key(p.id.get_ref()) && !errors.is_empty() {
                    continue;
                }
                if let Some(prev) = self.parts.get(p.id.get_ref())
                    && prev.file.name == file.name
                {
                    errors.push(file.error(
                        p.id.span(),
                        format!("duplicate part id `{}`", p.id.get_ref()),
                    ));
                    continue;
                }
                self.parts.insert(
                    p.id.get_ref().clone(),
                    Part {
                        def: p,
                        file: file.clone(),
                    },
                );
            }
            return if errors.is_empty() {
                Ok(())
            } else {
                Err(InputErrors { errors })
            };
        }
        let def: PlatformFile = parse_toml(&file)?;
        validate_platform(&def, &file)?;
        self.platforms.insert(
            def.id.get_ref().clone(),
            Platform {
                def,
                file: file.clone(),
            },
        );
        Ok(())
    }

    pub fn platform(&self, id: &str) -> Option<&Platform> {
        self.platforms.get(&id.to_ascii_lowercase())
    }

    pub fn part(&self, id: &str) -> Option<&Part> {
        self.parts.get(id)
    }
}

/// Reads a file for parsing; unreadable or non-UTF-8 files are input errors.
pub fn read_source(path: &Path) -> Result<SourceFile, InputError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| InputError::whole_file(name.clone(), format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| InputError::whole_file(name.clone(), format!("not UTF-8 text: {e}")))?;
    Ok(SourceFile::new(name, text))
}

fn is_parts_file(text: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with("[[part]]"))
}

fn check_gen(v: &S<u8>, file: &SourceFile, errors: &mut Vec<InputError>) {
    if pcie::Gen::new(*v.get_ref()).is_none() {
        errors.push(file.error(
            v.span(),
            format!(
                "expected a PCIe generation from 1 to 6, got {}",
                v.get_ref()
            ),
        ));
    }
}

fn check_width(v: &S<u8>, file: &SourceFile, errors: &mut Vec<InputError>) {
    if !pcie::valid_width(*v.get_ref()) {
        errors.push(file.error(
            v.span(),
            format!(
                "impossible link width x{}: expected one of x1, x2, x4, x8, x12, x16, x32",
                v.get_ref()
            ),
        ));
    }
}

fn validate_part(p: &PartDef, file: &SourceFile, errors: &mut Vec<InputError>) {
    check_gen(&p.generation, file, errors);
    check_width(&p.width, file, errors);
    if let Some(m) = &p.mechanical {
        check_width(m, file, errors);
    }
    if p.class.is_drive() && p.interface.is_none() {
        errors.push(file.error(
            p.id.span(),
            format!(
                "drive `{}` needs `interface` (nvme, sas or sata)",
                p.id.get_ref()
            ),
        ));
    }
    if p.class == crate::topology::DeviceClass::Extender && p.ports.is_none() {
        errors.push(file.error(
            p.id.span(),
            format!(
                "extender card `{}` needs `ports` (drives it serves)",
                p.id.get_ref()
            ),
        ));
    }
}

/// Ids and references of a platform: every reference must name a defined id, ids are unique,
/// widths and generations are possible ones.
fn validate_platform(def: &PlatformFile, file: &SourceFile) -> Result<(), InputErrors> {
    let mut errors = Vec::new();
    let mut ids: HashSet<String> = HashSet::new();
    let mut dup = |id: &S<String>, errors: &mut Vec<InputError>| {
        if !ids.insert(id.get_ref().clone()) {
            errors.push(file.error(id.span(), format!("duplicate id `{}`", id.get_ref())));
        }
    };
    let sockets: HashSet<&str> = def
        .sockets
        .iter()
        .map(|s| s.id.get_ref().as_str())
        .collect();
    let rcs: HashSet<&str> = def
        .root_complexes
        .iter()
        .map(|r| r.id.get_ref().as_str())
        .collect();
    let all_slots: HashSet<&str> = def
        .slots
        .iter()
        .chain(
            def.options
                .iter()
                .flat_map(|o| o.choices.iter().flat_map(|c| &c.slots)),
        )
        .map(|s| s.id.get_ref().as_str())
        .collect();
    let switches: HashSet<&str> = def
        .switches
        .iter()
        .chain(
            def.options
                .iter()
                .flat_map(|o| o.choices.iter().flat_map(|c| &c.switches)),
        )
        .map(|s| s.id.get_ref().as_str())
        .collect();
    let refer = |r: &S<String>, set: &HashSet<&str>, what: &str, errors: &mut Vec<InputError>| {
        if !set.contains(r.get_ref().as_str()) {
            let mut known: Vec<&&str> = set.iter().collect();
            known.sort();
            let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
            errors.push(
                file.error(r.span(), format!("unknown {what} `{}`", r.get_ref()))
                    .with_help(format!("expected one of: {}", known.join(", "))),
            );
        }
    };
    if def.sockets.is_empty() {
        errors.push(file.error(def.id.span(), "a platform needs at least one [[socket]]"));
    }
    for s in &def.sockets {
        dup(&s.id, &mut errors);
        check_gen(&s.generation, file, &mut errors);
    }
    for f in &def.fabrics {
        for end in f.between.get_ref() {
            refer(end, &sockets, "socket", &mut errors);
        }
    }
    for r in &def.root_complexes {
        dup(&r.id, &mut errors);
        refer(&r.socket, &sockets, "socket", &mut errors);
        check_gen(&r.generation, file, &mut errors);
        if *r.lanes.get_ref() == 0 {
            errors.push(file.error(r.lanes.span(), "a root complex needs at least one lane"));
        }
    }
    let mut check_fragment = |slots: &[SlotDef],
                              switches_: &[SwitchDef],
                              bays: &[BayGroupDef],
                              builtins: &[BuiltinDef],
                              errors: &mut Vec<InputError>| {
        for s in slots {
            dup(&s.id, errors);
            refer(&s.root_complex, &rcs, "root complex", errors);
            check_width(&s.electrical, file, errors);
            check_width(&s.mechanical, file, errors);
            if s.electrical.get_ref() > s.mechanical.get_ref() {
                errors.push(file.error(
                    s.electrical.span(),
                    format!(
                        "electrical width x{} is wider than the connector (x{})",
                        s.electrical.get_ref(),
                        s.mechanical.get_ref()
                    ),
                ));
            }
            if let Some(g) = &s.generation {
                check_gen(g, file, errors);
            }
        }
        for s in switches_ {
            dup(&s.id, errors);
            if !switches.contains(s.uplink.get_ref().as_str()) {
                refer(&s.uplink, &rcs, "root complex or switch", errors);
            }
            check_width(&s.uplink_width, file, errors);
            check_gen(&s.generation, file, errors);
        }
        for b in bays {
            if let Err(e) = parse_bay_list(b.bays.get_ref()) {
                errors.push(file.error(b.bays.span(), e));
            }
            let (set, what) = match b.via {
                Via::Direct => (&rcs, "root complex"),
                Via::Switch => (&switches, "switch"),
                Via::Card | Via::Controller => (&all_slots, "slot"),
            };
            refer(&b.to, set, what, errors);
            for g in [&b.backplane_gen, &b.cable_gen].into_iter().flatten() {
                check_gen(g, file, errors);
            }
            if b.interfaces.is_empty() {
                errors.push(file.error(b.bays.span(), "a bay group needs at least one interface"));
            }
        }
        for b in builtins {
            dup(&b.id, errors);
            refer(&b.root_complex, &rcs, "root complex", errors);
            check_width(&b.width, file, errors);
            check_gen(&b.generation, file, errors);
        }
    };
    check_fragment(
        &def.slots,
        &def.switches,
        &def.bays,
        &def.builtins,
        &mut errors,
    );
    // Cascaded switches must not form a cycle (a -> b -> a).
    let all_switches: Vec<&SwitchDef> = def
        .switches
        .iter()
        .chain(
            def.options
                .iter()
                .flat_map(|o| o.choices.iter().flat_map(|c| &c.switches)),
        )
        .collect();
    let uplinks: foldhash::HashMap<&str, &str> = all_switches
        .iter()
        .map(|s| (s.id.get_ref().as_str(), s.uplink.get_ref().as_str()))
        .collect();
    let uplink_of = |id: &str| uplinks.get(id).copied();
    for s in &all_switches {
        let mut seen = vec![s.id.get_ref().as_str()];
        let mut cur = s.uplink.get_ref().as_str();
        while let Some(next) = uplink_of(cur) {
            seen.push(cur);
            if cur == s.id.get_ref() {
                errors.push(file.error(
                    s.uplink.span(),
                    format!("switch uplinks form a cycle: {}", seen.join(" -> ")),
                ));
                break;
            }
            if seen.len() > all_switches.len() + 1 {
                break;
            }
            cur = next;
        }
    }
    let mut keys = HashSet::new();
    for o in &def.options {
        if !keys.insert(o.key.get_ref().clone()) {
            errors.push(file.error(
                o.key.span(),
                format!("duplicate option `{}`", o.key.get_ref()),
            ));
        }
        if !o
            .choices
            .iter()
            .any(|c| c.value.get_ref() == o.default.get_ref())
        {
            errors.push(file.error(
                o.default.span(),
                format!(
                    "default `{}` is not one of the choices",
                    o.default.get_ref()
                ),
            ));
        }
        for c in &o.choices {
            // Choices of one option are alternatives: ids may repeat across them.
            let mut scoped = Vec::new();
            check_fragment(&c.slots, &c.switches, &c.bays, &c.builtins, &mut scoped);
            errors.extend(
                scoped
                    .into_iter()
                    .filter(|e| !e.message.starts_with("duplicate id")),
            );
            if let Some(g) = &c.nvme_path_gen {
                check_gen(g, file, &mut errors);
            }
            for r in &c.reserves {
                refer(r, &all_slots, "slot", &mut errors);
            }
        }
    }
    for rule in &def.card_rules {
        for s in &rule.slots {
            refer(s, &all_slots, "slot", &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(InputErrors { errors })
    }
}

/// The span of a `Spanned` value, for callers outside this module.
pub fn span<T>(v: &S<T>) -> Range<usize> {
    v.span()
}
