//! The markdown report of a comparison of two sweeps: per-setting verdicts and the gate result.

use std::fmt::Write;

use super::number_format::{confidence, degrees, number, p_value, percent, signed_percent};
use super::setting_columns::SettingColumns;
use serde_json::{json, Value};

use super::analysis_json::{setting_object, ANALYSIS_SCHEMA_VERSION};
use crate::compare::{Comparison, Design, SettingComparison, Verdict};

/// Render a comparison: the method line, per joined setting n, means, B/A with its 95% CI, the
/// Holm-adjusted p-value, the control's B/A and the verdict; unmatched settings; warnings where the
/// control moved; and the regression gate's outcome.
pub fn compare_markdown(comparison: &Comparison, label_a: &str, label_b: &str, title: &str) -> String {
    let config = &comparison.config;
    let all_settings =
        comparison.settings.iter().map(|s| &s.setting).chain(&comparison.only_a).chain(&comparison.only_b);
    let columns = SettingColumns::of(all_settings);
    let mut out = format!(
        "# {title}\n\nA = {label_a}, B = {label_b}. Metric: {} ({} is better).\n\n{}\n\n{}\n",
        config.metric,
        config.direction,
        headline(comparison, label_b),
        method_line(comparison)
    );
    out.push_str(&columns.fixed_line().unwrap_or_default());
    let interval = format!("B/A ({} CI)", confidence(comparison.level));
    let mut header = vec!["n A", "n B", "mean A", "mean B", interval.as_str(), "p (Holm)", "verdict"];
    if config.control.is_some() {
        header.insert(6, "control B/A");
    }
    let mut table = columns.table(&header);
    for setting in &comparison.settings {
        let mut cells = comparison_cells(setting);
        if config.control.is_some() {
            cells.insert(6, setting.control_ratio.map_or("-".to_string(), |r| format!("{r:.3}")));
        }
        table.push(columns.cells(&setting.setting).into_iter().chain(cells).collect());
    }
    write!(out, "\n{}", table.render()).unwrap();
    for (side, unmatched) in [(label_a, &comparison.only_a), (label_b, &comparison.only_b)] {
        if !unmatched.is_empty() {
            let labels: Vec<String> = unmatched.iter().map(|s| columns.label(s)).collect();
            write!(out, "\nOnly in {side}: {}.\n", labels.join("; ")).unwrap();
        }
    }
    out.push_str(&control_warning(comparison, &columns));
    out.push_str(&gate_line(comparison, &columns));
    out
}

/// The grid-wide answer first: B's change over all settings, or why it cannot be told.
fn headline(comparison: &Comparison, label_b: &str) -> String {
    if let Some(change) = comparison.machine_changed() {
        let control = comparison.config.control.as_deref().unwrap_or("control");
        return format!(
            "Headline: cannot tell: the machine changed ({control} x{} between the sides, beyond the {} control \
             threshold): no change of the metric can be attributed to {label_b}.",
            number(change),
            percent(comparison.config.control_threshold)
        );
    }
    let Some(overall) = &comparison.overall else {
        return "Headline: fewer than two settings could be tested, so there is no grid-wide answer.".to_string();
    };
    let better = comparison.config.direction == crate::analyse::Direction::Higher;
    let change = overall.ratio.ratio - 1.0;
    let (word, low, high) = match (change >= 0.0) == better {
        true => ("better", overall.ratio.low - 1.0, overall.ratio.high - 1.0),
        false => ("worse", overall.ratio.low - 1.0, overall.ratio.high - 1.0),
    };
    let spread = if overall.is_consistent() {
        "consistent across settings".to_string()
    } else {
        format!(
            "but not the same everywhere (between-setting sd {}, I² {})",
            percent(overall.effects.tau2.sqrt()),
            percent(overall.effects.i2)
        )
    };
    let verdict = match overall.verdict {
        Verdict::Regressed => "a significant regression",
        Verdict::Improved => "a significant improvement",
        _ => "not a significant change beyond the threshold",
    };
    format!(
        "Headline: {label_b} is {} {word} overall ({} CI {}..{}), {spread}: {verdict} (random-effects \
         meta-analysis over {} settings, DerSimonian & Laird 1986, Hartung-Knapp interval; p {} Holm-adjusted).",
        percent(change.abs()),
        confidence(comparison.level),
        signed_percent(low),
        signed_percent(high),
        overall.effects.settings,
        p_value(overall.p_adjusted)
    )
}

