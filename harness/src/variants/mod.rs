//! Variants: which ablation subsets exist, how their sources are rendered, and how they are isolated
//! (a private copy of the engine tree, or in place under a lock and a journal that always restores).

mod build_guard;
mod copy_isolation;
mod design;
mod error;
mod in_place_session;
mod journal;
mod journal_confinement;
mod kept_edit;
mod recovery;
mod source_diff;
mod template_target;
mod tree_lock;
mod variant_build_mark;

#[cfg(test)]
pub(crate) use build_guard::left_running_build;
pub use build_guard::{clear_build_group, record_build_group, stop_orphaned_build};
pub use copy_isolation::{materialize_copy, tree_fingerprint};
pub use design::design_variants;
pub use error::VariantError;
pub use in_place_session::InPlaceSession;
pub use journal_confinement::{directory_refusal, STATE_DIR};
pub use kept_edit::KeptEdit;
pub use recovery::{left_by_an_ablation, recover_in_place, Recovery};
pub use source_diff::source_diff;
pub use template_target::derive_template;
pub use template_target::variant_context;
pub use template_target::{check_fresh, resolve_target, template_of_source, TemplateTarget};
pub use template_target::{render_variant, RenderedFile};
pub use tree_lock::TreeLock;
pub use variant_build_mark::VariantBuildMark;
