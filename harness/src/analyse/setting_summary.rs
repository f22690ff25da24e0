//! Per-setting statistics: every metric of one setting's usable runs.

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::setting_index::SettingIndex;
use super::summary_stats::SummaryStats;
use crate::declare::{Param, ParamValue};
use crate::plan::{Setting, SettingId};
use crate::record::{MetricColumn, RecordedRun, RunTable};

pub use crate::plan::Labels;

/// While summarising: a setting, its first run, how many runs it has and which of them are usable.
type SettingRuns = (SettingId, usize, usize, Vec<u32>);

/// One distinct setting vector and what its usable runs measured.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingSummary {
    pub id: SettingId,
    /// The setting as recorded: its params' typed values and its variant.
    pub setting: Setting,
    /// Every recorded run of this setting: warmups and failures included.
    pub runs: usize,
    /// Runs that count in statistics (`RecordedRun::is_usable`).
    pub usable: usize,
    /// Metric name -> summary over the usable runs that reported it.
    pub metrics: BTreeMap<String, SummaryStats>,
}

impl SettingSummary {
    /// A numeric setting column, else the mean of the metric of that name.
    pub fn value_of(&self, name: &str) -> Option<f64> {
        let label = self.setting.value(name).and_then(ParamValue::as_f64);
        label.or_else(|| self.metric(name).map(|stats| stats.mean))
    }

    /// Group observations by setting, in first-seen order, and summarise each metric of the usable runs
    /// (descriptive statistics, `SummaryStats::of`), in run order. The settings are summarised on every
    /// core, each from its own runs' values only, so no copy of every run's values is ever held.
    pub fn summarise<R: RecordedRun>(observations: &[R]) -> Vec<SettingSummary> {
        runs_by_setting(observations).into_par_iter().map(|runs| summary(observations, runs)).collect()
    }

    /// `summarise` of a table's runs (`RunTable::runs`), read column by column: each metric in one
    /// sequential pass into its settings' values, the metrics on every core. Reading run by run, every
    /// run's twelve metrics are twelve cache misses apart (a third of a million-run report's time).
    pub fn summarise_table(table: &RunTable) -> Vec<SettingSummary> {
        let runs = table.runs();
        let settings = runs_by_setting(&runs);
        let mut slot = vec![u32::MAX; runs.len()];
        for (index, (_, _, _, usable)) in settings.iter().enumerate() {
            let index = u32::try_from(index).expect("fewer than 2^32 settings");
            usable.iter().for_each(|&run| slot[run as usize] = index);
        }
        let columns: Vec<(&str, Vec<Option<SummaryStats>>)> = table
            .metric_columns()
            .into_par_iter()
            .map(|column| (column.name, column_stats(&column, &slot, &settings)))
            .collect();
        let summary = |(index, (id, first, runs_of, usable)): (usize, SettingRuns)| {
            let metrics = columns.iter().filter_map(|(name, stats)| Some((name.to_string(), stats[index]?)));
            let setting = runs[first].setting().clone();
            SettingSummary { id, setting, runs: runs_of, usable: usable.len(), metrics: metrics.collect() }
        };
        settings.into_iter().enumerate().map(summary).collect()
    }

    /// Settings in declared grid order (`Setting::grid_rank`); ties keep first-seen order.
    pub fn sort_by_declaration(settings: &mut [SettingSummary], declared: &[Param]) {
        if !declared.is_empty() {
            settings.sort_by_cached_key(|s| s.setting.grid_rank(declared));
        }
    }

    pub fn metric(&self, name: &str) -> Option<&SummaryStats> {
        self.metrics.get(name)
    }

    /// (x, y) per setting that has both (`value_of`), in settings order: the points of a cost fit.
    pub fn points(settings: &[SettingSummary], x: &str, y: &str) -> Vec<(f64, f64)> {
        settings.iter().filter_map(|s| Some((s.value_of(x)?, s.value_of(y)?))).collect()
    }

    /// Whether a metric only echoes a setting column: in every setting that reports it, every run gave
    /// exactly the value of one and the same numeric column (an engine printing `rows=1024` back).
    pub fn echoes_a_param(settings: &[SettingSummary], metric: &str) -> bool {
        let reporting: Vec<(&SettingSummary, &SummaryStats)> =
            settings.iter().filter_map(|s| Some((s, s.metric(metric)?))).collect();
        let echoes = |column: &str| {
            reporting.iter().all(|(s, stats)| {
                let label = s.setting.value(column).and_then(ParamValue::as_f64);
                label.is_some_and(|value| stats.min == value && stats.max == value)
            })
        };
        !reporting.is_empty() && reporting[0].0.setting.values.iter().any(|(column, _)| echoes(column))
    }
}

