//! `FailureWatch`: what a session watches across runs so that a fault that would fail every run left ends
//! the sweep (a full disk, the same failure run after run) or a setting (a service that never gets ready)
//! early, instead of recording the same failure for hours.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::launch::StopReason;
use crate::record::{RecordError, LOGS_IN};
use crate::runner::RunnerError;

/// Free space below which a file system counts as full: a run's logs, its CSV row and a build's objects
/// need more than this, and a disk this full fails every run left.
const FULL_BELOW_BYTES: u64 = 1 << 20;

/// Why a setting's remaining runs are not run, and where the run (or build) that found it left its logs.
#[derive(Debug, Clone)]
pub struct NotRun {
    /// What a row says after "not run: ".
    pub why: String,
    pub logs: PathBuf,
}

/// Faults seen so far in one session.
#[derive(Debug, Clone, Default)]
pub struct FailureWatch {
    /// Stop once this many runs in a row failed the same way (`None`: never).
    limit: Option<u32>,
    /// The failure the last runs shared (as `same_way` spells it) and how many runs in a row had it.
    streak: Option<(String, u32)>,
    /// Settings whose service was not ready in time, or whose build failed: their remaining runs are
    /// recorded failed at once.
    not_ready: BTreeMap<usize, NotRun>,
}

impl FailureWatch {
    pub fn new(limit: Option<u32>) -> FailureWatch {
        FailureWatch { limit, ..FailureWatch::default() }
    }

    /// Notes a recorded run of `setting` that ended for `reason` with `error` (empty when it succeeded),
    /// its logs in `logs`; says when the sweep stops.
    pub fn after_run(&mut self, setting: usize, reason: &StopReason, error: &str, logs: &Path) -> Option<EarlyStop> {
        if error.is_empty() {
            self.streak = None;
            return None;
        }
        if let StopReason::NotReady(_) = reason {
            // Its service config is the setting's own: every later run of it would wait the whole limit.
            let why = format!("an earlier run of this setting found: {reason}");
            self.not_ready.insert(setting, NotRun { why, logs: logs.to_path_buf() });
        }
        if let Some(stop) = [logs, logs.parent().unwrap_or(logs)].into_iter().find_map(disk_full_at) {
            return Some(stop);
        }
        let way = same_way(error);
        let runs = match &self.streak {
            Some((last, runs)) if *last == way => runs + 1,
            _ => 1,
        };
        self.streak = Some((way, runs));
        let limit = self.limit?;
        (runs >= limit).then(|| EarlyStop::RepeatedFailure { runs, reason: failure_reason(error).to_string() })
    }

    /// Notes that `setting`'s build failed with `error` (its log at `log`): its runs are not run.
    pub fn build_failed(&mut self, setting: usize, error: &str, log: &Path) {
        let why = format!("its build failed: {}", error.lines().next().unwrap_or_default());
        self.not_ready.insert(setting, NotRun { why, logs: log.to_path_buf() });
    }

    /// Why `setting`'s runs are no longer run, if its service was not ready in an earlier run.
    pub fn not_run(&self, setting: usize) -> Option<&NotRun> {
        self.not_ready.get(&setting)
    }

    /// Applies the not-ready verdict of `from` to `setting` too (settings served by one instance).
    pub fn share_not_ready(&mut self, from: usize, setting: usize) {
        if let Some(not_run) = self.not_ready.get(&from).cloned() {
            self.not_ready.entry(setting).or_insert(not_run);
        }
    }
}

/// A session error that means the disk is full (or over quota), with the file it was writing: the sweep
/// stops there with everything recorded so far intact instead of failing as a whole.
pub fn disk_full_of(error: &RunnerError) -> Option<EarlyStop> {
    let (path, io) = match error {
        RunnerError::Io { path, error } => (path, error),
        RunnerError::Record(RecordError::Io { path, error }) => (path, error),
        _ => return None,
    };
    crate::os_error::is_storage_full(io)
        .then(|| EarlyStop::DiskFull { path: path.clone(), reason: crate::os_error::reason(io) })
}

