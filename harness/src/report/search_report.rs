//! A budgeted search in the report: the summary's "Search" section (what it spent, what it found, by
//! which rules) and its progress plot.

use super::axis::Axis;
use super::document::Section;
use super::number_format::percent;
use super::svg::Svg;
use super::sweep_report::SweepReport;
use super::text::Text;
use crate::analyse::{GroupOutcome, SearchSummary};

/// The search's verdict: every group's, or the least decided of them.
/// The least decided of the groups' final races: the verdict among the settings evaluated.
pub(super) fn among_evaluated(report: &SweepReport) -> GroupOutcome {
    let outcomes = report.analysis.verdicts.groups.iter().map(|group| group.outcome);
    SearchSummary::least_decided(outcomes)
}

pub(super) fn overall(report: &SweepReport) -> Option<GroupOutcome> {
    let search = report.context.search.as_ref()?;
    let outcomes = report.analysis.verdicts.groups.iter().map(|group| group.outcome);
    Some(search.verdict(outcomes, report.config.negligible))
}

/// The "Search" section: what was spent and found, never more than the data show.
pub fn search_section(report: &SweepReport) -> Option<Section> {
    let search = report.context.search.as_ref()?;
    let among = among_evaluated(report).as_str();
    let unexplored = match search.headroom {
        Some(headroom) if headroom > 1.0 => format!(
            "settings never run could be up to {} better (a Lipschitz bound from the largest change between \
             evaluated neighbours, Malherbe & Vayatis 2017)",
            percent(headroom - 1.0)
        ),
        Some(_) => "no setting never run could be better (a Lipschitz bound from the evaluated neighbours)".to_string(),
        None => "nothing bounds the settings never run (too few evaluated neighbours along some parameter)".to_string(),
    };
    let lead = format!(
        "Best of the {} settings evaluated out of {} ({} runs used of a budget of {}{}): {} over the space; {among} among \
         the evaluated, and {unexplored}. The verdicts below are the final race's alone ({} runs of the \
         finalists, fresh after the search chose them), by the grid's rules.",
        search.evaluated,
        search.space,
        search.used,
        search.budget,
        builds_charged(search.build_seconds),
        overall(report)?.as_str(),
        search.final_runs.len()
    );
    let mut section = Section::new("Search").paragraph(Text::plain(lead));
    if !search.complete {
        section = section.paragraph(Text::plain("WARNING: the search stopped before its budget was spent: resume it."));
    } else if search.final_runs.is_empty() {
        section = section.paragraph(Text::plain(no_final_race(search.build_seconds)));
    }
    if !search.importance.is_empty() {
        let shares: Vec<String> =
            search.importance.iter().map(|(param, share)| format!("{param} {}", percent(*share))).collect();
        let line = format!(
            "What mattered among the settings evaluated (each parameter's share of the variance of their mean log \
             values, fANOVA's first-order terms, Hutter et al. 2014): {}.",
            shares.join(", ")
        );
        section = section.paragraph(Text::plain(line));
    }
    Some(section.figure(progress_svg(search, &report.config.primary), "Best so far against runs used"))
}

/// Why a spent search has no verdict among its finalists, and what to do about it.
fn no_final_race(build_seconds: f64) -> String {
    let spent = match build_seconds > 0.0 {
        true => format!("the budget was spent before it (builds took {build_seconds:.1} s of it)"),
        false => "the budget was spent before it".to_string(),
    };
    format!(
        "WARNING: no final race was run: {spent}, so no fresh runs of the finalists back a verdict among them;          a larger budget (`--budget`) leaves room for one."
    )
}

/// `, builds charged 42.0 s` when the search caused builds, else nothing.
fn builds_charged(seconds: f64) -> String {
    if seconds > 0.0 {
        format!(", builds charged {seconds:.1} s")
    } else {
        String::new()
    }
}

/// Each group's best mean so far against the runs its search used.
fn progress_svg(search: &SearchSummary, metric: &str) -> Option<String> {
    let points: Vec<Vec<(f64, f64)>> = (search.progress.iter())
        .map(|(_, points)| points.iter().filter_map(|&(runs, best)| Some((runs as f64, best?))).collect())
        .collect();
    let x = Axis::linear(points.iter().flatten().map(|point| point.0))?;
    let y = Axis::linear(points.iter().flatten().map(|point| point.1))?;
    let (width, height, left, bottom) = (640.0, 320.0, 70.0, 40.0);
    let mut svg = Svg::new(width, height, "search progress");
    let across = |runs: f64| left + x.fraction(runs) * (width - left - 20.0);
    let up = |best: f64| (height - bottom) - y.fraction(best) * (height - bottom - 40.0);
    for (value, label) in x.ticks() {
        svg.text((across(*value), height - bottom + 16.0), label, "middle", 11.0, "tick");
    }
    for (value, label) in y.ticks() {
        svg.text((left - 6.0, up(*value)), label, "end", 11.0, "tick");
    }
    svg.text((width / 2.0, height - 6.0), "runs used", "middle", 12.0, "title");
    svg.vertical_text((14.0, height / 2.0), &format!("best {metric} so far"));
    for (series, colour) in points.iter().zip(["#1f77b4", "#d62728", "#2ca02c", "#9467bd"].iter().cycle()) {
        svg.polyline(&series.iter().map(|&(runs, best)| (across(runs), up(best))).collect::<Vec<_>>(), colour, 2.0);
    }
    Some(svg.finish())
}
