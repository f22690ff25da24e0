//! The verdict sentences a summary leads with, the method behind them, and the best-per-group table.

use std::fmt::Write;

use super::markdown_table::MarkdownTable;
use super::number_format::{number, p_value, percent, with_ci};
use super::setting_columns::SettingColumns;
use crate::analyse::{
    AnalysisConfig, ComparisonMethod, GroupOutcome, GroupVerdict, RatioInterval, Rival, Scale, SweepAnalysis, Verdicts,
};

/// `## Verdicts`: how the data were compared, then one plain sentence per group.
pub fn verdict_section(analysis: &SweepAnalysis, config: &AnalysisConfig, columns: &SettingColumns) -> String {
    let verdicts = &analysis.verdicts;
    if verdicts.groups.is_empty() {
        return String::new();
    }
    let mut out = format!("## Verdicts\n\n{}\n\n", method_line(verdicts));
    let speaker = Speaker { analysis, config, rest: columns.without(&config.group_by) };
    for group in &verdicts.groups {
        writeln!(out, "- {}", speaker.sentence(group)).unwrap();
    }
    out.push('\n');
    out
}

/// What the verdicts rest on, in one paragraph.
fn method_line(verdicts: &Verdicts) -> String {
    let scale = match verdicts.scale {
        Scale::Log => "ratios (differences of log values)",
        Scale::Linear => "differences",
    };
    let design = match (verdicts.method(), &verdicts.model) {
        (ComparisonMethod::Pooled, Some(model)) => format!(
            "rounds as blocks: per-round {scale}, with the residual variance of the additive setting + round \
             model pooled over the sweep ({} df; Bartlett's test of equal variances p = {})",
            number(model.df),
            model.homogeneity_p.map_or_else(|| "n/a".to_string(), p_value)
        ),
        (ComparisonMethod::Paired, _) => format!(
            "rounds as blocks: paired per-round {scale} with each pair's own variance (the settings' variances \
             differ too much to pool)"
        ),
        _ if verdicts.paired => format!("Welch's t-test of {scale} (too few shared rounds to pair)"),
        _ => format!("Welch's t-test of {scale} (the order was not interleaved, so rounds are not blocks)"),
    };
    let control = verdicts.adjustment.as_ref().map_or_else(String::new, |a| {
        format!(
            "; control {} as a per-run covariate (CUPED, Deng et al. 2013): slope {}, removing {} of the \
             within-setting variance",
            a.metric,
            number(a.slope),
            percent(a.variance_removed)
        )
    });
    let negligible = verdicts.negligible.map_or_else(String::new, |share| {
        format!("; differences shown (two one-sided tests) to be within {} are practical ties", percent(share))
    });
    let looks = if verdicts.looks > 1 {
        format!(
            " split over the race's {} looks (Bonferroni: {} at each)",
            verdicts.looks,
            number(verdicts.alpha / f64::from(verdicts.looks))
        )
    } else {
        String::new()
    };
    format!(
        "Method: {design}{control}; Holm-corrected over {} comparisons, alpha {}{looks}{negligible}.",
        verdicts.tests, verdicts.alpha
    )
}

/// Writes verdicts as sentences about named settings.
struct Speaker<'a> {
    analysis: &'a SweepAnalysis,
    config: &'a AnalysisConfig,
    /// The columns that tell a group's settings apart.
    rest: SettingColumns,
}

