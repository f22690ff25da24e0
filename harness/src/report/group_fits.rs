//! The per-group cost fits of a sweep (`fit = { ..., by = [...] }`) as a summary table.

use serde_json::{json, Value};

use super::document::Section;
use super::number_format::{number, percent};
use super::setting_json::labels_object;
use super::sweep_report::SweepReport;
use super::table::Table;
use super::text::Text;
use crate::analyse::{SweepAnalysis, TimeUnit};

/// `## Fit per topology`: per group its points, fixed cost, per-unit cost, bandwidth (when x is bytes and
/// y names a time unit), R² and worst leave-one-out error, in declared grid order.
pub fn group_fit_table(report: &SweepReport) -> Section {
    let analysis = report.analysis;
    let Some(fit) = report.config.fit.as_ref().filter(|_| !analysis.group_fits.is_empty()) else {
        return Section::new("Fit per group");
    };
    let unit = TimeUnit::of_metric(&fit.y);
    let bandwidth_unit = unit.filter(|_| names_bytes(&fit.x));
    let shown_unit = report.context.units.of(&fit.y);
    let suffix = shown_unit.as_ref().map_or_else(String::new, |unit| format!(" ({unit})"));
    let mut header = fit.by.clone();
    header.extend([
        "n".to_string(),
        format!("fixed{suffix}"),
        format!("per {}{suffix}", fit.x),
        "R²".to_string(),
        "worst held-out error".to_string(),
        "middle held out".to_string(),
    ]);
    if bandwidth_unit.is_some() {
        header.push("GB/s".to_string());
    }
    let mut table = Table::new(header);
    for group in &analysis.group_fits {
        let mut row: Vec<String> = group.group.iter().map(|(_, value)| value.to_string()).collect();
        row.extend([
            group.fit.n.to_string(),
            number(group.fit.fixed),
            number(group.fit.per_unit),
            format!("{:.4}", group.fit.r_squared),
            group.fit.loo_max_rel_error().map_or_else(|| "too few points".to_string(), percent),
            group.middle_error.map_or_else(|| "-".to_string(), percent),
        ]);
        if let Some(unit) = bandwidth_unit {
            row.push(group.fit.gigabytes_per_second(unit).map_or_else(|| "-".to_string(), number));
        }
        table.push(row);
    }
    let method = "Ordinary least squares per group; held-out error: the worst relative error predicting a point \
                  left out of its group's fit (leave-one-out); middle held out: that error at the median x (the \
                  study's check of a line through the ends).";
    let assumed = match (unit, bandwidth_unit) {
        (_, Some(unit)) => Text::plain(" GB/s = 10⁹ bytes per second of the marginal cost, taking ")
            .code(&fit.x)
            .and(" in bytes and ")
            .code(&fit.y)
            .and(format!(" in {}.", unit.symbol())),
        (Some(_), None) => Text::default(),
        (None, _) => Text::plain(" ")
            .code(&fit.y)
            .and(" names no time unit, so costs are per unit of ")
            .code(&fit.x)
            .and(" as measured."),
    };
    Section::new(format!("Fit per {}: {} = fixed + per-unit × {}", fit.by.join(" "), fit.y, fit.x))
        .paragraph(Text::plain(method).join(assumed))
        .table(table)
}

/// The `fits` entries of `analysis.json`: per group its typed labels and line, in the units measured.
pub fn group_fits_json(analysis: &SweepAnalysis) -> Vec<Value> {
    let fits = analysis.group_fits.iter().map(|group| {
        json!({
            "group": labels_object(&group.group),
            "n": group.fit.n,
            "fixed": group.fit.fixed,
            "per_unit": group.fit.per_unit,
            "r_squared": group.fit.r_squared,
            "worst_held_out_error": group.fit.loo_max_rel_error(),
            "middle_held_out_error": group.middle_error,
        })
    });
    fits.collect()
}

/// `bytes`, `payload_bytes`, `bytes_per_call`: x counts bytes.
fn names_bytes(name: &str) -> bool {
    let words: Vec<&str> = name.split('_').collect();
    words.first() == Some(&"bytes") || words.last() == Some(&"bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_config};
    use crate::analyse::AnalysisConfig;
    use crate::declare::FitConfig;
    use crate::report::{markdown, Document, ReportContext};

    /// The table's section as markdown, without the title.
    fn fit_markdown(analysis: &SweepAnalysis, config: &AnalysisConfig) -> String {
        let context = ReportContext::default();
        let report = SweepReport { analysis, config, context: &context, title: "t" };
        let mut document = Document::new("t");
        document.push(group_fit_table(&report));
        markdown(&document).trim_start_matches("# t\n\n").to_string()
    }

    fn allreduce(y: &str) -> (SweepAnalysis, AnalysisConfig) {
        // torus: 1000 ns + 0.05 ns/byte (20 GB/s); mesh: 2000 ns + 0.1 ns/byte (10 GB/s), declared mesh first.
        let mut observations = Vec::new();
        for (topology, fixed, per_byte) in [("mesh", 2000.0, 0.1), ("torus", 1000.0, 0.05)] {
            for bytes in [1_000_000.0, 2_000_000.0, 4_000_000.0] {
                let setting = [("topology", topology), ("bytes", &format!("{bytes}"))];
                observations.push(fixture_observation(&setting, 1, &[(y, fixed + per_byte * bytes)]));
            }
        }
        let config = AnalysisConfig {
            primary: y.into(),
            group_by: vec![],
            control: None,
            equivalence_key: None,
            fit: Some(FitConfig { x: "bytes".into(), y: y.into(), by: vec!["topology".into()] }),
            ..fixture_slice_config()
        };
        (analyse_sweep(&observations, &config, true, &[]), config)
    }

    #[test]
    fn one_line_per_topology_with_its_bandwidth() {
        let (analysis, config) = allreduce("latency_ns");
        assert!(analysis.fit.is_none(), "no pooled line across topologies");
        let table = fit_markdown(&analysis, &config);
        assert!(table.starts_with("## Fit per topology: latency_ns = fixed + per-unit × bytes\n"), "{table}");
        assert!(table.contains("taking `bytes` in bytes and `latency_ns` in ns"), "{table}");
        assert!(
            table.contains("| topology | n   | fixed (ns) | per bytes (ns) | R²     | worst held-out error | middle held out | GB/s"),
            "{table}"
        );
        assert!(
            table.contains("| mesh     | 3   | 2000       | 0.1000         | 1.0000 | 0.0%                 | 0.0%            | 10.00"),
            "{table}"
        );
        assert!(
            table.contains("| torus    | 3   | 1000       | 0.05000        | 1.0000 | 0.0%                 | 0.0%            | 20.00"),
            "{table}"
        );
    }

    #[test]
    fn analysis_json_has_one_fit_per_group() {
        let (analysis, _) = allreduce("latency_ns");
        let fits = group_fits_json(&analysis);
        assert_eq!(fits.len(), 2);
        assert_eq!((fits[1]["group"]["topology"].as_str(), fits[1]["n"].as_u64()), (Some("torus"), Some(3)));
        assert!((fits[1]["per_unit"].as_f64().unwrap() - 0.05).abs() < 1e-12);
    }

    #[test]
    fn without_a_time_unit_only_the_per_unit_cost_is_given() {
        let (analysis, config) = allreduce("latency");
        let table = fit_markdown(&analysis, &config);
        assert!(!table.contains("GB/s") && table.contains("`latency` names no time unit"), "{table}");
    }
}
