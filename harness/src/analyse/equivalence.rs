//! Equivalence checks: settings that resolve to the same code path must measure the same.

use serde::Serialize;

use super::drift_bound::DriftBound;
use super::no_test::NoTest;
use super::setting_index::SettingIndex;
use super::setting_model::SettingModel;
use super::setting_summary::{first_seen_groups, Labels, SettingSummary};
use crate::declare::AnalysisConfig;
use crate::expression::Expression;
use crate::record::RecordedRun;

/// Settings grouped by the code path they resolve to, and whether each class agrees.
#[derive(Debug, Clone, PartialEq)]
pub struct EquivalenceCheck {
    /// The setting column, metric or expression naming the code path (e.g. `overlap_slices`, or
    /// `if(rows / slices < 96, 1, slices)` for an engine that does not print the slices it used).
    pub key: String,
    /// The margin every class is judged against, and why it is that wide.
    pub margin: Margin,
    /// Classes with two or more settings.
    pub classes: Vec<EquivalenceClass>,
    /// Indices of settings whose runs reported different key values: they resolve to no one path.
    pub inconsistent: Vec<usize>,
}

/// What the data show about a class: level-alpha tests against the margin, never a claim without data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Agreement {
    /// Two one-sided tests (Schuirmann 1987) put the extreme settings' difference within the margin.
    #[serde(rename = "agree")]
    Agree,
    /// The difference is shown to exceed the margin (one-sided, Bonferroni over the classes).
    #[serde(rename = "disagree")]
    Disagree,
    /// Neither: the interval straddles the margin, or no test was possible (the reason).
    #[serde(rename = "cannot tell")]
    CannotTell(Option<NoTest>),
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
    /// The extreme pair's difference relative to the lower one, with its 1 − 2·alpha interval.
    pub difference: Option<(f64, f64, f64)>,
    pub agreement: Agreement,
}

impl EquivalenceClass {
    /// Shown to differ: what makes a sweep's check fail (exit 1).
    pub fn disagrees(&self) -> bool {
        self.agreement == Agreement::Disagree
    }
}

impl EquivalenceCheck {
    /// Class settings by (group labels, key value); test each class's extreme pair (the lowest and
    /// highest model estimates) on the verdicts' model: agree when the 1 − 2·alpha interval of their
    /// difference lies within ± the bound, disagree when the interval at 1 − 2·alpha/classes lies wholly
    /// beyond it, cannot tell otherwise. `key_values` are each setting's values of the key
    /// (`EquivalenceCheck::key_values`).
    pub fn of(
        key_values: &[Vec<String>],
        settings: &[SettingSummary],
        config: &AnalysisConfig,
        key: &Expression,
        drift: Option<&DriftBound>,
        model: &SettingModel,
    ) -> EquivalenceCheck {
        let mut inconsistent = Vec::new();
        let measured = settings.iter().enumerate().filter(|(_, s)| s.metric(&config.primary).is_some());
        let keyed = measured.filter_map(|(index, summary)| match key_values[index].as_slice() {
            [] => None,
            [value] => Some(((summary.setting.labels_of(&config.group_by), value.clone()), index)),
            _ => {
                inconsistent.push(index);
                None
            }
        });
        let mut classes = first_seen_groups(keyed);
        classes.retain(|(_, members)| members.len() >= 2);
        let margin = Margin::of(config, drift);
        let tests = Tests { model, bound: margin.bound, alpha: config.alpha, classes: classes.len().max(1) };
        let classes = classes
            .into_iter()
            .map(|((group, value), members)| tests.class(group, value, members, settings, &config.primary))
            .collect();
        EquivalenceCheck { key: key.text().to_string(), margin, classes, inconsistent }
    }

    /// The distinct key values of each setting: its label, or per usable run the key (a metric, or an
    /// expression over numeric params and the run's metrics, a metric winning over a param of its name)
    /// rounded to an integer. One pass over the runs; the key is compiled once and each run only fills its
    /// few names.
    pub fn key_values<R: RecordedRun>(
        observations: &[R],
        settings: &[SettingSummary],
        key: &Expression,
    ) -> Vec<Vec<String>> {
        // Every setting's label in the column the key names, when it names a setting column.
        let labels = settings.iter().map(|s| s.setting.value(key.text()).map(ToString::to_string));
        if let Some(labels) = labels.collect::<Option<Vec<String>>>() {
            return labels.into_iter().map(|label| vec![label]).collect();
        }
        let params: Vec<Vec<Option<f64>>> = settings
            .iter()
            .map(|summary| key.names().iter().map(|name| summary.setting.value(name)?.as_f64()).collect())
            .collect();
        let index = SettingIndex::of(settings.iter().map(|summary| summary.id));
        let mut bindings = key.bindings();
        let mut rounded: Vec<Vec<f64>> = vec![Vec::new(); settings.len()];
        for run in observations.iter().filter(|run| run.is_usable()) {
            let Some(setting) = index.get(run.setting_id()) else { continue };
            for (slot, name) in key.names().iter().enumerate() {
                bindings.set_at(slot, run.metric(name).or(params[setting][slot]));
            }
            let Ok(value) = key.number_of(&bindings).map(f64::round) else { continue };
            if !rounded[setting].iter().any(|seen| seen.to_bits() == value.to_bits()) {
                rounded[setting].push(value);
            }
        }
        rounded.into_iter().map(|values| values.into_iter().map(|value| format!("{value}")).collect()).collect()
    }
}

/// The relative margin two settings count as equal within, and where it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Margin {
    /// The margin the tests use: `declared`, or the control's drift when that is larger; 0 without
    /// either, when only a disagreement can be shown.
    pub bound: f64,
    /// `negligible` as declared.
    pub declared: Option<f64>,
    /// The control whose drift set `bound` (wider than `declared`, or none declared).
    pub drift: Option<DriftBound>,
}

