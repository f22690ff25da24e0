//! The empirical-Bayes prior of the settings' variances, and each setting's variance moderated by it
//! (Smyth 2004, the method of limma's `fitFDist` and `squeezeVar`).

use serde::Serialize;
use statrs::function::gamma::digamma;

use super::polygamma::{trigamma, trigamma_inverse};

/// σ²ₛ ~ s₀² d₀ / χ²(d₀): the distribution the settings' true variances are taken to be drawn from.
/// `prior_df` is infinite when the sample variances vary no more than sampling alone explains: then every
/// setting shares one variance (the pooled model); small when they differ, so each keeps its own.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VariancePrior {
    /// d₀, the prior's degrees of freedom (infinite: the variances are equal).
    #[serde(serialize_with = "finite_or_null")]
    pub prior_df: f64,
    /// s₀², the prior's location.
    pub prior_variance: f64,
}

impl VariancePrior {
    /// Fits d₀ and s₀² to sample variances s²ₛ on dₛ degrees of freedom by the method of moments on
    /// log s² (Smyth 2004, section 6.2): with eₛ = ln s²ₛ − ψ(dₛ/2) + ln(dₛ/2), mean(e) estimates
    /// ln s₀² − ψ(d₀/2) + ln(d₀/2) and var(e) − mean ψ₁(dₛ/2) estimates ψ₁(d₀/2). Variances with no df
    /// or not above 1e-5 of the median (limma's guard: an exactly repeated value says nothing of the
    /// spread) take no part. None below two usable variances.
    pub fn fit(variances: &[(f64, f64)]) -> Option<VariancePrior> {
        let mut positive: Vec<f64> = variances.iter().filter(|(s2, df)| *df > 0.0 && *s2 > 0.0).map(|v| v.0).collect();
        if positive.len() < 2 {
            return None;
        }
        let mid = positive.len() / 2;
        let median = *positive.select_nth_unstable_by(mid, f64::total_cmp).1;
        let usable: Vec<(f64, f64)> =
            variances.iter().copied().filter(|(s2, df)| *df > 0.0 && *s2 > 1e-5 * median && s2.is_finite()).collect();
        if usable.len() < 2 {
            return None;
        }
        let n = usable.len() as f64;
        let e: Vec<f64> = usable.iter().map(|(s2, df)| s2.ln() - digamma(df / 2.0) + (df / 2.0).ln()).collect();
        let e_mean = e.iter().sum::<f64>() / n;
        let e_var = e.iter().map(|x| (x - e_mean).powi(2)).sum::<f64>() / (n - 1.0);
        let excess = e_var - usable.iter().map(|(_, df)| trigamma(df / 2.0)).sum::<f64>() / n;
        if excess <= 0.0 {
            return Some(VariancePrior { prior_df: f64::INFINITY, prior_variance: e_mean.exp() });
        }
        let prior_df = 2.0 * trigamma_inverse(excess);
        let prior_variance = (e_mean + digamma(prior_df / 2.0) - (prior_df / 2.0).ln()).exp();
        Some(VariancePrior { prior_df, prior_variance })
    }

    /// The posterior variance (d₀ s₀² + d s²) / (d₀ + d): the sample variance shrunk toward the prior
    /// in proportion to the degrees of freedom behind each (limma's `squeezeVar`); s₀² itself when d₀
    /// is infinite.
    pub fn moderate(&self, variance: f64, df: f64) -> f64 {
        if self.prior_df.is_infinite() {
            return self.prior_variance;
        }
        let df = df.max(0.0);
        (self.prior_df * self.prior_variance + df * variance.max(0.0)) / (self.prior_df + df)
    }

    /// The degrees of freedom behind a moderated variance: d + d₀.
    pub fn moderated_df(&self, df: f64) -> f64 {
        df.max(0.0) + self.prior_df
    }
}

