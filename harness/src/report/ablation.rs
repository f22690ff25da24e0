//! The markdown report of an ablation: per-variant table with deltas, then the additivity verdict.

use std::fmt::Write;

use super::markdown_table::MarkdownTable;
use super::number_format::{confidence, degrees, number, percent, signed, signed_percent, signed_with_ci, with_ci};
use crate::analyse::{
    AblationAnalysis, AblationEffects, Additivity, AdditivityVerdict, Interaction, Labels, LinearContrast,
};
use crate::spec::AdditivityScale;

/// Render an ablation like section 5.4 of the slice study: variant | scope metric | delta (abs, %)
/// | other metrics, then the single deltas against the all-groups delta, the interaction with its
/// 95% CI, the verdict, and for a 2^k factorial every pairwise interaction.
pub fn ablation_markdown(analysis: &AblationAnalysis, title: &str) -> String {
    let mut out = format!("# {title}\n\n");
    match &analysis.effects {
        AblationEffects::NoScopeMetric => out.push_str("No metrics were asked for: nothing to report.\n"),
        AblationEffects::NotEnoughData { missing } => writeln!(
            out,
            "{}\nNot enough data for effects: no usable {} in {}.",
            variant_table(analysis),
            analysis.metrics[0],
            missing.join(", ")
        )
        .unwrap(),
        AblationEffects::Measured(additivity) => {
            write!(out, "{}\n{}", variant_table(analysis), additivity_lines(additivity, analysis.tolerance)).unwrap()
        }
    }
    out
}

/// One section per `group_by` setting (`## rows=512`): its variant table and its additivity verdict,
/// so an ablation over several settings is not pooled into one mean per variant.
pub fn ablation_groups_markdown(groups: &[(Labels, AblationAnalysis)]) -> String {
    let mut out = String::new();
    for (labels, analysis) in groups {
        let name: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let section = ablation_markdown(analysis, &name.join(" "));
        write!(out, "\n#{section}").unwrap();
    }
    out
}

/// The per-variant table; only called with at least one metric (the scope metric first).
fn variant_table(analysis: &AblationAnalysis) -> String {
    let scope = &analysis.metrics[0];
    let mut header = vec!["variant".to_string(), format!("{scope} (mean ± 95% CI)"), "delta".to_string()];
    header.extend(analysis.metrics[1..].iter().cloned());
    let mut table = MarkdownTable::new(header);
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
    table.render()
}

fn additivity_lines(effects: &Additivity, tolerance: f64) -> String {
    let head = match effects.scale {
        AdditivityScale::Linear => format!(
            "Single deltas sum to {} against {} with all groups ablated: interaction {} ({} of the all-groups delta{})",
            signed(effects.sum_of_singles),
            signed(effects.all.estimate),
            signed_with_ci(effects.interaction.estimate, effects.interaction.ci95),
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
    let mut out = format!("{head} -> {}.\n", verdict_phrase(effects, tolerance));
    if !effects.pairwise.is_empty() {
        let mut table = MarkdownTable::new(vec![
            "pair".into(),
            "interaction (± 95% CI)".into(),
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
                    bounds(effects, &pair.interaction)
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
        write!(out, "\n## Pairwise interactions (2^k factorial)\n\n{}", table.render()).unwrap();
    }
    out
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
    use crate::analyse::analyse_ablation;
    use crate::analyse::fixtures::{fixture_ablation, fixture_names, fixture_observation};

    fn fixture_report(observations: &[crate::analyse::Observation]) -> String {
        let analysis = analyse_ablation(
            observations,
            &fixture_names(&["broadcast_rows", "rank1_update"]),
            &fixture_names(&["gated_delta", "wall", "prefill_tokens_per_s"]),
            0.05,
            false,
        );
        ablation_markdown(&analysis, "gated_delta ablation at 4433 tokens")
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
        assert!(report.contains("Single deltas sum to -1.369 against -1.360"));
        assert!(
            report.contains("(0.7% of the all-groups delta; 90% interval 0.0%..+1.4%) -> additive within 5.0%"),
            "{report}"
        );
    }

    #[test]
    fn missing_variant_report() {
        let observations: Vec<_> =
            fixture_ablation().into_iter().filter(|o| o.variant() != Some("rank1_update")).collect();
        let report = fixture_report(&observations);
        assert!(report.contains("| baseline "));
        assert!(report.ends_with("Not enough data for effects: no usable gated_delta in rank1_update.\n"), "{report}");
    }

    #[test]
    fn no_metric_report() {
        let analysis = analyse_ablation(&fixture_ablation(), &fixture_names(&["broadcast_rows"]), &[], 0.05, false);
        assert_eq!(ablation_markdown(&analysis, "t"), "# t\n\nNo metrics were asked for: nothing to report.\n");
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
        let report = ablation_markdown(
            &analyse_ablation(&observations, &groups, &fixture_names(&["t"]), 0.05, false),
            "three groups",
        );
        insta::assert_snapshot!(report);
    }
}
