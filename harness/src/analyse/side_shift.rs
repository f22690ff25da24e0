//! `SideShift`: how much of the level difference between two separate sweeps (two days, two machines) is
//! the machine's (read from the control's side means through a slope fitted on the time blocks' effects,
//! de-attenuated for the control's noise: errors in variables, Fuller 1987), and the error that level
//! difference leaves in every setting's B/A.

use super::run_sample::RunSample;
use super::sample_layout::SampleLayout;
use super::scale::Scale;
use super::setting_model::split_rounds_into_time_blocks;
use super::weighted_backfit::{RoundComponents, WeightedBackfit};
use crate::student_t::two_sided_p;

/// The machine's part of side B's level over side A's, θ Δc̄, on the primary's analysis scale, and the
/// error every setting's B/A shares through the two sides' levels.
///
/// Within each sweep the time blocks (rounds cut as the setting model cuts them) take the drift between
/// blocks out of every setting's noise, but each side's level (its settings carry it) then holds that
/// side's average drift, which the settings' own variances do not include. With a control, the level
/// between the sides comes from Δc̄, the difference of its side means (many runs, nearly noise-free),
/// times the slope θ of primary on control, fitted on the block effects of both sides (each centred on its
/// side), where a block's control is the mean of its runs. The per-run slope the setting model fits is
/// attenuated by the control's own noise (the right weight for one noisy run, not for a mean of many); the
/// block slope's residual attenuation λ = 1 − (blocks − sides) σ²_c / Σ n_b β²_c is small and corrected
/// (regression dilution, Fuller 1987). Each side's slope is fitted too: when they differ (p < 0.05) the
/// shift uses their midpoint, its variance widened by half their difference squared, so that either
/// side's slope lies within its error. The shared error is then Δc̄² Var(θ̂) + θ² Var(Δc̄) plus the block
/// effects the control does not explain, averaged over each side; without a usable control (none, or
/// blocks it does not see move beyond its noise: nothing inside the sweeps tells how the primary follows
/// it), it is the variance of each side's average block effect.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SideShift {
    /// θ / λ: the de-attenuated slope of the primary's block effects on the control's (0 without one).
    pub slope: f64,
    /// Var(θ̂ / λ), on `slope_df` df (0 df: no slope).
    pub slope_variance: f64,
    pub slope_df: f64,
    /// Each side's slope (A, B), de-attenuated alike.
    pub side_slopes: [f64; 2],
    /// The two sides' slopes differ (p < `SLOPES_DIFFER_P`): `slope` is their midpoint.
    pub slopes_differ: bool,
    /// λ.
    pub reliability: f64,
    /// Δc̄: side B's mean control over side A's, on the control's analysis scale.
    pub control_gap: f64,
    /// Var(Δc̄) = σ²_η (1/n_A + 1/n_B), σ²_η the control's own noise: its per-run residual variance after
    /// settings and blocks less the drift the primary shares (all of it without a slope).
    pub gap_variance: f64,
    /// Variance of the sides' levels from block effects left unexplained (by the control, when used).
    pub level_variance: f64,
}

/// Below this p-value of their difference the two sides' slopes are not taken for one.
pub const SLOPES_DIFFER_P: f64 = 0.05;

/// Block effects of one metric, and how many runs each block holds.
struct Rounds {
    primary: WeightedBackfit,
    control: Option<WeightedBackfit>,
    runs: Vec<f64>,
    side_of_round: Vec<usize>,
}

