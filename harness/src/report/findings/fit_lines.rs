//! `## Fit`: the declared cost line over the settings, how well it predicts points it was not fitted to
//! (leave-one-out), and whether one line describes the data at all; and `## Fit per <group>`, the per-group
//! cost fits (`fit = { ..., by = [...] }`) as a table.

use serde_json::{json, Value};

use crate::analyse::{CostFit, GroupFit, SettingSummary, TimeUnit};
use crate::report::analysis_json::labels_object;
use crate::report::document::Section;
use crate::report::finding::{Finding, Place};
use crate::report::number_format::{number, percent, plain_number};
use crate::report::sweep_report::SweepReport;
use crate::report::table::Table;
use crate::report::text::Text;

/// The finding: the declared cost line, pooled or one per `by` group; `fits` in `analysis.json` holds the
/// per-group lines, in the units measured.
pub struct FitLines;

impl Finding for FitLines {
    fn name(&self) -> &'static str {
        "fits"
    }

    fn method(&self) -> &'static str {
        "ordinary least squares, leave-one-out prediction error"
    }

    fn sections(&self, report: &SweepReport) -> Vec<(Place, Section)> {
        vec![(Place::Results, fit_section(report)), (Place::Tables, group_fit_table(report))]
    }

    fn json(&self, report: &SweepReport) -> Option<Value> {
        let json = |group: &GroupFit| {
            json!({ "group": labels_object(&group.group), "n": group.fit.n, "fixed": group.fit.fixed,
                    "per_unit": group.fit.per_unit, "r_squared": group.fit.r_squared,
                    "worst_held_out_error": group.fit.loo_max_rel_error(),
                    "middle_held_out_error": group.middle_error })
        };
        Some(report.analysis.group_fits.iter().map(json).collect())
    }
}

/// A held-out error above this share says one line does not describe the points.
const FIT_HELD_OUT_LIMIT: f64 = 0.20;

/// The fit's line and its verdict; empty without a fit.
fn fit_section(report: &SweepReport) -> Section {
    let section = Section::new("Fit");
    let (Some(fit), Some(names)) = (report.analysis.fit.as_ref(), report.config.fit.as_ref()) else { return section };
    let points = SettingSummary::points(&report.analysis.settings, &names.x, &names.y);
    let held_out = fit.loo_max_rel_error().map_or_else(
        || "too few points to hold one out".to_string(),
        |error| format!("worst leave-one-out prediction error {}", percent(error)),
    );
    let in_y = |value: f64| report.context.units.in_unit(&number(value), &names.y);
    let (x, y) = (&names.x, &names.y);
    section
        .paragraph(format!(
            "Fit ({} settings, ordinary least squares): {y} = {} + {} × {x}; R² = {:.4}; {held_out}.",
            fit.n,
            in_y(fit.fixed),
            in_y(fit.per_unit),
            fit.r_squared,
        ))
        .paragraph(fit_verdict(fit, &points, x))
}

/// The fit's verdict in one sentence: the line fits, or it does not (at which end of `x` it misses
/// worst, or a negative fixed cost, which no cost can have).
fn fit_verdict(fit: &CostFit, points: &[(f64, f64)], x: &str) -> String {
    let worst = fit.loo_rel_errors.as_ref().and_then(|errors| {
        let (index, error) = errors.iter().copied().enumerate().max_by(|a, b| a.1.total_cmp(&b.1))?;
        Some((points.get(index)?.0, error))
    });
    let misfit = worst.filter(|(_, error)| *error > FIT_HELD_OUT_LIMIT);
    let negative = (fit.fixed < 0.0).then(|| format!("a negative fixed cost ({})", number(fit.fixed)));
    let held_out = misfit.map(|(at, error)| {
        let end = match (points.iter().all(|p| p.0 >= at), points.iter().all(|p| p.0 <= at)) {
            (true, false) => format!(" (the small-{x} end)"),
            (false, true) => format!(" (the large-{x} end)"),
            _ => String::new(),
        };
        format!("held-out error {} at {x}={}{end}", percent(error), plain_number(at))
    });
    match (held_out, negative) {
        (None, None) => match worst {
            Some((_, error)) => format!("Verdict: one line fits: held-out error at most {}.", percent(error)),
            None => "Verdict: too few settings to test the line on points it was not fitted to.".to_string(),
        },
        (held_out, negative) => {
            let reasons: Vec<String> = [held_out, negative].into_iter().flatten().collect();
            format!("Verdict: one line does not fit {x}: {}.", reasons.join("; "))
        }
    }
}

