//! The report of a comparison of two sweeps as a `Document`: what to trust (the machine changed, the
//! control moved, settings on one side only or untested), the verdict (the grid-wide headline and the
//! regression gate), the forest plot, then per-setting verdicts.

use super::compare_thresholds::{control_limit_named, threshold_named};
use super::document::{Document, Note, Section};
use super::html_figures::compare_forest_svg;
use super::metric_units::MetricUnits;
use super::number_format::{confidence, degrees, number, p_stated, p_value, percent, signed_percent};
use super::setting_columns::SettingColumns;
use super::table::Table;
use super::text::Text;
use crate::analyse::{ComparisonMethod, Direction, StragglerSide};
use crate::compare::{CompareConfig, Comparison, MachineChange, MachineChangeReason, SettingComparison, Verdict};
use crate::declare::ControlScaling;
use crate::plural::counted;

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
        Section::lead().paragraph(what).paragraph_if(columns.fixed_line(&[])),
        Section::new("What to trust").notes(trust_notes(comparison, &columns, labels)),
        Section::new("Verdict")
            .paragraph(headline(comparison, label_b))
            .paragraph_if(turned_around_line(comparison, &columns, units, label_b))
            .paragraph(gate_line(comparison, &columns))
            .paragraph(method_line(comparison)),
        Section::new("Figures").figure(compare_forest_svg(comparison, label_a, label_b), forest_caption(comparison)),
        Section::new("Per setting").table(setting_table(comparison, &columns, units)),
    ]);
    document
}

/// The comparison's warnings (the machine changed, the control moved, untested settings) and notes
/// (settings on one side only, stragglers); that every setting was compared when nothing else is said.
fn trust_notes(comparison: &Comparison, columns: &SettingColumns, (label_a, label_b): (&str, &str)) -> Vec<Note> {
    let mut notes: Vec<Note> = Vec::new();
    if let Some(change) = comparison.machine_change {
        let cause =
            Text::plain("The machine changed between the sides: ").append(machine_change_cause(comparison, change));
        notes.push(Note::warning(cause.and("; every verdict is \"cannot tell\" (see the verdict).")));
    }
    notes.extend(control_notes(comparison, columns));
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
        let runs = counted(n, "straggler run");
        notes.push(Note::info(format!("{runs} left out of the fit (kept in the CSVs).")));
    }
    let fast = comparison.model.stragglers.iter().filter(|s| s.side == StragglerSide::Fast).count();
    if fast > 0 {
        let (was, its, it) = if fast == 1 { ("was", "its", "it") } else { ("were", "their", "they") };
        notes.push(Note::warning(format!(
            "{fast} of the straggler runs {was} far faster than {its} setting's other runs predict: did {it} skip work?"
        )));
    }
    if notes.is_empty() {
        let all = match settings.len() {
            1 => "The one setting was".to_string(),
            n => format!("All {n} settings were"),
        };
        notes.push(Note::info(format!("{all} measured on both sides and compared.")));
    }
    notes
}

