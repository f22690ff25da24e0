//! The report of an ablation as a `Document`, in the order of every report: what to trust (effects that
//! could not be measured), the additivity verdicts (pooled, then per `group_by` setting), the figures, then
//! the per-variant tables with deltas (section 5.4 of the slice study) and the pairwise interactions.

use super::document::{Document, Note, Section};
use super::html_figures::ablation_figures;
use super::metric_units::MetricUnits;
use super::number_format::{confidence, degrees, number, percent, signed, signed_percent, signed_with_ci, with_ci};
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
    let mut notes = run_notes(failures, context);
    notes.extend(scopes.iter().filter_map(|(scope, analysis)| missing_note(scope, analysis)));
    notes.sort_by_key(|note| !note.warning);
    document.push(Section::new("What to trust").notes(notes));
    let verdicts = scopes.iter().filter_map(|(scope, analysis)| {
        let AblationEffects::Measured(effects) = &analysis.effects else { return None };
        let sentence = additivity_sentence(effects, analysis.tolerance, units);
        Some(Text::plain(scope.as_ref().map_or(sentence.clone(), |scope| format!("{scope}: {sentence}"))))
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
fn missing_note(scope: &Option<String>, analysis: &AblationAnalysis) -> Option<Note> {
    let at = scope.as_ref().map_or_else(String::new, |scope| format!("{scope}: "));
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

/// The variant table and, for a 2^k factorial, the pairwise interactions; `scope` names a group's.
fn tables(scope: Option<&str>, analysis: &AblationAnalysis, units: &MetricUnits) -> [Section; 2] {
    let at = scope.map_or_else(String::new, |scope| format!(" at {scope}"));
    let variants = (!analysis.metrics.is_empty()).then(|| variant_table(analysis, units));
    let pairwise = match &analysis.effects {
        AblationEffects::Measured(effects) if !effects.pairwise.is_empty() => Some(pairwise_table(effects, units)),
        _ => None,
    };
    [
        Section::new(format!("Variants{at}")).table(variants),
        Section::new(format!("Pairwise interactions (2^k factorial){at}")).table(pairwise),
    ]
}

/// The per-variant table; only called with at least one metric (the scope metric first).
fn variant_table(analysis: &AblationAnalysis, units: &MetricUnits) -> Table {
    let scope = &analysis.metrics[0];
    let mut header = vec![
        "variant".to_string(),
        units.header(&format!("{scope}: mean ± 95% CI"), scope),
        units.header("delta", scope),
    ];
    header.extend(analysis.metrics[1..].iter().map(|metric| units.header(metric, metric)));
    let mut table = Table::new(header);
    let baseline = analysis.variants.iter().find(|v| v.variant.ablated().is_empty()).and_then(|v| v.metrics[0]);
    for variant in &analysis.variants {
        let cell =
            |stats: &Option<crate::analyse::SummaryStats>| stats.map_or(String::new(), |s| with_ci(s.mean, s.ci95));
        let delta = match (variant.variant.ablated().is_empty(), variant.metrics[0], baseline) {
            (false, Some(v), Some(b)) => {
                format!("{} ({})", signed(v.mean - b.mean), signed_percent((v.mean - b.mean) / b.mean))
            }
            _ => "-".to_string(),
        };
        let row = [variant.variant.to_string(), cell(&variant.metrics[0]), delta]
            .into_iter()
            .chain(variant.metrics[1..].iter().map(cell));
        table.push(row.collect());
    }
    table
}

/// `Single deltas sum to -1.369 s against -1.360 s with all groups ablated: ... -> additive within 5.0% (...)`.
fn additivity_sentence(effects: &Additivity, tolerance: f64, units: &MetricUnits) -> String {
    let in_unit = |text: String| units.in_unit(&text, &effects.metric);
    let head = match effects.scale {
        AdditivityScale::Linear => format!(
            "Single deltas sum to {} against {} with all groups ablated: interaction {} ({} of the all-groups delta{})",
            in_unit(signed(effects.sum_of_singles)),
            in_unit(signed(effects.all.estimate)),
            in_unit(signed_with_ci(effects.interaction.estimate, effects.interaction.ci95)),
            percent(effects.relative_interaction().abs()),
            tost_interval(effects, &effects.interaction),
        ),
        AdditivityScale::Log => format!(
            "Single ratios multiply to {} against {} with all groups ablated: interaction {} as a ratio of ratios \
             ({})",
            number(effects.sum_of_singles.exp()),
            number(effects.all.estimate.exp()),
            signed_percent(effects.relative_interaction()),
            tost_interval(effects, &effects.interaction).trim_start_matches("; "),
        ),
    };
    format!("{head} -> {}.", verdict_phrase(effects, tolerance))
}

/// Every pairwise interaction of a 2^k factorial with its interval and whether it is within the tolerance.
fn pairwise_table(effects: &Additivity, units: &MetricUnits) -> Table {
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
                percent(effects.relative_of(pair.interaction.estimate).abs()),
                bounds(effects, &pair.interaction).map_or_else(String::new, |(low, high)| format!(" [{low}, {high}]"))
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
fn tost_interval(effects: &Additivity, interaction: &LinearContrast) -> String {
    bounds(effects, interaction).map_or_else(String::new, |(low, high)| {
        format!("; {} interval {low}..{high}", confidence(1.0 - 2.0 * effects.alpha))
    })
}

/// The ends of an interaction's 1 − 2·alpha interval, relative like the tolerance.
fn bounds(effects: &Additivity, interaction: &LinearContrast) -> Option<(String, String)> {
    let half = interaction.one_sided_half_width(effects.alpha)?;
    Some((
        signed_percent(effects.relative_of(interaction.estimate - half)),
        signed_percent(effects.relative_of(interaction.estimate + half)),
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
        assert!(report.contains("-0.7918 (-36.0%)"));
        assert!(report.contains("-1.360 (-61.7%)"));
        assert!(report.contains("Single deltas sum to -1.369 s against -1.360 s"), "{report}");
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
}
