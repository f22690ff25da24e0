//! `TemplateTarget`: a template and the engine source it renders over, with the path and staleness guards,
//! the context one variant renders it in, and the template derived from a source by group selectors.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::error::VariantError;
use super::journal_confinement::STATE_DIR;
use crate::declare::{LineBlock, Selector, SelectorError};
use crate::read_limit::ReadLimit;
use crate::template::Template;

/// Longest line shown in a staleness message: enough to recognise the line, short enough for a terminal.
const SHOWN_LINE_CHARS: usize = 120;

/// A handlebars template (absolute path) rendered over `target` (relative to the engine tree), compiled
/// once when the target is made.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateTarget {
    /// The template file, or for a derived template the source it was derived from.
    pub template: PathBuf,
    pub target: PathBuf,
    compiled: Template,
}

impl TemplateTarget {
    /// The template file at `template` (absolute), rendered over `target`.
    pub fn read(template: PathBuf, target: PathBuf) -> Result<TemplateTarget, VariantError> {
        let text = ReadLimit::DECLARATION.read_to_string(&template).map_err(VariantError::io("read", &template))?;
        TemplateTarget::of_text(template, target, &text)
    }

    /// The template of `target` (inside `tree`) derived from its current text: it cannot be stale.
    pub fn derive(tree: &Path, target: &Path, groups: &[(String, Selector)]) -> Result<TemplateTarget, VariantError> {
        let source_path = resolve_target(tree, target)?;
        let source = fs::read_to_string(&source_path).map_err(VariantError::io("read", &source_path))?;
        let text = derive_template(&source, groups)
            .map_err(|reason| VariantError::Selector { file: target.to_path_buf(), reason: Box::new(reason) })?;
        TemplateTarget::of_text(source_path, target.to_path_buf(), &text)
    }

    fn of_text(template: PathBuf, target: PathBuf, text: &str) -> Result<TemplateTarget, VariantError> {
        let compiled =
            Template::parse(text).map_err(|source| VariantError::Template { template: template.clone(), source })?;
        Ok(TemplateTarget { template, target, compiled })
    }

    fn text(&self) -> &str {
        self.compiled.text()
    }

    /// Renders this template against `context`.
    pub fn render(&self, context: &Value) -> Result<String, VariantError> {
        self.compiled
            .render(context)
            .map_err(|source| VariantError::Template { template: self.template.clone(), source })
    }

    /// Whether the template can remove `group` (mentions `ablate.<group>`).
    pub fn mentions(&self, group: &str) -> bool {
        GROUP_REFERENCE.captures_iter(self.text()).any(|found| &found[1] == group)
    }

    /// Every `ablate.<group>` the template mentions must be a declared group. Strict mode alone misses a
    /// misspelt group inside `#if`/`#unless`, which would silently render as "not ablated".
    pub fn check_groups(&self, groups: &[String]) -> Result<(), VariantError> {
        for (index, line) in self.text().lines().enumerate() {
            for found in GROUP_REFERENCE.captures_iter(line) {
                let group = &found[1];
                if !groups.iter().any(|declared| declared == group) {
                    return Err(VariantError::UnknownGroup {
                        template: self.template.clone(),
                        line: index + 1,
                        group: group.to_string(),
                        declared: groups.join(", "),
                    });
                }
            }
        }
        Ok(())
    }
}

/// `ablate.<group>`, the group captured.
static GROUP_REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bablate\.([A-Za-z_][A-Za-z0-9_]*)").expect("the pattern is valid"));

