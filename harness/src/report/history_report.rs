//! The reports of `sweep history show` (each setting's metric across the versions, one small chart per
//! setting on the page) and `sweep history changes` (where the series changed), as `Document`s and JSON.

use serde_json::{json, Value};

use super::document::{Document, Note, Section};
use super::number_format::{degrees, number, p_value};
use super::table::Table;
use super::text::Text;
use super::trend_chart::TrendChart;
use crate::declare::Direction;
use crate::history::{ChangeKind, VersionMean};
use crate::store::{FoundChange, MetricSeries, SettingTrend, MIN_VERSIONS};

/// A sweep's stored history of one metric and what the change search found in it.
pub struct HistoryReport<'a> {
    pub sweep: &'a str,
    pub series: &'a MetricSeries,
    pub direction: Direction,
    /// The changes found; None when there were too few versions to search.
    pub changes: Option<&'a [FoundChange]>,
    /// The false discovery rate the changes were read at, and the permutations of each test.
    pub level: f64,
    pub permutations: usize,
}

impl HistoryReport<'_> {
    /// `history show`: per setting, per version, the mean with its interval; on the page a chart each.
    pub fn trends_document(&self) -> Document {
        let mut document = Document::new(format!("History of {}: {}", self.sweep, self.series.metric));
        let method = "Each version: the geometric mean of its runs with the 95% Student t interval of their mean log \
                      (df = runs - 1; one run has none).";
        let header = ["setting", "#", "version", "mean", "95% CI", "df", "runs", "change"];
        let mut table = Table::new(header.map(String::from).to_vec());
        let mut figures = Section::new("Per setting");
        for trend in &self.series.settings {
            let means = trend.means();
            let change_at = self.latest_change(trend);
            for (version, (label, mean)) in self.series.versions.iter().zip(&means).enumerate() {
                let mark = if change_at == Some(version) { "latest change" } else { "" };
                table.push(trend_row(&trend.label, (version, label), mean.as_ref(), mark));
            }
            let chart = TrendChart {
                title: trend.label.clone(),
                axis: self.series.metric.clone(),
                versions: &self.series.versions,
                means: &means,
                change_at,
            };
            figures = figures.figure(chart.svg(), format!("{}: mean and 95% CI per version", trend.label));
        }
        document.extend([
            Section::lead().paragraph(self.lead()).paragraph(method),
            Section::new("What to trust").notes(self.notes()),
            figures.table(table),
        ]);
        document
    }

    /// `history show --json`.
    pub fn trends_json(&self) -> Value {
        let settings: Vec<Value> = (self.series.settings.iter())
            .map(|trend| {
                let versions: Vec<Value> = (self.series.versions.iter().zip(trend.means()))
                    .map(|(label, mean)| version_json(label, mean.as_ref()))
                    .collect();
                let latest = self.latest_change(trend).map(|at| self.series.versions[at].clone());
                json!({ "setting": trend.setting, "label": trend.label, "versions": versions, "latest_change": latest })
            })
            .collect();
        json!({
            "sweep": self.sweep, "metric": self.series.metric, "direction": self.direction.to_string(),
            "versions": self.series.versions, "settings": settings,
        })
    }

    /// `history changes`: each change with its ratio, interval, p and q; what was left out.
    pub fn changes_document(&self) -> Document {
        let mut document = Document::new(format!("Changes in the history of {}: {}", self.sweep, self.series.metric));
        let method = format!(
            "Binary segmentation of each setting's mean log {} per version, the machine's change (the control's \
             series, else the median of the settings') taken out first; permutation p ({} permutations), \
             Benjamini-Hochberg q across the settings' series, read at q <= {}; ratio = after / before with its \
             95% t interval.",
            self.series.metric, self.permutations, self.level
        );
        let mut table = Table::new(
            ["kind", "setting", "before", "from", "ratio", "95% CI", "df", "p", "q", "regression"]
                .map(String::from)
                .to_vec(),
        );
        for found in self.changes.unwrap_or_default() {
            let change = &found.change;
            table.push(vec![
                kind_name(change.kind).to_string(),
                found.setting_label.clone(),
                found.before.clone(),
                found.label.clone(),
                number(change.ratio),
                format!("{} .. {}", number(change.low), number(change.high)),
                degrees(change.df),
                p_value(change.p),
                p_value(change.q),
                if found.is_regression(self.direction, self.level) { "yes" } else { "" }.to_string(),
            ]);
        }
        let none_found = self.changes.is_some_and(<[FoundChange]>::is_empty).then(|| {
            format!(
                "No change at q <= {}: neither in the machine's series nor in the series of the {} searched.",
                self.level,
                crate::plural::counted(self.series.complete().len(), "setting")
            )
        });
        document.extend([
            Section::lead().paragraph(self.lead()).paragraph(method),
            Section::new("What to trust").notes(self.notes()),
            Section::new("Changes").paragraph_if(none_found).table((!table.rows().is_empty()).then_some(table)),
        ]);
        document
    }

    /// `history changes --json`: `{"changes": [{"setting": {...}, "label": ..., "ratio": ..., ...}], ...}`.
    pub fn changes_json(&self) -> Value {
        let changes: Vec<Value> = (self.changes.unwrap_or_default().iter())
            .map(|found| {
                let change = &found.change;
                json!({
                    "setting": found.setting, "setting_label": found.setting_label, "kind": kind_name(change.kind),
                    "label": found.label, "before": found.before, "ratio": change.ratio, "low": change.low,
                    "high": change.high, "df": change.df, "p": change.p, "q": change.q,
                    "regression": found.is_regression(self.direction, self.level),
                })
            })
            .collect();
        json!({
            "sweep": self.sweep, "metric": self.series.metric, "direction": self.direction.to_string(),
            "level": self.level, "permutations": self.permutations, "versions": self.series.versions,
            "enough_history": self.changes.is_some(), "changes": changes, "left_out": self.left_out(),
        })
    }

    /// Whether a software change to the worse side was found (`history changes` exits 1).
    pub fn has_regression(&self) -> bool {
        self.changes.unwrap_or_default().iter().any(|change| change.is_regression(self.direction, self.level))
    }

    fn lead(&self) -> Text {
        let versions = &self.series.versions;
        Text::plain("Sweep ").code(self.sweep).and(", metric ").code(&self.series.metric).and(format!(
            " ({} is better): {} in the order they were added: {}.",
            self.direction,
            crate::plural::counted(versions.len(), "version"),
            versions.join(", ")
        ))
    }

    /// Too little history, machine changes, settings left out of the search.
    fn notes(&self) -> Vec<Note> {
        let mut notes = Vec::new();
        if self.changes.is_none() {
            notes.push(Note::info(format!(
                "Not enough history to search for changes: {} (at least {MIN_VERSIONS} are needed).",
                crate::plural::counted(self.series.versions.len(), "version")
            )));
        }
        for found in self.changes.unwrap_or_default().iter().filter(|found| found.change.kind == ChangeKind::Machine) {
            notes.push(Note::warning(format!(
                "The machine changed from {} to {} (x{} across every setting): one machine event, taken out of each \
                 setting's series, not a regression of any.",
                found.before,
                found.label,
                number(found.change.ratio)
            )));
        }
        let left_out = self.left_out();
        if !left_out.is_empty() && self.changes.is_some() {
            notes.push(Note::info(format!(
                "Left out of the change search (no run at some version): {}.",
                left_out.join("; ")
            )));
        }
        notes
    }

    /// Settings without a run at some version, each with the versions it lacks.
    fn left_out(&self) -> Vec<String> {
        (self.series.settings.iter())
            .filter(|trend| !trend.is_complete())
            .map(|trend| {
                let missing: Vec<&str> = trend.missing().iter().map(|&at| self.series.versions[at].as_str()).collect();
                format!("{} (none at {})", trend.label, missing.join(", "))
            })
            .collect()
    }

    /// The first version after the latest change of `trend`'s setting, if one was found.
    fn latest_change(&self, trend: &SettingTrend) -> Option<usize> {
        let changes = self.changes.unwrap_or_default().iter();
        let of_setting =
            changes.filter(|found| found.change.kind == ChangeKind::Setting && found.setting_label == trend.label);
        of_setting.map(|found| found.change.at).max()
    }
}

fn kind_name(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Setting => "setting",
        ChangeKind::Machine => "machine",
    }
}

/// A table row: the setting, the version's number (as the charts show it) and label, its mean.
fn trend_row(setting: &str, (index, version): (usize, &str), mean: Option<&VersionMean>, mark: &str) -> Vec<String> {
    let (shown, interval, df, runs) = match mean {
        None => ("no run".to_string(), String::new(), String::new(), "0".to_string()),
        Some(mean) => (
            number(mean.mean),
            mean.interval.map_or_else(
                || "one run: none".to_string(),
                |(low, high)| format!("{} .. {}", number(low), number(high)),
            ),
            mean.df().to_string(),
            mean.runs.to_string(),
        ),
    };
    vec![setting.to_string(), (index + 1).to_string(), version.to_string(), shown, interval, df, runs, mark.to_string()]
}

fn version_json(label: &str, mean: Option<&VersionMean>) -> Value {
    match mean {
        None => json!({ "label": label, "mean": null, "low": null, "high": null, "df": null, "runs": 0 }),
        Some(mean) => {
            let (low, high) = mean.interval.unzip();
            json!({ "label": label, "mean": mean.mean, "low": low, "high": high, "df": mean.df(), "runs": mean.runs })
        }
    }
}