/// How the verdicts were reached.
fn method_line(comparison: &Comparison) -> String {
    let config = &comparison.config;
    let model = &comparison.model;
    let design = match comparison.design() {
        Design::Paired => "rounds as blocks both sides share (one interleaved sweep)",
        Design::Welch => "independent samples (the sides share no rounds)",
    };
    let control = model.adjustment.as_ref().map_or_else(String::new, |a| {
        format!(
            "; control {} as a per-run covariate (CUPED, Deng et al. 2013): slope {}, removing {} of the residual \
             variance",
            a.metric,
            number(a.slope),
            percent(a.variance_removed)
        )
    });
    let prior = model.prior.map_or_else(String::new, |prior| {
        if prior.prior_df.is_infinite() {
            "; one pooled variance (empirical Bayes finds the settings' variances equal)".to_string()
        } else {
            format!(
                "; variances moderated across settings (empirical Bayes, Smyth 2004: d0 = {})",
                degrees(prior.prior_df)
            )
        }
    });
    let stragglers = match model.stragglers.len() {
        0 => String::new(),
        n => format!("; {n} straggler run(s) left out of the fit"),
    };
    format!(
        "Method: a robust model of log values (Huber 1964), {design}{control}{prior}{stragglers}; {} residual df; \
         each setting's B/A by the moderated t, and the grid's by a random-effects meta-analysis, Holm-corrected \
         over {} tests at alpha {}; a regression is significant and worse by more than {}.",
        degrees(model.residual_df),
        comparison.tests(),
        config.alpha,
        percent(config.threshold)
    )
}

fn comparison_cells(setting: &SettingComparison) -> Vec<String> {
    let mean = |m: Option<f64>| m.map_or("-".to_string(), number);
    let ratio = setting.ratio.map_or("-".to_string(), |r| format!("{:.3} [{:.3}, {:.3}]", r.ratio, r.low, r.high));
    vec![
        setting.n_a.to_string(),
        setting.n_b.to_string(),
        mean(setting.mean_a),
        mean(setting.mean_b),
        ratio,
        setting.p_adjusted.map_or("-".to_string(), p_value),
        match (setting.verdict, setting.reason) {
            (Verdict::Insufficient, Some(reason)) => format!("cannot tell ({reason})"),
            (verdict, _) => verdict_word(verdict).to_string(),
        },
    ]
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Improved => "improved",
        Verdict::Regressed => "REGRESSED",
        Verdict::NoSignificantChange => "no significant change",
        Verdict::Insufficient => "insufficient data",
        Verdict::MachineChanged => "cannot tell (control moved)",
    }
}

/// A warning naming the settings whose control metric moved beyond the threshold.
fn control_warning(comparison: &Comparison, columns: &SettingColumns) -> String {
    let moved = comparison.control_moved();
    let (Some(control), false) = (&comparison.config.control, moved.is_empty()) else {
        return String::new();
    };
    let labels: Vec<String> = moved
        .iter()
        .map(|s| format!("{} ({:.3})", columns.label(&s.setting), s.control_ratio.unwrap_or(f64::NAN)))
        .collect();
    format!(
        "\nWARNING: the control {control} moved by more than {} at {}: the machine's speed changed between \
         the sides, so part of a change may not be the thing compared.\n",
        percent(comparison.config.threshold),
        labels.join("; ")
    )
}

