//! `Subscription`: one execution's place on the list of channels a received signal is sent to, and the
//! `Event`s that reach the executor there.

use std::process::ExitStatus;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Mutex;

/// The channel of every execution in flight (parallel builds have one each).
static SUBSCRIBERS: Mutex<Vec<(u64, Sender<Event>)>> = Mutex::new(Vec::new());

/// Sends every signal to its channel until dropped.
pub struct Subscription {
    id: u64,
}

impl Subscription {
    pub fn new(events: Sender<Event>) -> Subscription {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let id = NEXT.fetch_add(1, Ordering::SeqCst);
        SUBSCRIBERS.lock().unwrap_or_else(|e| e.into_inner()).push((id, events));
        Subscription { id }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        SUBSCRIBERS.lock().unwrap_or_else(|e| e.into_inner()).retain(|(id, _)| *id != self.id);
    }
}

/// Tells every execution in flight that `signal` arrived.
pub(super) fn broadcast(signal: i32) {
    for (_, subscriber) in SUBSCRIBERS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        // A receiver is gone only when its execution is over; nothing left to stop there.
        let _ = subscriber.send(Event::Signal(signal));
    }
}

/// What reaches the executor while a run is in flight.
#[derive(Debug)]
pub enum Event {
    Exited { index: usize, status: std::io::Result<ExitStatus> },
    Signal(i32),
}
