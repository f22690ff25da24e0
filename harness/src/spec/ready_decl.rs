//! `ReadyDecl`: when a service counts as started, as written (`ready = { log = "...", within = "20m" }`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Exactly one of `log`, `tcp` and `http` (templates), checked at load.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReadyDecl {
    /// Ready once this regex matches a line of the service's log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// Ready once a TCP connection to `host:port` succeeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<String>,
    /// Ready once a GET of this `http://` URL answers 2xx.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<String>,
    /// How long the service may take to become ready (default `DEFAULT_READY_WITHIN`).
    #[serde(default = "default_within", deserialize_with = "super::duration_value::deserialize")]
    pub within: Duration,
}

/// How long a service may take to become ready unless `within` says otherwise.
pub const DEFAULT_READY_WITHIN: Duration = Duration::from_secs(300);

fn default_within() -> Duration {
    DEFAULT_READY_WITHIN
}
