//! Starts every child process of sweep and stops it: process groups recorded before anything runs in
//! them, timeouts, signals, re-parented descendants found and killed, no orphans; Slurm batch scripts
//! and their submission (`sbatch` is one more child).

mod array_job;
mod base_env;
mod captured;
mod child_spawn;
mod execution;
mod executor;
mod executor_event;
mod group_gate;
mod leftovers;
mod limits;
mod log_tail;
mod process_tree;
mod rank_command;
mod readiness;
mod reaper;
mod run_commands;
mod run_events;
mod run_status;
mod sbatch;
mod service_command;
mod service_commands;
mod service_not_ready;
mod signal_subscription;
mod signal_watch;
mod slurm_error;
mod stop_reason;
mod unset_param;

pub use array_job::ArrayJob;
pub use base_env::BaseEnv;
pub use captured::Captured;
pub use execution::Execution;
pub use executor::{execute, execute_served, execute_shared, execute_with};
pub use executor_event::Event;
pub use leftovers::{kill_leftovers_of_dead_sweeps, kill_sweep_group, OWNER_HOST_VAR, OWNER_VAR};
pub use limits::Limits;
pub use rank_command::RankCommand;
pub use readiness::Readiness;
pub use run_commands::{program_path, run_commands, run_context, RunSite};
pub use run_events::RunEvents;
pub use run_status::{RunStatus, UnknownRunStatus};
pub use sbatch::sbatch;
pub use service_command::ServiceCommand;
pub use service_commands::{bind_auto_port, service_commands};
pub use service_not_ready::ServiceNotReady;
pub use signal_watch::{received as signal_received, SignalWatch, TERMINATING_SIGNALS};
pub use slurm_error::SlurmError;
pub use stop_reason::StopReason;
pub use unset_param::UNSET_MARKER;
