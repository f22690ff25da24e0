//! The per-setting tables of a sweep's report: the primary metric's statistics, and every other metric's
//! mean ± 95% CI, each column headed with its unit.

use super::document::Section;
use super::number_format::{number, percent, with_ci};
use super::sweep_report::SweepReport;
use crate::analyse::SettingSummary;

/// `## prefill_tokens_per_s`: n, mean ± 95% CI, median, min..max and spread per setting, in grid order.
pub fn settings_table(report: &SweepReport) -> Section {
    let (primary, units) = (&report.config.primary, &report.context.units);
    let columns = report.columns();
    let header = [
        "n".to_string(),
        units.header("mean ± 95% CI", primary),
        units.header("median", primary),
        units.header("min..max", primary),
        "spread".to_string(),
    ];
    let mut table = columns.table(&header);
    for summary in &report.analysis.settings {
        let stats = match summary.metric(primary) {
            Some(s) => vec![
                s.n.to_string(),
                with_ci(s.mean, s.ci95),
                number(s.median),
                format!("{}..{}", number(s.min), number(s.max)),
                percent(s.rel_spread),
            ],
            None => vec!["0".into(), "no usable runs".into(), String::new(), String::new(), String::new()],
        };
        table.push(columns.cells(&summary.setting).into_iter().chain(stats).collect());
    }
    Section::new(primary.clone()).table(table)
}

/// Every metric other than the primary and those that only echo a param, mean ± 95% CI per setting.
pub fn other_metrics_table(report: &SweepReport) -> Section {
    let (analysis, units) = (report.analysis, &report.context.units);
    let mut names: Vec<&String> = analysis.settings.iter().flat_map(|s| s.metrics.keys()).collect();
    names.sort();
    names.dedup();
    names.retain(|name| **name != report.config.primary && !SettingSummary::echoes_a_param(&analysis.settings, name));
    let section = Section::new("Other metrics (mean ± 95% CI)");
    if names.is_empty() {
        return section;
    }
    let columns = report.columns();
    let header: Vec<String> = names.iter().map(|name| units.header(name, name)).collect();
    let mut table = columns.table(&header);
    for summary in &analysis.settings {
        let cells = names.iter().map(|name| summary.metric(name).map_or(String::new(), |s| with_ci(s.mean, s.ci95)));
        table.push(columns.cells(&summary.setting).into_iter().chain(cells).collect());
    }
    section.table(table)
}
