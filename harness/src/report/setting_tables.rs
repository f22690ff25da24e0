//! The per-setting tables of a sweep's report: the primary metric's statistics, every other metric's
//! mean ± 95% CI, each column headed with its unit, and the `[report] pivot` (per-setting means of one
//! metric, one param down and one across).

use super::document::Section;
use super::number_format::{number, percent, with_ci};
use super::setting_columns::first_seen;
use super::sweep_report::SweepReport;
use super::table::Table;
use crate::analyse::SettingSummary;
use crate::declare::PivotConfig;

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
    // A dozen metrics side by side passed 190 columns: blocks of them, each led by the setting columns.
    table.in_blocks(columns.varying.len(), WIDEST_TABLE).into_iter().fold(section, Section::table)
}

/// The widest a table of many metrics may lay out (a wide terminal's columns) before it is split.
const WIDEST_TABLE: usize = 100;

/// `## latency_ns by bytes x topology`: a row per value of `rows`, a column per value of `columns`, both
/// in declared grid order (the settings' order), each cell the mean ± 95% CI of `value` over the setting
/// there, in the value's unit. When other params vary too, a cell is the mean of its settings' means, and
/// the note says so.
pub fn pivot_table(report: &SweepReport, pivot: &PivotConfig) -> Section {
    let analysis = report.analysis;
    let section = Section::new(format!("{} by {} × {}", pivot.value, pivot.rows, pivot.columns));
    let distinct = |name: &str| first_seen(analysis.settings.iter().filter_map(|s| s.setting.value(name)));
    let (row_values, column_values) = (distinct(&pivot.rows), distinct(&pivot.columns));
    if row_values.is_empty() || column_values.is_empty() {
        return section;
    }
    let mut header = vec![format!("{} \\ {}", pivot.rows, pivot.columns)];
    header.extend(column_values.iter().map(|value| value.to_string()));
    let mut table = Table::new(header);
    let mut averaged = false;
    for row in &row_values {
        let mut cells = vec![row.to_string()];
        for column in &column_values {
            let at = |s: &&SettingSummary| {
                s.setting.value(&pivot.rows) == Some(row) && s.setting.value(&pivot.columns) == Some(column)
            };
            let stats: Vec<_> = analysis.settings.iter().filter(at).filter_map(|s| s.metric(&pivot.value)).collect();
            cells.push(match stats.as_slice() {
                [] => String::new(),
                [one] => with_ci(one.mean, one.ci95),
                many => {
                    averaged = true;
                    number(many.iter().map(|s| s.mean).sum::<f64>() / many.len() as f64)
                }
            });
        }
        table.push(cells);
    }
    let note = if averaged {
        " A cell without an interval is the mean of several settings' means (other params vary)."
    } else {
        ""
    };
    let unit = report.context.units.of(&pivot.value).map_or_else(String::new, |unit| format!(", in {unit}"));
    section.paragraph(format!("Mean ± 95% CI per setting{unit}.{note}")).table(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_config};
    use crate::analyse::{analyse_sweep, AnalysisConfig, Observation};
    use crate::declare::{Param, ParamValue};
    use crate::report::markdown;
    use crate::report::{Document, ReportContext};

    fn pivot() -> PivotConfig {
        PivotConfig { rows: "bytes".into(), columns: "topology".into(), value: "latency_ns".into() }
    }

    /// Latency as the primary metric, no groups, control or equivalence.
    fn latency_config() -> AnalysisConfig {
        AnalysisConfig {
            primary: "latency_ns".into(),
            control: None,
            equivalence_key: None,
            group_by: vec![],
            ..fixture_slice_config()
        }
    }

    /// The pivot of `observations` as markdown, without the title.
    fn pivot_markdown(observations: &[Observation], order: &[Param]) -> String {
        let config = latency_config();
        let analysis = analyse_sweep(observations, &config, true, order);
        let context = ReportContext::default();
        let report = SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" };
        let mut document = Document::new("t");
        document.push(pivot_table(&report, &pivot()));
        markdown(&document).trim_start_matches("# t\n\n").to_string()
    }

    fn declared(name: &str, values: Vec<ParamValue>) -> Param {
        Param { name: name.into(), values, is_list: true }
    }

    /// "Other metrics" of the main job was ~190 columns wide: its metrics come in blocks of at most 100.
    #[test]
    fn the_other_metrics_table_is_no_wider_than_100_columns() {
        let metrics = [
            "overlap_slices",
            "prefill_seconds",
            "prefill_spread",
            "prefill_cpu_wait",
            "decode_tokens_per_s",
            "wall",
            "ms_per_row",
            "cpu_available",
            "link_gbps",
        ];
        let observations: Vec<_> = [("512", "1"), ("512", "2"), ("1024", "1"), ("1024", "2")]
            .iter()
            .flat_map(|&(rows, slices)| {
                (1..=3).map(move |rep| {
                    let values: Vec<(&str, f64)> =
                        metrics.iter().map(|metric| (*metric, 1000.0 + 7.3 * rep as f64)).collect();
                    let values =
                        [("prefill_tokens_per_s", 900.0 + rep as f64)].into_iter().chain(values).collect::<Vec<_>>();
                    fixture_observation(&[("rows", rows), ("slices", slices)], rep, &values)
                })
            })
            .collect();
        let config = AnalysisConfig { control: None, equivalence_key: None, ..fixture_slice_config() };
        let analysis = analyse_sweep(&observations, &config, true, &[]);
        let context = ReportContext::default();
        let report = SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" };
        let mut document = Document::new("t");
        document.push(other_metrics_table(&report));
        let text = markdown(&document);
        assert!(text.lines().all(|line| line.chars().count() <= 100), "{text}");
        assert!(metrics.iter().all(|metric| text.contains(metric)), "every metric is still there: {text}");
        assert!(text.matches("| rows | slices |").count() >= 2, "each block names its settings: {text}");
    }

    #[test]
    fn means_by_bytes_and_topology_in_declared_order() {
        // Run in shuffled order; declared: bytes [4096, 65536], topology [mesh, torus].
        let mut observations = Vec::new();
        for (topology, bytes, values) in [
            ("torus", "65536", [30.0, 32.0]),
            ("mesh", "4096", [10.0, 12.0]),
            ("torus", "4096", [8.0, 8.0]),
            ("mesh", "65536", [40.0, 44.0]),
        ] {
            for (rep, value) in values.iter().enumerate() {
                let setting = [("bytes", bytes), ("topology", topology)];
                observations.push(fixture_observation(&setting, rep as u32 + 1, &[("latency_ns", *value)]));
            }
        }
        let order = [
            declared("bytes", vec![ParamValue::Int(4096), ParamValue::Int(65536)]),
            declared("topology", vec![ParamValue::Text("mesh".into()), ParamValue::Text("torus".into())]),
        ];
        let table = pivot_markdown(&observations, &order);
        // mesh at 4096: 10, 12: mean 11, se 1, t(0.975, 1) = 12.706; at 65536: 40, 44: 42 ± 12.706 · 2.
        assert_eq!(
            table,
            "## latency_ns by bytes × topology\n\nMean ± 95% CI per setting, in ns.\n\n\
             | bytes \\ topology | mesh    | torus                  |\n\
             | ---------------- | ------- | ---------------------- |\n\
             | 4096             | 11 ± 13 | 8.000 (all runs equal) |\n\
             | 65536            | 42 ± 25 | 31 ± 13                |\n"
        );
    }

    #[test]
    fn a_cell_over_several_settings_is_their_mean_and_says_so() {
        let observations: Vec<_> = [("a", 10.0), ("b", 20.0)]
            .iter()
            .map(|(mode, value)| {
                let setting = [("bytes", "1"), ("topology", "ring"), ("mode", *mode)];
                fixture_observation(&setting, 1, &[("latency_ns", *value)])
            })
            .collect();
        let table = pivot_markdown(&observations, &[]);
        assert!(table.contains("| 1                | 15.00 |") && table.contains("other params vary"), "{table}");
    }
}
