//! `MetricSeries`: one metric of every setting across a history's versions, and where it changed.

use super::found_change::FoundChange;
use super::setting_trend::SettingTrend;
use crate::history::{history_changes, ChangeKind, VersionSeries};

/// Versions a change search needs: a step has two versions on each side at the least.
pub const MIN_VERSIONS: usize = 4;

/// One metric's runs, setting by setting and version by version.
#[derive(Debug, Clone)]
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

#[cfg(test)]
mod tests {
    use super::super::history_store::HistoryStore;
    use super::super::test_fixture_results::{fixture_results, fixture_rows};
    use super::*;

    const KS: [i64; 5] = [1, 2, 3, 4, 5];

    /// A store of 10 FIXTURE versions: every setting 8% slower from version 6 on (the machine), and setting
    /// k=3 5% slower from version 3 on (the software).
    fn stepped_store(dir: &std::path::Path) -> HistoryStore {
        let mut store = HistoryStore::open(&dir.join("history.sqlite")).unwrap();
        for version in 1..=10u32 {
            let tps = |k: i64, rep: u32| {
                let machine = if version >= 6 { 1.08 } else { 1.0 };
                let software = if k == 3 && version >= 3 { 1.05 } else { 1.0 };
                let noise = 1.0 + 0.002 * f64::from((rep * 7 + version * 3 + k as u32) % 5) - 0.004;
                100.0 * k as f64 * machine * software * noise
            };
            let csv =
                fixture_results(dir, &format!("v{version}"), &KS, &format!("v{version}"), &fixture_rows(&KS, 3, tps));
            store.add(&csv, None).unwrap();
        }
        store
    }

    #[test]
    fn the_setting_change_is_found_at_its_version_and_the_machine_change_once() {
        let dir = tempfile::tempdir().unwrap();
        let series = stepped_store(dir.path()).history(None).unwrap().series("tps");
        let changes = series.changes(None, 0.05, 999, 1).unwrap();
        let found: Vec<(ChangeKind, &str, &str)> = changes
            .iter()
            .map(|found| (found.change.kind, found.setting_label.as_str(), found.label.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![(ChangeKind::Machine, "machine", "fixture: v6"), (ChangeKind::Setting, "k=3", "fixture: v3")],
            "{changes:#?}"
        );
        let software = &changes[1];
        assert_eq!(software.before, "fixture: v2");
        assert_eq!(software.setting, Some(serde_json::json!({ "k": 3 })));
        assert!((software.change.ratio - 1.05).abs() < 0.01 && software.change.q <= 0.05, "{software:?}");
        assert!(software.is_regression(crate::declare::Direction::Lower, 0.05));
        assert!(!software.is_regression(crate::declare::Direction::Higher, 0.05), "faster is no regression");
    }

    /// With a control, the machine's series is the control's, every run of it pooled by version.
    #[test]
    fn the_machine_change_is_read_from_the_control_when_there_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let series = stepped_store(dir.path()).history(None).unwrap().series("tps");
        let control = series.pooled().unwrap();
        assert_eq!(control.means.len(), 10);
        let changes = series.changes(Some(&control), 0.05, 999, 1).unwrap();
        let machine: Vec<&str> = (changes.iter())
            .filter(|found| found.change.kind == ChangeKind::Machine)
            .map(|found| found.label.as_str())
            .collect();
        assert_eq!(machine, vec!["fixture: v6"], "{changes:#?}");
        assert!(
            changes.iter().any(|found| found.setting_label == "k=3" && found.label == "fixture: v3"),
            "{changes:#?}"
        );
    }

    #[test]
    fn a_setting_missing_at_a_version_is_left_out_and_too_few_versions_are_not_tested() {
        let dir = tempfile::tempdir().unwrap();
        let mut series = stepped_store(dir.path()).history(None).unwrap().series("tps");
        series.settings[0].runs[4].clear();
        assert_eq!(series.complete().len(), 4);
        assert_eq!(series.settings[0].missing(), vec![4]);
        assert!(series.pooled().is_some(), "the other settings ran at every version");
        series.versions.truncate(3);
        series.settings.iter_mut().for_each(|trend| trend.runs.truncate(3));
        assert!(series.changes(None, 0.05, 99, 1).is_none(), "3 versions are too few to search");
    }
}
