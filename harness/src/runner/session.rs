//! Runs planned runs one at a time: prepare the run directory, start the ranks, extract, record.
//! Every finished run is on disk before the next one starts. Runs may share one service instance
//! (`reuse_across`); a `Driver` chooses them batch by batch (the grid at once, a race round by round).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::driver::Driver;
use super::failure_watch::{disk_full_of, EarlyStop, FailureWatch, NotRun};
use super::grid_driver::GridDriver;
use super::lazy_builds::LazyBuilds;
use super::listed_runs::ListedRuns;
use super::origin::SettingOrigins;
use super::prepared_run::{prepare_run, PreparedRun};
use super::progress::Progress;
use super::race_driver::RaceDriver;
use super::runner_error::RunnerError;
use super::search_driver::SearchDriver;
use super::slurm_rounds::SlurmRounds;
use super::{Context, SweepOutcome};
use crate::confined_dir::ConfinedDir;
use crate::declare::{Race, Sweep};
use crate::extract::{self, RunLogs};
use crate::ground::{first_failure_line, BaseEnv, RunStatus};
use crate::launch::{self, Execution, Limits, RankCommand, StopReason};
use crate::plan::{labels_joined, Plan, PlannedRun, Setting};
use crate::plural::counted;
use crate::rebuild::VariantSite;
use crate::record::{RecordedAttempts, ResultWriter, RunRow, RunTable, LOGS_IN, METRIC_PREFIX};
use crate::report::MetricUnits;

/// Counts of what a session recorded.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    pub recorded: usize,
    pub failed: usize,
}

/// The state shared by every run of one invocation.
pub struct Session<'a> {
    pub sweep: &'a Sweep,
    pub plan: &'a Plan,
    /// Each setting's build of the engine (`sites[setting]`).
    pub sites: &'a [VariantSite],
    pub context: &'a Context<'a>,
    pub writer: ResultWriter,
    /// `<stamp>/`: the runs' folder and build logs, reached without following a link.
    pub logs: ConfinedDir,
    /// `<stamp>/runs`: one directory per attempt of a run, kept with its logs.
    pub runs: ConfinedDir,
    pub progress: Progress,
    pub tally: Tally,
    pub stopped: Option<EarlyStop>,
    /// Per setting, the environment and toolchain its runs start from, when the setup script is
    /// chosen by a param; None: every run starts from the context's origin.
    pub origins: Option<SettingOrigins>,
    /// What a resumed CSV already holds of each run: the attempt each new row records.
    pub attempts: RecordedAttempts,
    /// Faults across runs that end the sweep or a setting early.
    pub watch: FailureWatch,
    /// The unit each progress line gives the primary metric's value in.
    pub units: MetricUnits,
    /// What a driver that reads the results reads: every run the CSV holds, read once when driving
    /// starts and grown by each row as it is written.
    results: Option<RunTable>,
    /// A search's builds, made as its batches need them (none: every build was made before the runs).
    pub lazy_builds: Option<LazyBuilds<'a>>,
    /// The metrics of the last run recorded, or why it failed (a bisection reads each run's value).
    pub last: Option<Result<BTreeMap<String, f64>, String>>,
}

/// What a row records of one run besides its setting.
struct Outcome {
    metrics: BTreeMap<String, f64>,
    status: RunStatus,
    error: String,
    started: std::time::SystemTime,
    duration: std::time::Duration,
}

impl Outcome {
    /// What a row written elsewhere (an array task's, cells by column name) says of its run; a cell that
    /// does not read (an unknown status) counts as a failure, as no number counts as no metric.
    fn of_cells(cells: &BTreeMap<String, String>) -> Outcome {
        let cell = |name: &str| cells.get(name).map_or("", String::as_str);
        let metrics = cells.iter().filter_map(|(column, value)| {
            Some((column.strip_prefix(METRIC_PREFIX)?.to_string(), value.parse::<f64>().ok()?))
        });
        Outcome {
            metrics: metrics.collect(),
            status: cell("status").parse().unwrap_or(RunStatus::Failed),
            error: cell("error").to_string(),
            started: humantime::parse_rfc3339(cell("started_at")).unwrap_or_else(|_| std::time::SystemTime::now()),
            duration: std::time::Duration::try_from_secs_f64(cell("duration_s").parse().unwrap_or(0.0))
                .unwrap_or_default(),
        }
    }
}

