//! How every number in a report is written, so all tables round the same way.

/// The power of ten of a number's leading digit (875.8 -> 2, 0.0421 -> -2); None for 0 and non-finite.
fn exponent(value: f64) -> Option<i32> {
    (value != 0.0 && value.is_finite()).then(|| value.abs().log10().floor() as i32)
}

/// `value` rounded to a multiple of 10^`power`, written with the decimals that shows (none for a power of
/// 0 or more: 13262 at power 1 is 13260).
fn rounded_at(value: f64, power: i32) -> String {
    // Beyond what a table can show in positional digits (1e308 has 309), the same digits in scientific form.
    if let Some(leading) = exponent(value).filter(|&leading| !(-9..15).contains(&leading)) {
        return format!("{value:.*e}", (leading - power).max(0) as usize);
    }
    if power > 0 {
        let step = 10f64.powi(power);
        format!("{:.0}", (value / step).round() * step)
    } else {
        format!("{value:.*}", (-power) as usize)
    }
}

/// Four significant digits (875.8, 8.720, 0.8424, 1265, 13260); 0 is `0`.
pub fn number(value: f64) -> String {
    match exponent(value) {
        Some(power) => rounded_at(value, power - 3),
        None if value == 0.0 => "0".to_string(),
        None => format!("{value}"),
    }
}

/// A whole number without a needless `.0` (a parameter value such as 4096 bytes, an axis tick),
/// anything else as `number`.
pub fn plain_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        number(value)
    }
}

/// Degrees of freedom: whole as they usually are (11), else to one decimal (8.7), `inf` when infinite.
pub fn degrees(df: f64) -> String {
    if df.is_infinite() {
        "inf".to_string()
    } else if (df - df.round()).abs() < 1e-9 {
        format!("{df:.0}")
    } else {
        format!("{df:.1}")
    }
}

/// A signed number, as the study writes deltas: +0.0090, -0.7918 (a value that prints as zero is +).
pub fn signed(value: f64) -> String {
    with_sign(value, number(value.abs()))
}

/// `magnitude` (the absolute value as written, perhaps followed by ` ± ...`) after the sign of `value`: an
/// ASCII `-` (a typographic minus does not paste into a spreadsheet as a number), or `+` when `value` is
/// positive or its written digits are all zero.
fn with_sign(value: f64, magnitude: String) -> String {
    let digits = magnitude.split(' ').next().unwrap_or_default();
    let zero = digits.trim_start_matches(['0', '.']).is_empty();
    format!("{}{magnitude}", if value < 0.0 && !zero { "-" } else { "+" })
}

