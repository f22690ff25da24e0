//! `sweep run` of a sweep with build-time params: one build per distinct tuple of their values, each in
//! its own cached copy of the tree (the ablation's copy isolation with nothing rendered), built in
//! parallel, and every setting's runs interleaved across all builds.

use std::path::{Component, Path};

use super::ablation::{run_copies, CopySources};
use super::origin::Origin;
use super::runner_error::RunnerError;
use super::{plan_sweep, result_paths, Context, RunOptions, SweepOutcome};
use crate::launch::RunEvents;
use crate::spec::Sweep;

/// Runs the sweep with one cached build per tuple of build-time values (a rerun builds nothing).
pub fn run_build_time(sweep: &Sweep, options: &RunOptions, events: &RunEvents) -> Result<SweepOutcome, RunnerError> {
    let (plan, _) = plan_sweep(sweep, options)?;
    let origin = Origin::gather(sweep, &plan.settings[0])?;
    let paths = result_paths(sweep, options, false)?;
    let context = Context { sweep, options, paths, origin, events };
    let sources = CopySources { exclude: build_outputs(sweep), render: Box::new(|_| Ok(Vec::new())) };
    let jobs = std::thread::available_parallelism().map_or(1, usize::from);
    Ok(run_copies(&sources, &plan, &context, jobs)?.runs)
}

/// The tree's own build dir is not copied: each copy builds into its own.
fn build_outputs(sweep: &Sweep) -> Vec<String> {
    let engine = &sweep.engine;
    first_component(&engine.build_dir, &engine.tree).into_iter().collect()
}

fn first_component(path: &Path, under: &Path) -> Option<String> {
    match path.strip_prefix(under).ok()?.components().next()? {
        Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_dir_inside_the_tree_is_excluded_by_its_top_entry() {
        assert_eq!(first_component(Path::new("/e/build/x"), Path::new("/e")), Some("build".into()));
        assert_eq!(first_component(Path::new("/elsewhere/b"), Path::new("/e")), None);
    }
}
