//! Writing a command's output to stdout when the reader may have gone (`sweep run --dry-run | head`):
//! `print!` panics on a closed pipe; this stops writing quietly and lets the command finish.

use std::io::{ErrorKind, Write};

/// Writes `text` to stdout; a reader that closed the pipe is not an error (the rest is not wanted),
/// any other write error is said once on stderr.
pub fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != ErrorKind::BrokenPipe => eprintln!("sweep: cannot write to stdout: {error}"),
        _ => {}
    }
}

/// `print` with a line end.
pub fn print_line(text: &str) {
    print(&format!("{text}\n"));
}
