//! The `sweep` command line: parse arguments, run the command, map the outcome to an exit code.

mod ablate_command;
mod args;
mod check_command;
mod compare_command;
mod exit_status;
mod fresh_output;
mod hint;
mod merge_command;
mod report_command;
mod restore_command;
mod result_files;
mod run_command;
mod stdout;
mod submit_command;
mod summary;
mod template_command;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = args::Cli::parse();
    exit_status::finish(args::dispatch(cli))
}
