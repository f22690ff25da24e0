//! The one error type of the `declare` stage: what is wrong, in which file, at which key and line.

use std::fmt;
use std::path::PathBuf;

/// Where in a declaration a problem sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: PathBuf,
    /// 1-based line of the key, when the key exists in the file.
    pub line: Option<usize>,
    /// Dotted key path, e.g. `reps.count` or `metrics.derived.ms_per_row`; empty for the whole file.
    pub key: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.key.is_empty() {
            write!(f, ": `{}`", self.key)?;
        }
        Ok(())
    }
}

/// A declaration that cannot be used; every variant renders as one sentence naming file, key and line.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{}: cannot read: {source}", file.display())]
    Unreadable { file: PathBuf, source: std::io::Error },
    #[error("{location}: {message}")]
    Invalid { location: Location, message: String },
    /// The engine's source tree (`tree` as written, `resolved` absolute) is not there; everything else
    /// of the declaration was checked.
    #[error("{location}: engine tree `{}` is not a directory", resolved.display())]
    TreeMissing { location: Location, tree: String, resolved: PathBuf },
}

/// What a declaration most likely did not mean but can still run (a parameter nothing uses);
/// `sweep check` prints it, and refuses it under `--strict`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecNote {
    pub location: Location,
    pub message: String,
}

impl fmt::Display for SpecNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}