impl<'a> Session<'a> {
    /// A session recording into `writer`, with run directories under `<logs>/runs`, that will run those
    /// of `runs` not in `recorded` (what a resumed CSV holds; nothing for a new one), which it returns.
    pub fn start(
        plan: &'a Plan,
        sites: &'a [VariantSite],
        context: &'a Context<'a>,
        writer: ResultWriter,
        recorded: RecordedAttempts,
        runs: &[PlannedRun],
    ) -> Result<(Session<'a>, Vec<PlannedRun>), RunnerError> {
        let logs = context.log_folder()?;
        let runs_root = context.paths.logs.join("runs");
        let runs_folder = logs.create_dir_all(&runs_root).map_err(RunnerError::io(&runs_root))?;
        // Those not recorded, and (unless `--no-retry-failed`) those whose every recorded attempt failed.
        let retry_failed = !context.options.keep_failed;
        let todo: Vec<PlannedRun> = runs.iter().filter(|run| recorded.needs_run(run, retry_failed)).copied().collect();
        let progress = Progress::new(todo.len());
        if !plan.fixed.is_empty() {
            progress.note(&format!("Fixed: {}", labels_joined(&plan.fixed, ", ")));
        }
        let again = todo.iter().filter(|run| recorded.failed(run)).count();
        let done = plan.runs.len() - todo.len();
        if done > 0 || again > 0 {
            let again =
                if again > 0 { format!(", {} to run again", counted(again, "failed run")) } else { String::new() };
            progress.note(&format!(
                "resuming {}: {} already recorded{again}, {} to go",
                writer.path().display(),
                counted(done, "run"),
                todo.len()
            ));
        }
        if recorded.without_attempts {
            progress.note("its failed runs are kept: the CSV was written before runs recorded their attempt");
        }
        let session = Session {
            sweep: context.sweep,
            plan,
            sites,
            context,
            writer,
            logs,
            runs: runs_folder,
            progress,
            tally: Tally::default(),
            stopped: None,
            origins: None,
            attempts: recorded,
            watch: FailureWatch::new(context.options.same_failures_limit),
            units: MetricUnits::declared(&context.sweep.metrics),
            results: None,
            last: None,
            lazy_builds: None,
        };
        Ok((session, todo))
    }

    /// What the session left behind.
    pub fn finish(self) -> SweepOutcome {
        SweepOutcome { paths: self.context.paths.clone(), tally: self.tally, stopped: self.stopped }
    }

    /// Runs `runs` of the plan, each on its setting's build; stops early on a signal,
    /// `--fail-fast`, a full disk or runs failing alike (`FailureWatch`). A setting whose service was not
    /// ready has its remaining runs recorded failed at once.
    pub fn run_all(&mut self, runs: &[PlannedRun]) -> Result<(), RunnerError> {
        let runs = grouped(self.sweep, self.plan, runs);
        let mut rest = &runs[..];
        while !rest.is_empty() {
            if let Some(signal) = self.context.events.signals.received() {
                self.stopped = Some(EarlyStop::Interrupted { signal });
            }
            if self.stopped.is_some() {
                return Ok(());
            }
            let done =
                match (self.watch.not_run(rest[0].setting.index()).cloned(), shared_len(self.sweep, self.plan, rest)) {
                    (Some(not_run), _) => self.record_not_run(&rest[0], &not_run).map(|()| 1),
                    (None, 1) => self.run_one(&rest[0]).map(|()| 1),
                    (None, shared) => self.run_shared(&rest[..shared]),
                };
            match done {
                Ok(done) => rest = &rest[done..],
                Err(error) => match disk_full_of(&error) {
                    // What is recorded stays whole; the run whose files could not be written runs again on resume.
                    Some(stop) => self.stopped = Some(stop),
                    None => return Err(error),
                },
            }
        }
        Ok(())
    }

    fn run_one(&mut self, run: &PlannedRun) -> Result<(), RunnerError> {
        let (prepared, folder) = self.prepare(run, None)?;
        self.progress.starting(&self.label(run));
        let execution = self.execute(&prepared, &folder, self.base_env_of(run));
        self.record(run, &prepared, execution)
    }

