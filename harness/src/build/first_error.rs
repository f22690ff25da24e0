//! The first error line of a build log: what a broken variant is reported by, since the first error a
//! compiler prints is the cause and the rest (and `make`'s own `Error 1`) are consequences.

use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

/// The first line saying `error` (any case, as a word), else the last non-empty line, else a note that the
/// build printed nothing; trimmed, so it fits a one-line report.
pub fn first_error_line(log: &Path) -> String {
    let text = fs::read(log).map(|bytes| String::from_utf8_lossy(&bytes).into_owned()).unwrap_or_default();
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let first_error = lines.clone().find(|line| error_word().is_match(line));
    first_error.or_else(|| lines.next_back()).unwrap_or("the build printed nothing").to_string()
}

fn error_word() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| Regex::new(r"(?i)\berror\b").expect("the pattern is valid"))
}

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
    fn without_an_error_line_the_last_line_is_shown() {
        assert_eq!(first_of("building\nKilled\n\n"), "Killed");
        assert_eq!(first_of(""), "the build printed nothing");
    }
}
