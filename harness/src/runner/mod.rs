//! Drives a sweep end to end: plan, build, set up, run every planned run, record as it goes; and a
//! bisection of the engine's commits, built and run the same way.
//! (hyperfine's scheduler/executor split: `session` runs, this module decides what to run.)

mod ablation;
mod bisect_outcome;
mod bisect_session;
mod commit_range;
mod driver;
mod dry_run;
mod ends_gap;
mod failure_watch;
mod grid_driver;
mod lazy_builds;
mod listed_runs;
mod origin;
mod prepared_run;
mod progress;
mod race_driver;
mod runner_error;
mod search_driver;
mod session;
mod slurm_rounds;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use ablation::{run_ablation, Ablation, AblationOutcome};
pub use bisect_outcome::BisectOutcome;
pub use bisect_session::BisectSession;
pub use commit_range::CommitRange;
pub use dry_run::describe_plan;
pub use ends_gap::EndsGap;
pub use failure_watch::EarlyStop;
pub use origin::{Origin, SettingOrigins};
use prepared_run::prepare_run;
pub use progress::Progress;
pub use runner_error::RunnerError;
use session::Session;
pub use session::Tally;
pub use slurm_rounds::SlurmRounds;

use crate::console::Console;
use crate::declare::{CheckTest, Race, SearchConfig, Sweep};
use crate::launch::{head_commit, RunEvents};
use crate::plan::{Plan, PlanOptions, Setting, DEFAULT_VARIANT};
use crate::rebuild::{self, VariantSite};
use crate::record::{
    utc_stamp, Columns, EngineChange, EngineFingerprint, PlacementColumns, RecordError, RecordedAttempts,
    RecordedEnvironment, ResultPaths, ResultWriter, Sidecar, SweepFingerprint, SIDECAR_SCHEMA_VERSION,
};

/// How `sweep run` was asked to run, already checked.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub plan: PlanOptions,
    pub fail_fast: bool,
    /// Complete this partial CSV instead of starting a new one.
    pub resume: Option<PathBuf>,
    /// Write the CSV here instead of `<results_dir>/<name>/<stamp>.csv`.
    pub out: Option<PathBuf>,
    pub results_dir: PathBuf,
    /// Run the profile's build command first.
    pub build: bool,
    /// The command line, for the sidecar.
    pub command_line: Vec<String>,
    /// Run round by round until every group is decided (`[reps] until = "decided"`, `--until-decided`).
    pub race: Option<Race>,
    /// Of a resumed CSV, keep failed runs as recorded instead of running them again (`--no-retry-failed`).
    pub keep_failed: bool,
    /// Resume a CSV whose rows come from another engine, recording the change (`--accept-engine-change`).
    pub accept_engine_change: bool,
    /// Stop after this many consecutive runs failed the same way (`None`: never, `--keep-going`).
    pub same_failures_limit: Option<u32>,
    /// Search the settings under this budget instead of running them all (`[search]`, `--budget`).
    pub search: Option<SearchConfig>,
    /// Run only the runs this file lists (`ListedRuns`: an array task of a search's round).
    pub runs_file: Option<PathBuf>,
    /// Run each batch (a search's round) as a Slurm array job rather than here (`sweep submit`).
    pub on_slurm: Option<SlurmRounds>,
}

impl RunOptions {
    /// The search asked for, its seed resolved: the declared one, else the plan's (recorded in the
    /// sidecar either way, so a resume replays the same draws).
    pub fn search_of(&self, plan: &Plan) -> Option<SearchConfig> {
        self.search.map(|search| SearchConfig { seed: Some(search.seed.unwrap_or(plan.seed)), ..search })
    }

    /// Whether planning draws a fresh seed: none on the command line, in the sweep, or in a resumed sidecar.
    pub fn draws_seed(&self, sweep: &Sweep) -> bool {
        self.plan.seed.is_none() && sweep.reps.seed.is_none() && self.resume.is_none()
    }
}

/// What every stage of one invocation shares.
pub(crate) struct Context<'a> {
    pub(crate) sweep: &'a Sweep,
    pub(crate) options: &'a RunOptions,
    pub(crate) paths: ResultPaths,
    /// Host, engine commit and toolchain versions, gathered once: the versions also key the build cache.
    pub(crate) origin: Origin,
    pub(crate) events: &'a RunEvents,
}

