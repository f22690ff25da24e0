//! Text inserted into the HTML page and its SVG figures: escaped, so a setting label or a failure reason
//! with `<` or `&` stays text and cannot become markup.

/// `text` with the five characters HTML gives meaning to replaced by entities (safe in element
/// content and in quoted attribute values).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_a_label_stays_text() {
        assert_eq!(escape(r#"<script>"a" & 'b'"#), "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;");
    }
}
