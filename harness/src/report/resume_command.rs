//! The command that completes a sweep that stopped early, whole and quoted so it runs as printed: the
//! sweep's own command line with `--resume CSV` (a `sweep run`, or a search's `sweep submit`), or the same
//! command again (a `sweep ablate`, which has no resume).

use std::path::Path;

use crate::shell_line::shell_line;

/// Options of the first command that the completing one must not repeat: a resume names its CSV itself,
/// `--out` of an existing CSV is refused, a dry run runs nothing, `--force` would replace the summary.
const DROPPED: [&str; 4] = ["--out", "--resume", "--dry-run", "--force"];
/// Of those, the ones followed by a value when not written `--flag=value`.
const WITH_VALUE: [&str; 2] = ["--out", "--resume"];

/// A command line that completes a sweep, and whether it resumes the CSV or starts again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeCommand {
    pub line: String,
    pub resumes: bool,
}

/// `argv` without the options `dropped` (`--flag` or `--flag=value`), and without the value following
/// those of them `with_value` that were written as two words.
fn without(argv: &[String], dropped: &[&str], with_value: &[&str]) -> Vec<String> {
    let mut words = Vec::with_capacity(argv.len());
    let mut value_of_dropped = false;
    for arg in argv {
        let flag = arg.split('=').next().unwrap_or_default();
        if std::mem::take(&mut value_of_dropped) {
            continue;
        }
        if dropped.contains(&flag) {
            value_of_dropped = with_value.contains(&arg.as_str());
            continue;
        }
        words.push(arg.clone());
    }
    words
}

impl ResumeCommand {
    /// From the argv that ran the sweep (`std::env::args()`, or the sidecar's `command_line`) and the CSV
    /// it wrote (shown relative to the working directory, as the user would type it).
    pub fn of(argv: &[String], csv: &Path) -> ResumeCommand {
        ResumeCommand::resuming(without(argv, &DROPPED, &WITH_VALUE), csv)
    }

    /// The resume of a `sweep run` (`argv`, writing `csv`) extended to `reps` rounds: the runs already
    /// recorded are kept and each setting gets the rounds it lacks. None for an ablation (no resume).
    pub fn with_reps(argv: &[String], csv: &Path, reps: usize) -> Option<ResumeCommand> {
        let kept: Vec<String> = without(argv, &DROPPED, &WITH_VALUE);
        let mut command = ResumeCommand::resuming(without(&kept, &["--reps"], &["--reps"]), csv);
        command.line.push_str(&format!(" --reps {reps}"));
        command.resumes.then_some(command)
    }

    /// `words` (a command line already rid of the options it must not repeat) with `--resume CSV` when it
    /// is a `sweep run`, or a `sweep submit` (which finishes in the foreground only as a search on Slurm).
    fn resuming(mut words: Vec<String>, csv: &Path) -> ResumeCommand {
        let resumes = matches!(words.get(1).map(String::as_str), Some("run" | "submit"));
        if resumes {
            words.extend(["--resume".to_string(), crate::os_error::shown(csv).display().to_string()]);
        }
        ResumeCommand { line: shell_line(&words), resumes }
    }

    /// `this completes the sweep: <command>` (or, without a resume, `run it again: <command>`).
    pub fn hint(&self) -> String {
        match self.resumes {
            true => format!("this completes the sweep: {}", self.line),
            false => format!("run it again to complete it: {}", self.line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_run_is_resumed_with_its_own_options() {
        let command = ResumeCommand::of(
            &argv("target/release/sweep run sweeps/s.toml --reps 5 --out old.csv --force --resume=x.csv --seed 7"),
            Path::new("results/s/1.csv"),
        );
        assert_eq!(command.line, "target/release/sweep run sweeps/s.toml --reps 5 --seed 7 --resume results/s/1.csv");
        assert!(command.hint().starts_with("this completes the sweep: "));
    }

    #[test]
    fn a_search_on_slurm_is_resumed_by_submitting_it_again_with_its_csv() {
        let command = ResumeCommand::of(&argv("sweep submit s.toml --shards 4 --dry-run"), Path::new("r/1.csv"));
        assert_eq!(command.line, "sweep submit s.toml --shards 4 --resume r/1.csv");
        assert!(command.resumes);
    }

    #[test]
    fn a_resume_with_more_reps_replaces_the_reps_asked_for() {
        let command =
            ResumeCommand::with_reps(&argv("sweep run s --reps 3 --seed 7 --reps=4"), Path::new("r.csv"), 12).unwrap();
        assert_eq!(command.line, "sweep run s --seed 7 --resume r.csv --reps 12");
        assert_eq!(ResumeCommand::with_reps(&argv("sweep ablate g"), Path::new("r.csv"), 12), None);
    }

    #[test]
    fn an_ablation_runs_again_and_odd_words_are_quoted() {
        let command = ResumeCommand::of(&argv("sweep ablate g --filter a=b\tc --out x.csv"), Path::new("x.csv"));
        assert_eq!(command.line, "sweep ablate g --filter 'a=b\tc'");
        assert!(!command.resumes && command.hint().starts_with("run it again to complete it: "));
    }
}
