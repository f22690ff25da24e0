//! `BisectSession`: `sweep bisect`: the first bad commit of the engine's git history between a good and
//! a bad one. Each commit the bisection needs is built in the build cache (`rebuild::CommitBuild`) and
//! run through the same session as `sweep run` (one setting, one "variant" a commit, every run a row
//! of a CSV with its logs beside it); `history::bisect` decides each probe from the runs.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::bisect_outcome::BisectOutcome;
use super::commit_range::CommitRange;
use super::ends_gap::EndsGap;
use super::failure_watch::EarlyStop;
use super::origin::Origin;
use super::progress::Progress;
use super::runner_error::RunnerError;
use super::session::Session;
use super::{columns, preflight, Context, RunOptions};
use crate::declare::Sweep;
use crate::history::{bisect, most_runs, Bisection, Probe};
use crate::launch::RunEvents;
use crate::plan::{Plan, PlanOptions, PlannedRun, Setting, SettingId, DEFAULT_VARIANT};
use crate::rebuild::{cache_root, BuildCache, BuildError, BuildStatus, CommitBuild, VariantSite};
use crate::record::{RecordedAttempts, ResultPaths, ResultWriter};

/// What `sweep bisect` was asked, already checked by the command line.
#[derive(Debug, Clone)]
pub struct BisectSession {
    pub good: String,
    pub bad: String,
    /// The chance, at most, that the bisection names a wrong commit while every probe is decided.
    pub error_rate: f64,
    /// `KEY=VALUE` filters that must leave exactly one setting.
    pub filters: Vec<String>,
    /// The metric bisected; default: the declaration's primary.
    pub metric: Option<String>,
    pub results_dir: PathBuf,
}

impl BisectSession {
    /// Bisects `sweep`'s one setting between the two commits; refuses (before anything is built) a
    /// declaration of more than one setting, an unknown metric, an engine tree outside git and commits
    /// that do not form a first-parent line.
    pub fn run(&self, sweep: &Sweep, events: &RunEvents) -> Result<BisectOutcome, RunnerError> {
        let metric = self.metric(sweep)?;
        let setting = self.setting(sweep)?;
        let range = CommitRange::resolve(&sweep.engine.tree, &self.good, &self.bad)?;
        let origin = Origin::gather(sweep, &setting)?;
        let results = self.results_dir.join(&sweep.name);
        let paths = ResultPaths::fresh(&results, "bisect").map_err(RunnerError::io(&results))?;
        let options = RunOptions { results_dir: self.results_dir.clone(), build: true, ..RunOptions::default() };
        let context = Context { sweep, options: &options, paths, origin, events };
        let cache = BuildCache::new(cache_root(&self.results_dir, sweep));
        let toolchain = super::ablation::toolchain_id(&context.origin);
        let repository = (range.repository.as_path(), range.prefix.as_str());
        let origin = (toolchain.as_str(), &context.origin.base_env);
        let builder = CommitBuild::new(sweep, &setting.context(), repository, &cache, origin);
        let mut plan = commit_plan(&setting, &range);
        let sites: Vec<VariantSite> = (0..range.shas.len())
            .map(|index| builder.site(&range.shas[index], range.short(index)))
            .collect::<Result<_, _>>()?;
        preflight(sweep, &plan, &sites)?;
        // The bisection chooses every run as it goes: none is planned ahead.
        plan.runs.clear();
        // Each run and each probe decided reach the session in turn, never at once.
        let bisecting = RefCell::new(Bisecting {
            session: start_session(&plan, &sites, &context)?,
            builder: &builder,
            range: &range,
            metric: &metric,
            runs_of: vec![0; range.shas.len()],
            built: BTreeMap::new(),
            probes: 0,
        });
        let bisection = bisect(
            range.shas.len(),
            self.error_rate,
            &mut |commit| bisecting.borrow_mut().run(commit),
            &mut |probe| bisecting.borrow_mut().decided(probe),
        )?;
        bisecting.into_inner().finish(bisection, self.error_rate)
    }

    /// The metric bisected: `--metric`, else the declaration's primary.
    fn metric(&self, sweep: &Sweep) -> Result<String, RunnerError> {
        let metric = self.metric.clone().unwrap_or_else(|| sweep.analysis.primary.clone());
        let known = sweep.metric_names();
        if !known.contains(&metric) {
            let file = sweep.file().display().to_string();
            return Err(RunnerError::UnknownMetric { file, metric, known: known.join(", ") });
        }
        Ok(metric)
    }

    /// The one setting the filters leave.
    fn setting(&self, sweep: &Sweep) -> Result<Setting, RunnerError> {
        let options =
            PlanOptions { reps: Some(1), filters: self.filters.clone(), seed: Some(0), ..PlanOptions::default() };
        let mut plan = Plan::new(sweep, &[DEFAULT_VARIANT.to_string()], &options)?;
        if plan.settings.len() != 1 {
            let file = sweep.file().display().to_string();
            return Err(RunnerError::SettingCount { file, settings: plan.settings.len() });
        }
        Ok(plan.settings.remove(0))
    }
}

/// A session recording into a new CSV, running nothing until asked: its progress counts up to the most
/// runs the bisection can take.
fn start_session<'a>(
    plan: &'a Plan,
    sites: &'a [VariantSite],
    context: &'a Context<'a>,
) -> Result<Session<'a>, RunnerError> {
    let (sweep, origin) = (context.sweep, &context.origin);
    let writer = ResultWriter::create(&context.paths.csv, columns(sweep), origin.provenance.clone())?;
    let (mut session, _) = Session::start(plan, sites, context, writer, RecordedAttempts::default(), &[])?;
    session.progress = Progress::new(most_runs(plan.settings.len()));
    Ok(session)
}

