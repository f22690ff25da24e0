//! The markdown summary of one sweep: settings, winners, drift, equivalence, failures.

use std::fmt::Write;

use super::group_fits::group_fit_table;
use super::markdown_table::MarkdownTable;
use super::number_format::{confidence, number, percent, plain_number, signed_percent, with_ci};
use super::pivot_table::pivot_table;
use super::planned_runs::PlannedRuns;
use super::relative_effects::relative_table;
use super::setting_columns::SettingColumns;
use super::verdict_lines::{best_table, verdict_section};
use crate::analyse::{
    Agreement, AnalysisConfig, CostFit, DriftBound, EquivalenceCheck, FailureSummary, GroupOutcome, SettingSummary,
    SweepAnalysis,
};
use crate::spec::ReportConfig;

/// Render a sweep's analysis as markdown tables in the style of the slice study: per-setting
/// statistics of the primary metric, the other metrics, the best setting per group with washes,
/// the drift bound, equivalence checks (disagreements as WARNING lines) and failed runs; with `report`,
/// the tables it declares (a pivot of per-setting means).
pub fn run_summary_markdown(
    analysis: &SweepAnalysis,
    config: &AnalysisConfig,
    report: &ReportConfig,
    planned: Option<PlannedRuns>,
    title: &str,
) -> String {
    let columns = SettingColumns::of(analysis.settings.iter().map(|s| &s.setting));
    let mut out = format!("# {title}\n\n");
    writeln!(out, "Primary metric: {} ({} is better).", config.primary, config.direction).unwrap();
    out.push_str(&columns.fixed_line().unwrap_or_default());
    out.push('\n');
    out.push_str(&verdict_section(analysis, config, &columns));
    out.push_str(&settings_table(analysis, config, &columns));
    out.push_str(&other_metrics_table(analysis, config, &columns));
    if let Some(pivot) = &report.pivot {
        out.push_str(&pivot_table(analysis, pivot));
    }
    out.push_str(&best_table(analysis, config, &columns));
    out.push_str(&relative_table(analysis, config, &columns));
    if let Some(drift) = &analysis.drift {
        out.push_str(&drift_line(drift));
    }
    out.push_str(&fit_summary(analysis, config).unwrap_or_default());
    out.push_str(&group_fit_table(analysis, config));
    if let (Some(rule), Some(names)) = (analysis.rows_per_slice, &config.rows_per_slice) {
        let resolved = if analysis.verdicts.groups.iter().any(|group| group.outcome != GroupOutcome::Resolved) {
            " Not resolved by this data: some groups are not resolved, so another rule fits as well."
        } else {
            ""
        };
        let rule = number(rule);
        writeln!(out, "Rows-per-slice rule implied by the best settings: double `{}` while {} / slices stays >= {rule}.{resolved}\n", names.slices, names.rows).unwrap();
    }
    if let Some(check) = &analysis.equivalence {
        out.push_str(&equivalence_lines(check, analysis, &columns));
    }
    out.push_str(&failure_lines(&analysis.failures));
    if let Some(note) = planned.and_then(|p| p.shortfall(analysis.failures.runs)) {
        writeln!(out, "\n{note}").unwrap();
    }
    out
}

fn settings_table(analysis: &SweepAnalysis, config: &AnalysisConfig, columns: &SettingColumns) -> String {
    let mut table = columns.table(&["n", "mean ± 95% CI", "median", "min..max", "spread"]);
    for summary in &analysis.settings {
        let stats = match summary.metric(&config.primary) {
            Some(s) => vec![
                s.n.to_string(),
                with_ci(s.mean, s.ci95),
                number(s.median),
                format!("{}..{}", number(s.min), number(s.max)),
                percent(s.rel_spread),
            ],
            None => vec!["0".into(), "no usable runs".into(), String::new(), String::new(), String::new()],
        };
        table.push(columns.cells(&summary.setting).into_iter().chain(stats).collect());
    }
    format!("## {}\n\n{}\n", config.primary, table.render())
}

/// Every metric other than the primary and those that only echo a param, mean ± 95% CI per setting.
fn other_metrics_table(analysis: &SweepAnalysis, config: &AnalysisConfig, columns: &SettingColumns) -> String {
    let mut names: Vec<&String> = analysis.settings.iter().flat_map(|s| s.metrics.keys()).collect();
    names.sort();
    names.dedup();
    names.retain(|name| **name != config.primary && !SettingSummary::echoes_a_param(&analysis.settings, name));
    if names.is_empty() {
        return String::new();
    }
    let header: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
    let mut table = columns.table(&header);
    for summary in &analysis.settings {
        let cells = names.iter().map(|name| summary.metric(name).map_or(String::new(), |s| with_ci(s.mean, s.ci95)));
        table.push(columns.cells(&summary.setting).into_iter().chain(cells).collect());
    }
    format!("## Other metrics (mean ± 95% CI)\n\n{}\n", table.render())
}

fn drift_line(drift: &DriftBound) -> String {
    let warning = if drift.is_large() { "WARNING: the machine drifted a lot; " } else { "" };
    format!(
        "Drift: {warning}{} varied by {} (pooled within-setting relative sd over {} runs; the widest setting \
         spanned {} of its mean).\n\n",
        drift.metric,
        percent(drift.rel_sd),
        drift.n,
        percent(drift.max_rel_range)
    )
}

