//! How many runs per setting would decide an undecided rival, from the data so far: the sample size of a
//! t test (Cohen 1988, ch. 2: n grows with ((t₁₋α/₂ + t_power) · σ / δ)²), for beating it and, with a
//! declared margin, for showing it equivalent (Schuirmann 1987's two one-sided tests).

use super::rival_comparison::RivalComparison;

/// Beyond this many times the runs so far, no count of runs is worth suggesting: the difference is
/// below what this noise can show in any affordable sweep.
pub const AFFORDABLE_FACTOR: f64 = 10.0;

/// The runs per setting at which `comparison` would be decided: its standard error shrinks as 1/√n, the
/// observed difference stays, and the test is held to the same level (`detection_alpha`, power
/// `power`). Beating takes the detectable difference down to the observed one; with a `margin` (on the
/// analysis scale) showing equivalence takes the 1 − 2·`equivalence_alpha` interval's half-width down to
/// the room between the difference and the margin. The fewer of the two; None when neither is possible
/// within `AFFORDABLE_FACTOR` times the runs so far.
pub fn runs_to_decide(
    comparison: &RivalComparison,
    detection_alpha: f64,
    power: f64,
    margin: Option<f64>,
    equivalence_alpha: f64,
) -> Option<usize> {
    let runs = comparison.runs as f64;
    let difference = comparison.estimate.abs();
    let scaled = |width: f64, room: f64| (room > 0.0 && width.is_finite()).then(|| runs * (width / room).powi(2));
    let to_beat = scaled(comparison.detectable(detection_alpha, power), difference);
    let to_match =
        margin.and_then(|margin| scaled(comparison.half_width(1.0 - 2.0 * equivalence_alpha), margin - difference));
    let needed = [to_beat, to_match].into_iter().flatten().fold(f64::INFINITY, f64::min);
    (needed <= runs * AFFORDABLE_FACTOR).then(|| (needed.ceil() as usize).max(comparison.runs + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::ComparisonMethod;

    fn comparison(estimate: f64, std_error: f64) -> RivalComparison {
        RivalComparison { estimate, std_error, df: 20.0, runs: 3, method: ComparisonMethod::Blocked, pooled: None }
    }

    #[test]
    fn a_difference_half_the_detectable_one_needs_four_times_the_runs() {
        let c = comparison(-0.02, 0.01);
        let detectable = c.detectable(0.05, 0.8);
        let c = comparison(-detectable / 2.0, 0.01);
        assert_eq!(runs_to_decide(&c, 0.05, 0.8, None, 0.05), Some(12));
    }

    #[test]
    fn a_margin_offers_the_shorter_road_to_equivalence() {
        // A difference of 0.1%: beating it is out of reach, showing it within 5% is not.
        let c = comparison(-0.001, 0.05);
        assert_eq!(runs_to_decide(&c, 0.05, 0.8, None, 0.05), None);
        let needed = runs_to_decide(&c, 0.05, 0.8, Some(0.05), 0.05).unwrap();
        let half_width = c.half_width(0.9);
        assert_eq!(needed, (3.0 * (half_width / 0.049f64).powi(2)).ceil() as usize);
    }

    #[test]
    fn at_least_one_more_run_is_asked_for() {
        let c = comparison(-0.5, 0.01);
        assert_eq!(runs_to_decide(&c, 0.05, 0.8, None, 0.05), Some(4));
    }
}