    /// Runs beside one service instance, started in the first run's directory; a run whose service
    /// failed ends the group early. Returns how many runs were run (or interrupted).
    fn run_shared(&mut self, runs: &[PlannedRun]) -> Result<usize, RunnerError> {
        let first = self.prepare(&runs[0], None)?;
        let port = first.0.context.get(crate::declare::PORT_NAME).cloned();
        let mut prepared = vec![first];
        for run in &runs[1..] {
            let beside = self.prepare(run, port.as_ref())?;
            link_instance_logs(&prepared[0].0, &beside)?;
            prepared.push(beside);
        }
        let batches: Vec<(&[RankCommand], &ConfinedDir)> =
            prepared.iter().map(|(p, folder)| (p.commands.as_slice(), folder)).collect();
        let limits = Limits { timeout: self.sweep.engine.timeout, grace: self.sweep.engine.grace };
        let mut recorded = Ok(());
        let base_env = self.base_env_of(&runs[0]).clone();
        self.progress.starting(&self.label(&runs[0]));
        let done =
            launch::execute_shared(&prepared[0].0.services, &batches, &base_env, limits, &mut |index, execution| {
                recorded = self.record(&runs[index], &prepared[index].0, execution);
                if let Some(next) = runs.get(index + 1) {
                    self.progress.starting(&self.label(next));
                }
                recorded.is_ok() && self.stopped.is_none()
            });
        // Settings served by an instance that was never ready share its verdict.
        for run in &runs[1..] {
            self.watch.share_not_ready(runs[0].setting.index(), run.setting.index());
        }
        // Runs the instance did not get to are prepared afresh (beside a new instance) later.
        for (unrun, _) in &prepared[done..] {
            self.runs.remove_all(&unrun.run_dir).map_err(RunnerError::io(&unrun.run_dir))?;
        }
        recorded.map(|()| done)
    }

    /// Everything the run will execute, and its attempt's folder, made anew with the run's inputs in it.
    /// A folder already at its name was left by an attempt interrupted before it was recorded (no row
    /// points to it), or planted: it is replaced, and a link there is removed, never followed.
    fn prepare(
        &mut self,
        run: &PlannedRun,
        instance_port: Option<&serde_json::Value>,
    ) -> Result<(PreparedRun, ConfinedDir), RunnerError> {
        let (setting, site) = (self.setting(run), &self.sites[run.setting.index()]);
        let name = run_dir_name(run, &self.plan.varying(setting).slug(), self.attempts.next_attempt(run));
        let run_dir = self.runs.path().join(name);
        let prepared = prepare_run(self.sweep, setting, run.rep, site, &run_dir, instance_port)?;
        let folder = self.runs.fresh_dir(&run_dir).map_err(RunnerError::io(&run_dir))?;
        for (path, text) in &prepared.inputs {
            let written = folder.create_new(path).and_then(|mut file| file.write_all(text.as_bytes()));
            written.map_err(RunnerError::io(path))?;
        }
        Ok((prepared, folder))
    }

