//! The verdicts section: one plain sentence per group, the rows-per-slice rule the winners imply, and the
//! method behind them; and `## Best per group`, the same verdicts as a table.

use std::fmt::Write;

use super::document::Section;
use super::number_format::{confidence, degrees, number, percent, with_ci};
use super::setting_columns::{group_name, ColumnValues, SettingColumns};
use super::sweep_report::SweepReport;
use super::table::Table;
use super::text::Text;
use crate::analyse::{
    ComparisonMethod, GroupOutcome, GroupVerdict, NoTest, RatioInterval, Rival, Scale, SweepAnalysis, Verdicts,
};
use crate::plural::counted;

/// `## Verdicts`: one sentence per group, the rule the best settings imply, then how the data were compared.
pub fn verdict_section(report: &SweepReport) -> Section {
    let verdicts = &report.analysis.verdicts;
    if verdicts.groups.is_empty() {
        return Section::new("Verdicts");
    }
    let speaker = Speaker { report, rest: report.columns().without(&report.config.group_by) };
    let sentences = verdicts.groups.iter().map(|group| Text::plain(speaker.sentence(group))).collect();
    Section::new("Verdicts")
        .items(sentences)
        .paragraph_if(next_step(report))
        .paragraph_if(rows_per_slice(report))
        .paragraph(method_line(verdicts))
}

/// What would decide the groups left tied or untold: the resume that gives every setting the runs the
/// neediest tied group needs (or a race), and a busy machine named as the cheaper remedy.
fn next_step(report: &SweepReport) -> Option<Text> {
    let groups = &report.analysis.verdicts.groups;
    let open: Vec<&GroupVerdict> = groups.iter().filter(|g| g.outcome != GroupOutcome::Resolved).collect();
    if open.is_empty() || report.analysis.verdicts.model.no_spread {
        return None;
    }
    let reachable: Vec<usize> = open.iter().filter_map(|g| g.runs_to_decide()).collect();
    let needed = reachable.iter().copied().max();
    let busy = report.analysis.cpu_share.as_ref().filter(|share| share.machine_was_busy());
    let command = needed.and_then(|runs| Some((runs, report.context.planned.as_ref()?.with_reps(runs)?)));
    let command_given = command.is_some();
    let mut text = match command {
        Some((runs, command)) => Text::plain(format!(
            "Next: about {runs} runs per setting would decide {} (the differences and noise staying as they are): ",
            match reachable.len() == open.len() {
                true => format!("the {}", counted(open.len(), "open group")),
                false => format!("{} of the {} open groups", reachable.len(), open.len()),
            }
        ))
        .code(&command.line)
        .and(", or race the undecided settings with ")
        .code("--until-decided")
        .and("."),
        None if busy.is_some() => Text::plain("Next: rerun"),
        None => return None,
    };
    if let Some(share) = busy {
        let lead = if command_given { " Or rerun" } else { "" };
        text = text.and(format!(
            "{lead} when the machine is idle: the ranks got {} of the CPU they asked for, and the noise of a busy \
             machine is what keeps these groups open.",
            percent(share.median)
        ));
    }
    Some(text)
}

/// The rows-per-slice rule the resolved groups' best settings imply (`[analysis] rows_per_slice`), or why
/// none is.
fn rows_per_slice(report: &SweepReport) -> Option<Text> {
    let (implied, names) = (report.analysis.rows_per_slice?, report.config.rows_per_slice.as_ref()?);
    let of = format!("{} of {} resolved", implied.resolved, counted(implied.groups, "group"));
    Some(match implied.rows_per_slice {
        _ if implied.resolved == 0 => Text::plain("No rows-per-slice rule implied: no group resolved."),
        None => Text::plain(format!("No rows-per-slice rule implied: no resolved group's best setting splits ({of}).")),
        Some(rule) => {
            Text::plain(format!("Rows-per-slice rule implied by the resolved groups' best settings ({of}): double "))
                .code(&names.slices)
                .and(format!(" while {} / slices stays >= {}.", names.rows, number(rule)))
        }
    })
}

