//! Weighted least squares of the additive model value = setting effect + round effect, by backfitting over
//! dense arrays: the fit every robust iteration of `SettingModel` repeats.

use rayon::prelude::*;

use super::sample_layout::SampleLayout;

/// The weighted least-squares fit of yᵢ = μₛ₍ᵢ₎ + βᵣ₍ᵢ₎ + εᵢ (rounds only when they are blocks).
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedBackfit {
    /// μₛ per setting: the setting's level at the average round of its rounds' component.
    pub setting_effect: Vec<f64>,
    /// βᵣ per round, centred within each component of connected rounds (empty without blocks).
    pub round_effect: Vec<f64>,
    /// yᵢ − μₛ − βᵣ per sample.
    pub residuals: Vec<f64>,
}

/// Which rounds are connected through shared settings, so that their effects can be told apart from the
/// settings': the rounds of two separate sweeps compared side by side are two components, each centred
/// on its own (a level shared by a whole side stays in its settings' effects).
#[derive(Debug, Clone, PartialEq)]
pub struct RoundComponents {
    pub component_of: Vec<u32>,
    pub count: usize,
}

impl RoundComponents {
    /// Connected components of the bipartite graph of settings and the rounds they ran in (union-find).
    pub fn of(layout: &SampleLayout) -> RoundComponents {
        let mut parent: Vec<u32> = (0..(layout.settings + layout.rounds) as u32).collect();
        fn root(parent: &mut [u32], mut node: u32) -> u32 {
            while parent[node as usize] != node {
                parent[node as usize] = parent[parent[node as usize] as usize];
                node = parent[node as usize];
            }
            node
        }
        for (&setting, &round) in layout.setting_of.iter().zip(&layout.round_of) {
            let (a, b) = (root(&mut parent, setting), root(&mut parent, layout.settings as u32 + round));
            if a != b {
                parent[a as usize] = b;
            }
        }
        let mut label = vec![u32::MAX; parent.len()];
        let mut count = 0;
        let component_of = (0..layout.rounds as u32)
            .map(|round| {
                let top = root(&mut parent, layout.settings as u32 + round) as usize;
                if label[top] == u32::MAX {
                    label[top] = count;
                    count += 1;
                }
                label[top]
            })
            .collect();
        RoundComponents { component_of, count: count as usize }
    }
}

/// Backfitting stops when no effect moves by more than this: on log values a billionth of the metric,
/// far below any reported digit and below the standard error of any mean a sweep can measure.
const TOLERANCE: f64 = 1e-9;
const MAX_SWEEPS: usize = 500;

/// Below this many samples a pass runs on one core; above, on every core in chunks of it.
const PARALLEL_CHUNK: usize = 1 << 16;

/// Sums over more keys than this (a million-run sweep's rounds) are split into `WIDE_PARTS` parts only:
/// every part zeroes and adds a whole vector of them.
const PARALLEL_KEYS: usize = 1 << 12;
const WIDE_PARTS: usize = 4;

impl WeightedBackfit {
    /// Minimises Σ wᵢ (yᵢ − μₛ − βᵣ)² by alternating the weighted setting means and round means of the
    /// partial residuals (block coordinate descent on a convex quadratic: exact in one sweep for balanced
    /// data and equal weights, a few sweeps otherwise). `start` warms the effects from an earlier fit. A
    /// setting or round whose samples all have weight 0 keeps effect 0 (its residuals are its raw
    /// deviations). Without `rounds`, the fit is the weighted setting means.
    pub fn fit(
        layout: &SampleLayout,
        values: &[f64],
        weights: &[f64],
        rounds: Option<&RoundComponents>,
        start: Option<&WeightedBackfit>,
    ) -> WeightedBackfit {
        let (setting_weight, round_weight) = weight_sums(layout, weights, rounds.is_some());
        let mut setting_effect = start.map_or_else(|| vec![0.0; layout.settings], |s| s.setting_effect.clone());
        let mut round_effect = match (rounds, start) {
            (Some(_), Some(s)) if s.round_effect.len() == layout.rounds => s.round_effect.clone(),
            (Some(_), _) => vec![0.0; layout.rounds],
            (None, _) => Vec::new(),
        };
        for sweep in 0..MAX_SWEEPS {
            let others = (!round_effect.is_empty()).then_some((layout.round_of.as_slice(), round_effect.as_slice()));
            let sums = partial_sums(&layout.setting_of, layout.settings, values, weights, others);
            let new_settings = divide(sums, &setting_weight);
            let mut moved = largest_change(&setting_effect, &new_settings);
            setting_effect = new_settings;
            // The round effects are a function of the settings': unmoved settings leave them where they are.
            if moved < TOLERANCE && sweep > 0 {
                break;
            }
            if let (Some(components), Some(round_weight)) = (rounds, &round_weight) {
                let others = Some((layout.setting_of.as_slice(), setting_effect.as_slice()));
                let sums = partial_sums(&layout.round_of, layout.rounds, values, weights, others);
                let mut new_rounds = divide(sums, round_weight);
                centre(&mut new_rounds, components);
                moved = moved.max(largest_change(&round_effect, &new_rounds));
                round_effect = new_rounds;
            }
            if moved < TOLERANCE {
                break;
            }
        }
        let residuals = residuals(layout, values, &setting_effect, &round_effect);
        WeightedBackfit { setting_effect, round_effect, residuals }
    }
}