    fn setting(&self, run: &PlannedRun) -> &'a Setting {
        &self.plan.settings[run.setting.index()]
    }

    /// `slices=4 rows=512`: the run's setting by what varies across the grid (the rest is said once).
    fn label(&self, run: &PlannedRun) -> String {
        self.plan.varying(self.setting(run)).label()
    }

    fn base_env_of(&self, run: &PlannedRun) -> &BaseEnv {
        let origin = self.origins.as_ref().map(|origins| origins.of(run.setting.index()));
        origin.map_or(&self.context.origin.base_env, |o| &o.base_env)
    }

    /// Records a finished run (an interrupted one is only noted), and whether the session stops.
    fn record(&mut self, run: &PlannedRun, prepared: &PreparedRun, execution: Execution) -> Result<(), RunnerError> {
        let setting = self.setting(run);
        let run_dir = &prepared.run_dir;
        if let StopReason::Interrupted { signal } = execution.reason {
            self.stopped = Some(EarlyStop::Interrupted { signal });
            let label = self.label(run);
            self.progress.note(&format!("interrupted during run {} ({label}); it is not recorded", run.order));
            return Ok(());
        }
        let outcome = self.outcome(&execution, prepared, setting);
        self.write_row(run, &outcome, run_dir)?;
        if let Some(stop) = self.watch.after_run(run.setting.index(), &execution.reason, &outcome.error, run_dir) {
            self.stopped.get_or_insert(stop);
        }
        Ok(())
    }

    /// Records a run of a setting whose service was never ready (or whose build failed) as failed without
    /// running it: it would only wait out the readiness limit again (or have no program).
    fn record_not_run(&mut self, run: &PlannedRun, not_run: &NotRun) -> Result<(), RunnerError> {
        let outcome = Outcome {
            metrics: BTreeMap::new(),
            status: RunStatus::Failed,
            error: format!("not run: {}{LOGS_IN}{}", not_run.why, not_run.logs.display()),
            started: std::time::SystemTime::now(),
            duration: std::time::Duration::ZERO,
        };
        self.write_row(run, &outcome, &not_run.logs)
    }

    /// Writes the row of `run` (durably), counts it and says so; `--fail-fast` stops at a failure.
    fn write_row(&mut self, run: &PlannedRun, outcome: &Outcome, log_dir: &Path) -> Result<(), RunnerError> {
        let (setting, variant) = (self.setting(run), &self.sites[run.setting.index()]);
        let origin = self.origins.as_ref().map(|origins| origins.of(run.setting.index()));
        self.writer.write(&RunRow {
            param_values: setting.value_texts(),
            variant: &variant.name,
            rep: run.rep,
            attempt: self.attempts.next_attempt(run),
            warmup: run.warmup,
            order: run.order,
            status: outcome.status,
            error: outcome.error.clone(),
            started_at: humantime::format_rfc3339_millis(outcome.started).to_string(),
            duration_s: outcome.duration.as_secs_f64(),
            metrics: &outcome.metrics,
            variant_hash: &variant.hash,
            log_dir,
            toolchain: origin.map(|o| &o.provenance.toolchain),
        })?;
        self.count_row(run, outcome)
    }

    /// Counts the row of `run` just written and says so; `--fail-fast` stops at a failure.
    fn count_row(&mut self, run: &PlannedRun, outcome: &Outcome) -> Result<(), RunnerError> {
        if let Some(table) = &mut self.results {
            table.push_written(self.writer.last_row())?;
        }
        self.tally.recorded += 1;
        let ok = outcome.status == RunStatus::Ok;
        self.last = Some(if ok { Ok(outcome.metrics.clone()) } else { Err(outcome.error.clone()) });
        let primary = &self.sweep.analysis.primary;
        let detail = match outcome.metrics.get(primary) {
            _ if !outcome.error.is_empty() => format!(": {}", outcome.error),
            Some(value) => format!(": {primary}={}", self.units.in_unit(&value.to_string(), primary)),
            None => String::new(),
        };
        self.progress.finished(&progress_label(&self.label(run), run), outcome.status, outcome.duration, &detail);
        if outcome.status != RunStatus::Ok {
            self.tally.failed += 1;
            if self.context.options.fail_fast {
                self.stopped = Some(EarlyStop::FailFast);
            }
        }
        Ok(())
    }

    /// The metrics, status and error of a finished run: a run that exited cleanly can still fail on
    /// a missing metric or a check; one that did not records why, and where its logs are.
    fn outcome(&self, execution: &Execution, prepared: &PreparedRun, setting: &Setting) -> Outcome {
        let (metrics, status, error) = match &execution.reason {
            StopReason::Succeeded => match self.extract(prepared, setting) {
                Ok(metrics) => (metrics, RunStatus::Ok, String::new()),
                Err(error) => (BTreeMap::new(), RunStatus::Failed, error.to_string()),
            },
            reason => (BTreeMap::new(), reason.status(), failure_text(reason, prepared)),
        };
        Outcome { metrics, status, error, started: execution.started, duration: execution.duration }
    }

    /// Pre-run commands, then the services and the ranks, all under the run's timeout, in its `folder`.
    fn execute(&self, prepared: &PreparedRun, folder: &ConfinedDir, base_env: &BaseEnv) -> Execution {
        let limits = Limits { timeout: self.sweep.engine.timeout, grace: self.sweep.engine.grace };
        for command in &prepared.pre_run {
            let execution = launch::execute(std::slice::from_ref(command), folder.path(), folder, base_env, limits);
            if execution.reason != StopReason::Succeeded {
                return execution;
            }
        }
        launch::execute_served(&prepared.services, &prepared.commands, folder, base_env, limits)
    }

    fn extract(
        &self,
        prepared: &PreparedRun,
        setting: &Setting,
    ) -> Result<BTreeMap<String, f64>, extract::ExtractError> {
        let engine = &self.sweep.engine;
        let rank_logs: Vec<PathBuf> = prepared.commands.iter().map(|command| command.log.clone()).collect();
        let result_log = prepared
            .commands
            .iter()
            .find(|command| command.rank.is_none_or(|rank| rank == engine.result.rank))
            .map_or_else(|| prepared.run_dir.join("output.log"), |command| command.log.clone());
        let service_logs =
            prepared.services.iter().map(|service| (service.name.clone(), service.command.log.clone())).collect();
        let logs = RunLogs { result_log, rank_logs, service_logs };
        let output = extract::EngineOutput { result: &engine.result, profile_prefix: engine.profile_prefix.as_deref() };
        let metrics = extract::extract_metrics(&self.sweep.metrics, output, &logs, &setting.context())?;
        extract::apply_checks(&self.sweep.checks, &metrics, &prepared.context)?;
        Ok(metrics)
    }
}

