//! `UnknownRunStatus`: a CSV `status` cell that names no `RunStatus`.

/// A `status` cell that is none of `ok`, `failed`, `timeout`, `interrupted`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("status `{0}` is not one of ok, failed, timeout, interrupted")]
pub struct UnknownRunStatus(pub String);
