//! `ServiceDecl`: one `[[run.service]]` entry as written (a server the run's main process talks to).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ready_decl::ReadyDecl;
use crate::template::Template;

/// A process started before the run's main process, in its own process group and with its own log,
/// and stopped (SIGTERM, grace, SIGKILL) once the main process ends. Every text is a template over
/// the run's context, like `[run]`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceDecl {
    /// Names its log (`service-<name>.log`) and `process = "<name>"` on metrics.
    pub name: String,
    pub program: Template,
    #[serde(default)]
    pub args: Vec<Template>,
    #[serde(default)]
    pub env: BTreeMap<String, Template>,
    /// When the service counts as started.
    pub ready: ReadyDecl,
    /// `"auto"`: a free loopback port per run, as `{{port}}` in every template of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// Params whose values may differ between runs sharing one instance: runs of a round whose settings
    /// differ only in these run back to back beside one instance (e.g. client concurrency).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reuse_across: Vec<String>,
}

/// The only `port` value: pick a free loopback port.
pub const AUTO_PORT: &str = "auto";

/// The template name a service's automatic port is bound to.
pub const PORT_NAME: &str = "port";
