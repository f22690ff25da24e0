//! `sweep bisect` end to end on a FIXTURE repository made in a temporary folder: 16 commits of a fixture
//! engine whose printed metric steps up 3% at commit 11 under 1% noise. The bisection must name commit
//! 11 within 2 x log2(16) builds, a rerun must build nothing, and bad input must be refused with one line.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{stderr, stdout, sweep, Workspace};

/// Commits in the fixture repository, and the first whose value is 3% higher.
const COMMITS: usize = 16;
const FIRST_BAD: usize = 11;

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// A git repository at `<ws>/engine` holding the fixture engine (`tests/fixtures/bisect/`), one commit a
/// value of `values` (its `value.txt`: `VALUE [NOISE]`; `broken` fails its build); the SHAs, oldest first.
fn fixture_repository(ws: &Workspace, values: &[&str]) -> Vec<String> {
    let tree = ws.path().join("engine");
    std::fs::create_dir_all(&tree).unwrap();
    let fixtures = common::repo_root().join("harness/tests/fixtures/bisect");
    for file in ["fixture_engine.sh", "build.sh"] {
        std::fs::copy(fixtures.join(file), tree.join(file)).unwrap();
    }
    git(&tree, &["init", "-q"]);
    for config in [["user.name", "fixture"], ["user.email", "fixture@example.com"]] {
        git(&tree, &["config", config[0], config[1]]);
    }
    let commit = |(index, value): (usize, &&str)| {
        std::fs::write(tree.join("value.txt"), format!("{value}\n")).unwrap();
        std::fs::write(tree.join("history.txt"), format!("commit {index}\n")).unwrap();
        git(&tree, &["add", "."]);
        git(&tree, &["commit", "-q", "-m", &format!("fixture commit {index}")]);
        git(&tree, &["rev-parse", "HEAD"])
    };
    values.iter().enumerate().map(commit).collect()
}

/// `COMMITS` values: 1.00 before `FIRST_BAD`, 1.03 from it on.
fn stepping_up() -> Vec<&'static str> {
    (0..COMMITS).map(|commit| if commit >= FIRST_BAD { "1.03" } else { "1.00" }).collect()
}

/// The fixture profile (its tree `engine/`, built by `sh build.sh {{build_dir}}`) and a declaration of
/// `settings` settings, `more` after its tables.
fn write_declaration(ws: &Workspace, settings: &str, more: &str) -> String {
    ws.write(
        "sweeps/engines/fixture.toml",
        "tree = \"../../engine\"\nbuild = [\"sh\", \"build.sh\", \"{{build_dir}}\"]\n\
         program = \"{{build_dir}}/fixture_engine.sh\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"10s\"\n\
         [result]\nprefix = \"fixture_result\"\n",
    );
    ws.write_sweep(
        "fixture_bisect",
        &format!(
            "name = \"fixture_bisect\"\n[engine]\nprofile = \"fixture\"\n[params]\nsize = {settings}\n\
             [metrics]\nresult = [\"t\"]\n[analysis]\nprimary = \"t\"\n{more}"
        ),
    )
}

fn bisect(ws: &Workspace, args: &[&str]) -> Output {
    let mut all = vec!["bisect"];
    all.extend(args);
    sweep(ws.path(), &all)
}

/// A refusal: exit 2 and one line on stderr, saying `what`.
fn assert_refused(output: &Output, what: &str) {
    let said = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    assert!(said.contains(what), "{said}");
}

#[test]
fn the_commit_that_made_it_slower_is_named_in_few_builds_and_a_rerun_builds_nothing() {
    let ws = Workspace::new();
    let shas = fixture_repository(&ws, &stepping_up());
    let file = write_declaration(&ws, "[1]", "");
    let tree = ws.path().join("engine");
    let before = git(&tree, &["status", "--porcelain"]);
    let output = bisect(&ws, &[&file, "--good", &shas[0], "--bad", &shas[COMMITS - 1], "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("--json prints one object");
    assert_eq!(report["first_bad"]["sha"], shas[FIRST_BAD], "{report:#}");
    assert_eq!(report["first_bad"]["subject"], format!("fixture commit {FIRST_BAD}"));
    let builds = report["builds"].as_u64().unwrap();
    assert!(builds <= 2 * 4, "2 x log2(16) builds at most: {report:#}");
    assert_eq!(report["built_now"], builds, "a first bisection builds every commit it uses");
    let probes = report["probes"].as_array().unwrap();
    assert_eq!(probes.len() as u64, builds - 2, "both ends and one build a probe");
    for probe in probes {
        for key in ["commit", "rounds", "position", "decided", "verdict"] {
            assert!(!probe[key].is_null(), "{key} missing: {probe}");
        }
    }
    assert_eq!(report["error_rate"], 0.05);
    assert!(report["method"].as_str().unwrap().contains("Bonferroni"), "{report:#}");
    assert!(report["runs"].as_u64().unwrap() >= 9 * probes.len() as u64, "3 rounds of 3 runs a probe at least");
    assert_eq!(report["ends"]["differ"], true, "{report:#}");
    let progress = stderr(&output);
    assert_eq!(progress.matches("probe ").count(), probes.len(), "one line a probe decided: {progress}");
    let csv = Path::new(report["results"].as_str().unwrap());
    let written = std::fs::read_to_string(ws.path().join(csv.with_extension("analysis.json"))).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&written).unwrap(), report, "the JSON written beside the CSV");
    let rows = common::csv_rows(&ws.path().join(csv));
    assert_eq!(rows.len() as u64, report["runs"].as_u64().unwrap(), "every run a row");
    assert!(rows.iter().all(|row| row["status"] == "ok" && row["variant"].len() == 12), "{rows:?}");
    assert_eq!(git(&tree, &["status", "--porcelain"]), before, "the user's working tree was changed");
    assert_eq!(git(&tree, &["worktree", "list"]).lines().count(), 1, "a worktree was added");

    let again = bisect(&ws, &[&file, "--good", &shas[0], "--bad", &shas[COMMITS - 1]]);
    assert!(again.status.success(), "{}", stderr(&again));
    let text = stdout(&again);
    assert!(text.starts_with(&format!("first bad commit: {} fixture commit", &shas[FIRST_BAD][..12])), "{text}");
    assert!(text.contains("0 built now"), "a rerun rebuilt: {text}");
}

