//! `sweep run`: a declared sweep from plan to summary.

use std::path::{Path, PathBuf};

use sweep::analyse::SweepAnalysis;
use sweep::console::Console;
use sweep::declare::{self, Race, Repository};
use sweep::exit_code;
use sweep::launch::RunEvents;
use sweep::plan::{parse_shard, Plan, PlanOptions};
use sweep::plural::counted;
use sweep::rebuild::VariantSite;
use sweep::record::{RecordedRun, ResultPaths, RunTable, Sidecar};
use sweep::report::{RaceClosing, ResumeCommand};
use sweep::runner::{self, EarlyStop, RunOptions, SlurmRounds, SweepOutcome};
use sweep::store::{HistoryStore, STORE_FILE};

use crate::args::{ExecutionArgs, RunArgs};
use crate::exit_status::CommandError;
use crate::restore_command::restore_if_interrupted;
use crate::result_files::ResultFiles;
use crate::summary;

pub fn run(args: RunArgs) -> Result<u8, CommandError> {
    run_on(args, None)
}

/// `sweep run`, each batch run here, or as a Slurm array job (`on_slurm`: a search's rounds, `sweep
/// submit`), which builds nothing here: its tasks do.
pub fn run_on(args: RunArgs, on_slurm: Option<SlurmRounds>) -> Result<u8, CommandError> {
    let repository = repository();
    let sweep = crate::check_command::load_sweep(&repository.declaration(&args.spec)?)?;
    if let Some(csv) = &args.resume {
        // Before anything is read from it or written: the CSV must be this sweep's, and so must every
        // summary, page and plot the resumed sweep will write again beside it.
        let recorded = runner::check_resume(&sweep, csv, args.accept_engine_change)?;
        if recorded.engine_fingerprint.is_none() {
            Console::Stderr.line(format_args!(
                "sweep: note: {}: written by an older sweep, it does not record its engine: whether its rows \
                 come from this one cannot be checked",
                ResultPaths::for_csv(csv).sidecar.display()
            ));
        }
        ResultFiles::open(&ResultPaths::for_csv(csv), args.execution.force)?;
    }
    let options = run_options(&args, &sweep, &repository)?;
    let options = RunOptions { build: options.build && on_slurm.is_none(), on_slurm, ..options };
    restore_if_interrupted(&sweep.engine.tree)?;
    if args.execution.dry_run {
        let (plan, sites) = runner::plan_sweep(&sweep, &options)?;
        return print_dry_run(&sweep, &options, &plan, &sites);
    }
    let events = RunEvents::install().map_err(CommandError::Signals)?;
    let outcome = runner::run_sweep(&sweep, &options, &events)?;
    // An array task's rows are the search's: its summary is written of the search's CSV.
    if disk_full(&outcome) || args.runs_file.is_some() {
        return Ok(finish_message(&outcome));
    }
    let title = format!("{} ({})", sweep.name, outcome.paths.csv.display());
    let blocks = sweep.reps.order == declare::RunOrder::Interleaved;
    let mut table = RunTable::read(&outcome.paths.csv)?;
    let (text, analysis, checks_failed) =
        summary::write_run_summary(&mut table, &outcome.paths, &sweep.analysis, blocks, &title, args.execution.force)?;
    Console::Stdout.write(&text);
    let code = finish_message(&outcome);
    if outcome.stopped.is_none() {
        add_to_history(&args, &sweep, &outcome.paths.csv, &options);
    }
    if let (Some(race), None) = (options.race, &outcome.stopped) {
        let negligible = sweep.analysis.negligible.is_some();
        Console::Stderr.line(race_closing(&table, &analysis, race, &outcome.paths, negligible));
    }
    if code == exit_code::SUCCESS as u8 && checks_failed {
        Console::Stderr.line("a check failed: settings that resolve to the same code path disagree (see Equivalence)");
        return Ok(exit_code::CHECK_FAILED as u8);
    }
    Ok(code)
}