impl Margin {
    /// `negligible`, or the drift the control shows (2√2 × its within-setting relative sd: two single runs'
    /// 95% range) when larger: two runs of one setting differ by that much with the machine alone.
    pub fn of(config: &AnalysisConfig, drift: Option<&DriftBound>) -> Margin {
        let declared = config.negligible;
        let widening = drift.filter(|d| d.two_runs_range() > declared.unwrap_or(0.0));
        let bound = widening.map_or(declared.unwrap_or(0.0), DriftBound::two_runs_range);
        Margin { bound, declared, drift: widening.cloned() }
    }
}

/// The tests every class gets.
pub(super) struct Tests<'a> {
    pub model: &'a SettingModel,
    pub bound: f64,
    pub alpha: f64,
    /// How many such tests are made (the Bonferroni divisor of a "differs" claim).
    pub classes: usize,
}

impl Tests<'_> {
    /// `higher` against `lower` (model estimates): agree when two one-sided tests (Schuirmann 1987) at
    /// alpha put the difference within ± the bound, disagree when its interval at 1 − 2·alpha/classes lies
    /// wholly beyond it; the relative difference with its 1 − 2·alpha interval.
    pub fn agreement(&self, higher: usize, lower: usize) -> (Option<(f64, f64, f64)>, Agreement) {
        let test = match self.model.compare(higher, lower) {
            Ok(test) => test,
            Err(reason) => return (None, Agreement::CannotTell(Some(reason))),
        };
        let scale = self.model.scale;
        let reference = self.model.mean(lower);
        let relative = |d: f64| scale.ratio(d, scale.inverse(reference)) - 1.0;
        let margin = scale.margin(self.bound, scale.inverse(reference));
        let within = test.one_sided_width(1.0 - self.alpha);
        let beyond = test.one_sided_width(1.0 - self.alpha / self.classes as f64);
        let size = test.estimate.abs();
        let agreement = if size + within < margin {
            Agreement::Agree
        } else if size - beyond > margin {
            Agreement::Disagree
        } else {
            Agreement::CannotTell(None)
        };
        (Some((relative(test.estimate), relative(test.estimate - within), relative(test.estimate + within))), agreement)
    }

    fn class(
        &self,
        group: Labels,
        value: String,
        settings: Vec<usize>,
        summaries: &[SettingSummary],
        primary: &str,
    ) -> EquivalenceClass {
        let means: Vec<f64> = settings
            .iter()
            .map(|&i| summaries[i].metric(primary).expect("classed settings have the primary").mean)
            .collect();
        let (low, high) = means.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), m| (l.min(*m), h.max(*m)));
        let spread = (high - low) / (means.iter().sum::<f64>() / means.len() as f64);
        let measured: Vec<usize> = settings.iter().copied().filter(|&s| self.model.has(s)).collect();
        let lowest = measured.iter().copied().min_by(|&a, &b| self.model.mean(a).total_cmp(&self.model.mean(b)));
        let highest = measured.iter().copied().max_by(|&a, &b| self.model.mean(a).total_cmp(&self.model.mean(b)));
        let (difference, agreement) = match lowest.zip(highest) {
            Some((lowest, highest)) => self.agreement(highest, lowest),
            None => (None, Agreement::CannotTell(None)),
        };
        EquivalenceClass { group, value, settings, spread, difference, agreement }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_config, fixture_slice_sweep};
    use crate::record::Observation;

    fn checked(observations: &[Observation], key: &str, drift: bool) -> EquivalenceCheck {
        let key = Expression::parse(key).unwrap();
        let settings = SettingSummary::summarise(observations);
        let config = fixture_slice_config();
        let model = crate::analyse::Verdicts::decide(observations, &settings, &config, true).model;
        let drift = drift.then(|| DriftBound::of(observations, "decode_tokens_per_s")).flatten();
        let key_values = EquivalenceCheck::key_values(observations, &settings, &key);
        EquivalenceCheck::of(&key_values, &settings, &config, &key, drift.as_ref(), &model)
    }

    fn check(observations: &[Observation], drift: bool) -> EquivalenceCheck {
        checked(observations, "overlap_slices", drift)
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
        assert_eq!(class.agreement, Agreement::Agree, "{class:?}");
        assert!(check.inconsistent.is_empty());
    }

    /// With no drift bound and no `negligible` margin nothing can be shown equal; these two are not shown
    /// to differ either, so the check cannot tell (it used to call them agreeing on a bound of its own).
    #[test]
    fn without_a_margin_agreement_cannot_be_shown() {
        let check = check(&fixture_slice_sweep(), false);
        let class = check.classes[0].clone();
        assert_eq!(check.margin, Margin { bound: 0.0, declared: None, drift: None });
        assert_eq!(class.agreement, Agreement::CannotTell(None));
        assert!(!class.disagrees());
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
        assert!(check.classes[0].disagrees(), "{check:?}");
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
        let check = checked(&observations, "if(rows / slices < 96, 1, slices)", true);
        assert_eq!(check.classes.len(), 1, "{check:?}");
        let class = &check.classes[0];
        assert_eq!((class.value.as_str(), class.settings.clone()), ("1", vec![0, 2]));
        assert!(class.agreement == Agreement::Agree && check.inconsistent.is_empty());
    }

    #[test]
    fn a_setting_column_key_reads_labels() {
        let check = checked(&fixture_slice_sweep(), "slices", false);
        assert!(check.classes.is_empty(), "each (rows, slices) is its own class");
    }
}