/// The stop a failure in `dir` (a run's, a build's) calls for when the file system holding it (or its
/// nearest existing ancestor) has too little space left for another run.
pub fn disk_full_at(dir: &Path) -> Option<EarlyStop> {
    let existing = dir.ancestors().find(|ancestor| ancestor.exists());
    let stat = existing.and_then(|dir| nix::sys::statvfs::statvfs(dir).ok());
    let full = stat.is_some_and(|stat| stat.blocks_available().saturating_mul(stat.fragment_size()) < FULL_BELOW_BYTES);
    full.then(|| EarlyStop::DiskFull { path: dir.to_path_buf(), reason: "no space left on device".into() })
}

/// A run's failure without where its logs are.
fn failure_reason(error: &str) -> &str {
    error.split(LOGS_IN).next().unwrap_or(error)
}

/// A failure as runs failing "the same way" share it: the reason without its logs, paths, URLs and numbers
/// (a port, a pid, an exit code of a failing launcher differ from run to run).
fn same_way(error: &str) -> String {
    let words = failure_reason(error).split_whitespace().filter(|word| !word.contains('/'));
    let masked = words.map(|word| word.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect::<String>());
    masked.collect::<Vec<_>>().join(" ")
}

/// Why a session stopped scheduling before its plan was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EarlyStop {
    /// Ctrl-C, SIGTERM or SIGHUP; the run in flight was killed and not recorded.
    Interrupted { signal: i32 },
    /// `--fail-fast` and a run failed.
    FailFast,
    /// The disk filled up (writing `path`, or too little space left after a failed run): every run left
    /// would fail. The rows recorded so far are whole.
    DiskFull { path: PathBuf, reason: String },
    /// `runs` runs in a row failed the same way (without `--keep-going`).
    RepeatedFailure { runs: u32, reason: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(watch: &mut FailureWatch, setting: usize, error: &str) -> Option<EarlyStop> {
        let reason = StopReason::Failed { rank: None, code: 1 };
        watch.after_run(setting, &reason, error, Path::new("/"))
    }

    #[test]
    fn runs_failing_the_same_way_in_a_row_stop_the_sweep_at_the_limit() {
        let mut watch = FailureWatch::new(Some(3));
        let error = |port: u32| {
            format!("curl: connect to 127.0.0.1:{port} refused (launcher exited with code 7); logs in /r/{port}")
        };
        assert_eq!(failed(&mut watch, 0, &error(4001)), None);
        assert_eq!(failed(&mut watch, 1, &error(4002)), None);
        let stop = failed(&mut watch, 2, &error(4003)).expect("the third in a row stops");
        assert!(
            matches!(stop, EarlyStop::RepeatedFailure { runs: 3, ref reason } if reason.starts_with("curl: connect"))
        );
    }

    #[test]
    fn a_success_or_another_failure_breaks_the_streak_and_keep_going_never_stops() {
        let mut watch = FailureWatch::new(Some(2));
        assert_eq!(failed(&mut watch, 0, "rank 1 exited with code 3"), None);
        assert_eq!(watch.after_run(1, &StopReason::Succeeded, "", Path::new("/")), None);
        assert_eq!(failed(&mut watch, 0, "rank 1 exited with code 3"), None);
        assert_eq!(failed(&mut watch, 0, "a metric is missing"), None);
        let mut keep_going = FailureWatch::new(None);
        for _ in 0..10 {
            assert_eq!(failed(&mut keep_going, 0, "rank 1 exited with code 3"), None);
        }
    }

    #[test]
    fn a_service_not_ready_trips_its_setting_and_the_settings_sharing_its_instance() {
        let mut watch = FailureWatch::new(None);
        let reason = StopReason::NotReady(Box::new(crate::launch::ServiceNotReady {
            name: "server".into(),
            within: std::time::Duration::from_secs(1),
            probe: "GET http://127.0.0.1:1/health".into(),
            last: "connection refused".into(),
            log: "/r/1/service-server.log".into(),
            tail: "loading".into(),
        }));
        watch.after_run(4, &reason, &reason.to_string(), Path::new("/r/1"));
        watch.share_not_ready(4, 5);
        assert!(watch.not_run(4).unwrap().why.contains("GET http://127.0.0.1:1/health"));
        assert_eq!(watch.not_run(5).unwrap().logs, Path::new("/r/1"));
        assert!(watch.not_run(6).is_none());
    }
}
