//! `StoredHistory`: one sweep's versions and every run of them, read back out of the store.

use rusqlite::Connection;
use serde_json::{Map, Value};

use super::metric_series::MetricSeries;
use super::setting_trend::SettingTrend;
use crate::declare::{AnalysisConfig, Param};

pub struct StoredHistory {
    pub sweep: String,
    pub params: Vec<Param>,
    /// Version labels in the order they were added.
    pub versions: Vec<String>,
    /// The latest version's `[analysis]` (primary metric, direction, control); None when it does not read.
    pub analysis: Option<AnalysisConfig>,
    runs: Vec<HistoryRun>,
}

/// A run the analysis reads (finished `ok`, no warmup, the current attempt), at its version.
struct HistoryRun {
    version: usize,
    setting: String,
    setting_label: String,
    metrics: Map<String, Value>,
}

impl StoredHistory {
    /// Reads sweep `sweep` (which the store holds).
    pub(super) fn read(connection: &Connection, sweep: &str) -> Result<StoredHistory, rusqlite::Error> {
        let params: String =
            connection.query_row("SELECT params FROM sweeps WHERE name = ?1", [sweep], |row| row.get(0))?;
        let mut statement =
            connection.prepare("SELECT id, label, analysis FROM versions WHERE sweep = ?1 ORDER BY id")?;
        let versions: Vec<(i64, String, String)> = statement
            .query_map([sweep], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
            .collect::<Result<_, _>>()?;
        let mut statement = connection.prepare(
            "SELECT version, setting, setting_label, metrics FROM runs JOIN versions ON runs.version = versions.id \
             WHERE versions.sweep = ?1 AND status = 'ok' AND warmup = 0 AND current = 1 ORDER BY version, runs.rowid",
        )?;
        let index_of =
            |id: i64| versions.iter().position(|(version, _, _)| *version == id).expect("a run of a version");
        let runs = statement
            .query_map([sweep], |row| {
                let metrics: String = row.get(3)?;
                Ok(HistoryRun {
                    version: index_of(row.get(0)?),
                    setting: row.get(1)?,
                    setting_label: row.get(2)?,
                    metrics: serde_json::from_str(&metrics).unwrap_or_default(),
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(StoredHistory {
            sweep: sweep.to_string(),
            params: serde_json::from_str(&params).unwrap_or_default(),
            analysis: versions.last().and_then(|(_, _, analysis)| serde_json::from_str(analysis).ok()),
            versions: versions.into_iter().map(|(_, label, _)| label).collect(),
            runs,
        })
    }

    /// Every metric some run reported, sorted.
    pub fn metric_names(&self) -> Vec<String> {
        let names: std::collections::BTreeSet<&String> = self.runs.iter().flat_map(|run| run.metrics.keys()).collect();
        names.into_iter().cloned().collect()
    }

    /// `metric` of every setting at every version (settings in declared grid order); a value that is not a
    /// positive number is left out (the series are on the log scale).
    pub fn series(&self, metric: &str) -> MetricSeries {
        let mut settings: Vec<SettingTrend> = Vec::new();
        for run in &self.runs {
            let Some(value) = run.metrics.get(metric).and_then(Value::as_f64).filter(|value| *value > 0.0) else {
                continue;
            };
            let at = match settings.iter().position(|trend| trend.key == run.setting) {
                Some(at) => at,
                None => {
                    settings.push(SettingTrend::new(&run.setting, &run.setting_label, self.versions.len()));
                    settings.len() - 1
                }
            };
            settings[at].runs[run.version].push(value);
        }
        settings.sort_by_cached_key(|trend| grid_rank(&trend.setting, &self.params));
        MetricSeries { metric: metric.to_string(), versions: self.versions.clone(), settings }
    }
}

/// A setting's place in the declared grid: each param's value's position among its declared values.
fn grid_rank(setting: &Value, params: &[Param]) -> Vec<usize> {
    let position = |param: &Param| {
        let value = setting.get(&param.name);
        let declared = param.values.iter().map(|declared| serde_json::to_value(declared).ok());
        declared.zip(0..).find(|(declared, _)| declared.as_ref() == value).map_or(usize::MAX, |(_, at)| at)
    };
    params.iter().map(position).collect()
}
