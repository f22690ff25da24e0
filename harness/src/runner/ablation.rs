//! `sweep ablate`: every variant of a kernel template rendered, built and run, with the user's sources
//! never left changed. Copy isolation builds each variant in its own cached copy, in parallel, and
//! interleaves all variants' runs; in-place isolation renders into the real tree one variant at a time
//! under a lock and a journal that restores it on every exit path. A plain sweep with build-time params
//! runs through the copy isolation too, with nothing rendered.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::lazy_builds::LazyBuilds;
use super::origin::{Origin, SettingOrigins};
use super::progress::Progress;
use super::runner_error::RunnerError;
use super::session::Session;
use super::{open_results, plan_sweep, preflight, result_paths, write_sidecar, Context, RunOptions, SweepOutcome};
use crate::declare::{Isolation, KernelAblation, SourceDecl, Sweep, VariantName};
use crate::launch::RunEvents;
use crate::plan::{Plan, PlannedRun, Setting};
use crate::rebuild::{self, BuildCache, BuildKey, BuildReport, BuildStatus, CopyBuild, CopyBuilds, VariantSite};
use crate::variants::{self, design_variants, InPlaceSession, RenderedFile, TemplateTarget, VariantError};

/// A sweep with an `[ablation]` section, its templates resolved against the engine tree.
pub struct Ablation<'a> {
    pub sweep: &'a Sweep,
    pub declared: &'a KernelAblation,
    pub isolation: Isolation,
    pub targets: Vec<TemplateTarget>,
    pub variants: Vec<VariantName>,
}

/// What an ablation did: its runs, and what happened to each distinct build.
#[derive(Debug, Clone)]
pub struct AblationOutcome {
    pub runs: SweepOutcome,
    pub builds: Vec<BuildReport>,
    /// Wall time of the build phase (all variants), for the serial-vs-parallel comparison.
    pub build_seconds: f64,
}

