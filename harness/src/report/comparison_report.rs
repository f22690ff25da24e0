//! The report of a comparison of two sweeps as a `Document`: what to trust (the machine changed, the
//! control moved, settings on one side only or untested), the verdict (the grid-wide headline and the
//! regression gate), the forest plot, then per-setting verdicts.

use super::document::{Document, Note, Section};
use super::html_figures::compare_forest_svg;
use super::metric_units::MetricUnits;
use super::number_format::{confidence, degrees, number, p_value, percent, signed_percent};
use super::setting_columns::SettingColumns;
use super::table::Table;
use super::text::Text;
use crate::analyse::StragglerSide;
use crate::compare::{Comparison, Design, MachineChange, MachineChangeReason, Verdict};
use crate::declare::ControlScaling;

/// Render a comparison: the method, per joined setting n, means, B/A with its simultaneous CI, the
/// Holm-adjusted p-value, the control's B/A and the verdict; settings on one side only; warnings where
/// the control moved; and the regression gate's outcome.
pub fn compare_document(comparison: &Comparison, labels: (&str, &str), units: &MetricUnits, title: &str) -> Document {
    let (label_a, label_b) = labels;
    let config = &comparison.config;
    let all_settings =
        comparison.settings.iter().map(|s| &s.setting).chain(&comparison.only_a).chain(&comparison.only_b);
    let columns = SettingColumns::of(all_settings);
    let unit = units.of(&config.metric).map_or_else(String::new, |unit| format!(", in {unit}"));
    let what = Text::plain(format!("A = {label_a}, B = {label_b}. Metric: "))
        .code(&config.metric)
        .and(format!("{unit} ({} is better).", config.direction));
    let mut document = Document::new(title);
    document.extend([
        Section::lead().paragraph(what).paragraph_if(columns.fixed_line()),
        Section::new("What to trust").notes(trust_notes(comparison, &columns, labels)),
        Section::new("Verdict")
            .paragraph(headline(comparison, label_b))
            .paragraph(gate_line(comparison, &columns))
            .paragraph(method_line(comparison)),
        Section::new("Figures").figure(
            compare_forest_svg(comparison, label_a, label_b),
            "B/A per setting with its simultaneous interval (compatible with the Holm-corrected tests); dashed: no \
             change; shaded: changes within the threshold.",
        ),
        Section::new("Per setting").table(setting_table(comparison, &columns, units)),
    ]);
    document
}

/// The comparison's warnings (the machine changed, the control moved, untested settings) and notes
/// (settings on one side only, stragglers); that every setting was compared when nothing else is said.
fn trust_notes(comparison: &Comparison, columns: &SettingColumns, (label_a, label_b): (&str, &str)) -> Vec<Note> {
    let mut notes: Vec<Note> = Vec::new();
    if let Some(change) = comparison.machine_changed() {
        notes.push(Note::warning(format!(
            "The machine changed between the sides (the control x{}): see the verdict.",
            number(change)
        )));
    }
    // The settings whose control metric moved beyond the threshold.
    let moved = comparison.control_moved();
    if let (Some(control), false) = (&comparison.config.control, moved.is_empty()) {
        let labels: Vec<String> = moved
            .iter()
            .map(|s| format!("{} ({:.3})", columns.label(&s.setting), s.control_ratio.unwrap_or(f64::NAN)))
            .collect();
        notes.push(Note::warning(Text::plain("The control ").code(control).and(format!(
            " moved by more than {} at {}: the machine's speed changed between the sides, so part of a change may \
             not be the thing compared.",
            percent(comparison.config.threshold),
            labels.join("; ")
        ))));
    }
    let settings = &comparison.settings;
    let untested: Vec<String> =
        settings.iter().filter_map(|s| Some(format!("{} ({})", columns.label(&s.setting), s.reason?))).collect();
    if !untested.is_empty() {
        notes.push(Note::warning(format!("Cannot tell {}: no test was possible.", untested.join(", "))));
    }
    for (side, unmatched) in [(label_a, &comparison.only_a), (label_b, &comparison.only_b)] {
        if !unmatched.is_empty() {
            let labels: Vec<String> = unmatched.iter().map(|s| columns.label(s)).collect();
            notes.push(Note::info(format!("Only in {side}: {}.", labels.join("; "))));
        }
    }
    if let n @ 1.. = comparison.model.stragglers.len() {
        notes.push(Note::info(format!("{n} straggler run(s) left out of the fit (kept in the CSVs).")));
    }
    let fast = comparison.model.stragglers.iter().filter(|s| s.side == StragglerSide::Fast).count();
    if fast > 0 {
        notes.push(Note::warning(format!(
            "{fast} of the straggler runs far faster than their setting's other runs predict: did they skip work?"
        )));
    }
    if notes.is_empty() {
        notes.push(Note::info(format!("All {} settings were measured on both sides and compared.", settings.len())));
    }
    notes
}