/// The settings whose control moved, each claim with its own threshold: beyond the regression threshold
/// (the machine's speed changed, which the comparisons adjust for), and, unless the machine changed over
/// the whole grid (its own note), beyond the control's limit (no verdict there).
fn control_notes(comparison: &Comparison, columns: &SettingColumns) -> Vec<Note> {
    let config = &comparison.config;
    let Some(control) = &config.control else { return Vec::new() };
    let moved_at = |settings: &[&SettingComparison]| {
        let at = settings.iter().map(|s| {
            let change = s.control_ratio.map_or_else(String::new, |r| format!(" ({})", signed_percent(r - 1.0)));
            format!("{}{change}", columns.label(&s.setting))
        });
        at.collect::<Vec<_>>().join("; ")
    };
    let the_control = || Text::plain("The control ").code(control);
    let grid_changed = comparison.machine_change.is_some();
    let beyond =
        |s: &SettingComparison| !grid_changed && s.control_ratio.is_some_and(|r| config.control_beyond_limit(r));
    let beyond_limit: Vec<&SettingComparison> = comparison.settings.iter().filter(|s| beyond(s)).collect();
    let within_limit: Vec<&SettingComparison> = comparison.control_moved().into_iter().filter(|s| !beyond(s)).collect();
    let mut notes = Vec::new();
    if !within_limit.is_empty() {
        let adjusted = if grid_changed {
            String::new()
        } else {
            format!("; within {}, the comparisons adjust for it (see Method)", control_limit_named(config))
        };
        notes.push(Note::warning(the_control().and(format!(
            " moved beyond {} at {}: the machine's speed changed between the sides{adjusted}.",
            threshold_named(config),
            moved_at(&within_limit)
        ))));
    }
    if !beyond_limit.is_empty() {
        notes.push(Note::warning(the_control().and(format!(
            " moved beyond {} at {}: the machine changed there, so no verdict is drawn (\"cannot tell\").",
            control_limit_named(config),
            moved_at(&beyond_limit)
        ))));
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
fn headline(comparison: &Comparison, label_b: &str) -> Text {
    if let Some(change) = comparison.machine_change {
        return Text::plain("Headline: ").append(machine_change_line(comparison, change, label_b));
    }
    let Some(overall) = &comparison.overall else {
        return "Headline: fewer than two settings could be tested, so there is no grid-wide answer.".into();
    };
    let config = &comparison.config;
    let change = overall.ratio.ratio - 1.0;
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
        _ => "not a significant change",
    };
    format!(
        "Headline: {label_b} is {} {} overall ({} CI {}..{}), {spread}: {verdict} beyond {} (random-effects \
         meta-analysis over {}, DerSimonian & Laird 1986, Hartung-Knapp interval; {} Holm-adjusted).",
        percent(change.abs()),
        better_or_worse(config.direction, change),
        confidence(comparison.level),
        signed_percent(overall.ratio.low - 1.0),
        signed_percent(overall.ratio.high - 1.0),
        threshold_named(config),
        counted(overall.effects.settings, "setting"),
        p_stated(overall.p_adjusted)
    )
    .into()
}

/// Whether a relative change of `change` is for the better, the metric better in `direction`.
fn better_or_worse(direction: Direction, change: f64) -> &'static str {
    if (change >= 0.0) == (direction == Direction::Higher) {
        "better"
    } else {
        "worse"
    }
}

/// Why the comparison cannot tell, and, when no slope translates the control's move, what would decide it.
pub fn machine_change_line(comparison: &Comparison, change: MachineChange, label_b: &str) -> Text {
    let metric = &comparison.config.metric;
    let cause = Text::plain("cannot tell: the machine changed: ").append(machine_change_cause(comparison, change));
    match change.reason {
        MachineChangeReason::BeyondControlThreshold => {
            cause.and("; no change of ").code(metric).and(format!(" can be attributed to {label_b}."))
        }
        MachineChangeReason::NoSlope => cause
            .and(format!(", so its change cannot be split between the machine and {label_b}. To decide, run both versions interleaved in one sweep and compare them there ("))
            .code("sweep compare --within CSV --by PARAM")
            .and("), or, if ")
            .code(metric)
            .and(" scales with the control, declare ")
            .code("[analysis] control_scaling = \"proportional\"")
            .and(" (or pass ")
            .code("--control-scaling proportional")
            .and(") for verdicts under that assumption."),
    }
}

/// What made the machine change: the control's grid-wide move and the threshold it went beyond (its
/// limit; or the regression threshold, with no slope inside the sweeps to translate it).
fn machine_change_cause(comparison: &Comparison, change: MachineChange) -> Text {
    let config = &comparison.config;
    let control = config.control.as_deref().unwrap_or("control");
    let moved = Text::plain("the control ")
        .code(control)
        .and(format!(" moved {} over the grid, beyond ", signed_percent(change.control_change - 1.0)));
    match change.reason {
        MachineChangeReason::BeyondControlThreshold => moved.and(control_limit_named(config)),
        MachineChangeReason::NoSlope => {
            let why = comparison.machine_shift.filter(|s| s.has_slope()).map_or_else(
                || "the control does not move inside either sweep beyond its noise".to_string(),
                |s| {
                    format!(
                        "the slope the sweeps show, {} ± {}, is too imprecise to translate it within {}",
                        number(s.slope),
                        number(s.slope_variance.sqrt()),
                        threshold_named(config)
                    )
                },
            );
            moved
                .and(format!("{}, and nothing inside either sweep shows how ", threshold_named(config)))
                .code(&config.metric)
                .and(format!(" follows it ({why})"))
        }
    }
}