/// `## Fit per topology`: per group its points, fixed cost, per-unit cost, bandwidth (when x is bytes and
/// y names a time unit), R² and worst leave-one-out error, in declared grid order.
fn group_fit_table(report: &SweepReport) -> Section {
    let analysis = report.analysis;
    let Some(fit) = report.config.fit.as_ref().filter(|_| !analysis.group_fits.is_empty()) else {
        return Section::new("Fit per group");
    };
    let unit = TimeUnit::of_metric(&fit.y);
    let bandwidth_unit = unit.filter(|_| names_bytes(&fit.x));
    let shown_unit = report.context.units.of(&fit.y);
    let suffix = shown_unit.as_ref().map_or_else(String::new, |unit| format!(" ({unit})"));
    let mut header = fit.by.clone();
    header.extend([
        "n".to_string(),
        format!("fixed{suffix}"),
        format!("per {}{suffix}", fit.x),
        "R²".to_string(),
        "worst held-out error".to_string(),
        "middle held out".to_string(),
    ]);
    header.extend(bandwidth_unit.map(|_| "GB/s".to_string()));
    let mut table = Table::new(header);
    for group in &analysis.group_fits {
        let mut row: Vec<String> = group.group.iter().map(|(_, value)| value.to_string()).collect();
        row.extend([
            group.fit.n.to_string(),
            number(group.fit.fixed),
            number(group.fit.per_unit),
            format!("{:.4}", group.fit.r_squared),
            group.fit.loo_max_rel_error().map_or_else(|| "too few points".to_string(), percent),
            group.middle_error.map_or_else(|| "-".to_string(), percent),
        ]);
        row.extend(
            bandwidth_unit.map(|unit| group.fit.gigabytes_per_second(unit).map_or_else(|| "-".to_string(), number)),
        );
        table.push(row);
    }
    let method = "Ordinary least squares per group; held-out error: the worst relative error predicting a point \
                  left out of its group's fit (leave-one-out); middle held out: that error at the median x (the \
                  study's check of a line through the ends).";
    // Then what the units are taken to be.
    let paragraph = match (unit, bandwidth_unit) {
        (_, Some(unit)) => Text::plain(method)
            .and(" GB/s = 10⁹ bytes per second of the marginal cost, taking ")
            .code(&fit.x)
            .and(" in bytes and ")
            .code(&fit.y)
            .and(format!(" in {}.", unit.symbol())),
        (Some(_), None) => Text::plain(method),
        (None, _) => Text::plain(method)
            .and(" ")
            .code(&fit.y)
            .and(" names no time unit, so costs are per unit of ")
            .code(&fit.x)
            .and(" as measured."),
    };
    Section::new(format!("Fit per {}: {} = fixed + per-unit × {}", fit.by.join(" "), fit.y, fit.x))
        .paragraph(paragraph)
        .table(table)
}

