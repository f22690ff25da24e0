//! `Event`: what reaches the executor while a run is in flight: a process exit or a signal.

use std::process::ExitStatus;

/// What reaches the executor while a run is in flight.
#[derive(Debug)]
pub enum Event {
    Exited { index: usize, status: std::io::Result<ExitStatus> },
    Signal(i32),
}
