//! `STATE_DIR`: sweep's own directory inside an engine tree, named once for everything that finds it.

/// Sweep's own directory inside an engine tree: its lock, and an in-place ablation's journal.
pub const STATE_DIR: &str = ".sweep-inplace";
