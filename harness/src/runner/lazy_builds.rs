//! `LazyBuilds`: a search's builds made as its candidates need them rather than all before its first
//! run, so the tuples of build-time parameters the search never visits are never built; each build made
//! is recorded in the sidecar (`SearchBuild`), where the search's replays find what to charge it.

use std::collections::HashMap;
use std::path::PathBuf;

use super::failure_watch::FailureWatch;
use super::progress::Progress;
use super::runner_error::RunnerError;
use crate::plan::PlannedRun;
use crate::rebuild::{self, BuildCache, BuildJob, BuildKey, BuildReport, BuildStatus, DeferredCopies};
use crate::record::{SearchBuild, Sidecar};

pub struct LazyBuilds<'c> {
    /// The builds not made yet, by key, and their copies of the tree not made yet.
    pending: HashMap<BuildKey, BuildJob>,
    copies: DeferredCopies,
    /// Each setting's build key, in the plan's order.
    keys: Vec<BuildKey>,
    cache: &'c BuildCache,
    parallelism: usize,
    /// The progress line of a build made.
    line: fn(&BuildReport) -> String,
    /// The sidecar the builds made are recorded in, and each setting's label there.
    sidecar: PathBuf,
    labels: Vec<String>,
    /// What each build made so far did, and the seconds spent building.
    pub reports: Vec<BuildReport>,
    pub seconds: f64,
}

impl<'c> LazyBuilds<'c> {
    /// The builds `jobs` (one per key; `keys` each setting's) in their `copies`, made in `cache` on
    /// `parallelism` threads, each said by `line` and recorded in `sidecar`, whose `labels` name the
    /// plan's settings.
    pub fn new(
        (jobs, copies): (Vec<BuildJob>, DeferredCopies),
        keys: Vec<BuildKey>,
        cache: &'c BuildCache,
        (parallelism, line): (usize, fn(&BuildReport) -> String),
        (sidecar, labels): (PathBuf, Vec<String>),
    ) -> LazyBuilds<'c> {
        let pending = jobs.into_iter().map(|job| (job.key, job)).collect();
        let (reports, seconds) = (Vec::new(), 0.0);
        LazyBuilds { pending, copies, keys, cache, parallelism, line, sidecar, labels, reports, seconds }
    }

    /// Builds what `batch` needs and is not built yet, in parallel; the settings of a build that failed
    /// are recorded failed without running (`watch`), as a service never ready is. Returns the builds
    /// made (not found in the cache) as (plan setting whose run caused it, seconds), recorded in the
    /// sidecar before any run of `batch`, so a resume charges them as this search does.
    pub fn build_for(
        &mut self,
        batch: &[PlannedRun],
        watch: &mut FailureWatch,
        progress: &Progress,
    ) -> Result<Vec<(usize, f64)>, RunnerError> {
        let needed: Vec<(usize, BuildJob)> = (batch.iter())
            .filter_map(|run| Some((run.setting.index(), self.pending.remove(&self.keys[run.setting.index()])?)))
            .collect();
        if needed.is_empty() {
            return Ok(Vec::new());
        }
        let (causes, needed): (Vec<usize>, Vec<BuildJob>) = needed.into_iter().unzip();
        for job in &needed {
            self.copies.make(self.cache, &job.key)?;
        }
        let started = std::time::Instant::now();
        let reports =
            rebuild::build_all(needed, self.cache, self.parallelism, |report| progress.note(&(self.line)(report)))?;
        self.seconds += started.elapsed().as_secs_f64();
        for report in &reports {
            let BuildStatus::Failed { error } = &report.status else { continue };
            let log = self.cache.entry(&report.key).log;
            let settings = self.keys.iter().enumerate().filter(|(_, key)| **key == report.key);
            settings.for_each(|(setting, _)| watch.build_failed(setting, error, &log));
        }
        let made: Vec<(usize, f64)> = (causes.into_iter().zip(&reports))
            .filter_map(|(setting, report)| match report.status {
                BuildStatus::Built { seconds } => Some((setting, seconds)),
                _ => None,
            })
            .collect();
        self.reports.extend(reports);
        self.record(&made)?;
        Ok(made)
    }

    /// Appends the builds `made` to the sidecar's `search_builds`.
    fn record(&self, made: &[(usize, f64)]) -> Result<(), RunnerError> {
        if made.is_empty() {
            return Ok(());
        }
        let mut sidecar = Sidecar::read(&self.sidecar)?;
        let recorded =
            made.iter().map(|&(setting, seconds)| SearchBuild { setting: self.labels[setting].clone(), seconds });
        sidecar.search_builds.extend(recorded);
        Ok(sidecar.write(&self.sidecar)?)
    }
}
