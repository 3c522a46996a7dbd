//! `laneplan place`: the best options, slots and bays for a parts list, proven optimal.
//!
//! Branch and bound over (1) option values, (2) slots for each card type (identical cards
//! take slots in increasing order: one combination, not every permutation), (3) for each
//! group of interchangeable bays (one path: same uplink, backplane and cable), how many
//! drives of each type it holds (they take its lowest-numbered bays). Every partial
//! candidate is checked by the real planner (`eval`): a partial build with an error is cut
//! (the errors `check` reports only grow as parts are added, since cards go in before
//! drives), and every complete candidate that survives passes `check` with 0 errors.
//! The bound: aggregate max-flow of the parts placed so far plus the spec of every drive
//! still to place (max-flow grows by at most a device's ceiling alone when it is added, and
//! that is at most its spec); a node whose bound is below the N-th best score is cut.
//! The score and its tie-breakers are in [`Score`] and docs/place.md.

pub mod eval;
pub mod exhaustive;
pub mod report;
pub mod served;

use crate::finding::{Finding, Severity};
use crate::flow::Scope;
use crate::platform::Catalog;
use crate::platform::schema::{Via, parse_bay_list};
use crate::topology::DeviceClass;
use eval::{Evaluated, GroupSpec, PartSpec, PlatformSpec, SlotSpec, Space};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// What the score maximises first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    /// `served` when the parts list has a NIC with a spec, `read` otherwise (resolved before
    /// the search; an outcome never carries it).
    #[default]
    Auto,
    /// Aggregate read ceiling (max-flow, all drives at once).
    Read,
    /// Aggregate write ceiling.
    Write,
    /// 0.7 x read + 0.3 x write.
    Mixed,
    /// 0.5 x read + 0.5 x write - NUMA imbalance.
    Balanced,
    /// What the node delivers to clients: min(drive read aggregate, NIC transmit
    /// aggregate) (see [`served`]).
    Served,
}

impl Objective {
    /// (read weight, write weight, NUMA imbalance weight).
    pub fn weights(self) -> (f64, f64, f64) {
        match self {
            Objective::Read | Objective::Served | Objective::Auto => (1.0, 0.0, 0.0),
            Objective::Write => (0.0, 1.0, 0.0),
            Objective::Mixed => (0.7, 0.3, 0.0),
            Objective::Balanced => (0.5, 0.5, 1.0),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Objective::Auto => "auto",
            Objective::Read => "read",
            Objective::Write => "write",
            Objective::Mixed => "mixed",
            Objective::Balanced => "balanced",
            Objective::Served => "served",
        }
    }
}

impl Objective {
    /// Every `--objective` value, as [`FromStr`] takes it.
    pub const NAMES: [&'static str; 6] = ["auto", "read", "write", "mixed", "balanced", "served"];
}

impl FromStr for Objective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "read" => Ok(Objective::Read),
            "write" => Ok(Objective::Write),
            "mixed" => Ok(Objective::Mixed),
            "balanced" => Ok(Objective::Balanced),
            "served" => Ok(Objective::Served),
            "auto" => Ok(Objective::Auto),
            _ => Err(format!(
                "expected auto, read, write, mixed, balanced or served, got `{s}`"
            )),
        }
    }
}

/// A placement request.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub platform: String,
    /// Part id and count, in the order given.
    pub parts: Vec<(String, usize)>,
    /// Options fixed by the user.
    pub options: Vec<(String, String)>,
    /// Search every value of the options not fixed (otherwise they take their defaults).
    pub any_option: bool,
    pub objective: Objective,
    /// Slots that must stay empty.
    pub keep_free: Vec<String>,
    /// How many distinct placements to report (the best first); at least 1.
    pub top: usize,
    /// Which devices offer traffic to the read and write aggregates (`flow --devices`).
    pub devices: Scope,
    /// When the search stops with the best found so far.
    pub budget: Budget,
}

/// The search's budget: it stops at whichever comes first and answers with the best
/// placement found, proven optimal or with the gap to the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// Wall time of the search, milliseconds.
    pub time_ms: u64,
    /// Search nodes (option sets, card and bay-group decisions).
    pub nodes: u64,
}

/// The default budget: 600 ms of search, so that the whole command (catalogue, vendor
/// order, output) stays under 1 s.
pub const DEFAULT_BUDGET_MS: u64 = 600;

impl Default for Budget {
    fn default() -> Self {
        Budget {
            time_ms: DEFAULT_BUDGET_MS,
            nodes: u64::MAX,
        }
    }
}

/// A progress report of a running search (about ten a second).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub elapsed: Duration,
    pub nodes: u64,
    /// Option sets started, of all.
    pub option_set: usize,
    pub option_sets: usize,
    /// The best objective value found so far.
    pub best: Option<f64>,
}

/// A request that cannot be searched: unknown platform, part, option, value or slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestError {
    pub message: String,
    pub help: Option<String>,
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RequestError {}

fn req_err(message: String, help: Option<String>) -> RequestError {
    RequestError { message, help }
}

/// Parses `ID` or `ID=COUNT`.
pub fn parse_part_arg(s: &str) -> Result<(String, usize), String> {
    match s.split_once('=') {
        None if !s.trim().is_empty() => Ok((s.trim().to_string(), 1)),
        Some((id, n)) if !id.trim().is_empty() => {
            let n: usize = n
                .trim()
                .parse()
                .map_err(|_| format!("expected ID or ID=COUNT, got `{s}`"))?;
            if n == 0 || n > 4096 {
                return Err(format!("count must be 1 to 4096, got `{s}`"));
            }
            Ok((id.trim().to_string(), n))
        }
        _ => Err(format!("expected ID or ID=COUNT, got `{s}`")),
    }
}

/// A card in a slot.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SlotPick {
    pub slot: String,
    pub part: String,
}

/// Drives of one part in a list of bays (`"12-15"`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct BayPick {
    pub bays: String,
    pub part: String,
}

/// A complete placement: option values, cards in slots, drives in bays.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Placement {
    pub options: BTreeMap<String, String>,
    pub slots: Vec<SlotPick>,
    pub bays: Vec<BayPick>,
}

impl Placement {
    /// The build file for this placement.
    pub fn to_toml(&self, platform: &str, name: &str) -> String {
        let slots: Vec<(String, String)> = self
            .slots
            .iter()
            .map(|s| (s.slot.clone(), s.part.clone()))
            .collect();
        let bays: Vec<(String, String)> = self
            .bays
            .iter()
            .map(|b| (b.bays.clone(), b.part.clone()))
            .collect();
        eval::build_toml(platform, name, &self.options, &slots, &bays)
    }

    fn bay_numbers(&self) -> Vec<(u32, &str)> {
        let mut out = Vec::new();
        for b in &self.bays {
            for n in parse_bay_list(&b.bays).unwrap_or_default() {
                out.push((n, b.part.as_str()));
            }
        }
        out.sort();
        out
    }
}

/// The score of a placement. Compared lexicographically by [`Score::key`]:
/// 1. `value` (objective: the served figure, or the weighted aggregates less what narrowed
///    cards lose, GB/s), higher first;
/// 2. what cards running narrower than their edge lose (GB/s), lower first;
/// 3. the objective over the drives alone (`drive_value`), higher first;
/// 4. read + write aggregate, higher first;
/// 5. NUMA imbalance (busiest NUMA node's traffic minus the mean), lower first;
/// 6. worst oversubscription (demand / capacity of any shared element), lower first;
/// 7. free slot lanes (electrical lanes of empty, unreserved PCIe slots), higher first;
/// 8. options changed from their defaults, fewer first;
/// 9. distance from the vendor's order (priority rank of each card's slot, bay numbers of
///    drives), lower first.
///
/// GB/s and ratios are compared at 1 MB/s (0.001) resolution.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    pub value: f64,
    /// The objective over the drives (read, write, mixed or balanced; read for `served`).
    pub drive_value: f64,
    /// What the node serves to clients (the `served` objective; absent without a NIC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_gbs: Option<f64>,
    /// The NICs' transmit aggregate (absent without a NIC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nic_tx_gbs: Option<f64>,
    /// What cards running narrower than their edge lose, summed (GB/s).
    pub narrow_loss_gbs: f64,
    /// Those cards.
    pub narrowed: Vec<Narrowed>,
    pub read_gbs: f64,
    pub write_gbs: f64,
    pub numa_imbalance_gbs: f64,
    pub numa: Vec<eval::NumaShare>,
    pub oversubscription: f64,
    pub free_slot_lanes: u32,
    pub non_default_options: u32,
    pub vendor_distance: u32,
}

/// A card in a slot narrower than its edge, and what it loses there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Narrowed {
    pub slot: String,
    pub part: String,
    pub edge: u8,
    pub electrical: u8,
    pub loss_gbs: f64,
}

/// The comparison key of a score: larger is better, element by element.
pub type Key = [i64; 9];

fn q(x: f64) -> i64 {
    (x * 1000.0).round() as i64
}

impl Score {
    pub fn key(&self) -> Key {
        [
            q(self.value),
            -q(self.narrow_loss_gbs),
            q(self.drive_value),
            q(self.read_gbs + self.write_gbs),
            -q(self.numa_imbalance_gbs),
            -q(self.oversubscription),
            self.free_slot_lanes as i64,
            -(self.non_default_options as i64),
            -(self.vendor_distance as i64),
        ]
    }
}

