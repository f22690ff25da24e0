//! `sweep template`: the ablation template of an engine source, checked to render it back, printed or written.

use std::path::Path;

use sweep::console::Console;
use sweep::declare::Selector;
use sweep::exit_code;
use sweep::variants::template_of_source;

use crate::args::TemplateArgs;
use crate::exit_status::CommandError;

pub fn template(args: TemplateArgs) -> Result<u8, CommandError> {
    let groups: Result<Vec<_>, _> = args.groups.iter().map(|argument| Selector::parse_group(argument)).collect();
    let groups = groups.map_err(|error| CommandError::BadInput(format!("--group {error}")))?;
    let text = template_of_source(&args.source, &groups)?;
    if args.out.as_ref().is_some_and(|out| same_file(out, &args.source)) {
        return Err(CommandError::BadInput(format!(
            "{}: -o names the source itself; write the template beside it",
            args.source.display()
        )));
    }
    match &args.out {
        None => Console::Stdout.write(&text),
        Some(path) => {
            crate::result_files::refuse_overwrite(path, "-o", args.force)?;
            crate::result_files::save(path, &text)?
        }
    }
    Ok(exit_code::SUCCESS as u8)
}

fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}
