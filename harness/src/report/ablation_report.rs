//! The report of an ablation as a `Document`, in the order of every report: what to trust (effects that
//! could not be measured), the additivity verdicts (pooled, then per `group_by` setting), the figures, then
//! the per-variant tables with deltas (section 5.4 of the slice study) and the pairwise interactions.

use super::document::{Document, Note, Section};
use super::html_figures::ablation_figures;
use super::metric_units::MetricUnits;
use super::number_format::{confidence, degrees, number, percent, signed_percent, signed_with_ci, with_ci};
use super::report_context::ReportContext;
use super::setting_columns::group_name;
use super::table::Table;
use super::text::Text;
use super::what_to_trust::{failure_table, run_notes};
use crate::analyse::{
    AblationAnalysis, AblationEffects, Additivity, AdditivityVerdict, FailureSummary, Interaction, Labels,
    LinearContrast,
};
use crate::declare::AdditivityScale;

/// The report of `analysis` (all runs pooled) and of `per_group` (one ablation per `group_by` setting, so
/// an ablation over several settings is not only pooled into one mean per variant); `failures` of its runs.
pub fn ablation_document(
    analysis: &AblationAnalysis,
    per_group: &[(Labels, AblationAnalysis)],
    failures: &FailureSummary,
    context: &ReportContext,
    title: &str,
) -> Document {
    let units = &context.units;
    let scopes: Vec<(Option<String>, &AblationAnalysis)> = std::iter::once((None, analysis))
        .chain(per_group.iter().map(|(labels, group)| (Some(group_name(labels)), group)))
        .collect();
    let mut document = Document::new(title);
    if let Some(metric) = analysis.metrics.first() {
        let unit = units.of(metric).map_or_else(String::new, |unit| format!(", in {unit}"));
        document.push(Section::lead().paragraph(Text::plain("Scope metric: ").code(metric).and(format!("{unit}."))));
    }
    let at = |scope: &Option<String>| scope.as_ref().map_or_else(String::new, |scope| format!("{scope}: "));
    let mut notes = run_notes(failures, context);
    notes.extend(scopes.iter().filter_map(|(scope, analysis)| missing_note(&at(scope), analysis)));
    notes.extend(scopes.iter().filter_map(|(scope, analysis)| wide_note(&at(scope), analysis)));
    notes.sort_by_key(|note| !note.warning);
    document.push(Section::new("What to trust").notes(notes));
    let verdicts = scopes.iter().filter_map(|(scope, analysis)| {
        let AblationEffects::Measured(effects) = &analysis.effects else { return None };
        let sentence = additivity_sentence(analysis, effects, units);
        Some(Text::plain(format!("{}{sentence}", at(scope))))
    });
    document.push(Section::new("Additivity").items(verdicts.collect()));
    document.push(ablation_figures(analysis, units));
    for (scope, analysis) in &scopes {
        document.extend(tables(scope.as_deref(), analysis, units));
    }
    document.push(failure_table(failures));
    document
}

/// Why effects could not be measured, as a warning (a note when nothing was asked).
fn missing_note(at: &str, analysis: &AblationAnalysis) -> Option<Note> {
    match &analysis.effects {
        AblationEffects::NoScopeMetric => {
            Some(Note::info(format!("{at}no metrics were asked for: nothing to report.")))
        }
        AblationEffects::NotEnoughData { missing } => Some(Note::warning(format!(
            "{at}not enough data for effects: no usable {} in {}.",
            analysis.metrics[0],
            missing.join(", ")
        ))),
        AblationEffects::Measured(_) => None,
    }
}

/// The deltas' intervals, when one is wide for its delta: plainly, as more reps would narrow them.
fn wide_note(at: &str, analysis: &AblationAnalysis) -> Option<Note> {
    let (variant, share) = analysis.widest_interval()?;
    Some(Note::warning(format!(
        "{at}the deltas' 95% intervals are wide (up to ±{} of the delta, at {}): more reps would narrow them.",
        percent(share),
        variant.variant
    )))
}

