//! `sweep ablate` end to end on the reference engine: copy and in-place isolation, the build cache, fault
//! injection (SIGINT/SIGTERM/SIGKILL at random instants), the tree lock, a variant that does not compile and
//! a stale template. In-place tests only ever edit a temporary copy of engine/, never the real tree.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use common::{csv_rows, stderr, stdout, sweep_bin, Workspace};
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

const KERNEL: &str = "kernels/gated_delta.cpp";
const STATE_DIR: &str = ".sweep-inplace";
const VARIANTS: [&str; 4] = ["baseline", "broadcast_rows", "rank1_update", "broadcast_rows+rank1_update"];

fn template_path() -> PathBuf {
    common::repo_root().join("kernel-variants/gated_delta/gated_delta.cpp.hbs")
}

fn sha256_file(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    format!("{:x}", Sha256::digest(&bytes))
}

/// A temporary copy of engine/ without build/ (modes preserved), for in-place ablations to edit.
fn engine_copy() -> tempfile::TempDir {
    fn copy_dir(from: &Path, to: &Path, top: bool) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if top && (name == "build" || name == STATE_DIR) {
                continue;
            }
            let kind = entry.file_type().unwrap();
            let (src, dst) = (entry.path(), to.join(&name));
            if kind.is_dir() {
                copy_dir(&src, &dst, false);
            } else if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(&src).unwrap(), &dst).unwrap();
            } else {
                std::fs::copy(&src, &dst).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy_dir(common::engine_tree(), dir.path(), true);
    dir
}

/// An ablation declaration over the reference profile with a tiny shape and the gated_delta profile metric.
struct Decl<'a> {
    name: &'a str,
    /// `None`: the profile's tree (`common::engine_tree()`, only ever for copy isolation).
    tree: Option<&'a Path>,
    template: &'a Path,
    isolation: &'a str,
    reps: u32,
    tolerance: f64,
}

impl Decl<'_> {
    fn toml(&self) -> String {
        let tree = self.tree.map_or(String::new(), |tree| format!("tree = \"{}\"\n", tree.display()));
        format!(
            r#"name = "{name}"
description = "ablate.rs integration test"

[engine]
profile = "reference"
{tree}
[params]
rows = 256
new = 2

[reps]
count = {reps}
order = "interleaved"
seed = 5404

[run]
args = ["--preset", "tiny", "--rows", "{{{{rows}}}}", "--new", "{{{{new}}}}"]

[run.env]
TPE_PHASE_PROFILE = "1"
TPE_OVERLAP_SLICES = "1"

[metrics]
result = ["prefill_seconds", "prefill_tokens_per_s", "wall"]

[metrics.profile]
block = {{ select = "matching", rank = 0, phase = "STACK", result_key = "prefill_seconds", within = 0.05 }}
phases = {{ gated_delta = "gated_delta", stack = "STACK" }}

[analysis]
primary = "gated_delta"
direction = "lower"

[ablation]
groups = ["broadcast_rows", "rank1_update"]
design = "factorial"
isolation = "{isolation}"
tolerance = {tolerance:?}
templates = [{{ template = "{template}", target = "{KERNEL}" }}]
"#,
            name = self.name,
            reps = self.reps,
            isolation = self.isolation,
            tolerance = self.tolerance,
            template = self.template.display(),
        )
    }
}

/// A workspace holding one declaration; `results` is where its results (and build cache) go.
struct Setup {
    ws: Workspace,
    decl: String,
    results: PathBuf,
}

fn setup(decl: &Decl<'_>) -> Setup {
    let ws = Workspace::new();
    let relative = ws.write_sweep(decl.name, &decl.toml());
    let results = ws.path().join("results");
    Setup { decl: ws.path().join(relative).display().to_string(), results, ws }
}

impl Setup {
    fn ablate(&self, extra: &[&str]) -> Output {
        let mut args = vec!["ablate", self.decl.as_str(), "--results-dir", self.results.to_str().unwrap()];
        args.extend_from_slice(extra);
        common::sweep(self.ws.path(), &args)
    }

    /// `sweep ablate` as a child in its own process group (so a SIGKILL can take its make along).
    fn spawn(&self, extra: &[&str]) -> Child {
        Command::new(sweep_bin())
            .args(["ablate", self.decl.as_str(), "--results-dir", self.results.to_str().unwrap()])
            .args(extra)
            .current_dir(self.ws.path())
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sweep starts")
    }
}

/// The words of a report as the terminal or markdown lays it out, without the layout: heading marks and
/// rules, list bullets and table bars (an escaped `\|` in a markdown cell is the cell's `|`).
fn words(text: &str) -> Vec<String> {
    let layout = |word: &&str| word.chars().all(|c| matches!(c, '|' | '#' | '-' | '='));
    text.replace("\\|", "|").split_whitespace().filter(|word| !layout(word)).map(String::from).collect()
}

/// The paths `finish_message` prints: `results: CSV`, then a line per other file (`  summary M`, ...).
fn result_paths(err: &str) -> (PathBuf, PathBuf) {
    let line = |prefix: &str| {
        err.lines().find_map(|l| l.strip_prefix(prefix)).unwrap_or_else(|| panic!("no `{prefix}` line in:\n{err}"))
    };
    let csv = line("results: ");
    let summary = line("  summary ");
    (PathBuf::from(csv), PathBuf::from(summary))
}

