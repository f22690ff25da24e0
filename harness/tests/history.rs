//! `sweep history` driven end to end: real result files of a FIXTURE engine (a shell script whose
//! numbers the test chooses per version; not measurements) and of the reference engine, run by `sweep
//! run`, which adds them to the store by default; then `history add`, `show` and `changes`, their JSON, pages and exit codes, the
//! refusals (exit 2, store unchanged), and an add killed with SIGKILL (all of the file or none).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{stderr, stdout, sweep, Workspace};

const KS: [u32; 4] = [1, 2, 3, 4];

/// The machine got 10% slower from this version on (1-based), every setting alike.
const MACHINE_CHANGE: u32 = 7;
/// Setting k=2 got 6% slower from this version on: a software regression (times: lower is better).
const SETTING_CHANGE: u32 = 4;

/// A workspace with the FIXTURE engine profile `fixture` and sweep `hist` (k = 1..4, 3 reps, `value`
/// lower is better); `declaration_tail` is appended to the sweep.
fn history_workspace(declaration_tail: &str) -> Workspace {
    let workspace = Workspace::new();
    let ks: Vec<String> = KS.iter().map(u32::to_string).collect();
    workspace.write_sweep(
        "hist",
        &format!(
            "name = \"hist\"\n[engine]\nprofile = \"fixture\"\n[params]\nk = [{}]\n[reps]\ncount = 3\nseed = 1\n\
             [run]\nargs = [\"{{{{k}}}}\", \"{{{{rep}}}}\"]\n[metrics]\nresult = [\"value\"]\n[analysis]\n\
             primary = \"value\"\ndirection = \"lower\"\n{declaration_tail}",
            ks.join(", ")
        ),
    );
    workspace
}

/// Makes `version` (1-based) the engine: its toolchain says `fixture-toolkit v<version>` (the version's
/// label) and its FIXTURE script prints each setting's time at that version.
fn install_version(workspace: &Workspace, version: u32) {
    let tree = workspace.path().join("engine_fixture");
    let cases: String = KS
        .iter()
        .map(|&k| {
            let machine = if version >= MACHINE_CHANGE { 1.10 } else { 1.0 };
            let software = if k == 2 && version >= SETTING_CHANGE { 1.06 } else { 1.0 };
            // A version's own small deviation (0.2% steps), as builds and reboots leave.
            let jitter = 1.0 + 0.002 * (f64::from((version * 13 + k * 7) % 5) - 2.0);
            format!("{k}) t={} ;;\n", 10.0 * f64::from(k) * machine * software * jitter)
        })
        .collect();
    workspace.write(
        "engine_fixture/history_engine_fixture.sh",
        &format!(
            "#!/bin/sh\n# FIXTURE engine of the history tests: prints a time chosen by the test. Not a measurement.\n\
             [ -e \"$(dirname \"$0\")/fail_k$1\" ] && {{ echo 'injected failure' >&2; exit 3; }}\n\
             case \"$1\" in\n{cases}esac\n# A run's own noise: -0.4% .. +0.4% by rep.\n\
             awk -v t=\"$t\" -v rep=\"$2\" 'BEGIN {{ printf \"fixture_result value=%.6f\\n\", t * (1 + ((rep * 7) % 5 - 2) / 500) }}'\n"
        ),
    );
    let script = tree.join("history_engine_fixture.sh");
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    workspace.write(
        "sweeps/engines/fixture.toml",
        &format!(
            "tree = \"{}\"\nprogram = \"{{{{tree}}}}/history_engine_fixture.sh\"\nlauncher = \"local\"\nranks = 1\n\
             timeout = \"10s\"\n[result]\nprefix = \"fixture_result\"\n[toolchain]\nfixture = [\"echo\", \"fixture-toolkit v{version}\"]\n",
            tree.display()
        ),
    );
}

