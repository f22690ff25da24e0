//! Command lines shown to a user, written so that they run as pasted: every word quoted for a POSIX
//! shell, and the commands `sweep` suggests led by this very program as it was invoked.

/// An argv as one line a shell splits back into the same words.
pub fn shell_line(argv: &[String]) -> String {
    argv.iter().map(|arg| shell_quote(arg)).collect::<Vec<_>>().join(" ")
}

/// `text` as one shell word: as it is when nothing in it is special to a shell, else in single quotes.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if safe {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// `<this program> <args...>` (`target/release/sweep`, or `sweep` from the PATH), as one line: a hint
/// that runs where it was printed.
pub fn sweep_command(args: &[String]) -> String {
    let program = std::env::args().next().unwrap_or_else(|| "sweep".to_string());
    shell_line(&std::iter::once(program).chain(args.iter().cloned()).collect::<Vec<_>>())
}
