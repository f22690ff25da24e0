//! `ReadyDecl`: when a service counts as started (`ready = { log = "...", within = "20m" }`), its one
//! rule compiled when the declaration is read.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::pattern::Pattern;
use crate::template::Template;

/// How long a service may take to become ready unless `within` says otherwise.
pub const DEFAULT_READY_WITHIN: Duration = Duration::from_secs(300);

/// Exactly one rule, and how long the service may take to satisfy it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "ReadyText", into = "ReadyText")]
pub struct ReadyDecl {
    pub rule: ReadyRule,
    /// How long the service may take to become ready (default `DEFAULT_READY_WITHIN`).
    pub within: Duration,
}

/// The one probe that tells a started service is ready.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadyRule {
    /// Ready once this regex matches a line of the service's log.
    Log(Pattern),
    /// Ready once a TCP connection to `host:port` (a template over the run) succeeds.
    Tcp(Template),
    /// Ready once a GET of this `http://` URL (a template over the run) answers 2xx.
    Http(Template),
}

/// The `ready` table as written: one of `log`, `tcp` and `http` (checked by the conversion to
/// `ReadyDecl`), and `within`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReadyText {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<Pattern>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<Template>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<Template>,
    #[serde(default = "default_within", deserialize_with = "super::duration_value::deserialize")]
    pub within: Duration,
}

fn default_within() -> Duration {
    DEFAULT_READY_WITHIN
}

impl TryFrom<ReadyText> for ReadyDecl {
    type Error = String;

    fn try_from(text: ReadyText) -> Result<ReadyDecl, String> {
        let rule = match (text.log, text.tcp, text.http) {
            (Some(pattern), None, None) => ReadyRule::Log(pattern),
            (None, Some(address), None) => ReadyRule::Tcp(address),
            (None, None, Some(url)) if url.text().starts_with("http://") => ReadyRule::Http(url),
            (None, None, Some(url)) => return Err(format!("`{url}`: only plain `http://` URLs are probed")),
            _ => return Err("give exactly one of `log`, `tcp` and `http`".to_string()),
        };
        Ok(ReadyDecl { rule, within: text.within })
    }
}

impl From<ReadyDecl> for ReadyText {
    fn from(ready: ReadyDecl) -> ReadyText {
        let (mut log, mut tcp, mut http) = (None, None, None);
        match ready.rule {
            ReadyRule::Log(pattern) => log = Some(pattern),
            ReadyRule::Tcp(address) => tcp = Some(address),
            ReadyRule::Http(url) => http = Some(url),
        }
        ReadyText { log, tcp, http, within: ready.within }
    }
}
