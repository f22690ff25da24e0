//! Declared quantities (`[[analysis.quantity]]`) evaluated on the estimates, each with a 95% interval by
//! the delta method (first-order Taylor expansion of the formula around the estimates) and
//! Welch-Satterthwaite degrees of freedom.
//!
//! A formula is evaluated at every setting; its references resolve from there (`metric[slices=4]` is
//! the metric at this setting with slices = 4). Evaluations that read the same settings are one
//! estimate, labelled by the params the formula does not fix (`fixed_ms` at rows=512, `speedup` at each
//! setting). Settings' means are taken as independent: when rounds pair them, a difference or ratio of
//! positively correlated means is narrower than shown (the interval is conservative).

use super::cost_model::CostFit;
use super::group_fit::GroupFit;
use super::no_test::NoTest;
use super::setting_summary::{Labels, SettingSummary};
use crate::declare::{Quantity, QuantityTerm};
use crate::student_t::two_sided_critical;

/// Confidence of a quantity's interval.
const CONFIDENCE: f64 = 0.95;

/// One quantity at one place of the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantityEstimate {
    pub name: String,
    pub unit: Option<String>,
    /// The params it was evaluated at that its formula does not fix (empty: one value for the sweep).
    pub at: Labels,
    pub value: f64,
    /// The 95% interval, or why there is none.
    pub interval: Result<(f64, f64), NoTest>,
    pub std_error: f64,
    /// Welch-Satterthwaite degrees of freedom of the interval (infinite when only exact terms vary).
    pub df: f64,
}

/// An input of a formula at one evaluation: its estimate, variance and degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Input {
    value: f64,
    variance: f64,
    df: f64,
    /// Why its variance is unknown (a mean of one run, a line through two points): an interval that
    /// depends on it is not given.
    unmeasured: Option<NoTest>,
    /// Which evaluation-independent object it comes from (a setting index or the fit), to label and
    /// deduplicate the estimate.
    source: Source,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Setting(usize),
    Fit(usize),
}

impl QuantityEstimate {
    /// Every quantity at every place of the grid where all its references exist, in declaration order
    /// then grid order. `group_fits` (one per `fit.by` group) take precedence over `fit` (one line).
    pub fn all(
        quantities: &[Quantity],
        settings: &[SettingSummary],
        fit: Option<&CostFit>,
        group_fits: &[GroupFit],
    ) -> Vec<QuantityEstimate> {
        let mut estimates = Vec::new();
        for quantity in quantities {
            let mut seen: Vec<Vec<Source>> = Vec::new();
            for at in 0..settings.len() {
                let Some(inputs) = inputs_at(quantity, settings, at, fit, group_fits) else { continue };
                let mut sources: Vec<Source> = inputs.iter().map(|input| input.source).collect();
                sources.sort();
                sources.dedup();
                if seen.contains(&sources) {
                    continue;
                }
                seen.push(sources);
                if let Some(estimate) = estimate(quantity, &inputs, labels_at(quantity, &settings[at])) {
                    estimates.push(estimate);
                }
            }
        }
        estimates
    }
}

/// The formula's inputs evaluated at setting `at`; None when a reference names no setting of the grid,
/// a metric the setting did not report, a fit term without a fit, or when two references of one metric
/// land on the same setting (the baseline compared with itself).
fn inputs_at(
    quantity: &Quantity,
    settings: &[SettingSummary],
    at: usize,
    fit: Option<&CostFit>,
    group_fits: &[GroupFit],
) -> Option<Vec<Input>> {
    let mut landed: Vec<(&str, usize)> = Vec::new();
    quantity
        .terms
        .iter()
        .map(|term| match term {
            QuantityTerm::Metric { name, overrides } => {
                let index = resolve(settings, at, overrides)?;
                if landed.contains(&(name.as_str(), index)) {
                    return None;
                }
                landed.push((name.as_str(), index));
                metric_input(&settings[index], name, index)
            }
            QuantityTerm::FitFixed | QuantityTerm::FitPerUnit => fit_input(term, &settings[at], fit, group_fits),
        })
        .collect()
}