/// What the verdicts rest on, in one paragraph naming each method and the df it left.
fn method_line(verdicts: &Verdicts) -> String {
    let model = &verdicts.model;
    if model.no_spread {
        return "Method: by value: every run of each setting gave the same value, bit for bit, so the settings are \
                ordered by value and equal values are identical to measurement resolution; no variance is \
                estimated and no test made (a test needs noise, and one estimated from rounding error would be \
                invented)."
            .to_string();
    }
    let scale = match verdicts.scale {
        Scale::Log => "log values (effects are ratios)",
        Scale::Linear => "values (effects are differences)",
    };
    let design = match verdicts.method() {
        ComparisonMethod::Blocked => {
            "setting + round blocks (the interleaved rounds, a block the machine stepped inside split at the step, \
             Scott & Knott 1974: drift a block shares cancels)"
        }
        ComparisonMethod::Independent if verdicts.paired => "settings (too few shared rounds to block on)",
        ComparisonMethod::Independent => "settings (the order was not interleaved, so rounds are not blocks)",
    };
    let control = model.adjustment.as_ref().map_or_else(String::new, |a| {
        let covariate = if a.track {
            format!(
                "the drift track of control {} (control = setting effect + a running mean over 5 runs, backfitted, \
                 Hastie & Tibshirani 1990: no setting's effect on the control reaches the adjustment)",
                a.metric
            )
        } else {
            format!("control {}", a.metric)
        };
        format!(
            " + {covariate} as a per-run covariate (CUPED, Deng et al. 2013; slope {}, removing {} of the residual \
             variance)",
            number(a.slope),
            percent(a.variance_removed)
        )
    });
    let series_sd = |pick: fn(f64, f64) -> f64| {
        let variance = model.series_priors.iter().map(|p| p.prior_variance).reduce(pick).unwrap_or(0.0);
        spread(verdicts.scale, variance.sqrt() * model.unit)
    };
    let prior = model.prior.map_or_else(
        || "each setting's own variance".to_string(),
        |prior| {
            let sd = spread(verdicts.scale, prior.prior_variance.sqrt() * model.unit);
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
    // Where the settings keep variances of their own, each test is also made with one pooled variance
    // (`SettingModel::contrast`); with d0 = inf the two are one.
    let (pool, pools) = if model.series_priors.is_empty() { ("group", "groups") } else { ("series", "series") };
    let pooled = match model.prior.is_some_and(|p| p.prior_df.is_infinite()) {
        true => String::new(),
        false => format!(
            " (each test the more cautious of that and one variance pooled within each {pool}, {pools} that agree \
             pooled together: valid if either holds)"
        ),
    };
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
         {prior}{pooled}; {} residual df. The best is picked from the same data, so each rival is tested against every \
         other setting of its group by the one-sided moderated t, stepped down over the {} {} within groups \
         (closed testing with Bonferroni-Holm weights, Holm 1979; selection-adjusted like Hsu's comparisons with \
         the best, Hsu 1984, ties included) at {alpha}{negligible}; intervals are {} simultaneous over every pair \
         (compatible with the decisions, Strassburger & Bretz 2008).",
        degrees(model.residual_df),
        verdicts.pairs,
        if verdicts.pairs == 1 { "pair" } else { "pairs" },
        confidence(verdicts.level),
    )
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
    report: &'a SweepReport<'a>,
    /// The columns that tell a group's settings apart.
    rest: SettingColumns,
}

impl Speaker<'_> {
    fn sentence(&self, group: &GroupVerdict) -> String {
        let head = group_name(&group.group);
        let best = self.name(group.best);
        let primary = &self.report.config.primary;
        let mean = self.report.analysis.settings[group.best].metric(primary).map_or(f64::NAN, |s| s.mean);
        let mean = self.report.context.units.quantity(&number(mean), primary);
        let beaten = self.list(group.rivals.iter().filter(|r| r.beaten));
        // Settings of one run each are no order by value: without replication the group cannot be told.
        if self.report.analysis.verdicts.model.no_spread && group.outcome != GroupOutcome::CannotTell {
            return self.by_value(group, &head, &best, &mean, &beaten);
        }
        match group.outcome {
            GroupOutcome::Resolved if group.rivals.is_empty() => format!("{head}: {best} ({mean}) has no rival."),
            GroupOutcome::Resolved => format!("{head}: resolved: {best} is best ({mean}); it beats {beaten}."),
            GroupOutcome::Tied => {
                let tied: Vec<&Rival> = group.tied().collect();
                let detectable = tied.iter().filter_map(|r| r.detectable).fold(0.0, f64::max);
                let mut text = format!(
                    "{head}: tied: {best} ({mean}) cannot be told from {}; these data would detect a difference \
                     of {} with {} power at the level the step-down held them to",
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
                text.push_str(". ");
                text.push_str(&self.what_decides(group));
                text
            }
            GroupOutcome::CannotTell => {
                let why = group.reason.map_or_else(|| "no test".to_string(), |reason| reason.to_string());
                format!(
                    "{head}: cannot tell ({why}): {best} has the best mean ({mean}), but no test of it was possible."
                )
            }
        }
    }

    /// What would decide a tied group: about how many runs per setting, or that no affordable count would
    /// (and, without a declared margin, that one would call the difference a tie).
    fn what_decides(&self, group: &GroupVerdict) -> String {
        let runs = group.tied().filter_map(|r| r.comparison.as_ref().ok()).map(|c| c.runs).max().unwrap_or(0);
        match group.runs_to_decide() {
            Some(needed) => {
                format!("About {needed} runs per setting would decide it ({} more).", needed.saturating_sub(runs))
            }
            None => {
                let remedy = match self.report.config.negligible {
                    None => "; declare `negligible` to call a difference that small a tie",
                    Some(_) => "",
                };
                format!(
                    "No affordable number of runs would decide it: against this noise it would take over {}x these \
                     {runs} per setting{remedy}.",
                    crate::analyse::AFFORDABLE_FACTOR
                )
            }
        }
    }

    /// A group of settings without spread: ordered by value, equal values identical.
    fn by_value(&self, group: &GroupVerdict, head: &str, best: &str, mean: &str, beaten: &str) -> String {
        let identical: Vec<String> =
            group.rivals.iter().filter(|r| r.equivalent).map(|r| self.name(r.setting)).collect();
        let mut text = if identical.is_empty() {
            format!("{head}: resolved by value: {best} is best ({mean} in every run)")
        } else {
            format!(
                "{head}: identical to measurement resolution: {best} and {} ({mean} in every run)",
                identical.join(", ")
            )
        };
        if !beaten.is_empty() {
            write!(text, "; {best} beats {beaten}").unwrap();
        }
        text.push('.');
        text
    }

    fn name(&self, setting: usize) -> String {
        let label = self.rest.label(&self.report.analysis.settings[setting].setting);
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
                let level = self.report.analysis.verdicts.level;
                let ratio = match (r.ratio, by_value(self.report.analysis, r, &self.report.config.primary)) {
                    (Some(ratio), _) => ratio_text(ratio, level),
                    (None, Some(value)) => format!("{} in every run", number(value)),
                    (None, None) => String::new(),
                };
                format!("{} ({ratio})", self.name(r.setting))
            })
            .collect();
        parts.join(", ")
    }
}

