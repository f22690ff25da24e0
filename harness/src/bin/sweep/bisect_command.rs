//! `sweep bisect`: the first bad commit between a good and a bad one, printed as text or JSON.

use sweep::console::Console;
use sweep::exit_code;
use sweep::launch::RunEvents;
use sweep::runner::{BisectSession, RunnerError};

use crate::args::BisectArgs;
use crate::exit_status::CommandError;
use crate::run_command::repository;

pub fn bisect(args: BisectArgs) -> Result<u8, CommandError> {
    let repository = repository();
    let sweep = crate::check_command::load_sweep(&repository.declaration(&args.spec)?)?;
    let session = BisectSession {
        good: args.good,
        bad: args.bad,
        error_rate: args.error_rate,
        filters: args.filters,
        metric: args.metric,
        results_dir: args.results_dir.unwrap_or_else(|| repository.results_dir()),
    };
    let events = RunEvents::install().map_err(CommandError::Signals)?;
    let outcome = match session.run(&sweep, &events) {
        Ok(outcome) => outcome,
        Err(RunnerError::Interrupted { signal }) => {
            Console::Stderr.line(format_args!("interrupted by signal {signal}: the bisection stopped"));
            return Ok(exit_code::INTERRUPTED as u8);
        }
        Err(error) => return Err(error.into()),
    };
    if outcome.ends.is_none() {
        Console::Stderr.line(
            "sweep: note: nothing was measured: --bad is --good's child on its first-parent line, so it is the \
             first bad commit if any is; whether it is slower is `sweep compare`'s question",
        );
    } else if !outcome.ends_differ() {
        Console::Stderr.line(format_args!(
            "sweep: warning: the good and bad ends do not measure apart at {} (see `ends`): every probe's \
             position is noise, and the commit named may be any",
            outcome.error_rate
        ));
    }
    match args.json {
        true => Console::Stdout.line(serde_json::to_string_pretty(&outcome.json()).unwrap_or_default()),
        false => Console::Stdout.write(outcome.text()),
    }
    let paths = &outcome.paths;
    Console::Stderr.line(format_args!("runs: {} (logs {})", paths.csv.display(), paths.logs.display()));
    Console::Stderr.line(format_args!("result: {}", paths.analysis.display()));
    Ok(exit_code::SUCCESS as u8)
}
