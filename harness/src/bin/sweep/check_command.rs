//! `sweep check`: validates declarations, their engine profiles and every template they render.

use sweep::exit_code;
use sweep::runner::{self, Ablation, RunOptions};
use sweep::spec;

use crate::args::CheckArgs;
use crate::exit_status::CommandError;

pub fn check(args: CheckArgs) -> Result<u8, CommandError> {
    for path in &args.specs {
        let sweep = spec::load_sweep(path)?;
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
