//! laneplan: plan, audit and probe the PCIe topology of storage servers.
//!
//! See `docs/ARCHITECTURE.md` for the map of the code.

// Input errors carry their source text for caret snippets; they are returned once per run,
// so their size does not matter.
#![allow(clippy::result_large_err)]

pub mod against;
pub mod audit;
pub mod bays;
pub mod bounded;
pub mod complete;
pub mod cpu;
pub mod escape;
pub mod finding;
pub mod flow;
pub mod host;
pub mod input;
pub mod learn;
pub mod outfile;
pub mod pci;
pub mod pcie;
pub mod pciids;
pub mod place;
pub mod plan;
pub mod platform;
pub mod probe;
pub mod render;
pub mod source;
pub mod suggest;
pub mod synth;
pub mod term;
pub mod topology;
pub mod treetext;
pub mod variant;
