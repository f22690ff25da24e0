//! Cost models fitted to measured times: fixed + per-unit lines and the rows-per-slice rule.

/// time = fixed + per_unit · x, fitted by ordinary least squares.
#[derive(Debug, Clone, PartialEq)]
pub struct CostFit {
    pub fixed: f64,
    pub per_unit: f64,
    /// Coefficient of determination 1 − SS_res / SS_tot (1 for a perfect or two-point fit).
    pub r_squared: f64,
    pub n: usize,
    /// Per point (in input order): |prediction − measured| / |measured| when that point is left out
    /// of the fit; None below three points, where leaving one out leaves no line.
    pub loo_rel_errors: Option<Vec<f64>>,
    /// The terms' standard errors from the residuals (n − 2 df); None with two points or a perfect line.
    pub errors: Option<FitErrors>,
}

/// Ordinary least squares standard errors of a line: Var(slope) = s² / Sxx, Var(fixed) =
/// s² (1/n + x̄² / Sxx), with s² = SS_res / (n − 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitErrors {
    pub fixed: f64,
    pub per_unit: f64,
    pub df: f64,
}

impl CostFit {
    pub fn predict(&self, x: f64) -> f64 {
        self.fixed + self.per_unit * x
    }

    /// Decimal gigabytes per second (10⁹ bytes/s) of the marginal cost, for a fit of a time in `unit`
    /// against bytes: 1 / (per_unit · seconds per unit) / 10⁹. None when the per-byte cost is not positive.
    pub fn gigabytes_per_second(&self, unit: super::time_unit::TimeUnit) -> Option<f64> {
        (self.per_unit > 0.0).then(|| 1.0 / (self.per_unit * unit.seconds()) / 1e9)
    }

    /// The worst leave-one-out relative error: how far the model misses a point it was not fitted to.
    pub fn loo_max_rel_error(&self) -> Option<f64> {
        self.loo_rel_errors.as_ref().map(|errors| errors.iter().copied().fold(0.0, f64::max))
    }
}

/// Ordinary least squares fit of y = fixed + per_unit · x over `points` (x, y), with R² and
/// leave-one-out cross-validation (refit without each point, relative error predicting it).
/// None with fewer than two distinct x values.
pub fn fit_fixed_plus_per_unit(points: &[(f64, f64)]) -> Option<CostFit> {
    let (fixed, per_unit) = ordinary_least_squares(points)?;
    let mean_y = points.iter().map(|(_, y)| y).sum::<f64>() / points.len() as f64;
    let ss_tot: f64 = points.iter().map(|(_, y)| (y - mean_y).powi(2)).sum();
    let ss_res: f64 = points.iter().map(|(x, y)| (y - fixed - per_unit * x).powi(2)).sum();
    let r_squared = if ss_tot == 0.0 { 1.0 } else { 1.0 - ss_res / ss_tot };
    let errors = (points.len() >= 3 && ss_res > 0.0).then(|| {
        let n = points.len() as f64;
        let mean_x = points.iter().map(|(x, _)| x).sum::<f64>() / n;
        let sxx: f64 = points.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
        let noise = ss_res / (n - 2.0);
        let (fixed, per_unit) = ((noise * (1.0 / n + mean_x * mean_x / sxx)).sqrt(), (noise / sxx).sqrt());
        FitErrors { fixed, per_unit, df: n - 2.0 }
    });
    Some(CostFit { fixed, per_unit, r_squared, n: points.len(), loo_rel_errors: leave_one_out(points), errors })
}

/// (intercept, slope) minimising Σ (y − a − b·x)²; None when x does not vary.
fn ordinary_least_squares(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|(x, _)| x).sum::<f64>() / n;
    let mean_y = points.iter().map(|(_, y)| y).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    if points.len() < 2 || sxx == 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|(x, y)| (x - mean_x) * (y - mean_y)).sum();
    let slope = sxy / sxx;
    Some((mean_y - slope * mean_x, slope))
}

fn leave_one_out(points: &[(f64, f64)]) -> Option<Vec<f64>> {
    if points.len() < 3 {
        return None;
    }
    (0..points.len())
        .map(|held_out| {
            let rest: Vec<_> = points.iter().enumerate().filter(|(i, _)| *i != held_out).map(|(_, p)| *p).collect();
            let (fixed, per_unit) = ordinary_least_squares(&rest)?;
            let (x, y) = points[held_out];
            Some(((fixed + per_unit * x) - y).abs() / y.abs())
        })
        .collect()
}