fn describe(output: &Output) -> String {
    format!("status {:?}\n--- stdout\n{}\n--- stderr\n{}", output.status, stdout(output), stderr(output))
}

/// Lines of stderr starting with `prefix` (build lines: `built `, `cached `, `build of `).
fn lines_starting<'a>(err: &'a str, prefix: &str) -> Vec<&'a str> {
    err.lines().filter(|l| l.starts_with(prefix)).collect()
}

/// Every row ok, `reps` rows per variant in `variants` and none of any other, one distinct hash per variant.
fn assert_rows(csv: &Path, variants: &[&str], reps: usize) -> Vec<BTreeMap<String, String>> {
    let rows = csv_rows(csv);
    let mut per_variant: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for row in &rows {
        assert_eq!(row["status"], "ok", "run not ok: {row:?}");
        assert!(!row["variant_hash"].is_empty(), "empty variant_hash: {row:?}");
        assert!(row["metric.gated_delta"].parse::<f64>().is_ok_and(|v| v > 0.0), "no gated_delta metric: {row:?}");
        per_variant.entry(row["variant"].clone()).or_default().insert(row["variant_hash"].clone());
    }
    let got: BTreeSet<&str> = per_variant.keys().map(String::as_str).collect();
    assert_eq!(got, variants.iter().copied().collect(), "variants in {}", csv.display());
    for variant in variants {
        assert_eq!(rows.iter().filter(|r| r["variant"] == *variant).count(), reps, "rows of {variant}");
        assert_eq!(per_variant[*variant].len(), 1, "{variant} has several hashes: {:?}", per_variant[*variant]);
    }
    let hashes: BTreeSet<&String> = per_variant.values().flatten().collect();
    assert_eq!(hashes.len(), variants.len(), "variant hashes not distinct: {per_variant:?}");
    rows
}

/// The tree is the original again and holds no sweep state.
fn assert_restored(tree: &Path, original: &str, context: &str) {
    assert_eq!(sha256_file(&tree.join(KERNEL)), original, "{context}: {KERNEL} differs from the original");
    assert!(!tree.join(STATE_DIR).exists(), "{context}: {STATE_DIR} left in {}", tree.display());
    let strays: Vec<_> = std::fs::read_dir(tree.join("kernels"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("sweep"))
        .collect();
    assert!(strays.is_empty(), "{context}: temporary files left in kernels/: {strays:?}");
}

/// Every file under `dir` with its mtime.
fn mtimes(dir: &Path) -> BTreeMap<PathBuf, SystemTime> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            }
            all.insert(entry.path(), meta.modified().unwrap());
        }
    }
    all
}

/// The shipped template with an `#error` in the code that ablating `rank1_update` leaves.
fn broken_template(ws: &Workspace) -> PathBuf {
    let text = std::fs::read_to_string(template_path()).unwrap();
    let anchor = "#include \"gated_delta.h\"\n";
    assert!(text.contains(anchor));
    let broken =
        text.replacen(anchor, &format!("{anchor}{{{{#if ablate.rank1_update}}}}\n#error ablated\n{{{{/if}}}}\n"), 1);
    ws.write("templates/broken.cpp.hbs", &broken)
}

