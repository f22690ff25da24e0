//! Stragglers: runs far slower than their setting's other runs and their round predict (a node that
//! paged, a daemon that woke), or far faster (a run that skipped work), found before any mean is taken
//! so that one of them cannot move a verdict. The screen is two-sided: a leave-one-out moderated t
//! (Smyth 2004) on median polish residuals (Tukey 1977), at a false-alarm rate split between the sides.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use super::grouped::Grouped;
use super::run_sample::RunSample;
use super::sample_layout::SampleLayout;
use super::summary_stats::median_in_place;
use crate::student_t::two_sided_critical;

/// One run the fit leaves out (weight 0): kept in the CSV, named in the summary and the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Straggler {
    /// Index of the run among the analysed samples.
    #[serde(skip)]
    pub sample: usize,
    /// Index into the sweep's settings.
    #[serde(skip)]
    pub setting: usize,
    /// The round (rep) it ran in.
    pub rep: u32,
    /// Slower or faster than its setting's other runs predict.
    pub side: StragglerSide,
    /// How many times slower than its setting's other runs in their rounds predict (e.g. 2.7); below 1 on
    /// the fast side (0.6: 1.67x faster), so that the number alone reads right.
    pub slowdown: f64,
    /// Its studentised deviation from them.
    pub t: f64,
    /// Its deviation from them on the analysis scale (signed as the values are): where its setting would
    /// stand if this run were the right one.
    #[serde(skip)]
    pub shift: f64,
}

/// Which way a straggler is off its setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StragglerSide {
    /// A node that paged, a daemon that woke.
    Slow,
    /// Too fast to be the same work: did it skip some?
    Fast,
}

/// Prior degrees of freedom given to the sweep-wide robust scale when a setting's own other runs are
/// few: a straggler must stand out against both.
const SCALE_PRIOR_DF: f64 = 4.0;

/// The screen's error rate over all runs of a sweep, both sides together (half each): a run of
/// well-behaved noise is called a straggler in about one sweep in a thousand.
const FALSE_STRAGGLER_RATE: f64 = 1e-3;

/// The side a straggler is on: slower is a lower throughput (`Higher` is better) or a longer time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowSide {
    Low,
    High,
}

impl SlowSide {
    /// +1 when slower is a higher value, −1 when it is a lower one.
    fn sign(self) -> f64 {
        match self {
            SlowSide::Low => -1.0,
            SlowSide::High => 1.0,
        }
    }
}

impl Straggler {
    /// Runs beyond the screen, at most one per setting per pass, three passes. A run's deviation is its
    /// residual from a robust two-way start (Tukey's median polish of value over setting and round)
    /// less the mean residual of its setting's other runs; its scale combines the sweep's robust scale
    /// (1.4826 · MAD of all residuals, on `SCALE_PRIOR_DF` df) with the spread of those other runs, as
    /// a moderated variance does (Smyth 2004). A run is a straggler when that studentised deviation
    /// (external, leave-one-out) lies beyond the t quantile at 1 − 0.0005/N on either side (N runs: the
    /// sweep's false-alarm rate 1e-3 split evenly between slow and fast). `values` are on the analysis
    /// scale (log for positive metrics: a slowdown is a ratio).
    pub fn screen(
        layout: &SampleLayout,
        samples: &[RunSample],
        blocks: bool,
        slow: SlowSide,
        log_scale: bool,
    ) -> Vec<Straggler> {
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        let largest = values.iter().map(|v| v.abs()).fold(0.0, f64::max);
        let mut excluded = vec![false; values.len()];
        let mut found = Vec::new();
        for _ in 0..3 {
            let by_setting = Grouped::of(&layout.setting_of, layout.settings, &excluded);
            let residuals = median_polish(layout, &values, &excluded, &by_setting, blocks);
            let setting_sums = by_setting.sums(&residuals);
            let scale = robust_scale(&by_setting, &residuals, &setting_sums);
            // Noise at the last digits of the values (an exactly additive table) is no noise at all.
            if scale.is_nan() || scale <= 1e-12 * (1.0 + largest) {
                break;
            }
            let new = worst_per_setting(&by_setting, &setting_sums, &residuals, scale, slow);
            if new.is_empty() {
                break;
            }
            for (sample, shift, t) in new {
                excluded[sample] = true;
                let RunSample { setting, round: rep, .. } = samples[sample];
                found.push(Straggler::at(sample, setting, rep, shift, t, slow, log_scale));
            }
        }
        found
    }

