//! `sweep report`: the summary of a finished result CSV, written again from the CSV and its sidecar.

use sweep::exit_code;
use sweep::runner::ResultPaths;

use crate::args::ReportArgs;
use crate::summary;

pub fn report(args: ReportArgs) -> anyhow::Result<u8> {
    summary::read_finished(&args.csv)?;
    let paths = ResultPaths::for_csv(&args.csv);
    let config = summary::recorded_analysis(&paths)?;
    let title = args.csv.display().to_string();
    let text = match summary::recorded_ablation(&paths)? {
        Some(ablation) => summary::write_ablation_summary(&paths, &config, &ablation, &title)?.0,
        None => summary::write_run_summary(&paths, &config, &title)?,
    };
    println!("{text}");
    eprintln!("summary: {}", paths.summary.display());
    Ok(exit_code::SUCCESS as u8)
}