/// One setting's raw means against its adjusted B/A, when the control adjustment turns them around.
struct Turn<'c> {
    setting: &'c SettingComparison,
    /// |ln(adjusted / raw)|: how far the adjustment moved B/A.
    apart: f64,
    /// B/A of the raw means, the adjusted B/A, and the control's B/A.
    raw: f64,
    adjusted: f64,
    control: f64,
}

impl<'c> Turn<'c> {
    /// The turn at `setting`, if the adjusted B/A is on the other side of 1 from the raw means' ratio (as
    /// printed, to a tenth of a percent, so noise about 1 is no turn) or apart from it by more than the
    /// threshold.
    fn of(setting: &'c SettingComparison, config: &CompareConfig) -> Option<Turn<'c>> {
        let raw = setting.mean_b? / setting.mean_a?;
        let (adjusted, control) = (setting.ratio?.ratio, setting.control_ratio?);
        let shown = |ratio: f64| ((ratio - 1.0) * 1000.0).round();
        let apart = (adjusted / raw).ln().abs();
        let turned = apart > config.threshold.ln_1p() || shown(raw) * shown(adjusted) < 0.0;
        (raw > 0.0 && turned).then_some(Turn { setting, apart, raw, adjusted, control })
    }
}

/// Where the control adjustment turns the raw means around, in plain words: the raw change, the
/// control's, and the adjusted B/A with the slope that made it, at the setting it turns most (and how many
/// it turns, when more than one).
fn turned_around_line(
    comparison: &Comparison,
    columns: &SettingColumns,
    units: &MetricUnits,
    label_b: &str,
) -> Option<Text> {
    let config = &comparison.config;
    let control = config.control.as_deref()?;
    let slope = adjustment_slope(comparison)?;
    let turns: Vec<Turn> = comparison.settings.iter().filter_map(|s| Turn::of(s, config)).collect();
    let most = turns.iter().max_by(|a, b| a.apart.total_cmp(&b.apart))?;
    let label = columns.label(&most.setting.setting);
    let (lead, raw_means, slope_named) = match (turns.len(), label.is_empty()) {
        (1, true) => (Text::plain(""), "Raw means".to_string(), format!(" ({slope})")),
        (1, false) => (Text::plain(""), format!("At {label}, raw means"), format!(" ({slope})")),
        (n, _) => {
            let lead = Text::plain(format!(
                "At {n} of {} settings, B/A lies on the other side of 1 from the raw means' ratio or more than {} \
                 from it: it is adjusted for the control ",
                comparison.settings.len(),
                threshold_named(config)
            ));
            let lead = lead.code(control).and(format!(" ({slope}, see Method). "));
            (lead, format!("Largest at {label}: raw means"), String::new())
        }
    };
    let rose_or_fell = |ratio: f64| {
        let (word, change) = if ratio >= 1.0 { ("rose", ratio - 1.0) } else { ("fell", 1.0 - ratio) };
        format!("{word} {}", percent(change))
    };
    let unit = units.of(&config.metric).map_or_else(String::new, |unit| format!(" {unit}"));
    let means = format!("{} -> {}{unit}", number(most.setting.mean_a?), number(most.setting.mean_b?));
    let adjusted = most.adjusted;
    let text = lead.and(format!("{raw_means} {} ({means}) while the control ", rose_or_fell(most.raw)));
    Some(text.code(control).and(format!(
        " {}; adjusted for it{slope_named}, {label_b} is {} {} (B/A {adjusted:.3}).",
        rose_or_fell(most.control),
        percent((adjusted - 1.0).abs()),
        better_or_worse(config.direction, adjusted - 1.0),
    )))
}

/// The slope the comparisons translated the control's change through, as Method names it: declared
/// proportional, the slope of the time blocks' effects between two sweeps, else the per-run covariate's.
fn adjustment_slope(comparison: &Comparison) -> Option<String> {
    if is_proportional(comparison) {
        return Some("slope 1, declared proportional".to_string());
    }
    let between_sweeps = comparison.machine_shift.filter(|s| s.has_slope()).map(|s| s.slope);
    let slope = between_sweeps.or(comparison.model.adjustment.as_ref().map(|a| a.slope))?;
    Some(format!("slope {}", number(slope)))
}

/// Two separate sweeps with the scaling declared proportional: the metric over its run's control.
fn is_proportional(comparison: &Comparison) -> bool {
    let config = &comparison.config;
    config.control.is_some()
        && config.control_scaling == ControlScaling::Proportional
        && comparison.design == ComparisonMethod::Independent
}

/// What the forest plot shows, the threshold of its band named.
fn forest_caption(comparison: &Comparison) -> String {
    let overall = if comparison.overall.is_some() {
        "; diamond: the overall B/A across its interval (random-effects meta-analysis over the settings)"
    } else {
        ""
    };
    format!(
        "B/A per setting with its simultaneous interval (compatible with the Holm-corrected tests){overall}; dashed: \
         no change; shaded: changes within {}.",
        threshold_named(&comparison.config)
    )
}

/// How the verdicts were reached.
fn method_line(comparison: &Comparison) -> String {
    let config = &comparison.config;
    let model = &comparison.model;
    let design = match comparison.design {
        ComparisonMethod::Blocked => "rounds as blocks both sides share (one interleaved sweep)",
        ComparisonMethod::Independent => {
            "time blocks within each side (the sides share no rounds; drift between blocks removed)"
        }
    };
    let control = model.adjustment.as_ref().map_or_else(String::new, |a| match comparison.design {
        ComparisonMethod::Blocked => format!(
            "; control {} as a per-run covariate (CUPED, Deng et al. 2013): slope {}, removing {} of the residual \
             variance",
            a.metric,
            number(a.slope),
            percent(a.variance_removed)
        ),
        ComparisonMethod::Independent => format!(
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
    let proportional = match &config.control {
        Some(control) if is_proportional(comparison) => format!(
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
        n => format!("; {} left out of the fit", counted(n, "straggler run")),
    };
    format!(
        "Method: a robust model of log values (Huber 1964), {design}{control}{proportional}{prior}{stragglers}; {} \
         residual df; \
         each setting's B/A by the moderated t, and the grid's by a random-effects meta-analysis, Holm-corrected \
         over {} at alpha {}; a regression is significant and worse by more than {}.",
        degrees(model.residual_df),
        counted(comparison.tests(), "test"),
        config.alpha,
        threshold_named(config)
    )
}

/// The regression gate: the settings that regressed significantly beyond the threshold, or none.
fn gate_line(comparison: &Comparison, columns: &SettingColumns) -> String {
    let regressed = comparison.settings.iter().filter(|s| s.verdict == Verdict::Regressed);
    let regressed: Vec<String> = regressed.map(|s| columns.label(&s.setting)).collect();
    let beyond = threshold_named(&comparison.config);
    if regressed.is_empty() {
        format!("No significant regression beyond {beyond}.")
    } else {
        let count = counted(regressed.len(), "significant regression");
        format!("{count} beyond {beyond}: {}.", regressed.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_slice_sweep, fixture_slice_sweep_b};
    use crate::analyse::scenario_tests::{simulated, Drift, Noise, Regression};
    use crate::compare::{compare, fixture_compare_config};

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
        assert!(
            report[verdict..].contains("\n1 significant regression beyond the 2.0% --threshold: rows=512 slices=4.\n"),
            "{report}"
        );
        assert!(report.find("## What to trust").unwrap() < verdict && verdict < report.find("## Per setting").unwrap());
        assert!(!report.contains("raw means"), "no control, nothing adjusted: {report}");
    }

    /// Two sweeps of a 2 x 2 grid on a machine that wanders run to run (AR(1) drift the control
    /// `decode_tokens_per_s` follows), B's machine `machine` times as fast and its software `software`
    /// times, as markdown (made-up numbers, not measurements).
    fn on_another_machine(machine: f64, software: f64, seed: u64) -> String {
        let wandering = Noise { drift: Drift::Ar1 { phi: 0.9, sd: 0.01 }, ..Noise::WELL_BEHAVED };
        let b = Noise { machine, regression: Regression::Uniform(software), ..wandering };
        let config = CompareConfig { control: Some("decode_tokens_per_s".into()), ..fixture_compare_config() };
        let grid = |noise: &Noise, seed: u64| simulated(noise, &[512, 1024], &[1, 2], seed);
        let comparison = compare(&grid(&wandering, 100 + seed), &grid(&b, 200 + seed), &config);
        let units = MetricUnits::new([("prefill_tokens_per_s".to_string(), "tok/s".to_string())].into());
        crate::report::markdown(&compare_document(&comparison, ("A", "B"), &units, "Another machine"))
    }

    /// The report of a comparison with a control that moved: its notes, the raw means it turns around.
    #[test]
    fn comparison_report_with_a_control() {
        insta::assert_snapshot!(on_another_machine(1.18, 0.942, 2));
    }

    /// The control's warning quoted the 2% --threshold while the machine-change rule used the control's own
    /// 25% limit: each claim now names the threshold it used and where it comes from.
    #[test]
    fn each_claim_names_its_own_threshold_not_the_regression_threshold_for_the_control() {
        let moved_far = on_another_machine(1.31, 1.0, 0);
        let limit = "beyond its 25.0% limit (--control-threshold)";
        let machine_changed = moved_far.lines().find(|line| line.contains("The machine changed")).expect("a note");
        assert!(machine_changed.contains(limit) && !machine_changed.contains("2.0%"), "{machine_changed}");
        assert!(moved_far
            .contains("\nHeadline: cannot tell: the machine changed: the control `decode_tokens_per_s` moved +3"));
        assert!(moved_far.contains(&format!("over the grid, {limit}; no change of")), "{moved_far}");
        assert!(moved_far.contains("\nNo significant regression beyond the 2.0% --threshold.\n"), "{moved_far}");
        // The same machine on both sides, drifting: a control that moved beyond the regression threshold at a
        // setting is within its own limit, and taken out.
        let drifting = on_another_machine(1.0, 1.0, 3);
        let moved = drifting.lines().find(|line| line.contains("moved beyond")).expect("a control note");
        let within = "; within its 25.0% limit (--control-threshold), the comparisons adjust for it (see Method).";
        assert!(moved.contains("moved beyond the 2.0% --threshold at rows=") && moved.ends_with(within), "{moved}");
        assert!(!drifting.contains("The machine changed"), "{drifting}");
    }

    /// A B/A of 0.942 was printed beside raw means 2204 -> 2480 tok/s and a slope of 4.678, and nothing said
    /// why: the control rose more than the metric, and the adjustment for it turned the change around.
    #[test]
    fn raw_means_that_rose_beside_a_ratio_below_one_are_explained_in_plain_words() {
        let report = on_another_machine(1.18, 0.942, 2);
        let line = report.lines().find(|line| line.contains("raw means")).expect("the plain sentence");
        assert!(
            line.starts_with("At 4 of 4 settings, B/A lies on the other side of 1 from the raw means' ratio"),
            "{line}"
        );
        assert!(
            line.contains("it is adjusted for the control `decode_tokens_per_s` (slope 0.9700, see Method)."),
            "{line}"
        );
        assert!(
            line.contains(
                "Largest at rows=512 slices=2: raw means rose 9.5% (718.4 -> 786.7 tok/s) while the control \
                 `decode_tokens_per_s` rose 17.7%; adjusted for it, B is 6.0% worse (B/A 0.940)."
            ),
            "{line}"
        );
        assert!(report.contains("| 512  | 2      | 3   | 3   | 718.4          | 786.7          | 0.940 ["), "{report}");
        // One setting turned: the sentence alone, its slope in it.
        let one = on_another_machine(1.0, 0.97, 5);
        let turned: Vec<&str> = one.lines().filter(|line| line.contains("raw means")).collect();
        let expected = "At rows=512 slices=2, raw means fell 3.9% (687.3 -> 660.6 tok/s) while the control \
                        `decode_tokens_per_s` fell 3.1%; adjusted for it (slope 0.5262), B is 1.9% worse (B/A 0.981).";
        assert_eq!(turned, [expected]);
    }
}
