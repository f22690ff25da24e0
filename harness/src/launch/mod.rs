//! Starts the ranks of one run and stops them: process groups, timeouts, signals, no orphans; submits
//! Slurm batch jobs the same way.

mod array_job;
mod executor;
mod rank_command;
mod run_commands;
mod run_events;
mod run_status;
mod sbatch;
mod signal_watch;
mod slurm_error;
mod stop_reason;

pub use array_job::ArrayJob;
pub use executor::{execute, execute_with, BaseEnv, Event, Execution, Limits};
pub use rank_command::RankCommand;
pub use run_commands::{log_path, program_path, run_commands, run_context, RunSite};
pub use run_events::RunEvents;
pub use run_status::{RunStatus, UnknownRunStatus};
pub use sbatch::sbatch;
pub use signal_watch::SignalWatch;
pub use slurm_error::SlurmError;
pub use stop_reason::StopReason;
