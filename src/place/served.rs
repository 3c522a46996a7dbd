//! Served storage: what a storage node delivers to its clients, the `served` objective.
//!
//! Today's model: clients read what the drives read into memory and the NICs send out of it,
//! so the node serves `min(drive read aggregate, NIC transmit aggregate)`. The drive read
//! aggregate is the max-flow of the drives to memory (the flow analysis, drives only); the
//! NIC aggregate is the sum of each NIC's expected figure from memory alone (its spec capped
//! by its path: a Gen3 x16 card wired x8 sends what x8 carries). The two use opposite link
//! directions, so they do not compete for a link in this model.
//!
//! This is the one place the served figure is computed: a fuller aggregate (memory, CPU,
//! replication) replaces [`served_gbs`]. The search bounds it by calling the same function on
//! upper bounds of its inputs, so a replacement must not decrease when an input grows.

use super::eval::CardFigures;
use crate::topology::DeviceClass;

/// The inputs of the served figure, read off one evaluated placement.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ServedInputs {
    /// Aggregate the drives read into memory (GB/s).
    pub drive_read_gbs: f64,
    /// Aggregate the NICs can send out of memory (GB/s).
    pub nic_tx_gbs: f64,
}

/// What the node delivers to its clients (GB/s).
pub fn served_gbs(x: &ServedInputs) -> f64 {
    x.drive_read_gbs.min(x.nic_tx_gbs)
}

/// The NICs' transmit aggregate: each NIC's expected figure from memory, summed.
pub fn nic_tx_gbs(cards: &[CardFigures]) -> f64 {
    cards
        .iter()
        .filter(|c| c.class == DeviceClass::Nic)
        .fold(0.0, |a, c| a + c.write_gbs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smaller_side_binds() {
        let x = ServedInputs {
            drive_read_gbs: 42.0,
            nic_tx_gbs: 7.2,
        };
        assert_eq!(served_gbs(&x), 7.2);
        let y = ServedInputs {
            drive_read_gbs: 3.5,
            nic_tx_gbs: 12.5,
        };
        assert_eq!(served_gbs(&y), 3.5);
    }
}
