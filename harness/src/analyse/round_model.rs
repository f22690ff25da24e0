//! The additive model of an interleaved sweep, value = setting effect + round effect + noise, whose
//! residual variance gives every paired comparison its degrees of freedom.

use std::collections::BTreeMap;

use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::run_sample::RunSample;

/// Residual variance of the additive setting + round model over every usable run of a sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundModel {
    /// σ̂² = SS_residual / df.
    pub variance: f64,
    /// N − S − R + 1 (runs, settings, rounds), less one per covariate already fitted.
    pub df: f64,
    /// Bartlett's test of equal residual variance across settings: its p-value (None below two settings
    /// with residual variance). Pooling is only used when the variances are compatible.
    pub homogeneity_p: Option<f64>,
}

/// Below this Bartlett p-value the settings' variances are taken to differ, and comparisons fall back
/// to each pair's own variance.
pub const HETEROGENEITY_P: f64 = 0.01;

impl RoundModel {
    /// Least-squares fit of yₛᵣ = μₛ + βᵣ + ε by backfitting (alternating the two sets of means until
    /// they stop moving; exact for balanced rounds, and the least-squares fit of the connected unbalanced
    /// designs racing leaves). `covariates` is the number of parameters fitted to these values before
    /// (1 after a control adjustment), taken from the degrees of freedom. None without residual df.
    pub fn fit(samples: &[RunSample], covariates: usize) -> Option<RoundModel> {
        let settings = distinct(samples.iter().map(|s| s.setting as u64));
        let rounds = distinct(samples.iter().map(|s| u64::from(s.round)));
        let df = samples.len() as f64 - settings as f64 - rounds as f64 + 1.0 - covariates as f64;
        if df < 1.0 {
            return None;
        }
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        let residuals = additive_residuals(samples, &values, true);
        let residual_ss: f64 = residuals.iter().map(|r| r * r).sum();
        let homogeneity_p = bartlett_p(samples, &residuals, df);
        Some(RoundModel { variance: residual_ss / df, df, homogeneity_p })
    }

    /// Whether the pooled variance may stand for every setting's.
    pub fn is_homogeneous(&self) -> bool {
        self.homogeneity_p.is_none_or(|p| p >= HETEROGENEITY_P)
    }
}

fn distinct(keys: impl Iterator<Item = u64>) -> usize {
    keys.collect::<std::collections::BTreeSet<_>>().len()
}

/// Residuals of `values` (one per sample) after the setting means, and with `by_round` also the round
/// effects, are taken out: vₛᵣ − μ̂ₛ − β̂ᵣ, alternating the two sets of means to convergence. The means
/// are indexed densely (a million-run sweep iterates over arrays, not maps); each is summed in sample
/// order, so the result does not depend on the indexing.
pub fn additive_residuals(samples: &[RunSample], values: &[f64], by_round: bool) -> Vec<f64> {
    let (setting_of, settings) = dense(samples.iter().map(|s| s.setting as u64));
    let (round_of, rounds) = dense(samples.iter().map(|s| u64::from(s.round)));
    let mut setting_effect: Option<Vec<f64>> = None;
    let mut round_effect: Option<Vec<f64>> = None;
    for _ in 0..1000 {
        let round_of_sample = |i: usize| round_effect.as_ref().map_or(0.0, |effect| effect[round_of[i]]);
        let new_settings = mean_by(&setting_of, settings, |i| values[i] - round_of_sample(i));
        let new_rounds = by_round.then(|| mean_by(&round_of, rounds, |i| values[i] - new_settings[setting_of[i]]));
        let moved = largest_change(setting_effect.as_deref(), &new_settings)
            .max(largest_change(round_effect.as_deref(), new_rounds.as_deref().unwrap_or_default()));
        (setting_effect, round_effect) = (Some(new_settings), new_rounds);
        if moved < 1e-13 {
            break;
        }
    }
    let setting_effect = setting_effect.expect("the loop runs at least once");
    let round_of_sample = |i: usize| round_effect.as_ref().map_or(0.0, |effect| effect[round_of[i]]);
    (0..samples.len()).map(|i| values[i] - setting_effect[setting_of[i]] - round_of_sample(i)).collect()
}