/// `tp-engine: invalid value '0' for --rows (rank 1 exited with code 2); logs in <run dir>`: the
/// failing process's own first error line leads, so identical failures read (and group) alike.
fn failure_text(reason: &StopReason, prepared: &PreparedRun) -> String {
    let logs = format!("{LOGS_IN}{}", prepared.run_dir.display());
    let (StopReason::Failed { rank, .. } | StopReason::Signalled { rank, .. }) = reason else {
        return format!("{reason}{logs}");
    };
    let failing = prepared.pre_run.iter().chain(&prepared.commands).filter(|command| command.rank == *rank);
    match failing.into_iter().find_map(|command| first_failure_line(&command.log)) {
        Some(line) => format!("{line} ({reason}){logs}"),
        None => format!("{reason}{logs}"),
    }
}

/// `service-<name>.log` in a run served by an instance started for an earlier run: a link to that
/// instance's log, which records which instance served it.
fn link_instance_logs(instance: &PreparedRun, (run, folder): &(PreparedRun, ConfinedDir)) -> Result<(), RunnerError> {
    for service in &instance.services {
        let link = run.run_dir.join(service.command.log.file_name().unwrap_or_default());
        folder.symlink(&service.command.log, &link).map_err(RunnerError::io(&link))?;
    }
    Ok(())
}

/// Longest setting part of a run directory's name: file names stop at 255 bytes, and a dozen params
/// spelt out pass that (every run then failed with "file name too long").
const MAX_SLUG_BYTES: usize = 160;

/// `0007-slices=4_rows=512-rep2`: sortable by order, readable by setting; a failed run run again is
/// `...-rep2-attempt2`, so each attempt keeps its own logs. A setting too long to spell out keeps its
/// first part and a digest of the whole, so two settings never share a folder.
pub fn run_dir_name(run: &PlannedRun, slug: &str, attempt: u32) -> String {
    let warmup = if run.warmup { "-warmup" } else { "" };
    let slug = if slug.len() <= MAX_SLUG_BYTES {
        slug.to_string()
    } else {
        let cut = (0..=MAX_SLUG_BYTES).rev().find(|&at| slug.is_char_boundary(at)).unwrap_or(0);
        let digest = crate::ground::sha256_hex(slug.as_bytes());
        format!("{}~{}", &slug[..cut], &digest[..12])
    };
    let attempt = if attempt > 1 { format!("-attempt{attempt}") } else { String::new() };
    format!("{:04}-{slug}-rep{}{warmup}{attempt}", run.order, run.rep)
}

/// `slices=4 rows=512, rep 2 (warmup)` for progress lines.
fn progress_label(label: &str, run: &PlannedRun) -> String {
    let separator = if label.is_empty() { "" } else { "," };
    let warmup = if run.warmup { " (warmup)" } else { "" };
    format!("{label}{separator} rep {}{warmup}", run.rep)
}

/// The run limits as a sentence, for dry runs.
pub fn limits_text(sweep: &Sweep) -> String {
    let engine = &sweep.engine;
    format!(
        "timeout {} per run (then SIGTERM to every process group, {} grace, SIGKILL)",
        humantime::format_duration(engine.timeout),
        humantime::format_duration(engine.grace)
    )
}

/// What one service instance can serve: the round and every setting value but the reused params.
type InstanceKey = (u32, bool, String, Vec<String>);

/// The params services are reused across; empty when every run starts its own.
fn reused(sweep: &Sweep) -> BTreeSet<&str> {
    sweep.run.service.iter().flat_map(|service| service.reuse_across.iter().map(String::as_str)).collect()
}

