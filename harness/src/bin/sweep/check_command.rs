//! `sweep check`: validates declarations, their engine profiles and every template they render;
//! every file is checked and reported, an error in one does not hide the others.

use std::path::Path;

use sweep::exit_code;
use sweep::runner::{self, Ablation, RunOptions};
use sweep::{spec, variants};

use crate::args::CheckArgs;
use crate::exit_status::{one_line, CommandError};
use crate::stdout;

/// Checks each file in turn; the exit code is the worst of them (2 when any declaration is bad).
pub fn check(args: CheckArgs) -> Result<u8, CommandError> {
    let mut worst = exit_code::SUCCESS as u8;
    for path in &args.specs {
        let checked = if spec::is_engine_profile(path) { check_profile(path) } else { check_sweep(path) };
        match checked {
            Ok(summary) => stdout::print_line(&format!("{}: ok ({summary})", path.display())),
            Err(error) => {
                let line = one_line(&error);
                let line = if args.specs.len() > 1 { reached_from(&line, path) } else { line };
                eprintln!("sweep: error: {line}");
                worst = worst.max(error.exit_code());
            }
        }
    }
    Ok(worst)
}

/// Among several files, an error located in another file (a shared engine profile) names the sweep
/// that reached it.
fn reached_from(line: &str, path: &Path) -> String {
    if line.starts_with(&path.display().to_string()) {
        line.to_string()
    } else {
        format!("{line} (reached from {})", path.display())
    }
}

fn check_profile(path: &Path) -> Result<String, CommandError> {
    let engine = spec::load_engine_profile(path)?;
    Ok(format!("engine profile: {} launcher, {} ranks", spec::toml_spelling(&engine.launcher), engine.ranks))
}

fn check_sweep(path: &Path) -> Result<String, CommandError> {
    let sweep = spec::load_sweep(path)?;
    if variants::left_by_an_ablation(&sweep.engine.tree) {
        // Checked first: the rendered sources would otherwise read as an out-of-date template.
        let restore = sweep::shell_line::sweep_command(&["restore".into(), sweep.engine.tree.display().to_string()]);
        return Err(CommandError::CheckFailed(format!(
            "{}: an in-place ablation is running in this tree or was interrupted and left it rendered; \
             if none is running, run `{restore}`",
            sweep.engine.tree.display()
        )));
    }
    let options = RunOptions::default();
    let (plan, sites) = match Ablation::new(&sweep, None)? {
        Some(ablation) => {
            let plan = ablation.plan(&options)?;
            ablation.check(&plan)?;
            let sites = ablation.planned_sites(&plan, &runner::cache_root(&options, &sweep));
            (plan, sites)
        }
        None => runner::plan_sweep(&sweep, &options)?,
    };
    runner::preflight(&sweep, &plan, &sites)?;
    Ok(format!("{} settings x {} reps", plan.settings.len(), plan.reps))
}
