//! The build command of a profile rendered for one tree and build dir (`{{tree}}`, `{{build_dir}}`).

use std::path::Path;

use crate::template::{self, TemplateError};

/// Renders each argv element; the result is run directly, never through a shell.
pub fn render_build_argv(argv: &[String], tree: &Path, build_dir: &Path) -> Result<Vec<String>, TemplateError> {
    let context =
        serde_json::json!({ "tree": tree.display().to_string(), "build_dir": build_dir.display().to_string() });
    argv.iter().map(|part| template::render(part, &context)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_and_build_dir_are_substituted_per_element() {
        let argv = ["make".to_string(), "-C".into(), "{{tree}}".into(), "BUILD_DIR={{build_dir}}".into()];
        let rendered = render_build_argv(&argv, Path::new("/t"), Path::new("/t/b 2")).unwrap();
        assert_eq!(rendered, ["make", "-C", "/t", "BUILD_DIR=/t/b 2"]);
    }
}