/// The setting equal to `settings[at]` except for `overrides` and the labels those decide: a param
/// derived from an overridden one (`bytes` from `rows`: every setting with one `rows` has one `bytes`)
/// moves with it; every other label must stay.
fn resolve(settings: &[SettingSummary], at: usize, overrides: &[(String, String)]) -> Option<usize> {
    if overrides.is_empty() {
        return Some(at);
    }
    let base = &settings[at].setting;
    let is_overridden = |column: &str| overrides.iter().any(|(param, _)| param == column);
    let value_of = |setting: &SettingSummary, column: &str| setting.setting.value(column).cloned();
    let key_of = |setting: &SettingSummary| -> Vec<Option<crate::declare::ParamValue>> {
        overrides.iter().map(|(param, _)| value_of(setting, param)).collect()
    };
    // A label the overridden params decide: equal overridden values never come with two values of it.
    let decided = |column: &str| {
        settings
            .iter()
            .all(|a| settings.iter().all(|b| key_of(a) != key_of(b) || value_of(a, column) == value_of(b, column)))
    };
    let stays: Vec<&(String, crate::declare::ParamValue)> =
        base.values.iter().filter(|(column, _)| !is_overridden(column) && !decided(column)).collect();
    let matches = |candidate: &SettingSummary| {
        candidate.setting.variant == base.variant
            && overrides
                .iter()
                .all(|(param, text)| value_of(candidate, param).is_some_and(|value| value.is_written(text)))
            && stays.iter().all(|(column, value)| value_of(candidate, column).as_ref() == Some(value))
    };
    // Exactly one setting must match.
    let mut found = (0..settings.len()).filter(|&index| matches(&settings[index]));
    found.next().filter(|_| found.next().is_none())
}

/// A metric's mean at a setting (variance s²/n on n − 1 df), or a numeric param's value (exact).
fn metric_input(setting: &SettingSummary, name: &str, index: usize) -> Option<Input> {
    let source = Source::Setting(index);
    if let Some(stats) = setting.metric(name) {
        let n = stats.n as f64;
        let unmeasured = (stats.n < 2).then_some(NoTest::OneRep);
        return Some(Input { value: stats.mean, variance: stats.stdev.powi(2) / n, df: n - 1.0, unmeasured, source });
    }
    let value = setting.setting.value(name)?.as_f64()?;
    Some(Input { value, variance: 0.0, df: f64::INFINITY, unmeasured: None, source })
}

/// The fit's term for the setting's fit group (or the one fit); its variance from the residuals.
fn fit_input(
    term: &QuantityTerm,
    setting: &SettingSummary,
    fit: Option<&CostFit>,
    group_fits: &[GroupFit],
) -> Option<Input> {
    let in_group = |group: &GroupFit| setting.setting.has_all(&group.group);
    let (index, fit) = match group_fits.iter().position(in_group) {
        Some(index) => (index, &group_fits[index].fit),
        None => (usize::MAX, fit?),
    };
    let (value, error) = match term {
        QuantityTerm::FitFixed => (fit.fixed, fit.errors.map(|e| e.fixed)),
        _ => (fit.per_unit, fit.errors.map(|e| e.per_unit)),
    };
    let df = fit.errors.map_or(0.0, |errors| errors.df);
    let unmeasured = fit.errors.is_none().then_some(NoTest::NoResidualDf);
    Some(Input { value, variance: error.map_or(0.0, |e| e * e), df, unmeasured, source: Source::Fit(index) })
}

/// The setting's labels without the params every metric reference of the formula overrides.
fn labels_at(quantity: &Quantity, setting: &SettingSummary) -> Labels {
    let references: Vec<&[(String, String)]> = quantity
        .terms
        .iter()
        .filter_map(|term| match term {
            QuantityTerm::Metric { overrides, .. } => Some(overrides.as_slice()),
            _ => None,
        })
        .collect();
    let fixed_everywhere =
        |column: &str| !references.is_empty() && references.iter().all(|o| o.iter().any(|(p, _)| p == column));
    setting.setting.without(fixed_everywhere).values
}