/// Values grouped by key: groups in the order their key is first seen, each group's values in input order.
pub(super) fn first_seen_groups<K: PartialEq, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Vec<(K, Vec<V>)> {
    let mut groups: Vec<(K, Vec<V>)> = Vec::new();
    for (key, value) in pairs {
        match groups.iter_mut().find(|(known, _)| *known == key) {
            Some((_, values)) => values.push(value),
            None => groups.push((key, vec![value])),
        }
    }
    groups
}

/// Each key's index among the distinct keys, numbered in first-seen order.
pub(super) fn first_seen_index<K: PartialEq>(keys: impl IntoIterator<Item = K>) -> Vec<usize> {
    let mut known: Vec<K> = Vec::new();
    keys.into_iter()
        .map(|key| {
            known.iter().position(|k| *k == key).unwrap_or_else(|| {
                known.push(key);
                known.len() - 1
            })
        })
        .collect()
}

/// Each setting's runs among `observations`, first-seen order.
fn runs_by_setting<R: RecordedRun>(observations: &[R]) -> Vec<SettingRuns> {
    let mut index = SettingIndex::default();
    let mut settings: Vec<SettingRuns> = Vec::new();
    for (run, observation) in observations.iter().enumerate() {
        let id = observation.setting_id();
        let slot = index.get_or_insert_with(id, || {
            settings.push((id, run, 0, Vec::new()));
            settings.len() - 1
        });
        let (_, _, runs, usable) = &mut settings[slot];
        *runs += 1;
        if observation.is_usable() {
            usable.push(u32::try_from(run).expect("fewer than 2^32 runs"));
        }
    }
    settings
}

/// One setting's summary from its runs: each metric's values gathered (sized once: no vector grows) and
/// summarised in place.
fn summary<R: RecordedRun>(observations: &[R], (id, first, runs, usable): SettingRuns) -> SettingSummary {
    let mut values: Vec<(&str, Vec<f64>)> = Vec::new();
    for &run in &usable {
        for (position, (name, value)) in observations[run as usize].metrics().enumerate() {
            values_of(&mut values, position, name, usable.len()).push(value);
        }
    }
    let metrics =
        values.into_iter().filter_map(|(name, mut v)| Some((name.to_string(), SummaryStats::of(&mut v)?))).collect();
    SettingSummary { id, setting: observations[first].setting().clone(), runs, usable: usable.len(), metrics }
}

/// One metric's summary per setting (by position in `settings`) from its column: `slot[run]` is the
/// setting of a usable run (`u32::MAX` for one that is not).
fn column_stats(column: &MetricColumn<'_>, slot: &[u32], settings: &[SettingRuns]) -> Vec<Option<SummaryStats>> {
    let mut values: Vec<Vec<f64>> = settings.iter().map(|(_, _, _, usable)| Vec::with_capacity(usable.len())).collect();
    for (value, &setting) in column.values().zip(slot) {
        if setting != u32::MAX && !value.is_nan() {
            values[setting as usize].push(value);
        }
    }
    values.iter_mut().map(|values| SummaryStats::of(values)).collect()
}