/// The value every run of a rival gave, when the values decided (no spread).
fn by_value(analysis: &SweepAnalysis, rival: &Rival, primary: &str) -> Option<f64> {
    let decided_by_value = rival.comparison == Err(NoTest::NoSpread);
    decided_by_value.then(|| analysis.settings[rival.setting].metric(primary).map(|stats| stats.mean)).flatten()
}

/// `ratio 0.492, 99.2% CI 0.487..0.497` (the simultaneous interval's level).
fn ratio_text(ratio: RatioInterval, level: f64) -> String {
    format!("ratio {}, {} CI {}..{}", number(ratio.ratio), confidence(level), number(ratio.low), number(ratio.high))
}

/// `## Best per group`: one row per group with the best setting, its mean and every rival's ratio; with the
/// "same path" column when the sweep checks equivalence.
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
    header.extend(analysis.equivalence.as_ref().map(|_| "same path".to_string()));
    let mut table = Table::new(header);
    for group in groups {
        let best = &analysis.settings[group.best];
        let stats = best.metric(&config.primary).expect("a best setting has the primary metric");
        let group_cells =
            config.group_by.iter().map(|c| group.group.column(c).map_or(String::new(), |v| v.to_string()));
        let outcome = match group.outcome {
            GroupOutcome::Tied if analysis.verdicts.model.no_spread => "identical",
            outcome => outcome.as_str(),
        };
        let row = group_cells
            .chain([
                rest.label(&best.setting),
                with_ci(stats.mean, stats.ci95),
                outcome.to_string(),
                rivals_cell(analysis, &rest, group, true, &config.primary),
                rivals_cell(analysis, &rest, group, false, &config.primary),
            ])
            .chain(analysis.equivalence.is_some().then(|| same_path_cell(analysis, &rest, group)))
            .collect();
        table.push(row);
    }
    Section::new("Best per group")
        .paragraph(format!(
            "Ratios rival / best with their {} simultaneous intervals (compatible with the selection-adjusted verdicts).",
            confidence(analysis.verdicts.level)
        ))
        .table(table)
}

/// The beaten (or the tied) rivals of a group: `slices=4 0.4896 [0.4788, 0.5006]; ...`, `-` for none.
fn rivals_cell(
    analysis: &SweepAnalysis,
    rest: &SettingColumns,
    group: &GroupVerdict,
    beaten: bool,
    primary: &str,
) -> String {
    let parts = group.rivals.iter().filter(|r| r.beaten == beaten).map(|r| {
        let value = by_value(analysis, r, primary);
        let ratio = match (r.ratio, value) {
            (Some(x), _) => format!("{} [{}, {}]", number(x.ratio), number(x.low), number(x.high)),
            (None, Some(value)) => format!("{} every run", number(value)),
            (None, None) => "untested".to_string(),
        };
        let practical = match (r.equivalent, value) {
            (true, Some(_)) => ", identical",
            (true, None) => ", negligible",
            (false, _) => "",
        };
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
