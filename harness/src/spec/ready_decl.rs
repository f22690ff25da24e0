//! `ReadyDecl`: when a service counts as started (`ready = { log = "...", within = "20m" }`), its one
//! rule compiled when the declaration is read.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::ready_rule::ReadyRule;
use super::ready_text::ReadyText;

/// Exactly one rule, and how long the service may take to satisfy it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "ReadyText", into = "ReadyText")]
pub struct ReadyDecl {
    pub rule: ReadyRule,
    /// How long the service may take to become ready (default `DEFAULT_READY_WITHIN`).
    pub within: Duration,
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