impl Speaker<'_> {
    fn sentence(&self, group: &GroupVerdict) -> String {
        let head = if group.group.is_empty() {
            "all settings".to_string()
        } else {
            group.group.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
        };
        let best = self.name(group.best);
        let mean = self.analysis.settings[group.best].metric(&self.config.primary).map_or(f64::NAN, |s| s.mean);
        let beaten = self.list(group.rivals.iter().filter(|r| r.beaten));
        match group.outcome {
            GroupOutcome::Resolved if group.rivals.is_empty() => {
                format!("{head}: {best} ({} {}) has no rival.", number(mean), self.config.primary)
            }
            GroupOutcome::Resolved => format!(
                "{head}: resolved: {best} is best ({} {}); it beats {beaten}.",
                number(mean),
                self.config.primary
            ),
            GroupOutcome::Tied => {
                let tied: Vec<&Rival> = group.tied().collect();
                let resolution = tied.iter().filter_map(|r| r.ratio).map(|r| r.resolution()).fold(0.0, f64::max);
                let mut text = format!(
                    "{head}: tied: {best} ({} {}) cannot be told from {}; these data could not detect a \
                     difference smaller than {}",
                    number(mean),
                    self.config.primary,
                    self.list(tied.iter().copied()),
                    percent(resolution)
                );
                if tied.iter().all(|r| r.equivalent) {
                    text.push_str(", and every tie is within the negligible margin");
                }
                if !beaten.is_empty() {
                    write!(text, "; {best} beats {beaten}").unwrap();
                }
                text.push('.');
                text
            }
            GroupOutcome::CannotTell => {
                let reps = self.analysis.settings[group.best].metric(&self.config.primary).map_or(0, |s| s.n);
                let why = if reps <= 1 { "1 rep".to_string() } else { "no degrees of freedom".to_string() };
                format!(
                    "{head}: cannot tell ({why}): {best} has the best mean ({}), but no test of it was possible.",
                    number(mean)
                )
            }
        }
    }

    fn name(&self, setting: usize) -> String {
        let label = self.rest.label(&self.analysis.settings[setting].setting);
        if label.is_empty() {
            "the only setting".to_string()
        } else {
            label
        }
    }

    /// `slices=4 (0.492, 95% CI 0.487..0.497), slices=8 (...)`.
    fn list<'r>(&self, rivals: impl Iterator<Item = &'r Rival>) -> String {
        let parts: Vec<String> = rivals
            .map(|r| format!("{} ({})", self.name(r.setting), r.ratio.map_or_else(String::new, ratio_text)))
            .collect();
        parts.join(", ")
    }
}

/// `ratio 0.492, 95% CI 0.487..0.497`.
pub fn ratio_text(ratio: RatioInterval) -> String {
    format!("ratio {}, 95% CI {}..{}", number(ratio.ratio), number(ratio.low), number(ratio.high))
}

/// `## Best per group`: one row per group with the best setting, its mean and every rival's ratio.
pub fn best_table(analysis: &SweepAnalysis, config: &AnalysisConfig, columns: &SettingColumns) -> String {
    let groups = &analysis.verdicts.groups;
    if groups.is_empty() {
        return String::new();
    }
    let rest = columns.without(&config.group_by);
    let mut header: Vec<String> = config.group_by.clone();
    header
        .extend(["best", &config.primary, "verdict", "beaten (rival / best)", "tied (rival / best)"].map(String::from));
    let same_path = SamePath { analysis, rest: &rest };
    if analysis.equivalence.is_some() {
        header.push("same path".to_string());
    }
    let mut table = MarkdownTable::new(header);
    for group in groups {
        let best = &analysis.settings[group.best];
        let stats = best.metric(&config.primary).expect("a best setting has the primary metric");
        let describe = |beaten: bool| {
            let parts: Vec<String> = group
                .rivals
                .iter()
                .filter(|r| r.beaten == beaten)
                .map(|r| {
                    let ratio = r.ratio.map_or_else(
                        || "untested".to_string(),
                        |x| format!("{} [{}, {}]", number(x.ratio), number(x.low), number(x.high)),
                    );
                    let practical = if r.equivalent { ", negligible" } else { "" };
                    format!("{} {ratio}{practical}", rest.label(&analysis.settings[r.setting].setting))
                })
                .collect();
            if parts.is_empty() {
                "-".to_string()
            } else {
                parts.join("; ")
            }
        };
        let group_cells = config
            .group_by
            .iter()
            .map(|c| group.group.iter().find(|(k, _)| k == c).map_or(String::new(), |(_, v)| v.to_string()));
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
                describe(true),
                describe(false),
            ])
            .chain(analysis.equivalence.is_some().then(|| same_path.cell(group)))
            .collect();
        table.push(row);
    }
    format!(
        "## Best per group\n\nRatios with their 95% intervals; verdicts are Holm-corrected.\n\n{}\n",
        table.render()
    )
}

/// The "same path" cell of the best-per-group table: the settings of a group that resolve to one code
/// path (an equivalence class), e.g. `slices=1 = slices=8 here`.
struct SamePath<'a> {
    analysis: &'a SweepAnalysis,
    rest: &'a SettingColumns,
}

impl SamePath<'_> {
    fn cell(&self, group: &GroupVerdict) -> String {
        let classes = self.analysis.equivalence.iter().flat_map(|check| &check.classes);
        let parts: Vec<String> = classes
            .filter(|class| class.group == group.group)
            .map(|class| {
                let members: Vec<String> =
                    class.settings.iter().map(|&i| self.rest.label(&self.analysis.settings[i].setting)).collect();
                format!("{} here", members.join(" = "))
            })
            .collect();
        if parts.is_empty() {
            "-".to_string()
        } else {
            parts.join("; ")
        }
    }
}
