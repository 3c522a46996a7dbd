//! CPUs and I/O stacks as data: `platforms/cpus.toml` (cores, clocks, memory channels and
//! speed, PCIe lanes per socket) and `platforms/stacks.toml` (cycles per I/O and per byte of
//! each I/O stack), embedded at build time. Every figure is checked as the file is parsed
//! (finite, above zero, within bounds no real part reaches), each error at its value.
//! The end-to-end flow ([`crate::flow::system`]) weighs them beside the lanes.

use crate::source::{InputError, SourceFile, parse_toml};
use crate::topology::Confidence;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;
use toml::Spanned as S;

/// The embedded files (name, text).
pub const EMBEDDED_CPUS: (&str, &str) = (
    "platforms/cpus.toml",
    include_str!("../platforms/cpus.toml"),
);
pub const EMBEDDED_STACKS: (&str, &str) = (
    "platforms/stacks.toml",
    include_str!("../platforms/stacks.toml"),
);

/// One CPU model (per socket).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cpu {
    pub id: String,
    pub name: String,
    pub cores: u32,
    pub threads: u32,
    pub base_ghz: f64,
    /// The all-core clock under load, where a source gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_core_ghz: Option<f64>,
    pub memory_channels: u32,
    /// The fastest memory the CPU runs (MT/s).
    pub memory_mts: u32,
    pub pcie_lanes: u32,
    #[serde(rename = "gen")]
    pub generation: u8,
    pub confidence: Confidence,
    pub source: Option<String>,
}

impl Cpu {
    /// The clock the flow charges: the all-core clock where known, else the base clock.
    pub fn clock_ghz(&self) -> f64 {
        self.all_core_ghz.unwrap_or(self.base_ghz)
    }
    /// `all-core` or `base`: which clock [`Cpu::clock_ghz`] is.
    pub fn clock_kind(&self) -> &'static str {
        if self.all_core_ghz.is_some() {
            "all-core"
        } else {
            "base"
        }
    }
    /// The memory ceiling of one socket: channels x MT/s x 8 bytes, GB/s.
    pub fn memory_gbs(&self) -> f64 {
        self.memory_gbs_at(self.memory_mts)
    }
    /// The same at a given memory speed (a build's slower DIMMs).
    pub fn memory_gbs_at(&self, mts: u32) -> f64 {
        self.memory_channels as f64 * mts as f64 * 8.0 / 1000.0
    }
}

/// One I/O stack's CPU cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stack {
    pub id: String,
    pub name: String,
    pub cycles_per_io: f64,
    pub cycles_per_byte: f64,
    pub confidence: Confidence,
    pub source: Option<String>,
    /// How a published IOPS-per-core figure became cycles.
    pub conversion: Option<String>,
}

impl Stack {
    /// Cycles one I/O of `bytes` costs.
    pub fn cycles(&self, bytes: f64) -> f64 {
        self.cycles_per_io + self.cycles_per_byte * bytes
    }
}

/// The CPU and stack catalogues.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub cpus: Vec<Cpu>,
    pub stacks: Vec<Stack>,
}

impl Catalog {
    pub fn cpu(&self, id: &str) -> Option<&Cpu> {
        self.cpus.iter().find(|c| c.id.eq_ignore_ascii_case(id))
    }
    pub fn stack(&self, id: &str) -> Option<&Stack> {
        self.stacks.iter().find(|s| s.id.eq_ignore_ascii_case(id))
    }
    /// `unknown CPU `x``, with did-you-mean and the list.
    pub fn unknown_cpu(&self, id: &str) -> String {
        unknown("CPU", id, self.cpus.iter().map(|c| c.id.as_str()))
    }
    /// `unknown I/O stack `x``, with did-you-mean and the list.
    pub fn unknown_stack(&self, id: &str) -> String {
        unknown("I/O stack", id, self.stacks.iter().map(|s| s.id.as_str()))
    }
}

fn unknown<'a>(what: &str, id: &str, known: impl Iterator<Item = &'a str> + Clone) -> String {
    let list: Vec<&str> = known.clone().collect();
    crate::suggest::help_with(
        id,
        known,
        &format!("unknown {what} `{id}`; known: {}", list.join(", ")),
    )
}

/// The catalogue built into laneplan (parsed once; the embedded files are tested to parse).
pub fn builtin() -> &'static Catalog {
    static CAT: OnceLock<Catalog> = OnceLock::new();
    CAT.get_or_init(|| {
        let cpus = SourceFile::new(EMBEDDED_CPUS.0, EMBEDDED_CPUS.1);
        let stacks = SourceFile::new(EMBEDDED_STACKS.0, EMBEDDED_STACKS.1);
        load(&cpus, &stacks).unwrap_or_default()
    })
}

