//! `RenderedFile`: one variant's text for one engine source, ready to be copied or applied in place.

use std::path::PathBuf;

use serde_json::Value;

use super::error::VariantError;
use super::template_target::TemplateTarget;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
