//! `BuildJob`: one variant's build command (rendered for its tree), and running it with its output
//! captured in a log.

use std::collections::VecDeque;
use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use nix::unistd::Pid;
use regex::Regex;
use serde_json::{Map, Value};

use super::build_cache::BuildKey;
use super::error::BuildError;
use crate::confined_dir::ConfinedDir;
use crate::ground::BaseEnv;
use crate::launch::{self, Limits, RankCommand, StopReason};
use crate::template::{Template, TemplateError};

/// Lines of the log shown when a build fails: enough for the compiler's first error and its context.
const TAIL_LINES: usize = 20;

/// One variant's build: argv (program + args, never a shell string) run in `tree` with extra `env`.
#[derive(Debug, Clone)]
pub struct BuildJob {
    pub variant: String,
    /// The directory the build runs in (the variant's tree copy, or the real tree in place).
    pub tree: PathBuf,
    /// Created before the build runs; the argv already names it.
    pub build_dir: PathBuf,
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub key: BuildKey,
}

/// A build that succeeded, and how long it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuildOutcome {
    pub seconds: f64,
}

/// Between SIGTERM and SIGKILL for a build: make passes SIGTERM on to its compilers.
const BUILD_GRACE: Duration = Duration::from_secs(5);

/// Runs the job's argv with stdout and stderr both in `log` (below `logs`, reached without following a
/// link) through the executor (own process group, no timeout, stopped by a signal as `Interrupted`),
/// telling `on_group` the build's process group before anything runs in it; a non-zero exit is `Failed`
/// with the log's tail.
pub fn run_build(
    job: &BuildJob,
    (logs, log): (&ConfinedDir, &Path),
    on_group: &mut dyn FnMut(Pid) -> std::io::Result<()>,
) -> Result<BuildOutcome, BuildError> {
    if job.argv.is_empty() {
        return Err(BuildError::EmptyCommand { variant: job.variant.clone() });
    }
    fs::create_dir_all(&job.build_dir).map_err(BuildError::io("create", &job.build_dir))?;
    let folder = log.parent().unwrap_or(Path::new(""));
    logs.create_dir_all(folder).map_err(BuildError::io("create", folder))?;
    let command = RankCommand { rank: None, argv: job.argv.clone(), env: job.env.clone(), log: log.to_path_buf() };
    let limits = Limits { timeout: Limits::NO_TIMEOUT, grace: BUILD_GRACE };
    let execution = launch::execute_with(&[command], &job.tree, logs, &BaseEnv::Inherit, limits, on_group);
    let variant = job.variant.clone();
    match execution.reason {
        StopReason::Succeeded => Ok(BuildOutcome { seconds: execution.duration.as_secs_f64() }),
        StopReason::Interrupted { signal } => Err(BuildError::Interrupted { variant, signal }),
        StopReason::SpawnFailed { program, error } => Err(BuildError::Spawn { variant, program, error }),
        reason => Err(BuildError::Failed {
            variant,
            status: build_status(&reason),
            first_error: first_error_line(log),
            log: log.to_path_buf(),
            tail: log_tail(log)?,
        }),
    }
}

/// `exit status: 2` for a compiler error, else the executor's sentence.
fn build_status(reason: &StopReason) -> String {
    match reason {
        StopReason::Failed { code, .. } => format!("exit status: {code}"),
        StopReason::Signalled { signal, .. } => format!("killed by signal {signal}"),
        reason => reason.to_string(),
    }
}

/// The last `TAIL_LINES` lines of the log, where the compiler's error is.
pub fn log_tail(log: &Path) -> Result<String, BuildError> {
    let file = File::open(log).map_err(BuildError::io("read", log))?;
    let mut tail = VecDeque::with_capacity(TAIL_LINES);
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(BuildError::io("read", log))?;
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(String::from_utf8_lossy(&line).trim_end().to_string());
    }
    Ok(Vec::from(tail).join("\n"))
}

/// The build command of a profile rendered for one tree and build dir (`{{tree}}`, `{{build_dir}}`) and
/// the build-time params of one setting, element by element; the result is run directly, never through
/// a shell.
pub fn render_build_argv<'a>(
    argv: impl IntoIterator<Item = &'a Template>,
    tree: &Path,
    build_dir: &Path,
    params: &Map<String, Value>,
) -> Result<Vec<String>, TemplateError> {
    let mut context = params.clone();
    context.insert("tree".into(), tree.display().to_string().into());
    context.insert("build_dir".into(), build_dir.display().to_string().into());
    argv.into_iter().map(|part| part.render(&context)).collect()
}

