//! `## Equivalence` (`[analysis] equivalence`): per set of settings that resolve to one code path, whether
//! they agree (two one-sided tests), and settings that reported more than one path; either fails the sweep.
//! The wording of agreements and margins is shared with `## Rule` (`rule_lines.rs`).

use crate::analyse::{Agreement, DriftBound, Margin};
use crate::report::document::Section;
use crate::report::finding::{Finding, Place};
use crate::report::number_format::{confidence, percent, signed_percent};
use crate::report::sweep_report::SweepReport;
use crate::report::text::Text;

/// The finding: settings that resolve to one code path against each other.
pub struct EquivalenceLines;

impl Finding for EquivalenceLines {
    fn name(&self) -> &'static str {
        "equivalence"
    }

    fn method(&self) -> &'static str {
        "two one-sided tests, Schuirmann 1987"
    }

    fn sections(&self, report: &SweepReport) -> Vec<(Place, Section)> {
        let Some(check) = &report.analysis.equivalence else { return Vec::new() };
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
                percent(check.margin.bound)
            )));
        }
        for &index in &check.inconsistent {
            let setting = columns.label(&analysis.settings[index].setting);
            lines
                .push(Text::plain(format!("WARNING: {setting} reported more than one {} across its runs.", check.key)));
        }
        let section = Section::new(format!("Equivalence ({})", check.key)).paragraph(format!(
            "Settings resolving to one code path: agree when two one-sided tests (Schuirmann 1987) at alpha {alpha} put \
             their difference within the margin, disagree when it is shown beyond it; {}.",
            margin_text(&check.margin)
        ));
        let no_class = lines.is_empty().then_some("No two settings resolve to the same value.");
        vec![(Place::Tables, section.items(lines).paragraph_if(no_class))]
    }

    fn fails(&self, report: &SweepReport) -> bool {
        let check = report.analysis.equivalence.as_ref();
        check.is_some_and(|check| !check.inconsistent.is_empty() || check.classes.iter().any(|c| c.disagrees()))
    }
}

/// `agree`, `WARNING: disagree` or `cannot tell (why)`: an agreement in the words of its sentence.
pub(super) fn agreement_words(agreement: Agreement, agree: &str, disagree: &str) -> String {
    match agreement {
        Agreement::Agree => agree.to_string(),
        Agreement::Disagree => format!("WARNING: {disagree}"),
        Agreement::CannotTell(Some(reason)) => format!("cannot tell ({reason})"),
        Agreement::CannotTell(None) => "cannot tell".to_string(),
    }
}

/// `+1.2% (90% interval -0.4%..+2.8%)`: a relative difference with the interval two one-sided tests at
/// `alpha` read.
pub(super) fn difference_text((difference, low, high): (f64, f64, f64), alpha: f64) -> String {
    let level = confidence(1.0 - 2.0 * alpha);
    format!("{} ({level} interval {}..{})", signed_percent(difference), signed_percent(low), signed_percent(high))
}

/// The margin and, when it is not the declared one, why: `margin 22.5% instead of the declared 5.0%: the
/// control ... drifted 22.5% ...`.
pub(super) fn margin_text(margin: &Margin) -> String {
    let bound = percent(margin.bound);
    let drifted = |drift: &DriftBound| {
        format!(
            "the control {} drifted {bound} within settings during the sweep (two single runs' 95% range: 2√2 × its \
             {} relative sd)",
            drift.metric,
            percent(drift.rel_sd)
        )
    };
    match (&margin.drift, margin.declared) {
        (Some(drift), Some(declared)) => {
            format!("margin {bound} instead of the declared {}: {}", percent(declared), drifted(drift))
        }
        (Some(drift), None) => format!("margin {bound} (no negligible margin declared): {}", drifted(drift)),
        (None, Some(_)) => format!("margin {bound} as declared"),
        (None, None) => {
            "margin 0 (no negligible margin declared, no control drift): only a difference can be shown".to_string()
        }
    }
}
