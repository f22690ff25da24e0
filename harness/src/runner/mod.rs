//! Drives a sweep end to end: plan, build, set up, run every planned run, record as it goes.
//! (hyperfine's scheduler/executor split: `session` runs, this module decides what to run.)

mod ablation;
mod dry_run;
mod engine_build;
mod prepared_run;
mod progress;
mod runner_error;
mod session;
mod setup_env;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use ablation::{cache_root, run_ablation, Ablation, AblationOutcome};
pub use dry_run::describe_plan;
pub use prepared_run::{prepare_run, PreparedRun, VariantSite};
pub use progress::Progress;
pub use runner_error::RunnerError;
pub use session::{run_dir_name, EarlyStop, Session, Tally};
pub use setup_env::capture_setup_env;

use crate::launch::{BaseEnv, RunEvents};
use crate::plan::{Plan, PlanOptions, PlannedRun, DEFAULT_VARIANT};
use crate::record::{Columns, Provenance, ResultTable, ResultWriter, RunKey};
use crate::spec::Sweep;

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
}

/// Where a sweep's files go: `<stem>.csv`, `<stem>.json`, `<stem>.summary.md`, `<stem>.svg`,
/// `<stem>/runs/...`.
#[derive(Debug, Clone)]
pub struct ResultPaths {
    pub csv: PathBuf,
    pub sidecar: PathBuf,
    pub summary: PathBuf,
    /// The SVG plot beside the summary (written when the analysis has something to plot).
    pub plot: PathBuf,
    /// Run directories and build logs.
    pub logs: PathBuf,
}

impl ResultPaths {
    /// Absolute, because run directories and inputs are handed to ranks that run elsewhere (their
    /// working directory is the run directory).
    pub fn for_csv(csv: &Path) -> ResultPaths {
        let csv = std::path::absolute(csv).unwrap_or_else(|_| csv.to_path_buf());
        let stem = csv.with_extension("");
        ResultPaths {
            sidecar: csv.with_extension("json"),
            summary: PathBuf::from(format!("{}.summary.md", stem.display())),
            plot: PathBuf::from(format!("{}.svg", stem.display())),
            logs: stem,
            csv,
        }
    }

    /// A new `<results_dir>/<sweep>/<UTC stamp>.csv`; a second sweep started within the same second
    /// gets `<stamp>-2.csv` (and so on) instead of failing on the first one's file.
    pub fn fresh(results_dir: &Path, sweep: &str) -> ResultPaths {
        let stamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string().replace([':', '-'], "");
        let dir = results_dir.join(sweep);
        let taken = |name: &str| dir.join(format!("{name}.csv")).exists() || dir.join(name).exists();
        let name = (1..)
            .map(|n| if n == 1 { stamp.clone() } else { format!("{stamp}-{n}") })
            .find(|name| !taken(name))
            .expect("unbounded");
        ResultPaths::for_csv(&dir.join(format!("{name}.csv")))
    }
}

/// What a finished (or stopped) sweep left behind.
#[derive(Debug, Clone)]
pub struct SweepOutcome {
    pub paths: ResultPaths,
    pub tally: Tally,
    pub stopped: Option<EarlyStop>,
    /// Runs the plan had that were already in the resumed CSV.
    pub skipped: usize,
}

/// The plan of a plain sweep, and each setting's build: the engine as built in its own tree.
pub fn plan_sweep(sweep: &Sweep, options: &RunOptions) -> Result<(Plan, Vec<VariantSite>), RunnerError> {
    let mut plan_options = options.plan.clone();
    if let Some(resume) = &options.resume {
        plan_options.seed = plan_options.seed.or_else(|| recorded_seed(&ResultPaths::for_csv(resume).sidecar));
    }
    let plan = Plan::new(sweep, &[DEFAULT_VARIANT.to_string()], &plan_options)?;
    let site = VariantSite {
        name: DEFAULT_VARIANT.to_string(),
        tree: sweep.engine.tree.clone(),
        build_dir: sweep.engine.build_dir.clone(),
        hash: String::new(),
    };
    let sites = vec![site; plan.settings.len()];
    Ok((plan, sites))
}

/// Renders every run once with a stand-in run directory, so a template error stops the sweep
/// before the first run rather than in the middle.
pub fn preflight(sweep: &Sweep, plan: &Plan, sites: &[VariantSite]) -> Result<(), RunnerError> {
    let stand_in = Path::new("/nonexistent-run-dir");
    let mut seen = BTreeSet::new();
    for run in &plan.runs {
        if seen.insert(run.setting) {
            prepare_run(sweep, &plan.settings[run.setting], run.rep, &sites[run.setting], stand_in)?;
        }
    }
    Ok(())
}

