//! The markdown report of a comparison of two sweeps: per-setting verdicts and the gate result.

use std::fmt::Write;

use super::number_format::{number, p_value, percent};
use super::setting_columns::SettingColumns;
use crate::compare::{Comparison, SettingComparison, Verdict};

/// Render a comparison: per joined setting n, means, B/A with its 95% CI (delta method on the log
/// ratio), Welch p-value and verdict; unmatched settings; and the regression gate's outcome.
pub fn compare_markdown(comparison: &Comparison, label_a: &str, label_b: &str, title: &str) -> String {
    let config = &comparison.config;
    let all_settings =
        comparison.settings.iter().map(|s| &s.setting).chain(&comparison.only_a).chain(&comparison.only_b);
    let columns = SettingColumns::of(all_settings);
    let mut out = format!(
        "# {title}\n\nA = {label_a}, B = {label_b}. Metric: {} ({} is better). A regression is significant at \
         alpha {} (Welch's t-test) and worse by more than {}.\n",
        config.metric,
        config.direction,
        config.alpha,
        percent(config.threshold)
    );
    out.push_str(&columns.fixed_line().unwrap_or_default());
    let mut table = columns.table(&["n A", "n B", "mean A", "mean B", "B/A (95% CI)", "p", "verdict"]);
    for setting in &comparison.settings {
        table.push(columns.cells(&setting.setting).into_iter().chain(comparison_cells(setting)).collect());
    }
    write!(out, "\n{}", table.render()).unwrap();
    for (side, unmatched) in [(label_a, &comparison.only_a), (label_b, &comparison.only_b)] {
        if !unmatched.is_empty() {
            let labels: Vec<String> = unmatched.iter().map(|s| columns.label(s)).collect();
            write!(out, "\nOnly in {side}: {}.\n", labels.join("; ")).unwrap();
        }
    }
    out.push_str(&gate_line(comparison, &columns));
    out
}

fn comparison_cells(setting: &SettingComparison) -> Vec<String> {
    let mean = |m: Option<f64>| m.map_or("—".to_string(), number);
    let ratio = setting.ratio.map_or("—".to_string(), |r| format!("{:.3} [{:.3}, {:.3}]", r.ratio, r.low, r.high));
    vec![
        setting.n_a.to_string(),
        setting.n_b.to_string(),
        mean(setting.mean_a),
        mean(setting.mean_b),
        ratio,
        setting.p_value.map_or("—".to_string(), p_value),
        verdict_word(setting.verdict).to_string(),
    ]
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Improved => "improved",
        Verdict::Regressed => "REGRESSED",
        Verdict::NoSignificantChange => "no significant change",
        Verdict::Insufficient => "insufficient data",
    }
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
