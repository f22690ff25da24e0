//! `SelectorError`: why a group's selector cannot be parsed or pick usable blocks, or a source cannot be templated.

/// A selector that is malformed, selects nothing, or selects lines another block already holds; each
/// names the selector as written so the user can find it on their command line or in the declaration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("`{argument}`: a group is written NAME=SELECTOR, NAME a letter or `_` then letters, digits or `_`")]
    BadGroupArgument { argument: String },

    #[error("selector `{selector}`: invalid regex: {reason}")]
    InvalidRegex { selector: String, reason: String },

    #[error("selector `{selector}`: a line range is FIRST-LAST with 1 <= FIRST <= LAST")]
    InvalidRange { selector: String },

    #[error("group `{group}`, selector `{selector}`: matches no line")]
    MatchesNothing { group: String, selector: String },

    #[error("group `{group}`, selector `{selector}`: line {last} is past the end of the file ({lines} lines)")]
    OutsideFile { group: String, selector: String, last: usize, lines: usize },

    #[error("group `{group}`, selector `{selector}`: the block beginning at line {line} has no end line")]
    Unterminated { group: String, selector: String, line: usize },

    #[error("line {line}: a backslash right before `{{{{` cannot be written in a handlebars template")]
    BackslashBeforeBraces { line: usize },

    #[error(
        "group `{group}`, selector `{selector}`: overlaps group `{other}`, selector `{other_selector}`, at line {line}"
    )]
    Overlap { group: String, selector: String, other: String, other_selector: String, line: usize },
}

impl SelectorError {
    /// The group whose selector failed on a source, for pointing at its key in a declaration.
    pub fn group(&self) -> Option<&str> {
        match self {
            SelectorError::MatchesNothing { group, .. }
            | SelectorError::OutsideFile { group, .. }
            | SelectorError::Unterminated { group, .. }
            | SelectorError::Overlap { group, .. } => Some(group),
            SelectorError::BadGroupArgument { .. }
            | SelectorError::BackslashBeforeBraces { .. }
            | SelectorError::InvalidRegex { .. }
            | SelectorError::InvalidRange { .. } => None,
        }
    }
}