fn gate_line(comparison: &Comparison, columns: &SettingColumns) -> String {
    let regressed: Vec<String> = comparison
        .settings
        .iter()
        .filter(|s| s.verdict == Verdict::Regressed)
        .map(|s| columns.label(&s.setting))
        .collect();
    if regressed.is_empty() {
        "\nNo significant regression.\n".to_string()
    } else {
        format!("\n{} significant regression(s): {}.\n", regressed.len(), regressed.join("; "))
    }
}

/// The comparison as JSON: per joined setting its typed labels, ratio B/A with its 95% interval, the
/// Holm-adjusted p-value and the verdict (`improved`, `regressed`, `no change`, `insufficient`).
pub fn compare_json(comparison: &Comparison, label_a: &str, label_b: &str) -> Value {
    let settings: Vec<Value> = comparison
        .settings
        .iter()
        .map(|s| {
            json!({
                "setting": setting_object(&s.setting),
                "n_a": s.n_a, "n_b": s.n_b, "mean_a": s.mean_a, "mean_b": s.mean_b,
                "ratio": s.ratio.map(|r| r.ratio), "low": s.ratio.map(|r| r.low), "high": s.ratio.map(|r| r.high),
                "marginal_low": s.marginal.map(|r| r.low), "marginal_high": s.marginal.map(|r| r.high),
                "p": s.p_value, "p_adjusted": s.p_adjusted, "df": s.df, "reason": s.reason,
                "control_ratio": s.control_ratio,
                "verdict": s.verdict,
            })
        })
        .collect();
    let config = &comparison.config;
    json!({
        "schema_version": ANALYSIS_SCHEMA_VERSION,
        "a": label_a, "b": label_b,
        "metric": config.metric, "direction": config.direction, "alpha": config.alpha,
        "threshold": config.threshold, "control": config.control,
        "method": comparison.design(),
        "tests": comparison.tests(),
        "settings": settings,
        "only_a": comparison.only_a.iter().map(setting_object).collect::<Vec<_>>(),
        "only_b": comparison.only_b.iter().map(setting_object).collect::<Vec<_>>(),
        "regression": comparison.has_significant_regression(),
        "level": comparison.level,
        "overall": comparison.overall.as_ref().map(|o| json!({
            "ratio": o.ratio.ratio, "low": o.ratio.low, "high": o.ratio.high,
            "p_adjusted": o.p_adjusted, "verdict": o.verdict,
            "tau": o.effects.tau2.sqrt(), "i2": o.effects.i2, "q": o.effects.q,
            "heterogeneity_p": o.heterogeneity_p, "consistent": o.is_consistent(),
            "settings": o.effects.settings, "df": o.effects.df,
        })),
        "control_change": comparison.control_change,
        "machine_changed": comparison.machine_changed().is_some(),
        "residual_df": comparison.model.residual_df,
        "stragglers": comparison.model.stragglers.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_slice_sweep, fixture_slice_sweep_b};
    use crate::analyse::Direction;
    use crate::compare::{compare, CompareConfig};

    fn fixture_config() -> CompareConfig {
        CompareConfig {
            metric: "prefill_tokens_per_s".into(),
            direction: Direction::Higher,
            threshold: 0.02,
            alpha: 0.05,
            control: None,
            control_threshold: crate::compare::DEFAULT_CONTROL_THRESHOLD,
        }
    }

    fn fixture_report() -> String {
        let comparison = compare(&fixture_slice_sweep(), &fixture_slice_sweep_b(), &fixture_config());
        compare_markdown(&comparison, "CANN 8", "CANN 9", "Slice sweep, CANN 8 vs 9")
    }

    #[test]
    fn comparison_report() {
        insta::assert_snapshot!(fixture_report());
    }

    #[test]
    fn numbers_in_the_comparison_report() {
        let report = fixture_report();
        assert!(report.contains("| 512  | 4      | 3   | 3   | 431.4  | 388.2  | 0.900 ["), "{report}");
        assert!(report.contains("Only in CANN 9: rows=4096 slices=4."));
        assert!(report.ends_with("1 significant regression(s): rows=512 slices=4.\n"));
    }
}
