//! The HTML renderer of a `Document`: the self-contained page beside every summary, in the summary's
//! order (what to trust, verdicts, figures as inline SVG, tables) with the provenance last; no script, no
//! stylesheet or font to fetch. Every text is escaped (here and in the SVG figures): typed blocks are
//! written, never parsed back, so a setting label or a failure reason with `<` or `&` stays text and cannot
//! become markup.

use std::fmt::Write;

use super::document::{Block, Document, Note, Section};
use super::table::Table;
use super::text::{Span, Text};
use crate::record::Sidecar;

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}\
h1{font-size:1.4em;word-break:break-all}h2{font-size:1.15em;border-bottom:1px solid #ddd;padding-bottom:2px}\
table{border-collapse:collapse;margin:0.5em 0 1em;font-size:0.9em;font-variant-numeric:tabular-nums}\
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f4f4f4}\
tbody tr:nth-child(even){background:#fafafa}code{background:#f2f2f2;padding:0 3px}\
li{margin:0.3em 0}ul.notes{list-style:none;padding-left:0}ul.notes li{padding:2px 8px;border-left:4px solid #0072b2}\
ul.notes li.warning{border-left-color:#d55e00;background:#fdf0e6}\
figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{color:#555;font-size:0.9em}";

/// The page: the document's title and sections, then the provenance recorded in `sidecar`.
pub fn html_page(document: &Document, sidecar: Option<&Sidecar>) -> String {
    let title = escape(&document.title);
    let mut body: String = document.sections.iter().map(section_html).collect();
    body.push_str(&sidecar.map(provenance_html).unwrap_or_default());
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n{body}</body>\n</html>\n"
    )
}

/// `<section id="verdicts"><h2>Verdicts</h2>...</section>`; the lead is `<section class="lead">`.
fn section_html(section: &Section) -> String {
    let blocks: String = section.blocks.iter().map(block_html).collect();
    match (&section.heading, section.id()) {
        (Some(heading), Some(id)) => {
            format!("<section id=\"{}\">\n<h2>{}</h2>\n{blocks}</section>\n", escape(&id), escape(heading))
        }
        _ => format!("<section class=\"lead\">\n{blocks}</section>\n"),
    }
}

fn block_html(block: &Block) -> String {
    match block {
        Block::Paragraph(text) => format!("<p>{}</p>\n", text_html(text)),
        Block::Items(items) => {
            let items: String = items.iter().map(|item| format!("<li>{}</li>\n", text_html(item))).collect();
            format!("<ul>\n{items}</ul>\n")
        }
        Block::Notes(notes) => {
            let open =
                |note: &Note| if note.warning { "<li class=\"warning\"><strong>WARNING:</strong> " } else { "<li>" };
            let items: String =
                notes.iter().map(|note| format!("{}{}</li>\n", open(note), text_html(&note.text))).collect();
            format!("<ul class=\"notes\">\n{items}</ul>\n")
        }
        Block::Table(table) => table_html(table),
        Block::Figure { svg, caption } => {
            format!("<figure>\n{svg}<figcaption>{}</figcaption>\n</figure>\n", escape(caption))
        }
    }
}

/// `text` with the five characters HTML gives meaning to replaced by entities (safe in element
/// content and in quoted attribute values).
pub fn escape(text: &str) -> String {
    // `&` first, so the entities written after it are not escaped again.
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// Escaped text with code spans as `<code>`.
fn text_html(text: &Text) -> String {
    text.spans()
        .iter()
        .map(|span| match span {
            Span::Plain(plain) => escape(plain),
            Span::Code(code) => format!("<code>{}</code>", escape(code)),
        })
        .collect()
}

fn table_html(table: &Table) -> String {
    let row = |cells: &[String], tag: &str| {
        let cells: String = cells.iter().map(|cell| format!("<{tag}>{}</{tag}>", escape(cell))).collect();
        format!("<tr>{cells}</tr>\n")
    };
    let body: String = table.rows().iter().map(|cells| row(cells, "td")).collect();
    format!("<table>\n<thead>\n{}</thead>\n<tbody>\n{body}</tbody>\n</table>\n", row(table.header(), "th"))
}

/// Where the numbers come from: host, engine commit, toolchain versions, the sweep version, the seed
/// and the command line, as the sidecar recorded them.
fn provenance_html(sidecar: &Sidecar) -> String {
    let provenance = &sidecar.provenance;
    let dirty = if provenance.engine_dirty { " (uncommitted changes)" } else { "" };
    let mut rows: Vec<(String, String)> = vec![
        ("host".into(), provenance.host.clone()),
        ("engine commit".into(), format!("{}{dirty}", provenance.engine_commit)),
    ];
    rows.extend(provenance.toolchain.iter().map(|(name, version)| (name.clone(), version.clone())));
    let placement = &provenance.placement;
    if !placement.job.is_empty() {
        rows.push((format!("{} job", placement.scheduler), placement.job.clone()));
    }
    rows.extend([
        ("sweep version".into(), sidecar.sweep_version.clone()),
        ("seed".into(), sidecar.seed.to_string()),
        ("command line".into(), sidecar.command_line.join(" ")),
    ]);
    let mut out = String::from("<section id=\"provenance\">\n<h2>Provenance</h2>\n<table>\n<tbody>\n");
    for (key, value) in rows {
        writeln!(out, "<tr><th>{}</th><td>{}</td></tr>", escape(&key), escape(&value)).unwrap();
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::document::Note;

    #[test]
    fn sections_in_order_every_text_escaped() {
        let mut document = Document::new("slices <forced>");
        document.push(Section::lead().paragraph(Text::plain("Primary metric: ").code("a<b")));
        document.push(Section::new("What to trust").notes(vec![Note::warning("3 of 25 runs failed")]));
        let mut table = Table::new(vec!["reason".into(), "runs".into()]);
        table.push(vec!["<img src=x onerror=alert(1)>".into(), "3".into()]);
        document.push(Section::new("Failed runs").table(table));
        let page = html_page(&document, None);
        assert!(page.contains("<title>slices &lt;forced&gt;</title>"));
        assert!(page.contains("<p>Primary metric: <code>a&lt;b</code></p>"));
        assert!(page.contains("<section id=\"what-to-trust\">"));
        assert!(page.contains("<li class=\"warning\"><strong>WARNING:</strong> 3 of 25 runs failed</li>"));
        assert!(page.contains("<td>&lt;img src=x onerror=alert(1)&gt;</td>") && !page.contains("<img"));
        assert!(!page.contains("<script") && !page.contains("<link"), "self-contained, no script");
    }

    #[test]
    fn markup_in_a_label_stays_text() {
        assert_eq!(escape(r#"<script>"a" & 'b'"#), "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;");
    }
}
