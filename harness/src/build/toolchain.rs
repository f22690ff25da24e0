//! The toolchain id: a compiler's version line, part of the build key so a compiler upgrade rebuilds.

use std::process::Command;

use super::error::BuildError;

/// Runs a version command (`["bisheng", "--version"]`) and returns its first non-empty output line, trimmed.
/// Stderr is used when stdout is empty, since some compilers print their version there.
pub fn toolchain_id(argv: &[String]) -> Result<String, BuildError> {
    let command = argv.join(" ");
    let failed = |reason: String| BuildError::Toolchain { command: command.clone(), reason };
    let (program, args) = argv.split_first().ok_or_else(|| failed("the command is empty".to_string()))?;
    let output = Command::new(program).args(args).output().map_err(|error| failed(error.to_string()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(failed(format!("{} ({})", output.status, first_line(&stderr).unwrap_or("no output"))));
    }
    first_line(&stdout)
        .or_else(|| first_line(&stderr))
        .map(str::to_string)
        .ok_or_else(|| failed("it printed nothing".to_string()))
}

fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|line| !line.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".to_string(), "-c".to_string(), script.to_string()]
    }

    #[test]
    fn first_non_empty_stdout_line_trimmed() {
        assert_eq!(toolchain_id(&sh("echo; echo '  bisheng 8.0.RC1  '; echo more")).unwrap(), "bisheng 8.0.RC1");
    }

    #[test]
    fn stderr_is_used_when_stdout_is_empty() {
        assert_eq!(toolchain_id(&sh("echo 'gcc 4.8' >&2")).unwrap(), "gcc 4.8");
    }

    #[test]
    fn failing_or_missing_command_is_an_error() {
        assert!(toolchain_id(&sh("echo nope >&2; exit 3")).unwrap_err().to_string().contains("nope"));
        assert!(toolchain_id(&["/nonexistent/cc".to_string()]).is_err());
        assert!(toolchain_id(&[]).is_err());
    }
}
