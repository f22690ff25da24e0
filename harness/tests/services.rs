//! `[[run.service]]` driven through the real `sweep` binary on the serving FIXTURES in
//! fixtures/serving/ (a python3 stdlib HTTP server and load client; their numbers are not
//! measurements): the TBO seed's mode x concurrency grid with its "vs mode=off" table, and every way
//! a served run can end badly, each checked for leftover processes by pid.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{csv_rows, repo_root, stderr, sweep, Workspace};

fn serving_fixtures() -> PathBuf {
    repo_root().join("harness/tests/fixtures/serving")
}

/// A workspace holding the fixture client's profile and a sweep `name` with one `server` service
/// (extra server args `server_args`, readiness `ready`) and client args `client_args`, one run.
fn served_sweep(workspace: &Workspace, name: &str, server_args: &str, ready: &str, client_args: &str) -> String {
    let profile = std::fs::read_to_string(repo_root().join("sweeps/engines/serving-fixture.toml")).unwrap();
    let tree = format!("tree = \"{}\"", serving_fixtures().display());
    workspace.write(
        "sweeps/engines/serving-fixture.toml",
        &profile.replace("tree = \"../../harness/tests/fixtures/serving\"", &tree),
    );
    workspace.write_sweep(
        name,
        &format!(
            r#"name = "{name}"
[engine]
profile = "serving-fixture"
[params]
mode = ["off"]
[reps]
count = 1
[[run.service]]
name = "server"
program = "python3"
args = ["{{{{tree}}}}/tbo_server.py", "--mode", "{{{{mode}}}}", "--port", "{{{{port}}}}", "--pid-file", "{{{{run_dir}}}}/server.pid", {server_args}]
port = "auto"
ready = {ready}
[run]
args = [{client_args}]
[metrics]
result = ["output_tps"]
[analysis]
primary = "output_tps"
"#
        ),
    )
}

const HEALTH: &str = r#"{ http = "http://127.0.0.1:{{port}}/health", within = "30s" }"#;
const CLIENT: &str = r#""--url", "http://127.0.0.1:{{port}}", "--concurrency", "1""#;

/// The pid a fixture server wrote into its run directory.
fn server_pid(run_dir: &Path) -> i32 {
    let text = std::fs::read_to_string(run_dir.join("server.pid")).expect("the server wrote its pid");
    text.trim().parse().unwrap()
}

/// Gone, or a zombie nobody will reap (sweep has exited).
fn is_gone(pid: i32) -> bool {
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    state.is_empty() || state.contains(") Z ")
}

/// The single run's row and run directory of a one-run sweep.
fn only_run(workspace: &Workspace, name: &str) -> (std::collections::BTreeMap<String, String>, PathBuf) {
    let rows = csv_rows(&workspace.result_csv(name));
    assert_eq!(rows.len(), 1, "{rows:?}");
    let run_dir = PathBuf::from(&rows[0]["log_dir"]);
    (rows[0].clone(), run_dir)
}

#[test]
fn the_tbo_seed_runs_mode_by_concurrency_and_tables_the_impact_vs_mode_off() {
    let results = tempfile::tempdir().unwrap();
    let spec = repo_root().join("sweeps/seeds/tbo.toml");
    let output = sweep(
        results.path(),
        &["run", spec.to_str().unwrap(), "--results-dir", results.path().to_str().unwrap(), "--seed", "7"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let dir = results.path().join("tbo");
    let csv = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|x| x == "csv"))
        .unwrap();
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 18);
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        // Read from the server's log (`process = "server"`): each run had its own server in its mode.
        let speedup = match row["param.mode"].as_str() {
            "off" => "1",
            "prefill" => "1.15",
            _ => "1.3",
        };
        assert_eq!(row["metric.server_speedup"], speedup, "{row:?}");
        let run_dir = PathBuf::from(&row["log_dir"]);
        assert!(std::fs::read_to_string(run_dir.join("service-server.log")).unwrap().contains("running on"));
    }
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    let section = summary.split("## vs mode=off\n").nth(1).unwrap_or_else(|| panic!("no impact table:\n{summary}"));
    let table: Vec<&str> = section.lines().filter(|line| line.starts_with('|')).collect();
    assert!(table[0].contains("output_tps (ratio)"), "{section}");
    let body: Vec<&str> = table[2..].iter().copied().take_while(|line| line.starts_with("| ")).collect();
    assert_eq!(body.len(), 4, "all and prefill at each concurrency:\n{section}");
    assert!(body[0].starts_with("| all ") && body[3].starts_with("| prefill "), "{section}");
    assert!(common::processes_under(results.path()).is_empty(), "{:?}", common::processes_under(results.path()));
}

