//! `Selector`: which lines of an engine source form an ablation group's blocks, written as a line range
//! (`120-128`), a regex every matching line of which is one block (`^\s*broadcast_rows\(`), or begin and
//! end regexes (`BEGIN..END`, both lines included).

use std::fmt;
use std::ops::RangeInclusive;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Lines are 0-based indices into the source's lines, both ends included.
pub type LineBlock = RangeInclusive<usize>;

/// How a group's blocks are found in a source; parsed once, from the command line or a declaration.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(try_from = "SelectorText", into = "SelectorText")]
pub enum Selector {
    /// Lines `first` to `last`, 1-based as an editor shows them: one block.
    Lines { first: usize, last: usize },
    /// Every line the regex matches is a block of its own.
    Matching(Regex),
    /// From a line matching `begin` to the next line after it matching `end`, both included; each such
    /// pair is a block.
    Between { begin: Regex, end: Regex },
}

/// The written form `Selector` is deserialized from (and serialized back to, e.g. in a sidecar).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(
    untagged,
    expecting = "expected a selector: FIRST-LAST, a regex, BEGIN..END, or { begin = '...', end = '...' }"
)]
pub enum SelectorText {
    /// `FIRST-LAST`, `BEGIN..END` or a regex, as on the command line.
    Written(String),
    /// Begin and end regexes, for markers whose text contains `..`.
    Markers { begin: String, end: String },
}

impl Selector {
    /// Reads `FIRST-LAST`, `BEGIN..END` or a regex. A regex containing `..` is read as begin and end:
    /// write `.{2}` to match any two characters.
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        if let Some(found) = LINE_RANGE.captures(text) {
            let (first, last) = (found[1].parse::<usize>(), found[2].parse::<usize>());
            return match (first, last) {
                (Ok(first), Ok(last)) if 1 <= first && first <= last => Ok(Selector::Lines { first, last }),
                _ => Err(SelectorError::InvalidRange { selector: text.to_string() }),
            };
        }
        match text.split_once("..") {
            Some((begin, end)) if !begin.is_empty() && !end.is_empty() => Selector::between(begin, end),
            _ => Ok(Selector::Matching(regex(text)?)),
        }
    }

    /// The begin/end form, as a declaration's `{ begin = '...', end = '...' }` writes it.
    pub fn between(begin: &str, end: &str) -> Result<Selector, SelectorError> {
        Ok(Selector::Between { begin: regex(begin)?, end: regex(end)? })
    }

    /// Reads a command line's `NAME=SELECTOR`.
    pub fn parse_group(argument: &str) -> Result<(String, Selector), SelectorError> {
        let bad = || SelectorError::BadGroupArgument { argument: argument.to_string() };
        let (name, selector) = argument.split_once('=').ok_or_else(bad)?;
        if !GROUP_NAME.is_match(name) {
            return Err(bad());
        }
        Ok((name.to_string(), Selector::parse(selector)?))
    }

    /// The blocks this selector picks in `lines` (the source's lines without their line ends), in order.
    /// Selecting nothing is an error: a selector that silently stops matching after an upstream edit
    /// would ablate nothing and measure nothing.
    pub fn blocks(&self, group: &str, lines: &[&str]) -> Result<Vec<LineBlock>, SelectorError> {
        let blocks = match self {
            Selector::Lines { first, last } if *last > lines.len() => {
                return Err(SelectorError::OutsideFile {
                    group: group.to_string(),
                    selector: self.to_string(),
                    last: *last,
                    lines: lines.len(),
                })
            }
            Selector::Lines { first, last } => vec![first - 1..=last - 1],
            Selector::Matching(pattern) => {
                (0..lines.len()).filter(|&i| pattern.is_match(lines[i])).map(|i| i..=i).collect()
            }
            Selector::Between { begin, end } => {
                let mut blocks = Vec::new();
                let mut next = 0;
                while let Some(first) = (next..lines.len()).find(|&i| begin.is_match(lines[i])) {
                    let last = (first + 1..lines.len()).find(|&i| end.is_match(lines[i])).ok_or_else(|| {
                        SelectorError::Unterminated {
                            group: group.to_string(),
                            selector: self.to_string(),
                            line: first + 1,
                        }
                    })?;
                    blocks.push(first..=last);
                    next = last + 1;
                }
                blocks
            }
        };
        if blocks.is_empty() {
            return Err(SelectorError::MatchesNothing { group: group.to_string(), selector: self.to_string() });
        }
        Ok(blocks)
    }
}

impl fmt::Display for Selector {
    /// As it would be written on the command line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::Lines { first, last } => write!(f, "{first}-{last}"),
            Selector::Matching(pattern) => f.write_str(pattern.as_str()),
            Selector::Between { begin, end } => write!(f, "{}..{}", begin.as_str(), end.as_str()),
        }
    }
}

/// The `regex` crate's message spans several lines (the pattern, a caret, the reason); keep the reason.
fn regex(text: &str) -> Result<Regex, SelectorError> {
    Regex::new(text).map_err(|error| {
        let message = error.to_string();
        let reason = message.lines().map(str::trim).rfind(|line| !line.is_empty()).unwrap_or_default();
        SelectorError::InvalidRegex {
            selector: text.to_string(),
            reason: reason.trim_start_matches("error: ").to_string(),
        }
    })
}