/// Adds the finished sweep's CSV to the history store of its results folder, unless `--no-history` or
/// `[history] add = false` opt out; a shard is left to its merge. A failure is a one-line warning, never
/// the run's failure (its files are written whatever the store says).
fn add_to_history(args: &RunArgs, sweep: &declare::Sweep, csv: &Path, options: &RunOptions) {
    if args.no_history || !sweep.add_to_history {
        return;
    }
    if args.shard.is_some() {
        Console::Stderr.line(
            "history: a shard is not added to the history store; add the merged CSV (`sweep merge`, then `sweep \
             history add`)",
        );
        return;
    }
    let store = history_store_of(options);
    let added = HistoryStore::open(&store).and_then(|mut history| history.add(csv, None));
    match added {
        Ok(added) => Console::Stderr.line(format_args!("history: {}", added.line(csv, &store))),
        Err(error) => Console::Stderr.line(format_args!(
            "sweep: warning: the results were not added to the history store: {}",
            crate::exit_status::one_line(&error)
        )),
    }
}

/// `history.sqlite` in the results folder in use: the results root, or the folder of an `--out` CSV (or
/// of a resumed CSV outside the results root), so a sweep written elsewhere keeps its history there.
fn history_store_of(options: &RunOptions) -> PathBuf {
    let outside = |csv: &PathBuf| {
        let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        !absolute(csv).starts_with(absolute(&options.results_dir))
    };
    let elsewhere = options.out.as_ref().or(options.resume.as_ref().filter(|csv| outside(csv)));
    let folder = elsewhere.map_or(options.results_dir.as_path(), |csv| csv.parent().unwrap_or(Path::new("")));
    folder.join(STORE_FILE)
}

/// `--dry-run`: the plan as text, nothing run or written.
pub fn print_dry_run(
    sweep: &declare::Sweep,
    options: &RunOptions,
    plan: &Plan,
    sites: &[VariantSite],
) -> Result<u8, CommandError> {
    let paths = runner::result_paths(sweep, options, true)?;
    let runs_root = paths.logs.join("runs");
    Console::Stdout.write(&runner::describe_plan(sweep, plan, sites, &runs_root, options)?);
    Ok(exit_code::SUCCESS as u8)
}

/// The repository around the current folder, where sweep names and results are found; said once when
/// that is a folder above, so the files' paths come as no surprise.
pub fn repository() -> Repository {
    let repository = Repository::around(&std::env::current_dir().unwrap_or_default());
    if let Some(root) = repository.root_above() {
        Console::Stderr.line(format_args!(
            "sweep: note: in the repository at {}: sweep names are its sweeps/, results go under its results/",
            root.display()
        ));
    }
    repository
}

/// The checked form of the command line.
fn run_options(args: &RunArgs, sweep: &declare::Sweep, repository: &Repository) -> Result<RunOptions, CommandError> {
    refuse_no_build_of_per_setting_builds(args, sweep)?;
    let race = race(args, sweep)?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    let options = execution_options(&args.execution, repository)?;
    let options = RunOptions {
        plan: PlanOptions {
            reps: race.map(|race| race.max).or(args.execution.reps),
            filters: args.filters.clone(),
            shard,
            ..options.plan
        },
        resume: args.resume.clone(),
        build: !args.no_build,
        race,
        keep_failed: args.no_retry_failed,
        accept_engine_change: args.accept_engine_change,
        runs_file: args.runs_file.clone(),
        ..options
    };
    search(args, sweep, options)
}

/// The search `[search]` and `--budget` ask for, checked against the grid: a budget that pays for every
/// run of the grid runs the grid instead, and says so.
fn search(args: &RunArgs, sweep: &declare::Sweep, options: RunOptions) -> Result<RunOptions, CommandError> {
    let declared = sweep.search.or(args.budget.map(|budget| declare::SearchConfig { budget, seed: None }));
    let Some(search) =
        declared.map(|search| declare::SearchConfig { budget: args.budget.unwrap_or(search.budget), ..search })
    else {
        return Ok(options);
    };
    let file = sweep.file().display();
    if options.race.is_some() || options.plan.shard.is_some() {
        let what = if options.race.is_some() { "a race (--until-decided)" } else { "--shard" };
        return Err(CommandError::BadInput(format!("{file}: a search cannot run as {what}: it races its own rounds")));
    }
    let reps = options.plan.reps.unwrap_or(sweep.reps.count);
    let settings = runner::plan_sweep(sweep, &options)?.0.settings.len() as u64;
    let grid = settings * u64::from(reps);
    // A budget of time cannot be weighed against the grid before a run says how long runs take.
    if let Some(budget) = search.budget.runs().filter(|&budget| budget >= grid) {
        Console::Stderr.line(format_args!(
            "sweep: note: {file}: a budget of {} pays for the whole grid ({} x {reps} reps = {grid} runs): \
             running the grid instead of searching it",
            counted(budget as usize, "run"),
            counted(settings as usize, "setting")
        ));
        return Ok(options);
    }
    // The most rounds a setting may run: every run of the budget (of time: as many as a sweep may plan).
    let most = search.budget.runs().unwrap_or(u64::MAX);
    let rounds = u32::try_from(most).unwrap_or(u32::MAX).min(declare::MAX_REPS);
    let plan = PlanOptions { reps: Some(rounds), search: true, ..options.plan };
    Ok(RunOptions { plan, search: Some(search), ..options })
}

