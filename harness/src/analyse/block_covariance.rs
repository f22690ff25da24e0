//! The covariance of the settings' estimates in a design of incomplete blocks: the inverse of the reduced
//! normal equations' information matrix C (Tocher 1952; John & Williams 1995, ch. 2), exact for every
//! contrast where a per-setting efficiency factor is an average.

use super::grouped::Grouped;
use super::sample_layout::SampleLayout;

/// Beyond this many settings the O(settings³) inverse is not made, and the efficiency factors stand in.
const MOST_SETTINGS: usize = 400;

/// A g-inverse of C = diag(Wₛ) − Σ_b n_b n_bᵀ / W_b (Wₛ, W_b the weights of a setting's and a block's
/// runs, n_b the block's weight per setting) over the settings with runs: Var(Σ cₛ μ̂ₛ) = cᵀ C⁻ c for any
/// contrast (Σ cₛ = 0) of a connected design, the weights being inverse variances.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockCovariance {
    settings: usize,
    inverse: Vec<f64>,
}

impl BlockCovariance {
    /// From the samples' `weights` (inverse variances, 0 for a run left out); None with too many settings,
    /// fewer than two with runs, or a design whose settings the blocks do not connect.
    pub fn of(layout: &SampleLayout, weights: &[f64]) -> Option<BlockCovariance> {
        let settings = layout.settings;
        if settings > MOST_SETTINGS {
            return None;
        }
        let mut setting_weight = vec![0.0; settings];
        for (&s, &w) in layout.setting_of.iter().zip(weights) {
            setting_weight[s as usize] += w;
        }
        let active: Vec<bool> = setting_weight.iter().map(|&w| w > 0.0).collect();
        if active.iter().filter(|&&a| a).count() < 2 {
            return None;
        }
        let mut c = vec![0.0; settings * settings];
        for (s, &w) in setting_weight.iter().enumerate() {
            c[s * settings + s] = if active[s] { w } else { 1.0 };
        }
        let left_out: Vec<bool> = weights.iter().map(|&w| w <= 0.0).collect();
        for block in Grouped::of(&layout.round_of, layout.rounds, &left_out).groups() {
            // The block's weight per setting (a setting's runs in one block summed).
            let mut present: Vec<(usize, f64)> =
                block.iter().map(|&i| (layout.setting_of[i as usize] as usize, weights[i as usize])).collect();
            present.sort_unstable_by_key(|&(s, _)| s);
            present.dedup_by(|later, kept| {
                later.0 == kept.0 && {
                    kept.1 += later.1;
                    true
                }
            });
            let total: f64 = present.iter().map(|(_, w)| w).sum();
            for &(s, ws) in &present {
                for &(t, wt) in &present {
                    c[s * settings + t] -= ws * wt / total;
                }
            }
        }
        // C's null space is the active settings' common level: lifting it by a uuᵀ makes C positive
        // definite (when the blocks connect the settings) without changing any contrast's variance.
        let lift = setting_weight.iter().sum::<f64>() / settings as f64;
        for s in (0..settings).filter(|&s| active[s]) {
            for t in (0..settings).filter(|&t| active[t]) {
                c[s * settings + t] += lift / settings as f64;
            }
        }
        Some(BlockCovariance { settings, inverse: inverse_positive_definite(c, settings)? })
    }

    /// cᵀ C⁻ c for (dense setting, coefficient) pairs whose coefficients sum to zero.
    pub fn contrast_variance(&self, terms: &[(usize, f64)]) -> f64 {
        terms
            .iter()
            .flat_map(|&(s, a)| terms.iter().map(move |&(t, b)| a * b * self.inverse[s * self.settings + t]))
            .sum()
    }
}

/// The inverse of a symmetric positive-definite n x n matrix by its Cholesky factor; None when it is not
/// positive definite (to rounding).
fn inverse_positive_definite(mut a: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    // In place: the lower triangle becomes L with A = L Lᵀ.
    for j in 0..n {
        let diagonal = a[j * n + j] - (0..j).map(|k| a[j * n + k] * a[j * n + k]).sum::<f64>();
        if diagonal <= 1e-12 * a[j * n + j].abs().max(f64::MIN_POSITIVE) {
            return None;
        }
        let root = diagonal.sqrt();
        a[j * n + j] = root;
        for i in j + 1..n {
            let dot: f64 = (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum();
            a[i * n + j] = (a[i * n + j] - dot) / root;
        }
    }
    // A⁻¹ column by column: solve L y = eₖ, then Lᵀ x = y.
    let mut inverse = vec![0.0; n * n];
    for column in 0..n {
        let mut y = vec![0.0; n];
        for i in 0..n {
            let known: f64 = (0..i).map(|k| a[i * n + k] * y[k]).sum();
            y[i] = (f64::from(u8::from(i == column)) - known) / a[i * n + i];
        }
        for i in (0..n).rev() {
            let known: f64 = (i + 1..n).map(|k| a[k * n + i] * inverse[k * n + column]).sum();
            inverse[i * n + column] = (y[i] - known) / a[i * n + i];
        }
    }
    Some(inverse)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(cells: &[(u32, u32)]) -> SampleLayout {
        let (setting_of, round_of): (Vec<u32>, Vec<u32>) = cells.iter().copied().unzip();
        let settings = setting_of.iter().max().map_or(0, |m| *m as usize + 1);
        let rounds = round_of.iter().max().map_or(0, |m| *m as usize + 1);
        SampleLayout { setting_of, settings, round_of, rounds }
    }

    /// Complete blocks: every contrast of two settings has variance 2σ²/r, as without blocks.
    #[test]
    fn complete_blocks_give_the_textbook_variance() {
        let cells: Vec<(u32, u32)> = (0..3).flat_map(|b| (0..4).map(move |s| (s, b))).collect();
        let covariance = BlockCovariance::of(&layout(&cells), &vec![1.0; cells.len()]).expect("connected");
        let variance = covariance.contrast_variance(&[(0, 1.0), (2, -1.0)]);
        assert!((variance - 2.0 / 3.0).abs() < 1e-12, "{variance}");
    }

    /// A balanced incomplete block design (v = 3, k = 2, r = 2, λ = 1: blocks {0,1}, {0,2}, {1,2}): the
    /// variance of a difference is 2kσ²/(λv) = 4/3 (Cochran & Cox 1957), not 2/r = 1.
    #[test]
    fn a_balanced_incomplete_design_pays_its_efficiency() {
        let cells = [(0, 0), (1, 0), (0, 1), (2, 1), (1, 2), (2, 2)];
        let covariance = BlockCovariance::of(&layout(&cells), &[1.0; 6]).expect("connected");
        let variance = covariance.contrast_variance(&[(0, 1.0), (1, -1.0)]);
        assert!((variance - 4.0 / 3.0).abs() < 1e-12, "{variance}");
    }

    #[test]
    fn blocks_that_connect_nothing_have_no_answer() {
        let cells = [(0, 0), (1, 1)];
        assert!(BlockCovariance::of(&layout(&cells), &[1.0; 2]).is_none());
    }
}
