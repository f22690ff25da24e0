//! `sweep ablate`: render, build and run every kernel variant, restore, and judge additivity.

use sweep::console::Console;
use sweep::declare::{self, Isolation};
use sweep::exit_code;
use sweep::launch::RunEvents;
use sweep::plural::counted;
use sweep::record::RunTable;
use sweep::runner::{self, Ablation};

use crate::args::{AblateArgs, IsolationArg};
use crate::exit_status::CommandError;
use crate::restore_command::restore_if_interrupted;
use crate::run_command::{disk_full, execution_options, finish_message, print_dry_run, repository};
use crate::summary;

pub fn ablate(args: AblateArgs) -> Result<u8, CommandError> {
    let repository = repository();
    let path = repository.declaration(&args.ablation)?;
    let sweep = crate::check_command::load_sweep(&path)?;
    restore_if_interrupted(&sweep.engine.tree)?;
    let isolation = args.isolation.map(|arg| match arg {
        IsolationArg::Copy => Isolation::Copy,
        IsolationArg::InPlace => Isolation::InPlace,
    });
    let ablation = Ablation::new(&sweep, isolation)?.ok_or_else(|| {
        CommandError::BadInput(format!(
            "{}: no [ablation] section: `sweep ablate` needs groups and templates",
            path.display()
        ))
    })?;
    let options = execution_options(&args.execution, &repository)?;
    if let Some(variant) = &args.show {
        let plan = ablation.plan(&options)?;
        let diff = ablation.show(&plan, variant)?;
        if diff.is_empty() {
            Console::Stdout.line(format_args!("{variant}: renders every source unchanged"));
        }
        Console::Stdout.write(&diff);
        return Ok(exit_code::SUCCESS as u8);
    }
    if args.execution.dry_run {
        let (plan, sites) = ablation.planned_sites(&options)?;
        return print_dry_run(&sweep, &options, &plan, &sites);
    }
    let events = RunEvents::install().map_err(CommandError::Signals)?;
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let outcome = runner::run_ablation(&ablation, &options, jobs, &events)?;
    Console::Stderr.line(format_args!(
        "variant builds: {:.1}s wall ({} distinct, {} at a time)",
        outcome.build_seconds,
        outcome.builds.len(),
        counted(jobs, "job")
    ));
    if disk_full(&outcome.runs) {
        return Ok(finish_message(&outcome.runs));
    }
    let title = format!("{} ({})", sweep.name, outcome.runs.paths.csv.display());
    let blocks = ablation.isolation == Isolation::Copy && sweep.reps.order == declare::RunOrder::Interleaved;
    let (text, not_additive) = summary::write_ablation_summary(
        &RunTable::read(&outcome.runs.paths.csv)?,
        &outcome.runs.paths,
        &sweep.analysis,
        ablation.declared,
        blocks,
        &title,
        args.execution.force,
    )?;
    Console::Stdout.write(&text);
    let code = finish_message(&outcome.runs);
    let failed_builds = outcome.builds.iter().any(|b| matches!(b.status, sweep::rebuild::BuildStatus::Failed { .. }));
    if code == exit_code::SUCCESS as u8 && (failed_builds || not_additive) {
        return Ok(exit_code::CHECK_FAILED as u8);
    }
    Ok(code)
}