#[test]
fn copy_isolation_runs_every_variant_leaves_the_engine_untouched_and_a_rerun_builds_nothing() {
    let engine = common::engine_tree();
    let before = sha256_file(&engine.join(KERNEL));
    let template = template_path();
    let s =
        setup(&Decl { name: "gd_copy", tree: None, template: &template, isolation: "copy", reps: 2, tolerance: 0.05 });

    let started = Instant::now();
    let first = s.ablate(&["--jobs", "2"]);
    let first_seconds = started.elapsed().as_secs_f64();
    let code = first.status.code();
    assert!(matches!(code, Some(0 | 1)), "{}", describe(&first));
    let err = stderr(&first);
    assert_eq!(lines_starting(&err, "built ").len(), 4, "every variant built once:\n{err}");
    assert!(lines_starting(&err, "build of ").is_empty(), "a build failed:\n{err}");
    let (csv, summary) = result_paths(&err);
    let rows = assert_rows(&csv, &VARIANTS, 2);
    assert_eq!(rows.len(), 8);
    assert_eq!(sha256_file(&engine.join(KERNEL)), before, "copy isolation changed the real engine tree");
    assert!(!engine.join(STATE_DIR).exists());

    let text = std::fs::read_to_string(&summary).unwrap_or_else(|e| panic!("{}: {e}", summary.display()));
    for variant in VARIANTS {
        assert!(text.contains(&format!("| {variant} ")), "summary lacks the {variant} row:\n{text}");
    }
    assert!(text.contains("| variant "), "summary lacks the table:\n{text}");
    // Exit 1 here can only be the additivity check (every build and run was ok): the summary must say so.
    let verdict =
        text.lines().find(|l| l.contains("with all groups ablated")).unwrap_or_else(|| panic!("no verdict:\n{text}"));
    // The check looked for `NOT additive` after the verdict came to read `-> not additive within 5.0%`,
    // so a noisy machine's (correct) exit 1 failed it.
    let not_additive = verdict.contains("-> not additive within");
    assert_eq!(code == Some(1), not_additive, "exit {code:?} against the verdict: {verdict}");
    // The line's all-groups delta is the table's, digit for digit (they came from two computations, and
    // read -5.795 s against -6.309 s): the line may add the unit.
    let all: Vec<&str> = verdict
        .split(" against ")
        .nth(1)
        .and_then(|rest| rest.split(" with all").next())
        .map_or_else(|| panic!("no all-groups delta in: {verdict}"), |all| all.split(' ').collect());
    let row = text.lines().find(|l| l.starts_with(&format!("| {} ", VARIANTS[3]))).expect("the all-groups row");
    let cell: Vec<&str> =
        row.split('|').nth(3).expect("a delta cell").trim().split(" (").next().unwrap().split(' ').collect();
    assert!(all.len() <= cell.len() + 1 && all.starts_with(&cell), "{verdict}\n{row}");
    // The file ends with the mark naming the sweep it belongs to (an HTML comment), which is not printed.
    let unmarked = text.trim().rsplit_once('\n').filter(|(_, mark)| mark.starts_with("<!-- sweep-result: "));
    // The terminal lays the same document out without markup (underlined headings, plain columns): the
    // two say the same words in the same order.
    assert_eq!(
        words(&stdout(&first)),
        words(unmarked.map_or(text.as_str(), |(summary, _)| summary)),
        "stdout and the summary file differ:\n{}\n{text}",
        stdout(&first)
    );

    // Same declaration, same results dir: every build is a cache hit and the compiler never runs.
    let cache = s.results.join("gd_copy/build-cache");
    let cache_before = mtimes(&cache);
    let started = Instant::now();
    let second = s.ablate(&["--jobs", "2"]);
    let second_seconds = started.elapsed().as_secs_f64();
    assert!(matches!(second.status.code(), Some(0 | 1)), "{}", describe(&second));
    let err2 = stderr(&second);
    assert_eq!(lines_starting(&err2, "cached ").len(), 4, "every build cached on the rerun:\n{err2}");
    assert!(lines_starting(&err2, "built ").is_empty(), "the rerun rebuilt something:\n{err2}");
    assert_eq!(mtimes(&cache), cache_before, "the rerun touched the build cache (a compiler ran)");
    let (csv2, _) = result_paths(&err2);
    assert_ne!(csv2, csv);
    let rows2 = assert_rows(&csv2, &VARIANTS, 2);
    let hashes = |rows: &[BTreeMap<String, String>]| -> BTreeMap<String, String> {
        rows.iter().map(|r| (r["variant"].clone(), r["variant_hash"].clone())).collect()
    };
    assert_eq!(hashes(&rows2), hashes(&rows), "a cached variant has a different hash");
    assert_eq!(sha256_file(&engine.join(KERNEL)), before);
    eprintln!("copy isolation: first {first_seconds:.1}s, cached rerun {second_seconds:.1}s");
}

