//! `sweep submit`: a sweep as a Slurm array job. Task i runs `sweep run SPEC --shard i/N` into
//! `<results-dir>/<sweep>/<stamp>/shard-i.csv`; `sweep merge` on that folder joins the shards. A search
//! runs here, in the foreground, each of its rounds an array job whose rows it merges as they land.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Parser;

use sweep::confined_dir::ConfinedDir;
use sweep::console::Console;
use sweep::declare::Sweep;
use sweep::exit_code;
use sweep::launch::{self, ArrayJob};
use sweep::plan::PlanOptions;
use sweep::plural::counted;
use sweep::record::{utc_stamp, ResultPaths};
use sweep::runner::{self, RunOptions, SlurmRounds};

use crate::args::{Cli, Command, SubmitArgs};
use crate::exit_status::CommandError;
use crate::run_command::repository;

pub fn submit(args: SubmitArgs) -> Result<u8, CommandError> {
    let sweep = crate::check_command::load_sweep(&args.spec)?;
    if sweep.search.is_some() || args.budget.is_some() {
        return submit_search(&args, &sweep);
    }
    if let Some(csv) = &args.resume {
        return Err(CommandError::BadInput(format!(
            "--resume {}: only a search (`[search]`) is resumed by `sweep submit`; a shard is completed by \
             `sweep run SPEC --shard I/N --resume` its CSV",
            csv.display()
        )));
    }
    let seed = args.seed.or(sweep.reps.seed).unwrap_or_else(rand::random);
    check_shardable(&args, &sweep, seed)?;
    let absolute = |path: &Path| std::path::absolute(path).map_err(|error| write_error(path, error));
    let results_dir = absolute(&args.results_dir.clone().unwrap_or_else(|| repository().results_dir()))?;
    // The folder a `sweep run` of this second would log into, claimed the same way (`create_dir`), so
    // submissions and runs in one second, from any host sharing the file system, never share one.
    let results = if args.dry_run {
        ResultPaths::stamped(&results_dir, &sweep.name, &utc_stamp(), 1).logs
    } else {
        ResultPaths::fresh(&results_dir, &sweep.name).map_err(|error| write_error(&results_dir, error))?.logs
    };
    let job = ArrayJob {
        name: format!("sweep-{}", sweep.name),
        tasks: args.shards,
        workdir: absolute(Path::new("."))?,
        results: results.clone(),
        run_argv: run_argv(&args, &sweep, &absolute(&args.spec)?, seed)?,
        listed: false,
        sbatch_args: args.sbatch_args.clone(),
    };
    if args.dry_run {
        Console::Stdout.write(job.script());
        return Ok(exit_code::SUCCESS as u8);
    }
    let script = results.join("submit.sbatch");
    // In the folder just claimed, opened from its handle: nothing planted there since is written through.
    ConfinedDir::open(&results)
        .and_then(|folder| folder.create_new(&script))
        .and_then(|mut file| file.write_all(job.script().as_bytes()))
        .map_err(|error| write_error(&script, error))?;
    let job_id = launch::sbatch(&script)?;
    Console::Stdout.line(&job_id);
    Console::Stderr.line(format_args!(
        "submitted array job {job_id}: {} writing {}/shard-<i>.csv",
        counted(args.shards as usize, "task"),
        results.display()
    ));
    let merge = sweep::shell_line::sweep_command(&["merge".to_string(), results.display().to_string()]);
    Console::Stderr.line(format_args!("when every task has ended: {merge}"));
    Ok(exit_code::SUCCESS as u8)
}

