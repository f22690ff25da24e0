//! One run of inline text: plain words, or code (a metric, a key, a command) that each renderer marks.

/// A piece of a `Text`.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    Plain(String),
    /// Shown as code: backticks in markdown and on the terminal (a command copies whole), `<code>` in HTML.
    Code(String),
}
