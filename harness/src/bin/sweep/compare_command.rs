//! `sweep compare A.csv B.csv`: the same sweep under two versions, judged setting by setting.

use std::path::Path;

use sweep::analyse::Direction;
use sweep::compare::{self, CompareConfig};
use sweep::exit_code;
use sweep::record::{ResultPaths, Sidecar};
use sweep::report;

use crate::args::{CompareArgs, DirectionArg};
use crate::exit_status::CommandError;
use crate::summary;

pub fn compare(args: CompareArgs) -> Result<u8, CommandError> {
    let a = summary::read_finished(&args.a)?;
    let b = summary::read_finished(&args.b)?;
    let config = compare_config(&args)?;
    for (table, path) in [(&a, &args.a), (&b, &args.b)] {
        if !table.columns.metrics.contains(&config.metric) {
            return Err(CommandError::BadInput(format!(
                "{}: no metric `{}` (it has: {})",
                path.display(),
                config.metric,
                table.columns.metrics.join(", ")
            )));
        }
    }
    let comparison = compare::compare(&a.observations, &b.observations, &config);
    let title = format!("{} vs {}", args.a.display(), args.b.display());
    let (label_a, label_b) = labels(&args);
    print!("{}", report::compare_markdown(&comparison, &label_a, &label_b, &title));
    if comparison.has_significant_regression() {
        eprintln!(
            "significant regression of `{}` beyond {:.1}% (alpha {})",
            config.metric,
            config.threshold * 100.0,
            config.alpha
        );
        return Ok(exit_code::CHECK_FAILED as u8);
    }
    Ok(exit_code::SUCCESS as u8)
}

/// Metric and direction from the flags, else from A's sidecar (the sweep's primary metric).
fn compare_config(args: &CompareArgs) -> Result<CompareConfig, CommandError> {
    let valid = args.threshold.is_finite() && args.threshold >= 0.0 && args.alpha > 0.0 && args.alpha < 1.0;
    if !valid {
        return Err(CommandError::BadInput("--threshold must be >= 0 and --alpha in (0, 1)".to_string()));
    }
    let recorded = summary::recorded_analysis(&ResultPaths::for_csv(&args.a)).ok();
    let metric = match (&args.metric, &recorded) {
        (Some(metric), _) => metric.clone(),
        (None, Some(config)) => config.primary.clone(),
        (None, None) => {
            return Err(CommandError::BadInput(format!(
                "{}: no sidecar to read the primary metric from: pass --metric",
                args.a.display()
            )))
        }
    };
    let direction = match (args.direction, &recorded) {
        (Some(DirectionArg::Higher), _) => Direction::Higher,
        (Some(DirectionArg::Lower), _) => Direction::Lower,
        (None, Some(config)) if config.primary == metric => config.direction,
        (None, _) => {
            return Err(CommandError::BadInput(format!(
                "which way is better for `{metric}`? pass --direction higher|lower"
            )))
        }
    };
    Ok(CompareConfig { metric, direction, threshold: args.threshold, alpha: args.alpha })
}

/// Column labels: `--labels`, else the first toolchain whose recorded version differs between the
/// two sidecars (the usual reason to compare, e.g. `cann: 8.0.0` vs `cann: 9.0.0`), else file stems.
fn labels(args: &CompareArgs) -> (String, String) {
    if let Some((a, b)) = args.labels.as_deref().and_then(|labels| labels.split_once(',')) {
        return (a.to_string(), b.to_string());
    }
    let toolchain =
        |csv: &Path| Sidecar::read(&ResultPaths::for_csv(csv).sidecar).ok().map(|sidecar| sidecar.provenance.toolchain);
    let differing = toolchain(&args.a).zip(toolchain(&args.b)).and_then(|(a, b)| {
        a.iter().find_map(|(name, version)| {
            b.get(name)
                .filter(|other| *other != version)
                .map(|other| (format!("{name}: {version}"), format!("{name}: {other}")))
        })
    });
    differing.unwrap_or_else(|| (stem(&args.a), stem(&args.b)))
}

fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(|| path.display().to_string(), |stem| stem.to_string_lossy().into_owned())
}
