//! `CommandError`: why a command stopped, and the one mapping to the documented exit codes
//! (`sweep::exit_code`), made at the binary's boundary (as nextest's `ExpectedError` and just's
//! `Error::code()` do).

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

use sweep::console::Console;
use sweep::exit_code;

/// Every error a command returns; each library error keeps its `source()` chain.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    Spec(#[from] sweep::declare::SpecError),
    #[error(transparent)]
    Plan(#[from] sweep::plan::PlanError),
    #[error(transparent)]
    Runner(#[from] sweep::runner::RunnerError),
    #[error(transparent)]
    Record(#[from] sweep::record::RecordError),
    #[error(transparent)]
    Variant(#[from] sweep::variants::VariantError),
    #[error(transparent)]
    Slurm(#[from] sweep::launch::SlurmError),
    #[error(transparent)]
    Store(#[from] sweep::store::StoreError),
    /// A command-line or file problem found by the binary itself.
    #[error("{0}")]
    BadInput(String),
    /// Something the binary checked is not as it must be (exit 1), e.g. a tree left rendered.
    #[error("{0}")]
    CheckFailed(String),
    #[error("cannot install signal handlers")]
    Signals(#[source] std::io::Error),
    /// The operating system refused to write a file (not a source: the message says it).
    #[error("{}", sweep::os_error::describe(error, path))]
    Write { path: PathBuf, error: std::io::Error },
}

impl CommandError {
    /// Bad input is 2; anything else that stopped a command is 1.
    pub fn exit_code(&self) -> u8 {
        let bad_input = match self {
            CommandError::Spec(_)
            | CommandError::Plan(_)
            | CommandError::BadInput(_)
            | CommandError::Write { .. }
            | CommandError::Store(_) => true,
            CommandError::Runner(error) => error.is_bad_input(),
            CommandError::Record(error) => error.is_bad_input(),
            CommandError::Variant(error) => error.is_bad_input(),
            CommandError::CheckFailed(_) | CommandError::Signals(_) | CommandError::Slurm(_) => false,
        };
        (if bad_input { exit_code::BAD_INPUT } else { exit_code::CHECK_FAILED }) as u8
    }
}

/// Prints an error as one line, its causes after colons, and exits with its code.
pub fn finish(outcome: Result<u8, CommandError>) -> ExitCode {
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            Console::Stderr.line(format_args!("sweep: error: {}", one_line(&error)));
            ExitCode::from(error.exit_code())
        }
    }
}

/// The error and its causes joined by `: `, leaving out a cause whose text the message already holds (an
/// error that prints its source, such as `could not read: {source}`, would otherwise say it twice). A
/// control character in it is escaped (`\n`): an error quotes keys and cells of untrusted files, whose line
/// end would split it, or whose terminal escape would act on the terminal.
pub fn one_line(error: &dyn Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        let text = error.to_string();
        if !line.contains(&text) {
            line.push_str(&format!(": {text}"));
        }
        cause = error.source();
    }
    line.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}
