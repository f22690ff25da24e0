//! `SlurmRounds`: a session's batches (a search's rounds) run as Slurm array jobs, one job a batch (`sweep
//! submit` of a search). The batch's runs are dealt among at most `tasks` array tasks, each running
//! `sweep run --runs-file` of the runs listed for it into a CSV of its own; `sbatch --wait` sleeps until
//! the job has ended, then each run's row is read back from its task's CSV, or, when the task ended
//! without it (node failure, time limit, an error), why not and where Slurm's output of the task is.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::failure_watch::NotRun;
use super::listed_runs::ListedRuns;
use super::progress::Progress;
use super::runner_error::RunnerError;
use crate::confined_dir::ConfinedDir;
use crate::ground::first_failure_line;
use crate::launch::{sbatch_wait, ArrayJob, SlurmError};
use crate::plan::{Plan, PlannedRun};
use crate::plural::counted;

/// What a run of a batch left: its row as its task wrote it (cells by column name), or why it has none.
pub type Landed = Result<BTreeMap<String, String>, NotRun>;

/// How every round's array job is made; paths are absolute, tasks start on other nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmRounds {
    /// The Slurm job name of every round.
    pub name: String,
    /// The most array tasks a round's job has: its runs are dealt among them, one task a run at most.
    pub tasks: u32,
    /// Where each task starts (`--chdir`).
    pub workdir: PathBuf,
    /// `sweep run SPEC` and the options every task shares (seed, budget, results folder, no history).
    pub run_argv: Vec<String>,
    /// Extra sbatch arguments (partition, account, time limit, ...).
    pub sbatch_args: Vec<String>,
}

impl SlurmRounds {
    /// Runs `batch` (runs of `plan`) as one array job in a new folder `slurm/round-<k>` of `logs` and waits
    /// for it to end; returns what each run left, in the batch's order, or nothing when a signal stopped
    /// the wait (the job is named in a progress line: its tasks run on until cancelled). A job that
    /// cannot be submitted stops the session: `csv` keeps what it recorded.
    pub(super) fn run(
        &self,
        batch: &[PlannedRun],
        plan: &Plan,
        logs: &ConfinedDir,
        csv: &Path,
        progress: &Progress,
    ) -> Result<Vec<Landed>, RunnerError> {
        let (folder, round) = claim_round_folder(logs)?;
        let tasks = self.tasks.clamp(1, u32::try_from(batch.len()).unwrap_or(u32::MAX).max(1));
        let job = ArrayJob {
            name: self.name.clone(),
            tasks,
            workdir: self.workdir.clone(),
            results: folder.path().to_path_buf(),
            run_argv: self.run_argv.clone(),
            sbatch_args: self.sbatch_args.clone(),
            listed: true,
        };
        for task in 1..=tasks {
            let runs: Vec<PlannedRun> = dealt(batch, tasks, task).copied().collect();
            ListedRuns::of(plan, &runs).write(&folder, &job.runs_file(task))?;
        }
        let script = folder.path().join("round.sbatch");
        let written = folder.create_new(&script).and_then(|mut file| file.write_all(job.script().as_bytes()));
        written.map_err(RunnerError::io(&script))?;
        progress.note(&format!(
            "round {round}: {} as a Slurm array job of {} ({})",
            counted(batch.len(), "run"),
            counted(tasks as usize, "task"),
            folder.path().display()
        ));
        let id = match sbatch_wait(&script) {
            Ok(id) => id,
            Err(interrupted @ SlurmError::Interrupted { .. }) => {
                progress.note(&interrupted.to_string());
                return Ok(Vec::new());
            }
            Err(source) => return Err(RunnerError::RoundNotSubmitted { csv: csv.to_path_buf(), source }),
        };
        let mut rows: Vec<HashMap<String, BTreeMap<String, String>>> =
            (1..=tasks).map(|task| task_rows(&job.task_csv(task))).collect();
        let landed = batch.iter().enumerate().map(|(at, run)| {
            let task = task_of(at, tasks);
            let row = rows[task as usize - 1].remove(&run.order.to_string());
            row.filter(|cells| cells.get("rep").is_some_and(|rep| *rep == run.rep.to_string()))
                .ok_or_else(|| lost(&job, &id, task))
        });
        Ok(landed.collect())
    }
}

/// Claims `slurm/round-<k>` of `logs`, k the first free number (a resumed search adds rounds after the
/// ones its earlier invocations left). Only the session holding the CSV's lock writes there.
fn claim_round_folder(logs: &ConfinedDir) -> Result<(ConfinedDir, u32), RunnerError> {
    let rounds = logs.path().join("slurm");
    let rounds = logs.create_dir_all(&rounds).map_err(RunnerError::io(&rounds))?;
    let round = (1..).find(|k| rounds.path().join(format!("round-{k}")).symlink_metadata().is_err()).unwrap_or(1);
    let path = rounds.path().join(format!("round-{round}"));
    let folder = rounds.create_dir_all(&path).map_err(RunnerError::io(&path))?;
    Ok((folder, round))
}

