//! `LazyBuilds`: a search's builds made as its candidates need them rather than all before its first
//! run, so the tuples of build-time parameters the search never visits are never built.

use std::collections::HashMap;

use super::failure_watch::FailureWatch;
use super::progress::Progress;
use super::runner_error::RunnerError;
use crate::plan::PlannedRun;
use crate::rebuild::{self, BuildCache, BuildJob, BuildKey, BuildReport, BuildStatus};

pub struct LazyBuilds<'c> {
    /// The builds not made yet, by key.
    pending: HashMap<BuildKey, BuildJob>,
    /// Each setting's build key, in the plan's order.
    keys: Vec<BuildKey>,
    cache: &'c BuildCache,
    parallelism: usize,
    /// The progress line of a build made.
    line: fn(&BuildReport) -> String,
    /// What each build made so far did, and the seconds spent building.
    pub reports: Vec<BuildReport>,
    pub seconds: f64,
}

impl<'c> LazyBuilds<'c> {
    /// The builds `jobs` (one per key; `keys` each setting's), made in `cache` on `parallelism` threads,
    /// each said by `line`.
    pub fn new(
        jobs: Vec<BuildJob>,
        keys: Vec<BuildKey>,
        cache: &'c BuildCache,
        parallelism: usize,
        line: fn(&BuildReport) -> String,
    ) -> LazyBuilds<'c> {
        let pending = jobs.into_iter().map(|job| (job.key, job)).collect();
        LazyBuilds { pending, keys, cache, parallelism, line, reports: Vec::new(), seconds: 0.0 }
    }

    /// Builds what `batch` needs and is not built yet, in parallel; the settings of a build that failed
    /// are recorded failed without running (`watch`), as a service never ready is.
    pub fn build_for(
        &mut self,
        batch: &[PlannedRun],
        watch: &mut FailureWatch,
        progress: &Progress,
    ) -> Result<(), RunnerError> {
        let needed: Vec<BuildJob> =
            batch.iter().filter_map(|run| self.pending.remove(&self.keys[run.setting.index()])).collect();
        if needed.is_empty() {
            return Ok(());
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
        self.reports.extend(reports);
        Ok(())
    }
}
