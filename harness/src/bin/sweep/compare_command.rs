//! `sweep compare`: the same grid under two versions (two CSVs, or two values of a parameter inside
//! one interleaved sweep), judged setting by setting.

use std::path::Path;

use sweep::analyse::Direction;
use sweep::compare::{self, CompareConfig, Comparison};
use sweep::console::Console;
use sweep::declare::{AnalysisConfig, ControlScaling, RunOrder};
use sweep::exit_code;
use sweep::record::{RecordedRun, ResultPaths, RunTable, Sidecar};
use sweep::report::{self, MetricUnits};

use crate::args::{CompareArgs, ControlScalingArg, DirectionArg};
use crate::exit_status::CommandError;
use crate::summary;

pub fn compare(args: CompareArgs) -> Result<u8, CommandError> {
    let labels = given_labels(args.labels.as_deref())?;
    if let Some(out) = &args.html {
        crate::result_files::refuse_overwrite(out, "--html", args.force)?;
    }
    let (comparison, (label_a, label_b), title, units) = match &args.within {
        Some(csv) => within(&args, csv, labels)?,
        None => two_files(&args, labels)?,
    };
    if comparison.settings.is_empty() {
        return Err(CommandError::BadInput(format!("{title}: no setting is in both A and B: nothing to compare")));
    }
    if args.json {
        let json = report::compare_json(&comparison, &label_a, &label_b, &units);
        Console::Stdout.line(serde_json::to_string_pretty(&json).expect("JSON values serialize"));
    }
    let document = report::compare_document(&comparison, (&label_a, &label_b), &units, &title);
    if !args.json {
        Console::Stdout.write(report::terminal_text(&document));
    }
    if let Some(out) = &args.html {
        crate::result_files::save(out, &report::html_page(&document, None))?;
        Console::Stderr.line(format_args!("page: {}", out.display()));
    }
    let config = &comparison.config;
    if let Some(change) = comparison.machine_change {
        Console::Stderr.line(report::machine_change_line(&comparison, change, &label_b).with_backticks());
        return Ok(exit_code::CANNOT_TELL as u8);
    }
    if let moved @ 1.. = comparison.control_moved().len() {
        Console::Stderr.line(format_args!(
            "warning: the control `{}` moved beyond {} at {} of {} (see the control B/A per setting)",
            config.control.as_deref().unwrap_or_default(),
            report::threshold_named(config),
            moved,
            sweep::plural::counted(comparison.settings.len(), "setting")
        ));
    }
    if comparison.has_significant_regression() {
        Console::Stderr.line(format_args!(
            "significant regression of `{}` beyond {} (alpha {}, Holm-corrected over {})",
            config.metric,
            report::threshold_named(config),
            config.alpha,
            sweep::plural::counted(comparison.tests(), "test")
        ));
        return Ok(exit_code::CHECK_FAILED as u8);
    }
    Ok(exit_code::SUCCESS as u8)
}

/// The comparison, its labels, its title and the metric units A's sweep declared (inferred from the names
/// without a sidecar).
type Labelled = (Comparison, (String, String), String, MetricUnits);

/// Two CSVs of one grid.
fn two_files(args: &CompareArgs, labels: Option<(String, String)>) -> Result<Labelled, CommandError> {
    let (path_a, path_b) = (args.a.as_deref().expect("clap requires A"), args.b.as_deref().expect("clap requires B"));
    let (a, b) = (summary::read_finished(path_a)?, summary::read_finished(path_b)?);
    if a.columns.params != b.columns.params {
        return Err(CommandError::BadInput(format!(
            "{} and {} are different sweeps: parameters [{}] vs [{}]",
            path_a.display(),
            path_b.display(),
            a.columns.params.join(", "),
            b.columns.params.join(", ")
        )));
    }
    let sidecars = [path_a, path_b].map(|csv| Sidecar::read(&ResultPaths::for_csv(csv).sidecar).ok());
    let recorded = sidecars.each_ref().map(|sidecar| sidecar.as_ref().map(|s| s.sweep.analysis.clone()));
    let config = compare_config(args, &recorded, [(&a, path_a), (&b, path_b)])?;
    let mut comparison = compare::compare(&a.runs(), &b.runs(), &config);
    // One grid: A's declaration orders it (B's when A has no sidecar).
    let declared = sidecars.iter().flatten().next().map_or(&[][..], |sidecar| &sidecar.params);
    comparison.sort_by_declaration(declared);
    let units = sidecars[0].as_ref().map(MetricUnits::recorded).unwrap_or_default();
    let labels = labels.unwrap_or_else(|| toolchain_labels(&sidecars, path_a, path_b));
    Ok((comparison, labels, format!("{} vs {}", path_a.display(), path_b.display()), units))
}