/// A search on Slurm: this process is the search's driver, in the foreground as `sweep run` (it chooses
/// each round from the rows of the ones before: nothing else could), and each round is an array job whose
/// tasks run `sweep run --runs-file` of the runs dealt to them (`SlurmRounds`); their rows land in the
/// search's one CSV when the job has ended. It ends as `sweep run` does: summary, analysis, exit code.
fn submit_search(args: &SubmitArgs, sweep: &Sweep) -> Result<u8, CommandError> {
    refuse_unbuilt_engine(&args.spec, sweep)?;
    if args.shards == 0 {
        return Err(CommandError::BadInput("--shards 0: a round's array job needs at least 1 task".into()));
    }
    let absolute = |path: &Path| std::path::absolute(path).map_err(|error| write_error(path, error));
    let results_dir = absolute(&args.results_dir.clone().unwrap_or_else(|| repository().results_dir()))?;
    let spec = absolute(&args.spec)?;
    let mut search = vec!["run".to_string(), spec.display().to_string()];
    search.extend(["--results-dir".to_string(), results_dir.display().to_string()]);
    for (option, value) in [("--seed", args.seed), ("--reps", args.reps.map(u64::from)), ("--budget", args.budget)] {
        search.extend(value.map(|value| [option.to_string(), value.to_string()]).into_iter().flatten());
    }
    let exe = std::env::current_exe().map_err(|error| write_error(Path::new("sweep"), error))?;
    // Tasks add nothing to the history (the search's CSV is the result) and build only a search's
    // build-time tuples, in the shared cache.
    let mut run_argv: Vec<String> = std::iter::once(exe.display().to_string()).chain(search.clone()).collect();
    run_argv.push("--no-history".to_string());
    if !sweep.builds_per_setting() {
        run_argv.push("--no-build".to_string());
    }
    let on_slurm = SlurmRounds {
        name: format!("sweep-{}", sweep.name),
        tasks: args.shards,
        workdir: absolute(Path::new("."))?,
        run_argv,
        sbatch_args: args.sbatch_args.clone(),
    };
    let resume = args.resume.iter().flat_map(|csv| ["--resume".to_string(), csv.display().to_string()]);
    let dry_run = args.dry_run.then(|| "--dry-run".to_string());
    let argv = std::iter::once("sweep".to_string()).chain(search).chain(resume).chain(dry_run);
    match Cli::try_parse_from(argv).map(|cli| cli.command) {
        Ok(Command::Run(run_args)) => crate::run_command::run_on(run_args, Some(on_slurm)),
        // Paths that do not read as text (`display` spelt them lossily) are all that can fail here.
        _ => Err(CommandError::BadInput(format!(
            "{}: its search's options do not read as `sweep run` options: give paths as UTF-8",
            args.spec.display()
        ))),
    }
}

/// Refuses what shards cannot run: a race (its rounds depend on each other), more shards than reps (a
/// shard with no rep), an unbuilt engine, and any template error, which would otherwise fail every task.
fn check_shardable(args: &SubmitArgs, sweep: &Sweep, seed: u64) -> Result<(), CommandError> {
    let file = args.spec.display();
    if sweep.reps.race().is_some() {
        return Err(CommandError::BadInput(format!("{file}: a race (`[reps] until`) cannot be split into shards")));
    }
    let reps = args.reps.unwrap_or(sweep.reps.count);
    if args.shards == 0 || args.shards > reps {
        return Err(CommandError::BadInput(format!(
            "--shards {}: each shard runs every setting's reps i, i+N, ...: give 1 to {reps} (the reps)",
            args.shards
        )));
    }
    let options = RunOptions {
        plan: PlanOptions { reps: args.reps, seed: Some(seed), ..PlanOptions::default() },
        ..RunOptions::default()
    };
    let (plan, sites) = runner::plan_sweep(sweep, &options)?;
    runner::preflight(sweep, &plan, &sites)?;
    refuse_unbuilt_engine(&args.spec, sweep)
}

/// The array tasks run with `--no-build` (N tasks must not build one tree at once; a build-time sweep's
/// tasks build each tuple in the shared cache instead, one claimant per entry): the engine must be built.
fn refuse_unbuilt_engine(spec: &Path, sweep: &Sweep) -> Result<(), CommandError> {
    let file = spec.display();
    let program = launch::program_path(&sweep.engine, &sweep.engine.tree, &sweep.engine.build_dir)
        .map_err(|error| CommandError::BadInput(format!("{file}: engine program: {error}")))?;
    if !sweep.builds_per_setting() && !Path::new(&program).is_file() {
        let build = sweep::shell_line::sweep_command(&["run".into(), file.to_string(), "--reps".into(), "1".into()]);
        return Err(CommandError::BadInput(format!(
            "{program}: the engine is not built; the array tasks run with --no-build, so build it first \
             (`{build}`, or the profile's build command)"
        )));
    }
    Ok(())
}

/// `sweep run SPEC` with what every shard must share: the seed (one order), the reps, and no build of
/// the engine's own tree (a build-time sweep's shards build in the cache, which they share safely).
fn run_argv(args: &SubmitArgs, sweep: &Sweep, spec: &Path, seed: u64) -> Result<Vec<String>, CommandError> {
    let exe = std::env::current_exe().map_err(|error| write_error(Path::new("sweep"), error))?;
    let mut argv = vec![exe.display().to_string(), "run".into(), spec.display().to_string()];
    argv.extend(["--seed".to_string(), seed.to_string()]);
    if !sweep.builds_per_setting() {
        argv.push("--no-build".to_string());
    }
    if let Some(reps) = args.reps {
        argv.extend(["--reps".to_string(), reps.to_string()]);
    }
    Ok(argv)
}

fn write_error(path: &Path, source: std::io::Error) -> CommandError {
    CommandError::Write { path: PathBuf::from(path), error: source }
}
