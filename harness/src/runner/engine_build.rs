//! Builds an engine tree the way a run is run: in its own process group with its output in a log,
//! stopped by Ctrl-C or SIGTERM like a run (an interruption, not a broken build), never outliving sweep.

use std::path::Path;
use std::time::Duration;

use nix::unistd::Pid;

use super::runner_error::RunnerError;
use super::spawning::Spawning;
use crate::build::{self, BuildError};
use crate::launch::{self, Limits, RankCommand, StopReason};
use crate::spec::Engine;

/// Longest a build may take before it is stopped like a hung run.
const BUILD_TIMEOUT: Duration = Duration::from_secs(6 * 3600);

/// How a build ended.
#[derive(Debug)]
pub enum BuildEnd {
    Built {
        seconds: f64,
    },
    /// Why, ending with the tail of the compiler's output.
    Failed(BuildError),
    /// A signal asked sweep to stop while it built.
    Interrupted,
}

/// Runs the profile's build command for the engine's own tree and build dir; `on_spawn` learns the
/// build's process group as soon as it starts.
pub fn build_engine_tree(
    engine: &Engine,
    variant: &str,
    log: &Path,
    spawning: Spawning<'_>,
    on_spawn: &mut dyn FnMut(Pid),
) -> Result<BuildEnd, RunnerError> {
    let argv =
        build::render_build_argv(&engine.build, &engine.tree, &engine.build_dir).map_err(RunnerError::BuildCommand)?;
    for dir in [engine.build_dir.as_path(), log.parent().unwrap_or(Path::new("."))] {
        std::fs::create_dir_all(dir).map_err(RunnerError::io(dir))?;
    }
    let command = RankCommand { rank: None, argv, env: Vec::new(), log: log.to_path_buf() };
    let limits = Limits { timeout: BUILD_TIMEOUT, grace: engine.grace };
    let execution = launch::execute_with(
        &[command],
        &engine.tree,
        spawning.base_env,
        limits,
        (&spawning.events.sender, &spawning.events.receiver),
        on_spawn,
    );
    Ok(match execution.reason {
        StopReason::Succeeded => BuildEnd::Built { seconds: execution.duration.as_secs_f64() },
        StopReason::Interrupted { .. } => BuildEnd::Interrupted,
        reason => {
            let tail = build::log_tail(log).unwrap_or_default();
            BuildEnd::Failed(BuildError::Failed {
                variant: variant.to_string(),
                status: reason.to_string(),
                first_error: build::first_error_line(log),
                log: log.to_path_buf(),
                tail,
            })
        }
    })
}
