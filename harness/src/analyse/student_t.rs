//! Student's t distribution quantiles and tail probabilities, the one place the analysis calls statrs.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The two-sided critical value t* with P(|T| <= t*) = `confidence` for `df` degrees of freedom
/// (Student's t quantile at (1 + confidence) / 2). None when `df` is not positive.
pub fn two_sided_critical(confidence: f64, df: f64) -> Option<f64> {
    let t = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(t.inverse_cdf((1.0 + confidence) / 2.0))
}

/// The two-sided p-value P(|T| >= |t|) of a t statistic with `df` degrees of freedom.
/// None when `df` is not positive.
pub fn two_sided_p_value(t: f64, df: f64) -> Option<f64> {
    if t.is_nan() {
        return None;
    }
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(2.0 * dist.sf(t.abs()))
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
    fn non_positive_df_has_no_answer() {
        assert!(two_sided_critical(0.95, 0.0).is_none());
        assert!(two_sided_p_value(1.0, -1.0).is_none());
    }
}
