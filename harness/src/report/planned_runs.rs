//! How many runs a sweep planned, so a summary of fewer never reads as a finished sweep.

use super::document::Note;
use super::resume_command::ResumeCommand;
use super::text::Text;

/// The runs a sweep's plan held (warmups included), whether it was a race that may stop early, and the
/// command that completes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRuns {
    pub runs: usize,
    pub race: bool,
    pub resume: Option<ResumeCommand>,
}

impl PlannedRuns {
    /// A note when fewer than planned runs are recorded (a warning unless a race stopped them); None when
    /// the plan is complete.
    pub fn shortfall(&self, recorded: usize) -> Option<Note> {
        if recorded >= self.runs {
            return None;
        }
        if self.race {
            return Some(Note::info(format!(
                "The race recorded {recorded} of at most {} runs: it stops running settings once decided.",
                self.runs
            )));
        }
        let text = Text::plain(format!(
            "Only {recorded} of {} planned runs are recorded: the sweep was interrupted (or is still running)",
            self.runs
        ));
        Some(Note::warning(match &self.resume {
            Some(command) if command.resumes => text.and("; this completes it: ").code(&command.line).and("."),
            Some(command) => text.and("; run it again to complete it: ").code(&command.line).and("."),
            None => text.and("."),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_incomplete_plan_says_so_with_the_command_that_completes_it() {
        let resume = ResumeCommand::of(&["sweep".into(), "run".into(), "s.toml".into()], std::path::Path::new("r.csv"));
        let plain = PlannedRuns { runs: 12, race: false, resume: Some(resume) };
        assert_eq!(plain.shortfall(12), None);
        let note = plain.shortfall(7).unwrap();
        assert!(note.warning);
        assert_eq!(
            note.text.with_backticks(),
            "Only 7 of 12 planned runs are recorded: the sweep was interrupted (or is still running); this completes \
             it: `sweep run s.toml --resume r.csv`."
        );
        let race = PlannedRuns { runs: 40, race: true, resume: None };
        assert!(race.shortfall(25).unwrap().text.with_backticks().contains("25 of at most 40 runs"));
    }
}
