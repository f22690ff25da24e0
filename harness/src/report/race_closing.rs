//! The line a race ends with: after how many of its rounds it decided and how many runs that saved, or
//! which groups it could not decide by its last round and what would let it.

use super::setting_columns::group_name;
use crate::analyse::SweepAnalysis;

/// What a finished race did.
#[derive(Debug, Clone, Copy)]
pub struct RaceClosing<'a> {
    /// The final analysis of the race's CSV.
    pub analysis: &'a SweepAnalysis,
    /// The last round run, and the race's limit.
    pub rounds: u32,
    pub max: u32,
    /// Runs recorded, and runs the plan held at `max` rounds.
    pub runs: usize,
    pub planned: usize,
    /// Whether the sweep declares `negligible` (without it a practical tie can never be decided).
    pub negligible: bool,
}

impl RaceClosing<'_> {
    /// `decided after 6 of max 10 rounds: 59 runs, 41 saved`, or `stopped at max (10 rounds, ...) without
    /// deciding rows=512: declare `negligible` to call practical ties`.
    pub fn line(&self) -> String {
        let saved = self.planned.saturating_sub(self.runs);
        let groups = &self.analysis.verdicts.groups;
        let undecided: Vec<String> =
            groups.iter().filter(|group| !group.is_decided()).map(|group| group_name(&group.group)).collect();
        if undecided.is_empty() || self.rounds < self.max {
            return format!(
                "decided after {} of max {} rounds: {} runs, {saved} saved",
                self.rounds, self.max, self.runs
            );
        }
        let help = if self.negligible {
            "more rounds (`--max-reps`) may decide them"
        } else {
            "declare `negligible` to call practical ties"
        };
        format!(
            "stopped at max ({} rounds, {} runs, {saved} saved) without deciding {}: {help}",
            self.max,
            self.runs,
            undecided.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{fixture_slice_config, fixture_slice_sweep};

    #[test]
    fn a_race_says_when_it_decided_or_what_it_could_not() {
        let config = fixture_slice_config();
        let analysis = analyse_sweep(&fixture_slice_sweep(), &config, true, &[]);
        let closing =
            RaceClosing { analysis: &analysis, rounds: 6, max: 10, runs: 59, planned: 100, negligible: false };
        assert_eq!(closing.line(), "decided after 6 of max 10 rounds: 59 runs, 41 saved");
        let at_max = RaceClosing { rounds: 10, ..closing };
        assert_eq!(
            at_max.line(),
            "stopped at max (10 rounds, 59 runs, 41 saved) without deciding rows=512, rows=1024: declare \
             `negligible` to call practical ties"
        );
    }
}
