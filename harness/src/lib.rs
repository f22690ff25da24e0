//! `sweep`: declared parameter sweeps and kernel ablations of tensor-parallel inference engines.
//!
//! One module per pipeline stage, in two arms over a common floor (`declare`, `plan`): the running arm
//! `launch -> variants -> rebuild`, the results arm `extract`, `record -> analyse -> compare -> report`;
//! `runner` joins them. `ground` and `template`, `expression`, `atomic_file`, `confined_dir`, `read_limit`,
//! `file_lock`, `os_error`, `shell_line`, `plural`, `console`, `exit_code` are the ground floor every stage
//! may use; `search` and `history` are a budgeted search's and a history's pure cores.
//! harness/tests/layering.rs holds the allowed imports; see docs/ARCHITECTURE.md.

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
pub mod ground;
pub mod history;
pub mod launch;
pub mod os_error;
pub mod plan;
pub mod plural;
pub mod read_limit;
pub mod rebuild;
pub mod record;
pub mod report;
pub mod runner;
pub mod search;
pub mod shell_line;
pub mod store;
pub mod student_t;
pub mod template;
#[cfg(test)]
mod test_fuzz_campaign;
#[cfg(test)]
mod test_mutation;
pub mod variants;