/// The setting once a commit, each its own "variant" named by its short SHA (its rows' `variant`
/// column), every param fixed (progress lines and run folders name only the commit); one run of each
/// planned, for the preflight to render.
fn commit_plan(setting: &Setting, range: &CommitRange) -> Plan {
    let settings: Vec<Setting> = (0..range.shas.len())
        .map(|index| Setting { values: setting.values.clone(), variant: range.short(index).to_string() })
        .collect();
    let runs = (0..settings.len())
        .map(|index| PlannedRun { order: index + 1, setting: SettingId::new(index), rep: 1, warmup: false })
        .collect();
    Plan { settings, runs, seed: 0, reps: 1, fixed: setting.values.clone() }
}

/// The bisection's runs as they happen: each commit built (once) before its first run, each run one
/// row of the session.
struct Bisecting<'a> {
    session: Session<'a>,
    builder: &'a CommitBuild<'a>,
    range: &'a CommitRange,
    metric: &'a str,
    /// Per commit (by index), the runs it had so far: the next one's `rep`.
    runs_of: Vec<u32>,
    /// Each commit used so far: whether this bisection built it (else it was in the cache).
    built: BTreeMap<usize, bool>,
    /// Probes decided so far.
    probes: usize,
}

impl Bisecting<'_> {
    /// One run of `commit` (built first, and warmed up, when this bisection has not yet used it): the
    /// metric's value.
    fn run(&mut self, commit: usize) -> Result<f64, RunnerError> {
        self.build(commit)?;
        self.runs_of[commit] += 1;
        let metrics = self.run_once(commit, self.runs_of[commit], false)?;
        let failed = |reason: String| RunnerError::CommitRunFailed { commit: self.range.short(commit).into(), reason };
        match metrics.get(self.metric) {
            Some(&value) if value.is_finite() && value > 0.0 => Ok(value),
            Some(value) => {
                Err(failed(format!("{} = {value}: a bisection compares logs, it needs values above 0", self.metric)))
            }
            None => Err(failed(format!("it printed no {}", self.metric))),
        }
    }

    /// Runs `commit` once as its `rep` (or warmup), recorded as a row: its metrics, or why it failed.
    fn run_once(&mut self, commit: usize, rep: u32, warmup: bool) -> Result<BTreeMap<String, f64>, RunnerError> {
        let order = self.session.tally.recorded + 1;
        self.session.run_all(&[PlannedRun { order, setting: SettingId::new(commit), rep, warmup }])?;
        let failed = |reason: String| RunnerError::CommitRunFailed { commit: self.range.short(commit).into(), reason };
        match self.session.stopped.take() {
            Some(EarlyStop::Interrupted { signal }) => return Err(RunnerError::Interrupted { signal }),
            Some(EarlyStop::DiskFull { path, reason }) => return Err(failed(format!("{reason}: {}", path.display()))),
            // Neither `--fail-fast` nor a limit of failures alike is set: a failed run is reported below.
            Some(EarlyStop::FailFast | EarlyStop::RepeatedFailure { .. }) | None => {}
        }
        self.session.last.take().unwrap_or_else(|| Err("nothing was recorded".to_string())).map_err(failed)
    }

    /// Says a probe was decided: `probe 2: commit 0123456789ab bad after 6 rounds (position +0.47, decided)`.
    fn decided(&mut self, probe: &Probe) {
        self.probes += 1;
        let verdict = if probe.bad { "bad" } else { "good" };
        let how = if probe.decided { "decided" } else { "undecided: by its sign" };
        self.session.progress.note(&format!(
            "probe {}: commit {} {verdict} after {} rounds (position {:+.2}, {how})",
            self.probes,
            self.range.short(probe.commit),
            probe.rounds,
            probe.position
        ));
    }

    /// The outcome of `bisection`, written beside the runs' CSV.
    fn finish(self, bisection: Bisection, error_rate: f64) -> Result<BisectOutcome, RunnerError> {
        let range = self.range.clone();
        let subject = range.subject(bisection.first_bad)?;
        let ends = EndsGap::of(&bisection.gaps);
        let built_now = self.built.values().filter(|now| **now).count();
        let (metric, paths) = (self.metric.to_string(), self.session.finish().paths);
        let outcome = BisectOutcome { range, bisection, subject, ends, metric, error_rate, built_now, paths };
        outcome.write()?;
        Ok(outcome)
    }

    /// Builds `commit` (or finds it in the cache) unless this bisection already has.
    fn build(&mut self, commit: usize) -> Result<(), RunnerError> {
        if self.built.contains_key(&commit) {
            return Ok(());
        }
        let (sha, short) = (&self.range.shas[commit], self.range.short(commit));
        let progress = &self.session.progress;
        let stop = || self.session.context.events.signals.received();
        let report =
            self.builder.build(sha, short, &|note| progress.note(note), &stop).map_err(|error| match error {
                BuildError::Interrupted { signal, .. } => RunnerError::Interrupted { signal },
                error => error.into(),
            })?;
        let now = matches!(report.status, BuildStatus::Built { .. });
        progress.note(&format!("{} commit {short} ({})", if now { "built" } else { "cached" }, report.key));
        self.built.insert(commit, now);
        // The declared warmups of each commit's build, before its first measured run (not measured).
        for rep in 1..=self.session.sweep.reps.warmup {
            self.run_once(commit, rep, true)?;
        }
        Ok(())
    }
}
