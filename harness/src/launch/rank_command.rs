//! One process to start for a run: its argv, extra environment and log file.

use std::path::PathBuf;

use crate::shell_line::{shell_line, shell_quote};

/// A fully rendered process: nothing in it is interpreted by a shell.
#[derive(Debug, Clone, PartialEq)]
pub struct RankCommand {
    /// `Some(i)` when the harness starts each rank itself; `None` for one launcher process.
    pub rank: Option<u32>,
    pub argv: Vec<String>,
    /// Set on top of the base environment.
    pub env: Vec<(String, String)>,
    /// stdout and stderr both go here.
    pub log: PathBuf,
}

impl RankCommand {
    /// A shell-quoted form for `--dry-run`, so a user can paste it (after `env`: `-u NAME` unsets).
    pub fn display(&self) -> String {
        let env = self.env.iter().map(|(k, v)| match v.as_str() {
            super::UNSET_MARKER => format!("-u {k}"),
            v => format!("{k}={}", shell_quote(v)),
        });
        env.chain(std::iter::once(shell_line(&self.argv))).collect::<Vec<_>>().join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_quotes_what_a_shell_would_split() {
        let command = RankCommand {
            rank: None,
            argv: vec!["engine".into(), "--prompt".into(), "it's two words".into()],
            env: vec![("TPE_OVERLAP_SLICES".into(), "4".into())],
            log: PathBuf::from("x.log"),
        };
        assert_eq!(command.display(), r"TPE_OVERLAP_SLICES=4 engine --prompt 'it'\''s two words'");
    }
}
