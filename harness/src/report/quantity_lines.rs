//! `## Quantities` (the declared `[[analysis.quantity]]` formulas, each with its 95% interval) and
//! `## Rule`: whether the engine's own rule matches the best forced setting of each group.

use super::document::Section;
use super::equivalence_lines::{agreement_words, difference_text};
use super::number_format::{degrees, number, percent};
use super::sweep_report::SweepReport;
use super::table::Table;
use super::text::Text;
use crate::analyse::RuleCheck;

/// One row per estimate: where it was evaluated, its value and interval with the unit; empty without any.
pub fn quantity_section(report: &SweepReport) -> Section {
    let section = Section::new("Quantities");
    let estimates = &report.analysis.quantities;
    if estimates.is_empty() {
        return section;
    }
    let mut table = Table::new(["quantity", "at", "value", "95% interval", "df"].map(String::from).to_vec());
    for estimate in estimates {
        let unit = |text: String| match &estimate.unit {
            Some(unit) => format!("{text} {unit}"),
            None => text,
        };
        let interval = match estimate.interval {
            Ok((low, high)) => unit(format!("{}..{}", number(low), number(high))),
            Err(reason) => format!("cannot tell ({reason})"),
        };
        let at = if estimate.at.is_empty() { "-".to_string() } else { report.columns().label(&estimate.at) };
        table.push(vec![estimate.name.clone(), at, unit(number(estimate.value)), interval, degrees(estimate.df)]);
    }
    section
        .paragraph(
            "Each declared formula where all its references exist, with a 95% interval by the delta method \
             (first-order Taylor expansion around the settings' means, taken as independent) on \
             Welch-Satterthwaite degrees of freedom.",
        )
        .table(table)
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
    section.paragraph(summary_line(rule, &missed)).items(lines.collect())
}

fn summary_line(rule: &RuleCheck, missed: &[String]) -> String {
    let head = format!(
        "Rule verification ({} = {:?} left to the engine, two one-sided tests within {} of the best forced \
         setting, Schuirmann 1987): the rule matches the forced optimum in {} of {} groups",
        rule.param,
        rule.rule,
        percent(rule.bound),
        rule.matches(),
        rule.groups.len()
    );
    match missed {
        [] => format!("{head}."),
        missed => format!("{head}; it is shown to miss it at {}.", missed.join(", ")),
    }
}
