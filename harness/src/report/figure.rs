//! A drawn figure of a report: an inline SVG and its caption (shown on the page; text renderers skip it).

/// An SVG element with the sentence that says what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub svg: String,
    pub caption: String,
}
