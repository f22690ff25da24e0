//! Builds an engine tree the way a run is run: through the executor, in its own process group
//! (recorded before anything runs in it), stopped by any terminating signal as an interruption (not
//! a broken build), never outliving sweep. Also guards a build dir an in-place ablation left behind.

use std::path::Path;

use nix::unistd::Pid;

use super::build_cache::BuildKey;
use super::build_job::{render_build_argv, run_build, BuildJob, BuildOutcome};
use super::build_report::{BuildReport, BuildStatus};
use super::error::BuildError;
use crate::confined_dir::ConfinedDir;
use crate::console::Console;
use crate::declare::Engine;
use crate::ground::BaseEnv;
use crate::launch;
use crate::variants::{self, VariantBuildMark};

/// Runs the profile's build command for the engine's own tree and build dir; `on_group` learns the
/// build's process group before anything runs in it.
pub fn build_engine_tree(
    engine: &Engine,
    variant: &str,
    log: (&ConfinedDir, &Path),
    base_env: &BaseEnv,
    on_group: &mut dyn FnMut(Pid) -> std::io::Result<()>,
) -> Result<Result<BuildOutcome, BuildError>, BuildError> {
    let argv = render_build_argv(&engine.build, &engine.tree, &engine.build_dir, &Default::default())
        .map_err(BuildError::Command)?;
    let job = BuildJob {
        variant: variant.to_string(),
        tree: engine.tree.clone(),
        build_dir: engine.build_dir.clone(),
        // Never cached: the key only names the command.
        key: BuildKey::new(&[], &argv, "", ""),
        argv,
        env: base_env.overrides().to_vec(),
    };
    Ok(run_build(&job, log, on_group))
}

/// Whether `sweep run` will build the engine first.
fn builds(engine: &Engine, build: bool) -> bool {
    build && !engine.build.is_empty()
}

/// Refuses a run that would measure an in-place ablation's variant as the engine: one that will not
/// rebuild a build dir the ablation left (checked before anything is written).
pub fn refuse_variant_build(engine: &Engine, build: bool) -> Result<(), BuildError> {
    if !builds(engine, build) {
        VariantBuildMark::refuse_unbuilt(&engine.build_dir)?;
    }
    Ok(())
}

/// The build `sweep run` does first, of `variant`; `None` when `build` is off (`--no-build`) or the
/// profile has no build command. A build dir an in-place ablation left is checked, once rebuilt, against
/// the baseline binary recorded before the ablation.
pub fn build_before_run(
    engine: &Engine,
    variant: &str,
    build: bool,
    log: (&ConfinedDir, &Path),
    base_env: &BaseEnv,
) -> Result<Option<Result<BuildOutcome, BuildError>>, BuildError> {
    if !builds(engine, build) {
        return Ok(None);
    }
    Console::Stderr.line(format_args!("building {} (log {})", engine.tree.display(), log.1.display()));
    let end = build_engine_tree(engine, variant, log, base_env, &mut |_| Ok(()))?;
    if end.is_ok() {
        VariantBuildMark::verify_rebuilt(&engine.tree, &engine.build_dir, Path::new(&program(engine)?))?;
    }
    Ok(Some(end))
}

/// Marks the engine's build dir as about to hold an in-place ablation's variant builds, until a
/// `sweep run` rebuilds it.
pub fn mark_variant_builds(engine: &Engine) -> Result<(), BuildError> {
    Ok(VariantBuildMark::record(&engine.tree, &engine.build_dir, Path::new(&program(engine)?))?)
}

/// The engine's program in its own tree and build dir.
fn program(engine: &Engine) -> Result<String, BuildError> {
    launch::program_path(engine, &engine.tree, &engine.build_dir).map_err(BuildError::ProgramPath)
}

/// Builds the rendered real tree as `variant`, its process group recorded in the tree's state dir so a
/// recovery after a SIGKILL of sweep can stop it. `None` when a signal stopped it: an interruption, not
/// a broken variant.
pub fn build_in_place(
    engine: &Engine,
    variant: &str,
    key: BuildKey,
    log: (&ConfinedDir, &Path),
    base_env: &BaseEnv,
) -> Result<Option<BuildReport>, BuildError> {
    let end = build_engine_tree(engine, variant, log, base_env, &mut |group| {
        variants::record_build_group(&engine.tree, group.as_raw()).map_err(std::io::Error::other)
    })?;
    variants::clear_build_group(&engine.tree)?;
    let status = match end {
        Ok(outcome) => BuildStatus::Built { seconds: outcome.seconds },
        Err(BuildError::Interrupted { .. }) => return Ok(None),
        Err(error) => BuildStatus::Failed { error: error.to_string() },
    };
    Ok(Some(BuildReport { variant: variant.to_string(), key, status }))
}
