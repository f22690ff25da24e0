//! `RecordedAttempts`: what a CSV being resumed already holds of each run, so `--resume` runs what is
//! missing, runs failed runs again (unless told to keep them) and numbers each new attempt.

use std::collections::BTreeMap;

use super::run_key::RunKey;

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
    pub fn record(&mut self, key: RunKey, attempt: u32, succeeded: bool) {
        let attempts = self.runs.entry(key).or_default();
        attempts.last = attempts.last.max(attempt);
        attempts.succeeded |= succeeded;
    }

    /// Whether the planned run `key` is still to run: it was never recorded, or every recorded attempt
    /// failed and failures are run again.
    pub fn needs_run(&self, key: &RunKey, retry_failed: bool) -> bool {
        let retry = retry_failed && !self.without_attempts;
        self.runs.get(key).is_none_or(|attempts| retry && !attempts.succeeded)
    }

    /// The attempt the next row of `key` records: one after the last recorded, 1 for a new run.
    pub fn next_attempt(&self, key: &RunKey) -> u32 {
        self.runs.get(key).map_or(1, |attempts| attempts.last + 1)
    }

    /// Whether `key` was recorded and failed every time (a run `--resume` runs again).
    pub fn failed(&self, key: &RunKey) -> bool {
        self.runs.get(key).is_some_and(|attempts| !attempts.succeeded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(rep: u32) -> RunKey {
        RunKey { setting: crate::plan::SettingId::new(0), rep, warmup: false }
    }

    #[test]
    fn failed_runs_run_again_with_the_next_attempt_unless_kept() {
        let mut attempts = RecordedAttempts::default();
        attempts.record(key(1), 1, true);
        attempts.record(key(2), 1, false);
        attempts.record(key(2), 2, false);
        assert!(!attempts.needs_run(&key(1), true));
        assert!(attempts.needs_run(&key(2), true) && attempts.failed(&key(2)));
        assert!(!attempts.needs_run(&key(2), false));
        assert!(attempts.needs_run(&key(3), false));
        assert_eq!((attempts.next_attempt(&key(2)), attempts.next_attempt(&key(3))), (3, 1));
    }
}