/// Each key's index among the distinct keys in ascending order, and how many distinct keys there are.
/// Keys are setting indices and round numbers, small and dense, so a lookup table serves (a sorted
/// map only when they are sparse).
fn dense(keys: impl Iterator<Item = u64> + Clone) -> (Vec<usize>, usize) {
    let (count, max) = keys.clone().fold((0usize, 0u64), |(n, max), key| (n + 1, max.max(key)));
    if (max as usize) <= count.saturating_mul(4) {
        let mut index = vec![usize::MAX; max as usize + 1];
        keys.clone().for_each(|key| index[key as usize] = 0);
        let mut distinct = 0;
        for slot in index.iter_mut().filter(|slot| **slot == 0) {
            *slot = distinct;
            distinct += 1;
        }
        return (keys.map(|key| index[key as usize]).collect(), distinct);
    }
    let distinct: BTreeMap<u64, usize> =
        keys.clone().collect::<std::collections::BTreeSet<_>>().into_iter().enumerate().map(|(i, k)| (k, i)).collect();
    (keys.map(|key| distinct[&key]).collect(), distinct.len())
}

/// The mean of `value(i)` over the samples `i` of each key (every key has a sample).
fn mean_by(key_of: &[usize], keys: usize, value: impl Fn(usize) -> f64) -> Vec<f64> {
    let mut sums = vec![(0.0, 0.0); keys];
    for (i, &key) in key_of.iter().enumerate() {
        sums[key].0 += value(i);
        sums[key].1 += 1.0;
    }
    sums.into_iter().map(|(sum, n)| sum / n).collect()
}

/// The largest move of any mean since the last iteration (infinite on the first).
fn largest_change(old: Option<&[f64]>, new: &[f64]) -> f64 {
    new.iter().enumerate().map(|(k, v)| (v - old.map_or(f64::INFINITY, |old| old[k])).abs()).fold(0.0, f64::max)
}