/// Parses and checks a CPU file and a stack file.
pub fn load(cpus: &SourceFile, stacks: &SourceFile) -> Result<Catalog, InputError> {
    let c: CpuFile = parse_toml(cpus)?;
    let s: StackFile = parse_toml(stacks)?;
    let mut out = Catalog::default();
    for d in c.cpu {
        let id = checked_id(cpus, &d.id, out.cpus.iter().map(|c| c.id.as_str()))?;
        let int = |v: &S<u32>, what: &str, max: u32| -> Result<u32, InputError> {
            let x = *v.get_ref();
            if x == 0 || x > max {
                return Err(cpus.error(v.span(), format!("{what} must be 1 to {max}, got {x}")));
            }
            Ok(x)
        };
        let cores = int(&d.cores, "cores", 1024)?;
        let threads = int(&d.threads, "threads", 4096)?;
        if threads < cores {
            return Err(cpus.error(
                d.threads.span(),
                format!("threads ({threads}) below cores ({cores})"),
            ));
        }
        let base = figure(cpus, &d.base_ghz, "base_ghz", 0.1, 10.0)?;
        let all = match &d.all_core_ghz {
            Some(v) => Some(figure(cpus, v, "all_core_ghz", 0.1, 10.0)?),
            None => None,
        };
        let pgen = *d.generation.get_ref();
        if !(1..=6).contains(&pgen) {
            return Err(cpus.error(
                d.generation.span(),
                format!("a PCIe generation is 1 to 6, got {pgen}"),
            ));
        }
        out.cpus.push(Cpu {
            id,
            name: d.name,
            cores,
            threads,
            base_ghz: base,
            all_core_ghz: all,
            memory_channels: int(&d.memory_channels, "memory_channels", 64)?,
            memory_mts: int(&d.memory_mts, "memory_mts", 20000)?,
            pcie_lanes: int(&d.pcie_lanes, "pcie_lanes", 1024)?,
            generation: pgen,
            confidence: d.confidence,
            source: d.source,
        });
    }
    for d in s.stack {
        let id = checked_id(stacks, &d.id, out.stacks.iter().map(|s| s.id.as_str()))?;
        out.stacks.push(Stack {
            id,
            name: d.name,
            cycles_per_io: figure(stacks, &d.cycles_per_io, "cycles_per_io", 1.0, MAX_CYCLES)?,
            cycles_per_byte: zero_or_figure(stacks, &d.cycles_per_byte, "cycles_per_byte")?,
            confidence: d.confidence,
            source: d.source,
            conversion: d.conversion,
        });
    }
    Ok(out)
}

/// More cycles per I/O or per op than this is no real figure (ten seconds of a 1 GHz core).
pub const MAX_CYCLES: f64 = 1e10;
/// The most cycles per byte a figure may say (a byte copied a thousand times over).
pub const MAX_CYCLES_PER_BYTE: f64 = 1e3;

fn checked_id<'a>(
    file: &SourceFile,
    id: &S<String>,
    seen: impl Iterator<Item = &'a str>,
) -> Result<String, InputError> {
    let v = id.get_ref();
    let ok = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c));
    if !ok {
        return Err(file
            .error(id.span(), format!("`{v}` is not an id"))
            .with_help("ids are lowercase ASCII letters, digits, `-`, `_` and `.`"));
    }
    let mut seen = seen;
    if seen.any(|s| s == v) {
        return Err(file.error(id.span(), format!("`{v}` is defined twice")));
    }
    Ok(v.clone())
}

/// A figure within `[min, max]`: finite (no `nan`, `inf`), at the value otherwise.
fn figure(
    file: &SourceFile,
    v: &S<f64>,
    what: &str,
    min: f64,
    max: f64,
) -> Result<f64, InputError> {
    let x = *v.get_ref();
    if !x.is_finite() || x < min || x > max {
        return Err(file.error(
            v.span(),
            format!("{what} must be a finite figure from {min} to {max}, got {x}"),
        ));
    }
    Ok(x)
}

