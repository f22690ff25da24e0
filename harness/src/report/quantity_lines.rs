//! `## Quantities`: the declared `[[analysis.quantity]]` formulas, each with its 95% interval.

use super::document::Section;
use super::number_format::{degrees, number};
use super::sweep_report::SweepReport;
use super::table::Table;

/// One row per estimate: where it was evaluated, its value and interval with the unit; empty without any.
pub fn quantity_section(report: &SweepReport) -> Section {
    let section = Section::new("Quantities");
    let estimates = &report.analysis.quantities;
    if estimates.is_empty() {
        return section;
    }
    let mut table = Table::new(["quantity", "at", "value", "95% interval", "df"].map(String::from).to_vec());
    for estimate in estimates {
        let unit = |text: String| match &estimate.unit {
            Some(unit) => format!("{text} {unit}"),
            None => text,
        };
        let interval = match estimate.interval {
            Ok((low, high)) => unit(format!("{}..{}", number(low), number(high))),
            Err(reason) => format!("cannot tell ({reason})"),
        };
        let at = if estimate.at.is_empty() { "-".to_string() } else { report.columns().label(&estimate.at) };
        table.push(vec![estimate.name.clone(), at, unit(number(estimate.value)), interval, degrees(estimate.df)]);
    }
    section
        .paragraph(
            "Each declared formula where all its references exist, with a 95% interval by the delta method \
             (first-order Taylor expansion around the settings' means, taken as independent) on \
             Welch-Satterthwaite degrees of freedom.",
        )
        .table(table)
}
