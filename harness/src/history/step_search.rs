//! The largest step in a series of version means, and how often a series without a change shows one as
//! large: a two-sample t of the versions after a split against those before, maximised over the splits
//! (binary segmentation's first step, Scott & Knott 1974), calibrated by permuting the versions (valid
//! with no change, when the version means are exchangeable; as E-Divisive means tests its splits,
//! Matteson & James 2014).

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// The split with the largest |t|: versions `at..` against `..at`.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub at: usize,
    /// Mean after less mean before (log scale).
    pub difference: f64,
    pub standard_error: f64,
    pub df: f64,
    pub t: f64,
}

/// The largest step of `means` (at least 4 versions, else `None`): at each split, the version means
/// on each side are samples with one variance (pooled within the two sides, df `n - 2`).
pub fn largest_step(means: &[f64]) -> Option<Step> {
    let n = means.len();
    if n < 4 {
        return None;
    }
    let (mut sum, mut squares) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for (index, mean) in means.iter().enumerate() {
        sum[index + 1] = sum[index] + mean;
        squares[index + 1] = squares[index] + mean * mean;
    }
    let side = |from: usize, to: usize| {
        let count = (to - from) as f64;
        let total = sum[to] - sum[from];
        (total / count, squares[to] - squares[from] - total * total / count, count)
    };
    let df = (n - 2) as f64;
    (1..n)
        .filter_map(|at| {
            let ((before, spread_before, count_before), (after, spread_after, count_after)) =
                (side(0, at), side(at, n));
            let variance = (spread_before + spread_after).max(0.0) / df;
            let standard_error = (variance * (1.0 / count_before + 1.0 / count_after)).sqrt();
            let difference = after - before;
            (standard_error > 0.0).then(|| Step { at, difference, standard_error, df, t: difference / standard_error })
        })
        .max_by(|a, b| a.t.abs().total_cmp(&b.t.abs()))
}

/// The share of `permutations` orders of `means` whose largest step is at least `step`'s, counting the
/// order seen (so never 0).
pub fn permutation_p(means: &[f64], step: &Step, permutations: usize, rng: &mut ChaCha8Rng) -> f64 {
    let mut shuffled = means.to_vec();
    let as_large = (0..permutations)
        .filter(|_| {
            shuffled.shuffle(rng);
            largest_step(&shuffled).is_some_and(|permuted| permuted.t.abs() >= step.t.abs())
        })
        .count();
    (1 + as_large) as f64 / (1 + permutations) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_clean_step_is_found_at_its_version_and_is_significant() {
        let means: Vec<f64> = (0..12).map(|v| if v < 7 { 0.0 } else { 0.04 } + 0.002 * ((v * 7) % 5) as f64).collect();
        let step = largest_step(&means).unwrap();
        assert_eq!(step.at, 7);
        assert!((step.difference - 0.04).abs() < 0.005, "{step:?}");
        let p = permutation_p(&means, &step, 999, &mut ChaCha8Rng::seed_from_u64(1));
        assert!((1.0 / 1000.0..0.01).contains(&p), "{p}");
    }

    #[test]
    fn a_series_of_noise_alone_is_rarely_significant() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let significant = (0..200)
            .filter(|_| {
                let means: Vec<f64> = (0..24).map(|_| rand::Rng::random_range(&mut rng, -0.01..0.01)).collect();
                let step = largest_step(&means).unwrap();
                permutation_p(&means, &step, 199, &mut rng) < 0.05
            })
            .count();
        assert!((2..=22).contains(&significant), "{significant} of 200 at 5%");
    }
}
