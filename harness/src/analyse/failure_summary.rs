//! Failed runs of a sweep and why they failed.

use super::setting_summary::first_seen_groups;
use crate::ground::RunStatus;
use crate::plan::Setting;
use crate::record::RecordedRun;

/// How many recorded runs did not finish ok, and the distinct reasons.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureSummary {
    /// Every recorded run, warmups included.
    pub runs: usize,
    pub failed: usize,
    /// Reason -> count, in first-seen order; the reason is the recorded error without its log path
    /// (`RecordedRun::failure_reason`), or the status when the run recorded no error.
    pub reasons: Vec<(String, usize)>,
    /// Measured runs that finished ok but recorded no value of the primary metric (an empty CSV cell):
    /// how many, and the first few (setting, rep) to name. They take no part in the verdicts.
    pub unmeasured: usize,
    pub unmeasured_named: Vec<(Setting, u32)>,
}

/// How many runs without the primary metric a summary names.
const NAMED: usize = 5;

impl FailureSummary {
    /// Count runs whose status is not `ok` (warmups included: a failing warmup is still a failure).
    pub fn of<R: RecordedRun>(observations: &[R]) -> FailureSummary {
        let failures = observations.iter().filter(|o| o.status() != RunStatus::Ok);
        let reasons: Vec<(String, usize)> = first_seen_groups(failures.map(|failure| (failure.failure_reason(), ())))
            .into_iter()
            .map(|(reason, runs)| (reason.to_string(), runs.len()))
            .collect();
        let failed = reasons.iter().map(|(_, count)| count).sum();
        FailureSummary { runs: observations.len(), failed, reasons, unmeasured: 0, unmeasured_named: Vec::new() }
    }

    /// The same, with the measured runs that finished ok but lack `primary` counted and the first named.
    pub fn with_unmeasured<R: RecordedRun>(mut self, observations: &[R], primary: &str) -> FailureSummary {
        let mut unmeasured =
            observations.iter().filter(|o| o.status() == RunStatus::Ok && !o.warmup() && o.metric(primary).is_none());
        self.unmeasured_named = unmeasured.by_ref().take(NAMED).map(|o| (o.setting().clone(), o.rep())).collect();
        self.unmeasured = self.unmeasured_named.len() + unmeasured.count();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::fixture_slice_sweep;
    use crate::record::Observation;

    #[test]
    fn reasons_are_counted_with_status_standing_in_for_no_error() {
        let failures = FailureSummary::of(&fixture_slice_sweep());
        assert_eq!(failures.runs, 25);
        assert_eq!(failures.unmeasured, 0);
        assert_eq!(failures.failed, 3);
        assert_eq!(
            failures.reasons,
            vec![("missing metric prefill_tokens_per_s".to_string(), 1), ("timeout".to_string(), 2)]
        );
    }

    /// Failure reasons ended in each run's own log path, so identical failures never grouped.
    #[test]
    fn identical_failures_in_different_run_dirs_group() {
        let failed = |dir: &str| Observation {
            status: RunStatus::Failed,
            error: format!("tp-engine: invalid value '0' for --rows (the launcher exited with code 2); logs in {dir}"),
            ..crate::analyse::fixtures::fixture_observation(&[], 1, &[])
        };
        let failures = FailureSummary::of(&[failed("runs/0001"), failed("runs/0002")]);
        assert_eq!(
            failures.reasons,
            vec![("tp-engine: invalid value '0' for --rows (the launcher exited with code 2)".to_string(), 2)]
        );
    }

    /// An ok row whose primary cell was empty was dropped while the summary said every run was ok.
    #[test]
    fn an_ok_run_without_the_primary_metric_is_counted_and_named() {
        let mut observations = fixture_slice_sweep();
        let emptied = observations.iter_mut().find(|o| o.status == RunStatus::Ok && !o.warmup).unwrap();
        emptied.metrics.remove("prefill_tokens_per_s");
        let (setting, rep) = (emptied.setting.clone(), emptied.rep);
        let failures = FailureSummary::of(&observations).with_unmeasured(&observations, "prefill_tokens_per_s");
        assert_eq!((failures.unmeasured, failures.unmeasured_named), (1, vec![(setting, rep)]));
    }
}