/// The first line saying `error` (any case, as a word), else the last non-empty line, else a note that the
/// build printed nothing; trimmed, so it fits a one-line report. A broken build (and a failed run) is
/// reported by its first error: what a compiler or engine prints first is the cause, and the rest
/// (`make`'s own `Error 1`, mpirun's banner) are consequences.
fn first_error_line(log: &Path) -> String {
    let text = String::from_utf8_lossy(&fs::read(log).unwrap_or_default()).into_owned();
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let first_error = lines.clone().find(|line| ERROR_WORD.is_match(line));
    first_error.or_else(|| lines.next_back()).unwrap_or("the build printed nothing").to_string()
}

static ERROR_WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\berror\b").expect("the pattern is valid"));

#[cfg(test)]
mod tests {
    use super::*;

    fn job(dir: &Path, script: &str) -> BuildJob {
        BuildJob {
            variant: "rank1_update".to_string(),
            tree: dir.to_path_buf(),
            build_dir: dir.join("build"),
            argv: vec!["sh".to_string(), "-c".to_string(), script.to_string()],
            env: vec![("GREETING".to_string(), "hello".to_string())],
            key: BuildKey::new(&[], &[], "", ""),
        }
    }

    #[test]
    fn runs_in_the_tree_with_env_and_logs_both_streams() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("logs/build.log");
        let logs = ConfinedDir::open(dir.path()).unwrap();
        let script = "echo $GREETING; echo warn >&2; pwd > build/where";
        let outcome = run_build(&job(dir.path(), script), (&logs, &log), &mut |_| Ok(())).unwrap();
        assert!(outcome.seconds >= 0.0);
        let text = fs::read_to_string(&log).unwrap();
        assert!(text.contains("hello") && text.contains("warn"), "{text}");
        let cwd = fs::read_to_string(dir.path().join("build/where")).unwrap();
        assert_eq!(Path::new(cwd.trim()).canonicalize().unwrap(), dir.path().canonicalize().unwrap());
    }

    #[test]
    fn failing_build_reports_the_tail_of_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("build.log");
        let script = "for i in $(seq 1 50); do echo line $i; done; echo 'gd.cpp:12:3: error: expected ;' >&2; exit 2";
        let logs = ConfinedDir::open(dir.path()).unwrap();
        let error = run_build(&job(dir.path(), script), (&logs, &log), &mut |_| Ok(())).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("gd.cpp:12:3: error: expected ;"), "{message}");
        assert!(message.contains("line 50") && !message.contains("line 30\n"), "{message}");
        assert!(message.contains("rank1_update") && message.contains("exit status: 2"), "{message}");
    }

    #[test]
    fn missing_program_and_empty_argv_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let mut missing = job(dir.path(), "");
        missing.argv = vec!["/nonexistent/make".to_string()];
        let (logs, log) = (ConfinedDir::open(dir.path()).unwrap(), dir.path().join("l"));
        assert!(matches!(run_build(&missing, (&logs, &log), &mut |_| Ok(())), Err(BuildError::Spawn { .. })));
        missing.argv.clear();
        assert!(matches!(run_build(&missing, (&logs, &log), &mut |_| Ok(())), Err(BuildError::EmptyCommand { .. })));
    }

    fn templates(texts: &[&str]) -> Vec<Template> {
        texts.iter().map(|text| Template::parse(text).unwrap()).collect()
    }

    #[test]
    fn tree_and_build_dir_are_substituted_per_element() {
        let argv = templates(&["make", "-C", "{{tree}}", "BUILD_DIR={{build_dir}}"]);
        let rendered = render_build_argv(&argv, Path::new("/t"), Path::new("/t/b 2"), &Map::new()).unwrap();
        assert_eq!(rendered, ["make", "-C", "/t", "BUILD_DIR=/t/b 2"]);
    }

    #[test]
    fn build_time_params_are_substituted() {
        let argv = templates(&["make", "TPE_ATTENTION_BLOCK={{block}}"]);
        let params: Map<String, Value> = [("block".to_string(), Value::from(64))].into_iter().collect();
        let rendered = render_build_argv(&argv, Path::new("/t"), Path::new("/b"), &params).unwrap();
        assert_eq!(rendered, ["make", "TPE_ATTENTION_BLOCK=64"]);
    }

    fn first_of(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("build.log");
        fs::write(&log, text).unwrap();
        first_error_line(&log)
    }

    #[test]
    fn the_compiler_error_wins_over_later_errors_and_error_like_words() {
        let log = "g++ -Werror -c gd.cpp\nwarning: unused error_count\n  gd.cpp:12:3: error: expected ';'\n\
                   gd.cpp:20:1: error: later\nmake: *** [Makefile:9: gd.o] Error 1\n";
        assert_eq!(first_of(log), "gd.cpp:12:3: error: expected ';'");
    }

    #[test]
    fn without_an_error_line_the_last_line_is_shown() {
        assert_eq!(first_of("building\nKilled\n\n"), "Killed");
        assert_eq!(first_of(""), "the build printed nothing");
    }
}
