//! The summary's markdown as HTML, so the page shows the very tables and sentences the summary holds
//! (one source of truth): headings, paragraphs, `- ` lists and pipe tables, every text escaped.

use super::html_text::{escape, inline};

/// One `## ` section of a summary (the lines before the first heading have no heading), as HTML.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkdownSection {
    pub heading: Option<String>,
    pub html: String,
}

impl MarkdownSection {
    /// The sections of a summary in order; a `# ` title line is left out (the page has its own).
    pub fn split(markdown: &str) -> Vec<MarkdownSection> {
        let mut sections = vec![MarkdownSection { heading: None, html: String::new() }];
        let mut block: Vec<&str> = Vec::new();
        for line in markdown.lines() {
            if line.starts_with("# ") {
                continue;
            }
            let current = sections.last_mut().expect("one section at least");
            if let Some(heading) = line.strip_prefix("## ") {
                current.html.push_str(&block_html(&block));
                block.clear();
                sections.push(MarkdownSection { heading: Some(heading.to_string()), html: String::new() });
            } else if line.trim().is_empty() || kind(line) != block.first().map_or(kind(line), |first| kind(first)) {
                current.html.push_str(&block_html(&block));
                block.clear();
                if !line.trim().is_empty() {
                    block.push(line);
                }
            } else {
                block.push(line);
            }
        }
        let last = sections.last_mut().expect("one section at least");
        last.html.push_str(&block_html(&block));
        sections.retain(|s| s.heading.is_some() || !s.html.is_empty());
        sections
    }

    /// `<section id="verdicts"><h2>Verdicts</h2>...</section>`: the id is the heading's words, lowercase.
    pub fn render(&self) -> String {
        match &self.heading {
            Some(heading) => format!(
                "<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n",
                escape(&slug(heading)),
                inline(heading),
                self.html
            ),
            None => format!("<section class=\"lead\">\n{}</section>\n", self.html),
        }
    }
}

/// What a line starts: a table row, a list item or prose.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Table,
    Item,
    Prose,
}

fn kind(line: &str) -> Kind {
    if line.starts_with('|') {
        Kind::Table
    } else if line.starts_with("- ") {
        Kind::Item
    } else {
        Kind::Prose
    }
}

/// A run of lines of one kind as a table, a list or a paragraph.
fn block_html(lines: &[&str]) -> String {
    let Some(first) = lines.first() else { return String::new() };
    match kind(first) {
        Kind::Table => table_html(lines),
        Kind::Item => {
            let items: String = lines.iter().map(|l| format!("<li>{}</li>\n", inline(&l[2..]))).collect();
            format!("<ul>\n{items}</ul>\n")
        }
        Kind::Prose => format!("<p>{}</p>\n", inline(&lines.join(" "))),
    }
}

/// A pipe table: the first row is the header, the `| --- |` rule is dropped.
fn table_html(lines: &[&str]) -> String {
    let cells = |line: &str| -> Vec<String> {
        line.trim().trim_start_matches('|').trim_end_matches('|').split('|').map(|c| c.trim().to_string()).collect()
    };
    let row = |line: &str, tag: &str| {
        let cells: String = cells(line).iter().map(|c| format!("<{tag}>{}</{tag}>", inline(c))).collect();
        format!("<tr>{cells}</tr>\n")
    };
    let body: String = lines.iter().skip(2).map(|line| row(line, "td")).collect();
    format!("<table>\n<thead>\n{}</thead>\n<tbody>\n{body}</tbody>\n</table>\n", row(lines[0], "th"))
}

/// `Best per group` -> `best-per-group`.
fn slug(heading: &str) -> String {
    let words: Vec<String> =
        heading.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    words.join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_lists_tables_and_paragraphs() {
        let markdown =
            "# t\n\nPrimary metric: x.\n\n## Verdicts\n\nMethod: a\nsecond line.\n\n- rows=512: <tied>\n- b\n\n\
                        ## x & y\n\n| a | b |\n| - | - |\n| 1 | `2` |\nAll 3 runs finished ok.\n";
        let sections = MarkdownSection::split(markdown);
        let html: Vec<String> = sections.iter().map(MarkdownSection::render).collect();
        assert_eq!(sections.len(), 3);
        assert_eq!(html[0], "<section class=\"lead\">\n<p>Primary metric: x.</p>\n</section>\n");
        assert_eq!(
            html[1],
            "<section id=\"verdicts\">\n<h2>Verdicts</h2>\n<p>Method: a second line.</p>\n<ul>\n\
             <li>rows=512: &lt;tied&gt;</li>\n<li>b</li>\n</ul>\n</section>\n"
        );
        assert!(html[2]
            .starts_with("<section id=\"x-y\">\n<h2>x &amp; y</h2>\n<table>\n<thead>\n<tr><th>a</th><th>b</th></tr>"));
        assert!(html[2].contains("<tr><td>1</td><td><code>2</code></td></tr>\n</tbody>\n</table>\n<p>All 3 runs"));
    }
}
