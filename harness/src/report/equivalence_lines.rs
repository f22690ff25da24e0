//! `## Equivalence`: per set of settings that resolve to one code path, whether they agree (two one-sided
//! tests), and settings that reported more than one path.

use super::document::Section;
use super::number_format::{confidence, percent, signed_percent};
use super::sweep_report::SweepReport;
use super::text::Text;
use crate::analyse::Agreement;

/// The section; empty when the sweep checks no equivalence.
pub fn equivalence_section(report: &SweepReport) -> Section {
    let Some(check) = &report.analysis.equivalence else { return Section::new("Equivalence") };
    let (analysis, columns) = (report.analysis, report.columns());
    let alpha = analysis.verdicts.alpha;
    let mut lines: Vec<Text> = Vec::new();
    for class in &check.classes {
        let members: Vec<String> =
            class.settings.iter().map(|&i| columns.label(&analysis.settings[i].setting)).collect();
        let verdict = agreement_words(class.agreement, "agree", "disagree");
        let interval =
            class.difference.map_or_else(String::new, |d| format!("; difference {}", difference_text(d, alpha)));
        lines.push(Text::plain(format!(
            "{verdict}: {} resolve to {}={}; spread {} against a margin of {}{interval}.",
            members.join(", "),
            check.key,
            class.value,
            percent(class.spread),
            percent(class.bound)
        )));
    }
    for &index in &check.inconsistent {
        let setting = columns.label(&analysis.settings[index].setting);
        lines.push(Text::plain(format!("WARNING: {setting} reported more than one {} across its runs.", check.key)));
    }
    let section = Section::new(format!("Equivalence ({})", check.key)).paragraph(format!(
        "Settings resolving to one code path: agree when two one-sided tests (Schuirmann 1987) at alpha {alpha} put \
         their difference within the margin, disagree when it is shown beyond it."
    ));
    if lines.is_empty() {
        return section.paragraph("No two settings resolve to the same value.");
    }
    section.items(lines)
}

/// `agree`, `WARNING: disagree` or `cannot tell (why)`: an agreement in the words of its sentence.
pub fn agreement_words(agreement: Agreement, agree: &str, disagree: &str) -> String {
    match agreement {
        Agreement::Agree => agree.to_string(),
        Agreement::Disagree => format!("WARNING: {disagree}"),
        Agreement::CannotTell(Some(reason)) => format!("cannot tell ({reason})"),
        Agreement::CannotTell(None) => "cannot tell".to_string(),
    }
}

/// `+1.2% (90% interval -0.4%..+2.8%)`: a relative difference with the interval two one-sided tests at
/// `alpha` read.
pub fn difference_text((difference, low, high): (f64, f64, f64), alpha: f64) -> String {
    let level = confidence(1.0 - 2.0 * alpha);
    format!("{} ({level} interval {}..{})", signed_percent(difference), signed_percent(low), signed_percent(high))
}
