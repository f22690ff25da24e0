//! The "What to trust" block a summary opens with, above the verdicts: failed runs, runs
//! missing from the plan, retried runs, drift, a control the settings move, stragglers, groups that
//! cannot be told and settings that should agree but do not. Warnings first; when all is well it says
//! so in a line or two.

use super::document::{Note, Section};
use super::number_format::{degrees, number, p_stated, percent};
use super::report_context::ReportContext;
use super::setting_columns::group_name;
use super::sweep_report::SweepReport;
use super::table::Table;
use super::text::Text;
use crate::analyse::{DriftBound, FailureSummary, GroupOutcome, Straggler, StragglerSide};
use crate::plural::counted;
use crate::record::EngineChange;

/// Every note of the block (it always has one: at least how many runs finished): warnings first, each kind
/// in the order above.
pub fn trust_notes(report: &SweepReport) -> Vec<Note> {
    let analysis = report.analysis;
    let mut notes = report.finding_notes();
    notes.extend(run_notes(&analysis.failures, report.context));
    notes.extend(analysis.drift.as_ref().map(drift_note));
    notes.extend(unmeasured_note(report));
    notes.extend(model_notes(report));
    notes.extend(cannot_tell_note(report));
    notes.extend(disagreement_note(report));
    notes.sort_by_key(|note| !note.warning);
    notes
}

/// What every report first says of its runs: how many failed (or that all finished ok), how many the plan
/// still lacks (with the command that completes it), how many were run again.
pub fn run_notes(failures: &FailureSummary, context: &ReportContext) -> Vec<Note> {
    let mut notes = vec![failure_note(failures)];
    // A search's analysis reads its final race alone; the search says itself whether it spent its budget.
    let planned = context.planned.as_ref().filter(|_| context.search.is_none());
    notes.extend(planned.and_then(|planned| planned.shortfall(failures.runs)));
    notes.extend(retried_note(context.retried));
    notes.extend(context.engine_changes.iter().map(engine_change_note));
    notes
}

/// A resume that added rows of another engine (`--accept-engine-change`): the runs compared are not all
/// of one engine.
fn engine_change_note(change: &EngineChange) -> Note {
    Note::warning(
        Text::plain("Not every row comes from one engine: a resume with ")
            .code("--accept-engine-change")
            .and(format!(" ({}) added rows of another: {}.", change.at, change.change)),
    )
}

/// `## Failed runs`: each reason with how many runs failed for it (their count leads `What to trust`).
pub fn failure_table(failures: &FailureSummary) -> Section {
    let mut table = Table::new(vec!["reason".into(), "runs".into()]);
    for (reason, count) in &failures.reasons {
        table.push(vec![reason.clone(), count.to_string()]);
    }
    Section::new("Failed runs").table((failures.failed > 0).then_some(table))
}

/// How many runs the CSV records more than once (failed runs run again by `--resume`): each (setting, rep)
/// is analysed once, from its last successful attempt.
fn retried_note(retried: usize) -> Option<Note> {
    let verb = if retried == 1 { "was run" } else { "were run" };
    (retried > 0).then(|| {
        Note::info(
            Text::plain(format!("{} {verb} again after failing (", counted(retried, "run")))
                .code("--resume")
                .and("); each is analysed once, from its last successful attempt (the CSV's ")
                .code("attempt")
                .and(" column)."),
        )
    })
}

fn failure_note(failures: &FailureSummary) -> Note {
    if failures.failed == 0 {
        return Note::info(match failures.runs {
            1 => "The 1 run finished ok.".to_string(),
            runs => format!("All {runs} runs finished ok."),
        });
    }
    let reasons: Vec<String> = failures.reasons.iter().map(|(reason, count)| format!("{reason}: {count}")).collect();
    Note::warning(format!(
        "{} of {} failed ({}); the verdicts rest on the {} that finished (see Failed runs).",
        failures.failed,
        counted(failures.runs, "run"),
        reasons.join("; "),
        failures.runs - failures.failed
    ))
}

/// Runs that finished ok without a value of the primary metric (an empty cell): named, since they take no
/// part and "every run finished ok" alone would hide them.
fn unmeasured_note(report: &SweepReport) -> Option<Note> {
    let failures = &report.analysis.failures;
    (failures.unmeasured > 0).then(|| {
        let columns = report.columns();
        let named: Vec<String> = failures
            .unmeasured_named
            .iter()
            .map(|(setting, rep)| format!("{} rep {rep}", columns.label(setting)))
            .collect();
        let more = failures.unmeasured - named.len();
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        let (runs, they) = if failures.unmeasured == 1 { ("run", "it takes") } else { ("runs", "they take") };
        Note::warning(
            Text::plain(format!("{} {runs} finished ok but recorded no ", failures.unmeasured))
                .code(&report.config.primary)
                .and(format!(" (an empty cell: {}{more}): {they} no part in the verdicts.", named.join(", "))),
        )
    })
}

/// How much the control moved within settings: a warning when it moved enough to weaken the verdicts.
fn drift_note(drift: &DriftBound) -> Note {
    let text = Text::plain("The control ").code(&drift.metric).and(format!(
        " varied by {} within settings (pooled relative sd over {} runs; the widest setting spanned {} of its mean)",
        percent(drift.rel_sd),
        drift.n,
        percent(drift.max_rel_range)
    ));
    match drift.is_large() {
        true => Note::warning(text.and(": the machine drifted a lot, so the verdicts are weak.")),
        false => Note::info(text.and(".")),
    }
}