fn instance_key(plan: &Plan, run: &PlannedRun, reused: &BTreeSet<&str>) -> InstanceKey {
    let setting = &plan.settings[run.setting.index()];
    let values = setting
        .values
        .iter()
        .zip(setting.value_texts())
        .filter(|((name, _), _)| !reused.contains(name.as_str()))
        .map(|(_, text)| text)
        .collect();
    (run.rep, run.warmup, setting.variant.clone(), values)
}

/// `runs` with the runs of one round that can share an instance next to each other, renumbered. Runs
/// share one instance of their services (`reuse_across`) when they are of one round and their settings
/// differ only in the reused params. The round's order of first appearance is kept, so every setting
/// still runs once per round and interleaving holds; the run order numbers follow the new order.
pub fn grouped(sweep: &Sweep, plan: &Plan, runs: &[PlannedRun]) -> Vec<PlannedRun> {
    let reused = reused(sweep);
    if reused.is_empty() {
        return runs.to_vec();
    }
    let mut out = Vec::with_capacity(runs.len());
    for round in runs.chunk_by(|a, b| (a.rep, a.warmup) == (b.rep, b.warmup)) {
        let mut first_seen: BTreeMap<InstanceKey, usize> = BTreeMap::new();
        let mut slotted: Vec<(usize, PlannedRun)> = round
            .iter()
            .map(|run| {
                let next = first_seen.len();
                (*first_seen.entry(instance_key(plan, run, &reused)).or_insert(next), *run)
            })
            .collect();
        slotted.sort_by_key(|(slot, _)| *slot);
        let orders = round.iter().map(|run| run.order);
        out.extend(slotted.into_iter().zip(orders).map(|((_, run), order)| PlannedRun { order, ..run }));
    }
    out
}

/// How many of the leading `runs` one service instance serves (1 without `reuse_across`).
pub fn shared_len(sweep: &Sweep, plan: &Plan, runs: &[PlannedRun]) -> usize {
    let reused = reused(sweep);
    let Some(first) = runs.first() else { return 0 };
    if reused.is_empty() {
        return 1;
    }
    let key = instance_key(plan, first, &reused);
    runs.iter().take_while(|run| instance_key(plan, run, &reused) == key).count()
}

