//! The ground floor: leaf types and helpers both arms share (the running arm writes them, the results arm
//! reads them back), so that `record` and `analyse` need nothing of `launch`, `variants` or `rebuild`.

mod base_env;
mod first_failure_line;
mod run_status;
mod sha256_hex;
mod unknown_run_status;

pub use base_env::BaseEnv;
pub use first_failure_line::first_failure_line;
pub use run_status::RunStatus;
pub use sha256_hex::sha256_hex;
pub use unknown_run_status::UnknownRunStatus;
