//! Huber's M-estimation pieces (Huber 1964): the weights of ψ at k = 1.345, and the variance an M-estimate
//! pays for them at the normal.

/// The tuning constant: 95% efficiency at the normal, bounded influence beyond 1.345 σ.
pub const HUBER_K: f64 = 1.345;

/// E[ψ(Z)²] for Z standard normal, ψ(u) = max(−k, min(k, u)): (2Φ(k) − 1) − 2kφ(k) + 2k²(1 − Φ(k)).
pub const PSI_SQUARED_MEAN: f64 = 0.710_164_5;

/// E[ψ'(Z)] = 2Φ(k) − 1: the share of a normal sample ψ leaves unclipped.
pub const PSI_SLOPE_MEAN: f64 = 0.821_374_8;

/// The IRLS weight ψ(u)/u: 1 inside ±k, k/|u| beyond.
pub fn weight(u: f64) -> f64 {
    if u.abs() <= HUBER_K {
        1.0
    } else {
        HUBER_K / u.abs()
    }
}

/// Var(M-estimate) / Var(mean) at the normal, E[ψ²] / E[ψ']² (Huber 1964): about 1.05, the price of
/// robustness when nothing is wrong.
pub fn variance_inflation() -> f64 {
    PSI_SQUARED_MEAN / (PSI_SLOPE_MEAN * PSI_SLOPE_MEAN)
}

#[cfg(test)]
mod tests {
    use statrs::distribution::{Continuous, ContinuousCDF, Normal};

    use super::*;

    #[test]
    fn the_constants_are_the_normal_expectations() {
        let normal = Normal::standard();
        let (cdf, pdf) = (normal.cdf(HUBER_K), normal.pdf(HUBER_K));
        let squared = (2.0 * cdf - 1.0) - 2.0 * HUBER_K * pdf + 2.0 * HUBER_K * HUBER_K * (1.0 - cdf);
        assert!((PSI_SQUARED_MEAN - squared).abs() < 1e-6, "{squared}");
        assert!((PSI_SLOPE_MEAN - (2.0 * cdf - 1.0)).abs() < 1e-6, "{}", 2.0 * cdf - 1.0);
        assert!((variance_inflation() - 1.052_631).abs() < 1e-5, "{}", variance_inflation());
    }

    #[test]
    fn weights_bound_the_influence_of_large_residuals() {
        assert_eq!((weight(0.5), weight(-1.345)), (1.0, 1.0));
        assert!((weight(13.45) - 0.1).abs() < 1e-12);
    }
}