/// The variant table and, for a 2^k factorial, the pairwise interactions; `scope` names a group's.
fn tables(scope: Option<&str>, analysis: &AblationAnalysis, units: &MetricUnits) -> [Section; 2] {
    let at = scope.map_or_else(String::new, |scope| format!(" at {scope}"));
    let variants = (!analysis.metrics.is_empty()).then(|| variant_table(analysis, units));
    let pairwise = match &analysis.effects {
        AblationEffects::Measured(effects) if !effects.pairwise.is_empty() => {
            Some(pairwise_table(analysis.scale, effects, units))
        }
        _ => None,
    };
    // The mean column is each variant's plain mean; the deltas are the model's, which can differ from the
    // difference of the means where runs drifted or straggled, so the table says whose they are.
    let whose = analysis.variants.iter().any(|v| v.delta.is_some()).then_some(
        "Deltas against the baseline are the model's (robust, within rounds when the variants interleave): the \
         ones the additivity line adds up.",
    );
    [
        Section::new(format!("Variants{at}")).paragraph_if(whose).table(variants),
        Section::new(format!("Pairwise interactions (2^k factorial){at}")).table(pairwise),
    ]
}

/// The per-variant table; only called with at least one metric (the scope metric first). The deltas are
/// the model's, as the additivity line states them.
fn variant_table(analysis: &AblationAnalysis, units: &MetricUnits) -> Table {
    let scope = &analysis.metrics[0];
    let delta_header = match analysis.scale {
        AdditivityScale::Linear => units.header("delta ± 95% CI", scope),
        AdditivityScale::Log => "ratio to baseline [95% CI]".to_string(),
    };
    let mut header = vec!["variant".to_string(), units.header(&format!("{scope}: mean ± 95% CI"), scope), delta_header];
    header.extend(analysis.metrics[1..].iter().map(|metric| units.header(metric, metric)));
    let mut table = Table::new(header);
    for variant in &analysis.variants {
        let cell =
            |stats: &Option<crate::analyse::SummaryStats>| stats.map_or(String::new(), |s| with_ci(s.mean, s.ci95));
        let delta = variant.delta.map_or_else(
            || "-".to_string(),
            |delta| format!("{} ({})", delta_text(analysis.scale, &delta.contrast), signed_percent(delta.relative)),
        );
        let row = [variant.variant.to_string(), cell(&variant.metrics[0]), delta]
            .into_iter()
            .chain(variant.metrics[1..].iter().map(cell));
        table.push(row.collect());
    }
    table
}

/// A delta as the table and the additivity line both write it: `-0.792 ± 0.012` (linear), or the ratio
/// with its interval, `0.6406 [0.6356, 0.6456]` (log).
fn delta_text(scale: AdditivityScale, delta: &LinearContrast) -> String {
    match scale {
        AdditivityScale::Linear => signed_with_ci(delta.estimate, delta.ci95),
        AdditivityScale::Log => {
            let interval = delta.ci95.map_or_else(String::new, |half| {
                format!(" [{}, {}]", number((delta.estimate - half).exp()), number((delta.estimate + half).exp()))
            });
            format!("{}{interval}", number(delta.estimate.exp()))
        }
    }
}

/// `Single deltas sum to -1.369 ± 0.012 s against -1.360 ± 0.012 s with all groups ablated: ... -> additive
/// within 5.0% (...)`: the sum and the all-groups delta written as the variant table writes deltas.
fn additivity_sentence(analysis: &AblationAnalysis, effects: &Additivity, units: &MetricUnits) -> String {
    let scale = analysis.scale;
    let in_unit = |text: String| units.in_unit(&text, &effects.metric);
    let head = match scale {
        AdditivityScale::Linear => format!(
            "Single deltas sum to {} against {} with all groups ablated: interaction {} ({} of the all-groups delta{})",
            in_unit(delta_text(scale, &effects.sum_of_singles)),
            in_unit(delta_text(scale, &effects.all)),
            in_unit(signed_with_ci(effects.interaction.estimate, effects.interaction.ci95)),
            percent(effects.relative_interaction(scale).abs()),
            tost_interval(scale, effects, &effects.interaction),
        ),
        AdditivityScale::Log => format!(
            "Single ratios multiply to {} against {} with all groups ablated: interaction {} as a ratio of ratios \
             ({})",
            delta_text(scale, &effects.sum_of_singles),
            delta_text(scale, &effects.all),
            signed_percent(effects.relative_interaction(scale)),
            tost_interval(scale, effects, &effects.interaction).trim_start_matches("; "),
        ),
    };
    format!("{head} -> {}.", verdict_phrase(effects, analysis.tolerance))
}

