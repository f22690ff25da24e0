//! `setting_cv` (opt-in: `[analysis] findings = ["setting_cv"]`): how noisy each setting's runs of the
//! primary metric are, as the coefficient of variation: the noisiest few settings and the median.

use serde_json::{json, Value};

use crate::analyse::SummaryStats;
use crate::report::analysis_json::setting_object;
use crate::report::document::Section;
use crate::report::finding::{Finding, Place};
use crate::report::number_format::percent;
use crate::report::sweep_report::SweepReport;
use crate::report::text::Text;

/// How many of the noisiest settings are named.
const SHOWN: usize = 3;

/// The finding: the per-setting coefficient of variation of the primary metric.
pub struct SettingCv;

impl Finding for SettingCv {
    fn name(&self) -> &'static str {
        "setting_cv"
    }

    fn opt_in(&self) -> bool {
        true
    }

    fn method(&self) -> &'static str {
        "coefficient of variation: sample sd (n − 1) / mean of each setting's usable runs (Pearson 1896)"
    }

    fn sections(&self, report: &SweepReport) -> Vec<(Place, Section)> {
        let cvs = setting_cvs(report);
        let Some(median) = median(&cvs) else { return Vec::new() };
        let columns = report.columns();
        let lead = Text::plain("The spread of each setting's runs of ").code(&report.config.primary).and(format!(
            " ({}): median {} over {} settings; the highest:",
            self.method(),
            percent(median),
            cvs.len()
        ));
        let noisiest = cvs.iter().take(SHOWN).map(|cv| {
            let label = columns.label(&report.analysis.settings[cv.setting].setting);
            Text::plain(format!("{label}: {} ({} runs)", percent(cv.cv), cv.runs))
        });
        vec![(Place::Results, Section::new("Setting CV").paragraph(lead).items(noisiest.collect()))]
    }

    fn json(&self, report: &SweepReport) -> Option<Value> {
        let cvs = setting_cvs(report);
        let highest = cvs.iter().take(SHOWN).map(|cv| {
            json!({ "setting": setting_object(&report.analysis.settings[cv.setting].setting), "cv": cv.cv,
                    "runs": cv.runs })
        });
        Some(json!({ "metric": report.config.primary, "settings": cvs.len(), "median": median(&cvs),
                     "highest": highest.collect::<Vec<_>>(), "method": self.method() }))
    }
}

/// One setting's coefficient of variation, over its usable runs.
struct SettingSpread {
    setting: usize,
    cv: f64,
    runs: usize,
}

/// Every setting with two usable runs of the primary metric and a mean other than 0, noisiest first.
fn setting_cvs(report: &SweepReport) -> Vec<SettingSpread> {
    let primary = &report.config.primary;
    let stats =
        report.analysis.settings.iter().enumerate().filter_map(|(setting, s)| Some((setting, s.metric(primary)?)));
    let mut cvs: Vec<SettingSpread> = stats
        .filter(|(_, stats)| stats.n >= 2 && stats.mean != 0.0)
        .map(|(setting, stats)| SettingSpread { setting, cv: stats.stdev / stats.mean.abs(), runs: stats.n })
        .collect();
    cvs.sort_by(|a, b| b.cv.total_cmp(&a.cv));
    cvs
}

/// The median coefficient of variation; None without any.
fn median(cvs: &[SettingSpread]) -> Option<f64> {
    SummaryStats::of(&mut cvs.iter().map(|cv| cv.cv).collect::<Vec<f64>>()).map(|stats| stats.median)
}

#[cfg(test)]
mod tests {
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{fixture_slice_config, fixture_slice_sweep};
    use crate::analyse::AnalysisConfig;
    use crate::report::{analysis_json, markdown, ReportContext, SweepReport};

    /// The summary and `analysis.json` of the slice fixture under `config`.
    fn reported(config: &AnalysisConfig) -> (String, serde_json::Value) {
        let analysis = analyse_sweep(&fixture_slice_sweep(), config, true, &[]);
        let context = ReportContext::default();
        let report = SweepReport { analysis: &analysis, config, context: &context, title: "t" };
        (markdown(&report.document()), analysis_json(&report))
    }

    #[test]
    fn named_in_findings_it_adds_a_section_after_the_verdicts_and_a_json_object() {
        let config = AnalysisConfig { findings: vec!["setting_cv".into()], ..fixture_slice_config() };
        let (summary, json) = reported(&config);
        let section = summary.split("## Setting CV\n").nth(1).unwrap_or_else(|| panic!("no section:\n{summary}"));
        assert!(summary.find("## Verdicts") < summary.find("## Setting CV"), "{summary}");
        assert!(section.contains("`prefill_tokens_per_s` (coefficient of variation: sample sd (n − 1) / mean"));
        assert_eq!(section.lines().filter(|line| line.starts_with("- rows=")).count(), 3, "{section}");
        let cv = &json["setting_cv"];
        assert_eq!((cv["metric"].as_str(), cv["settings"].as_u64()), (Some("prefill_tokens_per_s"), Some(7)));
        let highest: Vec<f64> = cv["highest"].as_array().unwrap().iter().map(|s| s["cv"].as_f64().unwrap()).collect();
        assert!(highest.len() == 3 && highest.windows(2).all(|pair| pair[0] >= pair[1]), "{cv}");
        assert!(cv["median"].as_f64().unwrap() <= highest[0] && cv["highest"][0]["setting"]["rows"].is_i64());
    }

    #[test]
    fn not_named_it_adds_nothing() {
        let (summary, json) = reported(&fixture_slice_config());
        assert!(!summary.contains("Setting CV") && json.get("setting_cv").is_none(), "{summary}");
    }
}
