//! Equivalence checks: settings that resolve to the same code path must measure the same.

use super::drift_bound::DriftBound;
use super::setting_summary::{Labels, SettingSummary};
use crate::record::RecordedRun;
use crate::spec::AnalysisConfig;

/// Settings grouped by the code path they resolve to, and whether each class agrees.
#[derive(Debug, Clone, PartialEq)]
pub struct EquivalenceCheck {
    /// The setting column, metric or expression naming the code path (e.g. `overlap_slices`, or
    /// `if(rows / slices < 96, 1, slices)` for an engine that does not print the slices it used).
    pub key: String,
    /// Classes with two or more settings.
    pub classes: Vec<EquivalenceClass>,
    /// Indices of settings whose runs reported different key values: they resolve to no one path.
    pub inconsistent: Vec<usize>,
}

/// Settings of one group that share a key value.
#[derive(Debug, Clone, PartialEq)]
pub struct EquivalenceClass {
    /// The `group_by` labels: only settings of one group are comparable (same rows, say).
    pub group: Labels,
    /// The shared key value (a metric's rounded value).
    pub value: String,
    /// Indices into `SweepAnalysis::settings`.
    pub settings: Vec<usize>,
    /// (max − min) / mean of the settings' primary means.
    pub spread: f64,
    /// What the spread must stay within: the combined 95% half-widths of the two extreme settings
    /// relative to the class mean, widened to the control's drift (2√2 × its within-setting relative
    /// sd: two single runs' 95% range) when that is larger.
    pub bound: f64,
}

impl EquivalenceClass {
    pub fn agrees(&self) -> bool {
        self.spread <= self.bound
    }
}

impl EquivalenceCheck {
    /// Class settings by (group labels, key value) and compare the relative range of their primary
    /// means with the root sum of squares of the extremes' Student's t 95% half-widths, or the drift
    /// the control metric shows when that is larger. The key is read from the setting
    /// labels when it is a column, otherwise from each usable run's metric rounded to an integer.
    pub fn of<R: RecordedRun>(
        observations: &[R],
        settings: &[SettingSummary],
        config: &AnalysisConfig,
        key: &str,
        drift: Option<&DriftBound>,
    ) -> EquivalenceCheck {
        let mut classes: Vec<(Labels, String, Vec<usize>)> = Vec::new();
        let mut inconsistent = Vec::new();
        for (index, summary) in settings.iter().enumerate().filter(|(_, s)| s.metric(&config.primary).is_some()) {
            let values = key_values(observations, summary, key);
            let value = match values.as_slice() {
                [] => continue,
                [value] => value.clone(),
                _ => {
                    inconsistent.push(index);
                    continue;
                }
            };
            let group = summary.labels_of(&config.group_by);
            match classes.iter_mut().find(|(g, v, _)| *g == group && *v == value) {
                Some((_, _, members)) => members.push(index),
                None => classes.push((group, value, vec![index])),
            }
        }
        let classes = classes
            .into_iter()
            .filter(|(_, _, members)| members.len() >= 2)
            .map(|(group, value, members)| {
                EquivalenceClass::of(group, value, members, settings, &config.primary, drift)
            })
            .collect();
        EquivalenceCheck { key: key.to_string(), classes, inconsistent }
    }
}

impl EquivalenceClass {
    fn of(
        group: Labels,
        value: String,
        settings: Vec<usize>,
        summaries: &[SettingSummary],
        primary: &str,
        drift: Option<&DriftBound>,
    ) -> EquivalenceClass {
        let mut stats: Vec<_> = settings
            .iter()
            .map(|&i| summaries[i].metric(primary).expect("classed settings have the primary"))
            .collect();
        stats.sort_by(|a, b| a.mean.total_cmp(&b.mean));
        let (lowest, highest) = (stats[0], stats[stats.len() - 1]);
        let mean = stats.iter().map(|s| s.mean).sum::<f64>() / stats.len() as f64;
        let spread = (highest.mean - lowest.mean) / mean;
        let drift_bound = drift.map_or(0.0, |d| 2.0 * std::f64::consts::SQRT_2 * d.rel_sd);
        let bound = (lowest.combined_ci95(highest) / mean).max(drift_bound);
        EquivalenceClass { group, value, settings, spread, bound }
    }
}

