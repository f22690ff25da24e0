//! Builds an engine tree the way a run is run: through the executor, in its own process group
//! (recorded before anything runs in it), stopped by any terminating signal as an interruption (not
//! a broken build), never outliving sweep. Also guards a build dir an in-place ablation left behind.

use std::path::Path;

use nix::unistd::Pid;

use super::runner_error::RunnerError;
use crate::confined_dir::ConfinedDir;
use crate::console::Console;
use crate::declare::Engine;
use crate::ground::BaseEnv;
use crate::launch;
use crate::rebuild::{self, BuildError, BuildJob, BuildKey, BuildOutcome};
use crate::variants::VariantBuildMark;

/// Runs the profile's build command for the engine's own tree and build dir; `on_group` learns the
/// build's process group before anything runs in it.
pub fn build_engine_tree(
    engine: &Engine,
    variant: &str,
    log: (&ConfinedDir, &Path),
    base_env: &BaseEnv,
    on_group: &mut dyn FnMut(Pid) -> std::io::Result<()>,
) -> Result<Result<BuildOutcome, BuildError>, RunnerError> {
    let argv = rebuild::render_build_argv(&engine.build, &engine.tree, &engine.build_dir, &Default::default())
        .map_err(RunnerError::BuildCommand)?;
    let job = BuildJob {
        variant: variant.to_string(),
        tree: engine.tree.clone(),
        build_dir: engine.build_dir.clone(),
        // Never cached: the key only names the command.
        key: BuildKey::new(&[], &argv, "", ""),
        argv,
        env: base_env.overrides().to_vec(),
    };
    Ok(rebuild::run_build(&job, log, on_group))
}

/// Whether `sweep run` will build the engine first.
fn builds(engine: &Engine, build: bool) -> bool {
    build && !engine.build.is_empty()
}

/// Refuses a run that would measure an in-place ablation's variant as the engine: one that will not
/// rebuild a build dir the ablation left (checked before anything is written).
pub fn refuse_variant_build(engine: &Engine, build: bool) -> Result<(), RunnerError> {
    if !builds(engine, build) {
        VariantBuildMark::refuse_unbuilt(&engine.build_dir)?;
    }
    Ok(())
}

/// The build `sweep run` does first; `None` when `build` is off (`--no-build`) or the profile has no
/// build command. A build dir an in-place ablation left is checked, once rebuilt, against the
/// baseline binary recorded before the ablation.
pub fn build_before_run(
    engine: &Engine,
    build: bool,
    log: (&ConfinedDir, &Path),
    base_env: &BaseEnv,
) -> Result<Option<Result<BuildOutcome, BuildError>>, RunnerError> {
    if !builds(engine, build) {
        return Ok(None);
    }
    Console::Stderr.line(format_args!("building {} (log {})", engine.tree.display(), log.1.display()));
    let end = build_engine_tree(engine, crate::plan::DEFAULT_VARIANT, log, base_env, &mut |_| Ok(()))?;
    if end.is_ok() {
        let program =
            launch::program_path(engine, &engine.tree, &engine.build_dir).map_err(RunnerError::ProgramPath)?;
        VariantBuildMark::verify_rebuilt(&engine.tree, &engine.build_dir, Path::new(&program))?;
    }
    Ok(Some(end))
}