impl SideShift {
    /// From raw samples (the primary on `scale`, the control, when `with_control` and every run has it,
    /// on its own scale), each setting on side `side_of(setting)` (0 or 1), the sides' rounds numbered
    /// apart, cut into time blocks. None when a side has no runs.
    pub fn estimate(
        scale: Scale,
        samples: &[RunSample],
        side_of: impl Fn(usize) -> usize,
        with_control: bool,
    ) -> Option<SideShift> {
        let mut samples = samples.to_vec();
        split_rounds_into_time_blocks(&mut samples);
        let controls: Option<Vec<f64>> =
            with_control.then(|| samples.iter().map(|s| s.control).collect::<Option<_>>()).flatten();
        let layout = SampleLayout::of(&samples);
        let rounds = Rounds::fit(scale, &samples, &layout, controls.as_deref(), &side_of);
        let mut side_runs = [0.0; 2];
        samples.iter().for_each(|s| side_runs[side_of(s.setting).min(1)] += 1.0);
        if side_runs.contains(&0.0) {
            return None;
        }
        let gap = rounds.control_gap(&samples, &layout, &side_of, side_runs);
        let no_shift = || SideShift {
            reliability: 1.0,
            control_gap: gap.map_or(0.0, |g| g.gap),
            gap_variance: gap.map_or(0.0, |g| g.variance),
            level_variance: rounds.unexplained_level_variance(side_runs),
            ..SideShift::default()
        };
        Some(gap.and_then(|gap| rounds.with_slope(&layout, gap, side_runs)).unwrap_or_else(no_shift))
    }

    /// Whether a slope was fitted.
    pub fn has_slope(&self) -> bool {
        self.slope_df > 0.0
    }

    /// θ Δc̄: what side B's settings are lowered by (on the primary's analysis scale).
    pub fn shift(&self) -> f64 {
        self.slope * self.control_gap
    }

    /// Var(θ Δc̄) ≈ Δc̄² Var(θ̂) + θ² Var(Δc̄) (delta method) plus the sides' unexplained levels: one
    /// error every setting's B/A shares.
    pub fn variance(&self) -> f64 {
        self.control_gap.powi(2) * self.slope_variance + self.slope.powi(2) * self.gap_variance + self.level_variance
    }
}

impl Rounds {
    fn fit(
        scale: Scale,
        samples: &[RunSample],
        layout: &SampleLayout,
        controls: Option<&[f64]>,
        side_of: &impl Fn(usize) -> usize,
    ) -> Rounds {
        let components = RoundComponents::of(layout);
        let ones = vec![1.0; samples.len()];
        let values: Vec<f64> = samples.iter().map(|s| scale.transform(s.value)).collect();
        let control_values: Option<Vec<f64>> = controls.map(|c| {
            let control_scale = Scale::for_values(c.iter().copied());
            c.iter().map(|&v| control_scale.transform(v)).collect()
        });
        let (primary, control) = rayon::join(
            || WeightedBackfit::fit(layout, &values, &ones, Some(&components), None),
            || control_values.map(|c| WeightedBackfit::fit(layout, &c, &ones, Some(&components), None)),
        );
        let mut runs = vec![0.0; layout.rounds];
        let mut side_of_round = vec![0; layout.rounds];
        for (sample, &round) in samples.iter().zip(&layout.round_of) {
            runs[round as usize] += 1.0;
            side_of_round[round as usize] = side_of(sample.setting).min(1);
        }
        Rounds { primary, control, runs, side_of_round }
    }

    /// Σ over sides of the variance of its average round effect, the rounds taken as draws of the drift:
    /// Σ n_r β²_r / (R − 1) / n_side.
    fn unexplained_level_variance(&self, side_runs: [f64; 2]) -> f64 {
        (0..2)
            .map(|side| {
                let mut rounds = 0.0;
                let mut sum = 0.0;
                for ((&n, &effect), &s) in self.runs.iter().zip(&self.primary.round_effect).zip(&self.side_of_round) {
                    if s == side {
                        rounds += 1.0;
                        sum += n * effect * effect;
                    }
                }
                if rounds > 1.0 {
                    sum / (rounds - 1.0) / side_runs[side]
                } else {
                    0.0
                }
            })
            .sum()
    }

