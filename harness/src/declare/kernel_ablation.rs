//! `KernelAblation`: a sweep's `[ablation]`, checked: the instruction groups its templates and sources
//! remove, and how the variants are built and run.

use std::ops::Deref;

use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::{AblationDecl, Design};
use super::MAX_ABLATION_GROUPS;

/// The `[ablation]` section once checked; read through it as declared.
#[derive(Debug, Clone)]
pub struct KernelAblation(AblationDecl);

impl KernelAblation {
    /// Selectors were parsed (their regexes compiled) when the file was read; what they select, and the
    /// templates' groups, are checked against the sources when the ablation starts. A tolerance above 1 is
    /// allowed: it is how a smoke test says "never judge additivity" on noisy tiny shapes.
    pub fn check(source: &SourceFile, decl: &AblationDecl) -> Result<Self, SpecError> {
        let groups = decl.groups.len();
        if groups > MAX_ABLATION_GROUPS {
            let message =
                format!("{groups} groups: at most {MAX_ABLATION_GROUPS} (a factorial design builds 2^k variants)");
            return Err(source.error_at("ablation.groups", message));
        }
        let tolerance = decl.tolerance;
        if !(tolerance.is_finite() && tolerance > 0.0) {
            let message = format!("{tolerance} is not a finite share above 0 of the all-groups delta (e.g. 0.05)");
            return Err(source.error_at("ablation.tolerance", message));
        }
        check_sources(source, decl)?;
        Ok(Self::recorded(decl))
    }

    /// The ablation a sidecar recorded: checked when it was loaded, before it was recorded.
    pub(super) fn recorded(decl: &AblationDecl) -> Self {
        KernelAblation(decl.clone())
    }

    /// How many variants the ablation builds (see `variants::design_variants`); groups are already bounded.
    pub fn variant_count(&self) -> u64 {
        let groups = self.groups.len() as u64;
        match self.design {
            Design::Factorial => 1 << groups,
            Design::OneAtATime if groups <= 1 => 2,
            Design::OneAtATime => groups + 2,
        }
    }
}

impl Deref for KernelAblation {
    type Target = AblationDecl;

    fn deref(&self) -> &AblationDecl {
        &self.0
    }
}

fn check_sources(source: &SourceFile, ablation: &AblationDecl) -> Result<(), SpecError> {
    if ablation.templates.is_empty() && ablation.sources.is_empty() {
        return Err(source.error_at("ablation", "neither `sources` nor `templates`: nothing says where the groups are"));
    }
    for (index, decl) in ablation.sources.iter().enumerate() {
        let key = format!("ablation.sources[{index}]");
        if decl.groups.is_empty() {
            return Err(source.error_at(&format!("{key}.groups"), "no groups: give each group a selector"));
        }
        if let Some(group) = decl.groups.keys().find(|group| !ablation.groups.contains(group)) {
            let message =
                format!("`{group}` is not a declared group (ablation.groups: {})", ablation.groups.join(", "));
            return Err(source.error_at(&format!("{key}.groups.{group}"), message));
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
            let message =
                format!("group `{}` has a selector in no source: nothing would remove it", ablation.groups[index]);
            return Err(source.error_at(&format!("ablation.groups[{index}]"), message));
        }
    }
    Ok(())
}