/// What the model rests on and set aside: runs without spread (values decide), a control the settings move
/// (only its drift track is used; a warning without rounds, where drift is then removed by nothing but the
/// blocks), and stragglers left out of the fit, slow and fast.
fn model_notes(report: &SweepReport) -> Vec<Note> {
    let model = &report.analysis.verdicts.model;
    let mut notes = Vec::new();
    if model.no_spread {
        notes.push(Note::info(
            "Every run of each setting gave the same value: the settings are ordered by value, equal values are \
             identical to measurement resolution, and there is no noise to test.",
        ));
    }
    if let Some(moved) = model.control_move.as_ref().filter(|m| m.is_moved()) {
        let tracked = model.adjustment.as_ref().is_some_and(|a| a.track);
        let remedy = if tracked {
            "so only its drift track is used (its runs over 5 neighbours, each setting's effect on it taken out)."
        } else {
            "so it is not used; round blocks remove drift."
        };
        let text = Text::plain("The settings move the control ").code(&moved.metric).and(format!(
            " (F({}, {}) = {}, {}; up to {} between settings of a group, {}x its noise): its level cannot tell \
             drift from a setting's effect, {remedy}",
            degrees(moved.df_settings),
            degrees(moved.df_residual),
            number(moved.f),
            p_stated(moved.p_value),
            percent(moved.largest_shift),
            number(moved.shift_in_noise)
        ));
        notes.push(if tracked { Note::info(text) } else { Note::warning(text) });
    }
    notes.extend(straggler_note(report, StragglerSide::Slow));
    notes.extend(straggler_note(report, StragglerSide::Fast));
    notes
}

/// The runs the screen left out on one `side`: slow ones as a matter of course, fast ones as a warning
/// (a run far faster than its setting's others most likely did less work, and a verdict on it would be
/// wrong).
fn straggler_note(report: &SweepReport, side: StragglerSide) -> Option<Note> {
    let stragglers: Vec<&Straggler> =
        report.analysis.verdicts.model.stragglers.iter().filter(|s| s.side == side).collect();
    if stragglers.is_empty() {
        return None;
    }
    let columns = report.columns();
    // How many times slower, or faster: a fast run's slowdown is below 1.
    let times = stragglers.iter().map(|s| if side == StragglerSide::Fast { 1.0 / s.slowdown } else { s.slowdown });
    let (low, high) = times.fold((f64::INFINITY, 0.0f64), |(low, high), s| (low.min(s), high.max(s)));
    let settings = &report.analysis.settings;
    let named: Vec<String> =
        stragglers.iter().map(|s| format!("{} rep {}", columns.label(&settings[s.setting].setting), s.rep)).collect();
    let range =
        if high - low < 0.05 { format!("{}x", number(low)) } else { format!("{}-{}x", number(low), number(high)) };
    let runs = counted(stragglers.len(), "run");
    Some(match side {
        StragglerSide::Slow => Note::info(format!(
            "{runs} {range} slower than their setting's other runs predict, left out of the fit (kept in the CSV): {}.",
            named.join(", ")
        )),
        StragglerSide::Fast => Note::warning(format!(
            "{runs} {range} faster than their setting's other runs predict: did they skip work? Left out of the \
             fit (kept in the CSV): {}.",
            named.join(", ")
        )),
    })
}

/// Groups no test could judge, each with its reason.
fn cannot_tell_note(report: &SweepReport) -> Option<Note> {
    let cannot_tell = report.analysis.verdicts.groups.iter().filter(|group| group.outcome == GroupOutcome::CannotTell);
    let groups: Vec<String> = cannot_tell
        .map(|group| {
            let why = group.reason.map_or_else(|| "no test".to_string(), |reason| reason.to_string());
            format!("{} ({why})", group_name(&group.group))
        })
        .collect();
    (!groups.is_empty()).then(|| {
        Note::warning(format!("Cannot tell {}: no test was possible; more reps would allow one.", groups.join(", ")))
    })
}

/// Settings that resolve to one code path but are shown to differ, or report several paths.
fn disagreement_note(report: &SweepReport) -> Option<Note> {
    let check = report.analysis.equivalence.as_ref()?;
    let disagreeing = check.classes.iter().filter(|class| class.disagrees()).count();
    let inconsistent = check.inconsistent.len();
    (disagreeing + inconsistent > 0).then(|| {
        Note::warning(
            Text::plain(format!(
            "{disagreeing} set(s) of settings that resolve to one code path disagree and {inconsistent} setting(s) \
             reported more than one "
        ))
            .code(&check.key)
            .and(": see Equivalence."),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a resume after the engine changed was silent; accepted, it is a
    /// warning of every summary of the CSV.
    #[test]
    fn an_accepted_engine_change_is_a_warning_of_the_summary() {
        let previous: crate::record::EngineFingerprint = serde_json::from_value(serde_json::json!({
            "program": "a", "build": [], "launcher": "local", "launcher_command": [], "ranks": 1, "hostfile": null,
            "pre_run": [], "env": {},
            "setup": null, "tree": "/e", "commit": null
        }))
        .unwrap();
        let change =
            EngineChange { at: "20250101T000000Z".into(), change: "`program` was \"a\", now \"b\"".into(), previous };
        let context = ReportContext { engine_changes: vec![change], ..ReportContext::default() };
        let failures =
            FailureSummary { runs: 4, failed: 0, reasons: Vec::new(), unmeasured: 0, unmeasured_named: Vec::new() };
        let notes = run_notes(&failures, &context);
        let note = notes.iter().find(|note| note.warning).expect("a warning");
        assert_eq!(
            note.text.with_backticks(),
            "Not every row comes from one engine: a resume with `--accept-engine-change` (20250101T000000Z) added \
             rows of another: `program` was \"a\", now \"b\"."
        );
    }
}
