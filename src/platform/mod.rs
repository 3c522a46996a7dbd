//! Platforms and parts as data: the TOML files under `platforms/`, embedded in the binary at
//! build time, plus any the user adds with `--platform-dir`. Parsing checks every value's
//! type (generations, widths and slot kinds are checked newtypes, see `schema`); loading
//! then checks what spans a file (ids unique in every combination of options, references,
//! bays in one group only, declared slot kinds) and reports each problem at its file, line
//! and column. Nothing here decides by the text of a message.

pub mod schema;

use crate::pcie;
pub use crate::source::read_source;
use crate::source::{InputError, InputErrors, SourceFile, parse_toml};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
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
        "platforms/r6515.toml",
        include_str!("../../platforms/r6515.toml"),
    ),
    (
        "platforms/r6615.toml",
        include_str!("../../platforms/r6615.toml"),
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
        "platforms/nf5280m4.toml",
        include_str!("../../platforms/nf5280m4.toml"),
    ),
    (
        "platforms/parts.toml",
        include_str!("../../platforms/parts.toml"),
    ),
];

/// A slot kind as a platform uses it: its declaration, and where it sorts among the
/// platform's kinds (`pcie` first unless the file declares it elsewhere).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotKindInfo {
    pub id: SlotKind,
    pub label: String,
    pub short: Option<String>,
    /// Position in the platform's declarations (chassis views sort slots by it).
    pub order: u16,
}

/// A validated platform file.
#[derive(Debug, Clone)]
pub struct Platform {
    pub def: PlatformFile,
    pub file: SourceFile,
    /// Every slot kind this platform knows, `pcie` included, in declaration order.
    pub slot_kinds: Vec<SlotKindInfo>,
}

impl Platform {
    /// The platform's declaration of a slot kind (validation made sure every slot's kind
    /// has one).
    pub fn slot_kind(&self, kind: &SlotKind) -> Option<&SlotKindInfo> {
        self.slot_kinds.iter().find(|k| &k.id == kind)
    }
}

/// The kinds of a platform file: `pcie` (implicit, first) and its `[[slot_kind]]` entries.
fn slot_kinds_of(def: &PlatformFile) -> Vec<SlotKindInfo> {
    let mut out = Vec::new();
    if !def
        .slot_kinds
        .iter()
        .any(|k| k.id.get_ref().as_str() == SlotKind::PCIE)
    {
        out.push(SlotKindInfo {
            id: SlotKind::pcie(),
            label: "PCIe".into(),
            short: None,
            order: 0,
        });
    }
    for k in &def.slot_kinds {
        if out.iter().any(|o| &o.id == k.id.get_ref()) {
            continue;
        }
        out.push(SlotKindInfo {
            id: k.id.get_ref().clone(),
            label: k.label.clone(),
            short: k.short.clone(),
            order: out.len() as u16,
        });
    }
    out
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
        self.def.generation.get_ref().pcie()
    }
    pub fn width(&self) -> u8 {
        self.def.width.get_ref().get()
    }
    pub fn mechanical(&self) -> u8 {
        self.def
            .mechanical
            .as_ref()
            .map(|m| m.get_ref().get())
            .unwrap_or(self.width())
    }
    /// The slot kinds it fits (`pcie` when the file names none).
    pub fn fits(&self) -> Vec<SlotKind> {
        if self.def.fits.is_empty() {
            vec![SlotKind::pcie()]
        } else {
            self.def.fits.iter().map(|k| k.get_ref().clone()).collect()
        }
    }

    /// The vendors of its PCI ids (`15b3` -> `Mellanox Technologies`, from the embedded
    /// pci.ids), each once.
    pub fn vendors(&self) -> Vec<String> {
        use crate::pciids::PciNames;
        let mut out: Vec<String> = Vec::new();
        for p in &self.def.pci {
            let Some(v) =
                p.id.get_ref()
                    .split(':')
                    .next()
                    .and_then(|v| u16::from_str_radix(v, 16).ok())
            else {
                continue;
            };
            if let Some(name) = crate::pciids::Embedded.vendor(v)
                && !out.contains(&name)
            {
                out.push(name);
            }
        }
        out
    }

    /// True when `query` is part of its id, name or a vendor's name, ignoring case, and
    /// also ignoring everything but letters and digits (`connectx5` finds `ConnectX-5`).
    pub fn matches(&self, query: &str) -> bool {
        let plain = |s: &str| -> String {
            s.chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_lowercase())
                .collect()
        };
        let q = query.to_lowercase();
        let qp = plain(query);
        let mut fields = vec![self.id().to_string(), self.def.name.clone()];
        fields.extend(self.vendors());
        fields
            .iter()
            .any(|f| f.to_lowercase().contains(&q) || (!qp.is_empty() && plain(f).contains(&qp)))
    }
}

