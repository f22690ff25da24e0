//! Descriptive statistics of one sample: the numbers every table row is made of.

use crate::student_t::two_sided_critical;

/// Location and spread of a sample of repeated measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SummaryStats {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    /// Sample standard deviation (n - 1 denominator); 0 for a single value.
    pub stdev: f64,
    pub min: f64,
    pub max: f64,
    /// Half-width of the two-sided 95% Student's t interval for the mean; None below two values,
    /// where the spread of the sample says nothing.
    pub ci95: Option<f64>,
    /// (max - min) / mean: the range as a fraction of the mean (infinite or NaN when the mean is 0).
    pub rel_spread: f64,
}

impl SummaryStats {
    /// Summarise a sample: mean, median, sample standard deviation, range, and the
    /// Student's t interval for the mean, two-sided 95% (mean ± t(0.975, n-1) · s / √n).
    /// None for an empty sample. Reorders `values` (the median is found by selection, in place).
    pub fn of(values: &mut [f64]) -> Option<Self> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // Sums of values near f64::MAX overflow: they are taken on values divided by a power of two (exact).
        let unit = magnitude_unit(min.abs().max(max.abs()));
        // Equal values have that value as their mean, not a sum's rounding of it (3.3 three times is not
        // 3.3 after the division), and no spread.
        let scaled_mean = if min == max { min / unit } else { values.iter().map(|v| v / unit).sum::<f64>() / n as f64 };
        let squares: f64 = values.iter().map(|v| (v / unit - scaled_mean).powi(2)).sum();
        let stdev = if n < 2 || min == max { 0.0 } else { (squares / (n - 1) as f64).sqrt() * unit };
        // Last: selection reorders the values, and the sums above are taken in run order.
        let median = median_in_place(values);
        let rel_spread = if min == max { 0.0 } else { (max / unit - min / unit) / scaled_mean };
        let stats = SummaryStats { n, mean: scaled_mean * unit, median, stdev, min, max, ci95: None, rel_spread };
        Some(SummaryStats { ci95: stats.half_width(0.95), ..stats })
    }

    /// Half-width of the two-sided Student's t interval for the mean at `confidence`
    /// (t((1 + confidence) / 2, n - 1) · s / √n); None below two values.
    pub fn half_width(&self, confidence: f64) -> Option<f64> {
        let t = (self.n >= 2).then(|| two_sided_critical(confidence, (self.n - 1) as f64)).flatten();
        t.map(|t| t * self.stdev / (self.n as f64).sqrt())
    }
}

/// The power of two values of `magnitude` are divided by before they are summed: 1 unless a sum of a
/// few million of them could overflow.
fn magnitude_unit(magnitude: f64) -> f64 {
    if magnitude > 1e290 {
        power_of_two_below(magnitude)
    } else {
        1.0
    }
}

/// The largest power of two not above `magnitude`: dividing by it is exact, and leaves values in [1, 2).
pub(super) fn power_of_two_below(magnitude: f64) -> f64 {
    2f64.powi(magnitude.log2().floor() as i32)
}

/// The middle value, or the mean of the two middle values, by selection (Hoare's quickselect: linear
/// time, where sorting a million-run setting took longer than the rest of its summary), reordering
/// `values` (not empty).
pub(super) fn median_in_place(values: &mut [f64]) -> f64 {
    let mid = values.len() / 2;
    let even = values.len() % 2 == 0;
    let (below, middle, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
    if even {
        // Halved before the sum, which is exact and cannot overflow.
        below.iter().copied().fold(f64::NEG_INFINITY, f64::max) / 2.0 + *middle / 2.0
    } else {
        *middle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// A metric of 1e308: the sum overflowed and the mean printed as `inf`.
    #[test]
    fn sums_of_values_near_the_largest_double_do_not_overflow() {
        let s = SummaryStats::of(&mut [1e308, 1.5e308, 1.2e308, 1.3e308]).unwrap();
        assert!(close(s.mean / 1e308, 1.25, 1e-12), "{s:?}");
        assert!(close(s.median / 1e308, 1.25, 1e-12), "{s:?}");
        assert!(s.stdev.is_finite() && s.ci95.unwrap().is_finite() && close(s.rel_spread, 0.4, 1e-12), "{s:?}");
    }

    /// 3.3 three times summed to a mean of 3.2999999999999998 and a spread of 4e-16 ("± 0.000").
    #[test]
    fn equal_values_have_that_value_as_mean_and_no_spread() {
        let s = SummaryStats::of(&mut [3.3, 3.3, 3.3]).unwrap();
        assert_eq!((s.mean, s.stdev, s.ci95, s.rel_spread), (3.3, 0.0, Some(0.0), 0.0));
        assert_eq!(SummaryStats::of(&mut [-5.0, -5.0]).unwrap().rel_spread.to_bits(), 0f64.to_bits());
    }

    #[test]
    fn study_slices_one_reps() {
        // Section 3 of the slice study: slices=1 at 512 rows, prefill TPS over three reps.
        let s = SummaryStats::of(&mut [882.09, 882.55, 862.62]).unwrap();
        assert_eq!(s.n, 3);
        assert!(close(s.mean, 875.753, 1e-3));
        assert_eq!(s.median, 882.09);
        assert_eq!((s.min, s.max), (862.62, 882.55));
        // s = 11.376..., t(0.975, 2) = 4.3027 -> half-width 4.3027 * s / sqrt(3)
        assert!(close(s.stdev, 11.3765, 1e-3));
        assert!(close(s.ci95.unwrap(), 4.302_653 * 11.3765 / 3f64.sqrt(), 1e-2));
        assert!(close(s.rel_spread, 19.93 / 875.753, 1e-6));
    }

    #[test]
    fn even_count_median_is_the_midpoint() {
        assert_eq!(SummaryStats::of(&mut [4.0, 1.0, 3.0, 2.0]).unwrap().median, 2.5);
    }

    #[test]
    fn single_value_has_no_interval() {
        let s = SummaryStats::of(&mut [5.0]).unwrap();
        assert_eq!(s.stdev, 0.0);
        assert_eq!(s.ci95, None);
        assert_eq!(s.rel_spread, 0.0);
    }

    #[test]
    fn empty_sample_has_no_summary() {
        assert!(SummaryStats::of(&mut []).is_none());
    }
}
