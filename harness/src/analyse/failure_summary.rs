//! Failed runs of a sweep and why they failed.

use super::setting_summary::first_seen_groups;
use crate::launch::RunStatus;
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
}

impl FailureSummary {
    /// Count runs whose status is not `ok` (warmups included: a failing warmup is still a failure).
    pub fn of<R: RecordedRun>(observations: &[R]) -> FailureSummary {
        let failures = observations.iter().filter(|o| o.status() != RunStatus::Ok);
        let reasons: Vec<(String, usize)> = first_seen_groups(failures.map(|failure| (failure.failure_reason(), ())))
            .into_iter()
            .map(|(reason, runs)| (reason.to_string(), runs.len()))
            .collect();
        let failed = reasons.iter().map(|(_, count)| count).sum();
        FailureSummary { runs: observations.len(), failed, reasons }
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
}