/// Everything laneplan knows: platforms by id and parts by id. Ids are lowercase (checked
/// when a file loads); lookups ignore case, so `R740XD` on a command line finds `r740xd`.
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
        cat.check_fits()?;
        Ok(cat)
    }

    /// The embedded files plus every `*.toml` in `dir` (platform or parts files; a file with
    /// a `[[part]]` table is a parts file). Files must be regular files of at most
    /// [`crate::source::MAX_INPUT_BYTES`]. A platform or part id that is already defined
    /// (built in, or in an earlier file) is an error: a user file never silently replaces
    /// another; give a changed copy its own id.
    pub fn with_dir(dir: Option<&Path>) -> Result<Catalog, InputErrors> {
        let Some(dir) = dir else {
            return Catalog::builtin();
        };
        let mut cat = Catalog::default();
        for (name, text) in EMBEDDED {
            cat.add_file(SourceFile::new(*name, *text))?;
        }
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
        cat.check_fits()?;
        Ok(cat)
    }

    /// Adds one platform or parts file.
    pub fn add_file(&mut self, file: SourceFile) -> Result<(), InputErrors> {
        if is_parts_file(&file.text) {
            let parts: PartsFile = parse_toml(&file)?;
            let mut errors = Vec::new();
            let mut seen: HashMap<String, Range<usize>> = HashMap::new();
            for p in parts.parts {
                let before = errors.len();
                validate_part(&p, &file, &mut errors);
                let id = p.id.get_ref().clone();
                if let Some(first) = seen.get(&id) {
                    let (line, _) = file.line_col(first.start);
                    errors.push(
                        file.error(p.id.span(), format!("duplicate part id `{id}`"))
                            .with_help(format!("first defined at line {line}")),
                    );
                    continue;
                }
                seen.insert(id.clone(), p.id.span());
                if let Some(prev) = self.parts.get(&id) {
                    errors.push(
                        file.error(p.id.span(), format!("duplicate part id `{id}`"))
                            .with_help(format!(
                                "{} already defines it; give this part its own id",
                                prev.file.name
                            )),
                    );
                    continue;
                }
                if errors.len() == before {
                    self.parts.insert(
                        id,
                        Part {
                            def: p,
                            file: file.clone(),
                        },
                    );
                }
            }
            return if errors.is_empty() {
                Ok(())
            } else {
                Err(InputErrors { errors })
            };
        }
        let def: PlatformFile = parse_toml(&file)?;
        validate_platform(&def, &file)?;
        let id = def.id.get_ref().clone();
        if let Some(prev) = self.platforms.get(&id) {
            return Err(file
                .error(def.id.span(), format!("duplicate platform id `{id}`"))
                .with_help(format!(
                    "{} already defines it; give this platform its own id",
                    prev.file.name
                ))
                .into());
        }
        let slot_kinds = slot_kinds_of(&def);
        self.platforms.insert(
            id,
            Platform {
                def,
                file,
                slot_kinds,
            },
        );
        Ok(())
    }

    /// Every kind a part `fits` is declared by some platform (or is `pcie`): a misspelt
    /// kind would make the part fit nowhere.
    fn check_fits(&self) -> Result<(), InputErrors> {
        let known: HashSet<&SlotKind> = self
            .platforms
            .values()
            .flat_map(|p| p.slot_kinds.iter().map(|k| &k.id))
            .collect();
        let mut errors = Vec::new();
        for part in self.parts.values() {
            for k in &part.def.fits {
                if k.get_ref().as_str() != SlotKind::PCIE && !known.contains(k.get_ref()) {
                    let mut names: Vec<&str> = known.iter().map(|k| k.as_str()).collect();
                    names.sort();
                    errors.push(
                        part.file
                            .error(k.span(), format!("unknown slot kind `{}`", k.get_ref()))
                            .with_help(format!(
                                "no platform declares it with [[slot_kind]]; declared: {}",
                                names.join(", ")
                            )),
                    );
                }
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            errors.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
            Err(InputErrors { errors })
        }
    }

    pub fn platform(&self, id: &str) -> Option<&Platform> {
        self.platforms.get(&id.to_ascii_lowercase())
    }

    pub fn part(&self, id: &str) -> Option<&Part> {
        self.parts
            .get(id)
            .or_else(|| self.parts.get(&id.to_ascii_lowercase()))
    }

    /// `laneplan parts SEARCH`: the parts [`Part::matches`] `query`, in id order.
    pub fn search_parts(&self, query: &str) -> Vec<&Part> {
        self.parts.values().filter(|p| p.matches(query)).collect()
    }

    /// The catalogue with only the parts that match `query` (platforms kept).
    pub fn with_parts_matching(&self, query: &str) -> Catalog {
        Catalog {
            platforms: self.platforms.clone(),
            parts: self
                .parts
                .iter()
                .filter(|(_, p)| p.matches(query))
                .map(|(k, p)| (k.clone(), p.clone()))
                .collect(),
        }
    }

    /// The part ids an unknown `id` may have meant: a near typo
    /// ([`crate::suggest::did_you_mean`]), else the parts it is a search for (`cx5` ->
    /// `mellanox-cx5-100g`), at most five.
    pub fn part_suggestions(&self, id: &str) -> Vec<&str> {
        if let Some(k) = crate::suggest::did_you_mean(id, self.parts.keys().map(String::as_str)) {
            return vec![k];
        }
        let mut found: Vec<&str> = self.search_parts(id).into_iter().map(Part::id).collect();
        found.truncate(5);
        found
    }

    /// The help line of an unknown part: its suggestions, then where the catalogue is.
    pub fn unknown_part_help(&self, id: &str) -> String {
        let rest = "`laneplan parts SEARCH` searches the catalogue";
        match self.part_suggestions(id)[..] {
            [] => rest.to_string(),
            [one] => format!("did you mean `{one}`? {rest}"),
            ref many => format!(
                "did you mean one of {}? {rest}",
                many.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A parts file holds `[[part]]` tables; TOML allows blanks inside the brackets
/// (`[[ part ]]`) and a quoted key (`[["part"]]`).
fn is_parts_file(text: &str) -> bool {
    text.lines().any(|l| {
        l.trim_start()
            .strip_prefix("[[")
            .and_then(|r| r.split_once("]]"))
            .is_some_and(|(key, _)| {
                let key = key.trim();
                key == "part" || key == "\"part\"" || key == "'part'"
            })
    })
}

/// Ids of platforms, parts and slot kinds: lowercase ASCII letters, digits, `-`, `_`, `.`,
/// starting with a letter or digit.
pub fn valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
}

fn check_id(id: &S<String>, what: &str, file: &SourceFile, errors: &mut Vec<InputError>) {
    let v = id.get_ref();
    if !valid_id(v) {
        errors.push(
            file.error(
                id.span(),
                format!("{what} id `{v}` must be lowercase letters, digits, `-`, `_` or `.`"),
            )
            .with_help(format!("write `{}`", v.to_ascii_lowercase())),
        );
    }
}

/// Why a component id cannot be used: the plan names the nodes it makes from ids joined
/// with `/`, and names bays and switch ports `bayN` and `portN`, so these would clash.
fn reserved_id(id: &str) -> Option<&'static str> {
    let numbered = |prefix: &str| {
        id.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if id.is_empty() {
        Some("is empty")
    } else if id.contains('/') {
        Some("must not contain `/` (laneplan joins ids with it)")
    } else if numbered("bay") || numbered("port") {
        Some("is reserved (laneplan names bays `bayN` and switch ports `portN`)")
    } else {
        None
    }
}

/// Highest link or storage figure (GB/s, Gb/s): far above any PCIe, UPI or SAS link, low
/// enough that sums over a platform stay finite.
pub const MAX_FIGURE: f64 = 1e5;
/// Highest part spec: sequential GB/s (a Gen6 x16 link carries about 121 GB/s a direction)
/// and 4K IOPS.
pub const MAX_PERF_GBS: f64 = 1e3;
pub const MAX_PERF_IOPS: f64 = 1e9;

/// A figure that must be a finite number above zero (GB/s, Gb/s), at most [`MAX_FIGURE`].
fn check_positive(v: &S<f64>, what: &str, file: &SourceFile, errors: &mut Vec<InputError>) {
    let x = *v.get_ref();
    if !(x.is_finite() && x > 0.0) {
        errors.push(file.error(
            v.span(),
            format!("{what} must be a finite number above zero, got {x}"),
        ));
    } else if x > MAX_FIGURE {
        errors.push(file.error(
            v.span(),
            format!("{what} is {x:e}: at most {MAX_FIGURE} (far above any link)"),
        ));
    }
}

fn validate_part(p: &PartDef, file: &SourceFile, errors: &mut Vec<InputError>) {
    check_id(&p.id, "part", file, errors);
    if p.class.is_drive() && p.interface.is_none() {
        errors.push(file.error(
            p.id.span(),
            format!(
                "drive `{}` needs `interface` (nvme, sas or sata)",
                p.id.get_ref()
            ),
        ));
    }
    if p.class == crate::topology::DeviceClass::Extender && p.ports.is_none_or(|n| n == 0) {
        errors.push(file.error(
            p.id.span(),
            format!(
                "extender card `{}` needs `ports` (drives it serves, at least 1)",
                p.id.get_ref()
            ),
        ));
    }
    if let Some(size) = &p.size
        && !["2.5", "3.5", "m.2"].contains(&size.as_str())
    {
        errors.push(file.error(
            p.id.span(),
            format!(
                "part `{}`: size `{size}` is not one of 2.5, 3.5, m.2",
                p.id.get_ref()
            ),
        ));
    }
    for k in &p.fits {
        if !valid_id(k.get_ref().as_str()) {
            errors.push(file.error(
                k.span(),
                format!(
                    "slot kind `{}` must be lowercase letters, digits, `-`, `_` or `.`",
                    k.get_ref()
                ),
            ));
        }
    }
    if let Some(g) = &p.storage_gbps {
        check_positive(g, "storage_gbps", file, errors);
        // A drive's own link cannot run above its interface: SATA 6 Gb/s, SAS-4 24 Gb/s.
        let max = match p.interface {
            Some(Interface::Sata) if p.class.is_drive() => Some(("SATA", 6.0)),
            Some(Interface::Sas) if p.class.is_drive() => Some(("SAS", 24.0)),
            _ => None,
        };
        if let Some((name, max)) = max
            && *g.get_ref() > max
        {
            errors.push(file.error(
                g.span(),
                format!(
                    "drive `{}`: storage_gbps {} is above {name}'s {max} Gb/s",
                    p.id.get_ref(),
                    g.get_ref()
                ),
            ));
        }
    }
    if let Some(perf) = &p.perf {
        for (name, v, max) in [
            ("seq_read_gbs", perf.seq_read_gbs, MAX_PERF_GBS),
            ("seq_write_gbs", perf.seq_write_gbs, MAX_PERF_GBS),
            ("rand_read_iops", perf.rand_read_iops, MAX_PERF_IOPS),
            ("rand_write_iops", perf.rand_write_iops, MAX_PERF_IOPS),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                errors.push(file.error(
                    p.id.span(),
                    format!(
                        "part `{}`: perf {name} must be a finite number, zero or above, got {v}",
                        p.id.get_ref()
                    ),
                ));
            } else if v > max {
                errors.push(file.error(
                    p.id.span(),
                    format!(
                        "part `{}`: perf {name} is {v:e}: at most {max} (no device comes near it)",
                        p.id.get_ref()
                    ),
                ));
            }
        }
    }
}

/// Where each id was first declared, for "duplicate id" errors.
type IdSpans = HashMap<String, Range<usize>>;

/// Ids and bays a fragment (the platform's base, or one choice) declares.
#[derive(Default, Clone)]
struct Declared {
    ids: IdSpans,
    bays: HashMap<u32, Range<usize>>,
}

fn fragment_ids<'a>(
    slots: &'a [SlotDef],
    switches: &'a [SwitchDef],
    builtins: &'a [BuiltinDef],
) -> impl Iterator<Item = &'a S<String>> {
    slots
        .iter()
        .map(|s| &s.id)
        .chain(switches.iter().map(|s| &s.id))
        .chain(builtins.iter().map(|b| &b.id))
}