/// Names of the key's elements (for "what the runner-up gives up").
pub const KEY_NAMES: [&str; 9] = [
    "objective value",
    "lost by narrowed cards",
    "objective over the drives",
    "read + write aggregate",
    "NUMA imbalance",
    "oversubscription",
    "free slot lanes",
    "options changed from defaults",
    "distance from the vendor order",
];

/// What holds the aggregate of the objective's main direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Binding {
    /// `drives` (every drive at its own ceiling: nothing shared binds) or `elements`.
    pub kind: &'static str,
    pub direction: &'static str,
    pub demand_gbs: f64,
    pub ceiling_gbs: f64,
    /// Saturated elements, most oversubscribed first (labels).
    pub elements: Vec<String>,
    /// The most loaded element and its demand / capacity, when nothing saturates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub most_loaded: Option<(String, f64)>,
}

/// A scored, checked placement.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub placement: Placement,
    pub score: Score,
    pub binding: Binding,
    /// Warnings `check` reports for it: finding objects, as every command has them
    /// (code, severity, subject, message, help, location).
    pub warnings: Vec<Finding>,
}

/// Search statistics.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    /// Option value sets tried.
    pub option_sets: usize,
    /// Nodes of the search tree visited (option sets, card and bay-group decisions).
    pub nodes_explored: u64,
    /// Nodes cut by a `check` error in the partial build or a failed necessary condition.
    pub pruned_infeasible: u64,
    /// Nodes cut by the bound.
    pub pruned_bound: u64,
    /// Card choices skipped as the mirror image of another (interchangeable slots).
    pub pruned_symmetry: u64,
    /// Option sets left out as dominated: a choice that changes nothing but the option
    /// value (or only reserves slots) against a default that changes nothing.
    pub option_sets_dominated: u64,
    /// Complete candidates scored.
    pub leaves: u64,
    /// Partial and complete candidates run through the planner.
    pub evaluations: u64,
    /// Every assignment of the parts to slots and bays (identical parts not told apart),
    /// summed over the option sets, before any rule: what enumeration would face.
    pub full_space: f64,
}

/// A constraint that no placement meets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Constraint {
    /// Option values it was found with.
    pub options: BTreeMap<String, String>,
    /// `LP01xx` when `check` reported it, or `bays`, `slots`, `controller`.
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    pub message: String,
}

/// The vendor's order (greedy first fit by the platform's card priority lists, then bays in
/// number order) and what the optimum gains over it.
#[derive(Debug, Clone, Serialize)]
pub struct Vendor {
    pub placement: Option<Placement>,
    /// Errors `check` reports for the vendor placement (empty when it passes).
    pub errors: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
    /// What the optimum gains, element by element of the key.
    pub gains: Vec<Difference>,
}

/// One element of the score where two placements differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub measure: &'static str,
    pub best: f64,
    pub other: f64,
}

/// The answer.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub platform: String,
    pub platform_name: String,
    pub objective: Objective,
    /// Which devices offered traffic to the aggregates.
    pub devices: Scope,
    pub parts: Vec<(String, usize)>,
    pub stats: Stats,
    /// A placement was found and the search completed: nothing unexplored does better.
    pub proven_optimal: bool,
    /// Why the search stopped before it completed (`time`, `nodes`); `None` when it did.
    pub stopped: Option<&'static str>,
    /// An upper bound on the objective value of every placement (GB/s): the best's own
    /// value when proven; the parts' specs when the budget stopped the search (infinite
    /// when a drive states no spec).
    pub bound: Option<f64>,
    /// bound - best value (GB/s) when a placement was found and the bound is finite.
    pub gap_gbs: Option<f64>,
    pub budget: Budget,
    /// Wall time of `place` (not in the JSON: it differs run to run).
    pub elapsed_ms: f64,
    /// With NICs (served objective): the best placement for the drives alone, when it is
    /// another one, and what it serves.
    pub tradeoff: Option<Tradeoff>,
    /// Best first; empty when nothing fits.
    pub ranked: Vec<Candidate>,
    /// What the runner-up gives up against the best.
    pub runner_up_gives_up: Vec<Difference>,
    pub vendor: Option<Vendor>,
    /// Constraints that fail, when nothing fits.
    pub infeasible: Vec<Constraint>,
    /// Cards the best placement's options ship with that the parts list lacked (part id,
    /// count), added as a vendor's configurator adds them.
    pub implied_cards: Vec<(String, usize)>,
    /// Cards in the same slot in every scored candidate (forced by the rules and options,
    /// as far as the candidates the bound left go).
    pub common_slots: Vec<SlotPick>,
}

impl Outcome {
    pub fn best(&self) -> Option<&Candidate> {
        self.ranked.first()
    }
    /// The best placement's build file.
    pub fn best_toml(&self) -> Option<String> {
        self.best().map(|c| {
            c.placement.to_toml(
                &self.platform,
                &format!(
                    "placed by laneplan place ({} objective)",
                    self.objective.name()
                ),
            )
        })
    }
}

/// Differences between two scores, key element by key element.
pub fn differences(best: &Score, other: &Score) -> Vec<Difference> {
    let vals = |s: &Score| {
        [
            s.value,
            s.narrow_loss_gbs,
            s.drive_value,
            s.read_gbs + s.write_gbs,
            s.numa_imbalance_gbs,
            s.oversubscription,
            s.free_slot_lanes as f64,
            s.non_default_options as f64,
            s.vendor_distance as f64,
        ]
    };
    let (a, b) = (vals(best), vals(other));
    let (ka, kb) = (best.key(), other.key());
    (0..9)
        .filter(|&i| ka[i] != kb[i])
        .map(|i| Difference {
            measure: KEY_NAMES[i],
            best: a[i],
            other: b[i],
        })
        .collect()
}

// ------------------------------------------------------------------ the problem

/// A request resolved against the catalogue.
#[derive(Clone)]
pub(crate) struct Problem<'a> {
    pub catalog: &'a Catalog,
    pub platform: PlatformSpec,
    /// Cards (part, count), fewest candidate slots are decided first at search time.
    pub cards: Vec<(PartSpec, usize)>,
    pub drives: Vec<(PartSpec, usize)>,
    pub option_sets: Vec<BTreeMap<String, String>>,
    pub objective: Objective,
    pub keep_free: Vec<String>,
    /// What each evaluation measures (devices offering traffic, the cards' own figures).
    pub eval_opts: eval::EvalOpts,
    /// Option sets left out as dominated.
    pub dominated: u64,
}

impl Problem<'_> {
    /// Runs the planner on a build file text with this problem's measures.
    pub(crate) fn evaluate(&self, name: &str, text: &str) -> Result<Evaluated, String> {
        eval::evaluate_with(self.catalog, name, text, self.eval_opts)
    }
}

pub(crate) fn resolve<'a>(
    catalog: &'a Catalog,
    req: &Request,
) -> Result<Problem<'a>, RequestError> {
    let platform = eval::platform_spec(catalog, &req.platform).ok_or_else(|| {
        let known: Vec<&str> = catalog.platforms.keys().map(String::as_str).collect();
        req_err(
            format!("unknown platform `{}`", req.platform),
            Some(crate::suggest::help_with(
                &req.platform,
                known.iter().copied(),
                &format!("known platforms: {}", known.join(", ")),
            )),
        )
    })?;
    if req.parts.is_empty() {
        return Err(req_err(
            "no parts to place".into(),
            Some("name them with --part ID[=COUNT]".into()),
        ));
    }
    let (cards, drives) = requested_parts(catalog, &req.parts)?;
    let fixed = fixed_options(&platform, &req.options)?;
    let (option_sets, full_count) =
        searched_option_sets(catalog, &platform, &fixed, req.any_option);
    let dominated = full_count.saturating_sub(option_sets.len() as u64);
    check_keep_free(catalog, &platform, &option_sets, &req.keep_free)?;
    let objective = resolved_objective(req, &cards)?;
    // The cards' own figures are read when a card offers traffic (a NIC, a boot card):
    // served storage and what a narrowed card loses need them.
    let cards_traffic = cards.iter().any(|(p, _)| p.write_gbs.is_finite());
    Ok(Problem {
        catalog,
        platform,
        cards,
        drives,
        option_sets,
        objective,
        keep_free: req.keep_free.clone(),
        eval_opts: eval::EvalOpts {
            scope: req.devices,
            cards: cards_traffic,
        },
        dominated,
    })
}

/// Cards and drives (part, count) of the request, a part named twice counted once.
type PartCounts = Vec<(PartSpec, usize)>;

fn requested_parts(
    catalog: &Catalog,
    parts: &[(String, usize)],
) -> Result<(PartCounts, PartCounts), RequestError> {
    let mut merged: Vec<(String, usize)> = Vec::new();
    for (id, n) in parts {
        match merged.iter_mut().find(|(i, _)| i == id) {
            Some(m) => m.1 += n,
            None => merged.push((id.clone(), *n)),
        }
    }
    let mut cards = Vec::new();
    let mut drives = Vec::new();
    for (id, n) in merged {
        let p = eval::part_spec(catalog, &id).ok_or_else(|| {
            req_err(
                format!("unknown part `{id}`"),
                Some(catalog.unknown_part_help(&id)),
            )
        })?;
        if p.is_drive() {
            drives.push((p, n));
        } else {
            cards.push((p, n));
        }
    }
    Ok((cards, drives))
}

