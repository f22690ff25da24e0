//! `## Fit`: the declared cost line over the settings, how well it predicts points it was not fitted to
//! (leave-one-out), and whether one line describes the data at all.

use super::document::Section;
use super::number_format::{number, percent, plain_number};
use super::sweep_report::SweepReport;
use crate::analyse::{CostFit, SettingSummary};

/// A held-out error above this share says one line does not describe the points.
const FIT_HELD_OUT_LIMIT: f64 = 0.20;

/// The fit's line and its verdict; empty without a fit.
pub fn fit_section(report: &SweepReport) -> Section {
    let section = Section::new("Fit");
    let (Some(fit), Some(names)) = (report.analysis.fit.as_ref(), report.config.fit.as_ref()) else { return section };
    let points = SettingSummary::points(&report.analysis.settings, &names.x, &names.y);
    let held_out = fit.loo_max_rel_error().map_or_else(
        || "too few points to hold one out".to_string(),
        |error| format!("worst leave-one-out prediction error {}", percent(error)),
    );
    let in_y = |value: f64| report.context.units.in_unit(&number(value), &names.y);
    let (x, y) = (&names.x, &names.y);
    section
        .paragraph(format!(
            "Fit ({} settings, ordinary least squares): {y} = {} + {} × {x}; R² = {:.4}; {held_out}.",
            fit.n,
            in_y(fit.fixed),
            in_y(fit.per_unit),
            fit.r_squared,
        ))
        .paragraph(fit_verdict(fit, &points, x))
}

/// The fit's verdict in one sentence: the line fits, or it does not (at which end of `x` it misses
/// worst, or a negative fixed cost, which no cost can have).
fn fit_verdict(fit: &CostFit, points: &[(f64, f64)], x: &str) -> String {
    let worst = fit.loo_rel_errors.as_ref().and_then(|errors| {
        let (index, error) = errors.iter().copied().enumerate().max_by(|a, b| a.1.total_cmp(&b.1))?;
        Some((points.get(index)?.0, error))
    });
    let misfit = worst.filter(|(_, error)| *error > FIT_HELD_OUT_LIMIT);
    let negative = (fit.fixed < 0.0).then(|| format!("a negative fixed cost ({})", number(fit.fixed)));
    let held_out = misfit.map(|(at, error)| {
        let end = match (points.iter().all(|p| p.0 >= at), points.iter().all(|p| p.0 <= at)) {
            (true, false) => format!(" (the small-{x} end)"),
            (false, true) => format!(" (the large-{x} end)"),
            _ => String::new(),
        };
        format!("held-out error {} at {x}={}{end}", percent(error), plain_number(at))
    });
    match (held_out, negative) {
        (None, None) => match worst {
            Some((_, error)) => format!("Verdict: one line fits: held-out error at most {}.", percent(error)),
            None => "Verdict: too few settings to test the line on points it was not fitted to.".to_string(),
        },
        (held_out, negative) => {
            let reasons: Vec<String> = [held_out, negative].into_iter().flatten().collect();
            format!("Verdict: one line does not fit {x}: {}.", reasons.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fit(fixed: f64, loo_rel_errors: Option<Vec<f64>>) -> CostFit {
        CostFit { fixed, per_unit: 0.01, r_squared: 0.9, n: 3, loo_rel_errors, errors: None }
    }

    /// A fit with a negative fixed cost and 258% held-out error was printed without a verdict.
    #[test]
    fn a_fit_that_misses_a_held_out_point_gets_a_verdict() {
        let points = [(4096.0, 10.0), (65536.0, 20.0), (1048576.0, 300.0)];
        let verdict = fit_verdict(&fit(-1.5, Some(vec![2.58, 0.1, 0.3])), &points, "bytes");
        assert_eq!(
            verdict,
            "Verdict: one line does not fit bytes: held-out error 258.0% at bytes=4096 (the small-bytes end); \
             a negative fixed cost (-1.500)."
        );
        assert_eq!(
            fit_verdict(&fit(2.0, Some(vec![0.05, 0.02, 0.1])), &points, "bytes"),
            "Verdict: one line fits: held-out error at most 10.0%."
        );
        assert!(fit_verdict(&fit(2.0, None), &points[..2], "bytes").contains("too few settings"));
    }
}
