//! `AttemptIndex`: the analysed rows of a result CSV grouped by (setting, rep): no attempt may be recorded
//! twice (a CSV with every row twice would double n and halve every interval), and of several attempts the
//! analysis reads one, the last that succeeded (else the last).

use rustc_hash::FxHashMap;

use crate::ground::RunStatus;
use crate::plan::SettingId;

/// Which runs the analysis reads, and how many (setting, rep) were run more than once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct AttemptIndex {
    /// The runs analysis reads, ascending; `None` when it reads every run.
    pub current: Option<Vec<u32>>,
    /// (setting, rep) pairs recorded more than once.
    pub retried: usize,
}

/// A (setting, rep, attempt) recorded twice: the run that repeats it and the earlier one (0-based runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Duplicate {
    pub run: usize,
    pub earlier: usize,
}

impl AttemptIndex {
    /// Indexes the runs of a table's columns (file order), `attempt` giving a run's attempt (1 unless the
    /// CSV says otherwise). Warmups are never analysed and each shard runs its own, so they are neither
    /// checked nor superseded. Linear: a million-row CSV is indexed in milliseconds.
    pub fn of(
        setting: &[SettingId],
        rep: &[u32],
        warmup: &[bool],
        status: &[RunStatus],
        attempt: impl Fn(usize) -> u32,
    ) -> Result<AttemptIndex, Duplicate> {
        let mut first = FirstRuns::for_runs(setting, rep);
        // Only (setting, rep) recorded more than once: every row of it.
        let mut repeated: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
        for run in (0..rep.len()).filter(|&run| !warmup[run]) {
            let key = (setting[run].index() as u64) << 32 | u64::from(rep[run]);
            let Some(earliest) = first.claim(key, run) else { continue };
            let rows = repeated.entry(key).or_insert_with(|| vec![earliest]);
            let this = attempt(run);
            if let Some(&earlier) = rows.iter().find(|&&row| attempt(row) == this) {
                return Err(Duplicate { run, earlier });
            }
            rows.push(run);
        }
        if repeated.is_empty() {
            return Ok(AttemptIndex { current: None, retried: 0 });
        }
        // The last success, else the last attempt: a success outranks any failure, then the later attempt.
        let rank = |run: &usize| (status[*run] == RunStatus::Ok, attempt(*run));
        let mut superseded: Vec<usize> = repeated
            .values()
            .flat_map(|rows| {
                let chosen = rows.iter().copied().max_by_key(rank);
                rows.iter().copied().filter(move |run| Some(*run) != chosen)
            })
            .collect();
        superseded.sort_unstable();
        let mut skipped = superseded.into_iter().peekable();
        let current = (0..rep.len()).filter(|&run| skipped.next_if_eq(&run).is_none()).map(|run| run as u32).collect();
        Ok(AttemptIndex { current: Some(current), retried: repeated.len() })
    }
}

/// The first run recorded for each (setting, rep): a dense table when the grid is about as large as the
/// runs (the usual case), a hash map when reps are sparse.
enum FirstRuns {
    Dense { reps: u64, runs: Vec<u32> },
    Sparse(FxHashMap<u64, usize>),
}

impl FirstRuns {
    fn for_runs(setting: &[SettingId], rep: &[u32]) -> FirstRuns {
        let settings = setting.iter().max().map_or(0, |&last| last.index() as u64 + 1);
        let reps = rep.iter().max().map_or(0, |&last| u64::from(last) + 1);
        match settings.checked_mul(reps).filter(|&cells| cells <= 2 * rep.len() as u64 + 1024) {
            Some(cells) => FirstRuns::Dense { reps, runs: vec![u32::MAX; cells as usize] },
            None => FirstRuns::Sparse(FxHashMap::default()),
        }
    }

    /// Records `run` as the first of `key` (setting << 32 | rep), or returns the run that already is (each
    /// run is claimed once, so the first is another run exactly when one came before).
    fn claim(&mut self, key: u64, run: usize) -> Option<usize> {
        let first = match self {
            FirstRuns::Dense { reps, runs } => {
                let cell = &mut runs[((key >> 32) * *reps + (key & u64::from(u32::MAX))) as usize];
                if *cell == u32::MAX {
                    *cell = run as u32;
                }
                *cell as usize
            }
            FirstRuns::Sparse(first) => *first.entry(key).or_insert(run),
        };
        (first != run).then_some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (setting, rep, attempt, status, warmup) rows indexed as a table's columns.
    fn index(rows: &[(u32, u32, u32, RunStatus, bool)]) -> Result<AttemptIndex, Duplicate> {
        let setting: Vec<SettingId> = rows.iter().map(|row| SettingId::new(row.0 as usize)).collect();
        let rep: Vec<u32> = rows.iter().map(|row| row.1).collect();
        let status: Vec<RunStatus> = rows.iter().map(|row| row.3).collect();
        let warmup: Vec<bool> = rows.iter().map(|row| row.4).collect();
        AttemptIndex::of(&setting, &rep, &warmup, &status, |run| rows[run].2)
    }

    const OK: RunStatus = RunStatus::Ok;
    const FAILED: RunStatus = RunStatus::Failed;

    #[test]
    fn every_run_once_reads_every_run() {
        let rows = [(0, 1, 1, OK, false), (1, 1, 1, FAILED, false), (0, 2, 1, OK, false)];
        assert_eq!(index(&rows), Ok(AttemptIndex { current: None, retried: 0 }));
    }

    #[test]
    fn a_row_recorded_twice_is_a_duplicate_naming_both() {
        let rows = [(0, 1, 1, OK, false), (1, 1, 1, OK, false), (0, 1, 1, OK, false)];
        assert_eq!(index(&rows), Err(Duplicate { run: 2, earlier: 0 }));
        let sparse = [(0, 1, 1, OK, false), (0, 4_000_000, 1, OK, false), (0, 4_000_000, 1, OK, false)];
        assert_eq!(index(&sparse), Err(Duplicate { run: 2, earlier: 1 }));
    }

    #[test]
    fn of_several_attempts_the_last_success_is_read_and_warmups_are_kept() {
        let rows = [
            (0, 1, 1, FAILED, false),
            (0, 2, 1, OK, false),
            (0, 1, 2, OK, false),
            (0, 1, 3, RunStatus::Timeout, false),
            (0, 1, 1, OK, true),
            (0, 1, 1, OK, true),
        ];
        assert_eq!(index(&rows), Ok(AttemptIndex { current: Some(vec![1, 2, 4, 5]), retried: 1 }));
    }

    #[test]
    fn with_no_success_the_last_attempt_is_read() {
        let rows = [(0, 1, 2, FAILED, false), (0, 1, 1, FAILED, false)];
        assert_eq!(index(&rows).unwrap().current, Some(vec![0]));
    }
}
