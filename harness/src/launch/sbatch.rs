//! Submits a batch script with `sbatch --parsable` (and waits for its job with `--wait`), through the
//! executor like every other child; a `SlurmError` when it cannot.

use std::path::Path;
use std::time::Duration;

use super::captured::Captured;
use super::executor::Limits;
use super::reaper::OWNER_VAR;
use super::stop_reason::StopReason;

/// sbatch only talks to slurmctld; a controller that does not answer within this is down.
const SBATCH_TIMEOUT: Duration = Duration::from_secs(120);

/// Submits `script` and returns the job id. The job gets our environment, as `sbatch` gives by default,
/// except `SWEEP_OWNER`: a job carrying the mark of this (by then ended) sweep would be taken for its
/// leftovers and killed by the first `sweep run` of the job itself.
pub fn sbatch(script: &Path) -> Result<String, SlurmError> {
    let captured = submit(script, &[], SBATCH_TIMEOUT);
    let said = captured.output.trim().replace('\n', " ");
    match captured.failure() {
        None => {
            job_id_in(&captured.output).ok_or(SlurmError::Submit { reason: "printed no job id".into(), output: said })
        }
        Some(reason) => Err(SlurmError::Submit { reason, output: said }),
    }
}

/// Submits `script` and returns its job id once the job has ended (`sbatch --wait`: sbatch sleeps until
/// slurmctld says the job is over, no polling here). However the job's tasks ended, the job ran: a task
/// that failed is read from what it left, not from sbatch's exit code (the highest of its tasks'). A
/// signal stops the wait, not the job (no child starts after a signal, `scancel` neither): the error
/// names the job to cancel.
pub fn sbatch_wait(script: &Path) -> Result<String, SlurmError> {
    let captured = submit(script, &["--wait"], Limits::NO_TIMEOUT);
    let said = captured.output.trim().replace('\n', " ");
    let Some(job) = job_id_in(&captured.output) else {
        let reason = captured.failure().unwrap_or_else(|| "printed no job id".into());
        return Err(SlurmError::Submit { reason, output: said });
    };
    if let StopReason::Interrupted { signal } = captured.reason {
        return Err(SlurmError::Interrupted { signal, job });
    }
    Ok(job)
}

/// Runs `sbatch --parsable --export=... <options> script` in the script's folder, stopped after `timeout`.
fn submit(script: &Path, options: &[&str], timeout: Duration) -> Captured {
    let names = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok());
    let mut argv = vec!["sbatch".to_string(), "--parsable".to_string(), format!("--export={}", exported(names))];
    argv.extend(options.iter().map(|option| option.to_string()));
    argv.push(script.display().to_string());
    Captured::run(&argv, script.parent().unwrap_or(Path::new(".")), &[], timeout)
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

/// `--parsable` prints `<job id>` or `<job id>;<cluster>` on a line of its own (warnings may come first;
/// with `--wait`, what the job's end brings comes after).
fn job_id_in(output: &str) -> Option<String> {
    output.lines().find_map(|line| {
        let id = line.trim().split(';').next()?;
        (!id.is_empty() && id.chars().all(|c| c.is_ascii_digit())).then(|| id.to_string())
    })
}

/// Errors of talking to Slurm: a batch script that could not be submitted, a wait for a job cut short.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// sbatch failed or printed no job id; `output` is what it said.
    #[error("sbatch {reason}: {output}")]
    Submit { reason: String, output: String },
    /// A signal stopped the wait for job `job`, whose tasks run on.
    #[error(
        "interrupted by signal {signal} while waiting for Slurm job {job}: its tasks run on until `scancel {job}`"
    )]
    Interrupted { signal: i32, job: String },
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
    fn the_job_id_is_read_from_its_own_line_with_or_without_a_cluster() {
        assert_eq!(job_id_in("42\n"), Some("42".into()));
        assert_eq!(job_id_in("sbatch: warning: x\n42;cluster\n"), Some("42".into()));
        assert_eq!(job_id_in("sbatch: error: invalid partition\n"), None);
        assert_eq!(job_id_in(""), None);
        // `--wait`: the job's end may add lines after the id.
        assert_eq!(job_id_in("42\nsbatch: error: Batch job submission failed\n"), Some("42".into()));
    }
}
