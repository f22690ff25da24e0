//! Build: each variant's declared build command (argv, never a shell string), run in parallel, cached by a
//! content hash of what was built so an unchanged variant is never rebuilt.

mod build_cache;
mod build_job;
mod build_report;
mod error;

pub use build_cache::BuildKey;
pub use build_cache::EntryClaim;
pub use build_cache::{BuildCache, CachedBuild};
pub use build_job::render_build_argv;
pub use build_job::{log_tail, run_build, BuildJob, BuildOutcome};
pub use build_report::{build_all, BuildReport, BuildStatus};
pub use error::BuildError;
