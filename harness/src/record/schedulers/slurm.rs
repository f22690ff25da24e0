//! Slurm's probe: the job and array task from the variables Slurm sets in a job.

use crate::record::placement::{Placement, SLURM};

/// An array task has its own `SLURM_JOB_ID`; the array's id (what `sbatch` printed) with the task id
/// names it for people.
pub fn probe(var: &dyn Fn(&str) -> Option<String>) -> Option<Placement> {
    let job = var("SLURM_ARRAY_JOB_ID").or_else(|| var("SLURM_JOB_ID"))?;
    Some(Placement { scheduler: SLURM.to_string(), job, task: var("SLURM_ARRAY_TASK_ID").unwrap_or_default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string())
    }

    fn slurm(job: &str, task: &str) -> Option<Placement> {
        Some(Placement { scheduler: "slurm".into(), job: job.into(), task: task.into() })
    }

    #[test]
    fn an_array_task_is_recorded_by_the_array_job_id_and_its_task_id() {
        let array = [("SLURM_JOB_ID", "41"), ("SLURM_ARRAY_JOB_ID", "40"), ("SLURM_ARRAY_TASK_ID", "2")];
        assert_eq!(probe(&vars(&array)), slurm("40", "2"));
        assert_eq!(probe(&vars(&[("SLURM_JOB_ID", "7")])), slurm("7", ""));
        assert_eq!(probe(&vars(&[])), None);
    }
}
