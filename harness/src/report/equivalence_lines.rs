//! `## Equivalence`: per set of settings that resolve to one code path, whether they agree (two one-sided
//! tests), and settings that reported more than one path; and `## Rule`: whether the engine's own rule
//! matches the best forced setting of each group, by the same tests.

use super::document::Section;
use super::number_format::{confidence, percent, signed_percent};
use super::sweep_report::SweepReport;
use super::text::Text;
use crate::analyse::{Agreement, DriftBound, Margin, RuleCheck};

/// The section; empty when the sweep checks no equivalence.
pub fn equivalence_section(report: &SweepReport) -> Section {
    let Some(check) = &report.analysis.equivalence else { return Section::new("Equivalence") };
    let (analysis, columns) = (report.analysis, report.columns());
    let alpha = analysis.verdicts.alpha;
    let mut lines: Vec<Text> = Vec::new();
    for class in &check.classes {
        let members: Vec<String> =
            class.settings.iter().map(|&i| columns.label(&analysis.settings[i].setting)).collect();
        let verdict = agreement_words(class.agreement, "agree", "disagree");
        let interval =
            class.difference.map_or_else(String::new, |d| format!("; difference {}", difference_text(d, alpha)));
        lines.push(Text::plain(format!(
            "{verdict}: {} resolve to {}={}; spread {} against a margin of {}{interval}.",
            members.join(", "),
            check.key,
            class.value,
            percent(class.spread),
            percent(check.margin.bound)
        )));
    }
    for &index in &check.inconsistent {
        let setting = columns.label(&analysis.settings[index].setting);
        lines.push(Text::plain(format!("WARNING: {setting} reported more than one {} across its runs.", check.key)));
    }
    let section = Section::new(format!("Equivalence ({})", check.key)).paragraph(format!(
        "Settings resolving to one code path: agree when two one-sided tests (Schuirmann 1987) at alpha {alpha} put \
         their difference within the margin, disagree when it is shown beyond it; {}.",
        margin_text(&check.margin)
    ));
    if lines.is_empty() {
        return section.paragraph("No two settings resolve to the same value.");
    }
    section.items(lines)
}

/// `agree`, `WARNING: disagree` or `cannot tell (why)`: an agreement in the words of its sentence.
fn agreement_words(agreement: Agreement, agree: &str, disagree: &str) -> String {
    match agreement {
        Agreement::Agree => agree.to_string(),
        Agreement::Disagree => format!("WARNING: {disagree}"),
        Agreement::CannotTell(Some(reason)) => format!("cannot tell ({reason})"),
        Agreement::CannotTell(None) => "cannot tell".to_string(),
    }
}

/// `+1.2% (90% interval -0.4%..+2.8%)`: a relative difference with the interval two one-sided tests at
/// `alpha` read.
fn difference_text((difference, low, high): (f64, f64, f64), alpha: f64) -> String {
    let level = confidence(1.0 - 2.0 * alpha);
    format!("{} ({level} interval {}..{})", signed_percent(difference), signed_percent(low), signed_percent(high))
}

/// The margin and, when it is not the declared one, why: `margin 22.5% instead of the declared 5.0%: the
/// control ... drifted 22.5% ...`.
fn margin_text(margin: &Margin) -> String {
    let bound = percent(margin.bound);
    let drifted = |drift: &DriftBound| {
        format!(
            "the control {} drifted {bound} within settings during the sweep (two single runs' 95% range: 2√2 × its \
             {} relative sd)",
            drift.metric,
            percent(drift.rel_sd)
        )
    };
    match (&margin.drift, margin.declared) {
        (Some(drift), Some(declared)) => {
            format!("margin {bound} instead of the declared {}: {}", percent(declared), drifted(drift))
        }
        (Some(drift), None) => format!("margin {bound} (no negligible margin declared): {}", drifted(drift)),
        (None, Some(_)) => format!("margin {bound} as declared"),
        (None, None) => {
            "margin 0 (no negligible margin declared, no control drift): only a difference can be shown".to_string()
        }
    }
}

/// `matches in 2 of 4 groups, cannot tell in 2`: every outcome that occurred, counted, the groups where the
/// rule is shown to differ named.
fn outcome_counts(rule: &RuleCheck, missed: &[String]) -> String {
    let total = rule.groups.len();
    if total == 0 {
        return "no group holds both the rule's setting and a forced one".to_string();
    }
    let differ = if missed.is_empty() { String::new() } else { format!(" ({})", missed.join(", ")) };
    let outcomes = [
        ("matches", rule.matches(), String::new()),
        ("shown to differ", missed.len(), differ),
        ("cannot tell", rule.cannot_tell(), String::new()),
    ];
    let groups = if total == 1 { "group" } else { "groups" };
    let mut counted = outcomes.into_iter().filter(|(_, count, _)| *count > 0);
    // The first count says out of how many: every group has one outcome, so there is a first.
    let first =
        counted.next().map(|(outcome, count, named)| format!("{outcome} in {count} of {total} {groups}{named}"));
    let rest = counted.map(|(outcome, count, named)| format!("{outcome} in {count}{named}"));
    first.into_iter().chain(rest).collect::<Vec<_>>().join(", ")
}

/// `Rule verification (...): matches in 3 of 4 groups, cannot tell in 1; margin 5.0% as declared`, then a
/// line per group.
pub fn rule_section(report: &SweepReport) -> Section {
    let section = Section::new("Rule");
    let Some(rule) = &report.analysis.rule else { return section };
    let columns = report.columns();
    let label = |index: usize| columns.label(&report.analysis.settings[index].setting);
    let alpha = report.analysis.verdicts.alpha;
    let lines = rule.groups.iter().map(|group| {
        let verdict = agreement_words(group.agreement, "the same within the margin", "shown to differ");
        let difference = group.difference.map_or_else(String::new, |d| format!(": {}", difference_text(d, alpha)));
        Text::plain(format!(
            "{}: the rule ({}) against the best forced setting ({}): {verdict}{difference}.",
            columns.label(&group.group),
            label(group.rule_setting),
            label(group.best_forced),
        ))
    });
    let missed: Vec<String> = rule.mismatches().map(|group| columns.label(&group.group)).collect();
    let summary = format!(
        "Rule verification ({} = {:?} left to the engine against the best forced setting, two one-sided tests, \
         Schuirmann 1987): {}; {}.",
        rule.param,
        rule.rule,
        outcome_counts(rule, &missed),
        margin_text(&rule.margin)
    );
    section.paragraph(summary).items(lines.collect())
}
