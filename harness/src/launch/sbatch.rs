//! Submits a batch script with `sbatch --parsable`, through the executor like every other child.

use std::path::Path;
use std::time::Duration;

use super::executor::{execute, BaseEnv, Limits};
use super::rank_command::RankCommand;
use super::run_events::RunEvents;
use super::slurm_error::SlurmError;
use super::stop_reason::StopReason;

/// sbatch only talks to slurmctld; a controller that does not answer within this is down.
const SBATCH_LIMITS: Limits = Limits { timeout: Duration::from_secs(120), grace: Duration::from_secs(2) };

/// Submits `script` and returns the job id; sbatch's output goes to `log`.
pub fn sbatch(script: &Path, log: &Path, events: &RunEvents) -> Result<String, SlurmError> {
    let command = RankCommand {
        rank: None,
        argv: vec!["sbatch".into(), "--parsable".into(), script.display().to_string()],
        env: Vec::new(),
        log: log.to_path_buf(),
    };
    let cwd = script.parent().unwrap_or(Path::new("."));
    let execution = execute(&[command], cwd, &BaseEnv::Inherit, SBATCH_LIMITS, &events.sender, &events.receiver);
    let output = std::fs::read_to_string(log).map_err(|error| SlurmError::Io { path: log.to_path_buf(), error })?;
    let said = output.trim().replace('\n', " ");
    match execution.reason {
        StopReason::Succeeded => {
            parsable_job_id(&output).ok_or(SlurmError::Submit { reason: "printed no job id".into(), output: said })
        }
        reason => Err(SlurmError::Submit { reason: reason.to_string(), output: said }),
    }
}

/// `--parsable` prints `<job id>` or `<job id>;<cluster>` on its last line (warnings may come first).
fn parsable_job_id(output: &str) -> Option<String> {
    let last = output.lines().map(str::trim).rfind(|line| !line.is_empty())?;
    let id = last.split(';').next()?;
    (!id.is_empty() && id.chars().all(|c| c.is_ascii_digit())).then(|| id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_id_is_read_from_the_last_line_with_or_without_a_cluster() {
        assert_eq!(parsable_job_id("42\n"), Some("42".into()));
        assert_eq!(parsable_job_id("sbatch: warning: x\n42;cluster\n"), Some("42".into()));
        assert_eq!(parsable_job_id("sbatch: error: invalid partition\n"), None);
        assert_eq!(parsable_job_id(""), None);
    }
}
