//! The `sweep` command line: parse arguments, run the command, map the outcome to an exit code.

// A print macro panics on a closed or full stdout or stderr: output goes through `sweep::console::Console`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod ablate_command;
mod args;
mod bisect_command;
mod check_command;
mod compare_command;
mod exit_status;
mod history_command;
mod merge_command;
mod report_command;
mod restore_command;
mod result_files;
mod run_command;
mod submit_command;
mod summary;
mod template_command;

use clap::Parser;

use args::{Cli, Command};
use exit_status::CommandError;

fn main() -> std::process::ExitCode {
    exit_status::finish(dispatch(Cli::parse()))
}

/// Runs the chosen command; the exit code comes back as `Ok` when the command itself decided it.
fn dispatch(cli: Cli) -> Result<u8, CommandError> {
    match cli.command {
        Command::Run(args) => run_command::run(args),
        Command::Ablate(args) => ablate_command::ablate(args),
        Command::Compare(args) => compare_command::compare(args),
        Command::Report(args) => report_command::report(args),
        Command::Check(args) => check_command::check(args),
        Command::Restore(args) => restore_command::restore(args),
        Command::Template(args) => template_command::template(args),
        Command::Submit(args) => submit_command::submit(args),
        Command::Merge(args) => merge_command::merge(args),
        Command::Bisect(args) => bisect_command::bisect(args),
        Command::History(args) => history_command::history(args),
    }
}
