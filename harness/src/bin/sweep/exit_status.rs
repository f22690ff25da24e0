//! Maps a command's outcome to the documented exit codes (`sweep::exit_code`).

use std::process::ExitCode;

use sweep::exit_code;

/// Prints an error as one line and picks its code: bad input is 2, anything else that stopped us is 1.
pub fn finish(outcome: anyhow::Result<u8>) -> ExitCode {
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("sweep: error: {}", one_line(&error));
            ExitCode::from(if is_bad_input(&error) { exit_code::BAD_INPUT } else { exit_code::CHECK_FAILED } as u8)
        }
    }
}

/// The error and its causes joined by `: `, leaving out a cause whose text the message already holds (an
/// error that prints its source, such as `could not read: {source}`, would otherwise say it twice).
fn one_line(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&cause);
        }
    }
    text
}

fn is_bad_input(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.is::<sweep::spec::SpecError>()
            || cause.is::<sweep::plan::PlanError>()
            || cause.is::<sweep::template::TemplateError>()
            || cause.downcast_ref::<sweep::runner::RunnerError>().is_some_and(|e| e.is_bad_input())
            || cause.downcast_ref::<sweep::record::RecordError>().is_some_and(|e| e.is_bad_input())
            || cause.downcast_ref::<sweep::variants::VariantError>().is_some_and(|e| e.is_bad_input())
            || cause.is::<BadInput>()
    })
}

/// A command-line or file problem found by the binary itself.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);