impl<'a> Ablation<'a> {
    /// `None` when the sweep declares no `[ablation]`.
    pub fn new(sweep: &'a Sweep, isolation: Option<Isolation>) -> Result<Option<Ablation<'a>>, RunnerError> {
        let Some(declared) = &sweep.ablation else { return Ok(None) };
        let sweep_dir = sweep.file().parent().unwrap_or(Path::new("."));
        let error_at = |key: &str, message: String| RunnerError::Spec(sweep.source.error_at(key, message));
        let templates = declared.templates.iter().enumerate().map(|(index, template)| {
            let path = sweep_dir.join(&template.template);
            if !path.is_file() {
                let key = format!("ablation.templates[{index}].template");
                return Err(error_at(&key, format!("template `{}` does not exist", path.display())));
            }
            let target = variants::resolve_target(&sweep.engine.tree, Path::new(&template.target))?;
            let tree = sweep.engine.tree.canonicalize().unwrap_or_default();
            let relative = target.strip_prefix(tree).unwrap_or(&target).to_path_buf();
            Ok(TemplateTarget::read(std::path::absolute(&path).unwrap_or(path), relative)?)
        });
        let sources = declared.sources.iter().enumerate().map(|(index, source)| derived_target(sweep, index, source));
        let targets = templates.chain(sources).collect::<Result<Vec<_>, _>>()?;
        if declared.groups.is_empty() {
            let message = "no groups: name the instruction groups the templates can remove";
            return Err(error_at("ablation.groups", message.to_string()));
        }
        // A group no template can remove would have variants that measure nothing.
        let unremoved = declared.groups.iter().position(|group| !targets.iter().any(|target| target.mentions(group)));
        if let Some(index) = unremoved {
            let group = &declared.groups[index];
            let message =
                format!("group `{group}` has no selector in a source and no template mentions `ablate.{group}`");
            return Err(error_at(&format!("ablation.groups[{index}]"), message));
        }
        let isolation = isolation.unwrap_or(declared.isolation);
        if isolation == Isolation::InPlace && sweep.builds_per_setting() {
            let message = "in-place isolation builds in the tree itself; build-time params need `isolation = \"copy\"`";
            return Err(error_at("ablation.isolation", message.to_string()));
        }
        let variants = design_variants(&declared.groups, declared.design);
        Ok(Some(Ablation { sweep, declared, isolation, targets, variants }))
    }

    /// The sources of one setting: its variant's groups removed, its params substituted.
    fn render(&self, setting: &Setting) -> Result<Vec<RenderedFile>, VariantError> {
        let variant =
            self.variants.iter().find(|v| v.to_string() == setting.variant).expect("planned from these variants");
        self.render_ablating(variant.ablated(), &setting.context())
    }

    /// The sources with `ablated` groups removed and `params` substituted.
    pub(super) fn render_ablating(
        &self,
        ablated: &[String],
        params: &Map<String, Value>,
    ) -> Result<Vec<RenderedFile>, VariantError> {
        let context = variants::variant_context(&self.declared.groups, ablated, params);
        variants::render_variant(&self.targets, &context)
    }

    /// The plan: every variant crossed with every param setting. Every template names only declared
    /// groups and, with nothing ablated, reproduces the shipped source; templates that use sweep params
    /// are checked with the baseline's (else the first setting's) values.
    pub fn plan(&self, options: &RunOptions) -> Result<Plan, RunnerError> {
        let variants: Vec<String> = self.variants.iter().map(VariantName::to_string).collect();
        let plan = Plan::new(self.sweep, &variants, &options.plan)?;
        let baseline = plan.settings.iter().find(|s| s.variant == VariantName::BASELINE).unwrap_or(&plan.settings[0]);
        let nothing_ablated = variants::variant_context(&self.declared.groups, &[], &baseline.context());
        for target in &self.targets {
            target.check_groups(&self.declared.groups)?;
            variants::check_fresh(target, &self.sweep.engine.tree, &nothing_ablated)?;
        }
        Ok(plan)
    }

    /// The plan, and for `--dry-run` where each setting's build would live, without copying or building.
    pub fn planned_sites(&self, options: &RunOptions) -> Result<(Plan, Vec<VariantSite>), RunnerError> {
        let plan = self.plan(options)?;
        let copied = self.isolation == Isolation::Copy;
        let planned = |s: &Setting| VariantSite::planned(self.sweep, &options.results_dir, &s.variant, copied);
        let sites = plan.settings.iter().map(planned).collect();
        Ok((plan, sites))
    }
}

/// The template of a declared source, derived from its current text; a selector that picks nothing or
/// overlaps another is reported at its key in the declaration.
fn derived_target(sweep: &Sweep, index: usize, source: &SourceDecl) -> Result<TemplateTarget, RunnerError> {
    let groups: Vec<_> = source.groups.clone().into_iter().collect();
    TemplateTarget::derive(&sweep.engine.tree, Path::new(&source.target), &groups).map_err(|error| match error {
        VariantError::Selector { file, reason } => {
            let key = match reason.group() {
                Some(group) => format!("ablation.sources[{index}].groups.{group}"),
                None => format!("ablation.sources[{index}].target"),
            };
            RunnerError::Spec(sweep.source.error_at(&key, format!("{}: {reason}", file.display())))
        }
        other => other.into(),
    })
}

/// Runs an ablation end to end in its isolation mode.
pub fn run_ablation(
    ablation: &Ablation<'_>,
    options: &RunOptions,
    jobs: usize,
    events: &RunEvents,
) -> Result<AblationOutcome, RunnerError> {
    let plan = ablation.plan(options)?;
    let origin = Origin::gather(ablation.sweep, &plan.settings[0])?;
    let paths = result_paths(ablation.sweep, options, false)?;
    let context = Context { sweep: ablation.sweep, options, paths, origin, events };
    match ablation.isolation {
        Isolation::Copy => run_copies(Some(ablation), &plan, &context, jobs),
        Isolation::InPlace => run_in_place(ablation, &plan, &context),
    }
}

/// Every declared toolchain's version line: a compiler upgrade changes every variant's build key.
pub(super) fn toolchain_id(origin: &Origin) -> String {
    let versions = origin.provenance.toolchain.iter().map(|(name, version)| format!("{name}: {version}"));
    versions.collect::<Vec<_>>().join("\n")
}

/// Builds each distinct setting build in its own cached copy, in parallel, then runs every setting's
/// runs interleaved.
pub(super) fn run_copies(
    ablation: Option<&Ablation<'_>>,
    plan: &Plan,
    context: &Context<'_>,
    jobs: usize,
) -> Result<AblationOutcome, RunnerError> {
    let (sweep, options) = (context.sweep, context.options);
    // Held to the end: an in-place ablation must not render the tree while it is copied and measured.
    let _tree_lock = variants::TreeLock::acquire_shared(&sweep.engine.tree)?;
    let cache = BuildCache::new(rebuild::cache_root(&options.results_dir, sweep));
    let builds = copy_builds(ablation, plan, &cache, context)?;
    preflight(sweep, plan, &builds.sites)?;
    if options.search.is_some() {
        return run_search_copies(plan, context, builds, &cache, jobs);
    }
    let started = std::time::Instant::now();
    let progress = Progress::new(0);
    let reports = rebuild::build_all(builds.jobs, &cache, jobs, |report| progress.note(&build_line(report)))?;
    // Built, failed or interrupted: another sweep waiting for one of these entries may take it now.
    drop(builds.claims);
    drop(progress);
    let build_seconds = started.elapsed().as_secs_f64();
    let failed: Vec<BuildKey> =
        reports.iter().filter(|r| matches!(r.status, BuildStatus::Failed { .. })).map(|r| r.key).collect();
    let buildable: Vec<PlannedRun> =
        plan.runs.iter().filter(|run| !failed.contains(&builds.keys[run.setting.index()])).copied().collect();
    let (mut session, runnable) = open_session(plan, &builds.sites, context, &buildable)?;
    if !failed.is_empty() {
        let fail_fast = options.fail_fast.then_some(super::EarlyStop::FailFast);
        session.stopped = super::failure_watch::disk_full_at(&cache.root).or(fail_fast);
    }
    if let Some(signal) = context.events.signals.received() {
        session.stopped = Some(super::EarlyStop::Interrupted { signal });
    }
    session.run_race(&runnable, options.race)?;
    Ok(AblationOutcome { runs: session.finish(), builds: reports, build_seconds })
}

/// A search over build-time params: each tuple built when the search first hands out one of its settings
/// (`LazyBuilds`), its entry claimed until the search ends.
fn run_search_copies(
    plan: &Plan,
    context: &Context<'_>,
    builds: CopyBuilds,
    cache: &BuildCache,
    jobs: usize,
) -> Result<AblationOutcome, RunnerError> {
    let (mut session, _) = open_session(plan, &builds.sites, context, &[])?;
    let record = (context.paths.sidecar.clone(), plan.settings.iter().map(Setting::label).collect());
    let lazy = LazyBuilds::new((builds.jobs, builds.copies), builds.keys.clone(), cache, (jobs, build_line), record);
    session.lazy_builds = Some(lazy);
    session.run_race(&[], None)?;
    let lazy = session.lazy_builds.take().expect("set above");
    drop(builds.claims);
    Ok(AblationOutcome { runs: session.finish(), builds: lazy.reports, build_seconds: lazy.seconds })
}

/// What each setting's copy of the engine tree holds: the kernel sources `ablation` renders into it (none
/// for a sweep whose only difference is its build-time params), built by `rebuild`.
fn copy_builds(
    ablation: Option<&Ablation<'_>>,
    plan: &Plan,
    cache: &BuildCache,
    context: &Context<'_>,
) -> Result<CopyBuilds, RunnerError> {
    let sweep = context.sweep;
    let settings = plan.settings.iter().map(|setting| {
        let files = ablation.map_or_else(|| Ok(Vec::new()), |ablation| ablation.render(setting))?;
        Ok(CopyBuild::of(sweep, &setting.variant, &setting.values, &setting.context(), files))
    });
    let exclude = ablation.map(|ablation| ablation.declared.exclude.as_slice());
    let toolchain = toolchain_id(&context.origin);
    let progress = Progress::new(0);
    let (waiting, stop) = (|note: &str| progress.note(note), || context.events.signals.received());
    let origin = (toolchain.as_str(), &context.origin.base_env);
    // A search builds only the tuples it visits: their copies are made as it does.
    let deferred = context.options.search.is_some();
    Ok(CopyBuilds::prepare(sweep, settings, (exclude, deferred), cache, origin, (&waiting, &stop))?)
}

fn run_in_place(ablation: &Ablation<'_>, plan: &Plan, context: &Context<'_>) -> Result<AblationOutcome, RunnerError> {
    let sweep = ablation.sweep;
    let (options, events) = (context.options, context.events);
    let engine = &sweep.engine;
    let targets: Vec<PathBuf> = ablation.targets.iter().map(|t| t.target.clone()).collect();
    let mut in_place = InPlaceSession::begin(&engine.tree, &targets)?;
    // From the first rendering on, the build dir may hold a variant's build, until a `sweep run` rebuilds it.
    rebuild::mark_variant_builds(engine)?;
    let toolchain = toolchain_id(&context.origin);
    let rendered: Vec<Vec<RenderedFile>> =
        plan.settings.iter().map(|s| ablation.render(s)).collect::<Result<_, _>>()?;
    let build: Vec<String> = engine.build.iter().map(ToString::to_string).collect();
    let keys: Vec<BuildKey> =
        rendered.iter().map(|files| BuildKey::new(files, &build, &toolchain, "in-place")).collect();
    let site = |(s, key): (&Setting, &BuildKey)| VariantSite {
        hash: key.to_string(),
        ..VariantSite::planned(sweep, &options.results_dir, &s.variant, false)
    };
    let sites: Vec<VariantSite> = plan.settings.iter().zip(&keys).map(site).collect();
    preflight(sweep, plan, &sites)?;
    let (mut session, _) = open_session(plan, &sites, context, &plan.runs)?;
    let mut reports = Vec::new();
    let mut build_seconds = 0.0;
    for (first, key) in keys.iter().enumerate().filter(|(i, key)| keys.iter().position(|k| k == *key) == Some(*i)) {
        if let Some(signal) = events.signals.received() {
            session.stopped = Some(super::EarlyStop::Interrupted { signal });
        }
        if session.stopped.is_some() {
            break;
        }
        in_place.apply(&rendered[first])?.iter().for_each(|kept| session.progress.note(&format!("sweep: {kept}")));
        let setting = &plan.settings[first];
        let log = session.logs.path().join(format!("build-{}.log", setting.slug()));
        let logs = (&session.logs, log.as_path());
        let Some(report) = rebuild::build_in_place(engine, &setting.variant, *key, logs, &context.origin.base_env)?
        else {
            session.stopped = events.signals.received().map(|signal| super::EarlyStop::Interrupted { signal });
            break;
        };
        session.progress.note(&build_line(&report));
        if let BuildStatus::Built { seconds } = report.status {
            build_seconds += seconds;
            let runs: Vec<PlannedRun> =
                plan.runs.iter().filter(|run| keys[run.setting.index()] == *key).copied().collect();
            session.run_all(&runs)?;
        } else if let Some(full) = super::failure_watch::disk_full_at(&engine.build_dir) {
            session.stopped = Some(full);
        } else if options.fail_fast {
            session.stopped = Some(super::EarlyStop::FailFast);
        }
        reports.push(report);
    }
    in_place.restore()?.iter().for_each(|kept| session.progress.note(&format!("sweep: {kept}")));
    let restored: Vec<String> = targets.iter().map(|t| t.display().to_string()).collect();
    session.progress.note(&format!("restored {} in {}", restored.join(", "), engine.tree.display()));
    Ok(AblationOutcome { runs: session.finish(), builds: reports, build_seconds })
}

/// Opens the CSV (the one being resumed, if any) and sidecar and starts a session that will run those of
/// `runs` not yet recorded, which it returns.
fn open_session<'a>(
    plan: &'a Plan,
    sites: &'a [VariantSite],
    context: &'a Context<'a>,
    runs: &[PlannedRun],
) -> Result<(Session<'a>, Vec<PlannedRun>), RunnerError> {
    let (writer, recorded) = open_results(plan, context)?;
    write_sidecar(plan, context)?;
    let (mut session, todo) = Session::start(plan, sites, context, writer, recorded, runs)?;
    // A setup script chosen by a param (`envs/{{compiler}}.sh`) gives each setting its own environment
    // and toolchain versions here too, as in a plain sweep.
    session.origins = SettingOrigins::gather(context.sweep, &plan.settings)?;
    Ok((session, todo))
}