/// Runs a plain sweep (`sweep run`).
pub fn run_sweep(sweep: &Sweep, options: &RunOptions, events: &RunEvents) -> Result<SweepOutcome, RunnerError> {
    let (plan, mut sites) = plan_sweep(sweep, options)?;
    preflight(sweep, &plan, &sites)?;
    // Held to the end: no in-place ablation may render or rebuild the tree under these runs.
    let _tree_lock = crate::variants::TreeLock::acquire_shared(&sweep.engine.tree)?;
    engine_build::refuse_variant_build(&sweep.engine, options.build)?;
    let paths = result_paths(sweep, options);
    let base_env = base_env(sweep)?;
    let provenance = Provenance::gather(&sweep.engine.tree, &sweep.engine.toolchain, base_env.overrides());
    let (writer, done) = open_results(sweep, &paths, options.resume.is_some(), provenance.clone())?;
    match engine_build::build_before_run(&sweep.engine, options.build, &paths.logs.join("build.log"), &base_env)? {
        None | Some(engine_build::BuildEnd::Built { .. }) => {}
        Some(engine_build::BuildEnd::Failed(error)) => return Err(RunnerError::Build(error)),
        Some(engine_build::BuildEnd::Interrupted) => {
            let stopped = events.signals.received().map(|signal| EarlyStop::Interrupted { signal });
            return Ok(SweepOutcome { paths, tally: Tally::default(), stopped, skipped: 0 });
        }
    }
    let hash = program_hash(sweep, &sites[0]);
    sites.iter_mut().for_each(|site| site.hash.clone_from(&hash));
    write_sidecar(sweep, &plan, options, &paths, (&base_env, &provenance))?;
    let todo: Vec<PlannedRun> =
        plan.runs.iter().filter(|run| !done.contains(&planned_key(&plan, run))).copied().collect();
    let skipped = plan.runs.len() - todo.len();
    let mut session = Session::new(sweep, writer, &paths, (base_env, events), todo.len(), options.fail_fast);
    if skipped > 0 {
        session.progress.note(&format!(
            "resuming {}: {skipped} runs already recorded, {} to go",
            paths.csv.display(),
            todo.len()
        ));
    }
    session.run_all(&plan, &todo, &sites)?;
    Ok(SweepOutcome { paths, tally: session.tally, stopped: session.stopped, skipped })
}

pub fn result_paths(sweep: &Sweep, options: &RunOptions) -> ResultPaths {
    match (&options.resume, &options.out) {
        (Some(csv), _) | (None, Some(csv)) => ResultPaths::for_csv(csv),
        (None, None) => ResultPaths::fresh(&options.results_dir, &sweep.name),
    }
}

/// The CSV columns of a sweep.
pub fn columns(sweep: &Sweep) -> Columns {
    Columns {
        params: sweep.params.iter().map(|param| param.name.clone()).collect(),
        metrics: sweep.metric_names(),
        toolchains: sweep.engine.toolchain.keys().cloned().collect(),
    }
}

/// Opens the result CSV (new, or the one being resumed) and lists the runs it already holds.
pub fn open_results(
    sweep: &Sweep,
    paths: &ResultPaths,
    resume: bool,
    provenance: Provenance,
) -> Result<(ResultWriter, BTreeSet<RunKey>), RunnerError> {
    if resume {
        // The writer locks the CSV first, so no other sweep appends between this read and our rows.
        let writer = ResultWriter::append(&paths.csv, columns(sweep), provenance)?;
        Ok((writer, ResultTable::read(&paths.csv)?.recorded_runs()))
    } else {
        Ok((ResultWriter::create(&paths.csv, columns(sweep), provenance)?, BTreeSet::new()))
    }
}

/// The resume key a planned run will have once recorded.
pub fn planned_key(plan: &Plan, run: &PlannedRun) -> RunKey {
    let setting = &plan.settings[run.setting];
    (setting.value_texts(), setting.variant.clone(), run.rep, run.warmup)
}

/// The environment ranks start from: captured from the setup script, or inherited.
pub fn base_env(sweep: &Sweep) -> Result<BaseEnv, RunnerError> {
    match &sweep.engine.setup {
        Some(script) => Ok(BaseEnv::Exactly(capture_setup_env(script, &sweep.engine.tree)?)),
        None => Ok(BaseEnv::Inherit),
    }
}

/// A short content hash of the engine binary, so rows say exactly which build produced them.
fn program_hash(sweep: &Sweep, site: &VariantSite) -> String {
    crate::launch::program_path(&sweep.engine, &site.tree, &site.build_dir)
        .ok()
        .and_then(|program| std::fs::read(program).ok())
        .map(|bytes| crate::variants::sha256_hex(&bytes)[..16].to_string())
        .unwrap_or_default()
}

/// The seed a resumed sweep was planned with, so its order carries on unchanged.
fn recorded_seed(sidecar: &Path) -> Option<u64> {
    crate::record::read_sidecar(sidecar).ok()?.get("seed")?.as_u64()
}

/// The sidecar: resolved declaration and engine, command line, run environment, seed, versions.
pub fn write_sidecar(
    sweep: &Sweep,
    plan: &Plan,
    options: &RunOptions,
    paths: &ResultPaths,
    (base_env, provenance): (&BaseEnv, &Provenance),
) -> Result<(), RunnerError> {
    let environment = match base_env {
        BaseEnv::Inherit => serde_json::Value::String("inherited".into()),
        BaseEnv::Exactly(vars) => vars.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect(),
    };
    let sidecar = serde_json::json!({
        "sweep": sweep.decl,
        "declaration_file": sweep.file(),
        "engine": sweep.engine,
        "command_line": options.command_line,
        "seed": plan.seed,
        "reps": plan.reps,
        "settings": plan.settings.iter().map(|s| s.label()).collect::<Vec<_>>(),
        "base_environment": environment,
        "provenance": provenance,
        "sweep_version": env!("CARGO_PKG_VERSION"),
    });
    crate::record::write_sidecar(&paths.sidecar, &sidecar)?;
    Ok(())
}
