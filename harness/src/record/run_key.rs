//! `RunKey`: what identifies a recorded run, so `--resume` never repeats a (setting, rep) pair.

/// A run as `--resume` matches it. Params are keyed by their CSV text, which is what the file says
/// whatever its sidecar: `spec` refuses two values of one param that print alike.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunKey {
    pub params: Vec<String>,
    pub variant: String,
    pub rep: u32,
    pub warmup: bool,
}