impl Context<'_> {
    /// The sweep's folder of run directories and build logs (see `ResultPaths::log_folder`).
    pub(crate) fn log_folder(&self) -> Result<crate::confined_dir::ConfinedDir, RunnerError> {
        self.paths.log_folder().map_err(RunnerError::io(&self.paths.logs))
    }
}

/// What a finished (or stopped) sweep left behind.
#[derive(Debug, Clone)]
pub struct SweepOutcome {
    pub paths: ResultPaths,
    pub tally: Tally,
    pub stopped: Option<EarlyStop>,
}

/// The plan of a plain sweep, and each setting's build: the engine as built in its own tree.
pub fn plan_sweep(sweep: &Sweep, options: &RunOptions) -> Result<(Plan, Vec<VariantSite>), RunnerError> {
    let mut plan_options = options.plan.clone();
    if let Some(resume) = &options.resume {
        let recorded = check_resume(sweep, resume, options.accept_engine_change)?;
        plan_options.seed = plan_options.seed.or(Some(recorded.seed));
    }
    let plan = Plan::new(sweep, &[DEFAULT_VARIANT.to_string()], &plan_options)?;
    // A sweep with build-time params builds each tuple in a cache entry of its own.
    let site = VariantSite::planned(sweep, &options.results_dir, DEFAULT_VARIANT, sweep.builds_per_setting());
    let sites = vec![site; plan.settings.len()];
    Ok((plan, sites))
}

/// Renders every setting's first run once with a stand-in run directory, so a template error stops the
/// sweep before the first run rather than in the middle. Settings render independently, on every core
/// (100,000 settings check in under a second); the error reported is the first in plan order.
pub fn preflight(sweep: &Sweep, plan: &Plan, sites: &[VariantSite]) -> Result<(), RunnerError> {
    use rayon::prelude::*;
    let checked: Vec<Result<(), RunnerError>> =
        plan.settings.par_iter().zip(sites).map(|(setting, site)| preflight_run(sweep, setting, 1, site)).collect();
    checked.into_iter().collect()
}

fn preflight_run(sweep: &Sweep, setting: &Setting, rep: u32, site: &VariantSite) -> Result<(), RunnerError> {
    let prepared = prepare_run(sweep, setting, rep, site, Path::new("/nonexistent-run-dir"), None)?;
    check_expectations(sweep, &prepared.context)?;
    origin::setup_for(sweep, setting)?;
    Ok(())
}

/// Every `[[checks]]` `equals` template renders to a number in the run's context: an unknown variable or
/// a text would fail every run's check.
fn check_expectations(sweep: &Sweep, context: &serde_json::Value) -> Result<(), RunnerError> {
    for (index, check) in sweep.checks.iter().enumerate() {
        let CheckTest::Metric { equals, .. } = &check.test else { continue };
        let key = format!("checks[{index}].equals");
        let rendered = equals
            .render(context)
            .map_err(|error| sweep.source.error_at(&key, format!("`{equals}` does not render: {error}")))?;
        if rendered.trim().parse::<f64>().is_err() {
            let message = format!("`{equals}` renders to `{rendered}`, not a number to compare with");
            return Err(sweep.source.error_at(&key, message).into());
        }
    }
    Ok(())
}

