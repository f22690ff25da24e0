//! `BuildError`: every way building a variant can fail.

use std::path::PathBuf;

use crate::template::TemplateError;
use crate::variants::VariantError;

/// Why a variant did not build; each names the variant or the file involved.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    // Not a `source`: the message already says it, and `{:#}` would print it twice.
    #[error("{}: could not {action}", crate::os_error::describe(error, path))]
    Io { action: &'static str, path: PathBuf, error: std::io::Error },

    #[error("variant {variant}: the build command is empty")]
    EmptyCommand { variant: String },

    #[error("variant {variant}: could not start `{program}`: {error}")]
    Spawn { variant: String, program: String, error: String },

    #[error("variant {variant}: the build was interrupted by signal {signal}")]
    Interrupted { variant: String, signal: i32 },

    /// The first line of the message is the whole report: the compiler's first error and the log.
    #[error("variant {variant}: the build failed ({status}): {first_error} (log: {log})\nlast lines:\n{tail}")]
    Failed { variant: String, status: String, first_error: String, log: PathBuf, tail: String },

    #[error("commit {commit}: its tree could not be exported: {reason}")]
    Export { commit: String, reason: String },

    #[error("could not start the build thread pool: {0}")]
    Pool(String),

    #[error(transparent)]
    Variant(#[from] VariantError),

    #[error("the profile's build command did not render")]
    Command(#[source] TemplateError),

    #[error("the profile's program path did not render")]
    ProgramPath(#[source] TemplateError),
}

impl BuildError {
    /// Builds a closure for `map_err` that tags an io error with what was being done to which file.
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |error| BuildError::Io { action, path, error }
    }
}
