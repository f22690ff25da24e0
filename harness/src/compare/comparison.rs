//! Two sides of one sweep grid (two CSVs, or two values of a parameter inside one interleaved sweep)
//! joined on their settings and judged setting by setting, family-wise.

use std::collections::HashMap;

use serde::Serialize;

use super::compare_config::CompareConfig;
use super::setting_comparison::{judge, SettingComparison, Verdict};
use crate::analyse::{holm_adjust, AdjustedSamples, ComparisonMethod, ControlAdjustment, Labels, RunSample};
use crate::record::RecordedRun;

/// The comparison of side B against side A.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub config: CompareConfig,
    /// Settings present on both sides, in A's first-seen order.
    pub settings: Vec<SettingComparison>,
    /// Settings recorded only in A, then only in B.
    pub only_a: Vec<Labels>,
    pub only_b: Vec<Labels>,
    /// Rounds were blocks shared by both sides (one interleaved sweep).
    pub paired: bool,
    /// The drift the control metric removed, when it could be fitted.
    pub adjustment: Option<ControlAdjustment>,
}

/// How the two sides were compared, for the header and `--json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Design {
    Paired,
    Welch,
}

impl Comparison {
    /// Whether any setting regressed significantly beyond the threshold: the CLI's exit code 1.
    pub fn has_significant_regression(&self) -> bool {
        self.settings.iter().any(|s| s.verdict == Verdict::Regressed)
    }

    /// Holm's family: the settings that could be tested.
    pub fn tests(&self) -> usize {
        self.settings.iter().filter(|s| s.p_value.is_some()).count()
    }

    /// Settings whose control metric moved by more than the threshold between the sides: a change of
    /// machine speed rather than of the thing compared may explain their verdicts.
    pub fn control_moved(&self) -> Vec<&SettingComparison> {
        let threshold = self.config.threshold;
        self.settings.iter().filter(|s| s.control_ratio.is_some_and(|r| (r - 1.0).abs() > threshold)).collect()
    }
}

/// Two recorded sweeps (e.g. CANN 8 and CANN 9), joined on exact equality of setting vectors (all
/// labels, `variant` included). Their rounds are not shared, so each setting is compared by Welch's
/// test on the log scale (`AdjustedSamples`), with the control metric as a covariate when it is set.
pub fn compare<R: RecordedRun>(a: &[R], b: &[R], config: &CompareConfig) -> Comparison {
    join(Side::group(a.iter(), None), Side::group(b.iter(), None), config, false)
}

/// Two values of the parameter `by` inside one interleaved sweep (e.g. `cann = ["8.5", "9.0"]`): the
/// versions share rounds, so each setting (the other parameters) is compared within rounds (paired,
/// pooled residual variance of the setting + round model when homogeneous).
/// (Falls back to Welch when `rounds_are_blocks` is false: the sweep was not interleaved.)
pub fn compare_within<R: RecordedRun>(
    observations: &[R],
    by: &str,
    values: [&str; 2],
    config: &CompareConfig,
    rounds_are_blocks: bool,
) -> Comparison {
    let side = |value: &str| {
        let runs = observations.iter().filter(|o| o.setting_value(by).is_some_and(|v| v.to_string() == value));
        Side::group(runs, Some(by))
    };
    join(side(values[0]), side(values[1]), config, rounds_are_blocks)
}

/// One side's usable and unusable runs, grouped by setting (first-seen order).
struct Side<'r, R> {
    settings: Vec<(Labels, Vec<&'r R>)>,
}