/// Σ wᵢ (yᵢ − other[other_keyᵢ]) over the samples of each key (the partial residuals of one factor with
/// the other's effects taken out), on every core for a large sweep: in chunks of `PARALLEL_CHUNK`, or for
/// many keys (a million-run sweep's rounds) in `WIDE_PARTS` parts, each a vector of them. The parts are
/// fixed, not one per core, so the sums' last digits do not depend on the machine.
fn partial_sums(
    keys: &[u32],
    count: usize,
    values: &[f64],
    weights: &[f64],
    others: Option<(&[u32], &[f64])>,
) -> Vec<f64> {
    let part = |range: std::ops::Range<usize>| {
        let mut sums = vec![0.0; count];
        let (keys, values, weights) = (&keys[range.clone()], &values[range.clone()], &weights[range.clone()]);
        match others {
            Some((other_keys, effects)) => {
                for (((&key, &value), &weight), &other) in keys.iter().zip(values).zip(weights).zip(&other_keys[range])
                {
                    sums[key as usize] += weight * (value - effects[other as usize]);
                }
            }
            None => {
                for ((&key, &value), &weight) in keys.iter().zip(values).zip(weights) {
                    sums[key as usize] += weight * value;
                }
            }
        }
        sums
    };
    if keys.len() < 2 * PARALLEL_CHUNK {
        return part(0..keys.len());
    }
    let chunk = if count > PARALLEL_KEYS { keys.len().div_ceil(WIDE_PARTS) } else { PARALLEL_CHUNK };
    let chunks: Vec<Vec<f64>> = (0..keys.len().div_ceil(chunk))
        .into_par_iter()
        .map(|index| part(index * chunk..((index + 1) * chunk).min(keys.len())))
        .collect();
    let mut total = vec![0.0; count];
    for chunk in chunks {
        total.iter_mut().zip(chunk).for_each(|(t, c)| *t += c);
    }
    total
}

/// Σ wᵢ per setting, and per round when rounds are blocks, in one pass.
fn weight_sums(layout: &SampleLayout, weights: &[f64], by_round: bool) -> (Vec<f64>, Option<Vec<f64>>) {
    let mut settings = vec![0.0; layout.settings];
    let mut rounds = vec![0.0; if by_round { layout.rounds } else { 0 }];
    for ((&setting, &round), &weight) in layout.setting_of.iter().zip(&layout.round_of).zip(weights) {
        settings[setting as usize] += weight;
        if by_round {
            rounds[round as usize] += weight;
        }
    }
    (settings, by_round.then_some(rounds))
}

/// yᵢ − μₛ − βᵣ for every sample, on every core for a large sweep.
fn residuals(layout: &SampleLayout, values: &[f64], setting_effect: &[f64], round_effect: &[f64]) -> Vec<f64> {
    let rows = values.par_iter().zip(&layout.setting_of).zip(&layout.round_of).with_min_len(PARALLEL_CHUNK);
    rows.map(|((value, &setting), &round)| {
        let round = if round_effect.is_empty() { 0.0 } else { round_effect[round as usize] };
        value - setting_effect[setting as usize] - round
    })
    .collect()
}

/// Each weighted sum over its key's weight (0 for a key without weight).
fn divide(sums: Vec<f64>, weights: &[f64]) -> Vec<f64> {
    sums.into_iter().zip(weights).map(|(sum, &weight)| if weight > 0.0 { sum / weight } else { 0.0 }).collect()
}