/// Runs version `version` of the sweep with `extra` arguments; returns the output.
fn run_version(workspace: &Workspace, version: u32, extra: &[&str]) -> Output {
    install_version(workspace, version);
    let mut args = vec!["run", "sweeps/hist.toml", "--no-build"];
    args.extend(extra);
    let output = sweep(workspace.path(), &args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    output
}

fn label(version: u32) -> String {
    format!("fixture: fixture-toolkit v{version}")
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(output)).unwrap_or_else(|error| panic!("{error}: {}", stdout(output)))
}

/// Bad input: exit 2 with one error line holding `says`.
fn assert_refused(output: &Output, says: &str) {
    let message = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert_eq!(message.lines().filter(|line| line.starts_with("sweep: error")).count(), 1, "{message}");
    assert!(message.contains(says), "{message}");
}

#[test]
fn twelve_versions_show_one_machine_change_and_the_settings_regression() {
    let workspace = history_workspace("");
    let store = workspace.path().join("results/history.sqlite");
    for version in 1..=12 {
        let output = run_version(&workspace, version, &[]);
        let added = format!("as version `{}` (12 runs)", label(version));
        assert!(stderr(&output).contains(&added), "`sweep run` adds its results: {}", stderr(&output));
    }
    assert!(store.is_file());

    let output = sweep(workspace.path(), &["history", "changes", "--json"]);
    assert_eq!(output.status.code(), Some(1), "a regression exits 1: {}", stderr(&output));
    let report = json(&output);
    let changes = report["changes"].as_array().unwrap();
    let machine: Vec<&serde_json::Value> = changes.iter().filter(|change| change["kind"] == "machine").collect();
    assert_eq!(machine.len(), 1, "one machine event: {changes:#?}");
    assert_eq!(machine[0]["label"], label(MACHINE_CHANGE));
    assert_eq!(machine[0]["setting"], serde_json::Value::Null);
    let settings: Vec<&serde_json::Value> = changes.iter().filter(|change| change["kind"] == "setting").collect();
    assert_eq!(settings.len(), 1, "only k=2 changed: {changes:#?}");
    let change = settings[0];
    assert_eq!(change["setting"], serde_json::json!({ "k": 2 }));
    assert_eq!(
        (change["label"].clone(), change["before"].clone()),
        (label(SETTING_CHANGE).into(), label(SETTING_CHANGE - 1).into())
    );
    let ratio = change["ratio"].as_f64().unwrap();
    assert!((ratio - 1.06).abs() < 0.01, "{change}");
    assert!(change["low"].as_f64().unwrap() < ratio && ratio < change["high"].as_f64().unwrap(), "{change}");
    assert!(change["q"].as_f64().unwrap() <= 0.05 && change["p"].as_f64().unwrap() > 0.0, "{change}");
    assert_eq!(change["regression"], true);
    assert!(stderr(&output).contains("a software change of `value` to the worse side"), "{}", stderr(&output));

    let markdown = sweep(workspace.path(), &["history", "changes"]);
    assert_eq!(markdown.status.code(), Some(1));
    let text = stdout(&markdown);
    assert!(text.starts_with("# Changes in the history of hist: value\n"), "{text}");
    assert!(
        text.contains("The machine changed from fixture: fixture-toolkit v6 to fixture: fixture-toolkit v7"),
        "{text}"
    );
    assert!(text.lines().any(|line| line.starts_with("| setting | k=2 ") && line.contains("| yes ")), "{text}");

    let show = sweep(workspace.path(), &["history", "show", "--json"]);
    assert_eq!(show.status.code(), Some(0), "{}", stderr(&show));
    let trends = json(&show);
    assert_eq!(trends["versions"].as_array().unwrap().len(), 12);
    let k2 = &trends["settings"][1];
    assert_eq!(
        (k2["label"].as_str(), k2["latest_change"].as_str()),
        (Some("k=2"), Some(label(SETTING_CHANGE).as_str()))
    );
    let first = &k2["versions"][0];
    assert_eq!((first["runs"].as_u64(), first["df"].as_u64()), (Some(3), Some(2)));
    assert!(first["low"].as_f64().unwrap() < first["mean"].as_f64().unwrap(), "{first}");
    assert_eq!(trends["settings"][0]["latest_change"], serde_json::Value::Null);

    let page = workspace.path().join("history.html");
    let page_arg = page.to_str().unwrap();
    let output = sweep(workspace.path(), &["history", "show", "--html", page_arg]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<svg").count(), 4, "a chart per setting");
    assert_eq!(html.matches("class=\"change\">latest change<").count(), 1, "k=2's change marked, only");
    assert_refused(&sweep(workspace.path(), &["history", "show", "--html", page_arg]), "--html");
    let forced = sweep(workspace.path(), &["history", "show", "--html", page_arg, "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
}

#[test]
fn adding_is_idempotent_and_a_refused_file_leaves_the_store_unchanged() {
    let workspace = history_workspace("");
    let output = run_version(&workspace, 1, &["--no-history"]);
    assert!(!stderr(&output).contains("history:"), "{}", stderr(&output));
    assert!(!workspace.path().join("results/history.sqlite").exists(), "--no-history adds nothing");
    let csv = workspace.result_csv("hist");
    let store = workspace.path().join("s.sqlite");
    let add = |csv: &Path, label: &str| {
        let (csv, store) = (csv.to_str().unwrap(), store.to_str().unwrap());
        sweep(workspace.path(), &["history", "add", csv, "--label", label, "--store", store])
    };
    let output = add(&csv, "CANN 8.1.RC1");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("as version `CANN 8.1.RC1` (12 runs)"), "{}", stdout(&output));
    let before = std::fs::read(&store).unwrap();
    let again = add(&csv, "CANN 8.1.RC1");
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(stdout(&again).contains("already in") && stdout(&again).contains("nothing changed"), "{}", stdout(&again));
    assert_eq!(std::fs::read(&store).unwrap(), before, "adding a file twice changed the store");

    let bare = workspace.path().join("bare.csv");
    std::fs::copy(&csv, &bare).unwrap();
    assert_refused(&add(&bare, "bare"), &format!("{}: no sidecar beside it", bare.display()));
    assert_eq!(std::fs::read(&store).unwrap(), before);

    // Another grid under the same sweep name.
    let other = Workspace::new();
    std::fs::copy(workspace.path().join("sweeps/hist.toml"), other.path().join("sweeps/hist.toml")).unwrap();
    let declaration = std::fs::read_to_string(other.path().join("sweeps/hist.toml")).unwrap();
    other.write("sweeps/hist.toml", &declaration.replace("k = [1, 2, 3, 4]", "k = [1, 2]"));
    install_version(&other, 2);
    // Its run's own store holds the other grid: the run is kept, its exit code too, with one warning.
    std::fs::create_dir_all(other.path().join("results")).unwrap();
    std::fs::copy(&store, other.path().join("results/history.sqlite")).unwrap();
    let output = sweep(other.path(), &["run", "sweeps/hist.toml", "--no-build"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let message = stderr(&output);
    let warnings: Vec<&str> = message.lines().filter(|line| line.contains("history store")).collect();
    assert_eq!(warnings.len(), 1, "{message}");
    assert!(
        warnings[0].starts_with("sweep: warning: the results were not added") && warnings[0].contains("another grid")
    );
    let other_csv = other.result_csv("hist");
    assert_refused(
        &add(&other_csv, "other"),
        &format!("{}: not added: the store holds sweep `hist` with another grid", other_csv.display()),
    );
    assert_eq!(std::fs::read(&store).unwrap(), before);

    let store_arg = store.to_str().unwrap();
    let few = sweep(workspace.path(), &["history", "changes", "--store", store_arg]);
    assert_eq!(few.status.code(), Some(0), "{}", stderr(&few));
    assert!(
        stdout(&few).contains("Not enough history to search for changes: 1 version (at least 4 are needed)."),
        "{}",
        stdout(&few)
    );
    let few_json = json(&sweep(workspace.path(), &["history", "changes", "--json", "--store", store_arg]));
    assert_eq!(
        (few_json["enough_history"].as_bool(), few_json["changes"].as_array().map(Vec::len)),
        (Some(false), Some(0))
    );
    assert_refused(
        &sweep(workspace.path(), &["history", "show", "--store", "absent.sqlite"]),
        "absent.sqlite: no store there",
    );
}

/// The reference engine run twice: each run is a version, the second labelled apart from the first (the
/// same toolchain and commit), and two versions are too few to search for changes.
#[test]
fn two_runs_of_the_reference_engine_are_two_versions() {
    let workspace = Workspace::new();
    common::ensure_engine_built();
    let spec = workspace.write_sweep(
        "versions",
        "name = \"versions\"\n[engine]\nprofile = \"reference\"\n[params]\nslices = [1, 2]\nrows = 256\n[reps]\ncount = 2\n\
         [run]\nargs = [\"--preset\", \"tiny\", \"--rows\", \"{{rows}}\", \"--new\", \"2\"]\n[run.env]\n\
         TPE_OVERLAP_SLICES = \"{{slices}}\"\n[metrics]\nresult = [\"prefill_tokens_per_s\", \"decode_tokens_per_s\"]\n\
         [analysis]\nprimary = \"prefill_tokens_per_s\"\ncontrol = \"decode_tokens_per_s\"\n",
    );
    for _ in 0..2 {
        let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(stderr(&output).contains("history: ") && stderr(&output).contains("(4 runs)"), "{}", stderr(&output));
    }
    let trends = json(&sweep(workspace.path(), &["history", "show", "--json"]));
    let versions: Vec<&str> = trends["versions"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert_eq!(versions.len(), 2, "{trends}");
    assert!(versions[1].starts_with(versions[0]) && versions[1].ends_with(')'), "{versions:?}");
    assert_eq!(trends["settings"].as_array().map(Vec::len), Some(2));
    assert_eq!(trends["settings"][0]["versions"][1]["runs"], 2);
    let changes = sweep(workspace.path(), &["history", "changes"]);
    assert_eq!(changes.status.code(), Some(0), "{}", stderr(&changes));
    assert!(stdout(&changes).contains("Not enough history"), "{}", stdout(&changes));
}

/// A sweep with failed runs is added; once `--resume` has run them again, its grown CSV replaces the
/// version's runs rather than adding a version.
#[test]
fn a_resumed_csv_replaces_its_versions_runs() {
    let workspace = history_workspace("");
    install_version(&workspace, 1);
    let fail = workspace.write("engine_fixture/fail_k4", "");
    let output = sweep(workspace.path(), &["run", "sweeps/hist.toml", "--no-build", "--keep-going"]);
    assert_eq!(output.status.code(), Some(1), "k=4 failed: {}", stderr(&output));
    assert!(stderr(&output).contains(&format!("as version `{}` (12 runs)", label(1))), "{}", stderr(&output));
    std::fs::remove_file(fail).unwrap();
    let csv = workspace.result_csv("hist");
    let resumed =
        sweep(workspace.path(), &["run", "sweeps/hist.toml", "--no-build", "--resume", csv.to_str().unwrap()]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let grown =
        format!("grew since it was added; version `{}` in results/history.sqlite now holds its 15 runs", label(1));
    assert!(stderr(&resumed).contains(&grown), "{}", stderr(&resumed));
    let trends = json(&sweep(workspace.path(), &["history", "show", "--json"]));
    assert_eq!(trends["versions"].as_array().map(Vec::len), Some(1));
    assert_eq!(trends["settings"][3]["versions"][0]["runs"], 3, "k=4's runs run again: {trends}");
}

#[test]
fn a_declaration_opts_out_and_an_unknown_history_key_names_file_and_key() {
    let workspace = history_workspace("[history]\nadd = false\n");
    run_version(&workspace, 1, &[]);
    assert!(!workspace.path().join("results/history.sqlite").exists(), "`[history] add = false` adds nothing");
    let sharded = history_workspace("");
    let output = run_version(&sharded, 1, &["--shard", "1/2"]);
    assert!(stderr(&output).contains("history: a shard is not added"), "{}", stderr(&output));
    assert!(!sharded.path().join("results/history.sqlite").exists(), "a shard is left to its merge");
    let elsewhere = history_workspace("");
    let output = run_version(&elsewhere, 1, &["--out", "elsewhere/x.csv"]);
    let store = elsewhere.path().join("elsewhere/history.sqlite");
    assert!(
        stderr(&output).contains(&format!("added to {}", Path::new("elsewhere/history.sqlite").display())),
        "{}",
        stderr(&output)
    );
    assert!(
        store.is_file() && !elsewhere.path().join("results/history.sqlite").exists(),
        "the store is beside --out's CSV"
    );
    let misspelt = history_workspace("[history]\nadds = false\n");
    let output = sweep(misspelt.path(), &["check", "sweeps/hist.toml"]);
    assert_refused(&output, "sweeps/hist.toml");
    assert!(stderr(&output).contains("unknown key `adds`"), "{}", stderr(&output));
}

/// An add killed (SIGKILL) while it writes a big file leaves the store with all of that file or none of
/// it, and a later add completes it.
#[test]
fn a_sigkilled_add_leaves_all_of_the_file_or_none() {
    let workspace = history_workspace("");
    run_version(&workspace, 1, &["--no-history"]);
    let small = workspace.result_csv("hist");
    let big = big_copy(&small, 40_000);
    let store = workspace.path().join("s.sqlite");
    let store_arg = store.to_str().unwrap();
    let first = sweep(workspace.path(), &["history", "add", small.to_str().unwrap(), "--store", store_arg]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let mut child = Command::new(common::sweep_bin())
        .args(["history", "add", big.to_str().unwrap(), "--store", store_arg])
        .current_dir(workspace.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The rollback journal exists once the add's transaction has written its first rows.
    let journal = workspace.path().join("s.sqlite-journal");
    let start = Instant::now();
    while !journal.exists() && start.elapsed() < Duration::from_secs(30) && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(child.try_wait().unwrap().is_none(), "the add ended before it could be killed mid-way");
    child.kill().unwrap();
    child.wait().unwrap();
    let runs = stored_runs(&store);
    assert!(runs == 12 || runs == 12 + 160_000, "{runs} runs: part of a file");
    let again = sweep(workspace.path(), &["history", "add", big.to_str().unwrap(), "--store", store_arg]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stored_runs(&store), 12 + 160_000);
}

/// The runs the store at `path` holds, read as any SQLite reader would after a crash.
fn stored_runs(path: &Path) -> i64 {
    let connection = rusqlite::Connection::open(path).unwrap();
    connection.query_row("SELECT count(*) FROM runs", [], |row| row.get(0)).unwrap()
}

/// A copy of the result `csv` with `reps` reps of every setting (its sidecar planning them), beside it.
fn big_copy(csv: &Path, reps: u32) -> PathBuf {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rep_column = header.split(',').position(|column| column == "rep").unwrap();
    let firsts: Vec<&str> = lines.filter(|line| line.split(',').nth(rep_column) == Some("1")).collect();
    let mut big = format!("{header}\n");
    for rep in 1..=reps {
        for line in &firsts {
            let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
            cells[rep_column] = rep.to_string();
            big.push_str(&cells.join(","));
            big.push('\n');
        }
    }
    let path = csv.with_file_name("big.csv");
    std::fs::write(&path, big).unwrap();
    let mut sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(csv.with_extension("json")).unwrap()).unwrap();
    sidecar["reps"] = reps.into();
    std::fs::write(path.with_extension("json"), sidecar.to_string()).unwrap();
    path
}
