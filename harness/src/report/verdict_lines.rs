//! The verdict sentences a summary leads with, the method behind them, and the best-per-group table.

use std::fmt::Write;

use super::markdown_table::MarkdownTable;
use super::number_format::{confidence, degrees, number, p_value, percent, with_ci};
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
    for note in model_notes(analysis, columns) {
        writeln!(out, "{note}\n").unwrap();
    }
    let speaker = Speaker { analysis, config, rest: columns.without(&config.group_by) };
    for group in &verdicts.groups {
        writeln!(out, "- {}", speaker.sentence(group)).unwrap();
    }
    out.push('\n');
    out
}

/// What the verdicts rest on, in one paragraph naming each method and the df it left.
fn method_line(verdicts: &Verdicts) -> String {
    let model = &verdicts.model;
    let scale = match verdicts.scale {
        Scale::Log => "log values (effects are ratios)",
        Scale::Linear => "values (effects are differences)",
    };
    let design = match verdicts.method() {
        ComparisonMethod::Blocked => "setting + round blocks (the interleaved rounds: drift a round shares cancels)",
        ComparisonMethod::Independent if verdicts.paired => "settings (too few shared rounds to block on)",
        ComparisonMethod::Independent => "settings (the order was not interleaved, so rounds are not blocks)",
    };
    let control = model.adjustment.as_ref().map_or_else(String::new, |a| {
        format!(
            " + control {} as a per-run covariate (CUPED, Deng et al. 2013; slope {}, removing {} of the residual \
             variance)",
            a.metric,
            number(a.slope),
            percent(a.variance_removed)
        )
    });
    let series_sd = |pick: fn(f64, f64) -> f64| {
        let variance = model.series_priors.iter().map(|p| p.prior_variance).reduce(pick).unwrap_or(0.0);
        spread(verdicts.scale, variance.sqrt())
    };
    let prior = model.prior.map_or_else(
        || "each setting's own variance".to_string(),
        |prior| {
            let sd = spread(verdicts.scale, prior.prior_variance.sqrt());
            if !model.series_priors.is_empty() {
                let shared = if prior.prior_df.is_infinite() {
                    "pooled within each series: d0 = inf".to_string()
                } else {
                    format!("d0 = {}", degrees(prior.prior_df))
                };
                format!(
                    "each setting's variance moderated toward a prior fitted by series, the settings that share \
                     every parameter but the group's, since their noise differs (empirical Bayes, Smyth 2004, with \
                     the prior's location by series as in limma's eBayes(trend = TRUE); series chosen by a \
                     preliminary test at 0.25, Bancroft 1944: {} series, {shared}, s0 = {} to {}, df at most the \
                     series' pooled df)",
                    model.series_priors.len(),
                    series_sd(f64::min),
                    series_sd(f64::max)
                )
            } else if prior.prior_df.is_infinite() {
                format!("one pooled variance (empirical Bayes, Smyth 2004, finds the settings' variances equal: d0 = inf, s0 = {sd})")
            } else {
                format!(
                    "each setting's variance moderated toward a prior fitted across settings (empirical Bayes, Smyth \
                     2004: d0 = {}, s0 = {sd})",
                    degrees(prior.prior_df)
                )
            }
        },
    );
    let alpha = if verdicts.looks > 1 {
        format!(
            "alpha {} spent over the race's {} looks by a Lan-DeMets O'Brien-Fleming-type function (Lan & DeMets \
             1983): {} at look {}",
            verdicts.alpha,
            verdicts.looks,
            number(verdicts.alpha_spent),
            verdicts.look
        )
    } else {
        format!("alpha {}", verdicts.alpha)
    };
    let negligible = verdicts.negligible.map_or_else(String::new, |share| {
        format!(
            "; differences shown by two one-sided tests (Schuirmann 1987) to be within {} are practical ties",
            percent(share)
        )
    });
    format!(
        "Method: a robust linear model of {scale}: {design}{control}; Huber M-estimation (k = 1.345, Huber 1964); \
         {prior}; {} residual df. Each rival against its group's best by the moderated t, Holm-corrected over {} \
         comparisons (Holm 1979) at {alpha}{negligible}; intervals are {} simultaneous (compatible with Holm's \
         decisions, Strassburger & Bretz 2008).",
        degrees(model.residual_df),
        verdicts.tests,
        confidence(verdicts.level),
    )
}

/// What the model set aside, one sentence each: a control the settings move, and stragglers.
pub fn model_notes(analysis: &SweepAnalysis, columns: &SettingColumns) -> Vec<String> {
    let model = &analysis.verdicts.model;
    let mut notes = Vec::new();
    if let Some(moved) = model.control_move.as_ref().filter(|m| m.is_moved()) {
        notes.push(format!(
            "The settings move the control {} (F({}, {}) = {}, p = {}; up to {} between settings of a group, {}x its \
             noise): it cannot tell drift from a setting's effect, so it is not used; round blocks remove drift.",
            moved.metric,
            degrees(moved.df_settings),
            degrees(moved.df_residual),
            number(moved.f),
            p_value(moved.p_value),
            percent(moved.largest_shift),
            number(moved.shift_in_noise)
        ));
    }
    if !model.stragglers.is_empty() {
        let (low, high) = model
            .stragglers
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(low, high), s| (low.min(s.slowdown), high.max(s.slowdown)));
        let named: Vec<String> = model
            .stragglers
            .iter()
            .map(|s| format!("{} rep {}", columns.label(&analysis.settings[s.setting].setting), s.rep))
            .collect();
        let range =
            if high - low < 0.05 { format!("{}x", number(low)) } else { format!("{}-{}x", number(low), number(high)) };
        notes.push(format!(
            "{} {} {range} slower than their setting's other runs predict, left out of the fit (kept in the CSV): {}.",
            model.stragglers.len(),
            if model.stragglers.len() == 1 { "run" } else { "runs" },
            named.join(", ")
        ));
    }
    notes
}

/// A standard deviation on the analysis scale as the reader knows it: a percentage of log values.
fn spread(scale: Scale, sd: f64) -> String {
    match scale {
        Scale::Log => percent(sd.exp_m1()),
        Scale::Linear => number(sd),
    }
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
                let detectable = tied.iter().filter_map(|r| r.detectable).fold(0.0, f64::max);
                let mut text = format!(
                    "{head}: tied: {best} ({} {}) cannot be told from {}; these data would detect a difference \
                     of {} with {} power at the level Holm held them to",
                    number(mean),
                    self.config.primary,
                    self.list(tied.iter().copied()),
                    percent(detectable),
                    confidence(crate::analyse::DETECTION_POWER)
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
                let why = group.reason.map_or_else(|| "no test".to_string(), |reason| reason.to_string());
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
            .map(|r| {
                let ratio = r.ratio.map_or_else(String::new, |ratio| ratio_text(ratio, self.analysis.verdicts.level));
                format!("{} ({ratio})", self.name(r.setting))
            })
            .collect();
        parts.join(", ")
    }
}

/// `ratio 0.492, 99.2% CI 0.487..0.497` (the simultaneous interval's level).
pub fn ratio_text(ratio: RatioInterval, level: f64) -> String {
    format!("ratio {}, {} CI {}..{}", number(ratio.ratio), confidence(level), number(ratio.low), number(ratio.high))
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
        "## Best per group\n\nRatios rival / best with their {} simultaneous intervals (compatible with the \
         Holm-corrected verdicts).\n\n{}\n",
        confidence(analysis.verdicts.level),
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