#[test]
fn in_place_ablation_on_a_tree_copy_runs_every_variant_and_restores_the_kernel_byte_for_byte() {
    let tree = engine_copy();
    let original = sha256_file(&tree.path().join(KERNEL));
    let template = template_path();
    let s = setup(&Decl {
        name: "gd_inplace",
        tree: Some(tree.path()),
        template: &template,
        isolation: "in-place",
        reps: 1,
        tolerance: 1e9,
    });
    let output = s.ablate(&[]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let err = stderr(&output);
    assert_eq!(lines_starting(&err, "built ").len(), 4, "{err}");
    assert!(err.contains("restored kernels/gated_delta.cpp in"), "{err}");
    let (csv, summary) = result_paths(&err);
    assert_rows(&csv, &VARIANTS, 1);
    assert!(summary.is_file());
    assert_restored(tree.path(), &original, "after an in-place ablation");
    // --isolation on the command line overrides the declaration: a copy run leaves no trace in the tree either.
    let copy = s.ablate(&["--isolation", "copy", "--reps", "1", "--jobs", "2"]);
    assert_eq!(copy.status.code(), Some(0), "{}", describe(&copy));
    assert_restored(tree.path(), &original, "after a copy ablation of the tree copy");
}

#[test]
fn in_place_ablation_interrupted_at_random_instants_always_leaves_the_original_kernel() {
    let tree = engine_copy();
    let kernel = tree.path().join(KERNEL);
    let original = sha256_file(&kernel);
    let template = template_path();
    // Huge tolerance: a finished ablation exits 0, so an exit 1 is a real failure, not additivity noise.
    let s = setup(&Decl {
        name: "gd_fault",
        tree: Some(tree.path()),
        template: &template,
        isolation: "in-place",
        reps: 1,
        tolerance: 1e9,
    });
    let total = Instant::now();

    // One undisturbed ablation builds the engine in the copy; a second one (kernel rebuilds only, like every
    // attempt) times a whole attempt, so the random delays spread over all its phases.
    let warm = s.ablate(&["--out", s.results.join("warm.csv").to_str().unwrap()]);
    assert_eq!(warm.status.code(), Some(0), "{}", describe(&warm));
    assert_restored(tree.path(), &original, "after the warm-up ablation");
    let started = Instant::now();
    let timed = s.ablate(&["--out", s.results.join("timed.csv").to_str().unwrap()]);
    let full = started.elapsed();
    assert_eq!(timed.status.code(), Some(0), "{}", describe(&timed));
    assert_restored(tree.path(), &original, "after the timed ablation");

    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed_ab1a);
    let signals = [Signal::SIGINT, Signal::SIGTERM, Signal::SIGKILL];
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut recovered = 0;
    for attempt in 0..21usize {
        let signal = signals[attempt % signals.len()];
        let delay = Duration::from_millis(rng.random_range(50..=full.as_millis().max(51) as u64));
        let out = s.results.join(format!("attempt-{attempt:02}.csv"));
        let child = s.spawn(&["--out", out.to_str().unwrap()]);
        let pid = Pid::from_raw(child.id() as i32);
        std::thread::sleep(delay);
        let finished_before = child_exited(pid);
        if signal == Signal::SIGKILL {
            // The whole group: sweep and the make it may be running (ranks have their own groups and end alone).
            let _ = killpg(pid, Signal::SIGKILL);
        } else {
            let _ = kill(pid, signal);
        }
        let output = child.wait_with_output().unwrap();
        let context = format!("attempt {attempt}: {signal} after {delay:?}\n{}", describe(&output));
        let outcome = classify(&output.status, signal, finished_before, &out, &context);
        if signal == Signal::SIGKILL {
            let restore = common::sweep(s.ws.path(), &["restore", tree.path().to_str().unwrap()]);
            assert_eq!(restore.status.code(), Some(0), "{context}\nrestore: {}", describe(&restore));
            if stderr(&restore).contains("restored 1 file(s) from an interrupted in-place ablation") {
                recovered += 1;
            }
        }
        assert_restored(tree.path(), &original, &context);
        *outcomes.entry(format!("{signal}: {outcome}")).or_default() += 1;
    }
    eprintln!(
        "fault injection: attempt ~{full:?}, {outcomes:?}, {recovered} SIGKILL recoveries, total {:?}",
        total.elapsed()
    );
    let interrupted: usize = outcomes.iter().filter(|(k, _)| k.ends_with("130")).map(|(_, n)| n).sum();
    assert!(interrupted >= 5, "too few signals interrupted a live ablation: {outcomes:?}");
    assert!(recovered >= 1, "no SIGKILL left a journal to recover: {outcomes:?}");
    // The tree still builds and ablates after all that.
    let after = s.ablate(&["--out", s.results.join("after.csv").to_str().unwrap()]);
    assert_eq!(after.status.code(), Some(0), "{}", describe(&after));
    assert_restored(tree.path(), &original, "after the final ablation");
}

/// Whether `pid` (our unreaped child) has exited already.
fn child_exited(pid: Pid) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state field follows the parenthesised command name.
    stat.rsplit(')').next().is_none_or(|rest| rest.trim_start().starts_with('Z'))
}

/// Checks an interrupted attempt's exit and names it: `130`, `done` (finished first) or `killed`.
fn classify(status: &ExitStatus, signal: Signal, finished_before: bool, csv: &Path, context: &str) -> &'static str {
    if signal == Signal::SIGKILL {
        return if status.signal() == Some(Signal::SIGKILL as i32) { "killed" } else { "done" };
    }
    match status.code() {
        Some(130) => "130",
        Some(0) => {
            // Success means the whole plan ran: an ablation that stopped early must not claim it.
            let rows = csv_rows(csv);
            assert!(rows.iter().all(|r| r["status"] == "ok"), "{context}");
            // Regression: a signal between one variant's last run and the next build used to end the
            // loop without marking the session interrupted, so sweep exited 0 with variants missing.
            assert_eq!(
                rows.len(),
                VARIANTS.len(),
                "exit 0 with runs missing (finished before the signal: {finished_before}): {context}"
            );
            "done"
        }
        // Before the handlers are installed the default action ends sweep; it had not touched the tree yet.
        None if status.signal() == Some(signal as i32) => "early",
        _ => panic!("exit is neither 130 nor a finished ablation: {context}"),
    }
}

