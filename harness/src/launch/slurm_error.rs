//! Errors of talking to Slurm: a batch script that could not be submitted.

#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// sbatch failed or printed no job id; `output` is what it said.
    #[error("sbatch {reason}: {output}")]
    Submit { reason: String, output: String },
}
