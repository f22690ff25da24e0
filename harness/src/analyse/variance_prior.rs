//! The empirical-Bayes prior of the settings' variances, and each setting's variance moderated by it
//! (Smyth 2004, the method of limma's `fitFDist` and `squeezeVar`).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, FisherSnedecor};
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
        let usable = LogVariances::of(variances, |_| 0)?;
        let n = usable.e.len() as f64;
        let e_mean = usable.e.iter().sum::<f64>() / n;
        let e_var = usable.e.iter().map(|x| (x - e_mean).powi(2)).sum::<f64>() / (n - 1.0);
        let prior = VariancePrior::from_moments(e_var - usable.mean_trigamma, 0.0);
        Some(VariancePrior { prior_variance: prior.location(e_mean), ..prior })
    }

    /// One prior per series (`series[s]`, dense from 0: settings that share every parameter but the
    /// groups'), when the series differ in noise: the prior's location is fitted per series, as limma's
    /// `eBayes(trend = TRUE)` fits it along a covariate (Smyth 2004, section 6.2, with a design matrix;
    /// here the covariate is a factor), and d₀ from the spread of the log-variances within series. A
    /// setting much noisier than the rest is then moderated toward its own series' level, not the whole
    /// sweep's, so its moderated t is not overconfident. Chosen over `fit` when a one-way ANOVA of the
    /// eₛ by series rejects equal series at the liberal level `SERIES_PRETEST_LEVEL` (a preliminary test
    /// of pooling, Bancroft 1944: at 0.25 a series difference that matters is seldom missed); None when
    /// the series do not differ or cannot be told apart: fewer than two series, or fewer than three
    /// usable variances per series on average (with two, the pretest rests on a handful of df and fires
    /// on chance, and a series' pool is hardly more than a setting's own df). Returns the prior of each
    /// series, in order.
    pub fn fit_by_series(variances: &[(f64, f64)], series: &[usize]) -> Option<Vec<VariancePrior>> {
        let usable = LogVariances::of(variances, |s| series[s])?;
        let count = series.iter().copied().max().map_or(0, |k| k + 1);
        let mut sums = vec![(0.0, 0.0); count];
        for (e, &k) in usable.e.iter().zip(&usable.series) {
            sums[k].0 += e;
            sums[k].1 += 1.0;
        }
        let present = sums.iter().filter(|(_, n)| *n > 0.0).count() as f64;
        let n = usable.e.len() as f64;
        if present < 2.0 || n < 3.0 * present {
            return None;
        }
        let means: Vec<f64> = sums.iter().map(|(sum, n)| if *n > 0.0 { sum / n } else { f64::NAN }).collect();
        let grand = usable.e.iter().sum::<f64>() / n;
        let between =
            sums.iter().zip(&means).filter(|(s, _)| s.1 > 0.0).map(|(s, m)| s.1 * (m - grand).powi(2)).sum::<f64>()
                / (present - 1.0);
        let within =
            usable.e.iter().zip(&usable.series).map(|(e, &k)| (e - means[k]).powi(2)).sum::<f64>() / (n - present);
        let p = FisherSnedecor::new(present - 1.0, n - present).map_or(1.0, |f| {
            if within > 0.0 {
                f.sf(between / within)
            } else {
                0.0
            }
        });
        if p >= SERIES_PRETEST_LEVEL {
            return None;
        }
        let prior = VariancePrior::from_moments(within - usable.mean_trigamma, 0.0);
        // A series with no usable variance (all its settings' variances zero or without df) takes the
        // grand location.
        Some(
            means
                .iter()
                .map(|m| VariancePrior { prior_variance: prior.location(if m.is_nan() { grand } else { *m }), ..prior })
                .collect(),
        )
    }

    /// d₀ from the excess of the log-variances' spread over sampling's (ψ₁(d₀/2) = excess; infinite when
    /// there is none); `prior_variance` is kept as given, and callers set it with `location`.
    fn from_moments(excess: f64, prior_variance: f64) -> VariancePrior {
        let prior_df = if excess > 0.0 { 2.0 * trigamma_inverse(excess) } else { f64::INFINITY };
        VariancePrior { prior_df, prior_variance }
    }

    /// s₀² from the mean of the eₛ: exp(ē + ψ(d₀/2) − ln(d₀/2)), exp(ē) when d₀ is infinite.
    fn location(&self, e_mean: f64) -> f64 {
        if self.prior_df.is_infinite() {
            e_mean.exp()
        } else {
            (e_mean + digamma(self.prior_df / 2.0) - (self.prior_df / 2.0).ln()).exp()
        }
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

/// The level of the series pretest: `fit_by_series` is used when the series differ at it.
pub const SERIES_PRETEST_LEVEL: f64 = 0.25;

/// The usable sample variances' eₛ = ln s²ₛ − ψ(dₛ/2) + ln(dₛ/2), each with its series, and the mean
/// ψ₁(dₛ/2) (the sampling variance of eₛ).
struct LogVariances {
    e: Vec<f64>,
    series: Vec<usize>,
    mean_trigamma: f64,
}

impl LogVariances {
    /// Variances with df and above 1e-5 of the median of the positive ones; None below two.
    fn of(variances: &[(f64, f64)], series: impl Fn(usize) -> usize) -> Option<LogVariances> {
        let mut positive: Vec<f64> = variances.iter().filter(|(s2, df)| *df > 0.0 && *s2 > 0.0).map(|v| v.0).collect();
        if positive.len() < 2 {
            return None;
        }
        let mid = positive.len() / 2;
        let median = *positive.select_nth_unstable_by(mid, f64::total_cmp).1;
        let usable: Vec<usize> = (0..variances.len())
            .filter(|&s| {
                let (s2, df) = variances[s];
                df > 0.0 && s2 > 1e-5 * median && s2.is_finite()
            })
            .collect();
        if usable.len() < 2 {
            return None;
        }
        let e = usable.iter().map(|&s| {
            let (s2, df) = variances[s];
            s2.ln() - digamma(df / 2.0) + (df / 2.0).ln()
        });
        let mean_trigamma = usable.iter().map(|&s| trigamma(variances[s].1 / 2.0)).sum::<f64>() / usable.len() as f64;
        Some(LogVariances { e: e.collect(), series: usable.iter().map(|&s| series(s)).collect(), mean_trigamma })
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

    /// 4 series x 5 settings, sample variances on 1.75 df each (3 reps in time blocks), series 0 with
    /// 16x the variance of the rest (4% against 1% noise).
    fn series_variances(rng: &mut ChaCha8Rng, noisy: f64) -> (Vec<(f64, f64)>, Vec<usize>) {
        let series: Vec<usize> = (0..20).map(|s| s % 4).collect();
        let variances = series
            .iter()
            .map(|&k| {
                let sigma2 = if k == 0 { noisy } else { 1.0 };
                // χ²(1.75) as 0.75 of a χ²(1) and a χ²(1) (close enough to test the fit's choices).
                let draw = 0.75 * chi_squared(rng, 1) + chi_squared(rng, 1);
                (sigma2 * draw / 1.75, 1.75)
            })
            .collect();
        (variances, series)
    }

    #[test]
    fn a_noisy_series_gets_its_own_prior() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut chosen = 0;
        for _ in 0..200 {
            let (variances, series) = series_variances(&mut rng, 16.0);
            if let Some(priors) = VariancePrior::fit_by_series(&variances, &series) {
                chosen += 1;
                assert_eq!(priors.len(), 4);
                assert!(priors.windows(2).all(|w| w[0].prior_df == w[1].prior_df), "one d0: {priors:?}");
                assert!(priors[0].prior_variance > 2.0 * priors[1].prior_variance, "{priors:?}");
            }
        }
        assert!(chosen >= 190, "the noisy series was told apart in {chosen} of 200");
    }

    #[test]
    fn series_of_equal_noise_keep_one_prior_mostly() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let chosen = (0..400)
            .filter(|_| {
                let (variances, series) = series_variances(&mut rng, 1.0);
                VariancePrior::fit_by_series(&variances, &series).is_some()
            })
            .count();
        // The pretest's level is 0.25; the log-variances of 1.75 df are skewed, so allow some slack.
        assert!((40..=140).contains(&chosen), "series chosen in {chosen} of 400 with equal noise");
    }

    #[test]
    fn series_that_cannot_be_told_apart_fit_nothing() {
        let variances = [(1.0, 2.0), (9.0, 2.0), (1.2, 2.0)];
        assert!(VariancePrior::fit_by_series(&variances, &[0, 1, 2]).is_none(), "one setting per series");
        assert!(VariancePrior::fit_by_series(&variances, &[0, 0, 0]).is_none(), "one series");
        // Exactly equal within series, different between: chosen, and d0 infinite (pooled per series).
        let two_per_series = [(1.0, 2.0), (1.0, 2.0), (9.0, 2.0), (9.0, 2.0)];
        assert!(VariancePrior::fit_by_series(&two_per_series, &[0, 0, 1, 1]).is_none(), "two per series");
        let variances = [(1.0, 2.0), (1.0, 2.0), (1.0, 2.0), (9.0, 2.0), (9.0, 2.0), (9.0, 2.0)];
        let priors = VariancePrior::fit_by_series(&variances, &[0, 0, 0, 1, 1, 1]).expect("series differ");
        assert!(
            priors[0].prior_df.is_infinite()
                && (priors[1].prior_variance / priors[0].prior_variance - 9.0).abs() < 1e-9
        );
    }

    #[test]
    fn too_few_variances_fit_nothing() {
        assert!(VariancePrior::fit(&[(1.0, 2.0)]).is_none());
        assert!(VariancePrior::fit(&[(1.0, 2.0), (0.0, 2.0), (2.0, 0.0)]).is_none());
    }
}
