//! Best setting per group, decided the way the interleaved design allows: rounds as blocks, drift
//! removed by the control metric, family-wise error controlled over every comparison made.

use std::collections::BTreeMap;

use super::adjusted_samples::AdjustedSamples;
use super::comparison_method::ComparisonMethod;
use super::control_adjustment::ControlAdjustment;
use super::group_verdict::{GroupVerdict, Rival};
use super::holm::holm_adjust;
use super::rival_comparison::RivalComparison;
use super::round_model::RoundModel;
use super::run_sample::RunSample;
use super::scale::Scale;
use super::setting_summary::{Labels, SettingSummary};
use crate::record::RecordedRun;
use crate::spec::{AnalysisConfig, Direction};

/// Every group's verdict and what they rest on.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdicts {
    /// The family-wise error rate; a race spends `alpha / looks` at each of its analyses.
    pub alpha: f64,
    pub looks: u32,
    pub negligible: Option<f64>,
    pub scale: Scale,
    /// Rounds were compared as blocks (interleaved order).
    pub paired: bool,
    /// The drift removed by the control metric, when it could be fitted.
    pub adjustment: Option<ControlAdjustment>,
    /// The additive setting + round model (paired designs with residual degrees of freedom).
    pub model: Option<RoundModel>,
    /// How many comparisons the Holm correction covers.
    pub tests: usize,
    pub groups: Vec<GroupVerdict>,
}

impl Verdicts {
    /// Decide every group of `settings` (grouped by `config.group_by`; settings without the primary
    /// metric take no part):
    /// 1. values on the log scale when all are positive (effects are ratios), else as they are;
    /// 2. the control metric as a covariate (`ControlAdjustment`, CUPED) when declared;
    /// 3. the best setting is the best adjusted mean; each rival is compared with it within rounds
    ///    when `rounds_are_blocks` (paired; pooled residual variance of the round model when the
    ///    settings' variances are homogeneous), else by Welch's test (`AdjustedSamples::compare`);
    /// 4. Holm's correction over all comparisons of the sweep; a rival is beaten when its adjusted
    ///    p-value is below alpha, and a practical tie when two one-sided tests put it within
    ///    `negligible` of the best.
    pub fn decide<R: RecordedRun>(
        observations: &[R],
        settings: &[SettingSummary],
        config: &AnalysisConfig,
        rounds_are_blocks: bool,
    ) -> Verdicts {
        let groups = group_members(settings, &config.primary, &config.group_by);
        let mut group_of = vec![usize::MAX; settings.len()];
        for (index, (_, members)) in groups.iter().enumerate() {
            members.iter().for_each(|&m| group_of[m] = index);
        }
        let control = config.control.as_deref();
        let mut samples = RunSample::collect(observations, settings, &config.primary, control);
        samples.retain(|sample| group_of[sample.setting] != usize::MAX);
        let adjusted = AdjustedSamples::new(samples, settings.len(), &group_of, control, rounds_are_blocks);
        let direction = config.direction;
        let bests: Vec<usize> = groups.iter().map(|(_, members)| best_of(members, &adjusted, direction)).collect();
        let comparisons: Vec<Vec<(usize, Option<RivalComparison>)>> = groups
            .iter()
            .zip(&bests)
            .map(|((_, members), &best)| {
                members.iter().filter(|&&m| m != best).map(|&m| (m, adjusted.compare(m, best))).collect()
            })
            .collect();
        let p_values: Vec<f64> = comparisons.iter().flatten().filter_map(|(_, c)| c.map(|c| c.p_value())).collect();
        let mut holm = holm_adjust(&p_values).into_iter();
        let judge = Judge { config, adjusted: &adjusted };
        let groups = groups
            .into_iter()
            .zip(comparisons)
            .zip(bests)
            .map(|(((labels, _), rivals), best)| {
                let best_mean = settings[best].metric(&config.primary).map_or(1.0, |s| s.mean);
                let rivals = rivals
                    .into_iter()
                    .map(|(setting, comparison)| {
                        let p_adjusted = comparison.map(|_| holm.next().expect("one adjusted p per test"));
                        judge.rival(setting, comparison, p_adjusted, best_mean)
                    })
                    .collect();
                GroupVerdict::new(labels, best, rivals)
            })
            .collect();
        Verdicts {
            alpha: config.alpha,
            looks: config.looks.unwrap_or(1),
            negligible: config.negligible,
            scale: adjusted.scale,
            paired: rounds_are_blocks,
            tests: p_values.len(),
            adjustment: adjusted.adjustment,
            model: adjusted.model,
            groups,
        }
    }

