//! Output errors are not fatal. A reader that left (`sweep run X 2>&1 | head -c1`, a pager
//! quit) or a full device on stdout or stderr never panics `sweep`: a sweep records every run and ends with
//! its usual exit status, and a read-only command's status is its own. An error stays one line whatever it
//! quotes. The engine is the FIXTURE rank script (`tests/fixtures/rank_fixture.sh`): its numbers are not
//! measurements.

mod common;

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{stderr, stdout, sweep_bin, Workspace};

/// `sweeps/<name>.toml`: `x` over two values, two reps, each run of the fixture engine in `mode` (`slow`
/// sleeps 0.3 s, so a later line of progress comes well after the first).
fn declare(workspace: &Workspace, name: &str, mode: &str) -> String {
    workspace.write_fixture_profile("1");
    workspace.write_sweep(
        name,
        &format!(
            "name = \"{name}\"\n[engine]\nprofile = \"fixture\"\n[params]\nx = [1, 2]\n[reps]\ncount = 2\n[run]\n\
             args = [\"0\", \"{mode}\", \"m\", \"{{{{x}}}}\"]\n[metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\n"
        ),
    )
}

/// `sweep <args>` in the workspace with its stdout and stderr as given.
fn sweep_with(workspace: &Workspace, args: &[&str], out: impl Into<Stdio>, err: impl Into<Stdio>) -> Output {
    Command::new(sweep_bin())
        .args(args)
        .current_dir(workspace.path())
        .stdout(out)
        .stderr(err)
        .output()
        .expect("sweep runs")
}

/// A device every write to fails with ENOSPC.
fn full_device() -> File {
    OpenOptions::new().write(true).open("/dev/full").expect("/dev/full opens for writing")
}

/// A pipe whose ends no other child inherits: a test running beside this one must not keep its reader open.
fn pipe() -> (OwnedFd, OwnedFd) {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("a pipe")
}

/// The write end of a pipe whose reader is already gone: every write fails with EPIPE.
fn closed_pipe() -> OwnedFd {
    let (reader, writer) = pipe();
    drop(reader);
    writer
}

/// The sweep wrote all 4 rows, every one `ok`, and its summary beside the CSV.
fn assert_complete(workspace: &Workspace, name: &str) -> PathBuf {
    let csv = workspace.result_csv(name);
    let rows = common::csv_rows(&csv);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(rows.iter().all(|row| row["status"] == "ok"), "{rows:?}");
    assert!(csv.with_extension("summary.md").is_file(), "no summary beside {}", csv.display());
    csv
}

fn assert_no_panic(output: &Output) {
    assert_ne!(output.status.code(), Some(101), "{}", stderr(output));
    assert!(!stderr(output).contains("panicked"), "{}", stderr(output));
}

#[test]
fn run_with_stderr_on_a_full_device_completes_every_run_and_its_summary() {
    let workspace = Workspace::new();
    let spec = declare(&workspace, "full", "ok");
    let output = sweep_with(&workspace, &["run", &spec], Stdio::piped(), full_device());
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_complete(&workspace, "full");
    assert!(stdout(&output).contains("x "), "stdout still gets the summary's table:\n{}", stdout(&output));
}

#[test]
fn run_with_stdout_and_stderr_on_a_full_device_completes_every_run() {
    let workspace = Workspace::new();
    let spec = declare(&workspace, "full", "ok");
    let output = sweep_with(&workspace, &["run", &spec], full_device(), full_device());
    assert_eq!(output.status.code(), Some(0));
    assert_complete(&workspace, "full");
}