    /// Δc̄ and its variance σ²_c (1/n_A + 1/n_B), with σ²_c, when there is a control on every run.
    fn control_gap(
        &self,
        samples: &[RunSample],
        layout: &SampleLayout,
        side_of: &impl Fn(usize) -> usize,
        side_runs: [f64; 2],
    ) -> Option<ControlGap> {
        let control = self.control.as_ref()?;
        let free_rounds = (layout.rounds - 2.min(layout.rounds)) as f64;
        let run_df = samples.len() as f64 - layout.settings as f64 - free_rounds;
        let per_df = |sum: f64| if run_df > 0.0 { sum / run_df } else { 0.0 };
        let noise_variance = per_df(control.residuals.iter().map(|r| r * r).sum());
        let covariance = per_df(control.residuals.iter().zip(&self.primary.residuals).map(|(c, y)| c * y).sum());
        let mut side_sums = [0.0; 2];
        for (sample, &dense) in samples.iter().zip(&layout.setting_of) {
            side_sums[side_of(sample.setting).min(1)] += control.setting_effect[dense as usize];
        }
        Some(ControlGap {
            gap: side_sums[1] / side_runs[1] - side_sums[0] / side_runs[0],
            variance: noise_variance * (1.0 / side_runs[0] + 1.0 / side_runs[1]),
            noise_variance,
            covariance,
        })
    }

    /// The shift through the control's block slope, when the control's blocks move beyond its noise.
    fn with_slope(&self, layout: &SampleLayout, gap: ControlGap, side_runs: [f64; 2]) -> Option<SideShift> {
        let control = self.control.as_ref()?;
        let free_rounds = (layout.rounds - 2.min(layout.rounds)) as f64;
        let slope_df = free_rounds - 1.0;
        let weighted =
            |x: &[f64], y: &[f64]| -> f64 { self.runs.iter().zip(x).zip(y).map(|((n, a), b)| n * a * b).sum() };
        let (beta_c, beta_y) = (&control.round_effect, &self.primary.round_effect);
        let (sxx, sxy, syy) = (weighted(beta_c, beta_c), weighted(beta_c, beta_y), weighted(beta_y, beta_y));
        if slope_df < 1.0 || sxx <= 0.0 {
            return None;
        }
        // The control's residual variance holds the drift inside the blocks too, which the primary shares:
        // its noise is what the slope does not carry, σ²_c − cov(e_y, e_c) / θ, refined once from the slope
        // the whole residual variance (an upper bound of the noise) gives.
        let attenuated = sxy / sxx;
        let reliability_of = |noise: f64| (1.0 - free_rounds * noise / sxx).min(1.0);
        let first = attenuated / reliability_of(gap.noise_variance);
        let noise_variance = if first > 0.0 {
            (gap.noise_variance - gap.covariance / first).clamp(0.0, gap.noise_variance)
        } else {
            gap.noise_variance
        };
        let reliability = reliability_of(noise_variance);
        if reliability < MIN_RELIABILITY || reliability_of(gap.noise_variance) < MIN_RELIABILITY {
            return None;
        }
        let residual_variance = (syy - attenuated * sxy).max(0.0) / slope_df;
        let de_attenuated =
            |sxy: f64, sxx: f64| (sxy / sxx / reliability, residual_variance / sxx / reliability.powi(2));
        let side_slope = |side: usize| -> Option<(f64, f64)> {
            let in_side = |x: &[f64]| -> Vec<f64> {
                x.iter().zip(&self.side_of_round).map(|(v, &s)| if s == side { *v } else { 0.0 }).collect()
            };
            let (xs, ys) = (in_side(beta_c), in_side(beta_y));
            let sxx = weighted(&xs, &xs);
            (sxx > 0.0).then(|| de_attenuated(weighted(&xs, &ys), sxx))
        };
        let pooled = de_attenuated(sxy, sxx);
        let sides = side_slope(0).zip(side_slope(1));
        let differ = sides
            .filter(|((a, va), (b, vb))| two_sided_p((a - b) / (va + vb).sqrt(), slope_df - 1.0) < SLOPES_DIFFER_P);
        let (slope, slope_variance) =
            differ.map_or(pooled, |((a, va), (b, vb))| ((a + b) / 2.0, (va + vb) / 4.0 + ((a - b) / 2.0).powi(2)));
        Some(SideShift {
            slope,
            slope_variance,
            slope_df,
            side_slopes: sides.map_or([pooled.0; 2], |((a, _), (b, _))| [a, b]),
            slopes_differ: differ.is_some(),
            reliability,
            control_gap: gap.gap,
            gap_variance: noise_variance * (1.0 / side_runs[0] + 1.0 / side_runs[1]),
            level_variance: residual_variance * (1.0 / side_runs[0] + 1.0 / side_runs[1]),
        })
    }
}

