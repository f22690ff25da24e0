//! Why a finished run has no usable metrics; the run is then `failed` with this as its reason.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtractError {
    #[error("no result line starting with `{prefix}` in {}", log.display())]
    NoResultLine { prefix: String, log: PathBuf },
    #[error("the result line has no `{key}=` (it has: {present})")]
    MissingKey { key: String, present: String },
    #[error("`{key}` appears twice in the result line with different values ({first} and {second})")]
    RepeatedKey { key: String, first: String, second: String },
    #[error("metric `{metric}` is `{value}`, not a finite number")]
    NotANumber { metric: String, value: String },
    #[error("regex metric `{metric}` did not match anything in {}", log.display())]
    NoMatch { metric: String, log: PathBuf },
    #[error("cannot read {}: {error}", log.display())]
    UnreadableLog { log: PathBuf, error: String },
    #[error("derived metric `{metric}`: {error}")]
    Derived { metric: String, error: String },
    #[error("profile block: {0}")]
    Profile(#[from] super::profile_block::ProfileError),
    #[error("profile metric `{metric}`: the selected block (tag `{tag}`) has no phase `{phase}`")]
    MissingPhase { metric: String, phase: String, tag: String },
    #[error("check failed: `{metric}` is {actual} but should be {expected}")]
    CheckFailed { metric: String, actual: f64, expected: String },
    #[error("check `{check}`: {error}")]
    CheckError { check: String, error: String },
}
