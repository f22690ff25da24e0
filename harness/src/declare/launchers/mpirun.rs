//! `mpirun`: `mpirun -n <ranks> [--hostfile F] program args...`, one command for every rank.

use std::path::Path;

use crate::declare::Launcher;

pub struct Mpirun;

impl Launcher for Mpirun {
    fn name(&self) -> &'static str {
        "mpirun"
    }

    fn default_command(&self) -> Option<&'static str> {
        Some("mpirun")
    }

    fn takes_hostfile(&self) -> bool {
        true
    }

    fn rank_flags(&self, ranks: u32, hostfile: Option<&Path>) -> Vec<String> {
        let hostfile = hostfile.into_iter().flat_map(|file| ["--hostfile".to_string(), file.display().to_string()]);
        ["-n".to_string(), ranks.to_string()].into_iter().chain(hostfile).collect()
    }
}
