//! Deriving an ablation template from an engine source and group selectors: each group's blocks wrapped
//! in `{{#unless ablate.<group>}}`, every `{{` of the source escaped, checked to render the source back.

use crate::spec::SelectorError;
use crate::spec::{LineBlock, Selector};

/// The template of `source`: each block a group's selector picks is wrapped in a block that renders to
/// nothing when the group is ablated. The block tags sit on lines of their own at column 0, which
/// handlebars drops together with their newline, so with nothing ablated the source comes back exactly.
pub fn derive_template(source: &str, groups: &[(String, Selector)]) -> Result<String, SelectorError> {
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    let bare: Vec<&str> = lines.iter().map(|line| line.trim_end_matches(['\n', '\r'])).collect();
    // Handlebars reads `\\{{` as a backslash before an expression; no escape writes it literally.
    if let Some(index) = bare.iter().position(|line| line.contains("\\{{")) {
        return Err(SelectorError::BackslashBeforeBraces { line: index + 1 });
    }
    let blocks = ordered_blocks(groups, &bare)?;
    let mut template = String::with_capacity(source.len() + blocks.len() * 48);
    let mut blocks = blocks.iter().peekable();
    for (index, line) in lines.iter().enumerate() {
        if let Some((_, group)) = blocks.peek().filter(|(block, _)| *block.start() == index) {
            template.push_str(&format!("{{{{#unless ablate.{}}}}}\n", groups[*group].0));
        }
        template.push_str(&line.replace("{{", "\\{{"));
        if blocks.peek().is_some_and(|(block, _)| *block.end() == index) {
            blocks.next();
            // A last line without a newline keeps the closing tag on it: a line of its own would add one.
            template.push_str(if line.ends_with('\n') { "{{/unless}}\n" } else { "{{/unless}}" });
        }
    }
    Ok(template)
}

/// Every group's blocks with the index of the group, in source order; any two blocks sharing a line are
/// refused, since nesting would make one group's removal depend on another's.
fn ordered_blocks(groups: &[(String, Selector)], lines: &[&str]) -> Result<Vec<(LineBlock, usize)>, SelectorError> {
    let mut blocks = Vec::new();
    for (index, (group, selector)) in groups.iter().enumerate() {
        blocks.extend(selector.blocks(group, lines)?.into_iter().map(|block| (block, index)));
    }
    blocks.sort_by_key(|(block, _)| (*block.start(), *block.end()));
    for pair in blocks.windows(2) {
        let ((earlier, first), (later, second)) = (&pair[0], &pair[1]);
        if later.start() <= earlier.end() {
            return Err(SelectorError::Overlap {
                group: groups[*second].0.clone(),
                selector: groups[*second].1.to_string(),
                other: groups[*first].0.clone(),
                other_selector: groups[*first].1.to_string(),
                line: later.start() + 1,
            });
        }
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::Template;
    use serde_json::json;

    const SOURCE: &str = "int a[2] = {{1, 2}};\n  step();\n  call(1);\nlast();";

    fn selectors(list: &[(&str, &str)]) -> Vec<(String, Selector)> {
        list.iter().map(|(group, text)| (group.to_string(), Selector::parse(text).unwrap())).collect()
    }

    fn render(template: &str, ablated: bool) -> String {
        Template::parse(template).unwrap().render(&json!({"ablate": {"g": ablated, "h": ablated}})).unwrap()
    }

    #[test]
    fn blocks_are_wrapped_at_column_zero_and_braces_escaped() {
        let template = derive_template(SOURCE, &selectors(&[("g", r"^\s*call\(")])).unwrap();
        assert_eq!(
            template,
            "int a[2] = \\{{1, 2}};\n  step();\n{{#unless ablate.g}}\n  call(1);\n{{/unless}}\nlast();"
        );
        assert_eq!(render(&template, false), SOURCE);
        assert_eq!(render(&template, true), "int a[2] = {{1, 2}};\n  step();\nlast();");
    }

    #[test]
    fn a_last_line_without_a_newline_keeps_the_closing_tag_on_it() {
        let template = derive_template(SOURCE, &selectors(&[("g", "4-4"), ("h", "1-1")])).unwrap();
        assert!(template.ends_with("{{#unless ablate.g}}\nlast();{{/unless}}"), "{template}");
        assert_eq!(render(&template, false), SOURCE);
        assert_eq!(render(&template, true), "  step();\n  call(1);\n");
    }

    #[test]
    fn overlapping_groups_name_both_selectors_and_the_line() {
        let error = derive_template(SOURCE, &selectors(&[("g", "2-3"), ("h", r"call\(")])).unwrap_err();
        assert_eq!(error.to_string(), r"group `h`, selector `call\(`: overlaps group `g`, selector `2-3`, at line 3");
    }

    #[test]
    fn a_backslash_before_braces_is_refused_with_its_line() {
        let error = derive_template("ok\nputs(\"\\{{\");\n", &selectors(&[("g", "1-1")])).unwrap_err();
        assert_eq!(error, SelectorError::BackslashBeforeBraces { line: 2 });
    }

    #[test]
    fn the_written_file_has_a_header_and_is_checked_against_the_source() {
        use super::super::error::VariantError;
        use super::super::template_target::template_of_source;
        use std::fs;

        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("k.cpp");
        fs::write(&source, SOURCE).unwrap();
        let text = template_of_source(&source, &selectors(&[("g", "2-2"), ("g", "4-4")])).unwrap();
        assert!(text.starts_with("{{!-- Template of k.cpp written by `sweep template` (groups: g)."), "{text}");
        assert_eq!(render(&text, false), SOURCE);
        let missing = template_of_source(&dir.path().join("none.cpp"), &selectors(&[("g", "1-1")])).unwrap_err();
        assert!(matches!(missing, VariantError::Io { .. }), "{missing}");
    }
}