/// Two values of `--by` inside one sweep, paired by round when it was interleaved.
fn within(args: &CompareArgs, csv: &Path, labels: Option<(String, String)>) -> Result<Labelled, CommandError> {
    let by = args.by.as_deref().expect("clap requires --by with --within");
    let table = summary::read_finished(csv)?;
    if !table.columns.params.iter().any(|p| p == by) {
        return Err(CommandError::BadInput(format!(
            "{}: --by {by}: no such parameter (it has: {})",
            csv.display(),
            table.columns.params.join(", ")
        )));
    }
    let sidecar = Sidecar::read(&ResultPaths::for_csv(csv).sidecar)?;
    let values = by_values(&table, &sidecar, by);
    let [a, b] = values.as_slice() else {
        return Err(CommandError::BadInput(format!(
            "{}: --by {by} needs exactly two values to compare, the sweep has {}: {}",
            csv.display(),
            values.len(),
            values.join(", ")
        )));
    };
    let recorded = [Some(sidecar.sweep.analysis.clone()), Some(sidecar.sweep.analysis.clone())];
    let config = compare_config(args, &recorded, [(&table, csv), (&table, csv)])?;
    let blocks = sidecar.sweep.reps.order == RunOrder::Interleaved;
    let mut comparison = compare::compare_within(&table.runs(), by, [a, b], &config, blocks);
    comparison.sort_by_declaration(&sidecar.params);
    let labels = labels.unwrap_or_else(|| (format!("{by}={a}"), format!("{by}={b}")));
    Ok((comparison, labels, format!("{} by {by}", csv.display()), MetricUnits::recorded(&sidecar)))
}

/// The values of a parameter that have runs, in declared order (else first-seen order).
fn by_values(table: &RunTable, sidecar: &Sidecar, by: &str) -> Vec<String> {
    let declared = sidecar.params.iter().filter(|p| p.name == by).flat_map(|p| p.values.iter().map(|v| v.to_string()));
    let present: Vec<String> =
        table.runs().iter().filter_map(|o| o.setting().value(by)).map(|v| v.to_string()).collect();
    let mut values: Vec<String> = Vec::new();
    for value in declared.filter(|v| present.contains(v)).chain(present.iter().cloned()) {
        if !values.contains(&value) {
            values.push(value);
        }
    }
    values
}

