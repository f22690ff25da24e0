//! The verdict on one group of settings: which is best, and whether the data can tell it from its rivals.

use serde::Serialize;

use super::no_test::NoTest;
use super::ratio_interval::RatioInterval;
use super::rival_comparison::RivalComparison;
use super::setting_summary::Labels;

/// What the data say about a group as a whole; ordered from the most decided to the least.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum GroupOutcome {
    /// The best setting beats every rival (family-wise corrected).
    #[serde(rename = "resolved")]
    Resolved,
    /// Some rivals cannot be separated from the best.
    #[serde(rename = "tied")]
    Tied,
    /// No test was possible (one rep, no residual degrees of freedom, a zero standard error, or runs that
    /// disagree where the screen cannot say which is right).
    #[serde(rename = "cannot tell")]
    CannotTell,
}

impl GroupOutcome {
    /// As the summary and `analysis.json` spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupOutcome::Resolved => "resolved",
            GroupOutcome::Tied => "tied",
            GroupOutcome::CannotTell => "cannot tell",
        }
    }
}

/// A rival of a group's best setting and how it fared.
#[derive(Debug, Clone, PartialEq)]
pub struct Rival {
    /// Index into `SweepAnalysis::settings`.
    pub setting: usize,
    /// Why no test was possible, or the test.
    pub comparison: Result<RivalComparison, NoTest>,
    /// rival / best on the metric's own scale, with its simultaneous interval (`Verdicts::level`, the
    /// level compatible with Holm's decisions): beaten rivals' intervals lie wholly below 1 (better side
    /// excluded), tied rivals' contain 1.
    pub ratio: Option<RatioInterval>,
    /// The same ratio with its marginal 95% interval (not multiplicity-adjusted).
    pub marginal: Option<RatioInterval>,
    /// Adjusted p-value (the selection-adjusted step-down of `Verdicts::decide`) of "no member of the group
    /// is better than this rival".
    pub p_adjusted: Option<f64>,
    /// The smallest relative difference (0.021 = 2.1%) the test would detect with 80% power at the level
    /// it was held to: the resolution of a tie.
    pub detectable: Option<f64>,
    /// The runs per setting at which this rival, undecided, would be decided at the same level, the
    /// difference and noise staying as they are (`runs_to_decide`); None when decided, untested, or out of
    /// reach.
    pub runs_to_decide: Option<usize>,
    /// Worse than the best, family-wise significant.
    pub beaten: bool,
    /// Within the declared negligible margin of the best (two one-sided tests): a practical tie.
    pub equivalent: bool,
}

impl Rival {
    /// Out of the race: nothing more to learn about it.
    pub fn is_decided(&self) -> bool {
        self.beaten || self.equivalent
    }
}

/// One group of settings (one value of the `group_by` columns).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupVerdict {
    /// The `group_by` labels shared by the group (empty without grouping).
    pub group: Labels,
    /// Index into `SweepAnalysis::settings` of the best (control-adjusted) mean.
    pub best: usize,
    /// Every other setting of the group, in setting order.
    pub rivals: Vec<Rival>,
    pub outcome: GroupOutcome,
    /// Why the group cannot be told, when it cannot.
    pub reason: Option<NoTest>,
}

impl GroupVerdict {
    /// The verdict on `best` and its `rivals`; `replicated` when some setting of the group has two runs or
    /// more. Without replication there is no verdict: one run per setting (the first round of an
    /// interrupted sweep) measures no noise, so a group of one setting, or of settings ordered by value
    /// alone, is not resolved by it.
    pub fn new(group: Labels, best: usize, rivals: Vec<Rival>, replicated: bool) -> GroupVerdict {
        // A rival the values decided (no spread) is no reason to doubt the verdict.
        let untested = rivals.iter().filter(|r| !r.is_decided()).find_map(|r| r.comparison.err());
        let reason = if replicated { untested } else { Some(NoTest::OneRep) };
        let outcome = if reason.is_some() {
            GroupOutcome::CannotTell
        } else if rivals.iter().all(|r| r.beaten) {
            GroupOutcome::Resolved
        } else {
            GroupOutcome::Tied
        };
        GroupVerdict { group, best, rivals, outcome, reason }
    }