fn finite_or_null<S: serde::Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() {
        serializer.serialize_f64(*value)
    } else {
        serializer.serialize_none()
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr_free::chi_squared;

    use super::*;

    /// A χ²(df) draw as a sum of squared standard normals (Box–Muller), enough for these tests.
    mod rand_distr_free {
        use rand::Rng;
        use rand_chacha::ChaCha8Rng;

        pub fn chi_squared(rng: &mut ChaCha8Rng, df: u32) -> f64 {
            (0..df)
                .map(|_| {
                    let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
                    ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()).powi(2)
                })
                .sum()
        }
    }

    #[test]
    fn matches_the_moment_estimates_computed_independently() {
        // limma's fitFDist formulas evaluated with scipy's digamma/polygamma and brentq:
        // s² = (0.1, 1.2, 0.8, 6.1, 0.3, 2.7) on df (2, 2, 3, 3, 4, 4): d₀ = 2.880447, s₀² = 0.900767.
        let prior =
            VariancePrior::fit(&[(0.1, 2.0), (1.2, 2.0), (0.8, 3.0), (6.1, 3.0), (0.3, 4.0), (2.7, 4.0)]).unwrap();
        assert!((prior.prior_df - 2.880_447).abs() < 1e-5, "{prior:?}");
        assert!((prior.prior_variance - 0.900_767).abs() < 1e-5, "{prior:?}");
        // (0.5, 1.2, 0.8, 3.1, 0.9, 1.7) vary less than sampling explains: d₀ infinite, s₀² = exp(mean e) = 1.720534.
        let pooled =
            VariancePrior::fit(&[(0.5, 2.0), (1.2, 2.0), (0.8, 3.0), (3.1, 3.0), (0.9, 4.0), (1.7, 4.0)]).unwrap();
        assert!(pooled.prior_df.is_infinite() && (pooled.prior_variance - 1.720_534).abs() < 1e-5, "{pooled:?}");
    }

    #[test]
    fn equal_variances_give_an_infinite_prior_df() {
        // Sample variances of one σ² = 1 on 10 df each, spread less than sampling explains.
        let prior = VariancePrior::fit(&[(1.0, 10.0), (1.05, 10.0), (0.97, 10.0), (1.02, 10.0)]).unwrap();
        assert!(prior.prior_df.is_infinite());
        assert_eq!(prior.moderate(5.0, 10.0), prior.prior_variance);
    }

    #[test]
    fn recovers_a_prior_from_simulated_variances() {
        // True variances σ² = 2 · 8 / χ²(8); sample variances on 3 df. 4000 draws: d₀ ≈ 8, s₀² ≈ 2.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let variances: Vec<(f64, f64)> = (0..4000)
            .map(|_| {
                let sigma2 = 2.0 * 8.0 / chi_squared(&mut rng, 8);
                (sigma2 * chi_squared(&mut rng, 3) / 3.0, 3.0)
            })
            .collect();
        let prior = VariancePrior::fit(&variances).unwrap();
        assert!((prior.prior_variance - 2.0).abs() < 0.15, "{prior:?}");
        assert!((6.0..11.0).contains(&prior.prior_df), "{prior:?}");
    }

    #[test]
    fn moderation_weighs_prior_and_sample_by_their_df() {
        let prior = VariancePrior { prior_df: 4.0, prior_variance: 1.0 };
        assert!((prior.moderate(3.0, 2.0) - (4.0 + 6.0) / 6.0).abs() < 1e-12);
        assert_eq!(prior.moderated_df(2.0), 6.0);
        assert_eq!(prior.moderate(3.0, 0.0), 1.0, "no df of its own: the prior");
    }

    #[test]
    fn too_few_variances_fit_nothing() {
        assert!(VariancePrior::fit(&[(1.0, 2.0)]).is_none());
        assert!(VariancePrior::fit(&[(1.0, 2.0), (0.0, 2.0), (2.0, 0.0)]).is_none());
    }
}