/// Runs a plain sweep (`sweep run`).
pub fn run_sweep(sweep: &Sweep, options: &RunOptions, events: &RunEvents) -> Result<SweepOutcome, RunnerError> {
    // Rounds on Slurm build in their tasks, each tuple once in the shared cache: nothing is built here.
    if sweep.builds_per_setting() && options.on_slurm.is_none() {
        return ablation::run_build_time(sweep, options, events);
    }
    let (plan, mut sites) = plan_sweep(sweep, options)?;
    preflight(sweep, &plan, &sites)?;
    // Held to the end: no in-place ablation may render or rebuild the tree under these runs.
    let _tree_lock = crate::variants::TreeLock::acquire_shared(&sweep.engine.tree)?;
    rebuild::refuse_variant_build(&sweep.engine, options.build)?;
    let paths = result_paths(sweep, options, false)?;
    let origin = Origin::gather(sweep, &plan.settings[0])?;
    let origins = SettingOrigins::gather(sweep, &plan.settings)?;
    let context = Context { sweep, options, paths, origin, events };
    let (writer, recorded) = open_results(&plan, &context)?;
    let log = context.paths.logs.join("build.log");
    let logs = context.log_folder()?;
    let base_env = &context.origin.base_env;
    let built = rebuild::build_before_run(&sweep.engine, DEFAULT_VARIANT, options.build, (&logs, &log), base_env)?;
    if let Some(Err(error)) = built {
        // Interrupted, or the disk is full: stopped before any run; any other failure is an error.
        let stopped = match error {
            rebuild::BuildError::Interrupted { .. } => {
                events.signals.received().map(|signal| EarlyStop::Interrupted { signal })
            }
            error => Some(failure_watch::disk_full_at(&sweep.engine.build_dir).ok_or(RunnerError::Build(error))?),
        };
        return Ok(SweepOutcome { paths: context.paths, tally: Tally::default(), stopped });
    }
    let hash = program_hash(sweep, &sites[0]);
    sites.iter_mut().for_each(|site| site.hash.clone_from(&hash));
    write_sidecar(&plan, &context)?;
    let (mut session, todo) = Session::start(&plan, &sites, &context, writer, recorded, &plan.runs)?;
    session.origins = origins;
    session.run_race(&todo, options.race)?;
    Ok(session.finish())
}

/// Where a sweep's results go; a fresh stamp is claimed on disk, except for a dry run (which writes nothing).
pub fn result_paths(sweep: &Sweep, options: &RunOptions, dry_run: bool) -> Result<ResultPaths, RunnerError> {
    match (&options.resume, &options.out) {
        (Some(csv), _) | (None, Some(csv)) => Ok(ResultPaths::for_csv(csv)),
        (None, None) if dry_run => Ok(ResultPaths::stamped(&options.results_dir, &sweep.name, &utc_stamp(), 1)),
        (None, None) => {
            ResultPaths::fresh(&options.results_dir, &sweep.name).map_err(RunnerError::io(&options.results_dir))
        }
    }
}

/// The CSV columns of a sweep.
pub fn columns(sweep: &Sweep) -> Columns {
    Columns {
        params: sweep.recorded_params(),
        metrics: sweep.metric_names(),
        toolchains: sweep.engine.toolchain.keys().cloned().collect(),
        placement: PlacementColumns::Neutral,
        attempt: true,
    }
}

/// Opens the result CSV (new, or the one being resumed) and says what it already holds of each run of
/// `plan`.
fn open_results(plan: &Plan, context: &Context<'_>) -> Result<(ResultWriter, RecordedAttempts), RunnerError> {
    let (sweep, paths, provenance) = (context.sweep, &context.paths, context.origin.provenance.clone());
    if context.options.resume.is_some() {
        // The writer checks and locks the CSV (and cuts a torn last row) first, so no other sweep appends
        // between this read and our rows.
        let (writer, existing) =
            ResultWriter::append(&paths.csv, columns(sweep), provenance, &SweepFingerprint::of(sweep))?;
        if let Some(torn) = writer.torn() {
            Console::Stderr.line(format_args!(
                "{}:{}: the last row was cut off (no line end): dropped, its run will run again; its bytes are in {}",
                paths.csv.display(),
                torn.line,
                torn.kept.display()
            ));
        }
        Ok((writer, existing.recorded_attempts(&plan.settings)))
    } else {
        Ok((ResultWriter::create(&paths.csv, columns(sweep), provenance)?, RecordedAttempts::default()))
    }
}

