//! Commands the binary suggests, written so that they run as printed: this very program as it was
//! invoked (`target/release/sweep`, or `sweep` from the PATH), then every word quoted for a shell.

use sweep::launch::shell_line;

/// `<this program> <args...>`, one line a shell splits back into the same words.
pub fn sweep_command(args: &[String]) -> String {
    let program = std::env::args().next().unwrap_or_else(|| "sweep".to_string());
    shell_line(&std::iter::once(program).chain(args.iter().cloned()).collect::<Vec<_>>())
}
