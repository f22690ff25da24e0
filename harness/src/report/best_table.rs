//! `## Best per group`: one row per group with the best setting, its mean and every rival's ratio.

use super::document::Section;
use super::number_format::{confidence, number, with_ci};
use super::setting_columns::{ColumnValues, SettingColumns};
use super::sweep_report::SweepReport;
use super::table::Table;
use crate::analyse::{GroupOutcome, GroupVerdict, SweepAnalysis};

/// The table, with the "same path" column when the sweep checks equivalence.
pub fn best_table(report: &SweepReport) -> Section {
    let (analysis, config) = (report.analysis, report.config);
    let groups = &analysis.verdicts.groups;
    if groups.is_empty() {
        return Section::new("Best per group");
    }
    let rest = report.columns().without(&config.group_by);
    let mut header: Vec<String> = config.group_by.clone();
    header.extend([
        "best".to_string(),
        report.context.units.header(&config.primary, &config.primary),
        "verdict".to_string(),
        "beaten (rival / best)".to_string(),
        "tied (rival / best)".to_string(),
    ]);
    if analysis.equivalence.is_some() {
        header.push("same path".to_string());
    }
    let mut table = Table::new(header);
    for group in groups {
        let best = &analysis.settings[group.best];
        let stats = best.metric(&config.primary).expect("a best setting has the primary metric");
        let group_cells =
            config.group_by.iter().map(|c| group.group.column(c).map_or(String::new(), |v| v.to_string()));
        let outcome = match group.outcome {
            GroupOutcome::Resolved => "resolved",
            GroupOutcome::Tied => "tied",
            GroupOutcome::CannotTell => "cannot tell",
        };
        let row = group_cells
            .chain([
                rest.label(&best.setting),
                with_ci(stats.mean, stats.ci95),
                outcome.to_string(),
                rivals_cell(analysis, &rest, group, true),
                rivals_cell(analysis, &rest, group, false),
            ])
            .chain(analysis.equivalence.is_some().then(|| same_path_cell(analysis, &rest, group)))
            .collect();
        table.push(row);
    }
    Section::new("Best per group")
        .paragraph(format!(
            "Ratios rival / best with their {} simultaneous intervals (compatible with the Holm-corrected verdicts).",
            confidence(analysis.verdicts.level)
        ))
        .table(table)
}

/// The beaten (or the tied) rivals of a group: `slices=4 0.4896 [0.4788, 0.5006]; ...`, `-` for none.
fn rivals_cell(analysis: &SweepAnalysis, rest: &SettingColumns, group: &GroupVerdict, beaten: bool) -> String {
    let parts = group.rivals.iter().filter(|r| r.beaten == beaten).map(|r| {
        let ratio = r.ratio.map_or_else(
            || "untested".to_string(),
            |x| format!("{} [{}, {}]", number(x.ratio), number(x.low), number(x.high)),
        );
        let practical = if r.equivalent { ", negligible" } else { "" };
        format!("{} {ratio}{practical}", rest.label(&analysis.settings[r.setting].setting))
    });
    joined_or_dash(parts)
}

/// The "same path" cell of the best-per-group table: the settings of a group that resolve to one code
/// path (an equivalence class), e.g. `slices=1 = slices=8 here`.
fn same_path_cell(analysis: &SweepAnalysis, rest: &SettingColumns, group: &GroupVerdict) -> String {
    let classes = analysis.equivalence.iter().flat_map(|check| &check.classes);
    let parts = classes.filter(|class| class.group == group.group).map(|class| {
        let members: Vec<String> = class.settings.iter().map(|&i| rest.label(&analysis.settings[i].setting)).collect();
        format!("{} here", members.join(" = "))
    });
    joined_or_dash(parts)
}

/// The parts joined by `; `, or `-` when there are none.
fn joined_or_dash(parts: impl Iterator<Item = String>) -> String {
    let parts: Vec<String> = parts.collect();
    if parts.is_empty() {
        "-".to_string()
    } else {
        parts.join("; ")
    }
}