/// The array task (1-based) of the batch's `at`-th run: runs are dealt in turn, so each task's runs are
/// a shuffled round's share, in the round's order.
fn task_of(at: usize, tasks: u32) -> u32 {
    (at % tasks as usize) as u32 + 1
}

/// The runs of `batch` dealt to array task `task`.
fn dealt(batch: &[PlannedRun], tasks: u32, task: u32) -> impl Iterator<Item = &PlannedRun> {
    batch.iter().enumerate().filter(move |(at, _)| task_of(*at, tasks) == task).map(|(_, run)| run)
}

/// The whole rows of a task's CSV by their `order` cell; none when it wrote no CSV, and none after a
/// row cut off by the task's end (a torn last row is no run).
fn task_rows(csv: &Path) -> HashMap<String, BTreeMap<String, String>> {
    // A regular file only (a task's output folder is on a shared file system anyone may write to).
    let Ok(file) = crate::read_limit::ReadLimit::CSV.open(csv) else { return HashMap::new() };
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(file);
    let Ok(header) = reader.headers().cloned() else { return HashMap::new() };
    let whole = reader.records().map_while(Result::ok).filter(|record| record.len() == header.len());
    let rows = whole.map(|record| header.iter().zip(&record).map(|(c, v)| (c.to_string(), v.to_string())).collect());
    rows.filter_map(|row: BTreeMap<String, String>| Some((row.get("order")?.clone(), row))).collect()
}

/// Why a run of array task `task` of job `id` has no row: the task ended without recording it; its
/// Slurm output names the cause (a time limit, a node failure, the task's own error) when it says one.
fn lost(job: &ArrayJob, id: &str, task: u32) -> NotRun {
    let output = job.output_file(id, task);
    let said = first_failure_line(&output).map_or(String::new(), |line| format!(" ({line})"));
    NotRun { why: format!("array task {task} of Slurm job {id} ended without recording this run{said}"), logs: output }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::SettingId;

    fn runs(count: usize) -> Vec<PlannedRun> {
        (1..=count).map(|order| PlannedRun { order, setting: SettingId::new(order), rep: 1, warmup: false }).collect()
    }

    #[test]
    fn a_rounds_runs_are_dealt_in_turn_to_at_most_its_tasks() {
        let batch = runs(5);
        let orders = |task| dealt(&batch, 2, task).map(|run| run.order).collect::<Vec<_>>();
        assert_eq!([orders(1), orders(2)], [vec![1, 3, 5], vec![2, 4]]);
        assert_eq!(dealt(&batch, 2, 3).count(), 0);
    }

    #[test]
    fn a_tasks_rows_are_read_by_order_and_a_torn_last_row_is_no_run() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("task-1.csv");
        std::fs::write(&csv, "param.x,rep,order,status\n1,1,7,ok\n2,1,9,failed\n3,1,1").unwrap();
        let rows = task_rows(&csv);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!([rows["7"]["param.x"].as_str(), rows["9"]["status"].as_str()], ["1", "failed"]);
        assert!(task_rows(&dir.path().join("task-2.csv")).is_empty());
    }

    #[test]
    fn a_lost_run_names_its_task_its_job_and_what_its_slurm_output_says() {
        let dir = tempfile::tempdir().unwrap();
        let job = ArrayJob {
            name: "sweep-s".into(),
            tasks: 2,
            workdir: dir.path().into(),
            results: dir.path().into(),
            run_argv: Vec::new(),
            sbatch_args: Vec::new(),
            listed: true,
        };
        let output = job.output_file("41", 2);
        std::fs::write(&output, "starting\nslurmstepd: error: *** JOB 41 CANCELLED DUE TO TIME LIMIT ***\n").unwrap();
        let lost = lost(&job, "41", 2);
        assert_eq!(
            lost.why,
            "array task 2 of Slurm job 41 ended without recording this run \
             (slurmstepd: error: *** JOB 41 CANCELLED DUE TO TIME LIMIT ***)"
        );
        assert_eq!(lost.logs, output);
        assert_eq!(super::lost(&job, "41", 1).why, "array task 1 of Slurm job 41 ended without recording this run");
    }

    #[test]
    fn each_round_claims_a_folder_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let logs = ConfinedDir::open(dir.path()).unwrap();
        let (first, one) = claim_round_folder(&logs).unwrap();
        let (second, two) = claim_round_folder(&logs).unwrap();
        assert_eq!((one, two), (1, 2));
        assert_eq!(first.path(), dir.path().join("slurm/round-1"));
        assert_eq!(second.path(), dir.path().join("slurm/round-2"));
    }
}