/// Ids and references of a platform: every reference names a defined id; ids are unique in
/// every combination of options (choices of one option are alternatives, so they may
/// repeat each other's ids, but never the base's or another option's); a bay belongs to
/// one group; every slot's kind is declared; figures are possible ones.
fn validate_platform(def: &PlatformFile, file: &SourceFile) -> Result<(), InputErrors> {
    let mut errors = Vec::new();
    check_id(&def.id, "platform", file, &mut errors);
    let kinds = declared_slot_kinds(def, file, &mut errors);
    let v = Validator::new(def, file, &kinds);
    if def.sockets.is_empty() {
        errors.push(file.error(def.id.span(), "a platform needs at least one [[socket]]"));
    }
    // Bound the work below whatever the file says: every list at most once.
    if let Some(e) = too_many_bays(def, file) {
        errors.push(e);
        return Err(InputErrors { errors });
    }
    // Base ids: sockets, root complexes, slots, switches, built-ins share one namespace.
    let mut base = Declared::default();
    v.check_sockets(def, &mut base, &mut errors);
    v.check_fabrics(def, &mut errors);
    v.check_root_complexes(def, &mut base, &mut errors);
    v.check_fragment(Fragment::base(def), &mut base, &[], &mut errors);
    check_switch_cycles(def, file, &mut errors);
    v.check_options(def, &base, &mut errors);
    for rule in &def.card_rules {
        for s in &rule.slots {
            v.refer(s, &v.all_slots, "slot", &mut errors);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        errors.sort_by_key(|e| (e.line, e.column));
        Err(InputErrors { errors })
    }
}

/// The declared slot kinds with their spans; an invalid or duplicate kind is an error.
fn declared_slot_kinds<'a>(
    def: &'a PlatformFile,
    file: &SourceFile,
    errors: &mut Vec<InputError>,
) -> HashMap<&'a SlotKind, Range<usize>> {
    let mut kinds: HashMap<&SlotKind, Range<usize>> = HashMap::new();
    for k in &def.slot_kinds {
        if !valid_id(k.id.get_ref().as_str()) {
            errors.push(file.error(
                k.id.span(),
                format!(
                    "slot kind `{}` must be lowercase letters, digits, `-`, `_` or `.`",
                    k.id.get_ref()
                ),
            ));
        }
        if let Some(first) = kinds.insert(k.id.get_ref(), k.id.span()) {
            errors.push(
                file.error(
                    k.id.span(),
                    format!("duplicate slot kind `{}`", k.id.get_ref()),
                )
                .with_help(format!(
                    "first declared at line {}",
                    file.line_col(first.start).0
                )),
            );
        }
    }
    kinds
}

