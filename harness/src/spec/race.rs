//! A race's limits: how many rounds every setting runs before any is dropped, and how many at most.

use serde::{Deserialize, Serialize};

/// The rounds a race may take: every setting runs `min`, none more than `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub struct Race {
    pub min: u32,
    pub max: u32,
}

impl Race {
    /// The analyses a race makes, one after each round from `min` to `max` (the last is the final
    /// verdict): its error rate is split over them (Bonferroni), so looking after every round cannot
    /// turn a tie into a winner more often than alpha.
    pub fn looks(&self) -> u32 {
        self.max.saturating_sub(self.min) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_race_looks_once_per_round_from_min_to_max() {
        assert_eq!(Race { min: 3, max: 5 }.looks(), 3);
        assert_eq!(Race { min: 3, max: 3 }.looks(), 1);
    }
}