/// The options `run` and `ablate` share, checked: an ablation runs with them alone, and always builds.
pub fn execution_options(execution: &ExecutionArgs, repository: &Repository) -> Result<RunOptions, CommandError> {
    Ok(RunOptions {
        plan: PlanOptions { reps: execution.reps, seed: execution.seed, ..PlanOptions::default() },
        fail_fast: execution.fail_fast,
        out: checked_out(execution.out.as_deref(), execution.force)?,
        results_dir: execution.results_dir.clone().unwrap_or_else(|| repository.results_dir()),
        build: true,
        command_line: std::env::args().collect(),
        same_failures_limit: (!execution.keep_going).then_some(execution.max_same_failures),
        ..RunOptions::default()
    })
}

/// `--no-build` of a sweep whose settings each need their own build (build-time params or `[build]`)
/// cannot be honoured: every setting would run a binary built for another. Silently building anyway
/// ignored the flag.
fn refuse_no_build_of_per_setting_builds(args: &RunArgs, sweep: &declare::Sweep) -> Result<(), CommandError> {
    if !args.no_build || !sweep.builds_per_setting() {
        return Ok(());
    }
    let params = sweep.build_time_params();
    let why = if params.is_empty() { "its [build] section".to_string() } else { format!("`{}`", params.join("`, `")) };
    Err(CommandError::BadInput(format!(
        "{}: --no-build cannot apply: each setting is built for {why} (cached copies are reused; drop --no-build)",
        sweep.source.path.display()
    )))
}

/// The race the declaration and `--until-decided` / `--max-reps` ask for, if any.
fn race(args: &RunArgs, sweep: &declare::Sweep) -> Result<Option<Race>, CommandError> {
    // A resumed race carries on as it was started (its limits are in the sidecar).
    let resumed = args.resume.as_deref().and_then(|csv| Sidecar::read(&ResultPaths::for_csv(csv).sidecar).ok());
    if let Some(race) = resumed.and_then(|sidecar| sidecar.race).filter(|_| args.max_reps.is_none()) {
        return Ok(Some(race));
    }
    let declared = sweep.reps.race();
    if !args.until_decided && declared.is_none() {
        if args.max_reps.is_some() {
            return Err(CommandError::BadInput("--max-reps only applies to a race: add --until-decided".into()));
        }
        return Ok(None);
    }
    if sweep.reps.order != declare::RunOrder::Interleaved {
        return Err(CommandError::BadInput(format!(
            "{}: a race (--until-decided) needs `[reps] order = \"interleaved\"`",
            sweep.file().display()
        )));
    }
    let (min, declared_max) = declared.unwrap_or((declare::DEFAULT_RACE_MIN, sweep.reps.count));
    let max = args.max_reps.or(args.execution.reps).unwrap_or(declared_max);
    if max < min {
        return Err(CommandError::BadInput(format!("--max-reps {max} is below the race's minimum of {min} rounds")));
    }
    Ok(Some(Race { min, max }))
}

/// `--out X.csv` must name a new CSV whose siblings do not exist either: a sweep never overwrites a user's
/// file. With `--force` files at those names are removed first (never a folder: `X/` holds run logs).
pub fn checked_out(out: Option<&Path>, force: bool) -> Result<Option<PathBuf>, CommandError> {
    let Some(csv) = out else { return Ok(None) };
    if csv.extension().is_none_or(|extension| extension != "csv") {
        return Err(CommandError::BadInput(format!("--out {}: the result file must end in `.csv`", csv.display())));
    }
    for existing in ResultPaths::for_csv(csv).outputs().into_iter().filter(|path| path.symlink_metadata().is_ok()) {
        let folder = existing.symlink_metadata().is_ok_and(|meta| meta.is_dir());
        if !force || folder {
            let kind = if folder { "a folder (--force replaces files only)" } else { "a file (--force replaces it)" };
            return Err(CommandError::BadInput(format!(
                "--out {}: {} already exists as {kind}; a sweep never overwrites it otherwise, choose another name",
                csv.display(),
                existing.display()
            )));
        }
        std::fs::remove_file(&existing).map_err(|error| CommandError::Write { path: existing.clone(), error })?;
    }
    Ok(Some(csv.to_path_buf()))
}

