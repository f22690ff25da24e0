//! The array job of a sharded sweep (`ArrayJob`), submitted with `sbatch --parsable` through the
//! executor like every other child; a `SlurmError` when it cannot be.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::captured::Captured;
use super::leftovers::OWNER_VAR;
use crate::shell_line::shell_quote;

/// sbatch only talks to slurmctld; a controller that does not answer within this is down.
const SBATCH_TIMEOUT: Duration = Duration::from_secs(120);

/// Submits `script` and returns the job id. The job gets our environment, as `sbatch` gives by default,
/// except `SWEEP_OWNER`: a job carrying the mark of this (by then ended) sweep would be taken for its
/// leftovers and killed by the first `sweep run` of the job itself.
pub fn sbatch(script: &Path) -> Result<String, SlurmError> {
    let names = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok());
    let export = format!("--export={}", exported(names));
    let argv = ["sbatch".to_string(), "--parsable".to_string(), export, script.display().to_string()];
    let captured = Captured::run(&argv, script.parent().unwrap_or(Path::new(".")), &[], SBATCH_TIMEOUT);
    let said = captured.output.trim().replace('\n', " ");
    match captured.failure() {
        None => parsable_job_id(&captured.output)
            .ok_or(SlurmError::Submit { reason: "printed no job id".into(), output: said }),
        Some(reason) => Err(SlurmError::Submit { reason, output: said }),
    }
}

/// The `--export` list: every variable name sbatch can take (it splits on commas), but `SWEEP_OWNER`;
/// `NONE` when that leaves nothing.
fn exported(names: impl Iterator<Item = String>) -> String {
    let names: Vec<String> =
        names.filter(|name| name != OWNER_VAR && !name.is_empty() && !name.contains([',', '='])).collect();
    if names.is_empty() {
        "NONE".to_string()
    } else {
        names.join(",")
    }
}

/// `--parsable` prints `<job id>` or `<job id>;<cluster>` on its last line (warnings may come first).
fn parsable_job_id(output: &str) -> Option<String> {
    let last = output.lines().map(str::trim).rfind(|line| !line.is_empty())?;
    let id = last.split(';').next()?;
    (!id.is_empty() && id.chars().all(|c| c.is_ascii_digit())).then(|| id.to_string())
}

/// Errors of talking to Slurm: a batch script that could not be submitted.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// sbatch failed or printed no job id; `output` is what it said.
    #[error("sbatch {reason}: {output}")]
    Submit { reason: String, output: String },
}

/// The sbatch script of a sweep split into shards, array task i running shard i/N: everything the
/// script says; paths are absolute because tasks start on other nodes.
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

    #[test]
    fn the_job_gets_every_variable_but_the_sweep_owner_mark() {
        let names = ["PATH", OWNER_VAR, "ASCEND_HOME", "odd,name"].map(String::from);
        assert_eq!(exported(names.into_iter()), "PATH,ASCEND_HOME");
        assert_eq!(exported([OWNER_VAR.to_string()].into_iter()), "NONE");
    }

    #[test]
    fn the_job_id_is_read_from_the_last_line_with_or_without_a_cluster() {
        assert_eq!(parsable_job_id("42\n"), Some("42".into()));
        assert_eq!(parsable_job_id("sbatch: warning: x\n42;cluster\n"), Some("42".into()));
        assert_eq!(parsable_job_id("sbatch: error: invalid partition\n"), None);
        assert_eq!(parsable_job_id(""), None);
    }

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