/// Metric, direction and control from the flags, else from the sidecars (the sweep's primary metric
/// and control); the two sides must agree on what they measured.
fn compare_config(
    args: &CompareArgs,
    recorded: &[Option<AnalysisConfig>; 2],
    tables: [(&RunTable, &Path); 2],
) -> Result<CompareConfig, CommandError> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(CommandError::BadInput(format!("--alpha {}: must be in (0, 1)", args.alpha)));
    }
    let primaries: Vec<&str> = recorded.iter().flatten().map(|c| c.primary.as_str()).collect();
    let metric = match (&args.metric, primaries.as_slice()) {
        (Some(metric), _) => metric.clone(),
        (None, [a, b]) if a != b => {
            return Err(CommandError::BadInput(format!(
                "the two sides measured different primary metrics (`{a}` vs `{b}`): pass --metric"
            )))
        }
        (None, [primary, ..]) => primary.to_string(),
        (None, []) => {
            return Err(CommandError::BadInput(format!(
                "{}: no sidecar to read the primary metric from: pass --metric",
                tables[0].1.display()
            )))
        }
    };
    require_metric(&tables, &metric)?;
    let first = recorded.iter().flatten().next();
    let direction = chosen_direction(args.direction, first, &metric)?;
    if let Some(control) = &args.control {
        require_metric(&tables, control)?;
    }
    // A control only recorded in a sidecar is used where both sides measured it.
    let control = args.control.clone().or_else(|| first.and_then(|c| c.control.clone()));
    let control = control.filter(|c| tables.iter().all(|(table, _)| table.columns.metrics.contains(c)));
    Ok(CompareConfig {
        metric,
        direction,
        threshold: args.threshold,
        alpha: args.alpha,
        control,
        control_threshold: args.control_threshold,
        control_scaling: args
            .control_scaling
            .map_or_else(|| first.map_or(ControlScaling::Estimated, |c| c.control_scaling), ControlScaling::from),
    })
}

/// Which way is better for `metric`: `--direction`, else the sweep's declared direction when `metric` is
/// its primary metric (`recorded`).
pub fn chosen_direction(
    arg: Option<DirectionArg>,
    recorded: Option<&AnalysisConfig>,
    metric: &str,
) -> Result<Direction, CommandError> {
    match (arg, recorded) {
        (Some(DirectionArg::Higher), _) => Ok(Direction::Higher),
        (Some(DirectionArg::Lower), _) => Ok(Direction::Lower),
        (None, Some(config)) if config.primary == metric => Ok(config.direction),
        (None, _) => {
            Err(CommandError::BadInput(format!("which way is better for `{metric}`? pass --direction higher|lower")))
        }
    }
}

/// A metric named on the command line must be in both CSVs; the error lists the ones there are.
fn require_metric(tables: &[(&RunTable, &Path); 2], metric: &str) -> Result<(), CommandError> {
    for (table, path) in tables {
        if !table.columns.metrics.iter().any(|m| m == metric) {
            return Err(CommandError::BadInput(format!(
                "{}: no metric `{metric}` (it has: {})",
                path.display(),
                table.columns.metrics.join(", ")
            )));
        }
    }
    Ok(())
}

/// `--labels A,B`: exactly two non-empty labels.
fn given_labels(labels: Option<&str>) -> Result<Option<(String, String)>, CommandError> {
    let Some(text) = labels else { return Ok(None) };
    match text.split(',').map(str::trim).collect::<Vec<_>>().as_slice() {
        [a, b] if !a.is_empty() && !b.is_empty() => Ok(Some((a.to_string(), b.to_string()))),
        _ => Err(CommandError::BadInput(format!("--labels `{text}`: give exactly two non-empty labels, `A,B`"))),
    }
}

/// The first toolchain whose recorded version differs between the two sidecars (the usual reason to
/// compare, e.g. `cann: 8.0.0` vs `cann: 9.0.0`), else file stems.
fn toolchain_labels(sidecars: &[Option<Sidecar>; 2], a: &Path, b: &Path) -> (String, String) {
    let [toolchain_a, toolchain_b] = sidecars.each_ref().map(|s| s.as_ref().map(|s| &s.provenance.toolchain));
    let differing = toolchain_a.zip(toolchain_b).and_then(|(a, b)| {
        a.iter().find_map(|(name, version)| {
            let other = b.get(name).filter(|other| *other != version)?;
            Some((format!("{name}: {version}"), format!("{name}: {other}")))
        })
    });
    differing.unwrap_or_else(|| (stem(a), stem(b)))
}

fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(|| path.display().to_string(), |stem| stem.to_string_lossy().into_owned())
}

impl From<ControlScalingArg> for ControlScaling {
    fn from(arg: ControlScalingArg) -> ControlScaling {
        match arg {
            ControlScalingArg::Estimated => ControlScaling::Estimated,
            ControlScalingArg::Proportional => ControlScaling::Proportional,
        }
    }
}