impl<'r, R: RecordedRun> Side<'r, R> {
    /// Groups runs by their labels, without the `without` column (the one that tells the sides apart).
    /// The labels are cut once per distinct recorded setting, not once per run.
    fn group(observations: impl Iterator<Item = &'r R>, without: Option<&str>) -> Side<'r, R> {
        let mut settings: Vec<(Labels, Vec<&'r R>)> = Vec::new();
        let mut index: HashMap<Labels, usize> = HashMap::new();
        let mut recorded: HashMap<&'r Labels, usize> = HashMap::new();
        for observation in observations {
            let slot = *recorded.entry(observation.setting()).or_insert_with(|| {
                let labels: Labels =
                    observation.setting().iter().filter(|(name, _)| Some(name.as_str()) != without).cloned().collect();
                *index.entry(labels.clone()).or_insert_with(|| {
                    settings.push((labels, Vec::new()));
                    settings.len() - 1
                })
            });
            settings[slot].1.push(observation);
        }
        Side { settings }
    }

    fn find(&self, labels: &Labels) -> Option<&Vec<&'r R>> {
        self.settings.iter().find(|(known, _)| known == labels).map(|(_, runs)| runs)
    }

    fn unmatched(&self, other: &Side<R>) -> Vec<Labels> {
        self.settings.iter().filter(|(labels, _)| other.find(labels).is_none()).map(|(l, _)| l.clone()).collect()
    }
}

/// Judges every setting on both sides: samples indexed 2j (A) and 2j + 1 (B) for the j-th joined
/// setting, drift removed with the control, each B compared with its A, Holm over all of them.
fn join<R: RecordedRun>(a: Side<R>, b: Side<R>, config: &CompareConfig, paired: bool) -> Comparison {
    let joined: Vec<(&Labels, &Vec<&R>, &Vec<&R>)> =
        a.settings.iter().filter_map(|(labels, runs_a)| Some((labels, runs_a, b.find(labels)?))).collect();
    let mut samples = Vec::new();
    for (j, (_, runs_a, runs_b)) in joined.iter().enumerate() {
        samples.extend(samples_of(runs_a, 2 * j, config));
        samples.extend(samples_of(runs_b, 2 * j + 1, config));
    }
    let group_of: Vec<usize> = (0..2 * joined.len()).map(|index| index / 2).collect();
    let adjusted = AdjustedSamples::new(samples, group_of.len(), &group_of, config.control.as_deref(), paired);
    let tests: Vec<_> = (0..joined.len()).map(|j| adjusted.compare(2 * j + 1, 2 * j)).collect();
    let p_values: Vec<f64> = tests.iter().flatten().map(|t| t.p_value()).collect();
    let mut holm = holm_adjust(&p_values).into_iter();
    let settings = joined
        .iter()
        .zip(tests)
        .map(|((labels, runs_a, runs_b), test)| {
            let (mean_a, mean_b) = (mean_of(runs_a, &config.metric), mean_of(runs_b, &config.metric));
            let ratio = test.as_ref().zip(mean_a).map(|(t, reference)| adjusted.ratio(t, reference));
            let p_adjusted = test.map(|_| holm.next().expect("one adjusted p per test"));
            let control_ratio = config.control.as_deref().and_then(|c| Some(mean_of(runs_b, c)? / mean_of(runs_a, c)?));
            SettingComparison {
                setting: (*labels).clone(),
                n_a: usable(runs_a, &config.metric),
                n_b: usable(runs_b, &config.metric),
                mean_a,
                mean_b,
                ratio,
                p_value: test.map(|t| t.p_value()),
                p_adjusted,
                method: test.map(|t| t.method),
                control_ratio,
                verdict: judge(ratio, p_adjusted, config),
            }
        })
        .collect();
    Comparison {
        config: config.clone(),
        settings,
        only_a: a.unmatched(&b),
        only_b: b.unmatched(&a),
        paired,
        adjustment: adjusted.adjustment,
    }
}

impl Comparison {
    /// `paired` when every test shared rounds, else `welch`.
    pub fn design(&self) -> Design {
        let all_paired = self.settings.iter().filter_map(|s| s.method).all(|m| m != ComparisonMethod::Welch);
        if self.paired && all_paired {
            Design::Paired
        } else {
            Design::Welch
        }
    }
}

fn samples_of<R: RecordedRun>(runs: &[R], setting: usize, config: &CompareConfig) -> Vec<RunSample> {
    runs.iter()
        .filter(|o| o.is_usable())
        .filter_map(|o| {
            let value = o.metric(&config.metric)?;
            let control = config.control.as_deref().and_then(|c| o.metric(c));
            Some(RunSample { setting, round: o.rep(), value, control })
        })
        .collect()
}

fn usable<R: RecordedRun>(runs: &[R], metric: &str) -> usize {
    runs.iter().filter(|o| o.is_usable() && o.metric(metric).is_some()).count()
}

fn mean_of<R: RecordedRun>(runs: &[R], metric: &str) -> Option<f64> {
    let values: Vec<f64> = runs.iter().filter(|o| o.is_usable()).filter_map(|o| o.metric(metric)).collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_sweep, fixture_slice_sweep_b};
    use crate::analyse::Direction;
    use crate::record::Observation;

