//! The last lines of a process's log, on one line, for a failure reason.

use std::path::Path;

/// Lines of a service's log quoted when it fails.
const TAIL_LINES: usize = 5;

/// `line | line | line`: the log's last non-blank lines, or `(empty log)`.
pub fn last_lines(log: &Path) -> String {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    if lines.is_empty() {
        return "(empty log)".to_string();
    }
    lines[lines.len().saturating_sub(TAIL_LINES)..].join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_joined_on_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("x.log");
        assert_eq!(last_lines(&log), "(empty log)");
        std::fs::write(&log, "1\n2\n\n3\n4\n5\n6\n").unwrap();
        assert_eq!(last_lines(&log), "2 | 3 | 4 | 5 | 6");
    }
}