/// The declared fit's lines (see `fit_lines`), None without a fit.
pub fn fit_summary(analysis: &SweepAnalysis, config: &AnalysisConfig) -> Option<String> {
    let (fit, names) = (analysis.fit.as_ref()?, config.fit.as_ref()?);
    let points = SettingSummary::points(&analysis.settings, &names.x, &names.y);
    Some(fit_lines(fit, &points, &names.x, &names.y))
}

/// The fitted line, how well it predicts points it was not fitted to (leave-one-out), and whether
/// one line describes the data at all.
fn fit_lines(fit: &CostFit, points: &[(f64, f64)], x: &str, y: &str) -> String {
    let held_out = fit.loo_max_rel_error().map_or_else(
        || "too few points to hold one out".to_string(),
        |error| format!("worst leave-one-out prediction error {}", percent(error)),
    );
    format!(
        "Fit ({} settings, ordinary least squares): {y} = {} + {} × {x}; R² = {:.4}; {held_out}.\n\n{}\n\n",
        fit.n,
        number(fit.fixed),
        number(fit.per_unit),
        fit.r_squared,
        fit_verdict(fit, points, x)
    )
}

/// A held-out error above this share says one line does not describe the points.
const FIT_HELD_OUT_LIMIT: f64 = 0.20;

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

fn equivalence_lines(check: &EquivalenceCheck, analysis: &SweepAnalysis, columns: &SettingColumns) -> String {
    let alpha = analysis.verdicts.alpha;
    let mut out = format!(
        "## Equivalence ({})\n\nSettings resolving to one code path: agree when two one-sided tests (Schuirmann 1987) at \
         alpha {alpha} put their difference within the margin, disagree when it is shown beyond it.\n\n",
        check.key
    );
    for class in &check.classes {
        let members: Vec<String> =
            class.settings.iter().map(|&i| columns.label(&analysis.settings[i].setting)).collect();
        let verdict = match class.agreement {
            Agreement::Agree => "agree".to_string(),
            Agreement::Disagree => "WARNING: disagree".to_string(),
            Agreement::CannotTell(Some(reason)) => format!("cannot tell ({reason})"),
            Agreement::CannotTell(None) => "cannot tell".to_string(),
        };
        let interval = class.difference.map_or_else(String::new, |(difference, low, high)| {
            format!(
                "; difference {} ({} interval {}..{})",
                signed_percent(difference),
                confidence(1.0 - 2.0 * alpha),
                signed_percent(low),
                signed_percent(high)
            )
        });
        writeln!(
            out,
            "- {verdict}: {} resolve to {}={}; spread {} against a margin of {}{interval}.",
            members.join(", "),
            check.key,
            class.value,
            percent(class.spread),
            percent(class.bound)
        )
        .unwrap();
    }
    for &index in &check.inconsistent {
        let setting = columns.label(&analysis.settings[index].setting);
        writeln!(out, "- WARNING: {setting} reported more than one {} across its runs.", check.key).unwrap();
    }
    if check.classes.is_empty() && check.inconsistent.is_empty() {
        out.push_str("No two settings resolve to the same value.\n");
    }
    out.push('\n');
    out
}

fn failure_lines(failures: &FailureSummary) -> String {
    if failures.failed == 0 {
        return format!("All {} runs finished ok.\n", failures.runs);
    }
    let mut table = MarkdownTable::new(vec!["reason".into(), "runs".into()]);
    for (reason, count) in &failures.reasons {
        table.push(vec![reason.clone(), count.to_string()]);
    }
    format!("## Failed runs\n\n{} of {} runs failed.\n\n{}", failures.failed, failures.runs, table.render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{fixture_slice_config, fixture_slice_sweep};

    fn fixture_report() -> String {
        let config = fixture_slice_config();
        run_summary_markdown(
            &analyse_sweep(&fixture_slice_sweep(), &config, true, &[]),
            &config,
            &ReportConfig::default(),
            None,
            "Forced slice sweep",
        )
    }

    #[test]
    fn slice_sweep_summary() {
        insta::assert_snapshot!(fixture_report());
    }

    #[test]
    fn numbers_in_the_summary() {
        let report = fixture_report();
        assert!(report.contains("| 512  | 1      | 3   | 875.8 ± 28.3"), "{report}");
        assert!(report.contains(
            "| 512  | slices=8 | 879.6 ± 17.4         | tied     | slices=4 0.4896 [0.4788, 0.5006] | slices=1 0.9962 [0.9685, 1.025] |"
        ), "{report}");
        assert!(report.contains("- rows=2048: resolved: slices=2 is best (1238.6 prefill_tokens_per_s)"), "{report}");
        assert!(report.contains("decode_tokens_per_s varied by 1.0% (pooled within-setting relative sd over 21 runs"));
        assert!(
            report.contains("- agree: rows=512 slices=1, rows=512 slices=8 resolve to overlap_slices=1; spread 0.4%")
        );
        assert!(report.contains("3 of 25 runs failed."));
        assert!(report.contains("Fixed: variant=baseline."));
    }

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

    #[test]
    fn no_failures_and_no_options() {
        let config =
            AnalysisConfig { control: None, equivalence_key: None, group_by: vec![], ..fixture_slice_config() };
        let observations: Vec<_> =
            fixture_slice_sweep().into_iter().filter(|o| o.status == crate::launch::RunStatus::Ok).collect();
        let report = run_summary_markdown(
            &analyse_sweep(&observations, &config, true, &[]),
            &config,
            &ReportConfig::default(),
            None,
            "t",
        );
        assert!(report.contains("All 22 runs finished ok."));
        assert!(!report.contains("Drift") && !report.contains("Equivalence"));
    }
}
