//! Where a result came from: host and Slurm job, engine commit and dirtiness, toolchain versions.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::launch::Captured;

/// Longest a version command or git may take: a hung compiler driver must not hang the sweep.
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// Recorded once per sweep, written with every row.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Provenance {
    pub host: String,
    /// `git rev-parse HEAD` of the engine tree, or `unknown` outside git.
    pub engine_commit: String,
    /// Uncommitted changes in the engine tree: a result of a dirty tree cannot be rebuilt from the commit.
    pub engine_dirty: bool,
    /// Toolchain name -> first line of its version command (`unavailable` when it fails or cannot run).
    pub toolchain: BTreeMap<String, String>,
    /// The Slurm job the sweep ran in (the array's id for an array task), empty outside Slurm.
    #[serde(default)]
    pub slurm_job_id: String,
    /// The array task (`sweep submit` runs shard i as task i), empty outside an array job.
    #[serde(default)]
    pub slurm_array_task_id: String,
}

impl Provenance {
    /// `env` is set on top of ours for the version commands (e.g. a sourced toolchain environment).
    pub fn gather(tree: &Path, toolchain: &BTreeMap<String, Vec<String>>, env: &[(String, String)]) -> Provenance {
        let host = nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_default();
        let engine_commit = head_commit(tree).unwrap_or_else(|| "unknown".to_string());
        let engine_dirty =
            git(tree, &["status", "--porcelain", "--untracked-files=no", "."]).is_some_and(|out| !out.is_empty());
        let toolchain = toolchain.iter().map(|(name, argv)| (name.clone(), version_line(argv, env))).collect();
        let (slurm_job_id, slurm_array_task_id) = slurm_placement(|name| std::env::var(name).ok());
        Provenance { host, engine_commit, engine_dirty, toolchain, slurm_job_id, slurm_array_task_id }
    }
}

/// `(job id, array task id)` from the variables Slurm sets in a job. An array task has its own
/// `SLURM_JOB_ID`; the array's id (what `sbatch` printed) with the task id names it for people.
fn slurm_placement(var: impl Fn(&str) -> Option<String>) -> (String, String) {
    let job = var("SLURM_ARRAY_JOB_ID").or_else(|| var("SLURM_JOB_ID")).unwrap_or_default();
    (job, var("SLURM_ARRAY_TASK_ID").unwrap_or_default())
}

/// The commit checked out in `tree`, if it is a git checkout.
pub(super) fn head_commit(tree: &Path) -> Option<String> {
    git(tree, &["rev-parse", "HEAD"])
}

fn git(tree: &Path, args: &[&str]) -> Option<String> {
    let mut argv = vec!["git".to_string(), "-C".to_string(), tree.display().to_string()];
    argv.extend(args.iter().map(|arg| arg.to_string()));
    let captured = Captured::run(&argv, tree, &[], PROBE_TIMEOUT);
    captured.failure().is_none().then(|| captured.output.trim().to_string())
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

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string())
    }

    #[test]
    fn an_array_task_is_recorded_by_the_array_job_id_and_its_task_id() {
        let array = [("SLURM_JOB_ID", "41"), ("SLURM_ARRAY_JOB_ID", "40"), ("SLURM_ARRAY_TASK_ID", "2")];
        assert_eq!(slurm_placement(vars(&array)), ("40".to_string(), "2".to_string()));
        assert_eq!(slurm_placement(vars(&[("SLURM_JOB_ID", "7")])), ("7".to_string(), String::new()));
        assert_eq!(slurm_placement(vars(&[])), (String::new(), String::new()));
    }

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
