//! Where a result came from: host and Slurm job, engine commit and dirtiness, toolchain versions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Recorded once per sweep, written with every row.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Provenance {
    pub host: String,
    /// `git rev-parse HEAD` of the engine tree, or `unknown` outside git.
    pub engine_commit: String,
    /// Uncommitted changes in the engine tree: a result of a dirty tree cannot be rebuilt from the commit.
    pub engine_dirty: bool,
    /// Toolchain name -> first line of its version command (`unavailable` when it fails or cannot run).
    pub toolchain: BTreeMap<String, String>,
    /// The Slurm job the sweep ran in (the array's id for an array task), empty outside Slurm.
    #[serde(default)]
    pub slurm_job_id: String,
    /// The array task (`sweep submit` runs shard i as task i), empty outside an array job.
    #[serde(default)]
    pub slurm_array_task_id: String,
}

impl Provenance {
    /// This host and Slurm job, with what the runner probed: the engine tree's commit (`None` outside
    /// git) and dirtiness, and each toolchain's version line.
    pub fn gather(
        engine_commit: Option<String>,
        engine_dirty: bool,
        toolchain: BTreeMap<String, String>,
    ) -> Provenance {
        let host = nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_default();
        let engine_commit = engine_commit.unwrap_or_else(|| "unknown".to_string());
        let (slurm_job_id, slurm_array_task_id) = slurm_placement(|name| std::env::var(name).ok());
        Provenance { host, engine_commit, engine_dirty, toolchain, slurm_job_id, slurm_array_task_id }
    }
}

/// `(job id, array task id)` from the variables Slurm sets in a job. An array task has its own
/// `SLURM_JOB_ID`; the array's id (what `sbatch` printed) with the task id names it for people.
fn slurm_placement(var: impl Fn(&str) -> Option<String>) -> (String, String) {
    let job = var("SLURM_ARRAY_JOB_ID").or_else(|| var("SLURM_JOB_ID")).unwrap_or_default();
    (job, var("SLURM_ARRAY_TASK_ID").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string())
    }

    #[test]
    fn an_array_task_is_recorded_by_the_array_job_id_and_its_task_id() {
        let array = [("SLURM_JOB_ID", "41"), ("SLURM_ARRAY_JOB_ID", "40"), ("SLURM_ARRAY_TASK_ID", "2")];
        assert_eq!(slurm_placement(vars(&array)), ("40".to_string(), "2".to_string()));
        assert_eq!(slurm_placement(vars(&[("SLURM_JOB_ID", "7")])), ("7".to_string(), String::new()));
        assert_eq!(slurm_placement(vars(&[])), (String::new(), String::new()));
    }
}
