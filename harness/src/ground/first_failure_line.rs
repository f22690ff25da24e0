//! `first_failure_line`: what a failed run's log says went wrong, for its one-line report.

use std::fs;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// The first line of a failed run's log that names a failure (`error`, `invalid`, `fatal`, `failed`,
/// `failure`, `cannot`, `abort`, `panicked`, `exception`, `no such`, `not found`), trimmed; None when
/// no line does (a run's last line is usually the launcher's banner, not the cause).
pub fn first_failure_line(log: &Path) -> Option<String> {
    String::from_utf8_lossy(&fs::read(log).unwrap_or_default())
        .lines()
        .map(str::trim)
        .find(|line| FAILURE_WORD.is_match(line))
        .map(str::to_string)
}

static FAILURE_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(error|invalid|fatal|fail(ed|ure)|cannot|abort(ed)?|panicked|exception|no such|not found)\b")
        .expect("the pattern is valid")
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_log_names_the_engine_message_not_the_launcher_banner() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("output.log");
        let text = "tp-engine: invalid value '0' for --rows\nusage: tp-engine [--rows N]\n-----\nPrimary job \
                    terminated normally, but 1 process returned\nmpirun detected that one or more processes exited\n";
        fs::write(&log, text).unwrap();
        assert_eq!(first_failure_line(&log).as_deref(), Some("tp-engine: invalid value '0' for --rows"));
        fs::write(&log, "starting\nSegmentation fault? no: just stopped\n").unwrap();
        assert_eq!(first_failure_line(&log), None);
    }
}
