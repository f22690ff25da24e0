//! `srun`: `srun -n <ranks> program args...`, one command for every rank, inside a Slurm allocation.

use std::path::Path;

use crate::declare::Launcher;

pub struct Srun;

impl Launcher for Srun {
    fn name(&self) -> &'static str {
        "srun"
    }

    fn default_command(&self) -> Option<&'static str> {
        Some("srun")
    }

    fn rank_flags(&self, ranks: u32, _hostfile: Option<&Path>) -> Vec<String> {
        vec!["-n".to_string(), ranks.to_string()]
    }
}
