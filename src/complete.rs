//! Candidates for shell completion: the ids of the catalogue (platforms, their options as
//! `key=value`, parts), the probe's profiles and the CPUs and I/O stacks of
//! `platforms/cpus.toml` and `stacks.toml`, for the hidden `laneplan complete` helper the
//! generated bash, zsh and fish scripts call.

use crate::platform::Catalog;

/// What a completed word names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    Platform,
    /// `key=value` of a platform option.
    Option,
    Part,
    Profile,
    Cpu,
    Stack,
}

/// The candidates of `kind` that start with `prefix` (case ignored), sorted, each once.
/// `platform`: options of that platform only (else of every platform).
pub fn candidates(
    cat: &Catalog,
    kind: IdKind,
    prefix: &str,
    platform: Option<&str>,
) -> Vec<String> {
    let all: Vec<String> = match kind {
        IdKind::Platform => cat.platforms.keys().cloned().collect(),
        IdKind::Part => cat.parts.keys().cloned().collect(),
        IdKind::Profile => crate::probe::workload::PROFILES
            .iter()
            .map(|p| p.name.to_string())
            .collect(),
        IdKind::Cpu => crate::cpu::builtin()
            .cpus
            .iter()
            .map(|c| c.id.clone())
            .collect(),
        IdKind::Stack => crate::cpu::builtin()
            .stacks
            .iter()
            .map(|s| s.id.clone())
            .collect(),
        IdKind::Option => {
            let platforms: Vec<_> = match platform.and_then(|p| cat.platform(p)) {
                Some(p) => vec![p],
                None => cat.platforms.values().collect(),
            };
            platforms
                .iter()
                .flat_map(|p| &p.def.options)
                .flat_map(|o| {
                    o.choices
                        .iter()
                        .map(move |c| format!("{}={}", o.key.get_ref(), c.value.get_ref()))
                })
                .collect()
        }
    };
    let p = prefix.to_lowercase();
    let mut out: Vec<String> = all
        .into_iter()
        .filter(|c| c.to_lowercase().starts_with(&p))
        .collect();
    out.sort();
    out.dedup();
    out
}
