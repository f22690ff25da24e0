//! `--dry-run`: the settings, the order and the exact processes of each run, nothing executed.

use std::fmt::Write;

use super::prepared_run::{prepare_run, VariantSite};
use super::session::{limits_text, run_dir_name};
use crate::plan::Plan;
use crate::spec::{SpecError, Sweep};

/// Renders the plan as text a user can read and paste from; `sites[i]` is setting i's build.
pub fn describe_plan(
    sweep: &Sweep,
    plan: &Plan,
    sites: &[VariantSite],
    runs_root: &std::path::Path,
) -> Result<String, SpecError> {
    let mut out = String::new();
    let _ = writeln!(out, "sweep `{}` from {}", sweep.name, sweep.file().display());
    let _ = writeln!(
        out,
        "engine: {} ({:?} launcher, {} ranks), {}",
        sweep.engine.profile.path.display(),
        sweep.engine.launcher,
        sweep.engine.ranks,
        limits_text(sweep)
    );
    let _ = writeln!(
        out,
        "{} settings x {} reps = {} runs, order {:?}, seed {}",
        plan.settings.len(),
        plan.reps,
        plan.runs.len(),
        sweep.reps.order,
        plan.seed
    );
    let _ = writeln!(out, "\nsettings:");
    for (index, setting) in plan.settings.iter().enumerate() {
        let _ = writeln!(out, "  [{}] {}", index + 1, setting.label());
    }
    let _ = writeln!(out, "\nruns:");
    for run in &plan.runs {
        let setting = &plan.settings[run.setting];
        let variant = &sites[run.setting];
        let run_dir = runs_root.join(run_dir_name(run, &setting.slug()));
        let prepared = prepare_run(sweep, setting, run.rep, variant, &run_dir)?;
        let warmup = if run.warmup { " (warmup)" } else { "" };
        let _ = writeln!(
            out,
            "  {:>4}. setting [{}] rep {}{warmup}  in {}",
            run.order,
            run.setting + 1,
            run.rep,
            run_dir.display()
        );
        for (path, text) in &prepared.inputs {
            let _ = writeln!(out, "        input {} ({} bytes)", path.display(), text.len());
        }
        for command in prepared.pre_run.iter().chain(&prepared.commands) {
            let who = command.rank.map_or_else(|| "run".to_string(), |rank| format!("rank {rank}"));
            let _ = writeln!(out, "        {who}: {}", command.display());
        }
    }
    Ok(out)
}