fn build_line(report: &BuildReport) -> String {
    match &report.status {
        BuildStatus::Built { seconds } => format!("built {} ({}) in {seconds:.1}s", report.variant, report.key),
        BuildStatus::Cached => format!("cached {} ({}): not rebuilt", report.variant, report.key),
        BuildStatus::Failed { error } => format!(
            "build of {} ({}) FAILED, its runs are skipped: {}",
            report.variant,
            what_it_ablates(&report.variant),
            error.lines().next().unwrap_or_default()
        ),
        BuildStatus::Interrupted => format!("stopped building {} (interrupted)", report.variant),
    }
}

/// Which groups a build's variant removes, so a broken build points at the group whose removal broke it.
/// A build is named `<variant>` then its build-time values (`baseline block=64`).
fn what_it_ablates(build: &str) -> String {
    match build.split(' ').next().unwrap_or_default() {
        VariantName::BASELINE | crate::plan::DEFAULT_VARIANT => "nothing ablated: the shipped sources".to_string(),
        variant => format!("ablates {}", variant.split('+').collect::<Vec<_>>().join(", ")),
    }
}

impl Ablation<'_> {
    /// `sweep ablate --show`: which instructions a variant removes, before any machine time is spent: the
    /// unified diff of `variant`'s sources against the shipped ones, params from the first setting;
    /// empty when it renders them unchanged. Any subset of the groups may be shown, designed or not.
    pub fn show(&self, plan: &Plan, variant: &str) -> Result<String, RunnerError> {
        let groups = &self.declared.groups;
        let ablated = ablated_groups(variant, groups)
            .ok_or_else(|| RunnerError::UnknownVariant { name: variant.to_string(), groups: groups.join(", ") })?;
        let files = self.render_ablating(&ablated, &plan.settings[0].context())?;
        let name = VariantName::ablating(ablated).to_string();
        Ok(variants::source_diff(&self.sweep.engine.tree, &files, &name)?)
    }
}