    /// A straggler from its signed deviation `shift` on the analysis scale.
    fn at(sample: usize, setting: usize, rep: u32, shift: f64, t: f64, slow: SlowSide, log_scale: bool) -> Straggler {
        let slower = shift * slow.sign() > 0.0;
        let times = if log_scale { shift.abs().exp() } else { 1.0 + shift.abs() };
        let (side, slowdown) = if slower { (StragglerSide::Slow, times) } else { (StragglerSide::Fast, 1.0 / times) };
        Straggler { sample, setting, rep, side, slowdown, t, shift }
    }
}

/// One pass of the screen over a sweep's residuals (robust `scale`): per setting, its most extreme run
/// if it passes the screen, as (sample, deviation, t). The error rate is per run screened, half per side.
/// Of two runs the deviations mirror each other and the screen cannot say which is off: the slower is
/// the one set aside, a straggler being the commoner fault, and whether that choice decides a verdict is
/// the verdicts' question (`SettingModel::odd_runs`).
fn worst_per_setting(
    by_setting: &Grouped,
    sums: &[(f64, f64)],
    residuals: &[f64],
    scale: f64,
    slow: SlowSide,
) -> Vec<(usize, f64, f64)> {
    let alpha = FALSE_STRAGGLER_RATE / by_setting.len().max(1) as f64;
    // The t quantile by a setting's run count: computed once per count, not once per setting.
    let mut critical_by_runs: BTreeMap<usize, f64> = BTreeMap::new();
    let mut found = Vec::new();
    for (members, &(sum, sum_sq)) in by_setting.groups().zip(sums) {
        if members.len() < 2 {
            continue;
        }
        let n = members.len() as f64;
        let critical = *critical_by_runs
            .entry(members.len())
            .or_insert_with(|| two_sided_critical(1.0 - alpha, SCALE_PRIOR_DF + n - 2.0).unwrap_or(f64::INFINITY));
        let mut best: Option<(usize, f64, f64)> = None;
        for &i in members {
            let residual = residuals[i as usize];
            let others_mean = (sum - residual) / (n - 1.0);
            let deviation = residual - others_mean;
            if members.len() == 2 && deviation * slow.sign() <= 0.0 {
                continue;
            }
            let others_ss = (sum_sq - residual * residual) - (n - 1.0) * others_mean * others_mean;
            let variance = (SCALE_PRIOR_DF * scale * scale + others_ss.max(0.0)) / (SCALE_PRIOR_DF + n - 2.0);
            let t = deviation.abs() / (variance * (1.0 + 1.0 / (n - 1.0))).sqrt();
            if t > critical && best.is_none_or(|(_, _, t_best)| t > t_best) {
                best = Some((i as usize, deviation, t));
            }
        }
        found.extend(best);
    }
    found
}

/// The sweep's robust noise scale: 1.4826 · the median absolute leave-one-out deviation of the included
/// runs (each run's residual less the mean of its setting's other runs, scaled by √(1 + 1/(n − 1)) to
/// the noise's σ): consistent at the normal, unmoved by a few gross stragglers, and unlike the median
/// polish residuals themselves not shrunk by the medians that fit some runs exactly.
fn robust_scale(by_setting: &Grouped, residuals: &[f64], sums: &[(f64, f64)]) -> f64 {
    let mut deviations: Vec<f64> = Vec::with_capacity(by_setting.len());
    for (members, &(sum, _)) in by_setting.groups().zip(sums).filter(|(m, _)| m.len() >= 2) {
        let n = members.len() as f64;
        let inflation = (1.0 + 1.0 / (n - 1.0)).sqrt();
        deviations.extend(members.iter().map(|&i| {
            let residual = residuals[i as usize];
            (residual - (sum - residual) / (n - 1.0)).abs() / inflation
        }));
    }
    if deviations.is_empty() {
        return 0.0;
    }
    1.4826 * median_in_place(&mut deviations)
}

/// Residuals of one sweep of Tukey's median polish (setting medians, then round medians of what is left,
/// then setting medians again: enough for a start that no straggler moves), excluded samples ignored in
/// the medians but given residuals.
fn median_polish(
    layout: &SampleLayout,
    values: &[f64],
    excluded: &[bool],
    by_setting: &Grouped,
    blocks: bool,
) -> Vec<f64> {
    let mut residuals = values.to_vec();
    subtract_group_medians(&mut residuals, &layout.setting_of, by_setting);
    if blocks {
        let by_round = Grouped::of(&layout.round_of, layout.rounds, excluded);
        subtract_group_medians(&mut residuals, &layout.round_of, &by_round);
        subtract_group_medians(&mut residuals, &layout.setting_of, by_setting);
    }
    residuals
}

