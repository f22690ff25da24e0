//! Submits a batch script with `sbatch --parsable`, through the executor like every other child; a
//! `SlurmError` when it cannot.

use std::path::Path;
use std::time::Duration;

use super::captured::Captured;
use super::reaper::OWNER_VAR;

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
}
