//! Student's t distribution quantiles and tail probabilities: the one place sweep calls statrs for them
//! (the analysis, the search's eliminations, the history's intervals and tests).

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Beyond this many degrees of freedom the t distribution is the normal to every printed digit (and
/// statrs' incomplete-beta quantile loses accuracy).
const NORMAL_DF: f64 = 1e6;

/// The one-sided critical value t* with P(T <= t*) = `probability`: the quantile of Student's t with `df`
/// degrees of freedom. None when `df` is not positive.
pub fn one_sided_critical(probability: f64, df: f64) -> Option<f64> {
    if df >= NORMAL_DF {
        return Some(Normal::standard().inverse_cdf(probability));
    }
    Some(StudentsT::new(0.0, 1.0, df).ok()?.inverse_cdf(probability))
}

/// The two-sided critical value t* with P(|T| <= t*) = `confidence` for `df` degrees of freedom
/// (Student's t quantile at (1 + confidence) / 2). None when `df` is not positive.
pub fn two_sided_critical(confidence: f64, df: f64) -> Option<f64> {
    one_sided_critical((1.0 + confidence) / 2.0, df)
}

/// The two-sided p-value P(|T| >= |t|) of a t statistic with `df` degrees of freedom, never below the
/// smallest positive double (a p-value is a probability of what was seen; it is not 0).
/// None when `df` is not positive.
pub fn two_sided_p_value(t: f64, df: f64) -> Option<f64> {
    if t.is_nan() {
        return None;
    }
    let tail =
        if df >= NORMAL_DF { Normal::standard().sf(t.abs()) } else { StudentsT::new(0.0, 1.0, df).ok()?.sf(t.abs()) };
    Some((2.0 * tail).max(f64::MIN_POSITIVE))
}

/// The one-sided p-value P(T >= t) of a t statistic with `df` degrees of freedom (half the two-sided one on
/// the side t points to), never 0; 1 where it has no answer (a non-positive df).
pub fn upper_p(t: f64, df: f64) -> f64 {
    match two_sided_p_value(t, df) {
        Some(p) if t > 0.0 => p / 2.0,
        Some(p) => 1.0 - p / 2.0,
        None => 1.0,
    }
}

/// `two_sided_p_value`, 1 where it has no answer (a non-positive df): a p-value that claims nothing.
pub fn two_sided_p(t: f64, df: f64) -> f64 {
    two_sided_p_value(t, df).unwrap_or(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn critical_values_match_the_textbook_table() {
        assert!((two_sided_critical(0.95, 2.0).unwrap() - 4.303).abs() < 1e-3);
        assert!((two_sided_critical(0.95, 10.0).unwrap() - 2.228).abs() < 1e-3);
        assert!((two_sided_critical(0.99, 5.0).unwrap() - 4.032).abs() < 1e-3);
    }

    #[test]
    fn p_value_of_the_critical_value_is_alpha() {
        assert!((two_sided_p_value(4.303, 2.0).unwrap() - 0.05).abs() < 1e-3);
        assert!((two_sided_p_value(-2.228, 10.0).unwrap() - 0.05).abs() < 1e-3);
        assert_eq!(two_sided_p_value(0.0, 3.0).unwrap(), 1.0);
    }

    #[test]
    fn huge_or_infinite_df_is_the_normal_and_p_is_never_zero() {
        assert!((two_sided_critical(0.95, f64::INFINITY).unwrap() - 1.959_964).abs() < 1e-6);
        assert!((one_sided_critical(0.8, 1e9).unwrap() - 0.841_621).abs() < 1e-6);
        assert!(two_sided_p_value(1e6, 5.0).unwrap() > 0.0);
    }

    #[test]
    fn the_upper_tail_is_half_the_two_sided_p_on_its_side() {
        // R: pt(2.228, 10, lower.tail = FALSE) = 0.025
        assert!((upper_p(2.228, 10.0) - 0.025).abs() < 1e-4);
        assert!((upper_p(-2.228, 10.0) - 0.975).abs() < 1e-4);
        assert_eq!(upper_p(1.0, 0.0), 1.0);
    }

    #[test]
    fn non_positive_df_has_no_answer() {
        assert!(two_sided_critical(0.95, 0.0).is_none());
        assert!(two_sided_p_value(1.0, -1.0).is_none());
    }
}
