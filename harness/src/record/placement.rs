//! `Placement`: where a sweep ran, in words that name no scheduler: the scheduler, its job and task,
//! each empty for a local run (found by the scheduler probes of `schedulers/`), and read back from the
//! Slurm columns and keys recorded before placements named their scheduler.

use serde::{Deserialize, Serialize};

/// The scheduler whose own columns and keys (`slurm_job_id`, `slurm_array_task_id`) placements were
/// recorded in before they named their scheduler.
pub const SLURM: &str = "slurm";

/// The scheduler (`slurm`), its job (an array's id for an array task) and the task (`sweep submit`
/// runs shard i as task i).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RecordedPlacement")]
pub struct Placement {
    pub scheduler: String,
    pub job: String,
    pub task: String,
}

impl Placement {
    /// A placement recorded in Slurm's own columns: Slurm's when either is set, a local run's when neither is.
    pub fn of_slurm_columns(job: String, task: String) -> Placement {
        let scheduler = if job.is_empty() && task.is_empty() { String::new() } else { SLURM.to_string() };
        Placement { scheduler, job, task }
    }
}

/// A placement as a sidecar holds it: in the neutral keys, or in the Slurm keys sidecars held before.
#[derive(Default, Deserialize)]
#[serde(default)]
struct RecordedPlacement {
    scheduler: String,
    job: String,
    task: String,
    slurm_job_id: String,
    slurm_array_task_id: String,
}

impl From<RecordedPlacement> for Placement {
    fn from(recorded: RecordedPlacement) -> Placement {
        match recorded.scheduler.is_empty() {
            true => Placement::of_slurm_columns(recorded.slurm_job_id, recorded.slurm_array_task_id),
            false => Placement { scheduler: recorded.scheduler, job: recorded.job, task: recorded.task },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidecar_written_with_the_slurm_keys_reads_as_a_slurm_placement() {
        let old: Placement = serde_json::from_str(r#"{"slurm_job_id": "40", "slurm_array_task_id": "2"}"#).unwrap();
        assert_eq!(old, Placement { scheduler: "slurm".into(), job: "40".into(), task: "2".into() });
        let local: Placement = serde_json::from_str(r#"{"slurm_job_id": "", "slurm_array_task_id": ""}"#).unwrap();
        assert_eq!(local, Placement::default());
        let new = Placement { scheduler: "slurm".into(), job: "7".into(), task: String::new() };
        assert_eq!(serde_json::from_value::<Placement>(serde_json::to_value(&new).unwrap()).unwrap(), new);
    }
}
