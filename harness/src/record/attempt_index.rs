//! `AttemptIndex`: the analysed rows of a result CSV grouped by (setting, rep): no attempt may be recorded
//! twice (a CSV with every row twice would double n and halve every interval), and of several attempts the
//! analysis reads one, the last that succeeded (else the last).

use rustc_hash::FxHashMap;

use crate::ground::RunStatus;
use crate::plan::SettingId;

/// Which runs the analysis reads, and how many (setting, rep) were run more than once. Kept with its table
/// and grown run by run (`push`) as rows are appended, so an append costs the same however long the table.
#[derive(Clone, Default)]
pub(super) struct AttemptIndex {
    /// The runs analysis reads, ascending; `None` when it reads every run.
    pub current: Option<Vec<u32>>,
    /// (setting, rep) pairs recorded more than once.
    pub retried: usize,
    first: FirstRuns,
    /// Only (setting, rep) recorded more than once: every row of it.
    repeated: FxHashMap<u64, Vec<usize>>,
}

/// What the index decided (which runs are read, how many were retried); how it finds the first run of a
/// (setting, rep) is its own, so a table grown row by row shows as the same table read afresh.
impl std::fmt::Debug for AttemptIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttemptIndex").field("current", &self.current).field("retried", &self.retried).finish()
    }
}

/// A (setting, rep, attempt) recorded twice: the run that repeats it and the earlier one (0-based runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Duplicate {
    pub run: usize,
    pub earlier: usize,
}

/// A table's columns as the index reads them, `attempt` giving a run's attempt (1 unless the CSV says
/// otherwise).
pub(super) struct RunColumns<'a, A: Fn(usize) -> u32> {
    pub setting: &'a [SettingId],
    pub rep: &'a [u32],
    pub warmup: &'a [bool],
    pub status: &'a [RunStatus],
    pub attempt: A,
}

impl AttemptIndex {
    /// Indexes the runs of a table's columns (file order). Warmups are never analysed and each shard runs
    /// its own, so they are neither checked nor superseded. Linear: a million-row CSV is indexed in
    /// milliseconds.
    pub fn of<A: Fn(usize) -> u32>(runs: &RunColumns<'_, A>) -> Result<AttemptIndex, Duplicate> {
        let mut index = AttemptIndex { first: FirstRuns::for_runs(runs.setting, runs.rep), ..Default::default() };
        for run in (0..runs.rep.len()).filter(|&run| !runs.warmup[run]) {
            index.claim(run, runs)?;
        }
        index.current = index.current_of(runs);
        Ok(index)
    }

    /// Indexes the last run of `runs`, appended after every run indexed so far: constant time, unless it
    /// repeats a (setting, rep), when the runs read are chosen again.
    pub fn push<A: Fn(usize) -> u32>(&mut self, runs: &RunColumns<'_, A>) -> Result<(), Duplicate> {
        let run = runs.rep.len() - 1;
        if !runs.warmup[run] && self.claim(run, runs)? {
            self.current = self.current_of(runs);
        } else if let Some(current) = &mut self.current {
            current.push(run as u32);
        }
        Ok(())
    }

    /// Records `run` under its (setting, rep); whether it repeats one, refusing a repeated attempt.
    fn claim<A: Fn(usize) -> u32>(&mut self, run: usize, runs: &RunColumns<'_, A>) -> Result<bool, Duplicate> {
        let key = (runs.setting[run].index() as u64) << 32 | u64::from(runs.rep[run]);
        let Some(earliest) = self.first.claim(key, run) else { return Ok(false) };
        let rows = self.repeated.entry(key).or_insert_with(|| vec![earliest]);
        let this = (runs.attempt)(run);
        if let Some(&earlier) = rows.iter().find(|&&row| (runs.attempt)(row) == this) {
            return Err(Duplicate { run, earlier });
        }
        rows.push(run);
        self.retried = self.repeated.len();
        Ok(true)
    }

    /// The runs read: of each repeated (setting, rep) the last success, else the last attempt (a success
    /// outranks any failure, then the later attempt); `None` when nothing repeats.
    fn current_of<A: Fn(usize) -> u32>(&self, runs: &RunColumns<'_, A>) -> Option<Vec<u32>> {
        if self.repeated.is_empty() {
            return None;
        }
        let rank = |run: &usize| (runs.status[*run] == RunStatus::Ok, (runs.attempt)(*run));
        let mut superseded: Vec<usize> = (self.repeated.values())
            .flat_map(|rows| {
                let chosen = rows.iter().copied().max_by_key(rank);
                rows.iter().copied().filter(move |run| Some(*run) != chosen)
            })
            .collect();
        superseded.sort_unstable();
        let mut skipped = superseded.into_iter().peekable();
        Some((0..runs.rep.len()).filter(|&run| skipped.next_if_eq(&run).is_none()).map(|run| run as u32).collect())
    }
}

/// The first run recorded for each (setting, rep): a dense table when the grid is about as large as the
/// runs (the usual case), a hash map when reps are sparse or a run appended later falls outside the table.
#[derive(Debug, Clone)]
enum FirstRuns {
    Dense { reps: u64, runs: Vec<u32> },
    Sparse(FxHashMap<u64, usize>),
}

impl Default for FirstRuns {
    fn default() -> Self {
        FirstRuns::Sparse(FxHashMap::default())
    }
}

