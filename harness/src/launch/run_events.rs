//! What a sweep invocation sets up once, before its first child starts: the signal watch, and sweep
//! as the subreaper of every process it starts (so re-parented descendants can be found and killed).

use super::reaper;
use super::signal_watch::SignalWatch;

/// Created once per `sweep` invocation, before the first child starts.
pub struct RunEvents {
    pub signals: SignalWatch,
}

impl RunEvents {
    pub fn install() -> std::io::Result<RunEvents> {
        reaper::become_subreaper()?;
        let signals = SignalWatch::install()?;
        Ok(RunEvents { signals })
    }
}