    fn config() -> CompareConfig {
        CompareConfig {
            metric: "prefill_tokens_per_s".into(),
            direction: Direction::Higher,
            threshold: 0.02,
            alpha: 0.05,
            control: None,
        }
    }

    #[test]
    fn join_on_settings_and_flag_the_regression() {
        let comparison = compare(&fixture_slice_sweep(), &fixture_slice_sweep_b(), &config());
        assert_eq!(comparison.settings.len(), 5);
        let verdicts: Vec<Verdict> = comparison.settings.iter().map(|s| s.verdict).collect();
        use Verdict::*;
        assert_eq!(
            verdicts,
            vec![NoSignificantChange, Regressed, NoSignificantChange, NoSignificantChange, NoSignificantChange]
        );
        assert_eq!(comparison.only_a.len(), 2);
        assert_eq!(comparison.only_b, vec![fixture_slice_sweep_b().last().unwrap().setting.clone()]);
        assert!(comparison.has_significant_regression());
        assert_eq!((comparison.tests(), comparison.design()), (5, Design::Welch));
        let regressed = &comparison.settings[1];
        assert!(regressed.p_adjusted.unwrap() >= regressed.p_value.unwrap(), "Holm never lowers a p-value");
        assert!((regressed.ratio.unwrap().ratio - 0.9).abs() < 1e-3);
    }

    #[test]
    fn identical_sweeps_do_not_regress() {
        let comparison = compare(&fixture_slice_sweep(), &fixture_slice_sweep(), &config());
        assert!(!comparison.has_significant_regression());
        assert!(comparison.settings.iter().all(|s| s.p_value == Some(1.0)));
        assert!(comparison.only_a.is_empty() && comparison.only_b.is_empty());
    }

    #[test]
    fn variant_is_part_of_the_join() {
        let a = [fixture_observation(&[("rows", "1"), ("variant", "baseline")], 1, &[])];
        let b = [fixture_observation(&[("rows", "1"), ("variant", "other")], 1, &[])];
        let comparison = compare(&a, &b, &config());
        assert!(comparison.settings.is_empty());
        assert_eq!((comparison.only_a.len(), comparison.only_b.len()), (1, 1));
    }

    /// A machine 6x slower for B on everything, with drift inside each sweep that the control tracks:
    /// the control explains the change, so B is not "regressed" everywhere (it was before the control
    /// was used), and the control's own ratio is reported.
    #[test]
    fn a_slower_machine_is_not_a_regression_when_the_control_explains_it() {
        let side = |speed: f64| -> Vec<Observation> {
            let mut runs = Vec::new();
            for rep in 1..=4u32 {
                for rows in ["512", "1024"] {
                    let drift = 1.0 + 0.2 * ((rep as f64) * 1.7 + rows.len() as f64).sin();
                    let metrics = [("prefill_tokens_per_s", 1000.0 * speed * drift), ("decode", 9.0 * speed * drift)];
                    runs.push(fixture_observation(&[("rows", rows)], rep, &metrics));
                }
            }
            runs
        };
        let with_control = CompareConfig { control: Some("decode".into()), ..config() };
        let comparison = compare(&side(1.0), &side(1.0 / 6.0), &with_control);
        assert!(!comparison.has_significant_regression(), "{:?}", comparison.settings);
        assert!(comparison.settings.iter().all(|s| (s.control_ratio.unwrap() - 1.0 / 6.0).abs() < 1e-9));
        assert_eq!(comparison.control_moved().len(), 2);
        assert!(compare(&side(1.0), &side(1.0 / 6.0), &config()).has_significant_regression());
    }

