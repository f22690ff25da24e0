//! `sweep check`: validates declarations, their engine profiles and every template they render.

use sweep::exit_code;
use sweep::runner::{self, Ablation, RunOptions};
use sweep::{spec, variants};

use crate::args::CheckArgs;
use crate::exit_status::CommandError;

pub fn check(args: CheckArgs) -> Result<u8, CommandError> {
    for path in &args.specs {
        let sweep = spec::load_sweep(path)?;
        if variants::left_by_an_ablation(&sweep.engine.tree) {
            // Checked first: the rendered sources would otherwise read as an out-of-date template.
            return Err(CommandError::CheckFailed(format!(
                "{}: an in-place ablation is running in this tree or was interrupted and left it rendered; \
                 if none is running, run `sweep restore {}`",
                sweep.engine.tree.display(),
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
        println!("{}: ok ({} settings x {} reps)", path.display(), plan.settings.len(), plan.reps);
    }
    Ok(exit_code::SUCCESS as u8)
}
