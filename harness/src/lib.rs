//! `sweep`: declared parameter sweeps and kernel ablations of tensor-parallel inference engines.
//!
//! One module per pipeline stage; data flows one way, and a stage imports only from the stages before it:
//! `declare -> plan -> launch -> variants -> rebuild -> extract -> record -> analyse -> compare -> report`.
//! `runner` drives the stages; `template`, `expression`, `atomic_file`, `confined_dir`, `read_limit`,
//! `os_error`, `shell_line`, `plural`, `console` and `exit_code` are shared helpers.
//! See docs/ARCHITECTURE.md.

// A print macro panics when stdout or stderr is closed or full, and would end a sweep halfway: what sweep
// says goes through `console::Console`. Tests may print.
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

pub mod analyse;
pub mod atomic_file;
pub mod compare;
pub mod confined_dir;
pub mod console;
pub mod declare;
pub mod exit_code;
pub mod expression;
pub mod extract;
pub mod file_lock;
#[cfg(test)]
mod fuzz_campaign;
pub mod launch;
#[cfg(test)]
mod mutation;
pub mod os_error;
pub mod plan;
pub mod plural;
pub mod read_limit;
pub mod rebuild;
pub mod record;
pub mod report;
pub mod runner;
pub mod shell_line;
pub mod template;
pub mod variants;
