//! `RaceDriver`: a sweep raced round by round (F-Race's idea, Birattari et al. 2002, with rounds as blocks
//! and the Holm-corrected verdicts of `Verdicts::decide`): warmups first, then one round of reps at a time;
//! from round `min` on, settings beaten in their group, or shown to be within the negligible margin of its
//! best, are not run again, and the race ends when every group is decided. A resumed race starts from the
//! runs its CSV holds, so it carries on where it stopped.

use std::collections::BTreeSet;

use super::driver::Driver;
use super::progress::Progress;
use crate::analyse::{SettingSummary, Verdicts};
use crate::declare::{AnalysisConfig, Race};
use crate::plan::{PlannedRun, Setting, SettingId};
use crate::record::RunTable;

pub struct RaceDriver<'p> {
    todo: Vec<PlannedRun>,
    race: Race,
    /// The sweep's analysis with the race's stopping rule (alpha spent over its looks).
    config: AnalysisConfig,
    /// The plan's settings: `PlannedRun::setting` indexes them.
    planned: &'p [Setting],
    /// Whether the warmups were handed out (they come first, once).
    warmed: bool,
    /// The last round handed out (0: none yet).
    round: u32,
    /// The plan indices of the settings still racing; `None` before the first look.
    racing: Option<BTreeSet<usize>>,
}

impl<'p> RaceDriver<'p> {
    pub fn new(todo: &[PlannedRun], race: Race, analysis: &AnalysisConfig, planned: &'p [Setting]) -> Self {
        let config = AnalysisConfig { stopping: true, ..analysis.racing(Some(race)) };
        RaceDriver { todo: todo.to_vec(), race, config, planned, warmed: false, round: 0, racing: None }
    }

    /// After the last round handed out: at a look, which settings race on; whether the race goes on.
    fn races_on(&mut self, results: &RunTable, progress: &Progress) -> bool {
        let round = self.round;
        if round == 0 || round < self.race.min || round >= self.race.max {
            return true;
        }
        let still = still_racing(results, self.planned, &self.config);
        progress.note(&format!(
            "race after round {round}: {} of {} settings still racing",
            still.len(),
            self.planned.len()
        ));
        if still.is_empty() {
            progress.note("every group is decided: the race ends here");
            return false;
        }
        self.racing = Some(still);
        true
    }
}

impl Driver for RaceDriver<'_> {
    fn reads_results(&self) -> bool {
        true
    }

    fn next_batch(&mut self, results: Option<&RunTable>, progress: &Progress) -> Option<Vec<PlannedRun>> {
        if !self.warmed {
            self.warmed = true;
            return Some(self.todo.iter().filter(|run| run.warmup).copied().collect());
        }
        if !self.races_on(results.expect("a race reads its results"), progress) || self.round >= self.race.max {
            return None;
        }
        self.round += 1;
        let round = self.round;
        let runs = self.todo.iter().filter(|run| !run.warmup && run.rep == round);
        let racing = self.racing.as_ref();
        Some(runs.filter(|run| racing.is_none_or(|set| set.contains(&run.setting.index()))).copied().collect())
    }
}

