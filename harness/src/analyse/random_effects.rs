//! One effect for a whole grid: the random-effects meta-analysis of per-setting effects (DerSimonian &
//! Laird 1986), with the between-setting heterogeneity that says whether one number describes them.

use serde::Serialize;

use crate::student_t::two_sided_p_value;

/// The common effect μ of k per-setting effects yⱼ ~ N(μ, vⱼ + τ²).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RandomEffects {
    pub estimate: f64,
    pub std_error: f64,
    /// Degrees of freedom of the interval and test: k − 1 (Hartung–Knapp).
    pub df: f64,
    pub p_value: f64,
    /// τ², the between-setting variance of the true effects (DerSimonian–Laird moment estimate).
    pub tau2: f64,
    /// I² = max(0, (Q − (k − 1)) / Q): the share of the effects' spread that is heterogeneity, not noise.
    pub i2: f64,
    /// Cochran's Q and the number of settings.
    pub q: f64,
    pub settings: usize,
}

impl RandomEffects {
    /// τ² = max(0, (Q − (k − 1)) / (Σw − Σw²/Σw)) with wⱼ = 1/vⱼ and Q = Σ wⱼ (yⱼ − ȳ_w)² (DerSimonian &
    /// Laird 1986); μ̂ = Σ w*ⱼ yⱼ / Σ w*ⱼ with w*ⱼ = 1/(vⱼ + τ²). Its variance is the larger of 1/Σw* and
    /// the Hartung–Knapp estimate Σ w*ⱼ (yⱼ − μ̂)² / ((k − 1) Σ w*ⱼ), tested on k − 1 df (the "modified"
    /// Hartung–Knapp–Sidik–Jonkman interval, which keeps its level with few settings). None below two
    /// effects or with a non-positive variance.
    pub fn fit(effects: &[(f64, f64)]) -> Option<RandomEffects> {
        let k = effects.len();
        if k < 2 || effects.iter().any(|(y, v)| v.is_nan() || *v <= 0.0 || !y.is_finite()) {
            return None;
        }
        let weights: Vec<f64> = effects.iter().map(|(_, v)| 1.0 / v).collect();
        let total: f64 = weights.iter().sum();
        let fixed = effects.iter().zip(&weights).map(|((y, _), w)| w * y).sum::<f64>() / total;
        let q: f64 = effects.iter().zip(&weights).map(|((y, _), w)| w * (y - fixed).powi(2)).sum();
        let df = (k - 1) as f64;
        let scaling = total - weights.iter().map(|w| w * w).sum::<f64>() / total;
        let tau2 = ((q - df) / scaling).max(0.0);
        let random: Vec<f64> = effects.iter().map(|(_, v)| 1.0 / (v + tau2)).collect();
        let random_total: f64 = random.iter().sum();
        let estimate = effects.iter().zip(&random).map(|((y, _), w)| w * y).sum::<f64>() / random_total;
        let knapp = effects.iter().zip(&random).map(|((y, _), w)| w * (y - estimate).powi(2)).sum::<f64>()
            / (df * random_total);
        let std_error = (1.0 / random_total).max(knapp).sqrt();
        let p_value = two_sided_p_value(estimate / std_error, df)?;
        let i2 = if q > 0.0 { ((q - df) / q).max(0.0) } else { 0.0 };
        Some(RandomEffects { estimate, std_error, df, p_value, tau2, i2, q, settings: k })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::student_t::two_sided_critical;

    #[test]
    fn matches_the_textbook_computation() {
        // y = (0.10, 0.30, 0.35, 0.65, 0.45), v = (0.02, 0.03, 0.025, 0.04, 0.05) — computed independently
        // (numpy, the same formulas): Q = 5.528960, τ² = 0.011646, μ̂ = 0.335909, I² = 0.276537,
        // SE = max(√(1/Σw*) = 0.091869, Hartung–Knapp 0.090903) = 0.091869.
        let effects = [(0.10, 0.02), (0.30, 0.03), (0.35, 0.025), (0.65, 0.04), (0.45, 0.05)];
        let fit = RandomEffects::fit(&effects).unwrap();
        assert!((fit.q - 5.528_960).abs() < 1e-5, "{fit:?}");
        assert!((fit.tau2 - 0.011_646).abs() < 1e-5, "{fit:?}");
        assert!((fit.estimate - 0.335_909).abs() < 1e-5, "{fit:?}");
        assert!((fit.i2 - 0.276_537).abs() < 1e-5, "{fit:?}");
        assert!((fit.std_error - 0.091_869).abs() < 1e-5, "{fit:?}");
        assert_eq!(fit.df, 4.0);
    }

    #[test]
    fn homogeneous_effects_have_no_heterogeneity() {
        let fit = RandomEffects::fit(&[(0.05, 0.01), (0.05, 0.02), (0.05, 0.01)]).unwrap();
        assert_eq!((fit.tau2, fit.i2), (0.0, 0.0));
        assert!((fit.estimate - 0.05).abs() < 1e-12);
        let half = two_sided_critical(0.95, fit.df).unwrap() * fit.std_error;
        assert!(half > 0.0 && half.is_finite());
    }

    #[test]
    fn fewer_than_two_effects_are_not_pooled() {
        assert!(RandomEffects::fit(&[(0.1, 0.01)]).is_none());
        assert!(RandomEffects::fit(&[(0.1, 0.01), (0.2, 0.0)]).is_none());
    }
}
