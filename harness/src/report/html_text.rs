//! Text inserted into the HTML page and its SVG figures: escaped, so a setting label or a failure reason
//! with `<` or `&` stays text and cannot become markup.

/// `text` with the five characters HTML gives meaning to replaced by entities (safe in element
/// content and in quoted attribute values).
pub fn escape(text: &str) -> String {
    // `&` first, so the entities written after it are not escaped again.
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_a_label_stays_text() {
        assert_eq!(escape(r#"<script>"a" & 'b'"#), "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;");
    }
}
