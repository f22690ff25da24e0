//! `sweep restore`, and the restore every command does first on a tree an interrupted in-place
//! ablation left rendered.

use std::path::Path;

use sweep::console::Console;
use sweep::exit_code;
use sweep::variants::recover_in_place;

use crate::args::RestoreArgs;
use crate::exit_status::CommandError;

pub fn restore(args: RestoreArgs) -> Result<u8, CommandError> {
    if !args.tree.is_dir() {
        return Err(CommandError::BadInput(format!("{}: no such engine tree", args.tree.display())));
    }
    if !restore_if_interrupted(&args.tree)? {
        Console::Stderr.line(format_args!("{}: nothing to restore", args.tree.display()));
    }
    Ok(exit_code::SUCCESS as u8)
}

/// Restores `tree` from a journal left by a killed in-place ablation; says so when it did.
pub fn restore_if_interrupted(tree: &Path) -> Result<bool, CommandError> {
    let recovery = recover_in_place(tree)?;
    if let Some(recovery) = &recovery {
        Console::Stderr.line(recovery);
    }
    Ok(recovery.is_some())
}
