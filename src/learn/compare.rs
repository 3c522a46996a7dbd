//! Where a learned platform and the built-in one of the same model differ: the built-in
//! found by the DMI product name (its `dmi_names`, matched whole and case-insensitively), or
//! named with `learn --platform ID` (an lspci dump carries no product name).
//!
//! Compared: the socket count, and the physical slots by number (the built-in's own slots
//! and those of every option choice, so a riser variant's slot counts as present): a slot
//! only one side has, and a slot whose electrical width differs.

use super::{Capture, Entry, Holds, LearnOptions, Summary, port_gw};
use crate::platform::Catalog;
use serde::Serialize;
use std::collections::BTreeMap;

/// What differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DifferenceKind {
    /// Another number of sockets.
    Sockets,
    /// A physical slot the host shows that the built-in platform lacks.
    SlotNotInBuiltin,
    /// A physical slot of the built-in platform the host does not show.
    SlotNotSeen,
    /// A slot both have, at another electrical width.
    SlotWidth,
}

/// One difference, both sides as data (`None`: that side has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub kind: DifferenceKind,
    /// The physical slot number, for slot differences.
    pub slot_number: Option<u32>,
    pub learned: Option<String>,
    pub builtin: Option<String>,
}

/// The built-in platform compared with and what differs (empty: nothing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Differences {
    pub platform: String,
    /// How it was found: `dmi-name` or `named`.
    pub matched_by: &'static str,
    pub items: Vec<Difference>,
}

pub(super) fn against_builtin(
    catalog: &Catalog,
    product: Option<&str>,
    opts: &LearnOptions,
    summary: &Summary,
    entries: &[Entry],
    caps: &[Capture],
) -> Option<Differences> {
    let (id, matched_by) = match (&opts.compare, product) {
        (Some(id), _) => (id.clone(), "named"),
        (None, Some(p)) => (
            catalog
                .platforms
                .iter()
                .find(|(_, pl)| {
                    pl.def
                        .dmi_names
                        .iter()
                        .any(|n| n.trim().eq_ignore_ascii_case(p.trim()))
                })?
                .0
                .clone(),
            "dmi-name",
        ),
        (None, None) => return None,
    };
    let pl = catalog.platforms.get(&id)?;
    let mut items = Vec::new();
    if pl.def.sockets.len() != summary.sockets {
        items.push(Difference {
            kind: DifferenceKind::Sockets,
            slot_number: None,
            learned: Some(summary.sockets.to_string()),
            builtin: Some(pl.def.sockets.len().to_string()),
        });
    }
    // Built-in slots by number: label and widths (every variant's).
    let mut builtin: BTreeMap<u32, Vec<(String, u8)>> = BTreeMap::new();
    let all = pl.def.slots.iter().chain(
        pl.def
            .options
            .iter()
            .flat_map(|o| o.choices.iter().flat_map(|c| c.slots.iter())),
    );
    for s in all {
        if let Some(n) = &s.slot_number {
            builtin
                .entry(*n.get_ref())
                .or_default()
                .push((s.label.clone(), s.electrical.get_ref().get()));
        }
    }
    let mut learned: BTreeMap<u32, u8> = BTreeMap::new();
    for e in entries {
        let rc = &caps[e.capture].rcs[e.rc];
        if let Holds::Slot {
            number: Some(n), ..
        } = rc.holds
            && !rc.shares_number
        {
            learned.insert(n, port_gw(rc.port, &caps[e.capture].kids).1);
        }
    }
    for (n, w) in &learned {
        match builtin.get(n) {
            None => items.push(Difference {
                kind: DifferenceKind::SlotNotInBuiltin,
                slot_number: Some(*n),
                learned: Some(format!("Slot {n} x{w}")),
                builtin: None,
            }),
            Some(b) if !b.iter().any(|(_, bw)| bw == w) => items.push(Difference {
                kind: DifferenceKind::SlotWidth,
                slot_number: Some(*n),
                learned: Some(format!("x{w}")),
                builtin: Some(
                    b.iter()
                        .map(|(l, bw)| format!("{l} x{bw}"))
                        .collect::<Vec<_>>()
                        .join(" or "),
                ),
            }),
            Some(_) => {}
        }
    }
    for (n, b) in &builtin {
        if !learned.contains_key(n) {
            items.push(Difference {
                kind: DifferenceKind::SlotNotSeen,
                slot_number: Some(*n),
                learned: None,
                builtin: Some(b[0].0.clone()),
            });
        }
    }
    Some(Differences {
        platform: id,
        matched_by,
        items,
    })
}

/// The differences as text, one line each.
pub fn render_differences(d: &Differences) -> String {
    if d.items.is_empty() {
        return format!(
            "The learned platform agrees with the built-in {} in sockets and physical slots.",
            d.platform
        );
    }
    let mut out = format!(
        "Where the learned platform and the built-in {} differ:",
        d.platform
    );
    for i in &d.items {
        let line = match i.kind {
            DifferenceKind::Sockets => format!(
                "sockets: learned {}, built-in {}",
                i.learned.as_deref().unwrap_or("-"),
                i.builtin.as_deref().unwrap_or("-")
            ),
            DifferenceKind::SlotNotInBuiltin => format!(
                "slot {}: seen on the host ({}), not in the built-in platform",
                i.slot_number.unwrap_or(0),
                i.learned.as_deref().unwrap_or("-")
            ),
            DifferenceKind::SlotNotSeen => format!(
                "slot {}: in the built-in platform ({}), not seen on the host",
                i.slot_number.unwrap_or(0),
                i.builtin.as_deref().unwrap_or("-")
            ),
            DifferenceKind::SlotWidth => format!(
                "slot {}: learned {}, built-in {}",
                i.slot_number.unwrap_or(0),
                i.learned.as_deref().unwrap_or("-"),
                i.builtin.as_deref().unwrap_or("-")
            ),
        };
        out.push_str("\n  ");
        out.push_str(&super::clean(&line));
    }
    out
}
