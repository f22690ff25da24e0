//! The build command of a profile rendered for one tree and build dir (`{{tree}}`, `{{build_dir}}`) and the
//! build-time params of one setting.

use std::path::Path;

use serde_json::{Map, Value};

use crate::template::{Template, TemplateError};

/// Renders each argv element; the result is run directly, never through a shell.
pub fn render_build_argv<'a>(
    argv: impl IntoIterator<Item = &'a Template>,
    tree: &Path,
    build_dir: &Path,
    params: &Map<String, Value>,
) -> Result<Vec<String>, TemplateError> {
    let mut context = params.clone();
    context.insert("tree".into(), tree.display().to_string().into());
    context.insert("build_dir".into(), build_dir.display().to_string().into());
    argv.into_iter().map(|part| part.render(&context)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn templates(texts: &[&str]) -> Vec<Template> {
        texts.iter().map(|text| Template::parse(text).unwrap()).collect()
    }

    #[test]
    fn tree_and_build_dir_are_substituted_per_element() {
        let argv = templates(&["make", "-C", "{{tree}}", "BUILD_DIR={{build_dir}}"]);
        let rendered = render_build_argv(&argv, Path::new("/t"), Path::new("/t/b 2"), &Map::new()).unwrap();
        assert_eq!(rendered, ["make", "-C", "/t", "BUILD_DIR=/t/b 2"]);
    }

    #[test]
    fn build_time_params_are_substituted() {
        let argv = templates(&["make", "TPE_ATTENTION_BLOCK={{block}}"]);
        let params: Map<String, Value> = [("block".to_string(), Value::from(64))].into_iter().collect();
        let rendered = render_build_argv(&argv, Path::new("/t"), Path::new("/b"), &params).unwrap();
        assert_eq!(rendered, ["make", "TPE_ATTENTION_BLOCK=64"]);
    }
}