fn zero_or_figure(file: &SourceFile, v: &S<f64>, what: &str) -> Result<f64, InputError> {
    let x = *v.get_ref();
    if !x.is_finite() || !(0.0..=MAX_CYCLES_PER_BYTE).contains(&x) {
        return Err(file.error(
            v.span(),
            format!("{what} must be a finite figure from 0 to {MAX_CYCLES_PER_BYTE}, got {x}"),
        ));
    }
    Ok(x)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CpuFile {
    #[serde(default)]
    cpu: Vec<CpuDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CpuDef {
    id: S<String>,
    name: String,
    cores: S<u32>,
    threads: S<u32>,
    base_ghz: S<f64>,
    #[serde(default)]
    all_core_ghz: Option<S<f64>>,
    memory_channels: S<u32>,
    memory_mts: S<u32>,
    pcie_lanes: S<u32>,
    #[serde(rename = "gen")]
    generation: S<u8>,
    #[serde(default)]
    confidence: Confidence,
    #[serde(default)]
    source: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StackFile {
    #[serde(default)]
    stack: Vec<StackDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StackDef {
    id: S<String>,
    name: String,
    cycles_per_io: S<f64>,
    #[serde(default = "zero")]
    cycles_per_byte: S<f64>,
    #[serde(default)]
    confidence: Confidence,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    conversion: Option<String>,
}

fn zero() -> S<f64> {
    S::new(0..0, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(cpus: &str, stacks: &str) -> Result<Catalog, InputError> {
        load(
            &SourceFile::new("cpus.toml", cpus),
            &SourceFile::new("stacks.toml", stacks),
        )
    }

    #[test]
    fn embedded_files_parse() {
        let c = load(
            &SourceFile::new(EMBEDDED_CPUS.0, EMBEDDED_CPUS.1),
            &SourceFile::new(EMBEDDED_STACKS.0, EMBEDDED_STACKS.1),
        )
        .unwrap();
        let g = c.cpu("XEON-GOLD-6130").unwrap();
        assert_eq!((g.cores, g.base_ghz, g.memory_channels), (16, 2.1, 6));
        // 6 x 2666 MT/s x 8 B
        assert!((g.memory_gbs() - 127.968).abs() < 1e-9);
        assert_eq!(c.stack("ceph-osd-read").unwrap().cycles(4096.0), 200_000.0);
        assert!(builtin().cpus.len() >= 25);
    }

    #[test]
    fn bad_figures_are_located() {
        let cpu = |ghz: &str| {
            format!(
                "[[cpu]]\nid = \"x\"\nname = \"X\"\ncores = 4\nthreads = 8\nbase_ghz = {ghz}\nmemory_channels = 2\nmemory_mts = 2400\npcie_lanes = 16\ngen = 3\n"
            )
        };
        for bad in ["nan", "-1.0", "inf", "1000.0"] {
            let e = load_str(&cpu(bad), "").unwrap_err();
            assert_eq!((e.line, e.column), (6, 12), "{bad}: {e:?}");
            assert!(
                e.message.starts_with("base_ghz must be a finite figure"),
                "{}",
                e.message
            );
        }
        let e = load_str(
            "",
            "[[stack]]\nid = \"s\"\nname = \"S\"\ncycles_per_io = nan\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 4);
        // Negative and absurd stack figures are located errors too, on their own line.
        for (field, bad, line) in [
            ("cycles_per_io", "-5.0", 4),
            ("cycles_per_io", "1e12", 4),
            ("cycles_per_byte", "-1.0", 5),
            ("cycles_per_byte", "inf", 5),
        ] {
            let text = format!(
                "[[stack]]\nid = \"s\"\nname = \"S\"\ncycles_per_io = {}\ncycles_per_byte = {}\n",
                if field == "cycles_per_io" {
                    bad
                } else {
                    "1000.0"
                },
                if field == "cycles_per_byte" {
                    bad
                } else {
                    "0.0"
                },
            );
            let e = load_str("", &text).unwrap_err();
            assert_eq!(e.line, line, "{field} = {bad}: {e:?}");
            assert!(
                e.message.starts_with(field),
                "{field} = {bad}: {}",
                e.message
            );
        }
        let e = load_str(&cpu("2.0").replace("threads = 8", "threads = 2"), "").unwrap_err();
        assert_eq!(e.message, "threads (2) below cores (4)");
    }

    #[test]
    fn unknown_names_suggest() {
        let c = builtin();
        assert!(
            c.unknown_cpu("xeon-gold-6310")
                .starts_with("did you mean `xeon-gold-6130`?"),
            "{}",
            c.unknown_cpu("xeon-gold-6310")
        );
        assert!(
            c.unknown_stack("ceph-osd-raed")
                .starts_with("did you mean `ceph-osd-read`?")
        );
    }
}