/// The values of metric `name`, which a run reported as its `position`-th, room made for `runs` of them
/// when new: runs report their metrics in one order, so the slot at that position is almost always the
/// one (a million runs are summarised without a map lookup each).
fn values_of<'a, 'v>(
    values: &'v mut Vec<(&'a str, Vec<f64>)>,
    position: usize,
    name: &'a str,
    runs: usize,
) -> &'v mut Vec<f64> {
    let slot = match values.get(position) {
        Some((known, _)) if *known == name => position,
        _ => values.iter().position(|(known, _)| *known == name).unwrap_or_else(|| {
            values.push((name, Vec::with_capacity(runs)));
            values.len() - 1
        }),
    };
    &mut values[slot].1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_setting_id, fixture_slice_sweep};
    use crate::record::Observation;

    #[test]
    fn settings_in_first_seen_order_with_usable_runs_only() {
        let summaries = SettingSummary::summarise(&fixture_slice_sweep());
        let slices: Vec<_> = summaries.iter().map(|s| s.setting.labels_of(&["rows".into(), "slices".into()])).collect();
        assert_eq!(slices[0], vec![("rows".into(), ParamValue::Int(512)), ("slices".into(), ParamValue::Int(1))]);
        assert_eq!(slices[1][1].1, ParamValue::Int(4));
        let first = &summaries[0];
        // Three ok reps plus one warmup and one failure.
        assert_eq!((first.runs, first.usable), (5, 3));
        assert!((first.metric("prefill_tokens_per_s").unwrap().mean - 875.753).abs() < 1e-3);
    }

    #[test]
    fn settings_that_print_alike_but_differ_in_type_are_summarised_apart() {
        let lookalikes = [ParamValue::Int(1), ParamValue::Float(1.0), ParamValue::Text("1".into())];
        let runs: Vec<Observation> = lookalikes
            .iter()
            .flat_map(|value| {
                (1..=2).map(|rep| {
                    let mut run = fixture_observation(&[], rep, &[("a", 1.0)]);
                    run.setting.values.insert(0, ("mode".into(), value.clone()));
                    run.setting_id = fixture_setting_id(&run.setting);
                    run
                })
            })
            .collect();
        let summaries = SettingSummary::summarise(&runs);
        assert_eq!(summaries.iter().map(|s| s.setting.values[0].1.clone()).collect::<Vec<_>>(), lookalikes);
        assert!(summaries.iter().all(|s| s.usable == 2));
        assert_eq!(summaries[1].value_of("mode"), Some(1.0));
        assert_eq!(summaries[2].value_of("mode"), None, "text is not a number");
    }

    /// The "Other metrics" table repeated echoed parameters (`rows 1024.0 ± 0.0`).
    #[test]
    fn a_metric_equal_to_a_param_in_every_run_echoes_it() {
        let runs: Vec<Observation> = [("512", 512.0, 3.0), ("512", 512.0, 4.0), ("1024", 1024.0, 3.0)]
            .iter()
            .enumerate()
            .map(|(rep, (rows, echoed, time))| {
                fixture_observation(&[("rows", rows)], rep as u32 + 1, &[("rows_out", *echoed), ("t", *time)])
            })
            .collect();
        let summaries = SettingSummary::summarise(&runs);
        assert!(SettingSummary::echoes_a_param(&summaries, "rows_out"));
        assert!(!SettingSummary::echoes_a_param(&summaries, "t"));
        assert!(!SettingSummary::echoes_a_param(&summaries, "absent"));
    }

    /// Tables came out in shuffled run order (`1024, 512, 2048`).
    #[test]
    fn settings_sort_into_declared_grid_order() {
        let runs: Vec<Observation> = [("1024", "2"), ("512", "8"), ("2048", "1"), ("512", "1")]
            .iter()
            .map(|(rows, slices)| fixture_observation(&[("rows", rows), ("slices", slices)], 1, &[("a", 1.0)]))
            .collect();
        let declared = |name: &str, values: &[i64]| Param {
            name: name.to_string(),
            values: values.iter().map(|v| ParamValue::Int(*v)).collect(),
            is_list: true,
        };
        let mut summaries = SettingSummary::summarise(&runs);
        SettingSummary::sort_by_declaration(
            &mut summaries,
            &[declared("rows", &[512, 1024, 2048]), declared("slices", &[8, 1, 2])],
        );
        let order: Vec<String> =
            summaries.iter().map(|s| format!("{}/{}", s.setting.values[0].1, s.setting.values[1].1)).collect();
        assert_eq!(order, ["512/8", "512/1", "1024/2", "2048/1"]);
    }

    #[test]
    fn metrics_missing_from_some_runs_use_the_runs_that_have_them() {
        let mut partial = fixture_observation(&[("x", "1")], 2, &[("a", 1.0)]);
        partial.metrics.remove("a");
        let runs = [fixture_observation(&[("x", "1")], 1, &[("a", 1.0), ("b", 3.0)]), partial];
        let summary = &SettingSummary::summarise(&runs)[0];
        assert_eq!(summary.usable, 2);
        assert_eq!(summary.metric("a").unwrap().n, 1);
        assert!(summary.metric("c").is_none());
    }
}