    /// The comparison method most rivals were judged by, for the header.
    pub fn method(&self) -> ComparisonMethod {
        let methods = self.groups.iter().flat_map(|g| &g.rivals).filter_map(|r| r.comparison.map(|c| c.method));
        let mut counts: BTreeMap<u8, (usize, ComparisonMethod)> = BTreeMap::new();
        for method in methods {
            counts.entry(method as u8).or_insert((0, method)).0 += 1;
        }
        let fallback = if self.paired { ComparisonMethod::Paired } else { ComparisonMethod::Welch };
        counts.into_values().max_by_key(|(count, _)| *count).map_or(fallback, |(_, method)| method)
    }

    /// Settings that still need runs to reach a verdict (racing): the best and undecided rivals of
    /// every undecided group.
    pub fn racing(&self) -> Vec<usize> {
        let mut racing: Vec<usize> = self.groups.iter().flat_map(GroupVerdict::racing).collect();
        racing.sort_unstable();
        racing
    }
}

/// Turns a comparison into a rival's verdict.
struct Judge<'a> {
    config: &'a AnalysisConfig,
    adjusted: &'a AdjustedSamples,
}

impl Judge<'_> {
    fn rival(
        &self,
        setting: usize,
        comparison: Option<RivalComparison>,
        p_adjusted: Option<f64>,
        best_mean: f64,
    ) -> Rival {
        let losing_side = comparison.is_some_and(|c| self.config.direction.is_better(0.0, c.estimate));
        let beaten = losing_side && p_adjusted.is_some_and(|p| p < self.config.alpha_per_look());
        let equivalent = match (comparison, self.config.negligible) {
            (Some(c), Some(share)) => {
                c.is_within(self.adjusted.scale.margin(share, best_mean), self.config.equivalence_alpha())
            }
            _ => false,
        };
        let ratio = comparison.map(|c| self.adjusted.ratio(&c, best_mean));
        Rival { setting, comparison, ratio, p_adjusted, beaten, equivalent }
    }
}

/// Per group (first-seen order), its labels and member settings that have the primary metric.
fn group_members(settings: &[SettingSummary], primary: &str, group_by: &[String]) -> Vec<(Labels, Vec<usize>)> {
    let mut groups: Vec<(Labels, Vec<usize>)> = Vec::new();
    for (index, summary) in settings.iter().enumerate().filter(|(_, s)| s.metric(primary).is_some()) {
        let group = summary.labels_of(group_by);
        match groups.iter_mut().find(|(known, _)| *known == group) {
            Some((_, members)) => members.push(index),
            None => groups.push((group, vec![index])),
        }
    }
    groups
}