/// The per-setting table: n, means in the metric's unit, B/A, p (Holm), the control's B/A and the verdict.
fn setting_table(comparison: &Comparison, columns: &SettingColumns, units: &MetricUnits) -> Table {
    let metric = &comparison.config.metric;
    let control = comparison.config.control.is_some();
    let mut header = vec![
        "n A".to_string(),
        "n B".to_string(),
        units.header("mean A", metric),
        units.header("mean B", metric),
        format!("B/A ({} CI)", confidence(comparison.level)),
        "p (Holm)".to_string(),
    ];
    header.extend(control.then(|| "control B/A".to_string()));
    header.push("verdict".to_string());
    let mut table = columns.table(&header);
    let dash = || "-".to_string();
    for s in &comparison.settings {
        let mut row = columns.cells(&s.setting);
        row.extend([
            s.n_a.to_string(),
            s.n_b.to_string(),
            s.mean_a.map_or_else(dash, number),
            s.mean_b.map_or_else(dash, number),
            s.ratio.map_or_else(dash, |r| format!("{:.3} [{:.3}, {:.3}]", r.ratio, r.low, r.high)),
            s.p_adjusted.map_or_else(dash, p_value),
        ]);
        row.extend(control.then(|| s.control_ratio.map_or_else(dash, |r| format!("{r:.3}"))));
        row.push(match (s.verdict, s.reason) {
            (Verdict::Insufficient, Some(reason)) => format!("cannot tell ({reason})"),
            (Verdict::Improved, _) => "improved".to_string(),
            (Verdict::Regressed, _) => "REGRESSED".to_string(),
            (Verdict::NoSignificantChange, _) => "no significant change".to_string(),
            (Verdict::Insufficient, None) => "insufficient data".to_string(),
            (Verdict::MachineChanged, _) => "cannot tell (control moved)".to_string(),
        });
        table.push(row);
    }
    table
}

/// The grid-wide answer first: B's change over all settings, or why it cannot be told.
fn headline(comparison: &Comparison, label_b: &str) -> String {
    if let Some(change) = comparison.machine_change {
        return format!("Headline: {}", machine_change_line(comparison, change, label_b));
    }
    let Some(overall) = &comparison.overall else {
        return "Headline: fewer than two settings could be tested, so there is no grid-wide answer.".to_string();
    };
    let better = comparison.config.direction == crate::analyse::Direction::Higher;
    let change = overall.ratio.ratio - 1.0;
    let word = if (change >= 0.0) == better { "better" } else { "worse" };
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
        signed_percent(overall.ratio.low - 1.0),
        signed_percent(overall.ratio.high - 1.0),
        overall.effects.settings,
        p_value(overall.p_adjusted)
    )
}

/// Why the comparison cannot tell, and, when no slope translates the control's move, what would decide it.
pub fn machine_change_line(comparison: &Comparison, change: MachineChange, label_b: &str) -> String {
    let config = &comparison.config;
    let control = config.control.as_deref().unwrap_or("control");
    let ratio = number(change.control_change);
    match change.reason {
        MachineChangeReason::BeyondControlThreshold => format!(
            "cannot tell: the machine changed ({control} x{ratio} between the sides, beyond the {} control \
             threshold): no change of {} can be attributed to {label_b}.",
            percent(config.control_threshold),
            config.metric
        ),
        MachineChangeReason::NoSlope => {
            let why = comparison.machine_shift.filter(|s| s.has_slope()).map_or_else(
                || "the control does not move inside either sweep beyond its noise".to_string(),
                |s| {
                    format!(
                        "the slope the sweeps show, {} ± {}, is too imprecise to translate it within {}",
                        number(s.slope),
                        number(s.slope_variance.sqrt()),
                        percent(config.threshold)
                    )
                },
            );
            format!(
                "cannot tell: the machine changed ({control} x{ratio}): nothing inside either sweep shows how {} \
                 follows {control} ({why}), so its change cannot be split between the machine and {label_b}. To \
                 decide, run both versions interleaved in one sweep and compare them there (`sweep compare \
                 --within CSV --by PARAM`), or, if {} scales with {control}, declare `[analysis] control_scaling \
                 = \"proportional\"` (or pass `--control-scaling proportional`) for verdicts under that assumption.",
                config.metric, config.metric
            )
        }
    }
}

