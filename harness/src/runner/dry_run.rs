//! `--dry-run`: the settings, the order and the exact processes of each run, nothing executed.

use std::fmt::Write;

use super::prepared_run::prepare_run;
use super::runner_error::RunnerError;
use super::session::{grouped, limits_text, run_dir_name, shared_len};
use super::RunOptions;
use crate::declare::{toml_spelling, Sweep};
use crate::plan::Plan;
use crate::plural::counted;
use crate::rebuild::{BuildError, SettingBuild, VariantSite};
use crate::shell_line::shell_line;

/// Renders the plan as text a user can read and paste from; `sites[i]` is setting i's build.
/// `seed_drawn`: no seed was given, so the plan's was drawn for this dry run alone. A search (`options`'
/// `search`) lists its settings: its runs are chosen as results land.
pub fn describe_plan(
    sweep: &Sweep,
    plan: &Plan,
    sites: &[VariantSite],
    runs_root: &std::path::Path,
    options: &RunOptions,
) -> Result<String, RunnerError> {
    let seed_drawn = options.draws_seed(sweep);
    let mut out = String::new();
    let _ = writeln!(out, "sweep `{}` from {}", sweep.name, sweep.file().display());
    let _ = writeln!(
        out,
        "engine: {} ({} launcher, {}), {}",
        sweep.engine.profile.path.display(),
        toml_spelling(&sweep.engine.launcher),
        counted(sweep.engine.ranks as usize, "rank"),
        limits_text(sweep)
    );
    let runs = match options.search {
        Some(search) => format!("searched under a budget of {} (rounds chosen as results land)", search.budget),
        None => format!("x {} = {}", counted(plan.reps as usize, "rep"), counted(plan.runs.len(), "run")),
    };
    let _ = writeln!(
        out,
        "{} {runs}, order {}, {}",
        counted(plan.settings.len(), "setting"),
        toml_spelling(&sweep.reps.order),
        seed_text(plan.seed, seed_drawn)
    );
    if let Some(slurm) = &options.on_slurm {
        let tasks = counted(slurm.tasks as usize, "task");
        let _ =
            writeln!(out, "rounds: each a Slurm array job of at most {tasks} (`sbatch --wait`), its rows merged here");
    }
    out.push_str(&build_lines(sweep, plan, sites)?);
    let _ = writeln!(out, "\nsettings:");
    for (index, setting) in plan.settings.iter().enumerate() {
        let _ = writeln!(out, "  [{}] {}", index + 1, setting.label());
    }
    let _ = writeln!(out, "\nruns:");
    let runs = grouped(sweep, plan, &plan.runs);
    // Runs left that run beside the service instance an earlier run started (`reuse_across`).
    let mut beside_instance = 0;
    let mut instance_port: Option<serde_json::Value> = None;
    for (index, run) in runs.iter().enumerate() {
        let setting = &plan.settings[run.setting.index()];
        let variant = &sites[run.setting.index()];
        let run_dir = runs_root.join(run_dir_name(run, &plan.varying(setting).slug(), 1));
        let new_instance = beside_instance == 0;
        let port = instance_port.as_ref().filter(|_| !new_instance);
        let prepared = prepare_run(sweep, setting, run.rep, variant, &run_dir, port)?;
        if new_instance {
            instance_port = prepared.context.get(crate::declare::PORT_NAME).cloned();
        }
        let warmup = if run.warmup { " (warmup)" } else { "" };
        let _ = writeln!(
            out,
            "  {:>4}. setting [{}] rep {}{warmup}  in {}",
            run.order,
            run.setting.index() + 1,
            run.rep,
            run_dir.display()
        );
        for (path, text) in &prepared.inputs {
            let _ = writeln!(out, "        input {} ({} bytes)", path.display(), text.len());
        }
        let pre_run = prepared.pre_run.iter().map(|command| ("run".to_string(), command));
        beside_instance = if new_instance { shared_len(sweep, plan, &runs[index..]) - 1 } else { beside_instance - 1 };
        if !new_instance {
            let _ = writeln!(out, "        beside the services of the run before (reuse_across)");
        }
        let services = prepared.services.iter().filter(|_| new_instance);
        let services = services.map(|service| (format!("service {}", service.name), &service.command));
        let ranks = prepared
            .commands
            .iter()
            .map(|command| (command.rank.map_or_else(|| "run".to_string(), |rank| format!("rank {rank}")), command));
        for (who, command) in pre_run.chain(services).chain(ranks) {
            let _ = writeln!(out, "        {who}: {}", command.display());
        }
    }
    Ok(out)
}

/// The seed and where it comes from: a drawn seed is not the one a real run would draw.
fn seed_text(seed: u64, drawn: bool) -> String {
    if drawn {
        format!(
            "seed {seed} (none declared: drawn for this dry run, and the real run draws its own; pass `--seed {seed}` \
             to run this order)"
        )
    } else {
        format!("seed {seed}")
    }
}

/// The build command once per distinct build, as it will run (rendered, shell-quoted).
fn build_lines(sweep: &Sweep, plan: &Plan, sites: &[VariantSite]) -> Result<String, RunnerError> {
    if sweep.engine.build.is_empty() {
        return Ok("build: none (the profile has no build command)\n".to_string());
    }
    let mut lines: Vec<String> = Vec::new();
    for (setting, site) in plan.settings.iter().zip(sites) {
        let argv = SettingBuild::of(sweep, &setting.context())
            .argv(&site.tree, &site.build_dir)
            .map_err(BuildError::Command)?;
        let line = format!("build [{}] in {}: {}\n", site.name, site.tree.display(), shell_line(&argv));
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    Ok(lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drawn_seed_says_how_to_reuse_it() {
        assert_eq!(seed_text(7, false), "seed 7");
        assert!(seed_text(7, true).contains("pass `--seed 7`"));
    }
}