/// The options the request fixes, each an existing option and choice.
fn fixed_options(
    platform: &PlatformSpec,
    options: &[(String, String)],
) -> Result<BTreeMap<String, String>, RequestError> {
    let mut fixed: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in options {
        let Some(o) = platform.options.iter().find(|o| &o.key == k) else {
            let keys: Vec<&str> = platform.options.iter().map(|o| o.key.as_str()).collect();
            return Err(req_err(
                format!("{} has no option `{k}`", platform.name),
                Some(format!("options: {}", keys.join(", "))),
            ));
        };
        if !o.values.contains(v) {
            return Err(req_err(
                format!("option `{k}` has no choice `{v}`"),
                Some(format!("choices: {}", o.values.join(", "))),
            ));
        }
        fixed.insert(k.clone(), v.clone());
    }
    Ok(fixed)
}

/// Option sets: the cartesian product, defaults first so ties keep the default; with the
/// number of sets before dominated ones are left out.
fn searched_option_sets(
    catalog: &Catalog,
    platform: &PlatformSpec,
    fixed: &BTreeMap<String, String>,
    any_option: bool,
) -> (Vec<BTreeMap<String, String>>, u64) {
    let mut option_sets: Vec<BTreeMap<String, String>> = vec![BTreeMap::new()];
    let mut full_count: u64 = 1;
    let defs = catalog.platform(&platform.id).map(|p| &p.def.options);
    for o in &platform.options {
        // A host variant (risers) is left out unless named: it keeps its default, and the
        // option sets, answers and their text are those of the platform without it
        // (searching it would multiply the space by its choices).
        if o.host_variant && !fixed.contains_key(&o.key) {
            continue;
        }
        let values: Vec<String> = if let Some(v) = fixed.get(&o.key) {
            vec![v.clone()]
        } else if any_option {
            let choices = defs
                .and_then(|d| d.iter().find(|d| d.key.get_ref() == &o.key))
                .map(|d| d.choices.as_slice())
                .unwrap_or_default();
            let (all, kept) = undominated_values(o, choices);
            full_count = full_count.saturating_mul(all);
            kept
        } else {
            vec![o.default.clone()]
        };
        let mut next = Vec::new();
        for set in &option_sets {
            for v in &values {
                let mut s = set.clone();
                s.insert(o.key.clone(), v.clone());
                next.push(s);
            }
        }
        option_sets = next;
    }
    (option_sets, full_count)
}

/// An option's values to search, default first, and how many it has in all.
/// Dominance: a choice that changes nothing (or only reserves slots) is never better
/// than a default that changes nothing (same space or a restriction of it, one more option
/// off its default); choices that change nothing are interchangeable with each other (the
/// smallest value sorts first among equal scores).
fn undominated_values(
    o: &eval::OptionSpec,
    choices: &[crate::platform::schema::ChoiceDef],
) -> (u64, Vec<String>) {
    let mut v = vec![o.default.clone()];
    v.extend(o.values.iter().filter(|x| **x != o.default).cloned());
    let all = v.len() as u64;
    let kind = |value: &str| {
        choices
            .iter()
            .find(|c| c.value.get_ref() == value)
            .map(choice_effect)
    };
    let default_inert = kind(&o.default) == Some(Effect::None);
    let mut inert_kept = false;
    let mut sorted: Vec<String> = v[1..].to_vec();
    sorted.sort();
    let mut keep = vec![o.default.clone()];
    for x in sorted {
        match kind(&x) {
            Some(Effect::None | Effect::ReservesOnly) if default_inert => {}
            Some(Effect::None) if inert_kept => {}
            Some(Effect::None) => {
                inert_kept = true;
                keep.push(x);
            }
            _ => keep.push(x),
        }
    }
    v.retain(|x| keep.contains(x));
    (all, v)
}

/// Every slot to keep free is a slot of some option set.
fn check_keep_free(
    catalog: &Catalog,
    platform: &PlatformSpec,
    option_sets: &[BTreeMap<String, String>],
    keep_free: &[String],
) -> Result<(), RequestError> {
    for s in keep_free {
        let known = option_sets.iter().any(|o| {
            eval::space(catalog, platform, o).is_some_and(|sp| sp.slots.iter().any(|x| &x.id == s))
        });
        if !known {
            return Err(req_err(
                format!("{} has no slot `{s}` to keep free", platform.name),
                Some(format!("slots: {}", platform.slot_order.join(", "))),
            ));
        }
    }
    Ok(())
}

/// The objective `auto` stands for (served with a NIC), and only one that the scope allows.
fn resolved_objective(
    req: &Request,
    cards: &[(PartSpec, usize)],
) -> Result<Objective, RequestError> {
    let has_nic = cards
        .iter()
        .any(|(p, _)| p.class == DeviceClass::Nic && p.write_gbs.is_finite());
    let objective = match req.objective {
        Objective::Auto if has_nic => Objective::Served,
        Objective::Auto => Objective::Read,
        o => o,
    };
    if objective == Objective::Served && req.devices == Scope::All {
        return Err(req_err(
            "--objective served reads the drives' aggregate: it takes --devices drives or nvme, not all".into(),
            Some("the NICs are weighed by the served objective itself".into()),
        ));
    }
    Ok(objective)
}

/// The problem for one option set: the request's cards plus those the option ships with and
/// the request lacks. A bay group of the option that reaches the host through its own card
/// (`via = "card"` with `card = ...`: an R740xd NVMe extender card for bays 12-15) needs one
/// when drives go there, as `check` requires (LP0114): as many groups as the drives that fit
/// them need after the bays elsewhere, largest first, less the request's cards of the same
/// class. A vendor's configurator adds them with the option, and so does `place`, naming them
/// in the outcome (`implied_cards`). A controller (`via = "controller"`)
/// is never added: HBA or RAID, and which one, is the buyer's choice.
pub(crate) fn with_option_cards<'a>(
    prob: &Problem<'a>,
    space: &Space,
) -> (Problem<'a>, Vec<(String, usize)>) {
    // The groups behind a card of the option's own, largest first (fewest cards for the
    // drives), and the drives that fit them.
    let mut card_groups: Vec<&GroupSpec> = space
        .groups
        .iter()
        .filter(|g| g.via == Via::Card && g.card.is_some())
        .collect();
    card_groups.sort_by_key(|g| std::cmp::Reverse(g.bays.len()));
    let fits_card_group = |d: &PartSpec| card_groups.iter().any(|g| drive_fits(d, g));
    let drives: usize = prob
        .drives
        .iter()
        .filter(|(d, _)| fits_card_group(d))
        .map(|(_, n)| *n)
        .sum();
    // Bays elsewhere that take those drives (a controller's, a switch's) come first.
    let elsewhere: usize = space
        .groups
        .iter()
        .filter(|g| !(g.via == Via::Card && g.card.is_some()))
        .filter(|g| {
            prob.drives
                .iter()
                .any(|(d, _)| fits_card_group(d) && drive_fits(d, g))
        })
        .map(|g| g.bays.len())
        .sum();
    let mut left = drives.saturating_sub(elsewhere);
    let mut need: BTreeMap<&str, usize> = BTreeMap::new();
    for g in card_groups {
        if left == 0 {
            break;
        }
        left = left.saturating_sub(g.bays.len());
        if let Some(c) = &g.card {
            *need.entry(c.as_str()).or_default() += 1;
        }
    }
    let mut p = prob.clone();
    let mut implied = Vec::new();
    for (id, n) in need {
        let Some(spec) = eval::part_spec(prob.catalog, id) else {
            continue;
        };
        // Any requested card of the same class serves a group (a PLX extender where the
        // option ships a bridge one).
        let have: usize = p
            .cards
            .iter()
            .filter(|(c, _)| c.class == spec.class)
            .map(|(_, k)| *k)
            .sum();
        if have >= n {
            continue;
        }
        match p.cards.iter_mut().find(|(c, _)| c.id == id) {
            Some(c) => c.1 += n - have,
            None => p.cards.push((spec, n - have)),
        }
        implied.push((id.to_string(), n - have));
    }
    (p, implied)
}

/// What an option choice changes in the platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Nothing but the option's value.
    None,
    /// It only reserves slots (for extender cards).
    ReservesOnly,
    Other,
}

fn choice_effect(c: &crate::platform::schema::ChoiceDef) -> Effect {
    let structural = !c.slots.is_empty()
        || !c.switches.is_empty()
        || !c.bays.is_empty()
        || !c.builtins.is_empty()
        || c.nvme_path_gen.is_some();
    match (structural, c.reserves.is_empty()) {
        (false, true) => Effect::None,
        (false, false) => Effect::ReservesOnly,
        _ => Effect::Other,
    }
}