impl Session<'_> {
    /// Runs `todo`: all at once without a race (`GridDriver`), else round by round (`RaceDriver`); a
    /// search's rounds are chosen as results land (`SearchDriver`). An array task of a search's round
    /// runs the runs its file lists (`--runs-file`), and only those.
    pub fn run_race(&mut self, todo: &[PlannedRun], race: Option<Race>) -> Result<(), RunnerError> {
        if let Some(file) = &self.context.options.runs_file {
            let listed = ListedRuns::read(file)?.resolve(self.plan, file)?;
            self.progress = Progress::new(listed.len());
            return self.drive(&mut GridDriver::new(&listed));
        }
        if let Some(search) = self.context.options.search_of(self.plan) {
            self.progress = Progress::new(search.budget.runs().unwrap_or_default() as usize);
            let builds = SearchDriver::recorded_builds(&self.context.paths.sidecar, &self.plan.settings)?;
            return self.drive(&mut SearchDriver::new(&self.plan.settings, &self.sweep.analysis, &search, &builds));
        }
        match race {
            None => self.drive(&mut GridDriver::new(todo)),
            Some(race) => self.drive(&mut RaceDriver::new(todo, race, &self.sweep.analysis, &self.plan.settings)),
        }
    }

    /// Runs the batches `driver` hands over until it is done or the session stops. A driver that reads
    /// the results gets the CSV read once, after the sidecar (whose grid numbers the settings as every
    /// later read would) was written, then grown by each row as it is written.
    pub fn drive(&mut self, driver: &mut dyn Driver) -> Result<(), RunnerError> {
        self.results = if driver.reads_results() { Some(RunTable::read(self.writer.path())?) } else { None };
        while self.stopped.is_none() {
            let Some(batch) = driver.next_batch(self.results.as_ref(), &self.progress) else { break };
            if let Some(slurm) = &self.context.options.on_slurm {
                // As in `run_all`: what is recorded stays whole, and a resume runs the rest.
                if let Err(error) = self.run_on_slurm(slurm, &batch) {
                    self.stopped = Some(disk_full_of(&error).ok_or(error)?);
                }
                continue;
            }
            if let Some(builds) = self.lazy_builds.as_mut() {
                driver.built(&builds.build_for(&batch, &mut self.watch, &self.progress)?);
            }
            self.run_all(&batch)?;
        }
        Ok(())
    }

    /// Runs `batch` as one Slurm array job (`SlurmRounds`) and records each run as its task recorded it,
    /// or failed, naming its task and Slurm output, when the task ended without it. A round that recorded
    /// no run at all stops the session as runs failing alike do (nodes that cannot run a task would fail
    /// every round); a signal stops it before the next round is submitted.
    fn run_on_slurm(&mut self, slurm: &SlurmRounds, batch: &[PlannedRun]) -> Result<(), RunnerError> {
        if let Some(signal) = self.context.events.signals.received() {
            self.stopped = Some(EarlyStop::Interrupted { signal });
            return Ok(());
        }
        let landed = slurm.run(batch, self.plan, &self.logs, self.writer.path(), &self.progress)?;
        let lost = landed.iter().find_map(|landed| landed.as_ref().err()).cloned();
        let all_lost = landed.iter().all(Result::is_err);
        for (run, landed) in batch.iter().zip(landed) {
            match landed {
                Ok(cells) => self.record_copied(run, &cells)?,
                Err(not_run) => self.record_not_run(run, &not_run)?,
            }
        }
        if let Some(signal) = self.context.events.signals.received() {
            self.stopped = Some(EarlyStop::Interrupted { signal });
        }
        if let Some(lost) = lost.filter(|_| all_lost && self.context.options.same_failures_limit.is_some()) {
            let runs = u32::try_from(batch.len()).unwrap_or(u32::MAX);
            self.stopped.get_or_insert(EarlyStop::RepeatedFailure { runs, reason: lost.why });
        }
        Ok(())
    }

    /// Records `run` as the row its array task wrote (its own host, placement and logs), with the attempt
    /// this CSV counts.
    fn record_copied(&mut self, run: &PlannedRun, cells: &BTreeMap<String, String>) -> Result<(), RunnerError> {
        self.writer.write_copied(cells, self.attempts.next_attempt(run))?;
        self.count_row(run, &Outcome::of_cells(cells))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanOptions;

    /// With a dozen params spelt out, every run failed with "file name too long" (255 bytes).
    #[test]
    fn a_setting_too_long_to_spell_out_still_names_a_folder_of_its_own() {
        let run = PlannedRun { order: 7, setting: crate::plan::SettingId::new(0), rep: 2, warmup: false };
        let long = |last: &str| format!("{}{last}", "parameter_name=some_long_value_".repeat(12));
        let (a, b) = (run_dir_name(&run, &long("a"), 1), run_dir_name(&run, &long("b"), 1));
        assert!(a.len() < 200, "{}", a.len());
        assert_ne!(a, b);
        assert!(a.starts_with("0007-parameter_name=some_long_value_") && a.ends_with("-rep2"), "{a}");
        assert_eq!(run_dir_name(&run, "slices=4_rows=512", 1), "0007-slices=4_rows=512-rep2");
    }

    /// The main job's run folders embedded every param (~120 characters): now only what varies.
    #[test]
    fn the_main_jobs_run_folder_names_are_short_and_unique_across_the_grid() {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sweeps/slices.toml");
        let sweep = crate::declare::load_sweep(&file).unwrap();
        let plan = Plan::new(&sweep, &["default".to_string()], &PlanOptions::default()).unwrap();
        let names: BTreeSet<String> = plan
            .runs
            .iter()
            .map(|run| run_dir_name(run, &plan.varying(&plan.settings[run.setting.index()]).slug(), 1))
            .collect();
        assert_eq!(names.len(), plan.runs.len(), "one folder per run");
        let longest = names.iter().max_by_key(|name| name.len()).unwrap();
        assert!(longest.len() < 40, "{longest}");
        let what_varies =
            |name: &&String| name.contains("-slices=") && name.contains("_rows=") && !name.contains("new=");
        assert!(names.iter().all(|name| what_varies(&name)), "{names:?}");
        let settings: BTreeSet<String> = plan.settings.iter().map(|setting| plan.varying(setting).slug()).collect();
        assert_eq!(settings.len(), plan.settings.len(), "unique across the grid");
    }

    /// An array task's row, copied into a search's CSV, is counted and shown as the task recorded it.
    #[test]
    fn a_row_written_elsewhere_reads_as_the_outcome_it_records() {
        let cells = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(column, cell)| (column.to_string(), cell.to_string())).collect()
        };
        let ok = Outcome::of_cells(&cells(&[
            ("status", "ok"),
            ("duration_s", "1.500000"),
            ("started_at", "2026-12-05T00:20:28.836Z"),
            ("metric.value", "900.1"),
            ("metric.empty", ""),
            ("param.value", "3"),
        ]));
        assert_eq!((ok.status, ok.duration.as_millis()), (RunStatus::Ok, 1500));
        assert_eq!(ok.metrics, BTreeMap::from([("value".to_string(), 900.1)]));
        assert_eq!(humantime::format_rfc3339_millis(ok.started).to_string(), "2026-12-05T00:20:28.836Z");
        let odd = Outcome::of_cells(&cells(&[("status", "lost"), ("error", "e"), ("duration_s", "-1")]));
        assert_eq!((odd.status, odd.error.as_str(), odd.duration), (RunStatus::Failed, "e", std::time::Duration::ZERO));
    }

    #[test]
    fn each_attempt_of_a_run_has_a_folder_of_its_own() {
        let run = PlannedRun { order: 7, setting: crate::plan::SettingId::new(0), rep: 2, warmup: true };
        assert_eq!(run_dir_name(&run, "mode=flaky", 1), "0007-mode=flaky-rep2-warmup");
        assert_eq!(run_dir_name(&run, "mode=flaky", 3), "0007-mode=flaky-rep2-warmup-attempt3");
    }

    fn served_sweep(reuse: &str) -> (tempfile::TempDir, Sweep) {
        let dir = tempfile::tempdir().unwrap();
        let profile = "tree = \".\"\nprogram = \"sh\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"10s\"\n[result]\nprefix = \"r\"\n";
        std::fs::create_dir_all(dir.path().join("engines")).unwrap();
        std::fs::write(dir.path().join("engines/client.toml"), profile).unwrap();
        let sweep = format!(
            "name = \"s\"\n[engine]\nprofile = \"client\"\n[params]\nmode = [\"off\", \"all\", \"prefill\"]\n\
             concurrency = [1, 4, 16]\n[reps]\ncount = 3\nseed = 5\n[[run.service]]\nname = \"server\"\n\
             program = \"server\"\nready = {{ tcp = \"127.0.0.1:1\" }}\nreuse_across = {reuse}\n\
             [metrics]\nresult = [\"t\"]\n[analysis]\nprimary = \"t\"\n"
        );
        let path = dir.path().join("s.toml");
        std::fs::write(&path, sweep).unwrap();
        let sweep = crate::declare::load_sweep(&path).unwrap();
        (dir, sweep)
    }

    #[test]
    fn runs_sharing_an_instance_are_made_consecutive_within_each_round_and_renumbered() {
        let (_dir, sweep) = served_sweep("[\"concurrency\"]");
        let plan = Plan::new(&sweep, &["default".to_string()], &PlanOptions::default()).unwrap();
        let runs = grouped(&sweep, &plan, &plan.runs);
        let orders: Vec<usize> = runs.iter().map(|run| run.order).collect();
        assert_eq!(orders, plan.runs.iter().map(|run| run.order).collect::<Vec<_>>(), "orders follow the new order");
        let mut rest = &runs[..];
        let mut instances = 0;
        while !rest.is_empty() {
            let shared = shared_len(&sweep, &plan, rest);
            assert_eq!(shared, 3, "one instance per mode serves its three concurrency levels");
            let group = &rest[..shared];
            assert!(group.iter().all(|run| run.rep == group[0].rep));
            let modes: BTreeSet<String> =
                group.iter().map(|run| plan.settings[run.setting.index()].values[0].1.to_string()).collect();
            assert_eq!(modes.len(), 1);
            rest = &rest[shared..];
            instances += 1;
        }
        assert_eq!(instances, 3 * 3, "three modes in each of three rounds");
        for round in runs.chunks(9) {
            let settings: BTreeSet<usize> = round.iter().map(|run| run.setting.index()).collect();
            assert_eq!(settings.len(), 9, "every setting still runs once per round");
        }
    }

    #[test]
    fn without_reuse_every_run_has_its_own_instance_in_the_planned_order() {
        let (_dir, sweep) = served_sweep("[]");
        let plan = Plan::new(&sweep, &["default".to_string()], &PlanOptions::default()).unwrap();
        assert_eq!(grouped(&sweep, &plan, &plan.runs), plan.runs);
        assert_eq!(shared_len(&sweep, &plan, &plan.runs), 1);
    }
}
