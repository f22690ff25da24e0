//! `RecordedAttempts`: what a CSV being resumed already holds of each run, so `--resume` runs what is
//! missing, runs failed runs again (unless told to keep them) and numbers each new attempt.

use std::collections::BTreeMap;

use crate::plan::{PlannedRun, SettingId};

/// A run as `--resume` matches it: (setting, rep, warmup), its setting's id the one in the plan being
/// resumed (a CSV's rows are mapped to it once per setting, `RunTable::plan_ids`).
type RunKey = (SettingId, u32, bool);

/// Per (setting, rep): the last attempt recorded and whether any attempt succeeded.
#[derive(Debug, Clone, Default)]
pub struct RecordedAttempts {
    runs: BTreeMap<RunKey, Attempts>,
    /// The CSV was written before the `attempt` column: a second row of a (setting, rep) could not say
    /// which attempt it is, so its failed runs are kept.
    pub without_attempts: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Attempts {
    last: u32,
    succeeded: bool,
}

impl RecordedAttempts {
    /// Notes one recorded row of `key`.
    pub(super) fn record(&mut self, key: RunKey, attempt: u32, succeeded: bool) {
        let attempts = self.runs.entry(key).or_default();
        attempts.last = attempts.last.max(attempt);
        attempts.succeeded |= succeeded;
    }

    /// Whether the planned `run` is still to run: it was never recorded, or every recorded attempt
    /// failed and failures are run again.
    pub fn needs_run(&self, run: &PlannedRun, retry_failed: bool) -> bool {
        let retry = retry_failed && !self.without_attempts;
        self.of(run).is_none_or(|attempts| retry && !attempts.succeeded)
    }

    /// The attempt the next row of `run` records: one after the last recorded, 1 for a new run.
    pub fn next_attempt(&self, run: &PlannedRun) -> u32 {
        self.of(run).map_or(1, |attempts| attempts.last + 1)
    }

    /// Whether `run` was recorded and failed every time (a run `--resume` runs again).
    pub fn failed(&self, run: &PlannedRun) -> bool {
        self.of(run).is_some_and(|attempts| !attempts.succeeded)
    }

    fn of(&self, run: &PlannedRun) -> Option<&Attempts> {
        self.runs.get(&(run.setting, run.rep, run.warmup))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(rep: u32) -> PlannedRun {
        PlannedRun { order: 1, setting: SettingId::new(0), rep, warmup: false }
    }

    #[test]
    fn failed_runs_run_again_with_the_next_attempt_unless_kept() {
        let mut attempts = RecordedAttempts::default();
        attempts.record((SettingId::new(0), 1, false), 1, true);
        attempts.record((SettingId::new(0), 2, false), 1, false);
        attempts.record((SettingId::new(0), 2, false), 2, false);
        assert!(!attempts.needs_run(&key(1), true));
        assert!(attempts.needs_run(&key(2), true) && attempts.failed(&key(2)));
        assert!(!attempts.needs_run(&key(2), false));
        assert!(attempts.needs_run(&key(3), false));
        assert_eq!((attempts.next_attempt(&key(2)), attempts.next_attempt(&key(3))), (3, 1));
    }
}
