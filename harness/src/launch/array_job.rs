//! `ArrayJob`: the sbatch script of a sweep split into shards, array task i running shard i/N.

use std::path::{Path, PathBuf};

use crate::shell_line::shell_quote;

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
    /// `sweep run SPEC` and the options every shard shares; `--shard` and `--out` are added per task.
    pub run_argv: Vec<String>,
    /// Extra sbatch arguments, in order (partition, account, time limit, ...), on one `#SBATCH` line.
    pub sbatch_args: Vec<String>,
}

impl ArrayJob {
    /// The shard CSV array task `task` writes.
    pub fn shard_csv(&self, task: u32) -> PathBuf {
        self.results.join(format!("shard-{task}.csv"))
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
        let mut script = String::from(
            "#!/bin/bash\n# Written by `sweep submit`: array task i runs shard i of the sweep; when every task has \
             ended,\n# `sweep merge` on this folder joins the shards into one result.\n",
        );
        for option in options {
            script.push_str(&format!("#SBATCH {}\n", shell_quote(&option)));
        }
        // The user's options on one line, as sbatch parses it, so `-p` and `gpu` may be given apart.
        if !self.sbatch_args.is_empty() {
            let user = self.sbatch_args.iter().map(|arg| shell_quote(arg)).collect::<Vec<_>>().join(" ");
            script.push_str(&format!("#SBATCH {user}\n"));
        }
        let run = self.run_argv.iter().map(|arg| shell_quote(arg)).collect::<Vec<_>>().join(" ");
        let shard_csv = Path::new(&results).join("shard-").display().to_string();
        script.push_str(&format!(
            "set -eu\nexec {run} --shard \"${{SLURM_ARRAY_TASK_ID}}/{}\" --out {}\"${{SLURM_ARRAY_TASK_ID}}.csv\"\n",
            self.tasks,
            shell_quote(&shard_csv)
        ));
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
        assert_eq!(job().shard_csv(2), Path::new("/home/u/repo/results/slices/20261130T120000Z/shard-2.csv"));
    }
}
