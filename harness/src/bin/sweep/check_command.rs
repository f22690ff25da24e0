//! `sweep check`: validates declarations, their engine profiles and every template they render.

use anyhow::Context;
use sweep::exit_code;
use sweep::runner::{self, RunOptions};
use sweep::spec;

use crate::args::CheckArgs;

pub fn check(args: CheckArgs) -> anyhow::Result<u8> {
    for path in &args.specs {
        let sweep = spec::load_sweep(path)?;
        let (plan, site) = runner::plan_sweep(&sweep, &RunOptions::default())?;
        runner::preflight(&sweep, &plan, &[site]).with_context(|| format!("{}: templates do not render", path.display()))?;
        if let Some(ablation) = crate::ablate_command::load_ablation(&sweep)? {
            ablation.check()?;
        }
        println!("{}: ok ({} settings x {} reps)", path.display(), plan.settings.len(), plan.reps);
    }
    Ok(exit_code::SUCCESS as u8)
}
