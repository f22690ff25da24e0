//! Inline text of a report: plain words and code spans kept apart, so each renderer marks code its own
//! way and never has to parse the text back (a failure reason holding `` ` `` or `<` stays text).

/// A sentence or a paragraph as spans.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    spans: Vec<Span>,
}

/// A piece of a `Text`: one run of plain words, or of code (a metric, a key, a command) that each
/// renderer marks.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    Plain(String),
    /// Shown as code: backticks in markdown and on the terminal (a command copies whole), `<code>` in HTML.
    Code(String),
}

impl Text {
    /// Plain text.
    pub fn plain(text: impl Into<String>) -> Text {
        Text { spans: vec![Span::Plain(text.into())] }
    }

    /// This text followed by `more`, plain.
    pub fn and(mut self, more: impl Into<String>) -> Text {
        self.spans.push(Span::Plain(more.into()));
        self
    }

    /// This text followed by `code`, marked as code.
    pub fn code(mut self, code: impl Into<String>) -> Text {
        self.spans.push(Span::Code(code.into()));
        self
    }

    /// This text followed by `more`, its code still code.
    pub fn append(mut self, more: Text) -> Text {
        self.spans.extend(more.spans);
        self
    }

    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// The text with code in backticks, as markdown and the terminal show it.
    pub fn with_backticks(&self) -> String {
        self.spans
            .iter()
            .map(|span| match span {
                Span::Plain(text) => text.clone(),
                Span::Code(code) => format!("`{code}`"),
            })
            .collect()
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text::plain(text)
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::plain(text)
    }
}
