//! How a race spends its error rate over its looks: the Lan-DeMets O'Brien-Fleming-type spending
//! function, little at the first looks and most at the last.

use statrs::distribution::{ContinuousCDF, Normal};

use crate::declare::{AnalysisConfig, Race};

/// The error rate α spread over the analyses of a race made after rounds `min`, `min + 1`, ..., `max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlphaSpending {
    pub alpha: f64,
    pub race: Race,
}

impl AlphaSpending {
    /// The error spent by information fraction t ∈ (0, 1]: α(t) = 2 − 2Φ(z₁₋α/₂ / √t) (Lan & DeMets 1983,
    /// the O'Brien-Fleming-type function): early looks need overwhelming evidence, the last nearly α.
    pub fn spent(&self, fraction: f64) -> f64 {
        if fraction <= 0.0 {
            return 0.0;
        }
        if fraction >= 1.0 {
            return self.alpha;
        }
        let normal = Normal::standard();
        let z = normal.inverse_cdf(1.0 - self.alpha / 2.0);
        (2.0 - 2.0 * normal.cdf(z / fraction.min(1.0).sqrt())).min(self.alpha)
    }

    /// The level of the look after `round` (clamped to min..max), the information fraction being
    /// round / max: what the looks before it left, α(t) − α(t_prev); the first look spends all of
    /// α(min / max). The levels of all looks add up to α, so by the union bound the race's claims are
    /// wrong with probability at most α however it stops.
    pub fn at_look(&self, round: u32) -> f64 {
        let max = self.race.max.max(1);
        let round = round.clamp(self.race.min.min(max), max);
        let now = self.spent(f64::from(round) / f64::from(max));
        if round <= self.race.min {
            return now;
        }
        now - self.spent(f64::from(round - 1) / f64::from(max))
    }

    /// Which look `round` is (1 for the first, after round `min`).
    pub fn look(&self, round: u32) -> u32 {
        round.clamp(self.race.min, self.race.max).saturating_sub(self.race.min) + 1
    }
}

/// The error rate the analysis after `round` may spend: alpha for a plain sweep; in a race, that look's
/// share under the Lan-DeMets O'Brien-Fleming-type spending function.
pub fn alpha_at(config: &AnalysisConfig, round: u32) -> f64 {
    match config.race {
        Some(race) => AlphaSpending { alpha: config.alpha, race }.at_look(round),
        None => config.alpha,
    }
}

/// The level of the two one-sided tests that make a rival a practical tie after `round`: stopping a
/// practical tie costs no claim, so the race's stopping analysis spends the whole alpha.
pub fn equivalence_alpha(config: &AnalysisConfig, round: u32) -> f64 {
    if config.stopping {
        config.alpha
    } else {
        alpha_at(config, round)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spending(min: u32, max: u32) -> AlphaSpending {
        AlphaSpending { alpha: 0.05, race: Race { min, max } }
    }

    #[test]
    fn the_obrien_fleming_type_function_by_hand() {
        // α(t) = 2 − 2Φ(1.959964/√t): t = 0.5 → 2 − 2Φ(2.771808) = 0.005575; t = 1 → 0.05.
        let spending = spending(3, 10);
        assert!((spending.spent(0.5) - 0.005_575).abs() < 1e-5, "{}", spending.spent(0.5));
        assert!((spending.spent(1.0) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn the_looks_spend_alpha_exactly_and_later_looks_more() {
        let spending = spending(3, 10);
        let levels: Vec<f64> = (3..=10).map(|round| spending.at_look(round)).collect();
        assert!((levels.iter().sum::<f64>() - 0.05).abs() < 1e-12, "{levels:?}");
        assert!(levels.windows(2).all(|pair| pair[0] < pair[1]), "{levels:?}");
        assert_eq!((spending.look(3), spending.look(10)), (1, 8));
    }

    #[test]
    fn a_race_of_one_look_spends_all_of_alpha() {
        assert!((spending(5, 5).at_look(5) - 0.05).abs() < 1e-12);
    }
}