/// The delta method: Var f ≈ Σ (∂f/∂xᵢ)² Var xᵢ, derivatives by central differences; df by
/// Welch-Satterthwaite over the terms' shares of the variance.
fn estimate(quantity: &Quantity, inputs: &[Input], at: Labels) -> Option<QuantityEstimate> {
    let values: Vec<f64> = inputs.iter().map(|input| input.value).collect();
    let value = quantity.value(&values)?;
    let mut shares = Vec::with_capacity(inputs.len());
    let mut unmeasured = None;
    for (index, input) in inputs.iter().enumerate() {
        // A param's value is exact; a measured mean with no spread stays in, to be named below.
        if input.df.is_infinite() && input.unmeasured.is_none() {
            continue;
        }
        let step = 1e-6 * input.value.abs().max(input.variance.sqrt()).max(1e-300);
        let mut shifted = values.clone();
        shifted[index] = input.value + step;
        let up = quantity.value(&shifted)?;
        shifted[index] = input.value - step;
        let down = quantity.value(&shifted)?;
        let slope = (up - down) / (2.0 * step);
        if slope != 0.0 {
            unmeasured = unmeasured.or(input.unmeasured);
        }
        shares.push((slope * slope * input.variance, input.df));
    }
    let variance: f64 = shares.iter().map(|(share, _)| share).sum();
    let df = welch_satterthwaite(&shares);
    let std_error = variance.sqrt();
    let interval = if let Some(reason) = unmeasured {
        Err(reason)
    } else if variance == 0.0 && !shares.is_empty() {
        Err(NoTest::ZeroStdError)
    } else {
        let half = two_sided_critical(CONFIDENCE, df).map_or(0.0, |t| t * std_error);
        Ok((value - half, value + half))
    };
    Some(QuantityEstimate {
        name: quantity.name.clone(),
        unit: quantity.unit.clone(),
        at,
        value,
        interval,
        std_error,
        df,
    })
}