#[test]
fn second_in_place_ablation_of_a_locked_tree_is_refused_naming_the_holder_pid() {
    let tree = engine_copy();
    let original = sha256_file(&tree.path().join(KERNEL));
    let template = template_path();
    let s = setup(&Decl {
        name: "gd_lock",
        tree: Some(tree.path()),
        template: &template,
        isolation: "in-place",
        reps: 2,
        tolerance: 1e9,
    });
    let holder = s.spawn(&["--out", s.results.join("holder.csv").to_str().unwrap()]);
    let pid = holder.id();
    let lock = tree.path().join(STATE_DIR).join("lock");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&lock).map_or(true, |text| text.trim() != pid.to_string()) {
        assert!(Instant::now() < deadline, "the first ablation never took the lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = s.ablate(&["--out", s.results.join("second.csv").to_str().unwrap()]);
    let still_running = !child_exited(Pid::from_raw(pid as i32));
    let err = stderr(&second);
    assert!(matches!(second.status.code(), Some(1 | 2)), "{}", describe(&second));
    assert!(err.contains(&format!("locked by sweep pid {pid}")), "{}", describe(&second));
    assert!(!s.results.join("second.csv").exists(), "the refused ablation wrote results");
    assert!(still_running, "the holder finished before the second ablation was refused: the test proved nothing");

    let first = holder.wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", describe(&first));
    assert_rows(&s.results.join("holder.csv"), &VARIANTS, 2);
    assert_restored(tree.path(), &original, "after the holder finished");
}

/// Runs the broken-template ablation and checks what every mode shares: exit 1, both rank1_update variants'
/// builds reported failed with the compiler's `#error` line, none of their runs recorded.
fn run_broken(s: &Setup, extra: &[&str]) -> (String, Vec<BTreeMap<String, String>>) {
    let output = s.ablate(extra);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let err = stderr(&output);
    let failed = lines_starting(&err, "build of ");
    assert!(!failed.is_empty(), "no failed build reported:\n{err}");
    assert!(failed.iter().all(|l| l.contains("rank1_update") && l.contains("FAILED, its runs are skipped")), "{err}");
    // One line each: the groups that variant removes and the compiler's first error.
    assert!(failed.iter().all(|l| l.contains("ablates ") && l.contains("error: #error ablated")), "{err}");
    let (csv, _) = result_paths(&err);
    let rows = csv_rows(&csv);
    assert!(rows.iter().all(|r| !r["variant"].contains("rank1_update")), "a broken variant ran: {rows:?}");
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
    (err, rows)
}

#[test]
fn variant_that_does_not_compile_is_reported_and_skipped_while_the_others_run() {
    let engine = common::engine_tree();
    let before = sha256_file(&engine.join(KERNEL));
    let ws = Workspace::new();
    let template = broken_template(&ws);
    let decl = Decl { name: "gd_broken", tree: None, template: &template, isolation: "copy", reps: 1, tolerance: 1e9 };
    let s = Setup {
        decl: ws.path().join(ws.write_sweep(decl.name, &decl.toml())).display().to_string(),
        results: ws.path().join("results"),
        ws,
    };

    // Copy isolation: both rank1_update variants fail to build, baseline and broadcast_rows still run.
    let (err, rows) = run_broken(&s, &["--jobs", "2"]);
    assert_eq!(lines_starting(&err, "build of ").len(), 2, "{err}");
    let ran: BTreeSet<&str> = rows.iter().map(|r| r["variant"].as_str()).collect();
    assert_eq!(ran, BTreeSet::from(["baseline", "broadcast_rows"]), "{err}");
    assert_eq!(sha256_file(&engine.join(KERNEL)), before, "copy isolation changed the real engine tree");

    // --fail-fast: a failed build stops everything before the first run.
    let (err, rows) = run_broken(&s, &["--jobs", "2", "--fail-fast"]);
    assert!(rows.is_empty(), "runs happened after a failed build with --fail-fast:\n{err}");
    assert!(err.contains("--fail-fast"), "{err}");
    assert_eq!(sha256_file(&engine.join(KERNEL)), before);
}

#[test]
fn variant_that_does_not_compile_in_place_is_skipped_and_the_tree_restored() {
    let tree = engine_copy();
    let original = sha256_file(&tree.path().join(KERNEL));
    let ws = Workspace::new();
    let template = broken_template(&ws);
    let decl = Decl {
        name: "gd_broken_inplace",
        tree: Some(tree.path()),
        template: &template,
        isolation: "in-place",
        reps: 1,
        tolerance: 1e9,
    };
    let s = Setup {
        decl: ws.path().join(ws.write_sweep(decl.name, &decl.toml())).display().to_string(),
        results: ws.path().join("results"),
        ws,
    };

    let (err, rows) = run_broken(&s, &["--out", s.results.join("all.csv").to_str().unwrap()]);
    assert_eq!(lines_starting(&err, "build of ").len(), 2, "{err}");
    let ran: BTreeSet<&str> = rows.iter().map(|r| r["variant"].as_str()).collect();
    assert_eq!(ran, BTreeSet::from(["baseline", "broadcast_rows"]), "{err}");
    assert_restored(tree.path(), &original, "after an in-place ablation with a broken variant");

    // --fail-fast in place: variants are built in order (baseline, broadcast_rows, rank1_update, ...), so the
    // first two ran; after the failed build nothing else builds or runs.
    let (err, rows) = run_broken(&s, &["--fail-fast", "--out", s.results.join("fail-fast.csv").to_str().unwrap()]);
    assert_eq!(lines_starting(&err, "build of ").len(), 1, "a build started after the failed one:\n{err}");
    let failed_at = err.find("build of ").unwrap();
    let after: Vec<&str> = err[failed_at..].lines().filter(|l| l.starts_with('[') || l.starts_with("built ")).collect();
    assert!(after.is_empty(), "runs or builds after the failed build with --fail-fast: {after:?}\n{err}");
    let ran: BTreeSet<&str> = rows.iter().map(|r| r["variant"].as_str()).collect();
    assert_eq!(ran, BTreeSet::from(["baseline", "broadcast_rows"]), "{err}");
    assert_restored(tree.path(), &original, "after an in-place --fail-fast ablation");
}

#[test]
fn stale_template_is_refused_with_exit_2_naming_the_first_differing_line_before_any_build() {
    let kernel = std::fs::read_to_string(common::engine_tree().join(KERNEL)).unwrap();
    let line = kernel.lines().position(|l| l.trim() == "fold_rows(work, dk, dv);").expect("a fold_rows call") + 1;
    let ws = Workspace::new();
    let text = std::fs::read_to_string(template_path()).unwrap();
    let stale = text.replacen("        fold_rows(work, dk, dv);\n", "        fold_rows(work, dk, dv);  // edited\n", 1);
    assert_ne!(stale, text);
    let template = ws.write("templates/stale.cpp.hbs", &stale);
    for (isolation, tree) in [("copy", None), ("in-place", Some(engine_copy()))] {
        let decl = Decl {
            name: "gd_stale",
            tree: tree.as_ref().map(|t| t.path()),
            template: &template,
            isolation,
            reps: 1,
            tolerance: 0.05,
        };
        let path = ws.write_sweep(decl.name, &decl.toml());
        let results = ws.path().join(format!("results-{isolation}"));
        let output = common::sweep(ws.path(), &["ablate", &path, "--results-dir", results.to_str().unwrap()]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{isolation}: {}", describe(&output));
        assert!(err.contains("out of date") && err.contains(&format!("at line {line} ")), "{isolation}: {err}");
        assert!(err.contains("// edited"), "{isolation}: the differing line is not shown: {err}");
        assert!(lines_starting(&err, "built ").is_empty() && lines_starting(&err, "cached ").is_empty(), "{err}");
        assert!(!results.join("gd_stale/build-cache").exists(), "{isolation}: something was prepared for a build");
        if let Some(tree) = &tree {
            let original = sha256_file(&common::engine_tree().join(KERNEL));
            assert_restored(tree.path(), &original, "after a refused stale in-place ablation");
            assert!(!tree.path().join("build").exists(), "a stale in-place ablation built the tree");
        }
    }
}

/// Pids in process group `pgid` whose command is `comm`.
fn group_has(pgid: u32, comm: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().filter_map(Result::ok).any(|entry| {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let Some((head, rest)) = stat.rsplit_once(')') else { return false };
        // rest: " state ppid pgrp ..."
        head.ends_with(&format!("({comm}")) && rest.split_whitespace().nth(2) == Some(pgid.to_string().as_str())
    })
}

/// Ctrl-C during an in-place build stops the build (its own process group, recorded in the tree's state
/// dir) and is an interruption (exit 130), not a failed variant build (exit 1). Regression: the build
/// used to die of the terminal's SIGINT and be reported as a broken variant with exit 1.
#[test]
fn ctrl_c_during_an_in_place_build_exits_130_not_as_a_failed_build() {
    let tree = engine_copy();
    let original = sha256_file(&tree.path().join(KERNEL));
    let template = template_path();
    let s = setup(&Decl {
        name: "gd_ctrl_c",
        tree: Some(tree.path()),
        template: &template,
        isolation: "in-place",
        reps: 1,
        tolerance: 1e9,
    });
    let child = s.spawn(&[]);
    let pgid = child.id();
    let group_file = tree.path().join(".sweep-inplace/build.pgid");
    let deadline = Instant::now() + Duration::from_secs(60);
    let build_group = loop {
        let recorded = std::fs::read_to_string(&group_file).ok().and_then(|text| text.trim().parse::<u32>().ok());
        if let Some(group) = recorded.filter(|group| group_has(*group, "cc1plus")) {
            break group;
        }
        assert!(Instant::now() < deadline, "no compiler ever ran in a recorded build group");
        std::thread::sleep(Duration::from_millis(5));
    };
    killpg(Pid::from_raw(pgid as i32), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_restored(tree.path(), &original, "after Ctrl-C during a build");
    let err = stderr(&output);
    assert!(
        lines_starting(&err, "build of ").is_empty(),
        "the interrupted build is reported as a failed variant:\n{err}"
    );
    assert_eq!(output.status.code(), Some(130), "{}", describe(&output));
    assert!(!group_has(build_group, "cc1plus") && !group_has(build_group, "make"), "the build outlived the sweep");
}

/// A copy of engine/, its kernel's original hash, and an in-place ablation of the copy (with its TOML).
fn in_place_on_a_copy(name: &str, reps: u32) -> (tempfile::TempDir, String, Setup, String) {
    let tree = engine_copy();
    let original = sha256_file(&tree.path().join(KERNEL));
    let template = template_path();
    let decl = Decl { name, tree: Some(tree.path()), template: &template, isolation: "in-place", reps, tolerance: 1e9 };
    let (s, toml) = (setup(&decl), decl.toml());
    (tree, original, s, toml)
}

/// `sha256` of the engine binary in `tree/build`.
fn engine_binary(tree: &Path) -> String {
    sha256_file(&tree.join("build/tp-engine"))
}

/// Builds `tree` with make the way the reference profile does (the baseline, before any ablation).
fn make_baseline(tree: &Path) -> String {
    let status = Command::new("make").args(["-s", "-C"]).arg(tree).args(["BUILD_DIR=build", "-j2"]).status().unwrap();
    assert!(status.success(), "the baseline build of the tree copy failed");
    engine_binary(tree)
}

/// A `gap` profile (the reference one) whose build is `script` run by sh with the tree and build dir.
fn gap_profile(s: &Setup, script: &str) {
    let reference = std::fs::read_to_string(s.ws.path().join("sweeps/engines/reference.toml")).unwrap();
    let build = reference.lines().find(|l| l.starts_with("build = ")).unwrap();
    let script = s.ws.write("gap-build.sh", script);
    let gap = reference
        .replace(build, &format!(r#"build = ["sh", "{}", "{{{{tree}}}}", "{{{{build_dir}}}}"]"#, script.display()));
    s.ws.write("sweeps/engines/gap.toml", &gap);
}

/// Whether `pid` is stopped (SIGSTOP).
fn stopped(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('T'))
}

/// Regression (the build gap): `make` used to start before its process group was recorded, so
/// a SIGKILL of sweep right after an ablated build started left compilers with no recorded group; they
/// wrote the ablated object after `sweep restore` and the next build linked it. Here the build script
/// starts make and at once stops sweep (SIGSTOP) on the first ablated variant; sweep is SIGKILLed (its
/// direct child dies with it, make and the compilers do not), the tree restored, and the next
/// `sweep run` must rebuild the baseline binary byte for byte (and `--no-build` before it is refused).
#[test]
fn sigkill_right_after_an_ablated_build_starts_then_restore_rebuilds_the_baseline_binary() {
    let (tree, original, s, toml) = in_place_on_a_copy("gd_gap", 1);
    let baseline = make_baseline(tree.path());
    gap_profile(
        &s,
        r#"# FIXTURE build wrapper: on its second call (the first ablated variant) it starts make, then stops sweep.
count="$0.count"; n=$(( $(cat "$count" 2>/dev/null || echo 0) + 1 )); echo $n > "$count"
make -s -C "$1" BUILD_DIR="$2" -j2 &
[ "$n" = 2 ] && kill -STOP $PPID
wait
"#,
    );
    let gap = toml.replace(r#"profile = "reference""#, r#"profile = "gap""#);
    std::fs::write(&s.decl, &gap).unwrap();
    let child = s.spawn(&["--out", s.results.join("gap.csv").to_str().unwrap()]);
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !stopped(pid) {
        assert!(Instant::now() < deadline, "sweep was never stopped by the build script");
        std::thread::sleep(Duration::from_millis(5));
    }
    // sweep only: the build goes on in its own group, as after a real SIGKILL between spawn and record.
    kill(Pid::from_raw(pid as i32), Signal::SIGKILL).unwrap();
    let killed = child.wait_with_output().unwrap();
    assert_eq!(killed.status.signal(), Some(Signal::SIGKILL as i32), "{}", describe(&killed));
    let restore = common::sweep(s.ws.path(), &["restore", tree.path().to_str().unwrap()]);
    assert_eq!(restore.status.code(), Some(0), "{}", describe(&restore));
    assert!(stderr(&restore).contains("restored 1 file(s)"), "{}", describe(&restore));
    assert_restored(tree.path(), &original, "after restoring a build killed in its first instants");
    // Give a surviving compiler the time to write its ablated object, as it did in the red-team runs.
    std::thread::sleep(Duration::from_secs(3));

    let run = s.ws.write_sweep("gd_gap_run", &gap.split("[ablation]").next().unwrap().replace("gd_gap", "gd_gap_run"));
    let unbuilt = common::sweep(s.ws.path(), &["run", &run, "--no-build"]);
    assert_eq!(unbuilt.status.code(), Some(1), "{}", describe(&unbuilt));
    assert!(stderr(&unbuilt).contains("run without --no-build"), "{}", describe(&unbuilt));
    assert!(!s.results.join("gd_gap_run").exists(), "the refused run wrote results");
    let rebuilt = common::sweep(s.ws.path(), &["run", &run]);
    assert_eq!(rebuilt.status.code(), Some(0), "{}", describe(&rebuilt));
    assert_eq!(engine_binary(tree.path()), baseline, "the restored tree did not rebuild to the baseline binary");
    assert!(!tree.path().join("build/.sweep-variant-build").exists(), "the variant build mark outlived the rebuild");
}

/// Regression: `sweep run` took no tree lock, so an in-place ablation rebuilt the engine under a
/// running sweep whose rows then measured other binaries. Each now refuses to start under the other.
#[test]
fn a_run_and_an_in_place_ablation_of_one_tree_refuse_to_start_under_each_other() {
    let (tree, original, s, toml) = in_place_on_a_copy("gd_both", 3);
    let run = s.ws.write_sweep("gd_run", &toml.split("[ablation]").next().unwrap().replace("gd_both", "gd_run"));
    let lock = tree.path().join(STATE_DIR).join("lock");

    // A run (building the tree first) holds the tree: the ablation is refused, naming it.
    let runner = Command::new(sweep_bin())
        .args(["run", &run, "--results-dir", s.results.to_str().unwrap()])
        .current_dir(s.ws.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !lock.exists() {
        assert!(Instant::now() < deadline, "the run never took the tree lock");
        std::thread::sleep(Duration::from_millis(5));
    }
    let refused = s.ablate(&[]);
    let err = stderr(&refused);
    assert_eq!(refused.status.code(), Some(1), "{}", describe(&refused));
    assert!(err.contains(&format!("locked by sweep pid {}, which is running or building in it", runner.id())), "{err}");
    assert_eq!(sha256_file(&tree.path().join(KERNEL)), original, "the refused ablation rendered the tree");
    let ran = runner.wait_with_output().unwrap();
    assert_eq!(ran.status.code(), Some(0), "{}", describe(&ran));
    assert!(csv_rows(&s.ws.result_csv("gd_run")).iter().all(|r| r["status"] == "ok"));

    // An in-place ablation holds the tree: the run is refused, naming it; then Ctrl-C restores the tree.
    let ablation = s.spawn(&["--out", s.results.join("both.csv").to_str().unwrap()]);
    let pid = ablation.id();
    while std::fs::read_to_string(&lock).map_or(true, |text| text.trim() != pid.to_string()) {
        assert!(Instant::now() < deadline + Duration::from_secs(120), "the ablation never took the lock");
        std::thread::sleep(Duration::from_millis(5));
    }
    let refused =
        common::sweep(s.ws.path(), &["run", &run, "--no-build", "--results-dir", s.results.to_str().unwrap()]);
    let err = stderr(&refused);
    assert_eq!(refused.status.code(), Some(1), "{}", describe(&refused));
    assert!(err.contains(&format!("locked by sweep pid {pid}, which is ablating it in place")), "{err}");
    kill(Pid::from_raw(pid as i32), Signal::SIGINT).unwrap();
    let stopped = ablation.wait_with_output().unwrap();
    assert!(matches!(stopped.status.code(), Some(130 | 0)), "{}", describe(&stopped));
    assert_restored(tree.path(), &original, "after Ctrl-C of the ablation that held the tree");
}

/// Regression: SIGQUIT, SIGUSR1, SIGUSR2 and SIGALRM ended sweep by their default action and
/// left the tree rendered. Every terminating signal is an interruption: exit 130, tree restored.
#[test]
fn every_terminating_signal_restores_an_in_place_ablation() {
    let (tree, original, s, _) = in_place_on_a_copy("gd_signals", 1);
    let journal = tree.path().join(STATE_DIR).join("journal.json");
    for signal in [Signal::SIGHUP, Signal::SIGQUIT, Signal::SIGUSR1, Signal::SIGUSR2, Signal::SIGALRM] {
        let child = s.spawn(&["--out", s.results.join(format!("{signal}.csv")).to_str().unwrap()]);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !journal.exists() {
            assert!(Instant::now() < deadline, "{signal}: the ablation never rendered the tree");
            std::thread::sleep(Duration::from_millis(2));
        }
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(130), "{signal}: {}", describe(&output));
        assert_restored(tree.path(), &original, &format!("after {signal}"));
    }
}

/// Regression: copy-isolated builds ran outside the executor, so Ctrl-C reported them as
/// FAILED builds and left their compilers running. Now it is an interruption (exit 130) and nothing of
/// the builds is left.
#[test]
fn ctrl_c_during_copy_builds_exits_130_and_leaves_no_compiler() {
    let template = template_path();
    let s = setup(&Decl {
        name: "gd_copy_int",
        tree: None,
        template: &template,
        isolation: "copy",
        reps: 1,
        tolerance: 1e9,
    });
    let child = s.spawn(&["--jobs", "2"]);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !common::processes_under(s.ws.path()).iter().any(|p| p.ends_with(" cc1plus")) {
        assert!(Instant::now() < deadline, "no compiler ever ran in the build cache");
        std::thread::sleep(Duration::from_millis(5));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", describe(&output));
    assert!(!stderr(&output).contains("FAILED"), "an interrupted build is reported as failed:\n{}", stderr(&output));
    assert_eq!(common::processes_under(s.ws.path()), Vec::<String>::new(), "the builds outlived the sweep");
}

/// Every hint runs as printed. An ablation interrupted between runs says to run it again with
/// the command that started it (ablations have no `--resume`); that command, pasted, runs every variant.
#[test]
fn an_interrupted_ablation_names_the_command_that_runs_it_again() {
    let template = template_path();
    let s =
        setup(&Decl { name: "gd_again", tree: None, template: &template, isolation: "copy", reps: 2, tolerance: 1e9 });
    let child = s.spawn(&["--jobs", "2"]);
    let deadline = Instant::now() + Duration::from_secs(300);
    let first_row = || {
        let csvs = std::fs::read_dir(s.results.join("gd_again")).ok()?;
        let csv = csvs.flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|e| e == "csv"))?;
        (std::fs::read_to_string(&csv).ok()?.lines().count() >= 2).then_some(())
    };
    while first_row().is_none() {
        assert!(Instant::now() < deadline, "no run was ever recorded");
        std::thread::sleep(Duration::from_millis(5));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", describe(&output));
    let err = stderr(&output);
    let hint = err.split("run it again to complete it: ").nth(1).unwrap_or_else(|| panic!("no hint:\n{err}")).trim();
    assert!(hint.ends_with(&format!(" ablate {} --results-dir {} --jobs 2", s.decl, s.results.display())), "{hint}");
    let again = Command::new("sh").args(["-c", hint]).current_dir(s.ws.path()).output().unwrap();
    assert!(matches!(again.status.code(), Some(0 | 1)), "{hint}: {}", describe(&again));
    let (csv, _) = result_paths(&stderr(&again));
    assert_eq!(assert_rows(&csv, &VARIANTS, 2).len(), 8, "every variant, every rep");
}