/// The error when the bay groups (base and every choice) name more bays than the bound.
fn too_many_bays(def: &PlatformFile, file: &SourceFile) -> Option<InputError> {
    let groups: Vec<&BayGroupDef> = def
        .bays
        .iter()
        .chain(
            def.options
                .iter()
                .flat_map(|o| o.choices.iter().flat_map(|c| &c.bays)),
        )
        .collect();
    over_total_bays(groups.iter().map(|g| g.bays.get_ref().as_str())).map(|i| {
        file.error(
            groups[i].bays.span(),
            format!("the bay groups name more than {MAX_TOTAL_BAYS} bays"),
        )
    })
}

/// Cascaded switches must not form a cycle (a -> b -> a).
fn check_switch_cycles(def: &PlatformFile, file: &SourceFile, errors: &mut Vec<InputError>) {
    let all_switches: Vec<&SwitchDef> = def
        .switches
        .iter()
        .chain(
            def.options
                .iter()
                .flat_map(|o| o.choices.iter().flat_map(|c| &c.switches)),
        )
        .collect();
    let uplinks: HashMap<&str, &str> = all_switches
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
}

/// What each option's choices declare, together: choices of one option exclude each
/// other, choices of different options combine.
fn declared_per_option(def: &PlatformFile) -> Vec<Declared> {
    def.options
        .iter()
        .map(|o| {
            let mut d = Declared::default();
            for c in &o.choices {
                for id in fragment_ids(&c.slots, &c.switches, &c.builtins) {
                    d.ids.entry(id.get_ref().clone()).or_insert(id.span());
                }
                for b in &c.bays {
                    for n in parse_bay_list(b.bays.get_ref()).unwrap_or_default() {
                        d.bays.entry(n).or_insert(b.bays.span());
                    }
                }
            }
            d
        })
        .collect()
}

