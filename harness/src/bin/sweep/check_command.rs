//! `sweep check`: validates declarations, their engine profiles and every template they render;
//! every file is checked and reported, an error in one does not hide the others.

use std::path::Path;

use sweep::console::Console;
use sweep::exit_code;
use sweep::plural::counted;
use sweep::runner::{self, Ablation, RunOptions};
use sweep::{declare, report, variants};

use crate::args::CheckArgs;
use crate::exit_status::{one_line, CommandError};

/// Checks each file in turn; the exit code is the worst of them (2 when any declaration is bad).
pub fn check(args: CheckArgs) -> Result<u8, CommandError> {
    let mut worst = exit_code::SUCCESS as u8;
    for path in &args.specs {
        let checked = if declare::is_engine_profile(path) { check_profile(path) } else { check_sweep(path) };
        match checked {
            Ok((summary, notes)) => {
                for note in &notes {
                    Console::Stderr.line(format_args!("sweep: note: {note}"));
                }
                if args.strict && !notes.is_empty() {
                    worst = worst.max(exit_code::BAD_INPUT as u8);
                } else {
                    Console::Stdout.line(format_args!("{}: ok ({summary})", path.display()));
                }
            }
            Err(error) => {
                let line = one_line(&error);
                let line = if args.specs.len() > 1 { reached_from(&line, path) } else { line };
                Console::Stderr.line(format_args!("sweep: error: {line}"));
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

/// A summary line and the notes (see `SpecNote`); a profile whose tree is not here is checked as a
/// declaration, and says so in a note.
type Checked = (String, Vec<String>);

fn check_profile(path: &Path) -> Result<Checked, CommandError> {
    match declare::load_engine_profile(path) {
        Ok(engine) => Ok((
            format!(
                "engine profile: {} launcher, {}",
                declare::toml_spelling(&engine.launcher),
                counted(engine.ranks as usize, "rank")
            ),
            Vec::new(),
        )),
        Err(declare::SpecError::TreeMissing { location, tree, .. }) => Ok((
            "engine profile, declaration only".to_string(),
            vec![format!("{location}: tree {tree} not found: checked the declaration only")],
        )),
        Err(error) => Err(error.into()),
    }
}

/// Every command's reading of a declaration: `declare::load_sweep`, then the names of `[analysis] findings`
/// against the report's registry of findings (which `declare`, below `report`, cannot see).
pub fn load_sweep(path: &Path) -> Result<declare::Sweep, declare::SpecError> {
    let sweep = declare::load_sweep(path)?;
    report::check_findings(&sweep)?;
    Ok(sweep)
}

fn check_sweep(path: &Path) -> Result<Checked, CommandError> {
    let sweep = load_sweep(path)?;
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
        Some(ablation) => ablation.planned_sites(&options)?,
        None => runner::plan_sweep(&sweep, &options)?,
    };
    runner::preflight(&sweep, &plan, &sites)?;
    let notes = sweep.notes.iter().map(ToString::to_string).collect();
    let runs = match sweep.search {
        Some(search) => format!("searched under a budget of {}", search.budget),
        None => format!("x {}", counted(plan.reps as usize, "rep")),
    };
    Ok((format!("{} {runs}", counted(plan.settings.len(), "setting")), notes))
}
