//! `ServiceNotReady`: a service that was not ready within its limit, told so that the cause can be found
//! without opening anything: which probe, what it last found, and where the service's log is.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct ServiceNotReady {
    pub name: String,
    pub within: Duration,
    /// What was probed: `GET http://127.0.0.1:8000/health`, a TCP address, a log regex.
    pub probe: String,
    /// What the last probe found: `connection refused`, `it answered HTTP/1.0 503`, ...
    pub last: String,
    pub log: PathBuf,
    /// The log's last lines.
    pub tail: String,
}

impl fmt::Display for ServiceNotReady {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "service `{}` was not ready within {}: the last probe, {}, found: {}; its log {} ends: {}",
            self.name,
            humantime::format_duration(self.within),
            self.probe,
            self.last,
            self.log.display(),
            self.tail
        )
    }
}