/// Checks, reading only, that `csv` can be resumed by `sweep` (its sidecar names this sweep and its
/// engine, unless `accept_engine_change`; its rows read) and returns its sidecar: done before anything is
/// built or written.
pub fn check_resume(sweep: &Sweep, csv: &Path, accept_engine_change: bool) -> Result<Sidecar, RunnerError> {
    ResultWriter::check_resumable(csv, &columns(sweep), &SweepFingerprint::of(sweep))?;
    let paths = ResultPaths::for_csv(csv);
    let mismatch = |reason: String| RunnerError::from(RecordError::ResumeMismatch { path: csv.to_path_buf(), reason });
    // Run directories go under these: a link planted there would send them (and the runs' files) elsewhere.
    for dir in [paths.logs.clone(), paths.logs.join("runs")] {
        if let Some(reason) = crate::variants::directory_refusal(&dir) {
            return Err(mismatch(format!("{reason}; its run directories must be real folders beside it")));
        }
    }
    let sidecar = Sidecar::read(&paths.sidecar)?;
    match engine_change(&sidecar, sweep) {
        Some(change) if !accept_engine_change => Err(mismatch(format!(
            "its rows come from another engine ({change}); --accept-engine-change adds this engine's rows to \
             them, recorded in its sidecar and shown in its summary"
        ))),
        _ => Ok(sidecar),
    }
}

/// How `sweep`'s engine differs from the one a resumed CSV's rows come from, if its sidecar says and
/// they differ.
fn engine_change(recorded: &Sidecar, sweep: &Sweep) -> Option<String> {
    recorded
        .engine_fingerprint
        .as_ref()?
        .difference(&EngineFingerprint::of(&sweep.engine, head_commit(&sweep.engine.tree)))
}

/// A short content hash of the engine binary, so rows say exactly which build produced them.
fn program_hash(sweep: &Sweep, site: &VariantSite) -> String {
    crate::launch::program_path(&sweep.engine, &site.tree, &site.build_dir)
        .ok()
        .and_then(|program| std::fs::read(program).ok())
        .map(|bytes| crate::ground::sha256_hex(&bytes)[..16].to_string())
        .unwrap_or_default()
}

/// The sidecar: resolved declaration and engine, command line, run environment, seed, versions.
fn write_sidecar(plan: &Plan, context: &Context<'_>) -> Result<(), RunnerError> {
    let (sweep, options, paths, origin) = (context.sweep, context.options, &context.paths, &context.origin);
    let mut settings: Vec<String> = plan.settings.iter().map(|s| s.label()).collect();
    let mut reps = plan.reps;
    let engine = EngineFingerprint::of(&sweep.engine, head_commit(&sweep.engine.tree));
    let (mut engine_changes, mut search_builds) = (Vec::new(), Vec::new());
    // A resumed CSV keeps every row it holds inside its sidecar's grid, whatever `--filter` or `--reps`
    // this invocation gives, the engines its rows come from and the builds its search caused.
    if let Some(recorded) = options.resume.as_ref().and_then(|_| Sidecar::read(&paths.sidecar).ok()) {
        let planned: BTreeSet<String> = settings.iter().cloned().collect();
        settings = recorded.settings.into_iter().filter(|label| !planned.contains(label)).chain(settings).collect();
        reps = reps.max(recorded.reps);
        engine_changes = recorded.engine_changes;
        search_builds = recorded.search_builds;
        // `check_resume` let it through: accepted.
        engine_changes.extend(recorded.engine_fingerprint.and_then(|previous| {
            Some(EngineChange { at: utc_stamp(), change: previous.difference(&engine)?, previous })
        }));
    }
    let sidecar = Sidecar {
        schema_version: SIDECAR_SCHEMA_VERSION,
        sweep: sweep.recorded.clone(),
        declaration_file: sweep.file().clone(),
        engine: serde_json::to_value(&sweep.engine).unwrap_or_default(),
        command_line: options.command_line.clone(),
        seed: plan.seed,
        reps,
        settings,
        params: sweep.params.clone(),
        base_environment: RecordedEnvironment::of(&origin.base_env),
        provenance: origin.provenance.clone(),
        sweep_version: env!("CARGO_PKG_VERSION").to_string(),
        race: options.race,
        search: options.search_of(plan),
        search_builds,
        fingerprint: Some(SweepFingerprint::of(sweep)),
        engine_fingerprint: Some(engine),
        engine_changes,
    };
    sidecar.write(&paths.sidecar)?;
    Ok(())
}