/// Whether the sweep stopped on a full disk: no summary is written then (`sweep report` writes it later).
pub fn disk_full(outcome: &SweepOutcome) -> bool {
    matches!(outcome.stopped, Some(EarlyStop::DiskFull { .. }))
}

/// The race's closing line: after how many rounds it decided and the runs that saved, or what it left
/// undecided at its last round.
fn race_closing(
    table: &RunTable,
    analysis: &SweepAnalysis,
    race: Race,
    paths: &ResultPaths,
    negligible: bool,
) -> String {
    let runs = table.runs();
    let rounds = runs.iter().filter(|run| !run.warmup()).map(|run| run.rep()).max().unwrap_or(0);
    let sidecar = Sidecar::read(&paths.sidecar).ok();
    let warmup = sidecar.as_ref().map_or(0, |s| s.sweep.reps.warmup);
    let settings = sidecar.as_ref().map_or(analysis.settings.len(), |s| s.settings.len());
    let planned = settings * (race.max + warmup) as usize;
    RaceClosing { analysis, rounds, max: race.max, runs: table.len(), planned, negligible }.line()
}

/// Every file the sweep wrote, one a line (`results: CSV`, then the others that exist).
pub fn print_written(paths: &ResultPaths) {
    Console::Stderr.line(format_args!("results: {}", paths.csv.display()));
    let files = [
        ("sidecar", &paths.sidecar),
        ("summary", &paths.summary),
        ("analysis", &paths.analysis),
        ("page", &paths.html),
        ("plot", &paths.plot),
    ];
    for (what, path) in files.into_iter().filter(|(_, path)| path.is_file()) {
        Console::Stderr.line(format_args!("  {what} {}", path.display()));
    }
    Console::Stderr.line(format_args!("  logs {}", paths.logs.display()));
}

/// Says where everything is and picks the exit code: 130 interrupted, 1 if a run failed.
pub fn finish_message(outcome: &SweepOutcome) -> u8 {
    let paths = &outcome.paths;
    print_written(paths);
    let argv: Vec<String> = std::env::args().collect();
    let resume = ResumeCommand::of(&argv, &paths.csv).hint();
    match &outcome.stopped {
        Some(EarlyStop::Interrupted { signal }) => {
            Console::Stderr.line(format_args!(
                "interrupted by signal {signal}: {} kept; {resume}",
                counted(outcome.tally.recorded, "finished run")
            ));
            exit_code::INTERRUPTED as u8
        }
        Some(EarlyStop::FailFast) => {
            Console::Stderr.line("stopped at the first failed run (--fail-fast)");
            exit_code::CHECK_FAILED as u8
        }
        Some(EarlyStop::DiskFull { path, reason }) => {
            Console::Stderr.line(format_args!(
                "sweep: error: {reason}: {}: stopped; {} holds {} whole; free space, then {resume}",
                sweep::os_error::shown(path).display(),
                sweep::os_error::shown(&paths.csv).display(),
                counted(outcome.tally.recorded, "recorded run")
            ));
            exit_code::BAD_INPUT as u8
        }
        Some(EarlyStop::RepeatedFailure { runs, reason }) => {
            Console::Stderr.line(format_args!(
                "stopped: {} in a row failed the same way ({reason}); every run left would too \
                 (--keep-going runs them anyway); once it is fixed, {resume}",
                counted(*runs as usize, "run")
            ));
            exit_code::CHECK_FAILED as u8
        }
        None if outcome.tally.failed > 0 => {
            Console::Stderr.line(format_args!(
                "{} of {} failed",
                outcome.tally.failed,
                counted(outcome.tally.recorded, "run")
            ));
            exit_code::CHECK_FAILED as u8
        }
        None => exit_code::SUCCESS as u8,
    }
}
