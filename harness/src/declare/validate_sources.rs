//! Checks of `[ablation] sources` at load: the groups they name are declared, each declared group has a
//! source or templates that may remove it, and no file gets two templates.

use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::AblationDecl;

/// Selectors themselves were parsed (and their regexes compiled) when the file was read; what they select
/// is checked against the source when the ablation starts. Templates are checked for their groups then too.
pub fn ablation_sources(source: &SourceFile, ablation: Option<&AblationDecl>) -> Result<(), SpecError> {
    let Some(ablation) = ablation else { return Ok(()) };
    if ablation.templates.is_empty() && ablation.sources.is_empty() {
        return Err(source.error_at("ablation", "neither `sources` nor `templates`: nothing says where the groups are"));
    }
    for (index, decl) in ablation.sources.iter().enumerate() {
        let key = format!("ablation.sources[{index}]");
        if decl.groups.is_empty() {
            return Err(source.error_at(&format!("{key}.groups"), "no groups: give each group a selector"));
        }
        if let Some(group) = decl.groups.keys().find(|group| !ablation.groups.contains(group)) {
            return Err(source.error_at(
                &format!("{key}.groups.{group}"),
                format!("`{group}` is not a declared group (ablation.groups: {})", ablation.groups.join(", ")),
            ));
        }
        let templated = ablation.templates.iter().any(|template| template.target == decl.target);
        let repeated = ablation.sources[..index].iter().any(|earlier| earlier.target == decl.target);
        if templated || repeated {
            let target = &decl.target;
            let message =
                format!("`{target}` is already the target of another source or template: one file, one template");
            return Err(source.error_at(&format!("{key}.target"), message));
        }
    }
    if ablation.templates.is_empty() {
        let uncovered = ablation.groups.iter().position(|g| !ablation.sources.iter().any(|s| s.groups.contains_key(g)));
        if let Some(index) = uncovered {
            return Err(source.error_at(
                &format!("ablation.groups[{index}]"),
                format!("group `{}` has a selector in no source: nothing would remove it", ablation.groups[index]),
            ));
        }
    }
    Ok(())
}
