//! Probes of the engine's tree and toolchain for the provenance a sweep records: git and version
//! commands, each a short `Captured` child like any other.

use std::path::Path;
use std::time::Duration;

use super::captured::Captured;

/// Longest a version command or git may take: a hung compiler driver must not hang the sweep.
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// The commit checked out in `tree`, if it is a git checkout.
pub fn head_commit(tree: &Path) -> Option<String> {
    git(tree, &["rev-parse", "HEAD"])
}

/// Whether `tree` holds uncommitted changes to tracked files (a result of a dirty tree cannot be rebuilt
/// from its commit).
pub fn tree_dirty(tree: &Path) -> bool {
    git(tree, &["status", "--porcelain", "--untracked-files=no", "."]).is_some_and(|out| !out.is_empty())
}

fn git(tree: &Path, args: &[&str]) -> Option<String> {
    git_output(tree, args).ok()
}

/// What `git -C dir ARGS` prints (trimmed), or why it failed and what it said: a short `Captured` child.
pub fn git_output(dir: &Path, args: &[&str]) -> Result<String, String> {
    let mut argv = vec!["git".to_string(), "-C".to_string(), dir.display().to_string()];
    argv.extend(args.iter().map(|arg| arg.to_string()));
    let captured = Captured::run(&argv, dir, &[], PROBE_TIMEOUT);
    match captured.failure() {
        None => Ok(captured.output.trim().to_string()),
        Some(reason) => Err(format!("`git {}` {reason}: {}", args.join(" "), captured.output.trim())),
    }
}

/// The first non-empty line a version command prints (some print to stderr); `unavailable: ...`
/// when it cannot run, fails or hangs, so an error message is never recorded as a version.
pub fn version_line(argv: &[String], env: &[(String, String)]) -> String {
    if argv.is_empty() {
        return "unavailable: empty command".to_string();
    }
    let captured = Captured::run(argv, Path::new("."), env, PROBE_TIMEOUT);
    match captured.failure() {
        Some(reason) => format!("unavailable: `{}` {reason}", argv[0]),
        None => captured.output.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".to_string(), "-c".to_string(), script.to_string()]
    }

    #[test]
    fn a_failing_version_command_is_unavailable_not_its_error_text() {
        assert_eq!(version_line(&sh("echo; echo 'cc 13.2' >&2"), &[]), "cc 13.2");
        let failed = version_line(&sh("echo 'grep: version.info: No such file' >&2; exit 2"), &[]);
        assert!(failed.starts_with("unavailable: `sh` exited with code 2"), "{failed}");
    }
}