/// Round effects less their component's mean, so the settings' effects carry each component's level.
fn centre(round_effect: &mut [f64], components: &RoundComponents) {
    let mut sums = vec![(0.0, 0.0); components.count];
    for (effect, &component) in round_effect.iter().zip(&components.component_of) {
        let sum: &mut (f64, f64) = &mut sums[component as usize];
        sum.0 += effect;
        sum.1 += 1.0;
    }
    for (effect, &component) in round_effect.iter_mut().zip(&components.component_of) {
        let (sum, n) = sums[component as usize];
        *effect -= sum / n;
    }
}

fn largest_change(old: &[f64], new: &[f64]) -> f64 {
    old.iter().zip(new).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::run_sample::RunSample;

    fn layout_of(cells: &[(usize, u32)]) -> SampleLayout {
        let samples: Vec<RunSample> =
            cells.iter().map(|&(setting, round)| RunSample { setting, round, value: 0.0, control: None }).collect();
        SampleLayout::of(&samples)
    }

    #[test]
    fn balanced_two_way_by_hand() {
        // Settings are rows, rounds columns: (1, 2, 3), (3, 5, 7), (8, 8, 8). Round means 4, 5, 6 centred to
        // −1, 0, 1; setting effects are the row means 2, 5, 8; residuals as in a two-way ANOVA.
        let cells: Vec<(usize, u32)> = (0..3).flat_map(|s| (1..=3).map(move |r| (s, r))).collect();
        let layout = layout_of(&cells);
        let values = [1.0, 2.0, 3.0, 3.0, 5.0, 7.0, 8.0, 8.0, 8.0];
        let components = RoundComponents::of(&layout);
        let fit = WeightedBackfit::fit(&layout, &values, &[1.0; 9], Some(&components), None);
        assert!(fit.setting_effect.iter().zip([2.0, 5.0, 8.0]).all(|(a, b)| (a - b).abs() < 1e-9), "{fit:?}");
        assert!(fit.round_effect.iter().zip([-1.0, 0.0, 1.0]).all(|(a, b)| (a - b).abs() < 1e-9), "{fit:?}");
        let expected = [0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0];
        assert!(fit.residuals.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-9), "{fit:?}");
    }

    #[test]
    fn zero_weight_samples_do_not_move_the_fit() {
        // The third sample of setting 0 is a straggler with weight 0: setting 0's effect is the mean of the rest.
        let layout = layout_of(&[(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]);
        let values = [1.0, 1.0, 100.0, 2.0, 2.0, 2.0];
        let fit = WeightedBackfit::fit(&layout, &values, &[1.0, 1.0, 0.0, 1.0, 1.0, 1.0], None, None);
        assert_eq!(fit.setting_effect, [1.0, 2.0]);
        assert_eq!(fit.residuals[2], 99.0);
    }

    #[test]
    fn two_sweeps_side_by_side_are_two_components_each_centred() {
        // Setting 0 ran in rounds 1-2, setting 1 in rounds 3-4: nothing connects them, so each side keeps its
        // level (10 and 20) in its setting effect and its rounds centre on zero.
        let layout = layout_of(&[(0, 1), (0, 2), (1, 3), (1, 4)]);
        let components = RoundComponents::of(&layout);
        assert_eq!(components.count, 2);
        let fit = WeightedBackfit::fit(&layout, &[9.0, 11.0, 19.0, 21.0], &[1.0; 4], Some(&components), None);
        assert!((fit.setting_effect[0] - 10.0).abs() < 1e-9 && (fit.setting_effect[1] - 20.0).abs() < 1e-9);
        assert!(fit.residuals.iter().all(|r| r.abs() < 1e-9), "{fit:?}");
    }

    #[test]
    fn unbalanced_rounds_fit_an_additive_table_exactly() {
        // setting + round exactly, setting 2 missing round 3 (as racing leaves it).
        let mut cells = Vec::new();
        let mut values = Vec::new();
        for (s, level) in [0.0, 2.0, 9.0].into_iter().enumerate() {
            for (r, shift) in [1.0, 2.0, 4.0].into_iter().enumerate() {
                if !(s == 2 && r == 2) {
                    cells.push((s, r as u32 + 1));
                    values.push(level + shift);
                }
            }
        }
        let layout = layout_of(&cells);
        let components = RoundComponents::of(&layout);
        let fit = WeightedBackfit::fit(&layout, &values, &vec![1.0; values.len()], Some(&components), None);
        assert!(fit.residuals.iter().all(|r| r.abs() < 1e-9), "{fit:?}");
        assert!((fit.setting_effect[2] - fit.setting_effect[0] - 9.0).abs() < 1e-9);
    }
}
