//! `## Quantities`: the declared `[[analysis.quantity]]` formulas, each with its 95% interval; `quantities`
//! in `analysis.json`.

use serde_json::{json, Value};

use crate::analyse::QuantityEstimate;
use crate::report::analysis_json::labels_object;
use crate::report::document::Section;
use crate::report::finding::{Finding, Place};
use crate::report::number_format::{degrees, number};
use crate::report::sweep_report::SweepReport;
use crate::report::table::Table;

/// The finding: the declared quantities with their intervals.
pub struct QuantityLines;

impl Finding for QuantityLines {
    fn name(&self) -> &'static str {
        "quantities"
    }

    fn method(&self) -> &'static str {
        "delta method, Welch-Satterthwaite df"
    }

    /// One row per estimate: where it was evaluated, its value and interval with the unit; none without any.
    fn sections(&self, report: &SweepReport) -> Vec<(Place, Section)> {
        let estimates = &report.analysis.quantities;
        if estimates.is_empty() {
            return Vec::new();
        }
        let mut table = Table::new(["quantity", "at", "value", "95% interval", "df"].map(String::from).to_vec());
        for estimate in estimates {
            let unit =
                |text: String| estimate.unit.as_ref().map_or_else(|| text.clone(), |unit| format!("{text} {unit}"));
            let interval = match estimate.interval {
                Ok((low, high)) => unit(format!("{}..{}", number(low), number(high))),
                Err(reason) => format!("cannot tell ({reason})"),
            };
            let at = if estimate.at.is_empty() { "-".to_string() } else { report.columns().label(&estimate.at) };
            table.push(vec![estimate.name.clone(), at, unit(number(estimate.value)), interval, degrees(estimate.df)]);
        }
        let section = Section::new("Quantities").paragraph(
            "Each declared formula where all its references exist, with a 95% interval by the delta method \
             (first-order Taylor expansion around the settings' means, taken as independent) on \
             Welch-Satterthwaite degrees of freedom.",
        );
        vec![(Place::Results, section.table(table))]
    }

    /// Per declared quantity: name, unit, where, value, interval (or why none), std error, df.
    fn json(&self, report: &SweepReport) -> Option<Value> {
        let json = |e: &QuantityEstimate| {
            let (low, high, reason) = match e.interval {
                Ok((low, high)) => (Some(low), Some(high), None),
                Err(reason) => (None, None, Some(reason.to_string())),
            };
            let df = e.df.is_finite().then_some(e.df);
            json!({ "name": e.name, "unit": e.unit, "at": labels_object(&e.at), "value": e.value,
                    "low": low, "high": high, "reason": reason, "std_error": e.std_error, "df": df,
                    "method": self.method() })
        };
        Some(report.analysis.quantities.iter().map(json).collect())
    }
}