/// Δc̄, its variance, the control's per-run residual variance it comes from (after settings and blocks)
/// and that residual's covariance with the primary's.
#[derive(Debug, Clone, Copy)]
struct ControlGap {
    gap: f64,
    variance: f64,
    noise_variance: f64,
    covariance: f64,
}

/// Below this reliability (the control's rounds move less than 1.4x their noise's sd: F < 2) the sides
/// had no drift to fit a slope on, and a slope divided by a small, noisy λ would move every setting's
/// B/A by more than its delta-method variance says: the control is not used.
const MIN_RELIABILITY: f64 = 0.5;

#[cfg(test)]
mod tests {
    use super::*;

    /// Two sides of 4 settings x 6 rounds; the machine drifts within each side (the control sees it, and
    /// the primary follows with slope 1); side B ran `gap` faster than A.
    fn sides(gap: f64) -> Vec<RunSample> {
        let mut samples = Vec::new();
        let mut noise = 0.37_f64;
        for side in 0..2 {
            for round in 0..6u32 {
                let drift = 0.03 * (f64::from(round) - 2.5) + if side == 1 { gap } else { 0.0 };
                for setting in 0..4 {
                    noise = (noise * 7.13 + 0.11).fract();
                    let wiggle = (noise - 0.5) * 0.002;
                    samples.push(RunSample {
                        setting: 2 * setting + side,
                        round: round + 6 * side as u32,
                        value: (f64::ln(100.0 + setting as f64) + drift + wiggle).exp(),
                        control: Some((f64::ln(50.0) + drift - wiggle).exp()),
                    });
                }
            }
        }
        samples
    }

    #[test]
    fn a_machine_faster_on_one_day_is_read_from_the_control_through_the_round_slope() {
        let shift = SideShift::estimate(Scale::Log, &sides(0.05), |s| s % 2, true).expect("a shift");
        assert!((shift.slope - 1.0).abs() < 0.05, "slope {}", shift.slope);
        assert!((shift.control_gap - 0.05).abs() < 1e-3, "gap {}", shift.control_gap);
        assert!((shift.shift() - 0.05).abs() < 3e-3, "shift {}", shift.shift());
        assert!(shift.variance() > 0.0 && shift.slope_df == 9.0);
    }

    #[test]
    fn without_a_control_on_every_run_the_sides_drift_is_shared_error_not_shift() {
        let mut samples = sides(0.0);
        samples[3].control = None;
        let shift = SideShift::estimate(Scale::Log, &samples, |s| s % 2, true).expect("levels");
        assert_eq!((shift.shift(), shift.has_slope()), (0.0, false));
        // Rounds drift by 3% a step: each side's average round effect, taking its 6 rounds as draws, has
        // the variance of their effects (Σ n β² / (R − 1)) over the side's 24 runs.
        let per_side = 0.03_f64.powi(2) * 17.5 * 4.0 / 5.0 / 24.0;
        assert!((shift.variance() / (2.0 * per_side) - 1.0).abs() < 0.05, "variance {}", shift.variance());
    }
}
