//! `ArrayJob`: the sbatch script of a sweep split into shards, array task i running shard i/N; or of a
//! search's round, array task i running the runs listed for it.

use std::path::{Path, PathBuf};

use crate::shell_line::shell_quote;

/// How the file listing an array task's runs ends (`task-<i>.runs.json`): not `.json` alone, which is
/// the sidecar of the task's CSV `task-<i>.csv`.
const RUNS_FILE_SUFFIX: &str = ".runs.json";

/// Everything the script says; paths are absolute because tasks start on other nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayJob {
    /// The Slurm job name.
    pub name: String,
    pub tasks: u32,
    /// Where each task starts (`--chdir`): relative paths in the declaration resolve as they did here.
    pub workdir: PathBuf,
    /// The folder the shard CSVs, their logs and Slurm's output files go to.
    pub results: PathBuf,
    /// `sweep run SPEC` and the options every shard shares; `--shard` (or `--runs-file`) and `--out` are
    /// added per task.
    pub run_argv: Vec<String>,
    /// Task i runs the runs its file lists (`runs_file`, a search's round) instead of shard i/N.
    pub listed: bool,
    /// Extra sbatch arguments, in order (partition, account, time limit, ...), on one `#SBATCH` line.
    pub sbatch_args: Vec<String>,
}

impl ArrayJob {
    /// The CSV array task `task` writes: `shard-<i>.csv`, or a round's `task-<i>.csv`.
    pub fn task_csv(&self, task: u32) -> PathBuf {
        self.results.join(format!("{}{task}.csv", self.csv_prefix()))
    }

    /// The file listing the runs of array task `task` of a round (`listed`).
    pub fn runs_file(&self, task: u32) -> PathBuf {
        self.results.join(format!("task-{task}{RUNS_FILE_SUFFIX}"))
    }

    /// Slurm's output file of array task `task` of job `job` (`--output`).
    pub fn output_file(&self, job: &str, task: u32) -> PathBuf {
        self.results.join(format!("slurm-{job}_{task}.out"))
    }

    fn csv_prefix(&self) -> &'static str {
        if self.listed {
            "task-"
        } else {
            "shard-"
        }
    }

    /// The batch script. Its options are `#SBATCH` lines, so the file alone resubmits the same job.
    pub fn script(&self) -> String {
        let results = self.results.display().to_string();
        let options = [
            format!("--job-name={}", self.name),
            format!("--array=1-{}", self.tasks),
            format!("--chdir={}", self.workdir.display()),
            format!("--output={results}/slurm-%A_%a.out"),
        ];
        let mut script = String::from(if self.listed {
            "#!/bin/bash\n# Written by `sweep submit` of a search: array task i runs the runs task-i.runs.json \
             lists;\n# the search merges their rows into its CSV once the job has ended.\n"
        } else {
            "#!/bin/bash\n# Written by `sweep submit`: array task i runs shard i of the sweep; when every task has \
             ended,\n# `sweep merge` on this folder joins the shards into one result.\n"
        });
        for option in options {
            script.push_str(&format!("#SBATCH {}\n", shell_quote(&option)));
        }
        // The user's options on one line, as sbatch parses it, so `-p` and `gpu` may be given apart.
        if !self.sbatch_args.is_empty() {
            let user = self.sbatch_args.iter().map(|arg| shell_quote(arg)).collect::<Vec<_>>().join(" ");
            script.push_str(&format!("#SBATCH {user}\n"));
        }
        let run = self.run_argv.iter().map(|arg| shell_quote(arg)).collect::<Vec<_>>().join(" ");
        let in_folder = |name: &str| shell_quote(&Path::new(&results).join(name).display().to_string());
        let task = "\"${SLURM_ARRAY_TASK_ID}";
        let runs = match self.listed {
            true => format!("--runs-file {}{task}{RUNS_FILE_SUFFIX}\"", in_folder("task-")),
            false => format!("--shard {task}/{}\"", self.tasks),
        };
        script.push_str(&format!("set -eu\nexec {run} {runs} --out {}{task}.csv\"\n", in_folder(self.csv_prefix())));
        script
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> ArrayJob {
        ArrayJob {
            name: "sweep-slices".into(),
            tasks: 3,
            workdir: "/home/u/repo".into(),
            results: "/home/u/repo/results/slices/20261130T120000Z".into(),
            run_argv: vec!["/opt/sweep".into(), "run".into(), "/home/u/repo/sweeps/slices.toml".into()],
            listed: false,
            sbatch_args: vec!["--partition=gpu".into(), "--comment=two words".into()],
        }
    }

    #[test]
    fn the_script_runs_shard_i_of_n_in_task_i_with_the_users_options_on_one_sbatch_line() {
        let script = job().script();
        assert!(script.starts_with("#!/bin/bash\n"), "{script}");
        for line in [
            "#SBATCH --array=1-3\n",
            "#SBATCH --chdir=/home/u/repo\n",
            "#SBATCH --output=/home/u/repo/results/slices/20261130T120000Z/slurm-%A_%a.out\n",
            "#SBATCH --partition=gpu '--comment=two words'\n",
            "exec /opt/sweep run /home/u/repo/sweeps/slices.toml --shard \"${SLURM_ARRAY_TASK_ID}/3\" \
             --out /home/u/repo/results/slices/20261130T120000Z/shard-\"${SLURM_ARRAY_TASK_ID}.csv\"\n",
        ] {
            assert!(script.contains(line), "no {line:?} in\n{script}");
        }
        assert_eq!(job().task_csv(2), Path::new("/home/u/repo/results/slices/20261130T120000Z/shard-2.csv"));
    }

    #[test]
    fn a_rounds_script_runs_the_runs_listed_for_task_i_into_its_own_csv() {
        let round = ArrayJob { listed: true, results: "/r/s/round-2".into(), ..job() };
        let script = round.script();
        let exec = "exec /opt/sweep run /home/u/repo/sweeps/slices.toml --runs-file /r/s/round-2/task-\"${SLURM_ARRAY_TASK_ID}.runs.json\" \
                    --out /r/s/round-2/task-\"${SLURM_ARRAY_TASK_ID}.csv\"\n";
        assert!(script.contains(exec), "no {exec:?} in\n{script}");
        assert!(!script.contains("--shard"), "{script}");
        assert_eq!(round.runs_file(3), Path::new("/r/s/round-2/task-3.runs.json"));
        assert_eq!(round.task_csv(3), Path::new("/r/s/round-2/task-3.csv"));
        assert_eq!(round.output_file("41", 3), Path::new("/r/s/round-2/slurm-41_3.out"));
    }
}