/// Each group's median taken off its members, the groups on every core (a million-run sweep's settings
/// hold fifty thousand runs each).
fn subtract_group_medians(residuals: &mut [f64], key_of: &[u32], groups: &Grouped) {
    let values: &[f64] = residuals;
    let medians: Vec<f64> = groups
        .par_groups()
        .with_min_len(64)
        .map_init(Vec::new, |scratch, members| {
            scratch.clear();
            scratch.extend(members.iter().map(|&i| values[i as usize]));
            if scratch.is_empty() {
                0.0
            } else {
                median_in_place(scratch)
            }
        })
        .collect();
    residuals.par_iter_mut().zip(key_of).with_min_len(1 << 14).for_each(|(residual, &key)| {
        *residual -= medians[key as usize];
    });
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// `settings` x `rounds` log values: setting s at level s/10, round r shifted by r/100, normal noise of
    /// sd `noise[s]`.
    fn sweep(noise: &[f64], rounds: u32, seed: u64) -> (SampleLayout, Vec<RunSample>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut samples = Vec::new();
        for round in 1..=rounds {
            for (setting, sd) in noise.iter().enumerate() {
                let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
                let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
                let value = setting as f64 / 10.0 + f64::from(round) / 100.0 + sd * z;
                samples.push(RunSample { setting, round, value, control: None });
            }
        }
        (SampleLayout::of(&samples), samples)
    }

    #[test]
    fn a_run_three_times_slower_is_found_and_measured() {
        let (layout, mut samples) = sweep(&[0.01; 20], 3, 1);
        samples[25].value -= 3f64.ln(); // setting 5, round 2: a third of the throughput
        let found = Straggler::screen(&layout, &samples, true, SlowSide::Low, true);
        assert_eq!(found.iter().map(|s| (s.sample, s.setting, s.rep)).collect::<Vec<_>>(), [(25, 5, 2)]);
        assert!((found[0].slowdown - 3.0).abs() < 0.1, "{found:?}");
        assert_eq!(found[0].side, StragglerSide::Slow);
    }

    #[test]
    fn a_run_that_skipped_work_is_found_on_the_fast_side() {
        let (layout, mut samples) = sweep(&[0.01; 20], 3, 1);
        samples[25].value += 1.5f64.ln(); // setting 5, round 2: 1.5x the throughput
        let found = Straggler::screen(&layout, &samples, true, SlowSide::Low, true);
        assert_eq!(found.iter().map(|s| (s.sample, s.side)).collect::<Vec<_>>(), [(25, StragglerSide::Fast)]);
        assert!((1.0 / found[0].slowdown - 1.5).abs() < 0.05, "{found:?}");
        assert!((found[0].shift - 1.5f64.ln()).abs() < 0.05, "{found:?}");
        // A time 1.5x shorter is the same run on a lower-is-better metric.
        samples[25].value -= 2.0 * 1.5f64.ln();
        let found = Straggler::screen(&layout, &samples, true, SlowSide::High, true);
        assert_eq!(found.iter().map(|s| (s.sample, s.side)).collect::<Vec<_>>(), [(25, StragglerSide::Fast)]);
    }

    #[test]
    fn of_two_runs_only_the_slower_is_a_straggler() {
        let (layout, mut samples) = sweep(&[0.01; 10], 2, 2);
        samples[13].value += 2f64.ln(); // a time 2x longer
        let found = Straggler::screen(&layout, &samples, true, SlowSide::High, true);
        assert_eq!(found.iter().map(|s| s.sample).collect::<Vec<_>>(), [13]);
    }

    #[test]
    fn a_noisy_setting_is_not_a_straggler_factory() {
        // One setting of twenty 4x noisier than the rest (4% vs 1%), over 500 seeded sweeps of 3 rounds: its
        // runs are noisy, not stragglers (on either side); a sweep of well-behaved noise almost never has one
        // either.
        let mut noise = [0.01; 20];
        noise[3] = 0.04;
        noise[7] = 0.005;
        let false_alarms: usize = (0..500)
            .map(|seed| {
                let (layout, samples) = sweep(&noise, 3, 100 + seed);
                Straggler::screen(&layout, &samples, true, SlowSide::Low, true).len()
            })
            .sum();
        assert!(false_alarms <= 5, "{false_alarms} false stragglers in 500 sweeps");
    }

    #[test]
    fn constant_data_has_no_stragglers() {
        let (layout, samples) = sweep(&[0.0; 4], 3, 3);
        assert!(Straggler::screen(&layout, &samples, true, SlowSide::Low, true).is_empty());
    }
}
