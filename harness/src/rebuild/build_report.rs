//! `BuildReport` and `build_all`: every variant's build, cache misses in parallel, hits never rebuilt.

use std::collections::HashMap;

use rayon::prelude::*;

use super::build_cache::{BuildCache, BuildKey};
use super::build_job::{run_build, BuildJob, BuildOutcome};
use super::error::BuildError;
use crate::variants::{clear_build_group, record_build_group};

/// What happened to one variant's build.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildReport {
    pub variant: String,
    pub key: BuildKey,
    pub status: BuildStatus,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BuildStatus {
    Built {
        seconds: f64,
    },
    /// A completed build with the same key existed (or another variant in this batch had the same key).
    Cached,
    /// The full error sentence; for a compiler failure it ends with the log's tail.
    Failed {
        error: String,
    },
    /// A signal asked sweep to stop before or while it built: not a broken variant.
    Interrupted,
}

/// Builds every job whose key is not cached, `parallelism` at a time (0 = available cores); a failure does
/// not stop the others. Jobs sharing a key are built once. Reports come back in job order; `on_done` sees
/// each as it finishes.
pub fn build_all(
    jobs: Vec<BuildJob>,
    cache: &BuildCache,
    parallelism: usize,
    on_done: impl Fn(&BuildReport) + Sync,
) -> Result<Vec<BuildReport>, BuildError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(parallelism)
        .build()
        .map_err(|error| BuildError::Pool(error.to_string()))?;
    // Two jobs with one key would build into one cache entry at once: build the first, reuse it for the rest.
    let mut first_of_key: HashMap<BuildKey, usize> = HashMap::new();
    let firsts: Vec<usize> = (0..jobs.len()).filter(|&i| *first_of_key.entry(jobs[i].key).or_insert(i) == i).collect();
    let built: HashMap<usize, BuildStatus> = pool
        .install(|| firsts.par_iter().map(|&i| (i, finish(&jobs[i], build_one(&jobs[i], cache), &on_done))).collect());
    Ok(jobs
        .iter()
        .enumerate()
        .map(|(i, job)| match built.get(&i) {
            Some(status) => report(job, status.clone()),
            None => {
                let status = match &built[&first_of_key[&job.key]] {
                    BuildStatus::Built { .. } => BuildStatus::Cached,
                    first => first.clone(),
                };
                let duplicate = report(job, status);
                on_done(&duplicate);
                duplicate
            }
        })
        .collect())
}

fn build_one(job: &BuildJob, cache: &BuildCache) -> BuildStatus {
    if cache.lookup(&job.key).is_some() {
        return BuildStatus::Cached;
    }
    match build_in_entry(job, cache) {
        Ok(outcome) => BuildStatus::Built { seconds: outcome.seconds },
        Err(BuildError::Interrupted { .. }) => BuildStatus::Interrupted,
        Err(error) => BuildStatus::Failed { error: error.to_string() },
    }
}

/// Runs `job` in its prepared cache entry and stamps the entry complete. The build's process group is
/// recorded in the entry while it runs, so that, after a SIGKILL of sweep, preparing the entry again
/// first stops compilers still writing into it.
pub fn build_in_entry(job: &BuildJob, cache: &BuildCache) -> Result<BuildOutcome, BuildError> {
    let entry = cache.entry(&job.key);
    let built = cache
        .folder()
        .and_then(|folder| {
            run_build(job, (&folder, &entry.log), &mut |group| {
                record_build_group(&entry.dir, group.as_raw()).map_err(std::io::Error::other)
            })
        })
        .and_then(|outcome| cache.mark_complete(&job.key).map(|()| outcome));
    clear_build_group(&entry.dir)?;
    built
}

fn finish(job: &BuildJob, status: BuildStatus, on_done: &(impl Fn(&BuildReport) + Sync)) -> BuildStatus {
    on_done(&report(job, status.clone()));
    status
}

