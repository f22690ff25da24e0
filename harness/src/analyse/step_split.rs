//! `split_blocks_at_steps`: a time block the machine stepped inside (its level shifted part-way through
//! the block) is split at the step, so block effects absorb the shift instead of the control's noise.

use super::run_sample::RunSample;
use super::sample_layout::SampleLayout;
use super::summary_stats::median_in_place;
use super::weighted_backfit::{RoundComponents, WeightedBackfit};

/// How many standard errors apart the two sides' medians must be for a block's best split to be a step:
/// far beyond what the blocks' few dozen candidate splits reach by chance (a split that is not a step only
/// costs a degree of freedom, but one made on noise would also fit it).
const STEP_T: f64 = 5.0;
/// Fewest runs on either side of a split.
const SIDE_RUNS: usize = 2;

/// Splits each block (`RunSample::round`, laid out in `layout` and grouped by `rounds`) at most once,
/// where in file order (the order the runs ran) the machine's level steps: one change point by binary
/// segmentation (Scott & Knott 1974), found where the two sides' means differ most among the splits whose
/// sides' medians differ by more than `STEP_T` standard errors (medians, so a straggler is not a step).
/// The level is the residual of `probe` (the control, else the primary, per sample) after the
/// settings' and blocks' effects (least squares, `WeightedBackfit`); its scale is the MAD of successive
/// differences over the whole sweep, which a step or a straggler barely moves. Samples of weight 0 in
/// `included` (stragglers) take no part and stay in the block part they ran in. Whether a block was split.
pub(super) fn split_blocks_at_steps(
    samples: &mut [RunSample],
    probe: &[f64],
    layout: &SampleLayout,
    rounds: &RoundComponents,
    included: &[f64],
) -> bool {
    let level = WeightedBackfit::fit(layout, probe, included, Some(rounds), None).residuals;
    let kept: Vec<usize> = (0..samples.len()).filter(|&index| included[index] > 0.0).collect();
    let Some(scale) = successive_difference_scale(&kept.iter().map(|&i| level[i]).collect::<Vec<_>>()) else {
        return false;
    };
    let mut blocks: Vec<Vec<usize>> = vec![Vec::new(); layout.rounds];
    kept.iter().for_each(|&index| blocks[layout.round_of[index] as usize].push(index));
    let mut next = samples.iter().map(|s| s.round).max().unwrap_or(0);
    let mut split_any = false;
    for members in blocks {
        if let Some(split) = step_in(&members.iter().map(|&i| level[i]).collect::<Vec<_>>(), scale) {
            next += 1;
            let after = members[split];
            // Samples set aside between the two sides stay on the side they ran on.
            let block = samples[after].round;
            samples[after..].iter_mut().filter(|s| s.round == block).for_each(|s| s.round = next);
            split_any = true;
        }
    }
    split_any
}

fn plain_median(values: &[f64]) -> f64 {
    median_in_place(&mut values.to_vec())
}

/// A side's level as a step test reads it: its median, or for a side of two runs the one nearer
/// `other` (the other side's level), so that one straggler beside a block's edge is not a step.
fn robust_level(values: &[f64], other: f64) -> f64 {
    if values.len() >= 3 {
        return plain_median(values);
    }
    values.iter().copied().min_by(|a, b| (a - other).abs().total_cmp(&(b - other).abs())).unwrap_or(other)
}

/// σ of one value from the MAD of successive differences (1.4826 MAD / √2); `None` when it is zero.
fn successive_difference_scale(level: &[f64]) -> Option<f64> {
    let mut differences: Vec<f64> = level.windows(2).map(|pair| pair[1] - pair[0]).collect();
    if differences.is_empty() {
        return None;
    }
    let centre = median_in_place(&mut differences);
    let mut deviations: Vec<f64> = differences.iter().map(|d| (d - centre).abs()).collect();
    let scale = 1.4826 * median_in_place(&mut deviations) / std::f64::consts::SQRT_2;
    (scale > 0.0).then_some(scale)
}

/// Where `level` (one block, file order) steps: among the splits whose two sides' medians are more than
/// `STEP_T` standard errors apart (a median's variance taken as π/2 σ²/n), the one whose sides' means are
/// the most standard errors apart.
fn step_in(level: &[f64], scale: f64) -> Option<usize> {
    let n = level.len();
    let error = |split: usize| scale * (1.0 / split as f64 + 1.0 / (n - split) as f64).sqrt();
    let median_t = |split: usize| {
        let (before, after) = (&level[..split], &level[split..]);
        let gap = robust_level(before, plain_median(after)) - robust_level(after, plain_median(before));
        gap.abs() / (error(split) * std::f64::consts::FRAC_PI_2.sqrt())
    };
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let mean_t = |split: usize| (mean(&level[..split]) - mean(&level[split..])).abs() / error(split);
    (SIDE_RUNS..=n.saturating_sub(SIDE_RUNS))
        .filter(|&split| median_t(split) > STEP_T)
        .map(|split| (split, mean_t(split)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(split, _)| split)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{seq::SliceRandom, Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Three shuffled rounds of twenty settings in 10-run time blocks (1% noise), the machine `shift`
    /// slower from run `at` on and run 5 a straggler of `straggler`: each run's block after splitting.
    fn blocks_after(at: usize, shift: f64, straggler: f64) -> Vec<u32> {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut samples = Vec::new();
        for round in 0..3u32 {
            let mut order: Vec<usize> = (0..20).collect();
            order.shuffle(&mut rng);
            for (position, setting) in order.into_iter().enumerate() {
                let k = samples.len();
                let value = 0.01 * setting as f64
                    + 0.01 * (rng.random::<f64>() - 0.5) * 3.46
                    + if k >= at { shift } else { 0.0 }
                    + if k == 5 { straggler } else { 0.0 };
                samples.push(RunSample { setting, round: round * 2 + (position / 10) as u32, value, control: None });
            }
        }
        let layout = SampleLayout::of(&samples);
        let rounds = RoundComponents::of(&layout);
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        split_blocks_at_steps(&mut samples, &values, &layout, &rounds, &[1.0; 60]);
        samples.iter().map(|s| s.round).collect()
    }

    fn time_blocks() -> Vec<u32> {
        (0..60).map(|k| (k / 10) as u32).collect()
    }

    /// The machine 15% slower from run 25, inside the third block: that block is split there, no other.
    #[test]
    fn a_step_inside_a_block_splits_it_there() {
        let mut expected = time_blocks();
        expected[25..30].iter_mut().for_each(|block| *block = 6);
        assert_eq!(blocks_after(25, -0.15, 0.0), expected);
    }

    /// Noise, one straggler and a step on a block's edge are not steps inside a block.
    #[test]
    fn noise_a_straggler_and_a_step_between_blocks_leave_the_blocks_alone() {
        assert_eq!(blocks_after(60, 0.0, 0.0), time_blocks());
        assert_eq!(blocks_after(60, 0.0, -1.0), time_blocks());
        assert_eq!(blocks_after(30, -0.15, 0.0), time_blocks());
    }
}
