//! Errors of talking to Slurm: a batch script that could not be submitted.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    /// sbatch failed or printed no job id; `output` is what it said.
    #[error("sbatch {reason}: {output}")]
    Submit { reason: String, output: String },
}