/// The rows-per-slice threshold implied by a sweep's best (rows, slices) settings: the smallest
/// rows / slices among best settings that split (slices > 1). A rule "double the slices while each
/// slice keeps at least this many rows" reproduces every such optimum. None when no best setting splits.
pub fn rows_per_slice_rule(best: &[(f64, f64)]) -> Option<f64> {
    best.iter().filter(|(_, slices)| *slices > 1.0).map(|(rows, slices)| rows / slices).reduce(f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Section 5.3 of the slice study: all-reduce microseconds per call against MB per call.
    const ALL_REDUCE: [(f64, f64); 3] = [(11.32, 2346.0), (22.76, 2697.0), (45.39, 3845.0)];

    #[test]
    fn two_point_fit_on_the_ends_reproduces_the_study() {
        let fit = fit_fixed_plus_per_unit(&[ALL_REDUCE[0], ALL_REDUCE[2]]).unwrap();
        // 1.85 ms fixed, 44.0 us/MB = 22.7 GB/s marginal, middle predicted at 2849 us.
        assert!((fit.fixed - 1847.9).abs() < 0.5, "fixed {}", fit.fixed);
        assert!((1e6 / fit.per_unit / 1e3 - 22.73).abs() < 0.01);
        assert!((fit.predict(22.76) - 2849.1).abs() < 0.5);
        assert_eq!(fit.r_squared, 1.0);
        assert_eq!(fit.loo_rel_errors, None);
    }

    #[test]
    fn leave_one_out_finds_the_middle_point_five_percent_off() {
        let fit = fit_fixed_plus_per_unit(&ALL_REDUCE).unwrap();
        let errors = fit.loo_rel_errors.clone().unwrap();
        // Held out middle: (2849.1 − 2697) / 2697 = 5.64%.
        assert!((errors[1] - 0.0564).abs() < 1e-3, "{errors:?}");
        assert!(fit.loo_max_rel_error().unwrap() >= errors[1]);
        assert!(fit.r_squared > 0.98 && fit.r_squared < 1.0);
    }

    #[test]
    fn exact_line_is_recovered() {
        let fit = fit_fixed_plus_per_unit(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0), (3.0, 7.0)]).unwrap();
        assert!((fit.fixed - 1.0).abs() < 1e-12 && (fit.per_unit - 2.0).abs() < 1e-12);
        assert!(fit.loo_max_rel_error().unwrap() < 1e-12);
    }

    #[test]
    fn a_nanosecond_per_byte_line_reads_as_a_bandwidth() {
        // 0.05 ns per byte = 20 bytes per ns = 20 GB/s; the fixed 1000 ns does not enter it.
        let fit = fit_fixed_plus_per_unit(&[(0.0, 1000.0), (1e6, 51_000.0), (2e6, 101_000.0)]).unwrap();
        let gbps = fit.gigabytes_per_second(super::super::time_unit::TimeUnit::Nanoseconds).unwrap();
        assert!((gbps - 20.0).abs() < 1e-9, "{gbps}");
        // The study's 44.0 us/MB (10⁶ bytes): 22.7 GB/s.
        let study =
            CostFit { fixed: 1847.9, per_unit: 44.0e-6, r_squared: 1.0, n: 2, loo_rel_errors: None, errors: None };
        let gbps = study.gigabytes_per_second(super::super::time_unit::TimeUnit::Microseconds).unwrap();
        assert!((gbps - 22.73).abs() < 0.01, "{gbps}");
    }

    #[test]
    fn constant_x_has_no_fit() {
        assert!(fit_fixed_plus_per_unit(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
        assert!(fit_fixed_plus_per_unit(&[(1.0, 1.0)]).is_none());
    }

    #[test]
    fn study_optimum_implies_1024_rows_per_slice() {
        let best = [(512.0, 1.0), (1024.0, 1.0), (2048.0, 2.0), (4096.0, 4.0)];
        assert_eq!(rows_per_slice_rule(&best), Some(1024.0));
        assert_eq!(rows_per_slice_rule(&[(512.0, 1.0)]), None);
    }
}
