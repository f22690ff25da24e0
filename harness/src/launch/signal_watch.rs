//! Turns every terminating signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM) into an
//! event on the channel of each execution in flight, so a run or build is stopped promptly without
//! the executor polling a flag, and an in-place ablation always gets to restore its tree. Each
//! execution in flight is on the list of channels a received signal is sent to (a `Subscription`).

use std::process::ExitStatus;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Mutex;

use signal_hook::consts::{SIGALRM, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};
use signal_hook::iterator::{Handle, Signals};

use super::reaper;
use super::reaper::kill_leftovers_of_dead_sweeps;
use crate::console::Console;

/// Signals whose default action would end sweep without restoring or killing anything.
pub const TERMINATING_SIGNALS: [i32; 7] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM];

/// The first signal received (0: none). Process-wide, like signals themselves.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Installed once per `sweep` invocation; uninstalls its thread when dropped.
pub struct SignalWatch {
    handle: Handle,
}

impl SignalWatch {
    pub fn install() -> std::io::Result<SignalWatch> {
        let mut signals = Signals::new(TERMINATING_SIGNALS)?;
        let handle = signals.handle();
        std::thread::spawn(move || {
            for signal in signals.forever() {
                // The flag first: an execution subscribing now either sees it or gets the event.
                let _ = RECEIVED.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
                broadcast(signal);
            }
        });
        Ok(SignalWatch { handle })
    }

    /// The signal that asked us to stop, if one did: no new run or build may start after it.
    pub fn received(&self) -> Option<i32> {
        received()
    }
}

impl Drop for SignalWatch {
    fn drop(&mut self) {
        self.handle.close();
    }
}

/// The signal that asked sweep to stop, if one did (`None` also when no watch is installed).
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// What a sweep invocation sets up once, before its first child starts: the signal watch, sweep as the
/// subreaper of every process it starts (so re-parented descendants can be found and killed), and a
/// clean machine (processes a SIGKILLed sweep left behind are killed first).
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
            Console::Stderr.line(format_args!(
                "killed {} process(es) a killed sweep left running: pid {}",
                killed.len(),
                pids.join(", ")
            ));
        }
        Ok(RunEvents { signals })
    }
}

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
fn broadcast(signal: i32) {
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
