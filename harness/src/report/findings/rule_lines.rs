//! `## Rule` (`[analysis] verify_rule`): whether the engine's own rule matches the best forced setting of
//! each group, by two one-sided tests; `rule` in `analysis.json`; a rule shown to miss fails the sweep.

use serde_json::{json, Value};

use super::equivalence_lines::{agreement_words, difference_text, margin_text};
use crate::analyse::RuleCheck;
use crate::report::analysis_json::{labels_object, setting_object};
use crate::report::document::Section;
use crate::report::finding::{Finding, Place};
use crate::report::sweep_report::SweepReport;
use crate::report::text::Text;

/// The finding: the engine's rule against the forced optimum per group.
pub struct RuleLines;

impl Finding for RuleLines {
    fn name(&self) -> &'static str {
        "rule"
    }

    fn method(&self) -> &'static str {
        "two one-sided tests, Schuirmann 1987"
    }

    /// `Rule verification (...): matches in 3 of 4 groups, cannot tell in 1; margin 5.0% as declared`, then a
    /// line per group.
    fn sections(&self, report: &SweepReport) -> Vec<(Place, Section)> {
        let Some(rule) = &report.analysis.rule else { return Vec::new() };
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
            "Rule verification ({} = {:?} left to the engine against the best forced setting, {}): {}; {}.",
            rule.param,
            rule.rule,
            self.method(),
            outcome_counts(rule, &missed),
            margin_text(&rule.margin)
        );
        vec![(Place::Results, Section::new("Rule").paragraph(summary).items(lines.collect()))]
    }

    /// Per group, the rule's and the best forced setting and the agreement.
    fn json(&self, report: &SweepReport) -> Option<Value> {
        let Some(rule) = &report.analysis.rule else { return Some(Value::Null) };
        let setting = |index: usize| setting_object(&report.analysis.settings[index].setting);
        let groups = rule.groups.iter().map(|g| {
            json!({ "group": labels_object(&g.group), "rule": setting(g.rule_setting),
                    "best_forced": setting(g.best_forced), "agreement": g.agreement,
                    "difference": g.difference.map(|d| d.0), "low": g.difference.map(|d| d.1),
                    "high": g.difference.map(|d| d.2) })
        });
        // `bound` is the margin used: `declared_bound` (`negligible`), or the control's drift when larger
        // (`widened_by`: the control and its within-setting relative sd; the bound is 2√2 × that).
        let widened_by = rule.margin.drift.as_ref().map(|d| json!({ "control": d.metric, "rel_sd": d.rel_sd }));
        Some(json!({ "param": rule.param, "rule": rule.rule, "bound": rule.margin.bound,
                     "declared_bound": rule.margin.declared, "widened_by": widened_by, "matches": rule.matches(),
                     "mismatches": rule.mismatches().count(), "cannot_tell": rule.cannot_tell(),
                     "groups": groups.collect::<Vec<_>>(), "method": self.method() }))
    }

    fn fails(&self, report: &SweepReport) -> bool {
        report.analysis.rule.as_ref().is_some_and(|rule| rule.mismatches().next().is_some())
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