/// A fraction as a percentage with one decimal: 0.0305 -> 3.0%.
pub fn percent(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// A signed percentage: -36.0%, +0.7%; one that rounds to zero is 0.0% (never "-0.0%").
pub fn signed_percent(fraction: f64) -> String {
    if (fraction * 1000.0).round() == 0.0 {
        return percent(0.0);
    }
    with_sign(fraction, percent(fraction.abs()))
}

/// A confidence level as people write it: 95%, 97.5%, 99.17%: the digits that tell levels apart, no more.
pub fn confidence(level: f64) -> String {
    let text = format!("{:.2}", level * 100.0);
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// `mean ± half-width`: the half-width to two significant digits and the mean to the same place (the
/// usual rounding of a value to its uncertainty), but never past the mean's fourth significant digit
/// (`1239 ± 2`, not `1238.6 ± 2.0`); `mean` alone without a half-width; a zero-width interval (every run
/// gave the same value) says so instead of printing `± 0`.
pub fn with_ci(mean: f64, half_width: Option<f64>) -> String {
    match half_width.map(|half| (half, exponent(half))) {
        Some((0.0, _)) => format!("{} (all runs equal)", number(mean)),
        Some((half, Some(half_power))) => {
            let power = exponent(mean).map_or(half_power - 1, |mean_power| (half_power - 1).max(mean_power - 3));
            format!("{} ± {}", rounded_at(mean, power), rounded_at(half, power))
        }
        _ => number(mean),
    }
}

/// A signed estimate with its half-width: +0.0090 ± 0.0096.
pub fn signed_with_ci(estimate: f64, half_width: Option<f64>) -> String {
    with_sign(estimate, with_ci(estimate.abs(), half_width))
}

/// A p-value: three decimals, or `< 0.001`.
pub fn p_value(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".to_string()
    } else {
        format!("{p:.3}")
    }
}

/// A p-value as a sentence states it: `p = 0.048`, or `p < 0.001` (never `p = < 0.001`).
pub fn p_stated(p: f64) -> String {
    let value = p_value(p);
    match value.starts_with('<') {
        true => format!("p {value}"),
        false => format!("p = {value}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1e308 was written with all of its 309 digits.
    #[test]
    fn numbers_beyond_positional_digits_are_scientific() {
        assert_eq!(number(1.5e308), "1.500e308");
        assert_eq!(number(-2.25e-12), "-2.250e-12");
        assert_eq!(number(123456789012345.0), "123500000000000");
        assert_eq!(with_ci(1.25e307, Some(2.1e306)), "1.25e307 ± 2.1e306");
    }

    #[test]
    fn four_significant_digits() {
        assert_eq!(number(875.753), "875.8");
        assert_eq!(number(8.72), "8.720");
        assert_eq!(number(0.84241), "0.8424");
        assert_eq!(number(1265.23), "1265");
        assert_eq!(number(13262.0), "13260");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(-0.00001234), "-0.00001234");
    }

    #[test]
    fn signs_use_the_ascii_minus_that_pastes_as_a_number() {
        assert_eq!(signed(-0.7918), "-0.7918");
        assert_eq!(signed(0.009), "+0.009000");
        assert_eq!(signed(0.0), "+0");
        assert_eq!(signed_percent(-0.3596), "-36.0%");
        assert_eq!(percent(0.0305), "3.0%");
    }

    #[test]
    fn whole_numbers_print_plain() {
        assert_eq!(plain_number(4096.0), "4096");
        assert_eq!(plain_number(-2.0), "-2");
        assert_eq!(plain_number(0.25), "0.2500");
        assert_eq!(plain_number(0.5), "0.5000");
    }

    #[test]
    fn interval_rounds_the_mean_to_its_uncertainty() {
        assert_eq!(with_ci(0.009, Some(0.0096)), "0.0090 ± 0.0096");
        assert_eq!(with_ci(875.753, Some(28.26)), "876 ± 28");
        assert_eq!(with_ci(8.81, Some(0.22)), "8.81 ± 0.22");
        assert_eq!(with_ci(1238.6, Some(2.0)), "1239 ± 2", "no more than four significant digits");
        assert_eq!(with_ci(2.2023, Some(0.0049)), "2.202 ± 0.005");
        assert_eq!(with_ci(1128.4, Some(120.0)), "1130 ± 120");
        assert_eq!(with_ci(0.0, Some(0.012)), "0.000 ± 0.012");
        assert_eq!(with_ci(5.0, Some(0.0)), "5.000 (all runs equal)");
        assert_eq!(with_ci(5.0, None), "5.000");
        assert_eq!(signed_with_ci(-1.36, Some(0.01)), "-1.360 ± 0.010");
    }

    /// "1 significant regression(s)" and "1 tests" in `compare`.
    #[test]
    fn small_p_values_are_bounded() {
        assert_eq!(p_value(0.0004), "< 0.001");
        assert_eq!(p_value(0.0483), "0.048");
    }

    /// A bounded p-value was printed as "p = < 0.001".
    #[test]
    fn a_stated_p_value_is_p_below_never_p_equals_below() {
        assert_eq!(p_stated(0.0004), "p < 0.001");
        assert_eq!(p_stated(0.0483), "p = 0.048");
    }
}
