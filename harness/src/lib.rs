//! `sweep`: declared parameter sweeps and kernel ablations of tensor-parallel inference engines.
//!
//! One module per pipeline stage; data flows one way:
//! `spec -> plan -> variants -> build -> launch -> extract -> record -> analyse -> report`,
//! with `compare` joining two recorded sweeps.

pub mod analyse;
pub mod atomic_file;
pub mod build;
pub mod compare;
pub mod exit_code;
pub mod extract;
pub mod file_lock;
pub mod launch;
pub mod plan;
pub mod record;
pub mod report;
pub mod runner;
pub mod spec;
pub mod template;
pub mod variants;