#[test]
fn run_with_its_output_pipe_closed_after_one_byte_completes_every_run() {
    let workspace = Workspace::new();
    let spec = declare(&workspace, "closed", "slow");
    let (reader, writer) = pipe();
    let mut child = Command::new(sweep_bin())
        .args(["run", &spec])
        .current_dir(workspace.path())
        .stdout(writer.try_clone().expect("a second write end"))
        .stderr(writer)
        .spawn()
        .expect("sweep starts");
    // As `2>&1 | head -c1`: one byte read, then the reader gone while three slow runs are still to come.
    File::from(reader).read_exact(&mut [0u8; 1]).expect("sweep writes a first byte");
    let status = child.wait().expect("sweep ends");
    assert_eq!(status.code(), Some(0));
    assert_complete(&workspace, "closed");
}

/// Each read-only command, its stdout a closed pipe (`| head -1` that already quit): the status it has with a
/// reader, nothing said about the closed pipe, no panic.
#[test]
fn read_only_commands_on_a_closed_stdout_keep_their_exit_status_and_do_not_panic() {
    let workspace = Workspace::new();
    let spec = declare(&workspace, "read", "ok");
    let output = sweep_with(&workspace, &["run", &spec], Stdio::null(), Stdio::null());
    assert_eq!(output.status.code(), Some(0));
    let csv = assert_complete(&workspace, "read");
    let csv = csv.to_str().unwrap();
    for args in [
        vec!["report", csv],
        vec!["report", csv, "--json"],
        vec!["compare", csv, csv],
        vec!["check", &spec],
        vec!["run", &spec, "--dry-run"],
    ] {
        let closed = sweep_with(&workspace, &args, closed_pipe(), Stdio::piped());
        assert_no_panic(&closed);
        assert_eq!(closed.status.code(), Some(0), "{args:?}: {}", stderr(&closed));
        assert!(
            !stderr(&closed).contains("stdout"),
            "{args:?}: a reader that left is not an error: {}",
            stderr(&closed)
        );
    }
}

#[test]
fn report_on_a_full_stdout_says_so_once_and_keeps_its_exit_status() {
    let workspace = Workspace::new();
    let spec = declare(&workspace, "report", "ok");
    assert_eq!(sweep_with(&workspace, &["run", &spec], Stdio::null(), Stdio::null()).status.code(), Some(0));
    let csv = assert_complete(&workspace, "report");
    let output = sweep_with(&workspace, &["report", csv.to_str().unwrap()], full_device(), Stdio::piped());
    assert_no_panic(&output);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let said = stderr(&output);
    let about_stdout: Vec<&str> = said.lines().filter(|line| line.contains("stdout")).collect();
    assert_eq!(about_stdout, ["sweep: cannot write to stdout: No space left on device (os error 28)"], "{said}");
    assert!(Path::new(&csv.with_extension("summary.md")).is_file());
}

/// Found by fuzzing the sidecar reader: a key holding a line end (`"dire\nction"`), quoted back by the error
/// that refuses it, split the error over two lines.
#[test]
fn an_error_quoting_a_key_with_a_line_end_is_still_one_line() {
    let workspace = Workspace::new();
    let spec = declare(&workspace, "keys", "ok");
    assert_eq!(sweep_with(&workspace, &["run", &spec], Stdio::null(), Stdio::null()).status.code(), Some(0));
    let csv = assert_complete(&workspace, "keys");
    let sidecar = csv.with_extension("json");
    let mut value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sidecar).unwrap()).unwrap();
    value["sweep"]["analysis"]["dire\nction"] = "higher".into();
    std::fs::write(&sidecar, value.to_string()).unwrap();
    let mut declaration = std::fs::read_to_string(workspace.path().join(&spec)).unwrap();
    declaration.push_str("\"dire\\nction\" = \"higher\"\n");
    std::fs::write(workspace.path().join(&spec), declaration).unwrap();
    for args in [vec!["report", csv.to_str().unwrap()], vec!["check", &spec]] {
        let output = sweep_with(&workspace, &args, Stdio::null(), Stdio::piped());
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert_eq!(stderr(&output).lines().count(), 1, "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains("`dire\\nction`"), "{args:?}: {}", stderr(&output));
    }
}
