//! `## Equivalence`: per set of settings that resolve to one code path, whether they agree (two one-sided
//! tests), and settings that reported more than one path; and `## Rule`: whether the engine's own rule
//! matches the best forced setting of each group, by the same tests.

use super::document::Section;
use super::number_format::{confidence, percent, signed_percent};
use super::sweep_report::SweepReport;
use super::text::Text;
use crate::analyse::Agreement;

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
            percent(class.bound)
        )));
    }
    for &index in &check.inconsistent {
        let setting = columns.label(&analysis.settings[index].setting);
        lines.push(Text::plain(format!("WARNING: {setting} reported more than one {} across its runs.", check.key)));
    }
    let section = Section::new(format!("Equivalence ({})", check.key)).paragraph(format!(
        "Settings resolving to one code path: agree when two one-sided tests (Schuirmann 1987) at alpha {alpha} put \
         their difference within the margin, disagree when it is shown beyond it."
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

/// "the rule matches the forced optimum in 3 of 4 groups", naming any group where it is shown not to.
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
    let head = format!(
        "Rule verification ({} = {:?} left to the engine, two one-sided tests within {} of the best forced \
         setting, Schuirmann 1987): the rule matches the forced optimum in {} of {} groups",
        rule.param,
        rule.rule,
        percent(rule.bound),
        rule.matches(),
        rule.groups.len()
    );
    let summary = match &missed[..] {
        [] => format!("{head}."),
        missed => format!("{head}; it is shown to miss it at {}.", missed.join(", ")),
    };
    section.paragraph(summary).items(lines.collect())
}