/// `baseline`, `all` (also `both` when there are two groups), or groups joined by `+` in any order; the
/// groups come back in declaration order, as the variant's name lists them.
fn ablated_groups(variant: &str, groups: &[String]) -> Option<Vec<String>> {
    match variant {
        VariantName::BASELINE => return Some(Vec::new()),
        "all" => return Some(groups.to_vec()),
        "both" if groups.len() == 2 => return Some(groups.to_vec()),
        _ => {}
    }
    let named: Vec<&str> = variant.split('+').collect();
    if named.iter().any(|name| !groups.iter().any(|group| group == name)) {
        return None;
    }
    Some(groups.iter().filter(|group| named.contains(&group.as_str())).cloned().collect())
}

/// `sweep run` of a sweep with build-time params: one build per distinct tuple of their values, each in
/// its own cached copy of the tree (copy isolation with nothing rendered; a rerun builds nothing), built
/// in parallel, and every setting's runs interleaved across all builds.
pub fn run_build_time(sweep: &Sweep, options: &RunOptions, events: &RunEvents) -> Result<SweepOutcome, RunnerError> {
    let (plan, _) = plan_sweep(sweep, options)?;
    let origin = Origin::gather(sweep, &plan.settings[0])?;
    let paths = result_paths(sweep, options, false)?;
    let context = Context { sweep, options, paths, origin, events };
    let jobs = std::thread::available_parallelism().map_or(1, usize::from);
    Ok(run_copies(None, &plan, &context, jobs)?.runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failed build of a build-time tuple blamed its build-time values as ablated groups.
    #[test]
    fn a_build_named_with_build_time_values_is_blamed_on_its_variant_only() {
        assert_eq!(what_it_ablates("baseline block=64"), "nothing ablated: the shipped sources");
        assert_eq!(what_it_ablates("default block=64"), "nothing ablated: the shipped sources");
        assert_eq!(what_it_ablates("rank1_update+fold block=64"), "ablates rank1_update, fold");
    }

    fn groups() -> Vec<String> {
        vec!["broadcast_rows".to_string(), "rank1_update".to_string()]
    }

    #[test]
    fn both_all_and_any_order_name_the_groups_in_declaration_order() {
        for name in ["both", "all", "rank1_update+broadcast_rows", "broadcast_rows+rank1_update"] {
            assert_eq!(ablated_groups(name, &groups()).unwrap(), groups(), "{name}");
        }
        assert_eq!(ablated_groups("rank1_update", &groups()).unwrap(), ["rank1_update"]);
        assert!(ablated_groups("baseline", &groups()).unwrap().is_empty());
    }

    #[test]
    fn unknown_groups_and_both_of_three_are_refused() {
        assert_eq!(ablated_groups("rank1_updat", &groups()), None);
        let three = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(ablated_groups("both", &three), None);
    }
}