/// How the verdicts were reached.
fn method_line(comparison: &Comparison) -> String {
    let config = &comparison.config;
    let model = &comparison.model;
    let design = match comparison.design {
        Design::Paired => "rounds as blocks both sides share (one interleaved sweep)",
        Design::Welch => "time blocks within each side (the sides share no rounds; drift between blocks removed)",
    };
    let control = model.adjustment.as_ref().map_or_else(String::new, |a| match comparison.design {
        Design::Paired => format!(
            "; control {} as a per-run covariate (CUPED, Deng et al. 2013): slope {}, removing {} of the residual \
             variance",
            a.metric,
            number(a.slope),
            percent(a.variance_removed)
        ),
        Design::Welch => format!(
            "; control {} as a per-run covariate within each side (slope {}, removing {} of the residual \
             variance){}",
            a.metric,
            number(a.slope),
            percent(a.variance_removed),
            comparison.machine_shift.filter(|s| s.has_slope()).map_or_else(String::new, |s| format!(
                "; the machine's change between the sides from the control's gap through the slope of the time \
                 blocks' effects ({} ± {}, de-attenuated by {}, Fuller 1987{}), its error shared by every setting",
                number(s.slope),
                number(s.slope_variance.sqrt()),
                number(s.reliability),
                if s.slopes_differ { "; the sides' slopes differ: their midpoint, widened" } else { "" }
            ))
        ),
    });
    let proportional = match (&config.control, config.control_scaling, comparison.design) {
        (Some(control), ControlScaling::Proportional, Design::Welch) => format!(
            "; the metric over its run's control {control} (control_scaling = \"proportional\": assumed to scale \
             with it, slope 1)"
        ),
        _ => String::new(),
    };
    let prior = model.prior.map_or_else(String::new, |prior| {
        if prior.prior_df.is_infinite() {
            "; one pooled variance (empirical Bayes finds the settings' variances equal)".to_string()
        } else {
            format!(
                "; variances moderated across settings (empirical Bayes, Smyth 2004: d0 = {}; each test the more \
                 cautious of that and one variance pooled within each group: valid if either holds)",
                degrees(prior.prior_df)
            )
        }
    });
    let stragglers = match model.stragglers.len() {
        0 => String::new(),
        n => format!("; {n} straggler run(s) left out of the fit"),
    };
    format!(
        "Method: a robust model of log values (Huber 1964), {design}{control}{proportional}{prior}{stragglers}; {} \
         residual df; \
         each setting's B/A by the moderated t, and the grid's by a random-effects meta-analysis, Holm-corrected \
         over {} tests at alpha {}; a regression is significant and worse by more than {}.",
        degrees(model.residual_df),
        comparison.tests(),
        config.alpha,
        percent(config.threshold)
    )
}

fn gate_line(comparison: &Comparison, columns: &SettingColumns) -> String {
    let regressed = comparison.settings.iter().filter(|s| s.verdict == Verdict::Regressed);
    let regressed: Vec<String> = regressed.map(|s| columns.label(&s.setting)).collect();
    if regressed.is_empty() {
        "No significant regression.".to_string()
    } else {
        format!("{} significant regression(s): {}.", regressed.len(), regressed.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_slice_sweep, fixture_slice_sweep_b};
    use crate::compare::compare;
    use crate::compare::fixture_compare_config;

    fn fixture_report() -> String {
        let comparison = compare(&fixture_slice_sweep(), &fixture_slice_sweep_b(), &fixture_compare_config());
        let units = MetricUnits::default();
        crate::report::markdown(&compare_document(
            &comparison,
            ("CANN 8", "CANN 9"),
            &units,
            "Slice sweep, CANN 8 vs 9",
        ))
    }

    #[test]
    fn comparison_report() {
        insta::assert_snapshot!(fixture_report());
    }

    #[test]
    fn numbers_in_the_comparison_report() {
        let report = fixture_report();
        assert!(report.contains("| 512  | 4      | 3   | 3   | 431.4          | 388.2          | 0.900 ["), "{report}");
        assert!(report.contains("- Only in CANN 9: rows=4096 slices=4."));
        let verdict = report.find("## Verdict").unwrap();
        assert!(report[verdict..].contains("\n1 significant regression(s): rows=512 slices=4.\n"), "{report}");
        assert!(report.find("## What to trust").unwrap() < verdict && verdict < report.find("## Per setting").unwrap());
    }
}
