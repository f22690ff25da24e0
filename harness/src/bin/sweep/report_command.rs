//! `sweep report`: the summary of a finished result CSV, written again from the CSV and its sidecar.

use sweep::console::Console;
use sweep::declare::{Isolation, RunOrder};
use sweep::exit_code;
use sweep::record::{RecordedRun, ResultPaths, Sidecar};

use crate::args::ReportArgs;
use crate::exit_status::CommandError;
use crate::summary;

pub fn report(args: ReportArgs) -> Result<u8, CommandError> {
    let csv = if args.csv.is_dir() { crate::merge_command::merge_dir(&args.csv, args.force)? } else { args.csv };
    let mut table = summary::read_finished(&csv)?;
    let paths = ResultPaths::for_csv(&csv);
    let sidecar = Sidecar::read(&paths.sidecar)?;
    let config = &sidecar.sweep.analysis;
    let interleaved = sidecar.sweep.reps.order == RunOrder::Interleaved;
    let title = csv.display().to_string();
    let (text, checks_failed) = match &sidecar.sweep.ablation() {
        Some(ablation) => {
            // The sidecar's command line says whether `--isolation` overrode the declared one.
            let in_place = ablation.isolation == Isolation::InPlace
                || sidecar.command_line.windows(2).any(|w| w[0] == "--isolation" && w[1] == "in-place");
            let blocks = !in_place && interleaved;
            let (text, not_additive) =
                summary::write_ablation_summary(&table, &paths, config, ablation, blocks, &title, args.force)?;
            let failed = table.runs().iter().filter(|o| o.status() != sweep::ground::RunStatus::Ok).count();
            (text, not_additive || failed > 0)
        }
        None => {
            let (text, _, checks_failed) =
                summary::write_run_summary(&mut table, &paths, config, interleaved, &title, args.force)?;
            (text, checks_failed)
        }
    };
    if args.html {
        Console::Stdout.line(paths.html.display());
    } else if args.json && paths.analysis.is_file() {
        let json = sweep::read_limit::ReadLimit::OUTPUT
            .read_to_string(&paths.analysis)
            .map_err(|error| CommandError::BadInput(format!("cannot read {}: {error}", paths.analysis.display())))?;
        Console::Stdout.line(&json);
    } else {
        Console::Stdout.write(&text);
    }
    crate::run_command::print_written(&paths);
    // The same exit code `run` or `ablate` gave: a failed run, a disagreement or non-additivity is 1.
    Ok(if checks_failed { exit_code::CHECK_FAILED } else { exit_code::SUCCESS } as u8)
}
