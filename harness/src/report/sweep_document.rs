//! The report of one sweep as a `Document`, in the order a reader needs it: the title and what
//! was measured; what to trust (failed runs, stragglers, drift, a control set aside, cannot-tell reasons);
//! the verdicts and the findings' results (`Place::Results`); the figures (on the page); then the tables, the
//! findings' among them (`Place::Tables`).

use super::document::{Document, Section};
use super::finding::Place;
use super::html_figures::sweep_figures;
use super::search_report::search_section;
use super::setting_tables::{other_metrics_table, pivot_table, settings_table};
use super::sweep_report::SweepReport;
use super::text::Text;
use super::verdict_lines::{best_table, verdict_section};
use super::what_to_trust::{failure_table, trust_notes};

impl SweepReport<'_> {
    /// The whole report, built once for the terminal, the summary file, the page and `analysis.json`.
    pub fn document(&self) -> Document {
        let mut document = Document::new(self.title);
        document.push(self.lead());
        document.extend(search_section(self));
        document.extend([Section::new("What to trust").notes(trust_notes(self)), verdict_section(self)]);
        document.extend(self.finding_sections(Place::Results));
        document.extend([sweep_figures(self), settings_table(self), other_metrics_table(self)]);
        document.extend(self.context.tables.pivot.as_ref().map(|pivot| pivot_table(self, pivot)));
        document.push(best_table(self));
        document.extend(self.finding_sections(Place::Tables));
        document.push(failure_table(&self.analysis.failures));
        document
    }

    /// What was measured: the primary metric, its unit and direction, and the settings fixed throughout.
    fn lead(&self) -> Section {
        let primary = &self.config.primary;
        let unit = self.context.units.of(primary).map_or_else(String::new, |unit| format!(", in {unit}"));
        let what =
            Text::plain("Primary metric: ").code(primary).and(format!("{unit} ({} is better).", self.config.direction));
        let searched = self.context.search.as_ref().map_or(&[][..], |search| &search.axes);
        Section::lead().paragraph(what).paragraph_if(self.columns().fixed_line(searched))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{
        fixture_observation, fixture_rule_config, fixture_rule_sweep, fixture_slice_config, fixture_slice_sweep,
    };
    use crate::analyse::{AnalysisConfig, GroupOutcome, SweepAnalysis};
    use crate::report::number_format::percent;
    use crate::report::report_context::PlannedRuns;
    use crate::report::resume_command::ResumeCommand;
    use crate::report::ReportContext;
    use crate::report::{analysis_json, markdown};
    use std::path::{Path, PathBuf};

    fn fixture_report() -> String {
        let config = fixture_slice_config();
        let analysis = analyse_sweep(&fixture_slice_sweep(), &config, true, &[]);
        let context = ReportContext::default();
        markdown(
            &SweepReport { analysis: &analysis, config: &config, context: &context, title: "Forced slice sweep" }
                .document(),
        )
    }

    #[test]
    fn slice_sweep_summary() {
        insta::assert_snapshot!(fixture_report());
    }

    #[test]
    fn what_to_trust_then_verdicts_then_tables() {
        let report = fixture_report();
        let order: Vec<usize> =
            ["## What to trust", "## Verdicts", "## prefill_tokens_per_s", "## Best per group", "## Failed runs"]
                .iter()
                .map(|heading| report.find(heading).unwrap_or_else(|| panic!("no {heading}:\n{report}")))
                .collect();
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{report}");
        let trust = &report[order[0]..order[1]];
        assert!(trust.contains("- WARNING: 3 of 25 runs failed"), "{trust}");
        assert!(trust.contains("The control `decode_tokens_per_s` varied by 1.0% within settings"), "{trust}");
    }

    #[test]
    fn numbers_carry_their_units() {
        let report = fixture_report();
        assert!(report.contains("Primary metric: `prefill_tokens_per_s`, in tok/s (higher is better)."), "{report}");
        assert!(report.contains("| 512  | 1      | 3   | 876 ± 28"), "{report}");
        assert!(report.contains("mean ± 95% CI (tok/s)"), "{report}");
        assert!(report.contains("- rows=2048: resolved: slices=2 is best (1239 tok/s)"), "{report}");
        assert!(
            report.contains("- agree: rows=512 slices=1, rows=512 slices=8 resolve to overlap_slices=1; spread 0.4%")
        );
        assert!(report.contains("Fixed: variant=baseline."));
    }

    /// A run 1.6x faster than its setting's other two is named as one that may have skipped work, and the
    /// group it would lead, were it the right one, cannot be told.
    #[test]
    fn a_run_far_faster_than_its_setting_is_named_and_decides_nothing() {
        let config = fixture_slice_config();
        let mut observations = fixture_slice_sweep();
        let run = observations
            .iter_mut()
            .find(|o| {
                let is = |name: &str, value: &str| o.setting.value(name).is_some_and(|v| v.to_string() == value);
                o.rep == 2 && is("rows", "2048") && is("slices", "4")
            })
            .expect("rows=2048 slices=4 rep 2");
        *run.metrics.get_mut("prefill_tokens_per_s").expect("prefill") *= 1.6;
        let analysis = analyse_sweep(&observations, &config, true, &[]);
        let context = ReportContext::default();
        let report =
            markdown(&SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" }.document());
        let trust = &report[..report.find("## Verdicts").expect("verdicts")];
        assert!(
            trust.contains(
                "- WARNING: 1 run 1.601x faster than their setting's other runs predict: did they skip work? Left out \
                 of the fit (kept in the CSV): rows=2048 slices=4 rep 2."
            ),
            "{trust}"
        );
        assert!(trust.contains("Cannot tell rows=2048 (runs disagree: "), "{trust}");
    }

    #[test]
    fn no_failures_and_no_options() {
        let config =
            AnalysisConfig { control: None, equivalence_key: None, group_by: vec![], ..fixture_slice_config() };
        let observations: Vec<_> =
            fixture_slice_sweep().into_iter().filter(|o| o.status == crate::ground::RunStatus::Ok).collect();
        let analysis = analyse_sweep(&observations, &config, true, &[]);
        let context = ReportContext::default();
        let report =
            markdown(&SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" }.document());
        assert!(report.contains("- All 22 runs finished ok."), "{report}");
        assert!(!report.contains("Drift") && !report.contains("Equivalence") && !report.contains("Failed runs"));
    }

    /// A sweep on a machine where another job took 45% of the CPU: the summary's first line names the
    /// shortfall with its figure, and the tied group says how many runs would decide it, with the command.
    #[test]
    fn a_busy_machine_is_named_first_and_a_tied_group_says_what_would_decide_it() {
        let config = AnalysisConfig {
            control: None,
            equivalence_key: None,
            cpu_share: Some("cpu".into()),
            ..fixture_slice_config()
        };
        let values = [("1", [100.0, 104.0, 97.0, 101.0]), ("2", [106.0, 103.0, 102.0, 102.0])];
        let mut observations = Vec::new();
        for rep in 0..4 {
            for (slices, runs) in &values {
                let metrics = [("prefill_tokens_per_s", runs[rep]), ("cpu", 0.55)];
                observations.push(fixture_observation(
                    &[("rows", "512"), ("slices", slices)],
                    rep as u32 + 1,
                    &metrics,
                ));
            }
        }
        let analysis = analyse_sweep(&observations, &config, true, &[]);
        let argv: Vec<String> = ["sweep", "run", "sweeps/s.toml"].map(String::from).to_vec();
        let planned = PlannedRuns {
            runs: 8,
            race: false,
            resume: Some(ResumeCommand::of(&argv, Path::new("r.csv"))),
            command_line: argv,
            csv: PathBuf::from("r.csv"),
        };
        let context = ReportContext { planned: Some(planned), ..ReportContext::default() };
        let report =
            markdown(&SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" }.document());
        let first = report.lines().find(|line| line.starts_with("- ")).expect("a note");
        assert!(
            first.starts_with(
                "- WARNING: The ranks got 55.0% of the CPU they asked for (median of 8 runs; 55.0% to 55.0%)"
            ),
            "{report}"
        );
        let needed = analysis.verdicts.groups[0].runs_to_decide().expect("a count within reach");
        assert!(needed > 4 && needed <= 40, "{needed}");
        assert!(report.contains(&format!("About {needed} runs per setting would decide it ({} more).", needed - 4)));
        assert!(report.contains(&format!("`sweep run sweeps/s.toml --resume r.csv --reps {needed}`")), "{report}");
        assert!(report.contains("Or rerun when the machine is idle: the ranks got 55.0% of the CPU"), "{report}");
    }

    /// A Ctrl-C in the second round: every setting has one run but rows=512 slices=1, whose two runs gave
    /// the same value (so the sweep reads as one without spread). The summary called rows=4096, where each
    /// setting had one run, "resolved by value", and rows=2048, one setting of one run, resolved.
    #[test]
    fn partial_summary_never_resolves_a_group_on_one_run_per_setting() {
        let config = AnalysisConfig { control: None, equivalence_key: None, ..fixture_slice_config() };
        let mut observations = Vec::new();
        let first_round = [("512", "1", 100.0), ("512", "2", 80.0), ("4096", "1", 90.0), ("4096", "2", 100.0)];
        for (rows, slices, tps) in first_round.into_iter().chain([("2048", "1", 50.0)]) {
            let labels = [("rows", rows), ("slices", slices)];
            observations.push(fixture_observation(&labels, 1, &[("prefill_tokens_per_s", tps)]));
        }
        let repeat = [("rows", "512"), ("slices", "1")];
        observations.push(fixture_observation(&repeat, 2, &[("prefill_tokens_per_s", 100.0)]));
        let analysis = analyse_sweep(&observations, &config, true, &[]);
        let context = ReportContext::default();
        let report = SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" };
        let text = markdown(&report.document());
        for rows in ["4096", "2048"] {
            assert!(text.contains(&format!("- rows={rows}: cannot tell (1 rep): ")), "{text}");
            assert!(!text.contains(&format!("rows={rows}: resolved")), "{text}");
        }
        let table_verdicts: Vec<&str> =
            text.lines().filter(|line| line.starts_with("| 4096 ") || line.starts_with("| 2048 ")).collect();
        assert_eq!(table_verdicts.iter().filter(|line| line.contains("| cannot tell |")).count(), 2, "{text}");
        assert!(text.contains("- rows=512: resolved by value: slices=1 is best"), "two equal runs order by value");
        let json = analysis_json(&report);
        let verdicts: Vec<&str> =
            json["groups"].as_array().unwrap().iter().map(|g| g["verdict"].as_str().unwrap()).collect();
        assert_eq!(verdicts, ["resolved", "cannot tell", "cannot tell"]);
    }

    /// sweeps/slices.toml's shape: serial best at 512, 1024 and 2048 rows, two slices at 4096; the rule
    /// picks the best everywhere.
    const SLICES: [(&str, [f64; 3], usize); 4] = [
        ("512", [100.0, 90.0, 70.0], 0),
        ("1024", [100.0, 93.0, 80.0], 0),
        ("2048", [100.0, 96.0, 85.0], 0),
        ("4096", [95.0, 105.0, 90.0], 1),
    ];

    /// The analysis and summary of a rule sweep (`fixture_rule_sweep`) under sweeps/slices.toml's questions.
    fn rule_summary(groups: &[(&str, [f64; 3], usize)], noise: f64, drift: f64) -> (SweepAnalysis, String) {
        let config = fixture_rule_config();
        let analysis = analyse_sweep(&fixture_rule_sweep(groups, 3, noise, drift), &config, true, &[]);
        let context = ReportContext::default();
        let report = SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" };
        let text = markdown(&report.document());
        (analysis, text)
    }

    /// The summary's line that starts with `start`.
    fn line<'t>(text: &'t str, start: &str) -> &'t str {
        text.lines().find(|line| line.starts_with(start)).unwrap_or_else(|| panic!("no {start:?} line:\n{text}"))
    }

    /// The declared 5% margin became 22.5% (then 14.3%) with no word of why.
    #[test]
    fn a_widened_rule_margin_says_why_in_the_same_line() {
        let (analysis, text) = rule_summary(&SLICES, 0.005, 0.1);
        let margin = &analysis.rule.as_ref().expect("a rule check").margin;
        let drift = margin.drift.as_ref().expect("the control's drift widened the margin");
        assert!(margin.bound > 0.05, "{margin:?}");
        let why = format!(
            "; margin {bound} instead of the declared 5.0%: the control decode_tokens_per_s drifted {bound} within \
             settings during the sweep (two single runs' 95% range: 2√2 × its {} relative sd).",
            percent(drift.rel_sd),
            bound = percent(margin.bound)
        );
        assert!(line(&text, "Rule verification").ends_with(&why), "{why}\n{text}");
        let (_, calm) = rule_summary(&SLICES, 0.005, 0.005);
        assert!(line(&calm, "Rule verification").ends_with("; margin 5.0% as declared."), "{calm}");
    }

    /// "matches in 0 of 4" was printed when every group was "cannot tell".
    #[test]
    fn rule_summary_counts_each_outcome_not_matches_in_0_of_4() {
        let (analysis, noisy) = rule_summary(&SLICES, 0.2, 0.005);
        let head = line(&noisy, "Rule verification");
        assert!(head.contains("): cannot tell in 4 of 4 groups; margin") && !head.contains("matches"), "{noisy}");
        let config = fixture_rule_config();
        let context = ReportContext::default();
        let json = analysis_json(&SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" });
        assert_eq!((&json["rule"]["matches"], &json["rule"]["cannot_tell"]), (&0.into(), &4.into()));
        // The rule keeps one slice at 4096 rows, 9.5% below the two it should split into.
        let mut missing = SLICES;
        missing[3].2 = 0;
        let (_, text) = rule_summary(&missing, 0.005, 0.005);
        let head = line(&text, "Rule verification");
        assert!(head.contains("): matches in 3 of 4 groups, shown to differ in 1 (rows=4096); margin"), "{text}");
    }

    /// The rule implied by the winners was printed from tied ones: rows=1024, where two slices lead one by a
    /// hair, would have implied 512 rows per slice.
    #[test]
    fn implied_rule_comes_only_from_resolved_groups() {
        let mut tied = SLICES;
        tied[1].1 = [100.0, 100.2, 80.0];
        let (analysis, text) = rule_summary(&tied, 0.005, 0.005);
        let at_1024 = &analysis.verdicts.groups[1];
        assert_eq!(at_1024.outcome, GroupOutcome::Tied);
        assert_eq!(analysis.settings[at_1024.best].value_of("overlap_slices"), Some(2.0), "a splitting tied best");
        assert!(
            text.contains(
                "Rows-per-slice rule implied by the resolved groups' best settings (3 of 4 groups resolved): double \
                 `overlap_slices` while rows / slices stays >= 2048."
            ),
            "{text}"
        );
        let (_, noisy) = rule_summary(&SLICES, 0.2, 0.005);
        assert!(noisy.contains("\nNo rows-per-slice rule implied: no group resolved.\n"), "{noisy}");
        assert!(!noisy.contains("Rows-per-slice rule implied by"), "{noisy}");
    }
}
