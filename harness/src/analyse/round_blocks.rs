//! `RoundBlocks`: whether a model fits the rounds as blocks, and whether long rounds are cut into time blocks.

/// How a `SettingModel` treats the rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundBlocks {
    /// No round effects (a shuffled or unpaired schedule).
    Off,
    /// Each round is one block: for comparisons across components (two separate sweeps), where a setting's
    /// level in a component of incomplete blocks carries more variance than its runs' mean, which the
    /// comparison would not cancel (the A/A benchmark flagged 17% of pairs with time blocks, 6% without).
    Whole,
    /// Rounds of 20 runs or more are split into time blocks of at least 10 (`split_rounds_into_time_blocks`):
    /// drift within a long round is blocked too. For comparisons within connected rounds.
    TimeBlocks,
}

impl RoundBlocks {
    /// An interleaved schedule's rounds as time blocks, else none.
    pub fn interleaved(rounds_are_blocks: bool) -> RoundBlocks {
        if rounds_are_blocks {
            RoundBlocks::TimeBlocks
        } else {
            RoundBlocks::Off
        }
    }

    /// Whether round effects are fitted.
    pub fn fitted(self) -> bool {
        self != RoundBlocks::Off
    }
}
