//! Starts every child process of sweep and stops it: process groups recorded before anything runs in
//! them, timeouts, signals, re-parented descendants found and killed, no orphans; Slurm batch scripts
//! and their submission (`sbatch` is one more child).

mod array_job;
mod captured;
mod child_spawn;
mod executor;
mod probe;
mod readiness;
mod reaper;
mod run_commands;
mod sbatch;
mod service_commands;
mod signal_watch;
mod stop_reason;

pub use array_job::ArrayJob;
pub use captured::Captured;

pub use executor::{execute, execute_served, execute_shared, execute_with, Limits};
pub use probe::{git_output, head_commit, tree_dirty, version_line};
pub use reaper::{kill_sweep_group, OWNER_HOST_VAR, OWNER_VAR};
pub use run_commands::{program_path, run_commands, run_context, RankCommand, RunSite, UNSET_MARKER};
pub use sbatch::{sbatch, sbatch_wait, SlurmError};
pub use service_commands::{bind_auto_port, service_commands, ServiceCommand};
pub use signal_watch::RunEvents;
pub use stop_reason::{Execution, ServiceNotReady, StopReason};