    /// Every rival is beaten or a practical tie: more runs would not change the answer.
    pub fn is_decided(&self) -> bool {
        self.outcome != GroupOutcome::CannotTell && self.rivals.iter().all(Rival::is_decided)
    }

    /// The runs per setting that would decide every undecided rival (the most any needs), when each has a
    /// count within reach; None for a decided group.
    pub fn runs_to_decide(&self) -> Option<usize> {
        let mut undecided = self.rivals.iter().filter(|r| !r.is_decided()).peekable();
        undecided.peek()?;
        undecided.map(|r| r.runs_to_decide).try_fold(0, |most, runs| Some(most.max(runs?)))
    }

    /// Rivals the best could not be told from.
    pub fn tied(&self) -> impl Iterator<Item = &Rival> {
        self.rivals.iter().filter(|r| !r.beaten)
    }

    /// Settings still worth running in a race: the best and every rival not yet decided, unless the
    /// whole group is decided.
    pub fn racing(&self) -> Vec<usize> {
        if self.is_decided() {
            return Vec::new();
        }
        std::iter::once(self.best).chain(self.rivals.iter().filter(|r| !r.is_decided()).map(|r| r.setting)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::comparison_method::ComparisonMethod;

    fn rival(setting: usize, beaten: bool, equivalent: bool) -> Rival {
        let comparison = RivalComparison {
            estimate: -0.1,
            std_error: 0.01,
            df: 10.0,
            runs: 3,
            method: ComparisonMethod::Blocked,
            pooled: None,
        };
        Rival {
            setting,
            comparison: Ok(comparison),
            ratio: None,
            marginal: None,
            p_adjusted: None,
            detectable: None,
            runs_to_decide: None,
            beaten,
            equivalent,
        }
    }

    #[test]
    fn resolved_only_when_every_rival_is_beaten() {
        assert_eq!(GroupVerdict::new(vec![], 0, vec![rival(1, true, false)], true).outcome, GroupOutcome::Resolved);
        let tied = GroupVerdict::new(vec![], 0, vec![rival(1, true, false), rival(2, false, false)], true);
        assert_eq!(tied.outcome, GroupOutcome::Tied);
        assert_eq!(tied.tied().map(|r| r.setting).collect::<Vec<_>>(), [2]);
        assert_eq!(tied.racing(), [0, 2]);
    }

    #[test]
    fn a_practical_tie_decides_the_group_without_resolving_it() {
        let group = GroupVerdict::new(vec![], 0, vec![rival(1, true, false), rival(2, false, true)], true);
        assert_eq!(group.outcome, GroupOutcome::Tied);
        assert!(group.is_decided() && group.racing().is_empty());
    }

    #[test]
    fn an_untestable_rival_means_cannot_tell() {
        let untested = Rival { comparison: Err(NoTest::NoResidualDf), ..rival(1, false, false) };
        let group = GroupVerdict::new(vec![], 0, vec![untested], true);
        assert_eq!((group.outcome, group.reason), (GroupOutcome::CannotTell, Some(NoTest::NoResidualDf)));
        assert!(!group.is_decided());
    }

    /// One run per setting measures no noise: neither a rival beaten by value nor a group of one setting
    /// is a verdict then.
    #[test]
    fn one_run_per_setting_is_never_resolved() {
        let by_value = Rival { comparison: Err(NoTest::NoSpread), ..rival(1, true, false) };
        for rivals in [vec![by_value], vec![]] {
            let group = GroupVerdict::new(vec![], 0, rivals, false);
            assert_eq!((group.outcome, group.reason), (GroupOutcome::CannotTell, Some(NoTest::OneRep)));
            assert_eq!(group.racing(), [0], "a race keeps running the group");
        }
    }
}