/// Why a card cannot go in a slot (necessary conditions `check` enforces), or `None`.
pub(crate) fn card_misfit(
    p: &PartSpec,
    s: &SlotSpec,
    rules: &[crate::platform::schema::CardRule],
    keep_free: &[String],
) -> Option<String> {
    if keep_free.contains(&s.id) {
        return Some(format!("{} is kept free (--keep-free)", s.label));
    }
    if !p.fits.contains(&s.kind) {
        return Some(format!("{} is a {:?} slot", s.label, s.kind));
    }
    if p.mechanical > s.mechanical {
        return Some(format!(
            "{} has an x{} connector, {} an x{} edge",
            s.label, s.mechanical, p.name, p.mechanical
        ));
    }
    if let (Some(ph), Some(sh)) = (p.height, s.height)
        && ph > sh
    {
        return Some(format!("{} takes low-profile cards", s.label));
    }
    if let (Some(pl), Some(sl)) = (p.length, s.length)
        && pl > sl
    {
        return Some(format!("{} takes half-length cards", s.label));
    }
    if let Some(by) = &s.reserved_by
        && p.class != DeviceClass::Extender
    {
        return Some(format!("{} is reserved by option \"{by}\"", s.label));
    }
    for r in rules {
        if r.class == p.class
            && (!r.double_width || p.double_width)
            && !r.slots.iter().any(|x| x.get_ref() == &s.id)
        {
            return Some(format!(
                "{} cards go in {} only",
                p.class.name(),
                r.slots
                    .iter()
                    .map(|x| x.get_ref().as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    None
}

/// Whether a drive can sit in a bay of the group (interface and size, as `check` requires).
pub(crate) fn drive_fits(p: &PartSpec, g: &GroupSpec) -> bool {
    g.interfaces.contains(&p.interface) && !(p.size.as_deref() == Some("3.5") && g.size == "2.5")
}

/// Whether the group's bays reach the host with these cards (a card or controller in its
/// slot, where the group hangs from a slot).
pub(crate) fn group_connected(g: &GroupSpec, slot_has_card: &dyn Fn(&str) -> bool) -> bool {
    match g.via {
        Via::Card | Via::Controller => slot_has_card(&g.to),
        Via::Direct | Via::Switch => true,
    }
}

/// Hall's condition for drives and bays: every set of drive parts needs at least as many
/// bays that take one of them (only `live` groups count). Returns the first set that fails:
/// (its part indices, drives, bays).
pub(crate) fn bays_short(
    drives: &[(PartSpec, usize)],
    groups: &[GroupSpec],
    live: &[bool],
) -> Option<(Vec<usize>, usize, usize)> {
    let k = drives.len().min(12);
    for mask in 1u32..(1 << k) {
        let set: Vec<usize> = (0..k).filter(|i| mask & (1 << i) != 0).collect();
        let need: usize = set.iter().map(|&i| drives[i].1).sum();
        let cap: usize = groups
            .iter()
            .zip(live)
            .filter(|(g, l)| **l && set.iter().any(|&i| drive_fits(&drives[i].0, g)))
            .map(|(g, _)| g.bays.len())
            .sum();
        if cap < need {
            return Some((set, need, cap));
        }
    }
    None
}

fn ln_fact(n: usize) -> f64 {
    (2..=n).map(|k| (k as f64).ln()).sum()
}

/// Assignments of items (groups of identical parts with these counts) to `places` distinct
/// places, one item per place: places! / ((places - total)! x prod(count!)).
fn assignments(places: usize, counts: &[usize]) -> f64 {
    let total: usize = counts.iter().sum();
    if total > places {
        return 0.0;
    }
    let ln =
        ln_fact(places) - ln_fact(places - total) - counts.iter().map(|&c| ln_fact(c)).sum::<f64>();
    ln.exp().round()
}

/// Scores an evaluated complete placement.
pub(crate) fn score(
    prob: &Problem,
    space: &Space,
    placement: &Placement,
    e: &Evaluated,
) -> (Score, Binding) {
    let m = eval::measures(e);
    let (wr, ww, wn) = prob.objective.weights();
    let imbalance = if m.numa.len() < 2 {
        0.0
    } else {
        let mean = m.numa.iter().map(|n| n.gbs).sum::<f64>() / m.numa.len() as f64;
        m.numa.iter().map(|n| n.gbs).fold(f64::MIN, f64::max) - mean
    };
    let drive_value = wr * m.read_gbs + ww * m.write_gbs - wn * imbalance;
    let narrowed: Vec<Narrowed> = e
        .cards
        .iter()
        .filter(|c| c.narrow_loss_gbs > 0.0)
        .map(|c| Narrowed {
            slot: c.slot.clone(),
            part: c.part.clone(),
            edge: c.edge,
            electrical: c.electrical,
            loss_gbs: c.narrow_loss_gbs,
        })
        .collect();
    let narrow_loss_gbs = narrowed.iter().fold(0.0, |a, n| a + n.loss_gbs);
    let has_nic = prob.cards.iter().any(|(p, _)| p.class == DeviceClass::Nic);
    let nic_tx_gbs = (has_nic && prob.eval_opts.cards).then(|| served::nic_tx_gbs(&e.cards));
    let served_gbs = nic_tx_gbs.map(|nic| {
        served::served_gbs(&served::ServedInputs {
            drive_read_gbs: m.read_gbs,
            nic_tx_gbs: nic,
        })
    });
    let value = match (prob.objective, served_gbs) {
        (Objective::Served, Some(v)) => v,
        _ => drive_value - narrow_loss_gbs,
    };
    let used: Vec<&str> = placement.slots.iter().map(|s| s.slot.as_str()).collect();
    let free_slot_lanes = space
        .slots
        .iter()
        .filter(|s| {
            s.kind.as_str() == crate::platform::schema::SlotKind::PCIE
                && s.reserved_by.is_none()
                && !used.contains(&s.id.as_str())
        })
        .map(|s| s.electrical as u32)
        .sum();
    let non_default_options = prob
        .platform
        .options
        .iter()
        .filter(|o| {
            placement
                .options
                .get(&o.key)
                .is_some_and(|v| v != &o.default)
        })
        .count() as u32;
    let vendor_distance = vendor_distance(prob, space, placement);
    let dir = if ww > wr { "write" } else { "read" };
    let (demand, ceiling) = if dir == "write" {
        (m.demand_write_gbs, m.write_gbs)
    } else {
        (m.demand_read_gbs, m.read_gbs)
    };
    let elements = m.bottlenecks.get(dir).cloned().unwrap_or_default();
    let binding = Binding {
        kind: if elements.is_empty() {
            "drives"
        } else {
            "elements"
        },
        direction: dir,
        demand_gbs: demand,
        ceiling_gbs: ceiling,
        most_loaded: if elements.is_empty() {
            m.most_loaded.clone()
        } else {
            None
        },
        elements,
    };
    (
        Score {
            value,
            drive_value,
            served_gbs,
            nic_tx_gbs,
            narrow_loss_gbs,
            narrowed,
            read_gbs: m.read_gbs,
            write_gbs: m.write_gbs,
            numa_imbalance_gbs: imbalance,
            numa: m.numa,
            oversubscription: m.oversubscription,
            free_slot_lanes,
            non_default_options,
            vendor_distance,
        },
        binding,
    )
}

/// Rank of each card's slot in its class's priority list (or the platform's slot order),
/// plus each drive's bay number.
fn vendor_distance(prob: &Problem, space: &Space, placement: &Placement) -> u32 {
    let mut d = 0u32;
    for s in &placement.slots {
        let class = prob
            .cards
            .iter()
            .find(|(p, _)| p.id == s.part)
            .map(|(p, _)| p);
        d += slot_rank(prob, space, class, &s.slot) as u32;
    }
    for (n, _) in placement.bay_numbers() {
        d += n;
    }
    d
}

fn slot_rank(prob: &Problem, space: &Space, part: Option<&PartSpec>, slot: &str) -> usize {
    if let Some(p) = part
        && let Some(r) = prob
            .platform
            .card_rules
            .iter()
            .find(|r| r.class == p.class && (!r.double_width || p.double_width))
        && let Some(i) = r.slots.iter().position(|x| x.get_ref() == slot)
    {
        return i;
    }
    space.slots.iter().position(|s| s.id == slot).unwrap_or(0)
}

fn check_constraint(options: &BTreeMap<String, String>, f: &Finding) -> Constraint {
    Constraint {
        options: options.clone(),
        code: f.code.to_string(),
        part: None,
        message: f.message.clone(),
    }
}

/// One `[[bay]]` entry per drive part, in the order the parts were given.
fn merge_bays(drives: &[(PartSpec, usize)], picks: &[BayPick]) -> Vec<BayPick> {
    let mut out = Vec::new();
    for (p, _) in drives {
        let mut nums: Vec<u32> = picks
            .iter()
            .filter(|b| b.part == p.id)
            .flat_map(|b| parse_bay_list(&b.bays).unwrap_or_default())
            .collect();
        if nums.is_empty() {
            continue;
        }
        nums.sort_unstable();
        out.push(BayPick {
            bays: compress(&nums),
            part: p.id.clone(),
        });
    }
    out
}

fn compress(v: &[u32]) -> String {
    eval::bay_list(v)
}

// ------------------------------------------------------------------ branch and bound

/// At most this many failing constraints are kept (the first found, distinct).
const MAX_FAILURES: usize = 1000;

/// For each slot, the nearest earlier slot it is interchangeable with: the same twin key
/// (kind, widths, size, generation, riser, root complex, reservation), the same membership in
/// every card rule, neither kept free nor cabled to bays, and a lower vendor rank than it for
/// every card type of the problem.
fn twins(prob: &Problem, space: &Space) -> Vec<Option<usize>> {
    let cabled = |id: &str| space.groups.iter().any(|g| g.to == id);
    let free_ok = |i: usize| {
        let s = &space.slots[i];
        !prob.keep_free.contains(&s.id) && !cabled(&s.id)
    };
    (0..space.slots.len())
        .map(|i| {
            if !free_ok(i) {
                return None;
            }
            let si = &space.slots[i];
            (0..i).rev().find(|&j| {
                let sj = &space.slots[j];
                free_ok(j)
                    && sj.twin_key == si.twin_key
                    && prob.platform.card_rules.iter().all(|r| {
                        r.slots.iter().any(|x| x.get_ref() == &sj.id)
                            == r.slots.iter().any(|x| x.get_ref() == &si.id)
                    })
                    && prob.cards.iter().all(|(p, _)| {
                        slot_rank(prob, space, Some(p), &sj.id)
                            < slot_rank(prob, space, Some(p), &si.id)
                    })
            })
        })
        .collect()
}

struct Search<'p, 'a> {
    prob: Problem<'a>,
    top: usize,
    ranked: Vec<Candidate>,
    stats: Stats,
    failures: Vec<Constraint>,
    /// Failures already listed (a set, so that listing stays linear).
    failure_keys: std::collections::HashSet<String>,
    /// Card placements every scored candidate shares.
    common: Option<Vec<SlotPick>>,
    /// Bound (read, write) of the current card assignment with every reachable bay filled
    /// (see `full_bound`); infinite where it does not apply.
    full_ub: (f64, f64),
    /// Per slot of the current space: the nearest earlier slot it is interchangeable with
    /// (symmetry breaking: a slot is used only when its twin is).
    twins: Vec<Option<usize>>,
    budget: Budget,
    start: Instant,
    /// Why the search stopped early (`time` or `nodes`).
    stopped: Option<&'static str>,
    last_progress: Instant,
    option_set: usize,
    progress: &'p mut dyn FnMut(&Progress),
}

/// The state of one branch: option set, cards placed, drives placed.
#[derive(Clone)]
struct Partial {
    slots: Vec<SlotPick>,
    bays: Vec<BayPick>,
    /// Drives still to place, per drive part.
    remaining: Vec<usize>,
}

impl<'p, 'a> Search<'p, 'a> {
    /// The key a placement must reach to enter the ranked list.
    fn threshold(&self) -> Option<Key> {
        (self.ranked.len() >= self.top).then(|| self.ranked[self.top - 1].score.key())
    }

    /// Whether the budget is spent (checked at every node; the clock every 32 nodes).
    fn out_of_budget(&mut self) -> bool {
        if self.stopped.is_some() {
            return true;
        }
        let n = self.stats.nodes_explored;
        if n >= self.budget.nodes {
            self.stopped = Some("nodes");
            return true;
        }
        if n.is_multiple_of(32) {
            let now = Instant::now();
            if now.duration_since(self.start) >= Duration::from_millis(self.budget.time_ms) {
                self.stopped = Some("time");
                return true;
            }
            if now.duration_since(self.last_progress) >= Duration::from_millis(100) {
                self.last_progress = now;
                let p = Progress {
                    elapsed: now.duration_since(self.start),
                    nodes: n,
                    option_set: self.option_set,
                    option_sets: self.prob.option_sets.len(),
                    best: self.ranked.first().map(|c| c.score.value),
                };
                (self.progress)(&p);
            }
        }
        false
    }

    /// An upper bound on the key of every completion of a partial placement, element by
    /// element (a bound on each element bounds the lexicographic order): the aggregates
    /// grow by at most the specs of the devices still to place (and the full-bays bound);
    /// the narrowed cards' loss, the vendor distance only grow; free slot lanes only shrink;
    /// NUMA imbalance is at least 0 and oversubscription at least 1.
    fn bound_key(&self, space: &Space, part: &Partial, pl: &Placement, e: &Evaluated) -> Key {
        let m = eval::measures(e);
        let prob = &self.prob;
        let (wr, ww, _) = prob.objective.weights();
        let (mut ur, mut uw) = (m.read_gbs, m.write_gbs);
        for ((p, _), &n) in prob.drives.iter().zip(&part.remaining) {
            ur += p.read_gbs * n as f64;
            uw += p.write_gbs * n as f64;
        }
        let mut nic_ub = served::nic_tx_gbs(&e.cards);
        for (p, n) in &prob.cards {
            let left = n - part.slots.iter().filter(|s| s.part == p.id).count().min(*n);
            if left == 0 {
                continue;
            }
            let spec = |x: f64| if x.is_finite() { x } else { 0.0 };
            if prob.eval_opts.scope == Scope::All {
                ur += spec(p.read_gbs) * left as f64;
                uw += spec(p.write_gbs) * left as f64;
            }
            if p.class == DeviceClass::Nic {
                nic_ub += spec(p.write_gbs) * left as f64;
            }
        }
        ur = ur.min(self.full_ub.0);
        uw = uw.min(self.full_ub.1);
        let loss = e.cards.iter().fold(0.0, |a, c| a + c.narrow_loss_gbs);
        let drive_value = weighted(wr, ur, ww, uw);
        let has_nic = prob.cards.iter().any(|(p, _)| p.class == DeviceClass::Nic);
        let value = if prob.objective == Objective::Served && has_nic && prob.eval_opts.cards {
            served::served_gbs(&served::ServedInputs {
                drive_read_gbs: ur,
                nic_tx_gbs: nic_ub,
            })
        } else {
            drive_value - loss
        };
        let used: Vec<&str> = part.slots.iter().map(|s| s.slot.as_str()).collect();
        let free: u32 = space
            .slots
            .iter()
            .filter(|s| {
                s.kind.as_str() == crate::platform::schema::SlotKind::PCIE
                    && s.reserved_by.is_none()
                    && !used.contains(&s.id.as_str())
            })
            .map(|s| s.electrical as u32)
            .sum();
        let non_default = prob
            .platform
            .options
            .iter()
            .filter(|o| space.options.get(&o.key).is_some_and(|v| v != &o.default))
            .count() as i64;
        [
            q(value),
            -q(loss),
            q(drive_value),
            q(ur + uw),
            0,
            -q(1.0),
            free as i64,
            -non_default,
            -(vendor_distance(prob, space, pl) as i64),
        ]
    }

    fn placement(&self, space: &Space, part: &Partial) -> Placement {
        let mut slots = part.slots.clone();
        slots.sort();
        Placement {
            options: space.options.clone(),
            slots,
            bays: merge_bays(&self.prob.drives, &part.bays),
        }
    }

    /// Runs the planner on a partial or complete placement.
    fn evaluate(&mut self, pl: &Placement) -> Option<Evaluated> {
        self.stats.evaluations += 1;
        let text = pl.to_toml(&self.prob.platform.id, "candidate");
        self.prob.evaluate("candidate.toml", &text).ok()
    }

    /// An upper bound on every placement of the drives below these cards: the weighted
    /// aggregate of the build with every reachable bay filled. Max-flow only grows as
    /// sources are added, so no subset of those bays does better. It applies where each
    /// bay takes one drive part of the list (NVMe drives and SAS drives, say); otherwise
    /// the bound is infinite.
    fn full_bound(&mut self, space: &Space, live: &[bool], part: &Partial) -> (f64, f64) {
        let mut bays = Vec::new();
        for (g, l) in space.groups.iter().zip(live) {
            let fits: Vec<&PartSpec> = self
                .prob
                .drives
                .iter()
                .map(|(p, _)| p)
                .filter(|p| drive_fits(p, g))
                .collect();
            match (l, fits.as_slice()) {
                (false, _) | (_, []) => {}
                (true, [p]) => bays.push(BayPick {
                    bays: compress(&g.bays),
                    part: p.id.clone(),
                }),
                _ => return (f64::INFINITY, f64::INFINITY),
            }
        }
        let full = Partial {
            slots: part.slots.clone(),
            bays,
            remaining: Vec::new(),
        };
        let pl = self.placement(space, &full);
        let Some(e) = self.evaluate(&pl) else {
            return (f64::INFINITY, f64::INFINITY);
        };
        if e.flow.is_none() {
            return (f64::INFINITY, f64::INFINITY);
        }
        let m = eval::measures(&e);
        (m.read_gbs, m.write_gbs)
    }

    fn fail(&mut self, c: Constraint) {
        let key = format!("{:?}|{}|{:?}|{}", c.options, c.code, c.part, c.message);
        if self.failures.len() < MAX_FAILURES && self.failure_keys.insert(key) {
            self.failures.push(c);
        }
    }

    /// Checks a partial placement; cuts it on errors or by the bound. Returns the evaluation
    /// when the branch goes on.
    fn visit(&mut self, space: &Space, part: &Partial) -> Option<(Placement, Evaluated)> {
        if self.out_of_budget() {
            return None;
        }
        self.stats.nodes_explored += 1;
        let pl = self.placement(space, part);
        let e = self.evaluate(&pl)?;
        if let Some(f) = e.errors().next() {
            self.stats.pruned_infeasible += 1;
            let c = check_constraint(&space.options, f);
            self.fail(c);
            return None;
        }
        if let Some(thr) = self.threshold()
            && self.bound_key(space, part, &pl, &e) < thr
        {
            self.stats.pruned_bound += 1;
            return None;
        }
        Some((pl, e))
    }

    fn leaf(&mut self, space: &Space, pl: Placement, e: &Evaluated) {
        self.stats.leaves += 1;
        match &mut self.common {
            None => self.common = Some(pl.slots.clone()),
            Some(c) => c.retain(|x| pl.slots.contains(x)),
        }
        let (score, binding) = score(&self.prob, space, &pl, e);
        let warnings = e
            .report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .map(|f| {
                // The candidate's build file exists only in memory (what `-o` writes): the
                // finding points at the node, not at a file no one can open.
                let mut f = f.clone();
                f.location.file = None;
                f.location.line = None;
                f.location.column = None;
                f
            })
            .collect();
        let c = Candidate {
            placement: pl,
            score,
            binding,
            warnings,
        };
        let key = c.score.key();
        let pos = self
            .ranked
            .iter()
            .position(|r| {
                let rk = r.score.key();
                rk < key || (rk == key && c.placement < r.placement)
            })
            .unwrap_or(self.ranked.len());
        if pos < self.top {
            self.ranked.insert(pos, c);
            self.ranked.truncate(self.top);
        }
    }

    fn run_space(&mut self, space: &Space) {
        if self.out_of_budget() {
            return;
        }
        self.stats.nodes_explored += 1;
        self.twins = twins(&self.prob, space);
        let prob = self.prob.clone();
        let prob = &prob;
        // Full space: cards over all slots, drives over all bays.
        let nbays: usize = space.groups.iter().map(|g| g.bays.len()).sum();
        let card_counts: Vec<usize> = prob.cards.iter().map(|(_, n)| *n).collect();
        let drive_counts: Vec<usize> = prob.drives.iter().map(|(_, n)| *n).collect();
        self.stats.full_space +=
            assignments(space.slots.len(), &card_counts) * assignments(nbays, &drive_counts);
        // Necessary: enough bays for the drives, enough fitting slots for each card.
        let all = vec![true; space.groups.len()];
        if let Some((set, need, cap)) = bays_short(&prob.drives, &space.groups, &all) {
            self.stats.pruned_infeasible += 1;
            let what: Vec<String> = set
                .iter()
                .map(|&i| {
                    let (p, n) = &prob.drives[i];
                    format!(
                        "{n} x {} ({} {}\")",
                        p.name,
                        p.interface.name(),
                        p.size.as_deref().unwrap_or("?")
                    )
                })
                .collect();
            self.fail(Constraint {
                options: space.options.clone(),
                code: "bays".into(),
                part: (set.len() == 1).then(|| prob.drives[set[0]].0.id.clone()),
                message: format!(
                    "{}: {need} drives, and these options have {cap} bays that take them",
                    what.join(" + ")
                ),
            });
            return;
        }
        let mut card_order: Vec<(usize, Vec<usize>)> = Vec::new();
        for (i, (p, n)) in prob.cards.iter().enumerate() {
            let cands: Vec<usize> = space
                .slots
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    card_misfit(p, s, &prob.platform.card_rules, &prob.keep_free).is_none()
                })
                .map(|(k, _)| k)
                .collect();
            if cands.len() < *n {
                self.stats.pruned_infeasible += 1;
                let why: Vec<String> = space
                    .slots
                    .iter()
                    .filter_map(|s| card_misfit(p, s, &prob.platform.card_rules, &prob.keep_free))
                    .collect();
                self.fail(Constraint {
                    options: space.options.clone(),
                    code: "slots".into(),
                    part: Some(p.id.clone()),
                    message: format!(
                        "{n} x {}: {} slot(s) take it with these options ({})",
                        p.name,
                        cands.len(),
                        why.join("; ")
                    ),
                });
                return;
            }
            card_order.push((i, cands));
        }
        // Hall's condition for cards: every set of card types needs as many slots.
        let k = card_order.len().min(12);
        for mask in 1u32..(1 << k) {
            let set: Vec<usize> = (0..k).filter(|i| mask & (1 << i) != 0).collect();
            if set.len() < 2 {
                continue;
            }
            let need: usize = set.iter().map(|&i| prob.cards[card_order[i].0].1).sum();
            let mut slots: Vec<usize> = set
                .iter()
                .flat_map(|&i| card_order[i].1.iter().copied())
                .collect();
            slots.sort_unstable();
            slots.dedup();
            if slots.len() < need {
                self.stats.pruned_infeasible += 1;
                let names: Vec<String> = set
                    .iter()
                    .map(|&i| {
                        let (p, n) = &prob.cards[card_order[i].0];
                        format!("{n} x {}", p.name)
                    })
                    .collect();
                let ids: Vec<&str> = slots.iter().map(|&i| space.slots[i].id.as_str()).collect();
                self.fail(Constraint {
                    options: space.options.clone(),
                    code: "slots".into(),
                    part: None,
                    message: format!(
                        "{}: {need} cards, and {} slot(s) take any of them ({})",
                        names.join(" + "),
                        slots.len(),
                        ids.join(", ")
                    ),
                });
                return;
            }
        }
        // Most constrained card type first.
        card_order.sort_by_key(|(i, c)| (c.len(), *i));
        let start = Partial {
            slots: Vec::new(),
            bays: Vec::new(),
            remaining: drive_counts,
        };
        let mut used = vec![false; space.slots.len()];
        self.cards(space, &card_order, 0, &mut used, start);
    }

    fn cards(
        &mut self,
        space: &Space,
        order: &[(usize, Vec<usize>)],
        k: usize,
        used: &mut Vec<bool>,
        part: Partial,
    ) {
        if k == order.len() {
            // Symmetry: every used slot's twin is used too (see `choose`).
            let taken = |id: &str| part.slots.iter().any(|s| s.slot == id);
            if space
                .slots
                .iter()
                .zip(&self.twins)
                .any(|(s, t)| t.is_some_and(|t| taken(&s.id) && !taken(&space.slots[t].id)))
            {
                self.stats.pruned_symmetry += 1;
                return;
            }
            // All cards in: the drives, group by group.
            let has_card = |id: &str| part.slots.iter().any(|s| s.slot == id);
            let live: Vec<bool> = space
                .groups
                .iter()
                .map(|g| group_connected(g, &has_card))
                .collect();
            // The drives need enough bays that these cards reach.
            if let Some((set, need, cap)) = bays_short(&self.prob.drives, &space.groups, &live) {
                let dead: Vec<String> = space
                    .groups
                    .iter()
                    .zip(&live)
                    .filter(|(g, l)| {
                        !**l && set.iter().any(|&i| drive_fits(&self.prob.drives[i].0, g))
                    })
                    .map(|(g, _)| format!("bays {} need a card in {}", compress(&g.bays), g.to))
                    .collect();
                let names: Vec<String> = set
                    .iter()
                    .map(|&i| format!("{} x {}", self.prob.drives[i].1, self.prob.drives[i].0.name))
                    .collect();
                self.stats.nodes_explored += 1;
                self.stats.pruned_infeasible += 1;
                self.fail(Constraint {
                    options: space.options.clone(),
                    code: "controller".into(),
                    part: (set.len() == 1).then(|| self.prob.drives[set[0]].0.id.clone()),
                    message: format!(
                        "{}: {need} drives, and the cards reach {cap} bays that take them ({})",
                        names.join(" + "),
                        if dead.is_empty() {
                            "no other bay takes them".to_string()
                        } else {
                            dead.join("; ")
                        }
                    ),
                });
                return;
            }
            if self.prob.drives.is_empty() {
                if order.is_empty() {
                    return;
                }
                // The last card decision was visited; evaluate it as a leaf.
                if self.out_of_budget() {
                    return;
                }
                self.stats.nodes_explored += 1;
                let pl = self.placement(space, &part);
                if let Some(e) = self.evaluate(&pl) {
                    if let Some(f) = e.errors().next() {
                        self.stats.pruned_infeasible += 1;
                        let c = check_constraint(&space.options, f);
                        self.fail(c);
                    } else {
                        self.leaf(space, pl, &e);
                    }
                }
                return;
            }
            if self.out_of_budget() {
                return;
            }
            self.full_ub = self.full_bound(space, &live, &part);
            // The value alone: the drives' aggregate with every reachable bay filled bounds
            // the weighted value (a narrowed card only lowers it) and the served figure.
            let (wr, ww, _) = self.prob.objective.weights();
            let ub = weighted(wr, self.full_ub.0, ww, self.full_ub.1);
            if let Some(thr) = self.threshold()
                && q(ub) < thr[0]
            {
                self.stats.nodes_explored += 1;
                self.stats.pruned_bound += 1;
                // It bounds these cards only: the next card assignment gets its own.
                self.full_ub = (f64::INFINITY, f64::INFINITY);
                return;
            }
            self.drives(space, &live, 0, part);
            self.full_ub = (f64::INFINITY, f64::INFINITY);
            return;
        }
        let (pi, cands) = &order[k];
        let (pid, n) = (self.prob.cards[*pi].0.id.clone(), self.prob.cards[*pi].1);
        let free: Vec<usize> = cands.iter().copied().filter(|&c| !used[c]).collect();
        let mut chosen = Vec::with_capacity(n);
        self.choose(space, order, k, used, &part, &free, 0, n, &mut chosen, &pid);
    }

    #[allow(clippy::too_many_arguments)]
    fn choose(
        &mut self,
        space: &Space,
        order: &[(usize, Vec<usize>)],
        k: usize,
        used: &mut Vec<bool>,
        part: &Partial,
        free: &[usize],
        from: usize,
        n: usize,
        chosen: &mut Vec<usize>,
        part_id: &str,
    ) {
        if chosen.len() == n {
            let mut next = part.clone();
            for &c in chosen.iter() {
                next.slots.push(SlotPick {
                    slot: space.slots[c].id.clone(),
                    part: part_id.to_string(),
                });
                used[c] = true;
            }
            let go = if self.prob.drives.is_empty() && k + 1 == order.len() {
                true // the leaf evaluates it
            } else {
                self.visit(space, &next).is_some()
            };
            if go {
                self.cards(space, order, k + 1, used, next);
            }
            for &c in chosen.iter() {
                used[c] = false;
            }
            return;
        }
        let need = n - chosen.len();
        for i in from..free.len() {
            if free.len() - i < need || self.stopped.is_some() {
                break;
            }
            // Symmetry: a card in a slot whose interchangeable twin stays empty does better in
            // the twin (same checks, same flow, a lower vendor rank for every card type):
            // skip the slot unless the twin is taken or a later card type may take it.
            if let Some(t) = self.twins[free[i]]
                && !used[t]
                && !chosen.contains(&t)
                && !order[k + 1..].iter().any(|(_, c)| c.contains(&t))
            {
                self.stats.pruned_symmetry += 1;
                continue;
            }
            chosen.push(free[i]);
            self.choose(space, order, k, used, part, free, i + 1, n, chosen, part_id);
            chosen.pop();
        }
    }

    fn drives(&mut self, space: &Space, live: &[bool], g: usize, part: Partial) {
        if part.remaining.iter().all(|&r| r == 0) {
            return;
        }
        if g == space.groups.len() {
            return;
        }
        let group = &space.groups[g];
        // Capacity of the groups after this one, per drive part (a necessary condition).
        let later = |p: &PartSpec| -> usize {
            space.groups[g + 1..]
                .iter()
                .zip(&live[g + 1..])
                .filter(|(x, l)| **l && drive_fits(p, x))
                .map(|(x, _)| x.bays.len())
                .sum()
        };
        let nd = self.prob.drives.len();
        let mut counts = vec![0usize; nd];
        self.group_counts(space, live, g, group, &part, &later, 0, &mut counts);
    }

    #[allow(clippy::too_many_arguments)]
    fn group_counts(
        &mut self,
        space: &Space,
        live: &[bool],
        g: usize,
        group: &GroupSpec,
        part: &Partial,
        later: &dyn Fn(&PartSpec) -> usize,
        d: usize,
        counts: &mut Vec<usize>,
    ) {
        let nd = self.prob.drives.len();
        if self.out_of_budget() {
            return;
        }
        if d == nd {
            // Every part must still fit in the later groups.
            let ok = self
                .prob
                .drives
                .iter()
                .enumerate()
                .all(|(i, (p, _))| part.remaining[i] - counts[i] <= later(p));
            let total_left: usize = (0..nd).map(|i| part.remaining[i] - counts[i]).sum();
            let later_bays: usize = space.groups[g + 1..]
                .iter()
                .zip(&live[g + 1..])
                .filter(|(_, l)| **l)
                .map(|(x, _)| x.bays.len())
                .sum();
            if !ok || total_left > later_bays {
                self.stats.nodes_explored += 1;
                self.stats.pruned_infeasible += 1;
                return;
            }
            if counts.iter().all(|&c| c == 0) {
                self.drives(space, live, g + 1, part.clone());
                return;
            }
            let mut next = part.clone();
            let mut at = 0usize;
            for (i, &c) in counts.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let bays = &group.bays[at..at + c];
                at += c;
                next.bays.push(BayPick {
                    bays: compress(bays),
                    part: self.prob.drives[i].0.id.clone(),
                });
                next.remaining[i] -= c;
            }
            let Some((pl, e)) = self.visit(space, &next) else {
                return;
            };
            if next.remaining.iter().all(|&r| r == 0) {
                self.leaf(space, pl, &e);
            } else {
                self.drives(space, live, g + 1, next);
            }
            return;
        }
        let used: usize = counts[..d].iter().sum();
        let room = group.bays.len() - used;
        let p = &self.prob.drives[d].0;
        let max = if live[g] && drive_fits(p, group) {
            part.remaining[d].min(room)
        } else {
            0
        };
        // More drives first: good solutions early tighten the bound.
        for c in (0..=max).rev() {
            counts[d] = c;
            self.group_counts(space, live, g, group, part, later, d + 1, counts);
        }
        counts[d] = 0;
    }
}

/// Places the parts: the proven best placement, the top N, the vendor order, or the
/// constraints that fail.
pub fn place(catalog: &Catalog, req: &Request) -> Result<Outcome, RequestError> {
    place_with_progress(catalog, req, &mut |_| {})
}

/// What one run of the branch and bound found.
struct Found {
    ranked: Vec<Candidate>,
    stats: Stats,
    failures: Vec<Constraint>,
    common: Option<Vec<SlotPick>>,
    stopped: Option<&'static str>,
}

fn search<'a>(
    prob: &Problem<'a>,
    top: usize,
    budget: Budget,
    progress: &mut dyn FnMut(&Progress),
) -> Found {
    let start = Instant::now();
    let mut s = Search {
        prob: prob.clone(),
        top,
        ranked: Vec::new(),
        stats: Stats::default(),
        failures: Vec::new(),
        failure_keys: Default::default(),
        common: None,
        full_ub: (f64::INFINITY, f64::INFINITY),
        twins: Vec::new(),
        budget,
        start,
        stopped: None,
        last_progress: start,
        option_set: 0,
        progress,
    };
    s.stats.option_sets = prob.option_sets.len();
    // One option set at a time, its space built when it is searched (memory stays that of
    // one set), with the cards it ships with added (see `with_option_cards`).
    for (i, opts) in prob.option_sets.iter().enumerate() {
        if s.out_of_budget() {
            break;
        }
        s.option_set = i + 1;
        let Some(space) = eval::space(prob.catalog, &prob.platform, opts) else {
            continue;
        };
        let (p, _) = with_option_cards(prob, &space);
        s.prob = p;
        s.run_space(&space);
    }
    Found {
        ranked: s.ranked,
        stats: s.stats,
        failures: s.failures,
        common: s.common,
        stopped: s.stopped,
    }
}

/// An upper bound on the objective value of any placement of the parts, from their specs
/// alone: what an unexplored part of the space could reach at most.
fn static_bound(prob: &Problem) -> f64 {
    let (wr, ww, _) = prob.objective.weights();
    let spec = |x: f64| if x.is_finite() { x } else { 0.0 };
    let (mut r, mut w) = (0.0, 0.0);
    for (p, n) in &prob.drives {
        r += p.read_gbs * *n as f64;
        w += p.write_gbs * *n as f64;
    }
    let mut nic = 0.0;
    for (p, n) in &prob.cards {
        if prob.eval_opts.scope == Scope::All {
            r += spec(p.read_gbs) * *n as f64;
            w += spec(p.write_gbs) * *n as f64;
        }
        if p.class == DeviceClass::Nic {
            nic += spec(p.write_gbs) * *n as f64;
        }
    }
    let has_nic = prob.cards.iter().any(|(p, _)| p.class == DeviceClass::Nic);
    if prob.objective == Objective::Served && has_nic && prob.eval_opts.cards {
        served::served_gbs(&served::ServedInputs {
            drive_read_gbs: r,
            nic_tx_gbs: nic,
        })
    } else {
        weighted(wr, r, ww, w)
    }
}

/// wr x r + ww x w, a zero weight leaving its term out (an infinite bound times 0 is NaN).
fn weighted(wr: f64, r: f64, ww: f64, w: f64) -> f64 {
    let term = |k: f64, x: f64| if k == 0.0 { 0.0 } else { k * x };
    term(wr, r) + term(ww, w)
}

/// The trade-off between serving clients and the drives' own aggregate: the best placement
/// for the drives alone (`read` objective), when it is not the served optimum.
#[derive(Debug, Clone, Serialize)]
pub struct Tradeoff {
    /// The best placement for the drives' read aggregate, scored as the served optimum is
    /// (its `served_gbs` is what it delivers to clients).
    pub drives_best: Candidate,
    /// Whether that search was completed within its share of the budget.
    pub proven_optimal: bool,
}

/// [`place`], reporting progress (about ten times a second) to `progress`.
pub fn place_with_progress(
    catalog: &Catalog,
    req: &Request,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Outcome, RequestError> {
    let t0 = Instant::now();
    let prob = resolve(catalog, req)?;
    let served_obj = prob.objective == Objective::Served
        && prob.cards.iter().any(|(p, _)| p.class == DeviceClass::Nic);
    // The served search takes most of the time budget; the drives-alone one (the
    // trade-off) what is left of it, at least a fifth.
    let main_budget = if served_obj {
        Budget {
            time_ms: req.budget.time_ms * 4 / 5,
            nodes: req.budget.nodes,
        }
    } else {
        req.budget
    };
    let found = search(&prob, req.top.max(2), main_budget, &mut *progress);
    let mut stats = found.stats;
    stats.option_sets_dominated = prob.dominated;
    let mut ranked = found.ranked;
    let proven = found.stopped.is_none() && !ranked.is_empty();
    let bound = if found.stopped.is_some() {
        let b = static_bound(&prob);
        Some(match ranked.first() {
            Some(best) => b.max(best.score.value),
            None => b,
        })
    } else {
        ranked.first().map(|b| b.score.value)
    };
    let gap_gbs = match (bound, ranked.first()) {
        (Some(b), Some(best)) if b.is_finite() => Some((b - best.score.value).max(0.0)),
        _ => None,
    };
    let runner_up_gives_up = match (ranked.first(), ranked.get(1)) {
        (Some(a), Some(b)) => differences(&a.score, &b.score),
        _ => Vec::new(),
    };
    ranked.truncate(req.top.max(1));
    let tradeoff = if served_obj && let Some(best) = ranked.first() {
        let spent = t0.elapsed().as_millis() as u64;
        let mut drives = prob.clone();
        drives.objective = Objective::Read;
        let left = Budget {
            time_ms: req
                .budget
                .time_ms
                .saturating_sub(spent)
                .max(req.budget.time_ms / 5),
            nodes: req.budget.nodes,
        };
        let f = search(&drives, 1, left, &mut *progress);
        f.ranked
            .into_iter()
            .next()
            .filter(|c| c.placement != best.placement)
            .map(|c| {
                // Score it as the served optimum is scored.
                let space = eval::space(catalog, &prob.platform, &c.placement.options);
                let rescored = space.and_then(|space| {
                    let (p, _) = with_option_cards(&prob, &space);
                    let text = c.placement.to_toml(&p.platform.id, "trade-off");
                    p.evaluate("tradeoff.toml", &text)
                        .ok()
                        .map(|e| score(&p, &space, &c.placement, &e))
                });
                let mut c = c;
                if let Some((sc, b)) = rescored {
                    c.score = sc;
                    c.binding = b;
                }
                Tradeoff {
                    drives_best: c,
                    proven_optimal: f.stopped.is_none(),
                }
            })
    } else {
        None
    };
    let vendor = vendor(&prob, ranked.first());
    let implied_cards = ranked
        .first()
        .and_then(|b| eval::space(catalog, &prob.platform, &b.placement.options))
        .map(|space| with_option_cards(&prob, &space).1)
        .unwrap_or_default();
    let infeasible = if ranked.is_empty() {
        found.failures
    } else {
        Vec::new()
    };
    Ok(Outcome {
        platform: prob.platform.id.clone(),
        platform_name: prob.platform.name.clone(),
        objective: prob.objective,
        devices: req.devices,
        parts: req.parts.clone(),
        stats,
        proven_optimal: proven,
        stopped: found.stopped,
        bound,
        gap_gbs,
        budget: req.budget,
        elapsed_ms: t0.elapsed().as_secs_f64() * 1000.0,
        ranked,
        runner_up_gives_up,
        vendor,
        infeasible,
        implied_cards,
        common_slots: found.common.unwrap_or_default(),
        tradeoff,
    })
}

/// How many option sets the vendor order tries.
const VENDOR_OPTION_SETS: usize = 16;

/// The vendor order: the first option set (defaults first) where greedy first fit by the
/// platform's priority lists places every part; cards in the order given, drives in bay
/// number order.
fn vendor(prob: &Problem, best: Option<&Candidate>) -> Option<Vendor> {
    let mut first_try: Option<Vendor> = None;
    // The first option sets only (defaults first): the vendor order is a reference, and the
    // budget is the search's, not this loop's.
    for opts in prob.option_sets.iter().take(VENDOR_OPTION_SETS) {
        let space = eval::space(prob.catalog, &prob.platform, opts)?;
        let (with_cards, _) = with_option_cards(prob, &space);
        let prob = &with_cards;
        let pl = match greedy(prob, &space) {
            Ok(pl) => pl,
            Err(why) => {
                if first_try.is_none() {
                    first_try = Some(Vendor {
                        placement: None,
                        errors: vec![why],
                        score: None,
                        gains: Vec::new(),
                    });
                }
                continue;
            }
        };
        let text = pl.to_toml(&prob.platform.id, "vendor order");
        let Ok(e) = prob.evaluate("vendor.toml", &text) else {
            continue;
        };
        let errors: Vec<String> = e
            .errors()
            .map(|f| format!("{}: {}", f.code, f.message))
            .collect();
        if errors.is_empty() {
            let (sc, _) = score(prob, &space, &pl, &e);
            let gains = best.map(|b| differences(&b.score, &sc)).unwrap_or_default();
            return Some(Vendor {
                placement: Some(pl),
                errors,
                score: Some(sc),
                gains,
            });
        }
        if first_try.as_ref().is_none_or(|v| v.placement.is_none()) {
            first_try = Some(Vendor {
                placement: Some(pl),
                errors,
                score: None,
                gains: Vec::new(),
            });
        }
    }
    first_try
}

fn greedy(prob: &Problem, space: &Space) -> Result<Placement, String> {
    let mut used = vec![false; space.slots.len()];
    let mut slots = Vec::new();
    for (p, n) in &prob.cards {
        let rule = prob
            .platform
            .card_rules
            .iter()
            .find(|r| r.class == p.class && (!r.double_width || p.double_width));
        // The slots the option ships this card in come first, then the priority list (or
        // the platform's slot order).
        let mut order: Vec<usize> = space
            .groups
            .iter()
            .filter(|g| g.card.as_deref() == Some(p.id.as_str()))
            .filter_map(|g| space.slots.iter().position(|s| s.id == g.to))
            .collect();
        let listed: Vec<usize> = match rule {
            Some(r) => r
                .slots
                .iter()
                .filter_map(|x| space.slots.iter().position(|s| &s.id == x.get_ref()))
                .collect(),
            None => (0..space.slots.len()).collect(),
        };
        for i in listed {
            if !order.contains(&i) {
                order.push(i);
            }
        }
        order.retain(|&i| {
            card_misfit(
                p,
                &space.slots[i],
                &prob.platform.card_rules,
                &prob.keep_free,
            )
            .is_none()
        });
        for _ in 0..*n {
            let Some(&i) = order.iter().find(|&&i| !used[i]) else {
                return Err(format!(
                    "no free slot left for {} in the priority order",
                    p.name
                ));
            };
            used[i] = true;
            slots.push(SlotPick {
                slot: space.slots[i].id.clone(),
                part: p.id.clone(),
            });
        }
    }
    let has_card = |id: &str| slots.iter().any(|s: &SlotPick| s.slot == id);
    let mut free: Vec<(u32, usize)> = Vec::new();
    for (gi, g) in space.groups.iter().enumerate() {
        if group_connected(g, &has_card) {
            free.extend(g.bays.iter().map(|&b| (b, gi)));
        }
    }
    free.sort();
    let mut taken = vec![false; free.len()];
    let mut bays = Vec::new();
    for (p, n) in &prob.drives {
        let mut mine = Vec::new();
        for (k, (b, gi)) in free.iter().enumerate() {
            if mine.len() == *n {
                break;
            }
            if !taken[k] && drive_fits(p, &space.groups[*gi]) {
                taken[k] = true;
                mine.push(*b);
            }
        }
        if mine.len() < *n {
            return Err(format!(
                "{} x {}: {} free bays take it in number order",
                n,
                p.name,
                mine.len()
            ));
        }
        bays.push(BayPick {
            bays: compress(&mine),
            part: p.id.clone(),
        });
    }
    slots.sort();
    Ok(Placement {
        options: space.options.clone(),
        slots,
        bays,
    })
}

/// Scores a given placement under a request's objective (the parts it holds are its own):
/// `Ok(score)` when `check` passes it, `Err(errors)` otherwise. Compares a hand-made build
/// (an example, a review) with `place`'s optimum.
pub fn score_placement(
    catalog: &Catalog,
    req: &Request,
    placement: &Placement,
) -> Result<Result<Score, Vec<String>>, RequestError> {
    let prob = resolve(catalog, req)?;
    let mut placement = placement.clone();
    for o in &prob.platform.options {
        placement
            .options
            .entry(o.key.clone())
            .or_insert_with(|| o.default.clone());
    }
    let placement = &placement;
    let space = eval::space(catalog, &prob.platform, &placement.options).ok_or_else(|| {
        req_err(
            format!(
                "options {:?} do not name choices of the platform",
                placement.options
            ),
            None,
        )
    })?;
    let text = placement.to_toml(&prob.platform.id, "scored");
    let e = prob
        .evaluate("scored.toml", &text)
        .map_err(|m| req_err(m, None))?;
    let errors: Vec<String> = e
        .errors()
        .map(|f| format!("{}: {}", f.code, f.message))
        .collect();
    if !errors.is_empty() {
        return Ok(Err(errors));
    }
    Ok(Ok(score(&prob, &space, placement, &e).0))
}
