//! `CopySources`: what each setting's copy of the engine tree holds: the kernel sources an ablation
//! renders into it (none for a sweep whose only difference is its build-time params), and what is not copied.

use super::runner_error::RunnerError;
use crate::plan::Setting;
use crate::variants::RenderedFile;

/// Renders the files of one setting's copy.
pub type RenderSetting<'a> = dyn Fn(&Setting) -> Result<Vec<RenderedFile>, RunnerError> + 'a;

pub struct CopySources<'a> {
    /// Top-level entries of the tree not copied (build outputs).
    pub exclude: Vec<String>,
    /// The files rendered into one setting's copy.
    pub render: Box<RenderSetting<'a>>,
}
