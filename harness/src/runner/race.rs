//! Racing: run round by round, and after each round stop running the settings the data have decided.

use std::collections::BTreeSet;

use super::runner_error::RunnerError;
use super::session::Session;
use crate::analyse::{SettingSummary, Verdicts};
use crate::plan::{PlannedRun, SettingId};
use crate::record::RunTable;
use crate::spec::{AnalysisConfig, Race};

impl Session<'_> {
    /// Runs `todo`: all at once without a race, else round by round (warmups first). From round `min`
    /// on, the recorded CSV is analysed after every round (F-Race's idea, Birattari et al. 2002, with
    /// rounds as blocks and the Holm-corrected verdicts of `Verdicts::decide`): settings beaten in
    /// their group, or shown to be within the negligible margin of its best, are not run again, and
    /// the race ends when every group is decided. A resumed race re-reads the CSV, so it carries on
    /// where it stopped.
    pub fn run_race(&mut self, todo: &[PlannedRun], race: Option<Race>) -> Result<(), RunnerError> {
        let Some(race) = race else { return self.run_all(todo) };
        let warmups: Vec<PlannedRun> = todo.iter().filter(|run| run.warmup).copied().collect();
        self.run_all(&warmups)?;
        let mut racing: Option<BTreeSet<usize>> = None;
        for round in 1..=race.max {
            if self.stopped.is_some() {
                return Ok(());
            }
            let runs: Vec<PlannedRun> = todo
                .iter()
                .filter(|run| !run.warmup && run.rep == round)
                .filter(|run| racing.as_ref().is_none_or(|set| set.contains(&run.setting.index())))
                .copied()
                .collect();
            self.run_all(&runs)?;
            if round >= race.min && round < race.max && self.stopped.is_none() {
                let still = self.still_racing(race)?;
                self.progress.note(&format!(
                    "race after round {round}: {} of {} settings still racing",
                    still.len(),
                    self.plan.settings.len()
                ));
                if still.is_empty() {
                    self.progress.note("every group is decided: the race ends here");
                    return Ok(());
                }
                racing = Some(still);
            }
        }
        Ok(())
    }

    /// Plan indices of the settings whose groups are not yet decided (the best and undecided rivals).
    fn still_racing(&self, race: Race) -> Result<BTreeSet<usize>, RunnerError> {
        let plan = self.plan;
        let table = RunTable::read(self.writer.path())?;
        let runs = table.runs();
        let settings = SettingSummary::summarise_table(&table);
        let config = AnalysisConfig { stopping: true, ..self.sweep.analysis.racing(Some(race)) };
        let verdicts = Verdicts::decide(&runs, &settings, &config, true);
        let plan_ids = table.plan_ids(&plan.settings);
        let plan_index = |summary: &SettingSummary| plan_ids[summary.id.index()].map(SettingId::index);
        let measured: BTreeSet<usize> = settings.iter().filter_map(plan_index).collect();
        let racing = verdicts.racing().into_iter().filter_map(|index| plan_index(&settings[index]));
        let unmeasured = (0..plan.settings.len()).filter(|index| !measured.contains(index));
        Ok(racing.chain(unmeasured).collect())
    }
}