/// Indices among `planned` (the plan's settings) of those whose groups the runs of `table` leave
/// undecided under `config` (a race's): the best and undecided rivals, and every setting not yet measured.
fn still_racing(table: &RunTable, planned: &[Setting], config: &AnalysisConfig) -> BTreeSet<usize> {
    let runs = table.runs();
    let settings = SettingSummary::summarise_table(table);
    let verdicts = Verdicts::decide(&runs, &settings, config, true);
    let plan_ids = table.plan_ids(planned);
    let plan_index = |summary: &SettingSummary| plan_ids[summary.id.index()].map(SettingId::index);
    let measured: BTreeSet<usize> = settings.iter().filter_map(plan_index).collect();
    let racing = verdicts.racing().into_iter().filter_map(|index| plan_index(&settings[index]));
    let unmeasured = (0..planned.len()).filter(|index| !measured.contains(index));
    racing.chain(unmeasured).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Median of `samples` timings of `step`, in milliseconds.
    fn median_ms(samples: usize, mut step: impl FnMut() -> std::time::Duration) -> f64 {
        let mut times: Vec<f64> = (0..samples).map(|_| step().as_secs_f64() * 1e3).collect();
        times.sort_by(f64::total_cmp);
        times[samples / 2]
    }

    /// The cost of one race round's decision on the result CSV `RACE_ROUND_CSV` (with its sidecar, e.g.
    /// from bench/gen_results.py), its settings planned in first-seen order and its sidecar's analysis
    /// raced: reading the CSV again and deciding (as every round did) against deciding on the table held
    /// in memory, and appending the last round's rows to that table as they are written. Prints medians;
    /// asserts nothing. Run by bench/race_round.sh.
    #[test]
    #[ignore = "a benchmark: bench/race_round.sh"]
    fn race_round_speed() {
        use crate::record::RecordedRun;
        let csv = PathBuf::from(std::env::var("RACE_ROUND_CSV").expect("RACE_ROUND_CSV names a result CSV"));
        let samples: usize = std::env::var("RACE_ROUND_SAMPLES").map_or(21, |n| n.parse().expect("a count"));
        let sidecar = crate::record::Sidecar::beside(&csv).unwrap().expect("a sidecar beside the CSV");
        let config =
            AnalysisConfig { stopping: true, ..sidecar.sweep.analysis.racing(Some(Race { min: 3, max: 1000 })) };
        let table = RunTable::read(&csv).unwrap();
        let mut planned: Vec<Setting> = Vec::new();
        for run in table.runs() {
            if !planned.contains(run.setting()) {
                planned.push(run.setting().clone());
            }
        }
        let timed = |step: &mut dyn FnMut()| {
            let start = std::time::Instant::now();
            step();
            start.elapsed()
        };
        let reread = median_ms(samples, || {
            timed(&mut || {
                let read = RunTable::read(&csv).unwrap();
                std::hint::black_box(still_racing(&read, &planned, &config));
            })
        });
        let held =
            median_ms(samples, || timed(&mut || _ = std::hint::black_box(still_racing(&table, &planned, &config))));
        // The last two rounds' rows cut off, to be appended one by one as a session appends them: the first
        // untimed (a clone's columns are full to capacity, so its first append moves them, once), the last timed.
        let text = std::fs::read(&csv).unwrap();
        let round = planned.len();
        let lines: Vec<&[u8]> = text.split_inclusive(|&byte| byte == b'\n').collect();
        let dir = tempfile::tempdir().unwrap();
        let seed = dir.path().join("seed.csv");
        std::fs::write(&seed, lines[..lines.len() - 2 * round].concat()).unwrap();
        std::fs::copy(
            crate::record::ResultPaths::for_csv(&csv).sidecar,
            crate::record::ResultPaths::for_csv(&seed).sidecar,
        )
        .unwrap();
        let seeded = RunTable::read(&seed).unwrap();
        let append =
            |grown: &mut RunTable, rows: &[&[u8]]| rows.iter().for_each(|row| grown.push_written(row).unwrap());
        let (before_last, last) = lines[lines.len() - 2 * round..].split_at(round);
        let append_ms = median_ms(samples, || {
            let mut grown = seeded.clone();
            append(&mut grown, before_last);
            timed(&mut || append(&mut grown, last))
        });
        let mut grown = seeded.clone();
        append(&mut grown, &lines[lines.len() - 2 * round..]);
        assert_eq!(
            format!("{:?}", still_racing(&table, &planned, &config)),
            format!("{:?}", still_racing(&grown, &planned, &config))
        );
        println!(
            "race round on {} runs ({} settings), median of {samples}: re-read CSV + decide {reread:.3} ms; \
             decide on the table held {held:.3} ms; append the round's {round} rows {append_ms:.3} ms",
            table.len(),
            planned.len()
        );
    }
}
