//! `split_blocks_at_steps`: a time block the machine stepped inside (its level shifted part-way through
//! the block) is split at the step, so block effects absorb the shift instead of the control's noise.

use rayon::prelude::*;

use super::grouped::Grouped;
use super::run_sample::RunSample;
use super::sample_layout::SampleLayout;
use super::summary_stats::median_in_place;

/// How many standard errors apart the two sides' medians must be for a block's best split to be a step:
/// far beyond what the blocks' few dozen candidate splits reach by chance (a split that is not a step only
/// costs a degree of freedom, but one made on noise would also fit it).
const STEP_T: f64 = 5.0;
/// Fewest runs on either side of a split.
const SIDE_RUNS: usize = 2;

/// Splits each block (`RunSample::round`, laid out in `layout`) at most once,
/// where in file order (the order the runs ran) the machine's level steps: one change point by binary
/// segmentation (Scott & Knott 1974), found where the two sides' means differ most among the splits whose
/// sides' medians differ by more than `STEP_T` standard errors (medians, so a straggler is not a step).
/// The `level` is the caller's residual of a probe (the control, else the primary, per sample) after
/// the settings' and blocks' effects (least squares, `WeightedBackfit`); its scale is the MAD of successive
/// differences over the whole sweep, which a step or a straggler barely moves. Samples of weight 0 in
/// `included` (stragglers) take no part and stay in the block part they ran in. Whether a block was split.
pub(super) fn split_blocks_at_steps(
    samples: &mut [RunSample],
    level: &[f64],
    layout: &SampleLayout,
    included: &[f64],
) -> bool {
    let kept = level.iter().zip(included).filter(|(_, &weight)| weight > 0.0).map(|(&level, _)| level);
    let Some(scale) = successive_difference_scale(kept) else {
        return false;
    };
    let excluded: Vec<bool> = included.iter().map(|&weight| weight <= 0.0).collect();
    // Each block's step, the blocks on every core (a million-run sweep has tens of thousands).
    let step = |members: &[u32]| {
        let split = step_in(&members.iter().map(|&i| level[i as usize]).collect::<Vec<_>>(), scale)?;
        Some(members[split] as usize)
    };
    let blocks = Grouped::of(&layout.round_of, layout.rounds, &excluded);
    let steps: Vec<Option<usize>> = blocks.par_groups().with_min_len(256).map(step).collect();
    // A stepped block's later part is a new block, numbered after every other in block order (the order
    // a layout gives blocks); samples set aside between the two sides stay on the side they ran on.
    let first_new = samples.iter().map(|s| s.round).max().unwrap_or(0) + 1;
    for (index, (sample, &block)) in samples.iter_mut().zip(&layout.round_of).enumerate() {
        if steps[block as usize].is_some_and(|after| index >= after) {
            sample.round = first_new + block;
        }
    }
    steps.iter().any(Option::is_some)
}

/// A side's level as a step test reads it: its `median`, or for a side of two runs the one nearer
/// `other` (the other side's level), so that one straggler beside a block's edge is not a step.
fn robust_level(values: &[f64], median: f64, other: f64) -> f64 {
    if values.len() >= 3 {
        return median;
    }
    values.iter().copied().min_by(|a, b| (a - other).abs().total_cmp(&(b - other).abs())).unwrap_or(other)
}

/// The median of each prefix of `values` (at k, of the first k; NaN for none), the same value
/// `median_in_place` gives: one insertion into a sorted copy per value, where selecting afresh for each
/// split of each block took a sixth of a million-run report.
fn prefix_medians<'a>(values: impl ExactSizeIterator<Item = &'a f64>) -> Vec<f64> {
    let mut sorted: Vec<f64> = Vec::with_capacity(values.len());
    let mut medians = Vec::with_capacity(values.len() + 1);
    medians.push(f64::NAN);
    for &value in values {
        sorted.insert(sorted.partition_point(|v| v.total_cmp(&value).is_le()), value);
        let mid = sorted.len() / 2;
        medians.push(if sorted.len() % 2 == 0 { (sorted[mid - 1] + sorted[mid]) / 2.0 } else { sorted[mid] });
    }
    medians
}

/// σ of one value from the MAD of successive differences (1.4826 MAD / √2); `None` when it is zero.
fn successive_difference_scale(level: impl Iterator<Item = f64>) -> Option<f64> {
    let mut differences = Vec::with_capacity(level.size_hint().1.unwrap_or(0));
    let mut previous = None;
    differences.extend(level.filter_map(|value| Some(value - previous.replace(value)?)));
    if differences.is_empty() {
        return None;
    }
    let centre = median_in_place(&mut differences);
    // Their median does not depend on their order: the deviations take the differences' place.
    differences.iter_mut().for_each(|difference| *difference = (*difference - centre).abs());
    let scale = 1.4826 * median_in_place(&mut differences) / std::f64::consts::SQRT_2;
    (scale > 0.0).then_some(scale)
}

/// Where `level` (one block, file order) steps: among the splits whose two sides' medians are more than
/// `STEP_T` standard errors apart (a median's variance taken as π/2 σ²/n), the one whose sides' means are
/// the most standard errors apart.
fn step_in(level: &[f64], scale: f64) -> Option<usize> {
    let n = level.len();
    let error = |split: usize| scale * (1.0 / split as f64 + 1.0 / (n - split) as f64).sqrt();
    let (before_medians, after_medians) = (prefix_medians(level.iter()), prefix_medians(level.iter().rev()));
    let median_t = |split: usize| {
        let (before, after) = (&level[..split], &level[split..]);
        let (before_median, after_median) = (before_medians[split], after_medians[n - split]);
        let gap = robust_level(before, before_median, after_median) - robust_level(after, after_median, before_median);
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
    use crate::analyse::weighted_backfit::{RoundComponents, WeightedBackfit};
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
        let level = WeightedBackfit::fit(&layout, &values, &[1.0; 60], Some(&rounds), None).residuals;
        split_blocks_at_steps(&mut samples, &level, &layout, &[1.0; 60]);
        samples.iter().map(|s| s.round).collect()
    }

    fn time_blocks() -> Vec<u32> {
        (0..60).map(|k| (k / 10) as u32).collect()
    }

    /// The machine 15% slower from run 25, inside the third block: that block is split there, no other.
    #[test]
    fn a_step_inside_a_block_splits_it_there() {
        let mut expected = time_blocks();
        // Blocks 0-5 are taken: the third block's later part is block 6 + 2.
        expected[25..30].iter_mut().for_each(|block| *block = 8);
        assert_eq!(blocks_after(25, -0.15, 0.0), expected);
    }

    /// Each prefix's running median is bit for bit the median selection gives, ties and signed zeros
    /// included.
    #[test]
    fn prefix_medians_are_the_selected_medians() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let values: Vec<f64> =
            (0..40).map(|k| if k % 7 == 0 { -0.0 } else { (rng.random::<f64>() * 8.0).round() - 4.0 }).collect();
        let medians = prefix_medians(values.iter());
        assert!(medians[0].is_nan());
        for k in 1..=values.len() {
            assert_eq!(medians[k].to_bits(), median_in_place(&mut values[..k].to_vec()).to_bits(), "prefix {k}");
        }
    }

    /// Noise, one straggler and a step on a block's edge are not steps inside a block.
    #[test]
    fn noise_a_straggler_and_a_step_between_blocks_leave_the_blocks_alone() {
        assert_eq!(blocks_after(60, 0.0, 0.0), time_blocks());
        assert_eq!(blocks_after(60, 0.0, -1.0), time_blocks());
        assert_eq!(blocks_after(30, -0.15, 0.0), time_blocks());
    }
}