/// `bytes`, `payload_bytes`, `bytes_per_call`: x counts bytes.
fn names_bytes(name: &str) -> bool {
    name.split('_').next() == Some("bytes") || name.rsplit('_').next() == Some("bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_config};
    use crate::analyse::{AnalysisConfig, SweepAnalysis};
    use crate::declare::FitConfig;
    use crate::report::{markdown, Document, ReportContext};

    fn fit(fixed: f64, loo_rel_errors: Option<Vec<f64>>) -> CostFit {
        CostFit { fixed, per_unit: 0.01, r_squared: 0.9, n: 3, loo_rel_errors, errors: None }
    }

    /// A fit with a negative fixed cost and 258% held-out error was printed without a verdict.
    #[test]
    fn a_fit_that_misses_a_held_out_point_gets_a_verdict() {
        let points = [(4096.0, 10.0), (65536.0, 20.0), (1048576.0, 300.0)];
        let verdict = fit_verdict(&fit(-1.5, Some(vec![2.58, 0.1, 0.3])), &points, "bytes");
        assert_eq!(
            verdict,
            "Verdict: one line does not fit bytes: held-out error 258.0% at bytes=4096 (the small-bytes end); \
             a negative fixed cost (-1.500)."
        );
        assert_eq!(
            fit_verdict(&fit(2.0, Some(vec![0.05, 0.02, 0.1])), &points, "bytes"),
            "Verdict: one line fits: held-out error at most 10.0%."
        );
        assert!(fit_verdict(&fit(2.0, None), &points[..2], "bytes").contains("too few settings"));
    }

    /// The table's section as markdown, without the title.
    fn fit_markdown(analysis: &SweepAnalysis, config: &AnalysisConfig) -> String {
        let context = ReportContext::default();
        let report = SweepReport { analysis, config, context: &context, title: "t" };
        let mut document = Document::new("t");
        document.push(group_fit_table(&report));
        markdown(&document).trim_start_matches("# t\n\n").to_string()
    }

    fn allreduce(y: &str) -> (SweepAnalysis, AnalysisConfig) {
        // torus: 1000 ns + 0.05 ns/byte (20 GB/s); mesh: 2000 ns + 0.1 ns/byte (10 GB/s), declared mesh first.
        let mut observations = Vec::new();
        for (topology, fixed, per_byte) in [("mesh", 2000.0, 0.1), ("torus", 1000.0, 0.05)] {
            for bytes in [1_000_000.0, 2_000_000.0, 4_000_000.0] {
                let setting = [("topology", topology), ("bytes", &format!("{bytes}"))];
                observations.push(fixture_observation(&setting, 1, &[(y, fixed + per_byte * bytes)]));
            }
        }
        let config = AnalysisConfig {
            primary: y.into(),
            group_by: vec![],
            control: None,
            equivalence_key: None,
            fit: Some(FitConfig { x: "bytes".into(), y: y.into(), by: vec!["topology".into()] }),
            ..fixture_slice_config()
        };
        (analyse_sweep(&observations, &config, true, &[]), config)
    }

    #[test]
    fn one_line_per_topology_with_its_bandwidth() {
        let (analysis, config) = allreduce("latency_ns");
        assert!(analysis.fit.is_none(), "no pooled line across topologies");
        let table = fit_markdown(&analysis, &config);
        assert!(table.starts_with("## Fit per topology: latency_ns = fixed + per-unit × bytes\n"), "{table}");
        assert!(table.contains("taking `bytes` in bytes and `latency_ns` in ns"), "{table}");
        assert!(
            table.contains("| topology | n   | fixed (ns) | per bytes (ns) | R²     | worst held-out error | middle held out | GB/s"),
            "{table}"
        );
        assert!(
            table.contains("| mesh     | 3   | 2000       | 0.1000         | 1.0000 | 0.0%                 | 0.0%            | 10.00"),
            "{table}"
        );
        assert!(
            table.contains("| torus    | 3   | 1000       | 0.05000        | 1.0000 | 0.0%                 | 0.0%            | 20.00"),
            "{table}"
        );
    }

    #[test]
    fn analysis_json_has_one_fit_per_group() {
        let (analysis, config) = allreduce("latency_ns");
        let context = ReportContext::default();
        let json = crate::report::analysis_json(&SweepReport {
            analysis: &analysis,
            config: &config,
            context: &context,
            title: "t",
        });
        let fits = json["fits"].as_array().unwrap();
        assert_eq!(fits.len(), 2);
        assert_eq!((fits[1]["group"]["topology"].as_str(), fits[1]["n"].as_u64()), (Some("torus"), Some(3)));
        assert!((fits[1]["per_unit"].as_f64().unwrap() - 0.05).abs() < 1e-12);
    }

    #[test]
    fn without_a_time_unit_only_the_per_unit_cost_is_given() {
        let (analysis, config) = allreduce("latency");
        let table = fit_markdown(&analysis, &config);
        assert!(!table.contains("GB/s") && table.contains("`latency` names no time unit"), "{table}");
    }
}