static LINE_RANGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(\d+)\s*-\s*(\d+)\s*$").expect("the pattern is valid"));

/// A group is referenced as `ablate.<name>` in the template, so it must be a handlebars path segment.
static GROUP_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*$").expect("the pattern is valid"));

impl TryFrom<SelectorText> for Selector {
    type Error = SelectorError;

    fn try_from(text: SelectorText) -> Result<Selector, SelectorError> {
        match text {
            SelectorText::Written(text) => Selector::parse(&text),
            SelectorText::Markers { begin, end } => Selector::between(&begin, &end),
        }
    }
}

impl From<Selector> for SelectorText {
    fn from(selector: Selector) -> SelectorText {
        match selector {
            Selector::Between { begin, end } => {
                SelectorText::Markers { begin: begin.as_str().to_string(), end: end.as_str().to_string() }
            }
            other => SelectorText::Written(other.to_string()),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    const LINES: [&str; 7] = ["a", "// BEGIN x", "  call(1);", "// END x", "  call(2);", "// BEGIN x", "// END x"];

    fn blocks(selector: &str) -> Result<Vec<LineBlock>, SelectorError> {
        Selector::parse(selector).unwrap().blocks("g", &LINES)
    }

    #[test]
    fn a_line_range_is_one_block_of_one_based_lines() {
        assert_eq!(blocks("2-4").unwrap(), [1..=3]);
        assert_eq!(blocks(" 7 - 7 ").unwrap(), [6..=6]);
    }

    #[test]
    fn every_line_a_regex_matches_is_a_block() {
        assert_eq!(blocks(r"^\s*call\(").unwrap(), [2..=2, 4..=4]);
    }

    #[test]
    fn begin_end_pairs_include_both_marker_lines() {
        assert_eq!(blocks("BEGIN x..END x").unwrap(), [1..=3, 5..=6]);
        let between = Selector::between("BEGIN", "END").unwrap();
        assert_eq!(between.blocks("g", &LINES).unwrap(), [1..=3, 5..=6]);
        assert_eq!(between.to_string(), "BEGIN..END");
    }

    #[test]
    fn a_begin_without_an_end_names_its_line() {
        let error = blocks(r"call\(2..^a$").unwrap_err();
        assert_eq!(
            error.to_string(),
            r"group `g`, selector `call\(2..^a$`: the block beginning at line 5 has no end line"
        );
    }

    #[test]
    fn selecting_nothing_is_an_error() {
        let error = blocks("^nowhere$").unwrap_err();
        assert_eq!(error, SelectorError::MatchesNothing { group: "g".into(), selector: "^nowhere$".into() });
    }

    #[test]
    fn a_range_past_the_end_of_the_file_is_an_error() {
        let error = blocks("6-9").unwrap_err();
        assert_eq!(error.to_string(), "group `g`, selector `6-9`: line 9 is past the end of the file (7 lines)");
    }

    #[test]
    fn reversed_or_zero_ranges_are_refused() {
        for text in ["5-2", "0-3"] {
            assert_eq!(Selector::parse(text).unwrap_err(), SelectorError::InvalidRange { selector: text.into() });
        }
    }

    #[test]
    fn an_invalid_regex_is_one_line_naming_the_selector() {
        let error = Selector::parse(r"^\s*broadcast_rows(").unwrap_err().to_string();
        assert!(error.starts_with(r"selector `^\s*broadcast_rows(`: invalid regex: "), "{error}");
        assert!(!error.contains('\n'), "{error}");
        assert!(Selector::parse("ok..(").is_err(), "the end regex is checked too");
    }

    #[test]
    fn group_arguments_need_a_name_usable_in_a_template() {
        let (name, selector) = Selector::parse_group("rank1_update=10-12").unwrap();
        assert_eq!((name.as_str(), selector.to_string().as_str()), ("rank1_update", "10-12"));
        for bad in ["10-12", "rank-1=10-12", "=x"] {
            assert!(matches!(Selector::parse_group(bad), Err(SelectorError::BadGroupArgument { .. })), "{bad}");
        }
    }

    #[test]
    fn both_written_forms_parse_and_serialize_back_as_written() {
        let text = r#"
            range = "120-128"
            calls = '^\s*broadcast_rows\('
            loop = { begin = 'for \(', end = '^\s*\}' }
        "#;
        let groups: BTreeMap<String, Selector> = toml::from_str(text).unwrap();
        assert!(matches!(groups["range"], Selector::Lines { first: 120, last: 128 }));
        assert!(matches!(groups["calls"], Selector::Matching(_)));
        assert_eq!(groups["loop"].to_string(), r"for \(..^\s*\}");
        let back: BTreeMap<String, Selector> = toml::from_str(&toml::to_string(&groups).unwrap()).unwrap();
        let shown = |map: &BTreeMap<String, Selector>| map.values().map(Selector::to_string).collect::<Vec<_>>();
        assert_eq!(shown(&back), shown(&groups));
    }

    #[test]
    fn a_bad_regex_or_shape_is_a_deserialization_error_naming_it() {
        let error = toml::from_str::<BTreeMap<String, Selector>>("g = 'call('").unwrap_err().to_string();
        assert!(error.contains("selector `call(`: invalid regex"), "{error}");
        let error = toml::from_str::<BTreeMap<String, Selector>>("g = 5").unwrap_err().to_string();
        assert!(error.contains("expected a selector"), "{error}");
    }
}