impl FirstRuns {
    fn for_runs(setting: &[SettingId], rep: &[u32]) -> FirstRuns {
        let settings = setting.iter().max().map_or(0, |&last| last.index() as u64 + 1);
        let reps = rep.iter().max().map_or(0, |&last| u64::from(last) + 1);
        match settings.checked_mul(reps).filter(|&cells| cells <= 2 * rep.len() as u64 + 1024) {
            Some(cells) => FirstRuns::Dense { reps, runs: vec![u32::MAX; cells as usize] },
            None => FirstRuns::default(),
        }
    }

    /// Records `run` as the first of `key` (setting << 32 | rep), or returns the run that already is (each
    /// run is claimed once, so the first is another run exactly when one came before).
    fn claim(&mut self, key: u64, run: usize) -> Option<usize> {
        let (setting, rep) = (key >> 32, key & u64::from(u32::MAX));
        if let FirstRuns::Dense { reps, runs } = self {
            if rep >= *reps || setting * *reps + rep >= runs.len() as u64 {
                *self = self.sparse();
            }
        }
        let first = match self {
            FirstRuns::Dense { reps, runs } => {
                let cell = &mut runs[(setting * *reps + rep) as usize];
                if *cell == u32::MAX {
                    *cell = run as u32;
                }
                *cell as usize
            }
            FirstRuns::Sparse(first) => *first.entry(key).or_insert(run),
        };
        (first != run).then_some(first)
    }

    /// The same first runs as a hash map, for a key outside the dense table.
    fn sparse(&self) -> FirstRuns {
        match self {
            FirstRuns::Dense { reps, runs } => FirstRuns::Sparse(
                (runs.iter().enumerate())
                    .filter(|(_, &run)| run != u32::MAX)
                    .map(|(cell, &run)| (((cell as u64 / reps) << 32) | (cell as u64 % reps), run as usize))
                    .collect(),
            ),
            FirstRuns::Sparse(first) => FirstRuns::Sparse(first.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (setting, rep, attempt, status, warmup) rows indexed as a table's columns.
    fn index(rows: &[(u32, u32, u32, RunStatus, bool)]) -> Result<(Option<Vec<u32>>, usize), Duplicate> {
        let setting: Vec<SettingId> = rows.iter().map(|row| SettingId::new(row.0 as usize)).collect();
        let rep: Vec<u32> = rows.iter().map(|row| row.1).collect();
        let status: Vec<RunStatus> = rows.iter().map(|row| row.3).collect();
        let warmup: Vec<bool> = rows.iter().map(|row| row.4).collect();
        let index = AttemptIndex::of(&RunColumns {
            setting: &setting,
            rep: &rep,
            warmup: &warmup,
            status: &status,
            attempt: |run| rows[run].2,
        })?;
        Ok((index.current, index.retried))
    }

    const OK: RunStatus = RunStatus::Ok;
    const FAILED: RunStatus = RunStatus::Failed;

    #[test]
    fn every_run_once_reads_every_run() {
        let rows = [(0, 1, 1, OK, false), (1, 1, 1, FAILED, false), (0, 2, 1, OK, false)];
        assert_eq!(index(&rows), Ok((None, 0)));
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
        assert_eq!(index(&rows), Ok((Some(vec![1, 2, 4, 5]), 1)));
    }

    #[test]
    fn with_no_success_the_last_attempt_is_read() {
        let rows = [(0, 1, 2, FAILED, false), (0, 1, 1, FAILED, false)];
        assert_eq!(index(&rows).unwrap().0, Some(vec![0]));
    }

    /// Appending ran every row through a full re-index (0.9 ms a row at 100k rows): grown run by run, the
    /// index equals the index of every run, past the dense table's reps and across a retry.
    #[test]
    fn an_index_grown_run_by_run_equals_the_index_of_every_run() {
        let rows = [
            (0, 1, 1, FAILED, false),
            (1, 1, 1, OK, false),
            (0, 2, 1, OK, false),
            (1, 2, 1, OK, true),
            (0, 1, 2, OK, false),
            (1, 7, 1, OK, false),
            (2, 9, 1, FAILED, false),
            (2, 9, 2, FAILED, false),
        ];
        let setting: Vec<SettingId> = rows.iter().map(|row| SettingId::new(row.0 as usize)).collect();
        let rep: Vec<u32> = rows.iter().map(|row| row.1).collect();
        let status: Vec<RunStatus> = rows.iter().map(|row| row.3).collect();
        let warmup: Vec<bool> = rows.iter().map(|row| row.4).collect();
        let columns = |runs: usize| RunColumns {
            setting: &setting[..runs],
            rep: &rep[..runs],
            warmup: &warmup[..runs],
            status: &status[..runs],
            attempt: |run: usize| rows[run].2,
        };
        let mut grown = AttemptIndex::of(&columns(3)).unwrap();
        for runs in 4..=rows.len() {
            grown.push(&columns(runs)).unwrap();
            let whole = AttemptIndex::of(&columns(runs)).unwrap();
            assert_eq!((&grown.current, grown.retried), (&whole.current, whole.retried), "after {runs} runs");
        }
        assert_eq!(grown.current, Some(vec![1, 2, 3, 4, 5, 7]));
        let mut repeated = AttemptIndex::of(&columns(7)).unwrap();
        let twice =
            RunColumns { setting: &setting, rep: &rep, warmup: &warmup, status: &status, attempt: |_: usize| 1 };
        assert_eq!(repeated.push(&twice).unwrap_err(), Duplicate { run: 7, earlier: 6 });
    }
}
