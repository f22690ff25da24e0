//! What a sweep invocation sets up once, before its first child starts: the signal watch, sweep as
//! the subreaper of every process it starts (so re-parented descendants can be found and killed), and
//! a clean machine (processes a SIGKILLed sweep left behind are killed first).

use super::leftovers::kill_leftovers_of_dead_sweeps;
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
        let killed = kill_leftovers_of_dead_sweeps();
        if !killed.is_empty() {
            let pids: Vec<String> = killed.iter().map(|pid| pid.to_string()).collect();
            eprintln!("killed {} process(es) a killed sweep left running: pid {}", killed.len(), pids.join(", "));
        }
        Ok(RunEvents { signals })
    }
}