/// (Σ vᵢ)² / Σ vᵢ² / dfᵢ; infinite when nothing varies.
fn welch_satterthwaite(shares: &[(f64, f64)]) -> f64 {
    let total: f64 = shares.iter().map(|(share, _)| share).sum();
    let denominator: f64 = shares.iter().filter(|(_, df)| *df > 0.0).map(|(share, df)| share * share / df).sum();
    if denominator == 0.0 {
        f64::INFINITY
    } else {
        total * total / denominator
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::fixture_observation;
    use crate::analyse::SettingSummary;
    use crate::declare::QuantityDecl;

    fn compiled(name: &str, expr: &str) -> Quantity {
        Quantity::compile(&QuantityDecl { name: name.into(), expr: expr.into(), unit: Some("ms".into()) }, &[]).unwrap()
    }

    /// The study's section 2 as a fixture: prefill seconds at slices 1 and 4, two row counts, 3 reps.
    fn slice_settings() -> Vec<SettingSummary> {
        let mut observations = Vec::new();
        for (rows, slices, seconds) in
            [("512", "1", [0.583, 0.584, 0.585]), ("512", "4", [1.195, 1.196, 1.197]), ("1024", "1", [1.0, 1.1, 1.2])]
        {
            for (round, s) in seconds.iter().enumerate() {
                let setting = [("rows", rows), ("slices", slices)];
                observations.push(fixture_observation(&setting, round as u32 + 1, &[("prefill_seconds", *s)]));
            }
        }
        SettingSummary::summarise(&observations)
    }

    #[test]
    fn the_fixed_term_per_extra_call_is_one_estimate_per_row_count_with_an_interval() {
        let q = compiled("fixed_ms", "(prefill_seconds[slices=4] - prefill_seconds[slices=1]) / 384 * 1000");
        let estimates = QuantityEstimate::all(&[q], &slice_settings(), None, &[]);
        // rows=1024 has no slices=4 setting: no estimate there.
        assert_eq!(estimates.len(), 1, "{estimates:?}");
        let e = &estimates[0];
        assert_eq!(e.at.len(), 1);
        assert_eq!(e.at[0].0, "rows");
        assert!((e.value - 1.59375).abs() < 1e-6, "{}", e.value);
        // Each mean has sd 0.001 over 3 runs: se of the difference 0.000816 s, /384*1000 = 0.00213 ms.
        assert!((e.std_error - 0.001 * (2.0f64 / 3.0).sqrt() / 384.0 * 1000.0).abs() < 1e-6, "{}", e.std_error);
        assert!((e.df - 4.0).abs() < 1e-6, "{}", e.df);
        let (low, high) = e.interval.unwrap();
        assert!(low < e.value && e.value < high && high - low < 0.02);
    }

    #[test]
    fn a_per_setting_ratio_is_labelled_by_its_setting() {
        let q = compiled("ms_per_krow", "prefill_seconds / rows * 1e6");
        let estimates = QuantityEstimate::all(&[q], &slice_settings(), None, &[]);
        assert_eq!(estimates.len(), 3);
        assert_eq!(estimates[2].at.len(), 2);
        assert!((estimates[2].value - 1.1 / 1024.0 * 1e6).abs() < 1e-6);
    }

    #[test]
    fn one_rep_gives_a_value_and_no_interval() {
        let observations: Vec<_> = [("1", 2.0), ("4", 3.0)]
            .iter()
            .map(|(slices, s)| fixture_observation(&[("slices", slices)], 1, &[("prefill_seconds", *s)]))
            .collect();
        let q = compiled("d", "prefill_seconds[slices=4] - prefill_seconds[slices=1]");
        let estimates = QuantityEstimate::all(&[q], &SettingSummary::summarise(&observations), None, &[]);
        assert_eq!(estimates.len(), 1);
        assert_eq!(estimates[0].value, 1.0);
        assert_eq!(estimates[0].interval, Err(NoTest::OneRep));
    }

    #[test]
    fn the_baseline_against_itself_is_left_out() {
        let q = compiled("impact", "prefill_seconds / prefill_seconds[slices=1] - 1");
        let estimates = QuantityEstimate::all(&[q], &slice_settings(), None, &[]);
        // slices=4 at 512 rows only: slices=1 settings would compare with themselves.
        assert_eq!(estimates.len(), 1);
        assert!((estimates[0].value - (1.196 / 0.584 - 1.0)).abs() < 1e-9);
    }

    /// `m[rows=4096]` found nothing when `bytes` was derived from `rows`: no setting had the base's bytes.
    #[test]
    fn an_override_reaches_the_setting_whose_derived_params_moved_with_it() {
        let mut observations = Vec::new();
        for (rows, bytes, mode, seconds) in [("512", "1", "0", 1.0), ("4096", "8", "0", 2.0), ("4096", "8", "1", 3.0)] {
            for round in 1..=2 {
                let setting = [("rows", rows), ("bytes", bytes), ("mode", mode)];
                observations.push(fixture_observation(&setting, round, &[("prefill_seconds", seconds)]));
            }
        }
        let q = compiled("growth", "prefill_seconds[rows=4096] / prefill_seconds[rows=512]");
        let estimates = QuantityEstimate::all(&[q], &SettingSummary::summarise(&observations), None, &[]);
        // From rows=512 mode=0: rows=4096 mode=0 (bytes moved with rows); mode=1 has no rows=512 partner.
        assert_eq!(estimates.len(), 1, "{estimates:?}");
        assert_eq!(estimates[0].value, 2.0);
        // Both means have no spread: no zero-width interval, the reason instead.
        assert_eq!(estimates[0].interval, Err(NoTest::ZeroStdError));
    }

    #[test]
    fn a_fit_slope_reads_as_a_bandwidth_with_its_interval() {
        let fit = crate::analyse::fit_fixed_plus_per_unit(&[(1e6, 1050.0), (2e6, 1990.0), (4e6, 4010.0)]).unwrap();
        let q = compiled("gbps", "1 / fit.per_unit / 1000");
        let estimates = QuantityEstimate::all(&[q], &slice_settings(), Some(&fit), &[]);
        assert_eq!(estimates.len(), 1, "one fit, one estimate");
        assert!((estimates[0].value - 1.0 / fit.per_unit / 1000.0).abs() < 1e-9);
        assert_eq!(estimates[0].df, 1.0);
        assert!(estimates[0].interval.is_ok());
    }
}