/// The lists a fragment (the platform's base, or one choice) declares.
#[derive(Clone, Copy)]
struct Fragment<'a> {
    slots: &'a [SlotDef],
    switches: &'a [SwitchDef],
    bays: &'a [BayGroupDef],
    builtins: &'a [BuiltinDef],
}

impl<'a> Fragment<'a> {
    fn base(def: &'a PlatformFile) -> Self {
        Fragment {
            slots: &def.slots,
            switches: &def.switches,
            bays: &def.bays,
            builtins: &def.builtins,
        }
    }

    fn choice(c: &'a ChoiceDef) -> Self {
        Fragment {
            slots: &c.slots,
            switches: &c.switches,
            bays: &c.bays,
            builtins: &c.builtins,
        }
    }
}

/// What the rules of `validate_platform` look ids up in.
struct Validator<'a> {
    file: &'a SourceFile,
    kinds: &'a HashMap<&'a SlotKind, Range<usize>>,
    pcie: SlotKind,
    kind_names: Vec<&'a str>,
    sockets: HashSet<&'a str>,
    rcs: HashSet<&'a str>,
    all_slots: HashSet<&'a str>,
    switches: HashSet<&'a str>,
}

impl<'a> Validator<'a> {
    fn new(
        def: &'a PlatformFile,
        file: &'a SourceFile,
        kinds: &'a HashMap<&'a SlotKind, Range<usize>>,
    ) -> Self {
        let pcie = SlotKind::pcie();
        let mut kind_names: Vec<&str> = kinds.keys().map(|k| k.as_str()).collect();
        if !kinds.contains_key(&pcie) {
            kind_names.push(SlotKind::PCIE);
        }
        kind_names.sort();
        let sockets = def
            .sockets
            .iter()
            .map(|s| s.id.get_ref().as_str())
            .collect();
        let rcs = def
            .root_complexes
            .iter()
            .map(|r| r.id.get_ref().as_str())
            .collect();
        let all_slots = def
            .slots
            .iter()
            .chain(
                def.options
                    .iter()
                    .flat_map(|o| o.choices.iter().flat_map(|c| &c.slots)),
            )
            .map(|s| s.id.get_ref().as_str())
            .collect();
        let switches = def
            .switches
            .iter()
            .chain(
                def.options
                    .iter()
                    .flat_map(|o| o.choices.iter().flat_map(|c| &c.switches)),
            )
            .map(|s| s.id.get_ref().as_str())
            .collect();
        Validator {
            file,
            kinds,
            pcie,
            kind_names,
            sockets,
            rcs,
            all_slots,
            switches,
        }
    }