/// Bartlett's (1937) test of equal variances over the settings' residuals, each setting given a share
/// of the residual df in proportion to its runs (the model's residuals are not independent samples, so
/// this is an approximation: it flags settings several times noisier than the rest, which is its job
/// here). T = (ν ln s²ₚ − Σ νᵢ ln sᵢ²) / (1 + (Σ 1/νᵢ − 1/ν) / (3(k − 1))) against χ²(k − 1).
fn bartlett_p(samples: &[RunSample], residuals: &[f64], df: f64) -> Option<f64> {
    let mut per_setting: BTreeMap<usize, (f64, f64)> = BTreeMap::new();
    for (sample, residual) in samples.iter().zip(residuals) {
        let entry = per_setting.entry(sample.setting).or_default();
        entry.0 += residual * residual;
        entry.1 += 1.0;
    }
    let share = df / samples.len() as f64;
    let groups: Vec<(f64, f64)> =
        per_setting.values().map(|(ss, n)| (n * share, ss / (n * share))).filter(|(nu, _)| *nu > 0.0).collect();
    if groups.len() < 2 {
        return None;
    }
    if groups.iter().any(|(_, variance)| *variance <= 0.0) {
        // A noiseless setting beside noisy ones is as unequal as variances get; all noiseless is equal.
        return Some(if groups.iter().all(|(_, v)| *v <= 0.0) { 1.0 } else { 0.0 });
    }
    let k = groups.len() as f64;
    let nu: f64 = groups.iter().map(|(nu, _)| nu).sum();
    let pooled = groups.iter().map(|(nu, v)| nu * v).sum::<f64>() / nu;
    let statistic = nu * pooled.ln() - groups.iter().map(|(nu, v)| nu * v.ln()).sum::<f64>();
    let correction = 1.0 + (groups.iter().map(|(nu, _)| 1.0 / nu).sum::<f64>() - 1.0 / nu) / (3.0 * (k - 1.0));
    let chi = ChiSquared::new(k - 1.0).ok()?;
    Some(chi.sf(statistic / correction))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(table: &[[f64; 3]]) -> Vec<RunSample> {
        let mut out = Vec::new();
        for (setting, row) in table.iter().enumerate() {
            for (round, value) in row.iter().enumerate() {
                out.push(RunSample { setting, round: round as u32 + 1, value: *value, control: None });
            }
        }
        out
    }

    #[test]
    fn balanced_two_way_anova_by_hand() {
        // Rows are settings, columns rounds. Grand mean 5; setting means 2, 5, 8; round means 4, 5, 6.
        // Residuals y − ȳₛ. − ȳ.ᵣ + ȳ..: row 1 (1,2,3) → (0,0,0); row 2 (3,5,7) → (−1,0,1); row 3 (8,8,8) → (1,0,−1).
        // SS = 4 on df = 9 − 3 − 3 + 1 = 4: σ̂² = 1.
        let model = RoundModel::fit(&samples(&[[1.0, 2.0, 3.0], [3.0, 5.0, 7.0], [8.0, 8.0, 8.0]]), 0).unwrap();
        assert_eq!(model.df, 4.0);
        assert!((model.variance - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_shift_shared_by_a_round_is_not_noise() {
        // Round 2 is 10 slower for every setting: the round effect absorbs it entirely.
        let model = RoundModel::fit(&samples(&[[1.0, 11.0, 1.0], [5.0, 15.0, 5.0]]), 0).unwrap();
        assert!(model.variance.abs() < 1e-20);
    }

    #[test]
    fn covariates_cost_degrees_of_freedom_and_one_round_has_none() {
        let data = samples(&[[1.0, 2.0, 3.0], [3.0, 5.0, 7.0], [8.0, 8.0, 8.0]]);
        assert_eq!(RoundModel::fit(&data, 1).unwrap().df, 3.0);
        let single: Vec<RunSample> = data.into_iter().filter(|s| s.round == 1).collect();
        assert!(RoundModel::fit(&single, 0).is_none());
    }

    #[test]
    fn unbalanced_rounds_still_fit_the_additive_model_exactly() {
        // An exactly additive table (setting + round) with setting 2 missing round 3, as racing leaves it.
        let mut data = samples(&[[1.0, 2.0, 4.0], [3.0, 4.0, 6.0], [10.0, 11.0, 13.0]]);
        data.retain(|s| !(s.setting == 2 && s.round == 3));
        let model = RoundModel::fit(&data, 0).unwrap();
        assert_eq!(model.df, 8.0 - 3.0 - 3.0 + 1.0);
        assert!(model.variance < 1e-20, "{}", model.variance);
    }

    #[test]
    fn bartlett_flags_a_setting_far_noisier_than_the_rest() {
        // Ten settings over five rounds with the same ±1 pattern; one of them swings ±30.
        let pattern = [1.0, -1.0, 0.5, -0.5, 0.0];
        let table: Vec<Vec<f64>> = (0..10)
            .map(|s| {
                let amplitude = if s == 0 { 30.0 } else { 1.0 };
                (0..5).map(|r| 10.0 + amplitude * pattern[(r + s) % 5]).collect()
            })
            .collect();
        let to_samples = |table: &[Vec<f64>]| -> Vec<RunSample> {
            let mut out = Vec::new();
            for (setting, row) in table.iter().enumerate() {
                for (round, value) in row.iter().enumerate() {
                    out.push(RunSample { setting, round: round as u32 + 1, value: *value, control: None });
                }
            }
            out
        };
        let model = RoundModel::fit(&to_samples(&table), 0).unwrap();
        assert!(!model.is_homogeneous(), "{:?}", model.homogeneity_p);
        let even: Vec<Vec<f64>> = (0..10).map(|s| (0..5).map(|r| 10.0 + pattern[(r + s) % 5]).collect()).collect();
        assert!(RoundModel::fit(&to_samples(&even), 0).unwrap().is_homogeneous());
    }
}
