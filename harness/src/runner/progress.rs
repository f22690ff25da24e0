//! Shows progress: a bar with an ETA on a terminal, else one plain line per finished run.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::console::Console;
use crate::ground::RunStatus;

/// Reports each finished run; the ETA comes from finished runs' durations (indicatif's rate).
pub struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    done: usize,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} runs  elapsed {elapsed}  eta {eta}  {msg}")
                    .expect("static template"),
            );
            bar
        });
        Progress { bar, total, done: 0 }
    }

    /// Names the run that is starting (terminal only: a plain log gets one line per finished run).
    pub fn starting(&self, label: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(label.to_string());
        }
    }

    pub fn finished(&mut self, label: &str, status: RunStatus, duration: Duration, detail: &str) {
        self.done += 1;
        // A total of 0 is unknown (a search under a budget of time): the count alone.
        let count = match self.total {
            0 => format!("[{}]", self.done),
            total => format!("[{}/{total}]", self.done),
        };
        let line = format!("{count} {label}: {status} in {:.2}s{}", duration.as_secs_f64(), detail);
        match &self.bar {
            Some(bar) => {
                bar.println(line);
                bar.inc(1);
            }
            None => Console::Stderr.line(line),
        }
    }

    pub fn note(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => Console::Stderr.line(text),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