/// The distinct key values of a setting: its label, or per usable run the key (a metric, or an
/// expression over numeric params and the run's metrics) rounded to an integer.
fn key_values<R: RecordedRun>(observations: &[R], summary: &SettingSummary, key: &str) -> Vec<String> {
    if let Some((_, label)) = summary.setting.iter().find(|(column, _)| column == key) {
        return vec![label.to_string()];
    }
    let params: Vec<(&str, f64)> =
        summary.setting.iter().filter_map(|(name, value)| Some((name.as_str(), value.as_f64()?))).collect();
    let resolve = |run: &R| {
        let metrics = run.metrics();
        crate::extract::evaluate_number(key, params.iter().copied().chain(metrics)).ok()
    };
    let mut values: Vec<String> = Vec::new();
    let runs = observations.iter().filter(|o| o.is_usable() && *o.setting() == summary.setting);
    for value in runs.filter_map(resolve).map(|v| format!("{}", v.round())) {
        if !values.contains(&value) {
            values.push(value);
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_config, fixture_slice_sweep};
    use crate::record::Observation;

    fn check(observations: &[Observation], drift: bool) -> EquivalenceCheck {
        let settings = SettingSummary::summarise(observations);
        let drift = drift.then(|| DriftBound::of(observations, "decode_tokens_per_s")).flatten();
        EquivalenceCheck::of(observations, &settings, &fixture_slice_config(), "overlap_slices", drift.as_ref())
    }

    #[test]
    fn slices_8_at_512_rows_agrees_with_the_serial_path() {
        let check = check(&fixture_slice_sweep(), true);
        assert_eq!(check.classes.len(), 1);
        let class = &check.classes[0];
        assert_eq!(
            (&*class.group[0].1.to_string(), class.value.as_str(), class.settings.clone()),
            ("512", "1", vec![0, 2])
        );
        // 875.75 vs 879.59: 0.44% apart, inside the 3.05% drift.
        assert!((class.spread - 0.00437).abs() < 1e-4, "{}", class.spread);
        assert!(class.agrees());
        assert!(check.inconsistent.is_empty());
    }

    #[test]
    fn without_drift_the_combined_interval_bounds_the_spread() {
        let observations = fixture_slice_sweep();
        let settings = SettingSummary::summarise(&observations);
        let class = check(&observations, false).classes[0].clone();
        let (serial, forced) =
            (settings[0].metric("prefill_tokens_per_s").unwrap(), settings[2].metric("prefill_tokens_per_s").unwrap());
        let expected = serial.combined_ci95(forced) / ((serial.mean + forced.mean) / 2.0);
        assert!((class.bound - expected).abs() < 1e-12);
        assert!(class.agrees());
    }

    #[test]
    fn disagreement_and_inconsistent_key_are_reported() {
        let path = |rows, slices, rep, tps, used| {
            fixture_observation(
                &[("rows", rows), ("slices", slices)],
                rep,
                &[("prefill_tokens_per_s", tps), ("overlap_slices", used)],
            )
        };
        let observations = [
            path("512", "1", 1, 100.0, 1.0),
            path("512", "1", 2, 101.0, 1.0),
            path("512", "8", 1, 200.0, 1.0),
            path("512", "8", 2, 201.0, 1.0),
            path("512", "4", 1, 50.0, 4.0),
            path("512", "4", 2, 50.0, 2.0),
        ];
        let check = check(&observations, false);
        assert!(!check.classes[0].agrees());
        assert_eq!(check.inconsistent, vec![2]);
    }

    /// An engine that does not print the slice count it used: the gate's rule, written as an expression over
    /// params, puts slices=8 at 512 rows (64 rows per slice, under 96) on the serial path with slices=1.
    #[test]
    fn an_expression_over_params_resolves_the_path() {
        let observations: Vec<Observation> = fixture_slice_sweep()
            .into_iter()
            .map(|mut o| {
                o.metrics.remove("overlap_slices");
                o
            })
            .collect();
        let settings = SettingSummary::summarise(&observations);
        let key = "if(rows / slices < 96, 1, slices)";
        let check = EquivalenceCheck::of(&observations, &settings, &fixture_slice_config(), key, None);
        assert_eq!(check.classes.len(), 1, "{check:?}");
        let class = &check.classes[0];
        assert_eq!((class.value.as_str(), class.settings.clone()), ("1", vec![0, 2]));
        assert!(class.agrees() && check.inconsistent.is_empty());
    }

    #[test]
    fn a_setting_column_key_reads_labels() {
        let observations = fixture_slice_sweep();
        let settings = SettingSummary::summarise(&observations);
        let check = EquivalenceCheck::of(&observations, &settings, &fixture_slice_config(), "slices", None);
        assert!(check.classes.is_empty(), "each (rows, slices) is its own class");
    }
}
