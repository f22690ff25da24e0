//! The one channel a sweep's executor waits on: process exits from waiter threads and signals.

use std::sync::mpsc::{channel, Receiver, Sender};

use super::executor::Event;
use super::signal_watch::SignalWatch;

/// Created once per `sweep` invocation, before the first child starts.
pub struct RunEvents {
    pub sender: Sender<Event>,
    pub receiver: Receiver<Event>,
    pub signals: SignalWatch,
}

impl RunEvents {
    pub fn install() -> std::io::Result<RunEvents> {
        let (sender, receiver) = channel();
        let signals = SignalWatch::install(sender.clone())?;
        Ok(RunEvents { sender, receiver, signals })
    }
}