#[test]
fn bad_input_is_refused_with_one_line() {
    let ws = Workspace::new();
    let shas = fixture_repository(&ws, &stepping_up());
    let (good, bad) = (shas[0].as_str(), shas[COMMITS - 1].as_str());
    let two = write_declaration(&ws, "[1, 2]", "");
    assert_refused(&bisect(&ws, &[&two, "--good", good, "--bad", bad]), "has 2 after --filter; pick one");
    let one = write_declaration(&ws, "[1]", "");
    assert_refused(&bisect(&ws, &[&one, "--good", good, "--bad", bad, "--metric", "tt"]), "--metric tt: not a metric");
    assert_refused(&bisect(&ws, &[&one, "--good", "no-such-rev", "--bad", bad]), "`no-such-rev` is not a commit");
    assert_refused(&bisect(&ws, &[&one, "--good", bad, "--bad", good]), "is not an ancestor of --bad");
    std::fs::remove_dir_all(ws.path().join("engine/.git")).unwrap();
    assert_refused(&bisect(&ws, &[&one, "--good", good, "--bad", bad]), "not inside a git repository");
}

#[test]
fn ends_that_measure_alike_still_finish_with_a_warning() {
    let ws = Workspace::new();
    // No noise: the ends are exactly alike, and the test is not left to a 5% chance.
    let shas = fixture_repository(&ws, &["1.00 0"; 4]);
    let file = write_declaration(&ws, "[1]", "[reps]\nwarmup = 1\n");
    let output = bisect(&ws, &[&file, "--good", &shas[0], "--bad", &shas[3], "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("warning: the good and bad ends do not measure apart"), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(report["ends"]["differ"], false, "{report:#}");
    let rows = common::csv_rows(Path::new(report["results"].as_str().unwrap()));
    let warmups = rows.iter().filter(|row| row["warmup"] == "true").count();
    assert_eq!(warmups as u64, report["builds"].as_u64().unwrap(), "the declared warmup once a commit: {rows:?}");
    assert_eq!((rows.len() - warmups) as u64, report["runs"].as_u64().unwrap());
}

#[test]
fn a_commit_that_does_not_build_stops_the_bisection_with_its_error() {
    let ws = Workspace::new();
    let shas = fixture_repository(&ws, &["1.00", "1.00", "broken", "1.03"]);
    let file = write_declaration(&ws, "[1]", "");
    let output = bisect(&ws, &[&file, "--good", &shas[0], "--bad", &shas[3]]);
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    let error = said.lines().find(|line| line.starts_with("sweep: error:")).expect("an error line");
    assert!(error.contains(&shas[2][..12]) && error.contains("broken on purpose"), "{error}");
    assert!(stdout(&output).is_empty(), "no result after a failed build: {}", stdout(&output));
}

/// Ctrl-C in the middle of a bisection: exit 130 with one line saying so, the rows so far kept.
#[test]
fn ctrl_c_stops_the_bisection_with_exit_130() {
    use std::os::unix::process::CommandExt;
    let ws = Workspace::new();
    // No noise and no step: every probe runs its 40 rounds, time enough to be interrupted.
    let shas = fixture_repository(&ws, &["1.00 0"; 4]);
    let file = write_declaration(&ws, "[1]", "");
    let child = Command::new(common::sweep_bin())
        .args(["bisect", &file, "--good", &shas[0], "--bad", &shas[3]])
        .current_dir(ws.path())
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let folder = ws.path().join("results/fixture_bisect/bisect");
    let rows = || -> usize {
        let csvs = std::fs::read_dir(&folder).into_iter().flatten().flatten();
        let csv = csvs.map(|entry| entry.path()).find(|path| path.extension().is_some_and(|ext| ext == "csv"));
        csv.map_or(0, |csv| std::fs::read_to_string(csv).unwrap_or_default().lines().count().saturating_sub(1))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while rows() < 10 {
        assert!(std::time::Instant::now() < deadline, "the bisection never ran 10 runs");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(stderr(&output).contains("interrupted by signal 2: the bisection stopped"), "{}", stderr(&output));
    assert!(stdout(&output).is_empty(), "no result of an interrupted bisection: {}", stdout(&output));
    assert!(rows() >= 10, "the rows recorded are kept");
}
