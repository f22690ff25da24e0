//! `MetricSeries`: one metric of every setting across a history's versions, and where it changed.

use super::found_change::FoundChange;
use super::setting_trend::SettingTrend;
use crate::history::{history_changes, ChangeKind, VersionSeries};

/// Versions a change search needs: a step has two versions on each side at the least.
pub const MIN_VERSIONS: usize = 4;

#[derive(Debug, Clone, PartialEq)]
pub struct MetricSeries {
    pub metric: String,
    /// Version labels in the order they were added.
    pub versions: Vec<String>,
    /// Every setting with a run of the metric, in declared grid order.
    pub settings: Vec<SettingTrend>,
}

impl MetricSeries {
    /// The settings with a run at every version: the series the change points are searched in.
    pub fn complete(&self) -> Vec<&SettingTrend> {
        self.settings.iter().filter(|trend| trend.is_complete()).collect()
    }

    /// Every setting's runs pooled per version (the control metric's series), if each version has one.
    pub fn pooled(&self) -> Option<VersionSeries> {
        let mut pooled = vec![Vec::new(); self.versions.len()];
        for trend in &self.settings {
            pooled.iter_mut().zip(&trend.runs).for_each(|(all, runs)| all.extend(runs));
        }
        pooled.iter().all(|runs| !runs.is_empty()).then(|| VersionSeries::of_runs(&pooled))
    }

    /// The changes of the complete settings' series (`history_changes`): the machine's from `control`
    /// (else the median of the series), then each setting's with the machine taken out, read at false
    /// discovery rate `level` (Benjamini-Hochberg), `permutations` per test drawn from `seed`. None with
    /// fewer than `MIN_VERSIONS` versions: not enough history to test.
    pub fn changes(
        &self,
        control: Option<&VersionSeries>,
        level: f64,
        permutations: usize,
        seed: u64,
    ) -> Option<Vec<FoundChange>> {
        if self.versions.len() < MIN_VERSIONS {
            return None;
        }
        let complete = self.complete();
        let series: Vec<VersionSeries> = complete.iter().map(|trend| trend.series()).collect();
        let found = history_changes(&series, control, level, permutations, seed);
        let named = (found.into_iter())
            .map(|change| {
                let trend = (change.kind == ChangeKind::Setting).then(|| complete[change.series]);
                FoundChange {
                    setting: trend.map(|trend| trend.setting.clone()),
                    setting_label: trend.map_or_else(|| "machine".to_string(), |trend| trend.label.clone()),
                    label: self.versions[change.at].clone(),
                    before: self.versions[change.at - 1].clone(),
                    change,
                }
            })
            .collect();
        Some(named)
    }
}
