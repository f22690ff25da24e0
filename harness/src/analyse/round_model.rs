//! The additive model of an interleaved sweep, value = setting effect + round effect + noise, whose
//! residual variance gives every paired comparison its degrees of freedom.

use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::run_sample::RunSample;
use super::sample_layout::SampleLayout;

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
    /// designs racing leaves), `layout` being the samples'. None without residual df.
    pub fn fit(samples: &[RunSample], layout: &SampleLayout) -> Option<RoundModel> {
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        RoundModel::of_residuals(layout, &additive_residuals(layout, &values, true), 0)
    }

    /// The model whose residuals (one per sample of `layout`) are given: those of values a control
    /// adjustment already fitted with the round as a factor (`ControlAdjustment::fit_and_apply`).
    /// `covariates` is the number of parameters fitted to the values besides the setting and round
    /// effects (1 after a control adjustment), taken from the degrees of freedom.
    pub fn of_residuals(layout: &SampleLayout, residuals: &[f64], covariates: usize) -> Option<RoundModel> {
        let df = residuals.len() as f64 - layout.settings as f64 - layout.rounds as f64 + 1.0 - covariates as f64;
        if df < 1.0 {
            return None;
        }
        let residual_ss: f64 = residuals.iter().map(|r| r * r).sum();
        let homogeneity_p = bartlett_p(layout, residuals, df);
        Some(RoundModel { variance: residual_ss / df, df, homogeneity_p })
    }

    /// Whether the pooled variance may stand for every setting's.
    pub fn is_homogeneous(&self) -> bool {
        self.homogeneity_p.is_none_or(|p| p >= HETEROGENEITY_P)
    }
}

/// Residuals of `values` (one per sample of `layout`) after the setting means, and with `by_round` also
/// the round effects, are taken out: vₛᵣ − μ̂ₛ − β̂ᵣ, alternating the two sets of means to convergence.
/// The means are indexed densely (a million-run sweep iterates over arrays, not maps); each is summed in
/// sample order, so the result does not depend on the indexing.
pub fn additive_residuals(layout: &SampleLayout, values: &[f64], by_round: bool) -> Vec<f64> {
    let SampleLayout { setting_of, settings, round_of, rounds } = layout;
    let (settings, rounds) = (*settings, *rounds);
    let mut setting_effect: Option<Vec<f64>> = None;
    let mut round_effect: Option<Vec<f64>> = None;
    for _ in 0..1000 {
        let round_of_sample = |i: usize| round_effect.as_ref().map_or(0.0, |effect| effect[round_of[i] as usize]);
        let new_settings = mean_by(setting_of, settings, |i| values[i] - round_of_sample(i));
        let new_rounds =
            by_round.then(|| mean_by(round_of, rounds, |i| values[i] - new_settings[setting_of[i] as usize]));
        let moved = largest_change(setting_effect.as_deref(), &new_settings)
            .max(largest_change(round_effect.as_deref(), new_rounds.as_deref().unwrap_or_default()));
        (setting_effect, round_effect) = (Some(new_settings), new_rounds);
        if moved < 1e-13 {
            break;
        }
    }
    let setting_effect = setting_effect.expect("the loop runs at least once");
    let round_of_sample = |i: usize| round_effect.as_ref().map_or(0.0, |effect| effect[round_of[i] as usize]);
    (0..values.len()).map(|i| values[i] - setting_effect[setting_of[i] as usize] - round_of_sample(i)).collect()
}

/// The mean of `value(i)` over the samples `i` of each key (every key has a sample).
fn mean_by(key_of: &[u32], keys: usize, value: impl Fn(usize) -> f64) -> Vec<f64> {
    let mut sums = vec![(0.0, 0.0); keys];
    for (i, &key) in key_of.iter().enumerate() {
        let sum: &mut (f64, f64) = &mut sums[key as usize];
        sum.0 += value(i);
        sum.1 += 1.0;
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
fn bartlett_p(layout: &SampleLayout, residuals: &[f64], df: f64) -> Option<f64> {
    let mut per_setting = vec![(0.0, 0.0); layout.settings];
    for (&setting, residual) in layout.setting_of.iter().zip(residuals) {
        let entry: &mut (f64, f64) = &mut per_setting[setting as usize];
        entry.0 += residual * residual;
        entry.1 += 1.0;
    }
    let share = df / residuals.len() as f64;
    let groups: Vec<(f64, f64)> =
        per_setting.iter().map(|(ss, n)| (n * share, ss / (n * share))).filter(|(nu, _)| *nu > 0.0).collect();
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

    fn fitted(samples: &[RunSample]) -> Option<RoundModel> {
        RoundModel::fit(samples, &SampleLayout::of(samples))
    }

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
        let model = fitted(&samples(&[[1.0, 2.0, 3.0], [3.0, 5.0, 7.0], [8.0, 8.0, 8.0]])).unwrap();
        assert_eq!(model.df, 4.0);
        assert!((model.variance - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_shift_shared_by_a_round_is_not_noise() {
        // Round 2 is 10 slower for every setting: the round effect absorbs it entirely.
        let model = fitted(&samples(&[[1.0, 11.0, 1.0], [5.0, 15.0, 5.0]])).unwrap();
        assert!(model.variance.abs() < 1e-20);
    }

    #[test]
    fn covariates_cost_degrees_of_freedom_and_one_round_has_none() {
        let data = samples(&[[1.0, 2.0, 3.0], [3.0, 5.0, 7.0], [8.0, 8.0, 8.0]]);
        let layout = SampleLayout::of(&data);
        let values: Vec<f64> = data.iter().map(|s| s.value).collect();
        let residuals = additive_residuals(&layout, &values, true);
        assert_eq!(RoundModel::of_residuals(&layout, &residuals, 1).unwrap().df, 3.0);
        let single: Vec<RunSample> = data.into_iter().filter(|s| s.round == 1).collect();
        assert!(fitted(&single).is_none());
    }

    #[test]
    fn unbalanced_rounds_still_fit_the_additive_model_exactly() {
        // An exactly additive table (setting + round) with setting 2 missing round 3, as racing leaves it.
        let mut data = samples(&[[1.0, 2.0, 4.0], [3.0, 4.0, 6.0], [10.0, 11.0, 13.0]]);
        data.retain(|s| !(s.setting == 2 && s.round == 3));
        let model = fitted(&data).unwrap();
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
        let model = fitted(&to_samples(&table)).unwrap();
        assert!(!model.is_homogeneous(), "{:?}", model.homogeneity_p);
        let even: Vec<Vec<f64>> = (0..10).map(|s| (0..5).map(|r| 10.0 + pattern[(r + s) % 5]).collect()).collect();
        assert!(fitted(&to_samples(&even)).unwrap().is_homogeneous());
    }
}