    #[test]
    fn within_one_sweep_the_versions_are_paired_by_round() {
        let mut runs = Vec::new();
        for rep in 1..=3u32 {
            let drift = [1.0, 0.7, 1.2][rep as usize - 1];
            for (cann, speed) in [("8.5", 1.0), ("9.5", 0.95)] {
                for (rows, base) in [("512", 880.0), ("1024", 1140.0)] {
                    let noise = 1.0 + 0.001 * f64::from(rep) * if cann == "8.5" { 1.0 } else { -1.0 };
                    let tps = base * speed * drift * noise;
                    runs.push(fixture_observation(
                        &[("cann", cann), ("rows", rows)],
                        rep,
                        &[("prefill_tokens_per_s", tps)],
                    ));
                }
            }
        }
        let comparison = compare_within(&runs, "cann", ["8.5", "9.5"], &config(), true);
        assert_eq!(comparison.design(), Design::Paired);
        assert_eq!(comparison.settings.len(), 2);
        assert!(comparison.settings.iter().all(|s| s.verdict == Verdict::Regressed), "{:?}", comparison.settings);
        // The same runs as two unpaired sweeps: the ±25% round-to-round drift swamps the 5% change.
        let (a, b): (Vec<Observation>, Vec<Observation>) =
            runs.iter().cloned().partition(|o| o.setting_value("cann").is_some_and(|v| v.to_string() == "8.5"));
        let strip = |runs: Vec<Observation>| -> Vec<Observation> {
            runs.into_iter()
                .map(|mut o| {
                    o.setting.retain(|(name, _)| name != "cann");
                    o
                })
                .collect()
        };
        assert!(!compare(&strip(a), &strip(b), &config()).has_significant_regression());
    }
}

#[cfg(test)]
mod family_wise {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::analyse::fixtures::fixture_observation;
    use crate::analyse::Direction;
    use crate::record::Observation;

    /// One A/A side: 50 settings x 3 reps of the same truth with 1% lognormal noise, decode as control.
    fn side(rng: &mut ChaCha8Rng) -> Vec<Observation> {
        let mut normal = || -> f64 {
            let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let mut runs = Vec::new();
        for rep in 1..=3u32 {
            for setting in 0..50 {
                let value = (1000.0 + 5.0 * f64::from(setting)) * (0.01 * normal()).exp();
                let control = 10.0 * (0.01 * normal()).exp();
                let label = setting.to_string();
                runs.push(fixture_observation(&[("k", &label)], rep, &[("tps", value), ("decode", control)]));
            }
        }
        runs
    }

    /// Without Holm, 10% of A/A pairs flagged something, growing with the grid; with it, at most alpha.
    #[test]
    fn a_a_comparisons_of_50_settings_flag_anything_in_at_most_alpha_of_trials() {
        let config = CompareConfig {
            metric: "tps".into(),
            direction: Direction::Higher,
            threshold: 0.0,
            alpha: 0.05,
            control: Some("decode".into()),
        };
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let trials = 300;
        let flagged = (0..trials)
            .filter(|_| {
                let (a, b) = (side(&mut rng), side(&mut rng));
                compare(&a, &b, &config).settings.iter().any(|s| s.verdict != Verdict::NoSignificantChange)
            })
            .count();
        // Binomial(300, 0.05): mean 15, sd 3.8.
        assert!(flagged <= 26, "{flagged} of {trials} A/A trials flagged a setting");
    }
}
