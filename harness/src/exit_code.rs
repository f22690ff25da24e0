//! Documented process exit codes of the `sweep` binary (README.md, "Exit codes").

/// Everything ran and every check passed.
pub const SUCCESS: i32 = 0;
/// The sweep ran but something it checks failed: a run failed, additivity broke, a significant regression.
pub const CHECK_FAILED: i32 = 1;
/// `compare` cannot tell: the machine changed between the sides, so no change can be attributed to the
/// thing compared (neither a pass nor a regression).
pub const CANNOT_TELL: i32 = 3;
/// Bad input: an unreadable or invalid declaration, CSV or template.
pub const BAD_INPUT: i32 = 2;
/// Interrupted by Ctrl-C (128 + SIGINT); every finished row is kept.
pub const INTERRUPTED: i32 = 130;
