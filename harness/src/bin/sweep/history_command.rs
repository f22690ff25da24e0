//! `sweep history`: result files into the store (`add`), each setting's metric across the versions
//! (`show`), and where the series changed (`changes`).

use std::path::PathBuf;

use sweep::console::Console;
use sweep::declare::Direction;
use sweep::exit_code;
use sweep::report::{self, HistoryReport};
use sweep::store::{FoundChange, HistoryStore, MetricSeries, StoreError, StoredHistory, STORE_FILE};

use crate::args::{HistoryAddArgs, HistoryArgs, HistoryCommand, HistoryReadArgs, HistoryShowArgs, StoreArgs};
use crate::exit_status::CommandError;

/// Permutations of each change test, drawn from a fixed seed so that the same store reports the same.
const PERMUTATIONS: usize = 2000;
const SEED: u64 = 1;

pub fn history(args: HistoryArgs) -> Result<u8, CommandError> {
    match args.command {
        HistoryCommand::Add(args) => add(&args),
        HistoryCommand::Show(args) => show(&args),
        HistoryCommand::Changes(args) => changes(&args.read),
    }
}

/// The store in use: `--store`, else `history.sqlite` in the repository's results folder.
fn store_path(args: &StoreArgs) -> PathBuf {
    args.store.clone().unwrap_or_else(|| crate::run_command::repository().results_dir().join(STORE_FILE))
}

fn add(args: &HistoryAddArgs) -> Result<u8, CommandError> {
    if args.label.is_some() && args.csvs.len() > 1 {
        return Err(CommandError::BadInput(format!(
            "--label names one version: add the {} CSVs one at a time",
            args.csvs.len()
        )));
    }
    let mut store = HistoryStore::open(&store_path(&args.store))?;
    for csv in &args.csvs {
        let added = store.add(csv, args.label.as_deref())?;
        Console::Stdout.line(added.line(csv, &store.path));
    }
    Ok(exit_code::SUCCESS as u8)
}

fn show(args: &HistoryShowArgs) -> Result<u8, CommandError> {
    if let Some(out) = &args.html {
        crate::result_files::refuse_overwrite(out, "--html", args.force)?;
    }
    let read = Read::of(&args.read)?;
    let report = read.report(&args.read);
    // The page's charts are drawn only when the markdown or the page needs them.
    let document = || report.trends_document();
    match args.read.json {
        true => {
            Console::Stdout.line(serde_json::to_string_pretty(&report.trends_json()).expect("JSON values serialize"))
        }
        false => Console::Stdout.write(report::markdown(&document())),
    }
    if let Some(out) = &args.html {
        crate::result_files::save(out, &report::html_page(&document(), None))?;
        Console::Stderr.line(format_args!("page: {}", out.display()));
    }
    Ok(exit_code::SUCCESS as u8)
}

fn changes(args: &HistoryReadArgs) -> Result<u8, CommandError> {
    let read = Read::of(args)?;
    let report = read.report(args);
    match args.json {
        true => {
            Console::Stdout.line(serde_json::to_string_pretty(&report.changes_json()).expect("JSON values serialize"))
        }
        false => Console::Stdout.write(report::markdown(&report.changes_document())),
    }
    if report.has_regression() {
        Console::Stderr.line(format_args!(
            "a software change of `{}` to the worse side ({} is better) at q <= {}",
            read.series.metric, read.direction, args.level
        ));
        return Ok(exit_code::CHECK_FAILED as u8);
    }
    Ok(exit_code::SUCCESS as u8)
}

/// A sweep's history read out of the store: the metric's series, which way is better, and its changes.
struct Read {
    history: StoredHistory,
    series: MetricSeries,
    direction: Direction,
    changes: Option<Vec<FoundChange>>,
}

impl Read {
    fn of(args: &HistoryReadArgs) -> Result<Read, CommandError> {
        if !(args.level > 0.0 && args.level < 1.0) {
            return Err(CommandError::BadInput(format!("--level {}: must be in (0, 1)", args.level)));
        }
        let path = store_path(&args.store);
        if !path.is_file() {
            return Err(CommandError::BadInput(format!(
                "{}: no store there (add result files with `sweep history add CSV --store {}`)",
                path.display(),
                path.display()
            )));
        }
        let history = HistoryStore::open_to_read(&path)?.history(args.sweep.as_deref())?;
        let analysis = history.analysis.as_ref();
        let metric = match (&args.metric, analysis) {
            (Some(metric), _) => metric.clone(),
            (None, Some(analysis)) => analysis.primary.clone(),
            (None, None) => {
                return Err(CommandError::BadInput(format!(
                    "{}: sweep `{}` records no primary metric: pass --metric",
                    path.display(),
                    history.sweep
                )))
            }
        };
        let names = history.metric_names();
        if !names.contains(&metric) {
            return Err(StoreError::UnknownMetric { path, sweep: history.sweep.clone(), metric, names }.into());
        }
        let direction = crate::compare_command::chosen_direction(args.direction, analysis, &metric)?;
        // The control measures the machine, whatever metric is read: its series is every run's.
        let control = analysis.and_then(|analysis| analysis.control.as_deref()).filter(|control| *control != metric);
        let control = control.and_then(|control| history.series(control).pooled());
        let series = history.series(&metric);
        let changes = series.changes(control.as_ref(), args.level, PERMUTATIONS, SEED);
        Ok(Read { history, series, direction, changes })
    }

    fn report<'a>(&'a self, args: &HistoryReadArgs) -> HistoryReport<'a> {
        HistoryReport {
            sweep: &self.history.sweep,
            series: &self.series,
            direction: self.direction,
            changes: self.changes.as_deref(),
            level: args.level,
            permutations: PERMUTATIONS,
        }
    }
}
