//! The CPU share (`[analysis] cpu_share`): the note that opens "What to trust" when other work took the CPU
//! from the runs, and `cpu_share` in `analysis.json`.

use serde_json::{json, Value};

use crate::plural::counted;
use crate::report::document::Note;
use crate::report::finding::Finding;
use crate::report::number_format::percent;
use crate::report::sweep_report::SweepReport;
use crate::report::text::Text;

/// The finding: the share of the CPU the ranks got.
pub struct CpuShareLines;

impl Finding for CpuShareLines {
    fn name(&self) -> &'static str {
        "cpu_share"
    }

    fn method(&self) -> &'static str {
        "median and range of the per-run share of CPU time the ranks asked for that they got"
    }

    /// The CPU the ranks got, said first when other work took it: the plain reason runs are slow and scattered.
    fn notes(&self, report: &SweepReport) -> Vec<Note> {
        let Some(share) = &report.analysis.cpu_share else { return Vec::new() };
        let text = |lead: String| Text::plain(lead).and(" (").code(&share.metric).and(", 100% on an idle machine)");
        let note = if share.machine_was_busy() {
            let lead = format!(
                "The ranks got {} of the CPU they asked for (median of {}; {} to {}): another job is running on this \
                 machine, so the runs are slower and scatter more",
                percent(share.median),
                counted(share.runs, "run"),
                percent(share.lowest),
                percent(share.highest)
            );
            Note::warning(text(lead).and(". Rerun when it is idle for the verdicts an idle machine gives."))
        } else if share.starved > 0 {
            let lead = format!(
                "{} of {} got less than {} of the CPU they asked for (the lowest {})",
                share.starved,
                counted(share.runs, "run"),
                percent(crate::analyse::STARVED_RUN),
                percent(share.lowest)
            );
            Note::info(text(lead).and(": another job ran beside them for a while."))
        } else {
            return Vec::new();
        };
        vec![note]
    }

    fn json(&self, report: &SweepReport) -> Option<Value> {
        Some(json!(report.analysis.cpu_share.as_ref().map(|share| json!({
            "metric": share.metric, "runs": share.runs, "median": share.median, "lowest": share.lowest,
            "highest": share.highest, "starved_runs": share.starved, "machine_busy": share.machine_was_busy(),
        }))))
    }
}
