//! Errors that stop a sweep as a whole (a failed run does not: it is recorded and the sweep goes on).

use std::path::PathBuf;

use crate::declare::SpecError;
use crate::plan::PlanError;
use crate::record::RecordError;

#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The operating system refused a file (permission, full disk): not a source, the message says it.
    #[error("{}", crate::os_error::describe(error, path))]
    Io { path: PathBuf, error: std::io::Error },
    #[error("setup script {}: {reason}", script.display())]
    Setup { script: PathBuf, reason: String },
    #[error(transparent)]
    Variant(#[from] crate::variants::VariantError),
    #[error(transparent)]
    Build(#[from] crate::rebuild::BuildError),
    #[error("`{name}` is not a variant of the groups {groups}: name groups joined by `+`, `baseline` or `all`")]
    UnknownVariant { name: String, groups: String },
    #[error("the profile's setup script path did not render")]
    SetupTemplate(#[source] crate::template::TemplateError),
    #[error("engine tree {}: not inside a git repository; bisect walks the engine's history ({reason})", tree.display())]
    NotInGit { tree: PathBuf, reason: String },
    #[error("`{rev}` is not a commit of the repository of engine tree {}", tree.display())]
    UnknownRevision { tree: PathBuf, rev: String },
    #[error("--good {good} is not an ancestor of --bad {bad} on its first-parent line (engine tree {})", tree.display())]
    NotAncestor { tree: PathBuf, good: String, bad: String },
    #[error("nothing to bisect: --good {good} and --bad {bad} are the same commit")]
    SameCommit { good: String, bad: String },
    #[error("git: {0}")]
    Git(String),
    #[error("{file}: bisect measures one setting, and this declaration has {settings} after --filter; pick one with --filter KEY=VALUE (repeatable)")]
    SettingCount { file: String, settings: usize },
    #[error("--metric {metric}: not a metric of {file} (its metrics: {known})")]
    UnknownMetric { file: String, metric: String, known: String },
    #[error("the run of commit {commit} failed: {reason}")]
    CommitRunFailed { commit: String, reason: String },
    #[error("interrupted by signal {signal}")]
    Interrupted { signal: i32 },
    /// The file of runs an array task was given (`--runs-file`) does not list runs of this declaration.
    #[error("{}: {reason}", path.display())]
    ListedRuns { path: PathBuf, reason: String },
    /// A round of a search on Slurm could not be submitted: the search stops, its CSV kept.
    #[error("{} keeps the runs recorded so far (`--resume` it to carry on); the next round was not submitted", csv.display())]
    RoundNotSubmitted { csv: PathBuf, source: crate::launch::SlurmError },
}

impl RunnerError {
    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> RunnerError + '_ {
        move |error| RunnerError::Io { path: path.to_path_buf(), error }
    }

    /// Whether the user's input is at fault, or the operating system refused a file (exit 2), rather than
    /// the run (exit 1).
    pub fn is_bad_input(&self) -> bool {
        match self {
            RunnerError::Io { .. }
            | RunnerError::Spec(_)
            | RunnerError::Plan(_)
            | RunnerError::UnknownVariant { .. }
            | RunnerError::SetupTemplate(_)
            | RunnerError::NotInGit { .. }
            | RunnerError::UnknownRevision { .. }
            | RunnerError::NotAncestor { .. }
            | RunnerError::SameCommit { .. }
            | RunnerError::SettingCount { .. }
            | RunnerError::ListedRuns { .. }
            | RunnerError::UnknownMetric { .. } => true,
            RunnerError::Record(error) => error.is_bad_input(),
            RunnerError::Variant(error) => error.is_bad_input(),
            RunnerError::Build(crate::rebuild::BuildError::Io { .. }) => true,
            RunnerError::Build(crate::rebuild::BuildError::Variant(error)) => error.is_bad_input(),
            _ => false,
        }
    }
}
