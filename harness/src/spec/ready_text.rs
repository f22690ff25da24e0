//! `ReadyText`: a service's `ready` table as written, read into a `ReadyDecl` (and written back from one).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::pattern::Pattern;
use crate::template::Template;

/// How long a service may take to become ready unless `within` says otherwise.
pub const DEFAULT_READY_WITHIN: Duration = Duration::from_secs(300);

/// One of `log`, `tcp` and `http` (checked by `ReadyDecl`'s conversion), and `within`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReadyText {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<Pattern>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<Template>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<Template>,
    #[serde(default = "default_within", deserialize_with = "super::duration_value::deserialize")]
    pub within: Duration,
}

fn default_within() -> Duration {
    DEFAULT_READY_WITHIN
}