fn report(job: &BuildJob, status: BuildStatus) -> BuildReport {
    BuildReport { variant: job.variant.clone(), key: job.key, status }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::RenderedFile;
    use std::fs;
    use std::path::PathBuf;
    use std::sync::Mutex;

    /// A fake compiler: appends a line to `$COUNTER` per invocation and "links" kernel.cpp into the build dir;
    /// fails like a compiler when the kernel says so.
    const FAKE_BUILD: &str = r#"echo run >> "$COUNTER"
if grep -q BROKEN kernel.cpp; then echo 'kernel.cpp:3:1: error: expected ;' >&2; exit 1; fi
cp kernel.cpp "$1/tp-engine""#;

    struct Fixture {
        engine: tempfile::TempDir,
        cache_root: tempfile::TempDir,
        counter: PathBuf,
    }

    impl Fixture {
        fn new() -> Self {
            let engine = tempfile::tempdir().unwrap();
            fs::write(engine.path().join("kernel.cpp"), "shipped\n").unwrap();
            let cache_root = tempfile::tempdir().unwrap();
            let counter = cache_root.path().join("invocations");
            Fixture { engine, cache_root, counter }
        }

        fn cache(&self) -> BuildCache {
            BuildCache::new(self.cache_root.path().join("cache"))
        }

        /// Renders `text` as the variant's kernel, prepares its cache entry and returns the job.
        fn job(&self, variant: &str, text: &str, toolchain: &str) -> BuildJob {
            let files = [RenderedFile { target: PathBuf::from("kernel.cpp"), text: text.to_string() }];
            let argv = vec!["sh".to_string(), "-c".to_string(), FAKE_BUILD.to_string(), "sh".to_string()];
            let key = BuildKey::new(&files, &argv, toolchain, "engine-v1");
            let entry = self.cache().prepare(&key, self.engine.path(), &files, &[]).unwrap();
            let mut argv = argv;
            argv.push(entry.build.to_string_lossy().into_owned());
            BuildJob {
                variant: variant.to_string(),
                tree: entry.tree,
                build_dir: entry.build,
                argv,
                env: vec![("COUNTER".to_string(), self.counter.to_string_lossy().into_owned())],
                key,
            }
        }

        fn invocations(&self) -> usize {
            fs::read_to_string(&self.counter).map(|t| t.lines().count()).unwrap_or(0)
        }
    }

    fn statuses(reports: &[BuildReport]) -> Vec<&BuildStatus> {
        reports.iter().map(|r| &r.status).collect()
    }

    fn built_binary(cache: &BuildCache, key: &BuildKey) -> String {
        fs::read_to_string(cache.lookup(key).unwrap().build.join("tp-engine")).unwrap()
    }

    #[test]
    fn miss_builds_and_rerun_hits_without_invoking_the_compiler() {
        let fx = Fixture::new();
        let job = fx.job("baseline", "shipped\n", "cc 1");
        let key = job.key;
        let first = build_all(vec![job], &fx.cache(), 1, |_| {}).unwrap();
        assert!(matches!(first[0].status, BuildStatus::Built { .. }), "{first:?}");
        assert_eq!(fx.invocations(), 1);
        assert_eq!(built_binary(&fx.cache(), &key), "shipped\n");

        let rerun = build_all(vec![fx.job("baseline", "shipped\n", "cc 1")], &fx.cache(), 1, |_| {}).unwrap();
        assert_eq!(statuses(&rerun), [&BuildStatus::Cached]);
        assert_eq!(fx.invocations(), 1, "a cache hit must not invoke the compiler");
    }

    #[test]
    fn changed_text_or_toolchain_rebuilds() {
        let fx = Fixture::new();
        build_all(vec![fx.job("baseline", "shipped\n", "cc 1")], &fx.cache(), 1, |_| {}).unwrap();
        let changed = vec![fx.job("baseline", "ablated\n", "cc 1"), fx.job("baseline", "shipped\n", "cc 2")];
        let reports = build_all(changed, &fx.cache(), 2, |_| {}).unwrap();
        assert!(reports.iter().all(|r| matches!(r.status, BuildStatus::Built { .. })), "{reports:?}");
        assert_eq!(fx.invocations(), 3);
    }

    #[test]
    fn failure_reports_the_compiler_error_and_does_not_stop_the_others() {
        let fx = Fixture::new();
        let jobs = vec![fx.job("broken", "BROKEN\n", "cc 1"), fx.job("fine", "ok\n", "cc 1")];
        let broken_key = jobs[0].key;
        let reports = build_all(jobs, &fx.cache(), 2, |_| {}).unwrap();
        match &reports[0].status {
            BuildStatus::Failed { error } => assert!(error.contains("kernel.cpp:3:1: error: expected ;"), "{error}"),
            other => panic!("expected Failed, got {other:?}"),
        }
        assert!(matches!(reports[1].status, BuildStatus::Built { .. }));
        assert_eq!(fx.cache().lookup(&broken_key), None, "a failed build must not be stamped complete");
    }

    #[test]
    fn four_jobs_build_in_parallel_and_each_is_reported_once() {
        let fx = Fixture::new();
        let jobs: Vec<_> = (0..4).map(|i| fx.job(&format!("v{i}"), &format!("text {i}\n"), "cc 1")).collect();
        let keys: Vec<_> = jobs.iter().map(|j| j.key).collect();
        let seen = Mutex::new(Vec::new());
        let reports = build_all(jobs, &fx.cache(), 4, |r| seen.lock().unwrap().push(r.variant.clone())).unwrap();
        assert!(reports.iter().all(|r| matches!(r.status, BuildStatus::Built { .. })), "{reports:?}");
        assert_eq!(reports.iter().map(|r| r.variant.as_str()).collect::<Vec<_>>(), ["v0", "v1", "v2", "v3"]);
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, ["v0", "v1", "v2", "v3"]);
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(built_binary(&fx.cache(), key), format!("text {i}\n"));
        }
    }

    #[test]
    fn jobs_sharing_a_key_build_once() {
        let fx = Fixture::new();
        let jobs = vec![fx.job("a", "same\n", "cc 1"), fx.job("b", "same\n", "cc 1")];
        let reports = build_all(jobs, &fx.cache(), 2, |_| {}).unwrap();
        assert!(matches!(reports[0].status, BuildStatus::Built { .. }));
        assert_eq!(reports[1].status, BuildStatus::Cached);
        assert_eq!(fx.invocations(), 1);
    }
}
