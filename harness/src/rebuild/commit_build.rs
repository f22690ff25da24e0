//! `CommitBuild`: the engine as one commit of its git repository had it, built in the build cache: the
//! commit's tree exported with `git archive` (the user's checkout, index and worktree list are never
//! touched) into an entry keyed by the commit and the build command, and built there once; a rerun
//! builds nothing.

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use super::build_cache::{BuildCache, BuildKey, EntryClaim};
use super::build_job::BuildJob;
use super::build_report::{build_in_entry, BuildReport, BuildStatus};
use super::error::BuildError;
use super::setting_build::SettingBuild;
use super::variant_site::VariantSite;
use crate::declare::Sweep;
use crate::ground::BaseEnv;
use crate::launch::Captured;

/// Longest an export may take: a large repository archives in seconds; a hang must not hang the bisect.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(600);

/// How one setting's engine is built at any commit of the repository holding its tree.
pub struct CommitBuild<'a> {
    /// The repository's top folder, and the engine tree's path inside it (`engine/`; empty at its top).
    repository: (&'a Path, &'a str),
    command: SettingBuild<'a>,
    /// Whether the profile builds at all (without a build command the export is the build).
    builds: bool,
    cache: &'a BuildCache,
    /// Every declared toolchain's version: a compiler upgrade changes every commit's key.
    toolchain: &'a str,
    base_env: &'a BaseEnv,
}