    fn known_kind(&self, k: &SlotKind) -> bool {
        k == &self.pcie || self.kinds.contains_key(k)
    }

    /// A reference must name one of `set`.
    fn refer(&self, r: &S<String>, set: &HashSet<&str>, what: &str, errors: &mut Vec<InputError>) {
        if !set.contains(r.get_ref().as_str()) {
            let mut known: Vec<&&str> = set.iter().collect();
            known.sort();
            let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
            errors.push(
                self.file
                    .error(r.span(), format!("unknown {what} `{}`", r.get_ref()))
                    .with_help(format!("expected one of: {}", known.join(", "))),
            );
        }
    }

    /// Declare `id` in `d`: not reserved, and not declared in `d` or any of `others`.
    fn declare(
        &self,
        d: &mut Declared,
        others: &[&Declared],
        id: &S<String>,
        errors: &mut Vec<InputError>,
    ) {
        let file = self.file;
        let v = id.get_ref();
        if let Some(why) = reserved_id(v) {
            errors.push(file.error(id.span(), format!("id `{v}` {why}")));
        }
        let first = d
            .ids
            .get(v)
            .or_else(|| others.iter().find_map(|o| o.ids.get(v)));
        match first {
            Some(first) => errors.push(
                file.error(id.span(), format!("duplicate id `{v}`"))
                    .with_help(format!(
                        "first declared at line {}; ids must be unique in every combination of options",
                        file.line_col(first.start).0
                    )),
            ),
            None => {
                d.ids.insert(v.clone(), id.span());
            }
        }
    }