/// Every pairwise interaction of a 2^k factorial with its interval and whether it is within the tolerance.
fn pairwise_table(scale: AdditivityScale, effects: &Additivity, units: &MetricUnits) -> Table {
    let mut table = Table::new(vec![
        "pair".into(),
        units.header("interaction (± 95% CI)", &effects.metric),
        format!("relative [{} interval]", confidence(1.0 - 2.0 * effects.alpha)),
        "additive".into(),
    ]);
    for pair in &effects.pairwise {
        table.push(vec![
            format!("{} × {}", pair.groups.0, pair.groups.1),
            signed_with_ci(pair.interaction.estimate, pair.interaction.ci95),
            format!(
                "{}{}",
                percent(effects.relative_of(scale, pair.interaction.estimate).abs()),
                bounds(scale, effects, &pair.interaction)
                    .map_or_else(String::new, |(low, high)| format!(" [{low}, {high}]"))
            ),
            match pair.judged {
                Interaction::Within => "yes",
                Interaction::Beyond => "NO",
                Interaction::Unclear => "cannot tell",
            }
            .to_string(),
        ]);
    }
    table
}

/// `; 90% interval -0.4%..+1.8%`: the interval the two one-sided tests read, relative like the tolerance.
fn tost_interval(scale: AdditivityScale, effects: &Additivity, interaction: &LinearContrast) -> String {
    bounds(scale, effects, interaction).map_or_else(String::new, |(low, high)| {
        format!("; {} interval {low}..{high}", confidence(1.0 - 2.0 * effects.alpha))
    })
}

/// The ends of an interaction's 1 − 2·alpha interval, relative like the tolerance.
fn bounds(scale: AdditivityScale, effects: &Additivity, interaction: &LinearContrast) -> Option<(String, String)> {
    let half = interaction.one_sided_half_width(effects.alpha)?;
    Some((
        signed_percent(effects.relative_of(scale, interaction.estimate - half)),
        signed_percent(effects.relative_of(scale, interaction.estimate + half)),
    ))
}