/// `target` with `.` and `a/..` removed, or `None` if it is absolute or a `..` climbs above its start:
/// `kernels/../kernels/x.cpp` is `kernels/x.cpp`, `../x.cpp` is outside.
fn lexically_inside(target: &Path) -> Option<PathBuf> {
    let mut inside = PathBuf::new();
    for component in target.components() {
        match component {
            Component::Normal(part) => inside.push(part),
            Component::CurDir => {}
            Component::ParentDir if inside.pop() => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(inside)
}

/// Resolves `target` inside `tree`; absolute paths, `..` and symlinks leading out of the tree are refused.
pub fn resolve_target(tree: &Path, target: &Path) -> Result<PathBuf, VariantError> {
    let refused = || VariantError::OutsideTree { target: target.to_path_buf(), tree: tree.to_path_buf() };
    let inside = lexically_inside(target).ok_or_else(refused)?;
    if super::journal_confinement::reserved_refusal(&inside, STATE_DIR).is_some() {
        return Err(refused());
    }
    let file_name = inside.file_name().ok_or_else(refused)?;
    let root = tree.canonicalize().map_err(VariantError::io("resolve", tree))?;
    let joined = root.join(&inside);
    let parent = joined.parent().ok_or_else(refused)?;
    let parent = parent.canonicalize().map_err(VariantError::io("resolve the directory of", &joined))?;
    // A symlinked file is followed too: writing through it must not land outside the tree.
    let resolved = parent.join(file_name).canonicalize().unwrap_or_else(|_| parent.join(file_name));
    if resolved.starts_with(&root) {
        Ok(resolved)
    } else {
        Err(refused())
    }
}

/// Rendering with nothing ablated must reproduce the shipped source byte for byte, else the template is stale.
pub fn check_fresh(target: &TemplateTarget, tree: &Path, nothing_ablated: &Value) -> Result<(), VariantError> {
    let rendered = target.render(nothing_ablated)?;
    let source_path = resolve_target(tree, &target.target)?;
    let source = fs::read(&source_path).map_err(VariantError::io("read", &source_path))?;
    if rendered.as_bytes() == source.as_slice() {
        return Ok(());
    }
    let source = String::from_utf8_lossy(&source);
    let (line, template_says, source_says) = first_difference(&rendered, &source);
    Err(VariantError::Stale {
        template: target.template.clone(),
        target: source_path,
        line,
        template_says,
        source_says,
    })
}

/// The 1-based number of the first differing line and both lines, shortened for display.
fn first_difference(rendered: &str, source: &str) -> (usize, String, String) {
    let mut left = rendered.split('\n');
    let mut right = source.split('\n');
    let mut line = 1;
    loop {
        match (left.next(), right.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => return (line, shown(a), shown(b)),
        }
    }
}

fn shown(line: Option<&str>) -> String {
    match line {
        None => "<end of file>".to_string(),
        Some(text) => text.chars().take(SHOWN_LINE_CHARS).collect(),
    }
}

/// The template file `sweep template` writes for `source`: a header comment (which renders to nothing)
/// and the derived template, checked with the staleness check to render `source` byte for byte.
pub fn template_of_source(source: &Path, groups: &[(String, Selector)]) -> Result<String, VariantError> {
    let path = fs::canonicalize(source).map_err(VariantError::io("resolve", source))?;
    let (tree, name) = (path.parent().unwrap_or(Path::new("/")), path.file_name().unwrap_or_default());
    let target = TemplateTarget::derive(tree, Path::new(name), groups).map_err(|error| match error {
        // Name the source as the user wrote it, not as the tree-relative target.
        VariantError::Selector { reason, .. } => VariantError::Selector { file: source.to_path_buf(), reason },
        other => other,
    })?;
    let mut names: Vec<String> = Vec::new();
    for (group, _) in groups {
        if !names.contains(group) {
            names.push(group.clone());
        }
    }
    let header = format!(
        "{{{{!-- Template of {} written by `sweep template` (groups: {}). With nothing ablated it renders the \
         source byte for byte; regenerate it rather than edit it. --}}}}\n",
        name.to_string_lossy(),
        names.join(", ")
    );
    let text = header + target.text();
    let target = TemplateTarget::of_text(target.template, target.target, &text)?;
    check_fresh(&target, tree, &variant_context(&names, &[], &Map::new()))?;
    Ok(text)
}

/// `params` plus `ablate: {group: bool}` with every group present, so strict mode rejects a misspelt
/// group in an expression (`TemplateTarget::check_groups` covers `#if`/`#unless`, which strict mode does not).
pub fn variant_context(groups: &[String], ablated: &[String], params: &Map<String, Value>) -> Value {
    let flags: Map<String, Value> =
        groups.iter().map(|group| (group.clone(), Value::Bool(ablated.contains(group)))).collect();
    let mut context = params.clone();
    context.insert("ablate".to_string(), Value::Object(flags));
    Value::Object(context)
}

/// The rendered text of one target (path relative to the engine tree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    pub target: PathBuf,
    pub text: String,
}

/// Renders every template target against one variant's context.
pub fn render_variant(targets: &[TemplateTarget], context: &Value) -> Result<Vec<RenderedFile>, VariantError> {
    targets
        .iter()
        .map(|target| Ok(RenderedFile { target: target.target.clone(), text: target.render(context)? }))
        .collect()
}

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

    const KERNEL: &str = "#include <vector>\nstd::vector<float> v;\nint a[2] = {{1, 2}};\n// ABLATE-BEGIN rank1_update\naxpy();\n// ABLATE-END rank1_update\n";
    const TEMPLATE: &str = "#include <vector>\nstd::vector<float> v;\nint a[2] = \\{{1, 2}};\n// ABLATE-BEGIN rank1_update\n{{#unless ablate.rank1_update}}axpy();\n{{/unless}}// ABLATE-END rank1_update\n";

    fn fixture(template: &str) -> (tempfile::TempDir, TemplateTarget) {
        let (dir, target) = fixture_read(template);
        (dir, target.unwrap())
    }

    fn fixture_read(template: &str) -> (tempfile::TempDir, Result<TemplateTarget, VariantError>) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("tree/kernels")).unwrap();
        fs::write(dir.path().join("tree/kernels/gd.cpp"), KERNEL).unwrap();
        fs::write(dir.path().join("gd.cpp.hbs"), template).unwrap();
        let target = TemplateTarget::read(dir.path().join("gd.cpp.hbs"), PathBuf::from("kernels/gd.cpp"));
        (dir, target)
    }

    fn context(ablated: bool) -> Value {
        json!({"ablate": {"rank1_update": ablated}})
    }

    #[test]
    fn identical_rendering_is_fresh_and_keeps_cpp_braces_and_angles() {
        let (dir, target) = fixture(TEMPLATE);
        check_fresh(&target, &dir.path().join("tree"), &context(false)).unwrap();
    }

    #[test]
    fn ablated_rendering_drops_the_region() {
        let (_dir, target) = fixture(TEMPLATE);
        let text = target.render(&context(true)).unwrap();
        assert!(!text.contains("axpy"), "{text}");
        assert!(text.contains("std::vector<float> v;\nint a[2] = {{1, 2}};"), "{text}");
    }

    #[test]
    fn changed_line_is_reported_with_its_number_and_both_texts() {
        let (dir, target) = fixture(&TEMPLATE.replace("std::vector<float> v;", "std::vector<double> v;"));
        let error = check_fresh(&target, &dir.path().join("tree"), &context(false)).unwrap_err();
        match &error {
            VariantError::Stale { line, template_says, source_says, .. } => {
                assert_eq!(*line, 2);
                assert_eq!(template_says, "std::vector<double> v;");
                assert_eq!(source_says, "std::vector<float> v;");
            }
            other => panic!("expected Stale, got {other}"),
        }
        assert!(error.to_string().contains("out of date"), "{error}");
    }

    #[test]
    fn unescaped_brace_initializer_is_caught_as_stale_or_template_error() {
        let (dir, target) = fixture_read(&TEMPLATE.replace("\\{{1, 2}}", "{{1, 2}}"));
        assert!(target.and_then(|target| check_fresh(&target, &dir.path().join("tree"), &context(false))).is_err());
    }

    #[test]
    fn missing_trailing_line_reports_end_of_file() {
        let (dir, target) = fixture(&format!("{TEMPLATE}extra\n"));
        let error = check_fresh(&target, &dir.path().join("tree"), &context(false)).unwrap_err();
        match error {
            VariantError::Stale { line, source_says, .. } => {
                assert_eq!(line, 7);
                assert_eq!(source_says, "");
            }
            other => panic!("expected Stale, got {other}"),
        }
    }

    #[test]
    fn long_lines_are_shortened_in_the_message() {
        let (first, _, _) = first_difference("same\nx", "same\ny");
        assert_eq!(first, 2);
        let (_, shown_line, _) = first_difference(&"a".repeat(500), "b");
        assert_eq!(shown_line.len(), SHOWN_LINE_CHARS);
    }

    #[test]
    fn misspelt_group_inside_unless_is_reported_with_its_line() {
        let (_dir, target) = fixture(&TEMPLATE.replace("ablate.rank1_update", "ablate.rank1_updat"));
        let groups = ["broadcast_rows".to_string(), "rank1_update".to_string()];
        match target.check_groups(&groups).unwrap_err() {
            VariantError::UnknownGroup { line, group, .. } => {
                assert_eq!(line, 5);
                assert_eq!(group, "rank1_updat");
            }
            other => panic!("expected UnknownGroup, got {other}"),
        }
        let (_dir, target) = fixture(TEMPLATE);
        target.check_groups(&groups).unwrap();
    }

    #[test]
    fn absolute_target_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let error = resolve_target(dir.path(), Path::new("/etc/passwd")).unwrap_err();
        assert!(matches!(error, VariantError::OutsideTree { .. }), "{error}");
    }

    #[test]
    fn dot_dot_escape_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("tree")).unwrap();
        fs::write(dir.path().join("outside.cpp"), "x").unwrap();
        let error = resolve_target(&dir.path().join("tree"), Path::new("../outside.cpp")).unwrap_err();
        assert!(matches!(error, VariantError::OutsideTree { .. }), "{error}");
    }

    #[test]
    fn dot_dot_that_stays_inside_the_tree_resolves() {
        let (dir, _) = fixture(TEMPLATE);
        let resolved = resolve_target(&dir.path().join("tree"), Path::new("kernels/../kernels/gd.cpp")).unwrap();
        assert_eq!(resolved, dir.path().join("tree/kernels/gd.cpp").canonicalize().unwrap());
        let error = resolve_target(&dir.path().join("tree"), Path::new("kernels/../../gd.cpp")).unwrap_err();
        assert!(matches!(error, VariantError::OutsideTree { .. }), "{error}");
    }

    #[test]
    fn symlinked_directory_escape_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("tree")).unwrap();
        fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), dir.path().join("tree/kernels")).unwrap();
        let error = resolve_target(&dir.path().join("tree"), Path::new("kernels/gd.cpp")).unwrap_err();
        assert!(matches!(error, VariantError::OutsideTree { .. }), "{error}");
    }

    #[test]
    fn symlinked_file_escape_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("tree")).unwrap();
        fs::write(dir.path().join("secret.cpp"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret.cpp"), dir.path().join("tree/gd.cpp")).unwrap();
        let error = resolve_target(&dir.path().join("tree"), Path::new("gd.cpp")).unwrap_err();
        assert!(matches!(error, VariantError::OutsideTree { .. }), "{error}");
    }

    #[test]
    fn target_inside_the_tree_resolves() {
        let (dir, target) = fixture(TEMPLATE);
        let resolved = resolve_target(&dir.path().join("tree"), &target.target).unwrap();
        assert_eq!(resolved, dir.path().join("tree/kernels/gd.cpp").canonicalize().unwrap());
    }

    /// Regression: `kernels/../kernels/x.cpp` was refused as outside the tree.
    #[test]
    fn a_dotdot_that_stays_inside_the_tree_resolves_and_one_that_leaves_is_refused() {
        let (dir, _) = fixture(TEMPLATE);
        let tree = dir.path().join("tree");
        let resolved = resolve_target(&tree, Path::new("kernels/../kernels/./gd.cpp")).unwrap();
        assert_eq!(resolved, tree.join("kernels/gd.cpp").canonicalize().unwrap());
        for outside in ["kernels/../../gd.cpp", "../tree/kernels/gd.cpp", "/etc/passwd"] {
            let error = resolve_target(&tree, Path::new(outside)).unwrap_err();
            assert!(matches!(error, VariantError::OutsideTree { .. }), "{outside}: {error}");
        }
    }

    fn groups() -> Vec<String> {
        vec!["broadcast_rows".to_string(), "rank1_update".to_string()]
    }

    #[test]
    fn every_group_has_a_flag_and_params_survive() {
        let params = json!({"rows": 512}).as_object().unwrap().clone();
        let context = variant_context(&groups(), &["rank1_update".to_string()], &params);
        assert_eq!(context, json!({"rows": 512, "ablate": {"broadcast_rows": false, "rank1_update": true}}));
    }

    #[test]
    fn misspelt_group_in_an_expression_is_an_error() {
        let context = variant_context(&groups(), &[], &Map::new());
        assert!(Template::parse("{{ablate.broadcast_row}}").unwrap().render(&context).is_err());
        assert_eq!(Template::parse("{{ablate.broadcast_rows}}").unwrap().render(&context).unwrap(), "false");
    }

    /// Strict mode does not reach `#if`/`#unless` arguments: a misspelt group there renders as "not
    /// ablated". `TemplateTarget::check_groups` exists for this; this test pins the handlebars behaviour.
    #[test]
    fn strict_mode_does_not_check_if_unless_arguments() {
        let context = variant_context(&groups(), &[], &Map::new());
        assert_eq!(
            Template::parse("{{#unless ablate.broadcast_row}}x{{/unless}}").unwrap().render(&context).unwrap(),
            "x"
        );
    }

    #[test]
    fn renders_each_target_and_names_the_template_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("a.hbs");
        let bad = dir.path().join("b.hbs");
        std::fs::write(&good, "rows={{rows}}").unwrap();
        std::fs::write(&bad, "cols={{cols}}").unwrap();
        let targets = |t: &PathBuf| TemplateTarget::read(t.clone(), PathBuf::from("a.cpp")).unwrap();
        let files = render_variant(&[targets(&good)], &json!({"rows": 4})).unwrap();
        assert_eq!(files, [RenderedFile { target: PathBuf::from("a.cpp"), text: "rows=4".to_string() }]);
        let error = render_variant(&[targets(&good), targets(&bad)], &json!({"rows": 4})).unwrap_err();
        assert!(error.to_string().contains("b.hbs"), "{error}");
    }

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