    fn check_sockets(&self, def: &PlatformFile, base: &mut Declared, errors: &mut Vec<InputError>) {
        for s in &def.sockets {
            self.declare(base, &[], &s.id, errors);
            let cpus = crate::cpu::builtin();
            for c in s.cpu_default.iter().chain(&s.cpus) {
                if cpus.cpu(c.get_ref()).is_none() {
                    errors.push(self.file.error(c.span(), cpus.unknown_cpu(c.get_ref())));
                }
            }
        }
    }

    fn check_fabrics(&self, def: &PlatformFile, errors: &mut Vec<InputError>) {
        for f in &def.fabrics {
            for end in f.between.get_ref() {
                self.refer(end, &self.sockets, "socket", errors);
            }
            if *f.links.get_ref() == 0 {
                errors.push(
                    self.file
                        .error(f.links.span(), "a fabric needs at least one link"),
                );
            }
            check_positive(&f.gbs_per_link, "gbs_per_link", self.file, errors);
        }
    }

    fn check_root_complexes(
        &self,
        def: &PlatformFile,
        base: &mut Declared,
        errors: &mut Vec<InputError>,
    ) {
        for r in &def.root_complexes {
            self.declare(base, &[], &r.id, errors);
            self.refer(&r.socket, &self.sockets, "socket", errors);
            if *r.lanes.get_ref() == 0 {
                errors.push(
                    self.file
                        .error(r.lanes.span(), "a root complex needs at least one lane"),
                );
            }
            if let Some(g) = &r.max_gbs {
                check_positive(g, "max_gbs", self.file, errors);
            }
        }
    }

    /// A fragment's ids are new (in `d` and `others`), its references resolve, its slots and
    /// bay groups are possible ones.
    fn check_fragment(
        &self,
        f: Fragment,
        d: &mut Declared,
        others: &[&Declared],
        errors: &mut Vec<InputError>,
    ) {
        for id in fragment_ids(f.slots, f.switches, f.builtins) {
            self.declare(d, others, id, errors);
        }
        for s in f.slots {
            self.check_slot(s, errors);
        }
        for s in f.switches {
            if !self.switches.contains(s.uplink.get_ref().as_str()) {
                self.refer(&s.uplink, &self.rcs, "root complex or switch", errors);
            }
        }
        for b in f.bays {
            self.check_bay_group(b, d, others, errors);
        }
        for b in f.builtins {
            self.refer(&b.root_complex, &self.rcs, "root complex", errors);
        }
    }

    fn check_slot(&self, s: &SlotDef, errors: &mut Vec<InputError>) {
        let file = self.file;
        self.refer(&s.root_complex, &self.rcs, "root complex", errors);
        if !self.known_kind(s.kind.get_ref()) {
            errors.push(
                file.error(
                    s.kind.span(),
                    format!("unknown slot kind `{}`", s.kind.get_ref()),
                )
                .with_help(format!(
                    "declare it with [[slot_kind]]; this platform has: {}",
                    self.kind_names.join(", ")
                )),
            );
        }
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
    }

    fn check_bay_group(
        &self,
        b: &BayGroupDef,
        d: &mut Declared,
        others: &[&Declared],
        errors: &mut Vec<InputError>,
    ) {
        let file = self.file;
        match parse_bay_list(b.bays.get_ref()) {
            Err(e) => errors.push(file.error(b.bays.span(), e)),
            Ok(numbers) => declare_bays(file, b, numbers, d, others, errors),
        }
        let (set, what) = match b.via {
            Via::Direct => (&self.rcs, "root complex"),
            Via::Switch => (&self.switches, "switch"),
            Via::Card | Via::Controller => (&self.all_slots, "slot"),
        };
        self.refer(&b.to, set, what, errors);
        if b.interfaces.is_empty() {
            errors.push(file.error(b.bays.span(), "a bay group needs at least one interface"));
        }
        if !["front", "rear"].contains(&b.location.as_str()) {
            errors.push(file.error(
                b.bays.span(),
                format!("bay location `{}` is not front or rear", b.location),
            ));
        }
        if !["2.5", "3.5"].contains(&b.size.as_str()) {
            errors.push(file.error(
                b.bays.span(),
                format!("bay size `{}` is not 2.5 or 3.5", b.size),
            ));
        }
    }

