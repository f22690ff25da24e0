//! Runs an engine's environment script once per sweep (`source scripts/ascend_env.sh`) and captures
//! the environment it leaves, so every rank gets exactly that environment.

use std::path::Path;
use std::time::Duration;

use super::runner_error::RunnerError;
use crate::launch::{Captured, OWNER_HOST_VAR, OWNER_VAR};

/// Longest a setup script may take: sourcing an environment is quick; a hang must not hang the sweep.
const SETUP_TIMEOUT: Duration = Duration::from_secs(600);

/// Sources `script` in bash from `tree` and returns the resulting environment.
pub fn capture_setup_env(script: &Path, tree: &Path) -> Result<Vec<(String, String)>, RunnerError> {
    let failure = |reason: String| RunnerError::Setup { script: script.to_path_buf(), reason };
    let dir = tempfile::tempdir().map_err(|error| failure(format!("cannot create a temporary directory: {error}")))?;
    let env_file = dir.path().join("env");
    let argv = [
        "bash".to_string(),
        "-c".to_string(),
        r#"set -e; source "$1" >&2; env -0 > "$2""#.to_string(),
        "sweep-setup".to_string(),
        script.display().to_string(),
        env_file.display().to_string(),
    ];
    let captured = Captured::run(&argv, tree, &[], SETUP_TIMEOUT);
    if let Some(reason) = captured.failure() {
        return Err(failure(format!("{reason}: {}", captured.output.lines().last().unwrap_or(""))));
    }
    let env = std::fs::read(&env_file).map_err(|error| failure(format!("left no environment: {error}")))?;
    Ok(env
        .split(|&byte| byte == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            entry.split_once('=').map(|(k, v)| (k.to_string(), v.to_string()))
        })
        // SWEEP_OWNER is this sweep's mark on its children, not part of the engine's environment.
        .filter(|(name, _)| {
            !name.is_empty() && !["_", "SHLVL", "PWD", OWNER_VAR, OWNER_HOST_VAR].contains(&name.as_str())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_exports_reach_the_captured_environment() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("env.sh");
        std::fs::write(&script, "export ASCEND_TOOLKIT_HOME=/opt/cann\nexport MULTI='a b\nc'\necho sourced\n").unwrap();
        let env = capture_setup_env(&script, dir.path()).unwrap();
        assert!(env.contains(&("ASCEND_TOOLKIT_HOME".to_string(), "/opt/cann".to_string())));
        assert!(env.contains(&("MULTI".to_string(), "a b\nc".to_string())));
        assert!(env.iter().all(|(name, _)| name != OWNER_VAR), "sweep's own mark was captured");
    }

    #[test]
    fn a_failing_script_stops_the_sweep_with_its_last_words() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("env.sh");
        std::fs::write(&script, "echo 'CANN not found' >&2\nfalse\n").unwrap();
        let error = capture_setup_env(&script, dir.path()).unwrap_err().to_string();
        assert!(error.contains("CANN not found"), "{error}");
    }
}