/// The verdict in plain words: additive within the tolerance, not additive (naming the groups), or
/// cannot tell (why, and what would help), with the test behind it.
fn verdict_phrase(effects: &Additivity, tolerance: f64) -> String {
    let df = degrees(effects.residual_df);
    let test = format!("(two one-sided tests at alpha {}, Schuirmann 1987; {df} residual df)", effects.alpha);
    match &effects.verdict {
        AdditivityVerdict::Additive => format!("additive within {} {test}", percent(tolerance)),
        AdditivityVerdict::NotAdditive { interacting } => format!(
            "not additive within {}: {} interact (shown beyond the tolerance by a one-sided test at alpha {}, \
             Bonferroni over the interactions judged; {df} residual df)",
            percent(tolerance),
            interacting.join(", "),
            effects.alpha
        ),
        AdditivityVerdict::CannotTell => match effects.interaction.reason {
            Some(reason) => format!("cannot tell ({reason}: no interval; run more reps)"),
            None => format!(
                "cannot tell: the interaction's {} interval reaches across ±{} (more reps narrow it) {test}",
                confidence(1.0 - 2.0 * effects.alpha),
                percent(tolerance)
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::analyse_ablation;
    use crate::analyse::fixtures::{fixture_ablation, fixture_names, fixture_observation};
    use crate::record::RecordedRun;
    use crate::report::markdown;

    fn report(analysis: &AblationAnalysis, failures: &FailureSummary, title: &str) -> String {
        let context = ReportContext {
            units: MetricUnits::new([("gated_delta".to_string(), "s".to_string())].into()),
            ..ReportContext::default()
        };
        markdown(&ablation_document(analysis, &[], failures, &context, title))
    }

    fn fixture_report(observations: &[crate::analyse::Observation]) -> String {
        let analysis = analyse_ablation(
            observations,
            &fixture_names(&["broadcast_rows", "rank1_update"]),
            &fixture_names(&["gated_delta", "wall", "prefill_tokens_per_s"]),
            0.05,
            false,
        );
        report(&analysis, &FailureSummary::of(observations), "gated_delta ablation at 4433 tokens")
    }

    #[test]
    fn study_ablation_report() {
        insta::assert_snapshot!(fixture_report(&fixture_ablation()));
    }

    #[test]
    fn numbers_in_the_ablation_report() {
        let report = fixture_report(&fixture_ablation());
        assert!(report.contains("| broadcast_rows "), "{report}");
        assert!(report.contains("| -0.792 ± 0.010 (-36.0%) |"), "{report}");
        assert!(report.contains("| -1.360 ± 0.009 (-61.7%) |"), "{report}");
        assert!(report.contains("Single deltas sum to -1.369 ± 0.019 s against -1.360 ± 0.009 s"), "{report}");
        assert!(
            report.contains("(0.7% of the all-groups delta; 90% interval 0.0%..+1.4%) -> additive within 5.0%"),
            "{report}"
        );
        assert!(report.find("## Additivity").unwrap() < report.find("## Variants").unwrap(), "verdicts lead");
    }

    #[test]
    fn missing_variant_report() {
        let observations: Vec<_> = fixture_ablation().into_iter().filter(|o| o.variant() != "rank1_update").collect();
        let report = fixture_report(&observations);
        assert!(report.contains("| baseline "));
        assert!(
            report.contains("- WARNING: not enough data for effects: no usable gated_delta in rank1_update.\n"),
            "{report}"
        );
        assert!(!report.contains("## Additivity"), "no verdict without effects");
    }

    #[test]
    fn no_metric_report() {
        let analysis = analyse_ablation(&fixture_ablation(), &fixture_names(&["broadcast_rows"]), &[], 0.05, false);
        assert_eq!(
            report(&analysis, &FailureSummary::of(&fixture_ablation()), "t"),
            "# t\n\n## What to trust\n\n- All 12 runs finished ok.\n- no metrics were asked for: nothing to report.\n"
        );
    }

    #[test]
    fn factorial_pairwise_report() {
        let groups = fixture_names(&["a", "b", "c"]);
        let mut observations = Vec::new();
        for (variant, t) in [
            ("baseline", 10.0),
            ("a", 9.0),
            ("b", 8.0),
            ("c", 9.5),
            ("a+b", 7.0),
            ("a+c", 8.9),
            ("b+c", 7.5),
            ("a+b+c", 6.9),
        ] {
            for (rep, jitter) in [-0.01, 0.0, 0.01].iter().enumerate() {
                observations.push(fixture_observation(&[("variant", variant)], rep as u32 + 1, &[("t", t + jitter)]));
            }
        }
        let analysis = analyse_ablation(&observations, &groups, &fixture_names(&["t"]), 0.05, false);
        insta::assert_snapshot!(report(&analysis, &FailureSummary::of(&observations), "three groups"));
    }

    /// Two groups in three interleaved rounds that ran at 1.0x, 1.3x and 0.8x, the all-groups variant's run
    /// of the fast round lost, each run off by up to `noise`: `ablate`'s shape when the line said the
    /// all-groups delta was -5.795 s and the table, from the plain means, -6.309 s.
    fn drifting_ablation(noise: f64) -> (AblationAnalysis, String) {
        let mut observations = Vec::new();
        let wobble = [0.0, 1.0, -0.8, 0.5];
        for (rep, speed) in [(1u32, 1.0), (2, 1.3), (3, 0.8)] {
            for (index, (variant, mean)) in
                [("baseline", 10.0), ("a", 6.0), ("b", 6.0), ("a+b", 3.0)].into_iter().enumerate()
            {
                if variant == "a+b" && rep == 3 {
                    continue;
                }
                let value = mean * speed * (1.0 + noise * wobble[(index + rep as usize) % wobble.len()]);
                observations.push(fixture_observation(&[("variant", variant)], rep, &[("gated_delta", value)]));
            }
        }
        let groups = fixture_names(&["a", "b"]);
        let analysis = analyse_ablation(&observations, &groups, &fixture_names(&["gated_delta"]), 0.05, true);
        let text = report(&analysis, &FailureSummary::of(&observations), "drift");
        (analysis, text)
    }

    /// The text after `prefix` up to `end`.
    fn between<'t>(text: &'t str, prefix: &str, end: &str) -> &'t str {
        let start = text.find(prefix).unwrap_or_else(|| panic!("no {prefix:?} in:\n{text}")) + prefix.len();
        let rest = &text[start..];
        &rest[..rest.find(end).unwrap_or_else(|| panic!("no {end:?} after {prefix:?} in:\n{text}"))]
    }

    /// The variant table's cells of `variant`: its mean and its delta, as printed (the delta without its
    /// percentage).
    fn row<'t>(report: &'t str, variant: &str) -> (&'t str, &'t str) {
        let cells: Vec<&str> = report
            .lines()
            .map(|line| line.split('|').map(str::trim).collect::<Vec<_>>())
            .find(|cells| cells.get(1) == Some(&variant))
            .unwrap_or_else(|| panic!("no row {variant}:\n{report}"));
        (cells[2], cells[3].split(" (").next().unwrap())
    }

    /// The estimate of a written number, `-4.10 ± 0.52` -> -4.10, and half a unit of its last digit.
    fn estimate(written: &str) -> (f64, f64) {
        let digits = written.split(' ').next().unwrap();
        let decimals = digits.find('.').map_or(0, |dot| digits.len() - dot - 1);
        (digits.parse().unwrap_or_else(|e| panic!("{written}: {e}")), 0.5 * 10f64.powi(-(decimals as i32)))
    }

    /// The line's all-groups delta came from the model and the table's from the plain means; the line's sum of
    /// the singles did not match the table's singles either.
    #[test]
    fn additivity_line_and_table_agree_to_the_printed_digits() {
        let (_, report) = drifting_ablation(0.03);
        let sum = between(&report, "Single deltas sum to ", " s against ");
        let all = between(&report, " s against ", " s with all groups ablated");
        assert_eq!(row(&report, "a+b").1, all, "{report}");
        // The singles as printed add up to the printed sum, to its digits and theirs.
        let parts = [estimate(row(&report, "a").1), estimate(row(&report, "b").1), estimate(sum)];
        let slack: f64 = parts.iter().map(|(_, half_unit)| half_unit).sum();
        assert!((parts[0].0 + parts[1].0 - parts[2].0).abs() <= slack, "{parts:?}:\n{report}");
        // The plain means' difference is another number, far beyond the printed digits: not in the table.
        let plain = estimate(row(&report, "a+b").0).0 - estimate(row(&report, "baseline").0).0;
        let (model, half_unit) = estimate(all);
        assert!((plain - model).abs() > 20.0 * half_unit, "{plain} vs {all}:\n{report}");
        assert!(!report.contains("wide"), "{report}");
    }

    /// Intervals of ±70% of their deltas came with no word of warning.
    #[test]
    fn wide_delta_intervals_are_said_in_one_line() {
        let (analysis, report) = drifting_ablation(0.3);
        let (variant, share) = analysis.widest_interval().expect("a wide interval");
        let note = format!(
            "- WARNING: the deltas' 95% intervals are wide (up to ±{} of the delta, at {}): more reps would narrow \
             them.\n",
            percent(share),
            variant.variant
        );
        assert!(share > 0.5 && report.contains(&note), "{note}\n{report}");
        assert_eq!(report.matches("intervals are wide").count(), 1, "{report}");
    }
}