    /// Options: unique keys, a default among the choices, unique choices, and every
    /// choice a valid fragment against the base and the earlier options.
    fn check_options(&self, def: &PlatformFile, base: &Declared, errors: &mut Vec<InputError>) {
        let file = self.file;
        let per_option = declared_per_option(def);
        let mut keys = HashSet::new();
        for (oi, o) in def.options.iter().enumerate() {
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
            // Earlier options' declarations only: a clash between two options is reported
            // once, at the later one.
            let mut others: Vec<&Declared> = vec![base];
            others.extend(per_option[..oi].iter());
            self.check_choices(def, o, base, &others, errors);
        }
    }

    fn check_choices(
        &self,
        def: &PlatformFile,
        o: &OptionDef,
        base: &Declared,
        others: &[&Declared],
        errors: &mut Vec<InputError>,
    ) {
        let mut values = HashSet::new();
        for c in &o.choices {
            if !values.insert(c.value.get_ref().as_str()) {
                errors.push(self.file.error(
                    c.value.span(),
                    format!(
                        "duplicate choice `{}` of option `{}`",
                        c.value.get_ref(),
                        o.key.get_ref()
                    ),
                ));
            }
            let mut own = Declared::default();
            // A host variant's choice may replace base slots by id (and nothing else).
            let unreplaced;
            let mut others_here = others.to_vec();
            if o.host_variant {
                let mut b = base.clone();
                for s in &c.slots {
                    if def.slots.iter().any(|d| d.id.get_ref() == s.id.get_ref()) {
                        b.ids.remove(s.id.get_ref());
                    }
                }
                unreplaced = b;
                others_here[0] = &unreplaced;
            }
            self.check_fragment(Fragment::choice(c), &mut own, &others_here, errors);
            for r in &c.reserves {
                self.refer(r, &self.all_slots, "slot", errors);
            }
            for n in &c.numa {
                self.refer(&n.socket, &self.sockets, "socket", errors);
            }
        }
    }
}

/// Declare a bay group's bays in `d`; the first bay already in a group is an error.
fn declare_bays(
    file: &SourceFile,
    b: &BayGroupDef,
    numbers: impl IntoIterator<Item = u32>,
    d: &mut Declared,
    others: &[&Declared],
    errors: &mut Vec<InputError>,
) {
    for n in numbers {
        let first = d
            .bays
            .get(&n)
            .or_else(|| others.iter().find_map(|o| o.bays.get(&n)))
            .cloned();
        match first {
            Some(first) => {
                errors.push(
                    file.error(b.bays.span(), format!("bay {n} is in two bay groups"))
                        .with_help(format!(
                            "the group at line {} has it too; a bay belongs to one group in every combination of options",
                            file.line_col(first.start).0
                        )),
                );
                break;
            }
            None => {
                d.bays.insert(n, b.bays.span());
            }
        }
    }
}

/// The span of a `Spanned` value, for callers outside this module.
pub fn span<T>(v: &S<T>) -> Range<usize> {
    v.span()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_files_are_told_by_their_tables() {
        assert!(is_parts_file("[[part]]\nid = \"a\""));
        assert!(is_parts_file("  [[ part ]]\nid = \"a\""));
        assert!(is_parts_file("[[\"part\"]]"));
        assert!(!is_parts_file("[[partner]]"));
        assert!(!is_parts_file("id = \"x\"\n[[slot]]\n# [[part]]"));
    }

    #[test]
    fn ids_are_lowercase() {
        assert!(valid_id("r740xd"));
        assert!(valid_id("cpu1.stack1"));
        assert!(!valid_id("Tiny"));
        assert!(!valid_id(""));
        assert!(!valid_id("-a"));
    }
}
