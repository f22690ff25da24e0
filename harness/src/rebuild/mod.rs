//! Build: each variant's declared build command (argv, never a shell string), run in parallel, cached by a
//! content hash of what was built so an unchanged variant is never rebuilt; the copies of the tree that
//! ablations and build-time sweeps build in, and the build of the engine's own tree before a run or for
//! an in-place ablation. The runner only calls it.

mod build_cache;
mod build_job;
mod build_report;
mod commit_build;
mod copy_builds;
mod deferred_copies;
mod engine_build;
mod error;
mod setting_build;
mod variant_site;

pub use build_cache::{BuildCache, BuildKey};
pub use build_job::BuildJob;
pub use build_report::{build_all, BuildReport, BuildStatus};
pub use commit_build::CommitBuild;
pub use copy_builds::{CopyBuild, CopyBuilds};
pub use deferred_copies::DeferredCopies;
pub use engine_build::{build_before_run, build_in_place, mark_variant_builds, refuse_variant_build};
pub use error::BuildError;
pub use setting_build::SettingBuild;
pub use variant_site::{cache_root, VariantSite};
