//! Whether the settings themselves move the control metric: then it cannot tell machine drift from a
//! setting's effect, and adjusting by it would move the verdicts.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use super::sample_layout::SampleLayout;
use super::weighted_backfit::{RoundComponents, WeightedBackfit};

/// The F-test of control ~ setting + round against control ~ group + round: do settings of one group
/// (which the verdicts compare) differ in the control beyond its run-to-run noise?
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlMove {
    pub metric: String,
    /// F on (`df_settings`, `df_residual`) degrees of freedom, and its p-value.
    pub f: f64,
    pub df_settings: f64,
    pub df_residual: f64,
    pub p_value: f64,
    /// The largest difference of the control between two settings of one group, relative (0.1 = 10%)
    /// when the control is compared on the log scale, else in its unit.
    pub largest_shift: f64,
    /// That difference in units of the control's residual standard deviation.
    pub shift_in_noise: f64,
}

/// Below this p-value the settings are taken to move the control. Deliberately lenient: a control taken
/// for unmoved when it moves biases every adjusted mean (the study's decode path would mislead the
/// slice verdicts), while one set aside when it does not move only costs the variance it would remove.
pub const CONTROL_MOVE_P: f64 = 0.05;

impl ControlMove {
    /// Tests the control (its values on their analysis scale fitted by setting and round over the
    /// `included` samples of `layout`: `full`) for setting differences within groups (`group_of[setting]`,
    /// dense), rounds as blocks when `rounds` is given. None when no group has two settings or there are no
    /// residual degrees of freedom.
    pub fn test(
        metric: &str,
        layout: &SampleLayout,
        full: &WeightedBackfit,
        included: &[f64],
        group_of: &[usize],
        rounds: Option<&RoundComponents>,
        log_scale: bool,
    ) -> Option<ControlMove> {
        let groups = group_of.iter().copied().max().map_or(0, |g| g + 1);
        let mut runs = vec![0.0; layout.settings];
        for (&setting, &w) in layout.setting_of.iter().zip(included) {
            runs[setting as usize] += w;
        }
        let ss_full: f64 = full.residuals.iter().zip(included).map(|(r, w)| w * r * r).sum();
        let (ss_settings, largest) = within_groups(&full.setting_effect, &runs, group_of, groups);
        let n: f64 = runs.iter().sum();
        let round_params = rounds.map_or(0.0, |r| (layout.rounds - r.count) as f64);
        let df_settings = (layout.settings as f64 - groups as f64).max(0.0);
        let df_residual = n - layout.settings as f64 - round_params;
        if df_settings < 1.0 || df_residual < 1.0 {
            return None;
        }
        let noise = (ss_full / df_residual).sqrt();
        let f = if ss_full > 0.0 { ss_settings / df_settings / (ss_full / df_residual) } else { 0.0 };
        let p_value = if ss_full > 0.0 {
            FisherSnedecor::new(df_settings, df_residual).map_or(1.0, |dist| dist.sf(f))
        } else if largest > 0.0 {
            0.0
        } else {
            1.0
        };
        Some(ControlMove {
            metric: metric.to_string(),
            f,
            df_settings,
            df_residual,
            p_value,
            largest_shift: if log_scale { largest.exp() - 1.0 } else { largest },
            shift_in_noise: if noise > 0.0 { largest / noise } else { f64::INFINITY },
        })
    }

    /// The settings move the control (`CONTROL_MOVE_P`).
    pub fn is_moved(&self) -> bool {
        self.p_value < CONTROL_MOVE_P
    }
}

/// Σₛ nₛ (μ̂ₛ − μ̄_group)²: the setting sum of squares within groups, from the setting effects of the
/// setting + round fit (the extra sum of squares of settings over groups, exact when every setting ran
/// in every round, and close to it for the few missing runs of a race); and the largest difference
/// between two settings' effects within one group.
fn within_groups(effects: &[f64], runs: &[f64], group_of: &[usize], groups: usize) -> (f64, f64) {
    let mut sums = vec![(0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY); groups];
    for ((&effect, n), &group) in effects.iter().zip(runs).zip(group_of) {
        let (sum, total, low, high) = &mut sums[group];
        (*sum, *total) = (*sum + n * effect, *total + n);
        (*low, *high) = (low.min(effect), high.max(effect));
    }
    let spread = effects.iter().zip(runs).zip(group_of).map(|((effect, n), &group)| {
        let (sum, total, ..) = sums[group];
        n * (effect - sum / total).powi(2)
    });
    let ranges = sums.iter().filter(|(.., low, high)| high >= low).map(|(.., low, high)| high - low);
    (spread.sum(), ranges.fold(0.0, f64::max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::run_sample::RunSample;

    /// Two groups of two settings over 4 rounds; setting 1 has the control `shift` above its group partner.
    fn sweep(shift: f64) -> (SampleLayout, Vec<f64>) {
        let noise = [0.3, -0.2, 0.1, -0.25, 0.15, 0.05, -0.1, 0.2];
        let mut samples = Vec::new();
        let mut controls = Vec::new();
        for round in 1..=4u32 {
            for setting in 0..4usize {
                samples.push(RunSample { setting, round, value: 0.0, control: None });
                let level = if setting >= 2 { 50.0 } else { 10.0 } + if setting == 1 { shift } else { 0.0 };
                controls.push(level + f64::from(round) + noise[(setting + 2 * round as usize) % 8]);
            }
        }
        (SampleLayout::of(&samples), controls)
    }

    fn moved(
        layout: &SampleLayout,
        controls: &[f64],
        group_of: &[usize],
        rounds: Option<&RoundComponents>,
    ) -> Option<ControlMove> {
        let included = vec![1.0; controls.len()];
        let full = WeightedBackfit::fit(layout, controls, &included, rounds, None);
        ControlMove::test("decode", layout, &full, &included, group_of, rounds, false)
    }

    #[test]
    fn a_setting_that_moves_the_control_is_found_and_group_levels_are_not_a_move() {
        let (layout, controls) = sweep(3.0);
        let rounds = RoundComponents::of(&layout);
        let test = moved(&layout, &controls, &[0, 0, 1, 1], Some(&rounds)).unwrap();
        assert!(test.is_moved() && test.p_value < 1e-4, "{test:?}");
        assert!((test.largest_shift - 3.0).abs() < 0.5, "{test:?}");
        assert_eq!((test.df_settings, test.df_residual), (2.0, 16.0 - 4.0 - 3.0));
        // Without the shift the groups still differ by 40 (rows move decode): that is not a move.
        let (layout, controls) = sweep(0.0);
        let test = moved(&layout, &controls, &[0, 0, 1, 1], Some(&rounds)).unwrap();
        assert!(!test.is_moved(), "{test:?}");
    }

    #[test]
    fn one_setting_per_group_cannot_be_tested() {
        let (layout, controls) = sweep(3.0);
        assert!(moved(&layout, &controls, &[0, 1, 2, 3], None).is_none());
    }
}
