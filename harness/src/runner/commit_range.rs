//! `CommitRange`: the commits a bisection walks, read from git through the executor: the good end, then
//! `git rev-list --reverse --ancestry-path --first-parent GOOD..BAD` (the bad end last); and where the
//! engine tree sits in its repository.

use std::path::{Path, PathBuf};

use super::runner_error::RunnerError;
use crate::launch::git_output;

/// Characters of a SHA shown, and naming each commit's build and rows.
const SHORT: usize = 12;

/// The first-parent line from a good commit to a bad one, in the repository of an engine tree.
#[derive(Debug, Clone)]
pub struct CommitRange {
    /// The repository's top folder.
    pub repository: PathBuf,
    /// The engine tree's path inside it (`engine/`), empty at its top.
    pub prefix: String,
    /// Full SHAs, oldest first: the good end first, the bad end last.
    pub shas: Vec<String>,
}

impl CommitRange {
    /// Refuses a tree outside a git repository, a revision that is no commit, and a good end that is not
    /// on the bad end's first-parent line (or is the bad end).
    pub fn resolve(tree: &Path, good: &str, bad: &str) -> Result<CommitRange, RunnerError> {
        let located = git_output(tree, &["rev-parse", "--show-toplevel", "--show-prefix"])
            .map_err(|reason| RunnerError::NotInGit { tree: tree.to_path_buf(), reason })?;
        let mut lines = located.lines();
        let repository = PathBuf::from(lines.next().unwrap_or_default());
        let prefix = lines.next().unwrap_or_default().to_string();
        let commit = |rev: &str| {
            git_output(tree, &["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])
                .map_err(|_| RunnerError::UnknownRevision { tree: tree.to_path_buf(), rev: rev.to_string() })
        };
        let (good_sha, bad_sha) = (commit(good)?, commit(bad)?);
        if good_sha == bad_sha {
            return Err(RunnerError::SameCommit { good: good.to_string(), bad: bad.to_string() });
        }
        let range = format!("{good_sha}..{bad_sha}");
        let listed = git_output(tree, &["rev-list", "--reverse", "--ancestry-path", "--first-parent", &range])
            .map_err(RunnerError::Git)?;
        let shas = commit_list(&good_sha, &listed);
        if shas.last() != Some(&bad_sha) || !is_ancestor(tree, &good_sha, &bad_sha) {
            let (good, bad) = (good.to_string(), bad.to_string());
            return Err(RunnerError::NotAncestor { tree: tree.to_path_buf(), good, bad });
        }
        Ok(CommitRange { repository, prefix, shas })
    }

    /// The commit's SHA as shown: its first 12 characters.
    pub fn short(&self, index: usize) -> &str {
        let sha = &self.shas[index];
        &sha[..sha.len().min(SHORT)]
    }

    /// The first line of the commit's message.
    pub fn subject(&self, index: usize) -> Result<String, RunnerError> {
        git_output(&self.repository, &["log", "-1", "--format=%s", &self.shas[index]]).map_err(RunnerError::Git)
    }
}

/// `git merge-base --is-ancestor`: exit 0 when `good` is an ancestor of `bad`.
fn is_ancestor(tree: &Path, good: &str, bad: &str) -> bool {
    git_output(tree, &["merge-base", "--is-ancestor", good, bad]).is_ok()
}

/// The good end, then every SHA `rev-list` printed (one a line, oldest first).
fn commit_list(good: &str, rev_list: &str) -> Vec<String> {
    let listed = rev_list.lines().map(str::trim).filter(|line| !line.is_empty()).map(str::to_string);
    std::iter::once(good.to_string()).chain(listed).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_good_end_comes_first_then_the_listed_commits_in_order() {
        assert_eq!(commit_list("a0", "b1\nc2\n\nd3\n"), ["a0", "b1", "c2", "d3"]);
        assert_eq!(commit_list("a0", ""), ["a0"], "nothing between: the bad end is missing, refused by resolve");
    }

    #[test]
    fn a_short_sha_is_twelve_characters() {
        let range =
            CommitRange { repository: PathBuf::new(), prefix: String::new(), shas: vec!["0123456789abcdef".into()] };
        assert_eq!(range.short(0), "0123456789ab");
    }
}
