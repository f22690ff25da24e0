//! `Captured`: a short helper command (a toolchain's version, git, the setup script) run through the
//! executor like any other child, with a timeout, and its merged output read back.

use std::path::Path;
use std::time::Duration;

use super::executor::{execute, Limits};
use super::run_commands::RankCommand;
use super::stop_reason::StopReason;
use crate::confined_dir::ConfinedDir;
use crate::ground::BaseEnv;

/// Between SIGTERM and SIGKILL for a helper command.
const GRACE: Duration = Duration::from_secs(2);

/// How a helper command ended and what it printed (stdout and stderr together).
#[derive(Debug, Clone, PartialEq)]
pub struct Captured {
    pub reason: StopReason,
    pub output: String,
}

impl Captured {
    /// Runs `argv` in `cwd` with `env` set on top of ours, stopped after `timeout`.
    pub fn run(argv: &[String], cwd: &Path, env: &[(String, String)], timeout: Duration) -> Captured {
        let folder = tempfile::tempdir().and_then(|folder| ConfinedDir::open(folder.path()).map(|dir| (folder, dir)));
        let (_folder, logs) = match folder {
            Ok(folder) => folder,
            Err(error) => {
                let program = argv.first().cloned().unwrap_or_default();
                return Captured {
                    reason: StopReason::SpawnFailed { program, error: error.to_string() },
                    output: "".into(),
                };
            }
        };
        let log = logs.path().join("output");
        let command = RankCommand { rank: None, argv: argv.to_vec(), env: env.to_vec(), log: log.clone() };
        let execution = execute(&[command], cwd, &logs, &BaseEnv::Inherit, Limits { timeout, grace: GRACE });
        let output = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
        Captured { reason: execution.reason, output }
    }

    /// Why it did not succeed, as a clause: `exited with code 2`, `timed out after 60.0s`, ...
    pub fn failure(&self) -> Option<String> {
        match &self.reason {
            StopReason::Succeeded => None,
            StopReason::Failed { code, .. } => Some(format!("exited with code {code}")),
            StopReason::Signalled { signal, .. } => Some(format!("was killed by signal {signal}")),
            StopReason::TimedOut { after_seconds } => Some(format!("timed out after {after_seconds:.1}s")),
            StopReason::Interrupted { signal } => Some(format!("was interrupted by signal {signal}")),
            StopReason::SpawnFailed { error, .. } => Some(format!("could not start: {error}")),
            reason @ (StopReason::ServiceFailed { .. } | StopReason::NotReady(_)) => Some(reason.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Captured {
        let argv = ["sh".to_string(), "-c".to_string(), script.to_string()];
        Captured::run(&argv, Path::new("/"), &[("WHO".to_string(), "cc".to_string())], timeout)
    }

    #[test]
    fn output_of_both_streams_is_captured_with_the_env() {
        let captured = sh("echo $WHO 1.0; echo note >&2", Duration::from_secs(10));
        assert_eq!(captured.reason, StopReason::Succeeded);
        assert_eq!(captured.output, "cc 1.0\nnote\n");
        assert_eq!(captured.failure(), None);
    }

    #[test]
    fn a_hung_command_is_stopped_at_its_timeout() {
        let captured = sh("sleep 30", Duration::from_millis(200));
        assert!(captured.failure().unwrap().starts_with("timed out after"), "{captured:?}");
    }
}