impl<'a> CommitBuild<'a> {
    /// The builds of `sweep`'s setting with template `context`, the engine tree at `prefix` inside the
    /// repository at `top`, cached in `cache`.
    pub fn new(
        sweep: &'a Sweep,
        context: &Map<String, Value>,
        (top, prefix): (&'a Path, &'a str),
        cache: &'a BuildCache,
        (toolchain, base_env): (&'a str, &'a BaseEnv),
    ) -> CommitBuild<'a> {
        let command = SettingBuild::of(sweep, context);
        let builds = !sweep.engine.build.is_empty();
        CommitBuild { repository: (top, prefix), command, builds, cache, toolchain, base_env }
    }

    /// The cache key of `sha`'s build: the commit (its whole tree), the build command as the setting
    /// renders it, and the toolchain.
    pub fn key(&self, sha: &str) -> Result<BuildKey, BuildError> {
        let argv = self.command.key_argv().map_err(BuildError::Command)?;
        Ok(BuildKey::new(&[], &argv, self.toolchain, &format!("git commit {sha} at /{}", self.repository.1)))
    }

    /// Where `sha`'s build lives (known before it is built), named `name` in rows and build lines.
    pub fn site(&self, sha: &str, name: &str) -> Result<VariantSite, BuildError> {
        let key = self.key(sha)?;
        let entry = self.cache.entry(&key);
        Ok(VariantSite { name: name.to_string(), tree: entry.tree, build_dir: entry.build, hash: key.to_string() })
    }

    /// Builds `sha` in its cache entry unless a complete one is there (`Cached`); another sweep building
    /// the same entry is waited for, telling `waiting` once, and a signal `stop` reports ends the wait. A
    /// build that fails is an error (its log's first error and tail in the message).
    pub fn build(
        &self,
        sha: &str,
        name: &str,
        waiting: &dyn Fn(&str),
        stop: &dyn Fn() -> Option<i32>,
    ) -> Result<BuildReport, BuildError> {
        let key = self.key(sha)?;
        let report = |status| BuildReport { variant: name.to_string(), key, status };
        if self.cache.lookup(&key).is_some() {
            return Ok(report(BuildStatus::Cached));
        }
        let _claim = EntryClaim::acquire(&self.cache.root, &key, waiting, stop)?;
        // Built by the sweep we waited for.
        if self.cache.lookup(&key).is_some() {
            return Ok(report(BuildStatus::Cached));
        }
        let entry = self.cache.prepare_with(&key, &|tree| self.export(sha, tree))?;
        let mut seconds = 0.0;
        if self.builds {
            let argv = self.command.argv(&entry.tree, &entry.build).map_err(BuildError::Command)?;
            let mut env = self.base_env.overrides().to_vec();
            env.extend(self.command.env().map_err(BuildError::Command)?);
            let job = BuildJob { variant: name.to_string(), tree: entry.tree, build_dir: entry.build, argv, env, key };
            seconds = build_in_entry(&job, self.cache)?.seconds;
        } else {
            self.cache.mark_complete(&key)?;
        }
        Ok(report(BuildStatus::Built { seconds }))
    }

    /// Writes the engine tree of `sha` into `tree`: `git archive` of `<sha>:<prefix>` to a file beside it,
    /// unpacked by `tar`, both through the executor (no shell between them).
    fn export(&self, sha: &str, tree: &Path) -> Result<(), BuildError> {
        let (top, prefix) = self.repository;
        std::fs::create_dir_all(tree).map_err(BuildError::io("create", tree))?;
        let archive = tree.with_extension("tar");
        let output = format!("--output={}", archive.display());
        let git =
            ["git", "-C", &top.display().to_string(), "archive", "--format=tar", &output, &format!("{sha}:{prefix}")]
                .map(String::from);
        let tar = ["tar", "-xf", &archive.display().to_string(), "-C", &tree.display().to_string()].map(String::from);
        for argv in [&git[..], &tar[..]] {
            let captured = Captured::run(argv, top, &[], EXPORT_TIMEOUT);
            if let Some(reason) = captured.failure() {
                let said = captured.output.trim().to_string();
                return Err(BuildError::Export {
                    commit: sha.to_string(),
                    reason: format!("`{}` {reason}: {said}", argv[0]),
                });
            }
        }
        std::fs::remove_file(&archive).map_err(BuildError::io("remove", &archive))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    const COPY_VALUE: &str = "[\"cp\", \"value\", \"{{build_dir}}/value\"]";

    fn git(dir: &Path, args: &[&str]) -> String {
        let output = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
        assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }

    /// A repository whose engine tree is its `engine/` folder, at two commits of `value`; a profile that
    /// builds by `build` (a TOML array); the SHAs.
    fn repository(dir: &Path, build: &str) -> (Sweep, Vec<String>) {
        let engine = dir.join("repo/engine");
        std::fs::create_dir_all(&engine).unwrap();
        git(&dir.join("repo"), &["init", "-q"]);
        let shas = ["1", "2"].map(|value| {
            std::fs::write(engine.join("value"), value).unwrap();
            git(&dir.join("repo"), &["add", "."]);
            git(&dir.join("repo"), &["-c", "user.name=f", "-c", "user.email=f@e", "commit", "-qm", value]);
            git(&dir.join("repo"), &["rev-parse", "HEAD"])
        });
        std::fs::create_dir_all(dir.join("engines")).unwrap();
        std::fs::write(
            dir.join("engines/e.toml"),
            format!(
                "tree = \"../repo/engine\"\nprogram = \"{{{{build_dir}}}}/value\"\nbuild = {build}\n\
                 launcher = \"local\"\nranks = 1\ntimeout = \"1s\"\n[result]\nprefix = \"r\"\n"
            ),
        )
        .unwrap();
        std::fs::write(
            dir.join("s.toml"),
            "name = \"s\"\n[engine]\nprofile = \"e\"\n[params]\nrows = [1]\n[metrics]\nresult = [\"t\"]\n\
             [analysis]\nprimary = \"t\"\n",
        )
        .unwrap();
        (crate::declare::load_sweep(&dir.join("s.toml")).unwrap(), shas.to_vec())
    }

    #[test]
    fn each_commit_is_exported_and_built_once_leaving_the_checkout_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (sweep, shas) = repository(dir.path(), COPY_VALUE);
        let cache = BuildCache::new(dir.path().join("cache"));
        let top = dir.path().join("repo");
        let builder = CommitBuild::new(&sweep, &Map::new(), (&top, "engine/"), &cache, ("tc", &BaseEnv::Inherit));
        let (waiting, stop) = (|_: &str| panic!("nobody else builds"), || None);
        let first = builder.build(&shas[0], "first", &waiting, &stop).unwrap();
        assert!(matches!(first.status, BuildStatus::Built { .. }), "{first:?}");
        let site = builder.site(&shas[0], "first").unwrap();
        assert_eq!(std::fs::read_to_string(site.build_dir.join("value")).unwrap(), "1", "the first commit's value");
        assert_eq!(std::fs::read_to_string(site.tree.join("value")).unwrap(), "1", "the engine tree, not the top");
        assert_ne!(builder.key(&shas[0]).unwrap(), builder.key(&shas[1]).unwrap());
        let again = builder.build(&shas[0], "first", &waiting, &stop).unwrap();
        assert_eq!(again.status, BuildStatus::Cached);
        assert_eq!(git(&top, &["status", "--porcelain"]), "", "the checkout was changed");
        assert_eq!(std::fs::read_to_string(top.join("engine/value")).unwrap(), "2", "the checkout stays at HEAD");
    }

    /// Regression: a commit's build ran without its process group recorded in its cache entry, so a
    /// SIGKILLed bisect left compilers that the next prepare of the entry could not stop.
    #[test]
    fn a_commit_build_records_its_process_group_in_the_entry_while_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let record = format!("../{}/build.pgid", crate::variants::STATE_DIR);
        let build = format!("[\"sh\", \"-c\", \"cp {record} {{{{build_dir}}}}/value\"]");
        let (sweep, shas) = repository(dir.path(), &build);
        let cache = BuildCache::new(dir.path().join("cache"));
        let top = dir.path().join("repo");
        let builder = CommitBuild::new(&sweep, &Map::new(), (&top, "engine/"), &cache, ("tc", &BaseEnv::Inherit));
        let built = builder.build(&shas[0], "first", &|_| (), &|| None).unwrap();
        assert!(matches!(built.status, BuildStatus::Built { .. }), "{built:?}");
        let site = builder.site(&shas[0], "first").unwrap();
        let group: i32 = std::fs::read_to_string(site.build_dir.join("value")).unwrap().trim().parse().unwrap();
        assert!(group > 1, "the build's own process group, recorded before it ran: {group}");
        assert!(!site.tree.parent().unwrap().join(crate::variants::STATE_DIR).join("build.pgid").exists());
    }
}
