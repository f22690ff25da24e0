//! `ReadyText`: a service's `ready` table as written, read into a `ReadyDecl` (and written back from one).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::pattern::Pattern;
use super::ready_decl::DEFAULT_READY_WITHIN;
use crate::template::Template;

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