#[test]
fn a_service_that_dies_during_the_run_fails_it_with_its_log_and_leaves_nothing() {
    let workspace = Workspace::new();
    let spec = served_sweep(
        &workspace,
        "dies",
        r#""--die-after", "0.3""#,
        HEALTH,
        r#""--url", "http://127.0.0.1:{{port}}", "--concurrency", "1", "--requests", "2000""#,
    );
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let (row, run_dir) = only_run(&workspace, "dies");
    assert_eq!(row["status"], "failed");
    assert!(row["error"].contains("service `server` exited with code 3 while the run went on"), "{}", row["error"]);
    assert!(row["error"].contains("dying as asked"), "the log's last lines: {}", row["error"]);
    assert!(is_gone(server_pid(&run_dir)));
    assert!(common::processes_under(workspace.path()).is_empty());
}

#[test]
fn a_service_never_ready_fails_the_run_in_time_and_the_client_never_starts() {
    let workspace = Workspace::new();
    let ready = r#"{ log = "running on", within = "1s" }"#;
    let spec = served_sweep(&workspace, "never_ready", r#""--startup-seconds", "60""#, ready, CLIENT);
    let started = Instant::now();
    let output = sweep(workspace.path(), &["run", &spec]);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let (row, run_dir) = only_run(&workspace, "never_ready");
    assert_eq!(row["status"], "failed");
    let error = &row["error"];
    let expected = format!(
        "service `server` was not ready within 1s: the last probe, a log line matching `running on`, found: no \
         line of its log matched; its log {} ends: fixture server: loading",
        run_dir.join("service-server.log").display()
    );
    assert!(error.contains(&expected), "{error}");
    assert!(!run_dir.join("output.log").exists(), "the client started");
    assert!(is_gone(server_pid(&run_dir)));
}

#[test]
fn a_failing_client_fails_the_run_and_its_service_is_stopped() {
    let workspace = Workspace::new();
    let spec =
        served_sweep(&workspace, "client_fails", "", HEALTH, r#""--url", "http://127.0.0.1:1", "--concurrency", "1""#);
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let (row, run_dir) = only_run(&workspace, "client_fails");
    assert_eq!(row["status"], "failed");
    assert!(row["error"].contains("load_client: error: request failed"), "{}", row["error"]);
    assert!(row["error"].contains("exited with code 1"), "{}", row["error"]);
    assert!(is_gone(server_pid(&run_dir)));
}

#[test]
fn ctrl_c_while_the_service_starts_stops_it_and_records_nothing() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;

    let workspace = Workspace::new();
    let ready = r#"{ log = "running on", within = "60s" }"#;
    let spec = served_sweep(&workspace, "interrupted", r#""--startup-seconds", "60""#, ready, CLIENT);
    let child = std::process::Command::new(common::sweep_bin())
        .args(["run", &spec])
        .current_dir(workspace.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let pid_file = loop {
        let found = glob_pid_file(&workspace.path().join("results/interrupted"));
        if let Some(found) = found.filter(|path| std::fs::metadata(path).is_ok_and(|m| m.len() > 0)) {
            break found;
        }
        assert!(Instant::now() < deadline, "the server never started");
        std::thread::sleep(Duration::from_millis(50));
    };
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(stderr(&output).contains("interrupted during run 1"), "{}", stderr(&output));
    assert!(is_gone(server_pid(pid_file.parent().unwrap())));
    let csv = workspace.result_csv("interrupted");
    assert!(csv_rows(&csv).is_empty(), "an interrupted run is not recorded");
}

/// `<results>/<stamp>/runs/<run>/server.pid`, once the run directory exists.
fn glob_pid_file(results: &Path) -> Option<PathBuf> {
    let stamp = std::fs::read_dir(results).ok()?.map(|e| e.unwrap().path()).find(|path| path.is_dir())?;
    let run = std::fs::read_dir(stamp.join("runs")).ok()?.next()?.ok()?.path();
    Some(run.join("server.pid"))
}

#[test]
fn a_service_with_two_readiness_rules_is_bad_input_naming_file_line_and_key() {
    let workspace = Workspace::new();
    let ready = r#"{ log = "running on", tcp = "127.0.0.1:{{port}}" }"#;
    let spec = served_sweep(&workspace, "two_rules", "", ready, CLIENT);
    let output = sweep(workspace.path(), &["check", &spec]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("two_rules.toml:13: `run.service[0].ready`: give exactly one of `log`, `tcp` and `http`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bad_service_declarations_are_refused_at_load_naming_the_key() {
    let workspace = Workspace::new();
    let spec = served_sweep(&workspace, "bad", "", HEALTH, CLIENT);
    let good = std::fs::read_to_string(workspace.path().join(&spec)).unwrap();
    let cases = [
        (
            "result = [\"output_tps\"]",
            "result = [\"output_tps\"]\nresult_process = \"sever\"",
            "metrics.result_process`: unknown process `sever` (one of client, server)",
        ),
        ("port = \"auto\"", "port = \"8000\"", "run.service[0].port`: `8000`: the only value is \"auto\""),
        (
            "port = \"auto\"",
            "port = \"auto\"\nreuse_across = [\"batch\"]",
            "run.service[0].reuse_across`: unknown parameter `batch`",
        ),
        ("--pid-file", "{{model}}", "run.service[0].args[5]`: unknown template variable `model`"),
        ("name = \"server\"", "name = \"client\"", "run.service[0].name`: `client` is not a service name"),
    ];
    for (from, to, expected) in cases {
        workspace.write(&spec, &good.replacen(from, to, 1));
        let output = sweep(workspace.path(), &["check", &spec]);
        assert_eq!(output.status.code(), Some(2), "{to}: {}", stderr(&output));
        assert!(stderr(&output).contains(expected), "{to}: {}", stderr(&output));
    }
}

#[test]
fn reuse_across_serves_the_settings_of_a_round_that_differ_only_there_from_one_instance() {
    let workspace = Workspace::new();
    let client = r#""--url", "http://127.0.0.1:{{port}}", "--concurrency", "{{concurrency}}""#;
    let spec = served_sweep(&workspace, "reused", "", HEALTH, client);
    let text = std::fs::read_to_string(workspace.path().join(&spec)).unwrap();
    let text = text
        .replace("mode = [\"off\"]", "mode = [\"off\", \"all\"]\nconcurrency = [1, 2]")
        .replace("count = 1", "count = 2")
        .replace("port = \"auto\"", "port = \"auto\"\nreuse_across = [\"concurrency\"]");
    workspace.write(&spec, &text);
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let mut rows = csv_rows(&workspace.result_csv("reused"));
    assert_eq!(rows.len(), 8);
    rows.sort_by_key(|row| row["order"].parse::<u32>().unwrap());
    let mut instances = Vec::new();
    for pair in rows.chunks(2) {
        // Both concurrencies of one mode and round, back to back, beside the first one's server.
        assert_eq!((&pair[0]["param.mode"], &pair[0]["rep"]), (&pair[1]["param.mode"], &pair[1]["rep"]), "{rows:?}");
        assert!(pair.iter().all(|row| row["status"] == "ok"), "{pair:?}");
        let (first, second) = (PathBuf::from(&pair[0]["log_dir"]), PathBuf::from(&pair[1]["log_dir"]));
        let link =
            std::fs::read_link(second.join("service-server.log")).expect("the second run links the instance's log");
        assert_eq!(link, first.join("service-server.log"));
        assert!(!second.join("server.pid").exists(), "a second server started");
        instances.push(server_pid(&first));
    }
    instances.sort_unstable();
    instances.dedup();
    assert_eq!(instances.len(), 4, "one instance per mode per round");
    assert!(instances.iter().all(|&pid| is_gone(pid)));
}

/// Regression: a service that never got ready cost the whole readiness limit on every run of
/// its setting. After the first, the setting's remaining runs are recorded failed at once, naming the
/// probe, what it last found and the log.
#[test]
fn a_service_never_ready_trips_a_breaker_so_its_settings_other_runs_fail_at_once() {
    let workspace = Workspace::new();
    let ready = r#"{ http = "http://127.0.0.1:{{port}}/health", within = "1s" }"#;
    let spec = served_sweep(&workspace, "breaker", r#""--startup-seconds", "60""#, ready, CLIENT);
    let text = std::fs::read_to_string(workspace.path().join(&spec)).unwrap().replace("count = 1", "count = 3");
    std::fs::write(workspace.path().join(&spec), text).unwrap();
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let rows = csv_rows(&workspace.result_csv("breaker"));
    assert_eq!(rows.len(), 3, "{rows:?}");
    let first = &rows[0]["error"];
    let port = first.split("127.0.0.1:").nth(1).and_then(|rest| rest.split('/').next()).expect("the probe's URL");
    let log = PathBuf::from(&rows[0]["log_dir"]).join("service-server.log");
    let probe = format!(
        "service `server` was not ready within 1s: the last probe, GET http://127.0.0.1:{port}/health, found: \
         connection refused; its log {} ends: fixture server: loading",
        log.display()
    );
    assert!(first.starts_with(&probe), "{first}");
    for row in &rows[1..] {
        assert_eq!(row["status"], "failed");
        assert!(
            row["error"].starts_with(&format!("not run: an earlier run of this setting found: {probe}")),
            "{row:?}"
        );
        assert_eq!(row["duration_s"], "0.000000", "a tripped run waited: {row:?}");
        assert_eq!(row["log_dir"], rows[0]["log_dir"], "{row:?}");
    }
}

/// Regression: the HTTP probe read 64 bytes of the answer and closed the socket with the rest
/// unread, which resets the connection: the python server logged ConnectionResetError tracebacks.
#[test]
fn the_http_readiness_probe_closes_cleanly_and_the_server_logs_no_traceback() {
    let workspace = Workspace::new();
    // The server pauses between the head and the body of /health: a probe that closes after reading the
    // head alone resets the connection before the body is written.
    let spec = served_sweep(&workspace, "clean_probe", r#""--health-pause", "0.3""#, HEALTH, CLIENT);
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (row, run_dir) = only_run(&workspace, "clean_probe");
    assert_eq!(row["status"], "ok", "{row:?}");
    let log = std::fs::read_to_string(run_dir.join("service-server.log")).unwrap();
    for noise in ["Traceback", "ConnectionResetError", "BrokenPipeError", "Exception occurred"] {
        assert!(!log.contains(noise), "the server logged `{noise}`:\n{log}");
    }
}

/// Regression: a run whose service was killed was recorded failed, and `--resume` never ran
/// failed runs again, so the sweep kept the hole. It is run again (attempt 2) and the sweep completes.
#[test]
fn a_run_whose_service_was_killed_is_run_again_by_resume() {
    let workspace = Workspace::new();
    let marker = workspace.path().join("kill-the-server");
    std::fs::write(&marker, "").unwrap();
    let server_args = format!(r#""--die-after", "0.3", "--die-only-if", "{}""#, marker.display());
    let client = r#""--url", "http://127.0.0.1:{{port}}", "--concurrency", "1", "--requests", "2000""#;
    let spec = served_sweep(&workspace, "killed", &server_args, HEALTH, client);
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let csv = workspace.result_csv("killed");
    std::fs::remove_file(&marker).unwrap();
    let resumed = sweep(workspace.path(), &["run", &spec, "--resume", csv.to_str().unwrap()]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let rows = csv_rows(&csv);
    let attempts: Vec<(&str, &str)> =
        rows.iter().map(|row| (row["attempt"].as_str(), row["status"].as_str())).collect();
    assert_eq!(attempts, [("1", "failed"), ("2", "ok")]);
}