/// The member with the best adjusted mean (ties keep the first).
fn best_of(members: &[usize], adjusted: &AdjustedSamples, direction: Direction) -> usize {
    members
        .iter()
        .copied()
        .reduce(
            |best, candidate| {
                if direction.is_better(adjusted.mean(candidate), adjusted.mean(best)) {
                    candidate
                } else {
                    best
                }
            },
        )
        .expect("a group has at least one member")
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_config};
    use crate::analyse::group_verdict::GroupOutcome;
    use crate::record::Observation;

    /// A simulated interleaved sweep whose truth is known: per (rows, slices) a true throughput,
    /// multiplied per run by a drift shared by everything run at that moment (a sine of amplitude
    /// `drift` over the run order) and by independent 1% lognormal noise; decode (the control) sees
    /// the same drift and its own 1% noise.
    fn simulated_sweep(truth: &[(&str, &str, f64)], reps: u32, seed: u64, drift: f64) -> Vec<Observation> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut normal = move || -> f64 {
            // Box–Muller.
            let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let mut observations = Vec::new();
        let mut order = 0.0f64;
        for rep in 1..=reps {
            for (rows, slices, tps) in truth {
                order += 1.0;
                let speed = 1.0 + drift * (order / 5.0).sin();
                let prefill = tps * speed * (0.01 * normal()).exp();
                let decode = 9.0 * speed * (0.01 * normal()).exp();
                let metrics = [("prefill_tokens_per_s", prefill), ("decode_tokens_per_s", decode)];
                observations.push(fixture_observation(&[("rows", rows), ("slices", slices)], rep, &metrics));
            }
        }
        observations
    }

    /// Two groups: at 512 rows slices=1 beats 2 by 5% and 4 by 50%; at 4096 rows 2 and 4 truly tie.
    const TRUTH: [(&str, &str, f64); 6] = [
        ("512", "1", 880.0),
        ("512", "2", 838.0),
        ("512", "4", 440.0),
        ("4096", "1", 1150.0),
        ("4096", "2", 1265.0),
        ("4096", "4", 1265.0),
    ];

    fn verdicts(observations: &[Observation], paired: bool) -> Verdicts {
        let config = AnalysisConfig { equivalence_key: None, ..fixture_slice_config() };
        let settings = SettingSummary::summarise(observations);
        Verdicts::decide(observations, &settings, &config, paired)
    }

    fn slices(observations: &[Observation], verdicts: &Verdicts, group: usize) -> String {
        let settings = SettingSummary::summarise(observations);
        settings[verdicts.groups[group].best].setting[1].1.to_string()
    }

    /// (resolved clear groups, wrong bests, true ties reported resolved) over 200 seeded sweeps.
    fn tally(drift: f64) -> (usize, usize, usize) {
        let (mut resolved_clear, mut wrong, mut false_resolved_tie) = (0, 0, 0);
        for seed in 0..200 {
            let observations = simulated_sweep(&TRUTH, 3, seed, drift);
            let verdicts = verdicts(&observations, true);
            if verdicts.groups[0].outcome == GroupOutcome::Resolved {
                resolved_clear += 1;
                wrong += usize::from(slices(&observations, &verdicts, 0) != "1");
            }
            false_resolved_tie += usize::from(verdicts.groups[1].outcome == GroupOutcome::Resolved);
            wrong += usize::from(slices(&observations, &verdicts, 1) == "1");
        }
        (resolved_clear, wrong, false_resolved_tie)
    }

    #[test]
    fn paired_verdicts_are_right_and_decisive_over_200_seeded_sweeps() {
        let (resolved, wrong, false_ties) = tally(0.0);
        assert_eq!(wrong, 0);
        assert!(resolved >= 190, "the 5% winner was resolved in only {resolved} of 200 sweeps");
        assert!(false_ties <= 16, "the true tie was resolved in {false_ties} of 200 sweeps");
    }

    #[test]
    fn paired_verdicts_stay_decisive_under_a_15_percent_drift() {
        let (resolved, wrong, false_ties) = tally(0.15);
        assert_eq!(wrong, 0);
        assert!(resolved >= 180, "the 5% winner was resolved in only {resolved} of 200 sweeps");
        assert!(false_ties <= 16, "the true tie was resolved in {false_ties} of 200 sweeps");
    }

    #[test]
    fn the_tie_test_keeps_its_level_with_and_without_the_control() {
        // 2000 sweeps of the true tie: the raw (unadjusted) test must reject at about alpha = 5%
        // (binomial sd 0.5%: allow 3.5%..6.5%), the covariate's estimated slope included.
        for (control, drift) in [(true, 0.0), (false, 0.0), (true, 0.15)] {
            let rejections = (0..2000)
                .filter(|&seed| {
                    let observations = simulated_sweep(&TRUTH, 3, seed, drift);
                    let mut config = AnalysisConfig { equivalence_key: None, ..fixture_slice_config() };
                    config.control = control.then_some(config.control).flatten();
                    let settings = SettingSummary::summarise(&observations);
                    let verdicts = Verdicts::decide(&observations, &settings, &config, true);
                    let tie =
                        verdicts.groups[1].rivals.iter().find(|r| settings[r.setting].setting[1].1.to_string() != "1");
                    tie.and_then(|r| r.comparison).is_some_and(|c| c.p_value() < 0.05)
                })
                .count();
            assert!((70..=130).contains(&rejections), "control {control}, drift {drift}: {rejections} of 2000");
        }
    }

    #[test]
    fn without_pairing_the_same_drift_leaves_the_five_percent_winner_undecided_more_often() {
        let count = |paired: bool| {
            (0..100)
                .filter(|&seed| {
                    let observations = simulated_sweep(&TRUTH, 3, seed, 0.15);
                    verdicts(&observations, paired).groups[0].outcome == GroupOutcome::Resolved
                })
                .count()
        };
        let (paired, welch) = (count(true), count(false));
        assert!(paired > welch, "paired {paired} vs welch {welch}");
    }

    #[test]
    fn a_declared_negligible_margin_decides_a_true_tie() {
        let config = AnalysisConfig { negligible: Some(0.03), equivalence_key: None, ..fixture_slice_config() };
        let observations = simulated_sweep(&TRUTH, 8, 7, 0.15);
        let settings = SettingSummary::summarise(&observations);
        let verdicts = Verdicts::decide(&observations, &settings, &config, true);
        let tie = &verdicts.groups[1];
        assert_eq!(tie.outcome, GroupOutcome::Tied);
        assert!(tie.is_decided(), "{tie:?}");
    }

    #[test]
    fn one_rep_cannot_tell() {
        let observations = simulated_sweep(&TRUTH, 1, 1, 0.15);
        let verdicts = verdicts(&observations, true);
        assert!(verdicts.groups.iter().all(|g| g.outcome == GroupOutcome::CannotTell));
        assert_eq!(verdicts.tests, 0);
    }
}
