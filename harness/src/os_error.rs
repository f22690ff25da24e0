//! How an operating-system error on a file reads to a person: `permission denied: results/x.csv`, the
//! system's own words first (without Rust's `(os error 13)`), then the file as the user would type it.

use std::io;
use std::path::{Path, PathBuf};

/// `no space left on device: results/slices/x.csv`.
pub fn describe(error: &io::Error, path: &Path) -> String {
    format!("{}: {}", reason(error), shown(path).display())
}

/// The error's description, lower-cased, without its number: `permission denied`.
pub fn reason(error: &io::Error) -> String {
    let text = error.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// Whether the error says the file system is full (or over quota): the sweep cannot go on writing.
pub fn is_storage_full(error: &io::Error) -> bool {
    matches!(error.raw_os_error(), Some(nix::libc::ENOSPC | nix::libc::EDQUOT))
}

/// `path` relative to the working directory when it lies below it, as the user typed it; else as it is.
pub fn shown(path: &Path) -> PathBuf {
    let Ok(cwd) = std::env::current_dir() else { return path.to_path_buf() };
    match path.strip_prefix(&cwd) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.to_path_buf(),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_os_error_reads_as_its_reason_then_the_file() {
        let denied = io::Error::from_raw_os_error(nix::libc::EACCES);
        assert_eq!(describe(&denied, Path::new("/nonexistent/x.csv")), "permission denied: /nonexistent/x.csv");
        let full = io::Error::from_raw_os_error(nix::libc::ENOSPC);
        assert_eq!(reason(&full), "no space left on device");
        assert!(is_storage_full(&full) && !is_storage_full(&denied));
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(shown(&cwd.join("results/x.csv")), PathBuf::from("results/x.csv"));
    }
}
