//! `ReadyRule`: the one probe that tells a started service is ready.

use super::pattern::Pattern;
use crate::template::Template;

#[derive(Debug, Clone, PartialEq)]
pub enum ReadyRule {
    /// Ready once this regex matches a line of the service's log.
    Log(Pattern),
    /// Ready once a TCP connection to `host:port` (a template over the run) succeeds.
    Tcp(Template),
    /// Ready once a GET of this `http://` URL (a template over the run) answers 2xx.
    Http(Template),
}
