//! Turns SIGINT, SIGTERM and SIGHUP into events on the executor's channel, so an in-flight run is
//! stopped promptly without the executor polling a flag.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::{Handle, Signals};

use super::executor::Event;

/// Installed once per `sweep` invocation; uninstalls its thread when dropped.
pub struct SignalWatch {
    received: Arc<AtomicI32>,
    handle: Handle,
}

impl SignalWatch {
    pub fn install(events: Sender<Event>) -> std::io::Result<SignalWatch> {
        let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        let handle = signals.handle();
        let received = Arc::new(AtomicI32::new(0));
        let flag = Arc::clone(&received);
        std::thread::spawn(move || {
            for signal in signals.forever() {
                flag.store(signal, Ordering::SeqCst);
                // The receiver is gone only when the sweep is over; nothing left to stop then.
                let _ = events.send(Event::Signal(signal));
            }
        });
        Ok(SignalWatch { received, handle })
    }

    /// The signal that asked us to stop, if one did: no new run may start after it.
    pub fn received(&self) -> Option<i32> {
        match self.received.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(signal),
        }
    }
}

impl Drop for SignalWatch {
    fn drop(&mut self) {
        self.handle.close();
    }
}
