//! The first error line of a log: what a broken variant's build (and a failed run) is reported by,
//! since the first error a compiler or engine prints is the cause and the rest (`make`'s own
//! `Error 1`, mpirun's banner) are consequences.

use std::fs;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// The first line saying `error` (any case, as a word), else the last non-empty line, else a note that the
/// build printed nothing; trimmed, so it fits a one-line report.
pub fn first_error_line(log: &Path) -> String {
    let text = read_lossy(log);
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let first_error = lines.clone().find(|line| ERROR_WORD.is_match(line));
    first_error.or_else(|| lines.next_back()).unwrap_or("the build printed nothing").to_string()
}

/// The first line of a failed run's log that names a failure (`error`, `invalid`, `fatal`, `failed`,
/// `failure`, `cannot`, `abort`, `panicked`, `exception`, `no such`, `not found`), trimmed; None when
/// no line does (a run's last line is usually the launcher's banner, not the cause).
pub fn first_failure_line(log: &Path) -> Option<String> {
    read_lossy(log).lines().map(str::trim).find(|line| FAILURE_WORD.is_match(line)).map(str::to_string)
}

fn read_lossy(log: &Path) -> String {
    fs::read(log).map(|bytes| String::from_utf8_lossy(&bytes).into_owned()).unwrap_or_default()
}

static ERROR_WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\berror\b").expect("the pattern is valid"));

static FAILURE_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(error|invalid|fatal|fail(ed|ure)|cannot|abort(ed)?|panicked|exception|no such|not found)\b")
        .expect("the pattern is valid")
});

#[cfg(test)]
mod tests {
    use super::*;

    fn first_of(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("build.log");
        fs::write(&log, text).unwrap();
        first_error_line(&log)
    }

    #[test]
    fn the_compiler_error_wins_over_later_errors_and_error_like_words() {
        let log = "g++ -Werror -c gd.cpp\nwarning: unused error_count\n  gd.cpp:12:3: error: expected ';'\n\
                   gd.cpp:20:1: error: later\nmake: *** [Makefile:9: gd.o] Error 1\n";
        assert_eq!(first_of(log), "gd.cpp:12:3: error: expected ';'");
    }

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

    #[test]
    fn without_an_error_line_the_last_line_is_shown() {
        assert_eq!(first_of("building\nKilled\n\n"), "Killed");
        assert_eq!(first_of(""), "the build printed nothing");
    }
}
