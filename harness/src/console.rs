//! `Console`: everything sweep says on stdout and stderr. A write there can fail (the reader left: `| head`,
//! a pager quit; a full device), and that must never stop a sweep halfway: `print!` and `eprintln!` panic
//! on a failed write, so sweep writes to the standard streams only through this (clippy's `print_stdout`
//! and `print_stderr` lints are denied in the library and the binary).

use std::fmt::Display;
use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// One of the two standard streams. A write to it never fails its caller: a closed pipe drops the rest of
/// the output (the reader chose to stop reading), another error on stdout is said once on stderr, and an
/// error on stderr is dropped (there is nowhere left to say it). The exit status stays the command's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Console {
    /// A command's output: a summary, a plan, JSON.
    Stdout,
    /// Progress, notes and errors.
    Stderr,
}

/// Set once a failed write to stdout has been said on stderr: once per process is enough.
static STDOUT_FAILURE_SAID: AtomicBool = AtomicBool::new(false);

impl Console {
    /// Writes `text` and a line end, in one write (a line is not split between two writers).
    pub fn line(self, text: impl Display) {
        self.write(format!("{text}\n"));
    }

    /// Writes `text` as it is.
    pub fn write(self, text: impl Display) {
        let text = text.to_string();
        let written = match self {
            // Stdout is line-buffered: flushed here, so its error surfaces now rather than at exit.
            Console::Stdout => {
                let mut stdout = std::io::stdout().lock();
                stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush())
            }
            Console::Stderr => std::io::stderr().lock().write_all(text.as_bytes()),
        };
        if let Err(error) = written {
            self.lost(&error);
        }
    }

    fn lost(self, error: &std::io::Error) {
        let reader_left = error.kind() == ErrorKind::BrokenPipe;
        if self == Console::Stdout && !reader_left && !STDOUT_FAILURE_SAID.swap(true, Ordering::Relaxed) {
            Console::Stderr.line(format_args!("sweep: cannot write to stdout: {error}"));
        }
    }
}
