//! laneplan: plan, audit and probe the PCIe topology of storage servers.
//!
//! See `docs/ARCHITECTURE.md` for the map of the code.

pub mod finding;
pub mod host;
pub mod pcie;
pub mod topology;
