//! The Ascend profile (`sweeps/engines/pocketllm.toml`) and its sweeps (`sweeps/pocketllm/*.toml`), driven
//! through the real `sweep` binary against the FIXTURE engine in `tests/fixtures/pocketllm_fixture/`, which
//! imitates the real engine's interface (flags, file rendezvous, result line, `qwen_phase` blocks) with fake,
//! deterministic numbers. Every test works on a copy of the fixture in a temporary workspace; the test
//! profile is the shipped profile with only `tree`, `setup` and `build` pointed at the copy.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{csv_rows, repo_root, stderr, stdout, sweep_bin, Workspace};

const PATTERN: [i64; 10] = [100, 264, 4628, 286, 1879, 310, 278, 4221, 13, 576];
const FAKE_BISHENG: &str = "bisheng version 9.0.0-fixture (fake compiler for sweep's tests)";
const FIXTURE_TOOLKIT: &str = "/opt/fixture/Ascend/ascend-toolkit/latest";
const KERNEL: &str = "cpp_engine/backends/ascend/kernels/qwen_gated_delta_f16.cpp";
/// The decoy block's gated_delta: a metric equal to it was read from the wrong block.
const DECOY_GATED_DELTA: f64 = 0.0302;

fn fixture_root() -> PathBuf {
    repo_root().join("harness/tests/fixtures/pocketllm_fixture")
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn make_executable(path: &Path) {
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

fn read_toml(path: &Path) -> toml::Value {
    toml::from_str(&fs::read_to_string(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Sets `value` at a dotted path of tables, creating tables on the way.
fn set(root: &mut toml::Value, path: &[&str], value: toml::Value) {
    let (last, parents) = path.split_last().unwrap();
    let mut table = root.as_table_mut().unwrap();
    for key in parents {
        table = table
            .entry(key.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()))
            .as_table_mut()
            .unwrap();
    }
    table.insert(last.to_string(), value);
}

fn strings(items: &[&str]) -> toml::Value {
    toml::Value::Array(items.iter().map(|s| toml::Value::String(s.to_string())).collect())
}

fn ints(items: &[i64]) -> toml::Value {
    toml::Value::Array(items.iter().map(|i| toml::Value::Integer(*i)).collect())
}

/// A temporary workspace: the fixture tree copied to `cpp_engine/`, the test profile, the shipped pocketllm
/// sweeps copied verbatim, a fake `bisheng` and a fake checkpoint.
struct Fixture {
    ws: Workspace,
}

impl Fixture {
    fn new() -> Fixture {
        let ws = Workspace::new();
        let root = ws.path();
        copy_tree(&fixture_root().join("cpp_engine"), &root.join("cpp_engine"));
        make_executable(&root.join("cpp_engine/build.sh"));
        copy_tree(&repo_root().join("sweeps/pocketllm"), &root.join("sweeps/pocketllm"));
        fs::create_dir_all(root.join("bin")).unwrap();
        fs::copy(fixture_root().join("bin/bisheng"), root.join("bin/bisheng")).unwrap();
        make_executable(&root.join("bin/bisheng"));
        fs::create_dir_all(root.join("ckpt/Qwen3.8-27B-fixture")).unwrap();

        let mut profile = read_toml(&repo_root().join("sweeps/engines/pocketllm.toml"));
        set(&mut profile, &["tree"], toml::Value::String("../../cpp_engine".into()));
        set(&mut profile, &["setup"], toml::Value::String("../../cpp_engine/scripts/ascend_env.sh".into()));
        set(&mut profile, &["build"], strings(&["sh", "{{tree}}/build.sh", "{{build_dir}}"]));
        fs::write(root.join("sweeps/engines/pocketllm.toml"), toml::to_string(&profile).unwrap()).unwrap();
        Fixture { ws }
    }

    fn path(&self) -> &Path {
        self.ws.path()
    }

    /// Runs `sweep` in the workspace with the fake `bisheng` first on PATH and the setup counter set.
    /// Results go to the default, relative `results/`: ranks run inside their run directory, so this
    /// also pins that `{{run_dir}}` and `{{inputs.*}}` are rendered as absolute paths.
    fn sweep(&self, args: &[&str]) -> Output {
        let path = format!("{}:{}", self.path().join("bin").display(), std::env::var("PATH").unwrap_or_default());
        Command::new(sweep_bin())
            .args(args)
            .current_dir(self.path())
            .env("PATH", path)
            .env("FIXTURE_SETUP_COUNTER", self.path().join("setup-sourced.txt"))
            .output()
            .expect("sweep runs")
    }

    /// A shipped pocketllm sweep with the checkpoint pointed at the fake one, a short timeout and `edit`
    /// applied, written as `sweeps/pocketllm/<name>.toml`; returns its relative path.
    fn derived_sweep(&self, shipped: &str, name: &str, edit: impl FnOnce(&mut toml::Value)) -> String {
        let mut sweep = read_toml(&repo_root().join(format!("sweeps/pocketllm/{shipped}.toml")));
        let ckpt = self.path().join("ckpt/Qwen3.8-27B-fixture").display().to_string();
        let args = sweep["run"]["args"].as_array().unwrap().clone();
        let position = args.iter().position(|a| a.as_str() == Some("--ckpt")).expect("shipped args have --ckpt");
        let mut args = args;
        args[position + 1] = toml::Value::String(ckpt);
        set(&mut sweep, &["run", "args"], toml::Value::Array(args));
        set(&mut sweep, &["engine", "timeout"], toml::Value::String("60s".into()));
        edit(&mut sweep);
        let relative = format!("sweeps/pocketllm/{name}.toml");
        fs::write(self.path().join(&relative), toml::to_string(&sweep).unwrap()).unwrap();
        relative
    }

    fn kernel(&self) -> Vec<u8> {
        fs::read(self.path().join(KERNEL)).unwrap()
    }
}

fn assert_exit(output: &Output, code: i32) {
    assert_eq!(output.status.code(), Some(code), "stdout:\n{}\nstderr:\n{}", stdout(output), stderr(output));
}

fn number(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column].parse().unwrap_or_else(|_| panic!("{column} = `{}` is not a number: {row:?}", row[column]))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The fixture engine's fake gated_delta for a prompt and the group lines left in the kernel (rank 0).
fn fixture_gated_delta(rows: f64, broadcast_calls: f64, axpy_lines: f64) -> f64 {
    rows * (180.0 + 89.3 * broadcast_calls + 130.0 * axpy_lines) * 1e-6
}

#[test]
fn shipped_profile_launches_the_engine_as_the_study_does() {
    let profile = read_toml(&repo_root().join("sweeps/engines/pocketllm.toml"));
    assert_eq!(profile["launcher"].as_str(), Some("per-rank"));
    assert_eq!(profile["ranks"].as_integer(), Some(4));
    assert_eq!(profile["program"].as_str(), Some("{{build_dir}}/pocketllm_engine"));
    assert_eq!(profile["build_dir"].as_str(), Some("build-ascend"));
    assert_eq!(profile["build"], strings(&["cmake", "--build", "{{build_dir}}", "--target", "pocketllm_engine", "-j"]));
    assert!(profile["tree"].as_str().unwrap().ends_with("cpp_engine"));
    assert!(profile["setup"].as_str().unwrap().ends_with("cpp_engine/scripts/ascend_env.sh"));
    assert_eq!(profile["env"]["HCCL_WHITELIST_DISABLE"].as_str(), Some("1"));
    assert_eq!(profile["env"]["POCKETLLM_CPP_NCCL_ID_WAIT_ATTEMPTS"].as_str(), Some("12000"));
    assert_eq!(profile["result"]["prefix"].as_str(), Some(""), "the real result line has no prefix token");
    assert_eq!(profile["result"]["rank"].as_integer(), Some(0));
    assert_eq!(profile["profile_prefix"].as_str(), Some("qwen_phase"));
    assert_eq!(profile["toolchain"]["bisheng"], strings(&["bisheng", "--version"]));
    assert!(profile["toolchain"]["cann"].as_array().is_some_and(|argv| !argv.is_empty()));
}

#[test]
fn shipped_sweeps_stop_only_at_the_missing_cpp_engine_tree() {
    let profile = read_toml(&repo_root().join("sweeps/engines/pocketllm.toml"));
    let tree = repo_root().join("sweeps/engines").join(profile["tree"].as_str().unwrap());
    if tree.is_dir() {
        eprintln!("skipped: {} exists on this machine", tree.display());
        return;
    }
    for sweep in ["sweeps/pocketllm/slices.toml", "sweeps/pocketllm/gated_delta.toml"] {
        let output = common::sweep(&repo_root(), &["check", sweep]);
        assert_exit(&output, 2);
        let message = stderr(&output);
        assert_eq!(message.trim_end().lines().count(), 1, "{message}");
        assert!(message.contains("pocketllm.toml"), "{message}");
        assert!(message.contains("engine tree `") && message.contains("cpp_engine` is not a directory"), "{message}");
    }
}

#[test]
fn shipped_sweeps_check_against_the_fixture_tree_and_the_selectors_pick_the_study_groups() {
    let fixture = Fixture::new();
    let output = fixture.sweep(&["check", "sweeps/pocketllm/slices.toml"]);
    assert_exit(&output, 0);
    assert!(stdout(&output).contains("sweeps/pocketllm/slices.toml: ok (16 settings x 3 reps)"), "{}", stdout(&output));

    // The shipped selectors derive the template from the kernel itself (brace-initializer escaped).
    let output = fixture.sweep(&["check", "sweeps/pocketllm/gated_delta.toml"]);
    assert_exit(&output, 0);
    assert!(stdout(&output).contains("ok (4 settings x 3 reps)"), "{}", stdout(&output));

    // What the README tells a user to run first: exactly the study's two groups go, nothing else.
    let output = fixture.sweep(&["ablate", "sweeps/pocketllm/gated_delta.toml", "--show", "both"]);
    assert_exit(&output, 0);
    let diff = stdout(&output);
    let removed: Vec<&str> = diff.lines().filter(|l| l.starts_with('-') && !l.starts_with("---")).collect();
    assert_eq!(
        removed,
        [
            "-    broadcast_rows(tile.work, tile.k_row, kKeyDim, kValueCols);",
            "-    for (uint32_t i = 0; i < kKeyDim; ++i) {",
            "-        AscendC::Axpy(tile.state[i * kValueCols], tile.delta, tile.k_row.GetValue(i), kValueCols);",
            "-    }",
            "-    broadcast_rows(tile.work, tile.q_row, kKeyDim, kValueCols);",
        ],
        "{diff}"
    );
    assert!(!diff.lines().any(|l| l.starts_with('+') && !l.starts_with("+++")), "{diff}");
    assert!(!fixture.path().join("results").exists(), "--show must not build or run");
}

/// Pins a regression risk of selectors: an upstream edit that renames the rank-1 loop's index makes its
/// selector match nothing, which must stop the ablation with the selector named rather than run variants
/// that ablate nothing.
#[test]
fn a_selector_that_no_longer_matches_the_kernel_stops_the_ablation_naming_it() {
    let fixture = Fixture::new();
    let kernel = fixture.path().join(KERNEL);
    let text =
        read(&kernel).replace("for (uint32_t i = 0; i < kKeyDim; ++i)", "for (uint32_t row = 0; row < kKeyDim; ++row)");
    fs::write(&kernel, text).unwrap();
    let output = fixture.sweep(&["ablate", "sweeps/pocketllm/gated_delta.toml", "--show", "rank1_update"]);
    assert_exit(&output, 2);
    let message = stderr(&output);
    assert_eq!(message.trim_end().lines().count(), 1, "{message}");
    assert!(
        message.contains("gated_delta.toml:")
            && message.contains("`ablation.sources[0].groups.rank1_update`")
            && message.contains("matches no line"),
        "{message}"
    );
}

#[test]
fn slices_sweep_runs_four_ranks_per_run_with_a_fresh_rendezvous_file_each() {
    let fixture = Fixture::new();
    let sweep = fixture.derived_sweep("slices", "slices_fixture", |sweep| {
        set(sweep, &["params", "slices"], ints(&[1, 4]));
        set(sweep, &["params", "rows"], ints(&[64, 203]));
        set(sweep, &["params", "new"], ints(&[2, 3]));
        set(sweep, &["reps", "count"], toml::Value::Integer(1));
    });
    let output = fixture.sweep(&["run", &sweep]);
    assert_exit(&output, 0);

    let rows = csv_rows(&fixture.ws.result_csv("pocketllm_slices"));
    assert_eq!(rows.len(), 4, "{rows:?}");
    let mut ids = Vec::new();
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert_eq!(row["toolchain.bisheng"], FAKE_BISHENG);
        let (slices, prompt, new) =
            (number(row, "param.slices"), number(row, "param.rows") as usize, number(row, "param.new"));
        let run_dir = PathBuf::from(&row["log_dir"]);
        // The prompt file: exactly `rows` ids of the study's pattern.
        let tokens: Vec<i64> = read(&run_dir.join("ids.txt")).split(',').map(|t| t.parse().unwrap()).collect();
        assert_eq!(tokens.len(), prompt);
        assert!(tokens.iter().zip(PATTERN.iter().cycle()).all(|(a, b)| a == b));
        // A fresh rendezvous file written by rank 0 of this run.
        let id = read(&run_dir.join("hccl.id")).trim().to_string();
        assert_eq!(id.len(), 32, "{id}");
        ids.push(id);
        for rank in 0..4 {
            let log = read(&run_dir.join(format!("rank{rank}.log")));
            assert!(log.contains(&format!("FIXTURE rank={rank} world=4 device={rank}")), "{log}");
            assert!(
                log.contains(&format!("fixture: ASCEND_TOOLKIT_HOME={FIXTURE_TOOLKIT}")),
                "setup env missing:\n{log}"
            );
            assert!(log.contains("HCCL_WHITELIST_DISABLE=1 POCKETLLM_CPP_NCCL_ID_WAIT_ATTEMPTS=12000"), "{log}");
            assert!(log.contains(&format!("fixture: prompt tokens={prompt}")), "{log}");
            assert!(
                log.contains(&format!("comm_overlap_slices={slices} (forced by QWEN_COMM_OVERLAP_SLICES)")),
                "{log}"
            );
            assert!(log.contains(&format!("hccl comm ready id={}", ids.last().unwrap())), "{log}");
        }
        assert!(!run_dir.join("rank4.log").exists());
        let prefill_seconds = number(row, "metric.prefill_seconds");
        assert!((number(row, "metric.prefill_tokens_per_s") - prompt as f64 / prefill_seconds).abs() < 0.01, "{row:?}");
        assert_eq!(number(row, "metric.decode_token_count"), new);
        assert!((number(row, "metric.rows_per_slice") - prompt as f64 / slices).abs() < 1e-9);
        assert!(number(row, "metric.wall") > prefill_seconds);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "every run must rendezvous on its own id file");
    // The setup script was sourced once for the whole sweep, not per run or per rank.
    assert_eq!(read(&fixture.path().join("setup-sourced.txt")).lines().count(), 1);
}

/// The study's id-file command made 520 ids for a "4096" prompt, and the engine prints no prompt-token
/// key: the shipped check (prefill throughput x seconds = rows, within 1%) must fail such a run.
#[test]
fn a_prompt_file_with_the_wrong_number_of_tokens_fails_the_shipped_check() {
    let fixture = Fixture::new();
    let sweep = fixture.derived_sweep("slices", "slices_short_prompt", |sweep| {
        set(sweep, &["params", "slices"], ints(&[1]));
        set(sweep, &["params", "rows"], ints(&[64]));
        set(sweep, &["params", "new"], ints(&[2]));
        set(sweep, &["reps", "count"], toml::Value::Integer(1));
        let input = sweep["inputs"].as_array_mut().unwrap()[0].as_table_mut().unwrap();
        input.insert("count".into(), toml::Value::String("13".into()));
    });
    let output = fixture.sweep(&["run", &sweep]);
    assert_exit(&output, 1);
    let rows = csv_rows(&fixture.ws.result_csv("pocketllm_slices"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["status"], "failed", "{:?}", rows[0]);
    let error = &rows[0]["error"];
    let actual = error
        .strip_prefix("check failed: `prefill_tokens_per_s * prefill_seconds` is ")
        .and_then(|rest| rest.strip_suffix(" but should be 64 within 1%"))
        .unwrap_or_else(|| panic!("{error}"));
    assert!((actual.parse::<f64>().unwrap() - 13.0).abs() < 0.01, "{error}");
}

#[test]
fn gated_delta_ablation_in_place_restores_the_kernel_and_reads_the_matching_block() {
    let fixture = Fixture::new();
    let sweep = fixture.derived_sweep("gated_delta", "gated_delta_fixture", |_| {});
    let shipped = read_toml(&fixture.path().join(&sweep));
    assert_eq!(shipped["ablation"]["isolation"].as_str(), Some("in-place"), "the shipped default");
    let before = fixture.kernel();

    let output = fixture.sweep(&["ablate", &sweep, "--reps", "1"]);
    assert_exit(&output, 0);
    assert_eq!(fixture.kernel(), before, "the fixture tree's kernel must be byte-identical after the ablation");
    let log = stderr(&output);
    for variant in ["baseline", "broadcast_rows", "rank1_update", "broadcast_rows+rank1_update"] {
        assert!(log.contains(&format!("built {variant} (")), "{variant} not built:\n{log}");
    }

    let csv = fixture.ws.result_csv("pocketllm_gated_delta");
    let stem = csv.with_extension("");
    let build_logs: Vec<PathBuf> = fs::read_dir(&stem)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("build-"))
        .collect();
    assert_eq!(build_logs.len(), 4, "{build_logs:?}");
    for build_log in &build_logs {
        assert!(read(build_log).contains(FAKE_BISHENG), "the fake bisheng was not on the build's PATH");
    }

    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 4, "{rows:?}");
    let mut by_variant = BTreeMap::new();
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert_eq!(row["toolchain.bisheng"], FAKE_BISHENG);
        assert_eq!(number(row, "param.rows"), 4433.0);
        let (broadcast, axpy) = match row["variant"].as_str() {
            "baseline" => (2.0, 1.0),
            "broadcast_rows" => (0.0, 1.0),
            "rank1_update" => (2.0, 0.0),
            "broadcast_rows+rank1_update" => (0.0, 0.0),
            other => panic!("unexpected variant {other}"),
        };
        let gated_delta = number(row, "metric.gated_delta");
        assert_ne!(gated_delta, DECOY_GATED_DELTA, "read from the decode-shaped decoy block");
        assert!((gated_delta - fixture_gated_delta(4433.0, broadcast, axpy)).abs() < 2e-6, "{row:?}");
        // The selected block's STACK.r is the one that matches prefill_seconds (the fixture prints it 0.8% under).
        assert!((number(row, "metric.stack") * 1.008 - number(row, "metric.prefill_seconds")).abs() < 1e-5, "{row:?}");
        by_variant.insert(row["variant"].clone(), gated_delta);
    }
    assert!(by_variant["broadcast_rows+rank1_update"] < by_variant["broadcast_rows"]);
    assert!(by_variant["broadcast_rows"] < by_variant["rank1_update"]);
    assert!(by_variant["rank1_update"] < by_variant["baseline"]);
}

#[test]
fn a_stale_rendezvous_file_hangs_the_ranks_until_the_run_timeout() {
    let fixture = Fixture::new();
    let stale = fixture.ws.write("stale/hccl.id", "0123456789abcdef0123456789abcdef\n");
    let sweep = fixture.derived_sweep("slices", "slices_stale", |sweep| {
        set(sweep, &["params", "slices"], ints(&[1]));
        set(sweep, &["params", "rows"], ints(&[30]));
        set(sweep, &["params", "new"], ints(&[1]));
        set(sweep, &["zip"], toml::Value::Array(vec![]));
        set(sweep, &["reps", "count"], toml::Value::Integer(1));
        set(sweep, &["engine", "timeout"], toml::Value::String("3s".into()));
        set(sweep, &["engine", "grace"], toml::Value::String("1s".into()));
        let args: Vec<toml::Value> = sweep["run"]["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                if a.as_str() == Some("{{run_dir}}/hccl.id") {
                    toml::Value::String(stale.display().to_string())
                } else {
                    a.clone()
                }
            })
            .collect();
        set(sweep, &["run", "args"], toml::Value::Array(args));
    });
    let output = fixture.sweep(&["run", &sweep]);
    assert_exit(&output, 1);
    let rows = csv_rows(&fixture.ws.result_csv("pocketllm_slices"));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["status"], "timeout", "{:?}", rows[0]);
    let rank1 = read(&PathBuf::from(&rows[0]["log_dir"]).join("rank1.log"));
    assert!(!rank1.contains("hccl comm ready"), "rank 1 joined on a stale id:\n{rank1}");
}

/// Pins a harness limitation reported alongside this profile: with `result.prefix = ""` the result line is
/// "the last line containing `=`", so a `qwen_phase` line printed after the real result line is taken for
/// it and the run fails. Flip this test when `find_result_line` learns to skip profile lines.
#[test]
fn empty_result_prefix_is_not_fooled_by_a_qwen_phase_line_after_the_result() {
    let fixture = Fixture::new();
    let sweep = fixture.derived_sweep("gated_delta", "phase_after_result", |sweep| {
        sweep.as_table_mut().unwrap().remove("ablation");
        set(sweep, &["params", "rows"], toml::Value::Integer(100));
        set(sweep, &["reps", "count"], toml::Value::Integer(1));
        set(sweep, &["run", "env", "FIXTURE_PHASE_AFTER_RESULT"], toml::Value::String("1".into()));
    });
    let output = fixture.sweep(&["run", &sweep]);
    assert_exit(&output, 0);
    let rows = csv_rows(&fixture.ws.result_csv("pocketllm_gated_delta"));
    assert_eq!(rows[0]["status"], "ok", "{:?}", rows[0]);
    assert!(
        (number(&rows[0], "metric.gated_delta") - fixture_gated_delta(100.0, 2.0, 1.0)).abs() < 2e-6,
        "{:?}",
        rows[0]
    );
}

#[test]
fn fixture_engine_refuses_unknown_flags_and_its_build_fails_on_error_directives() {
    let fixture = Fixture::new();
    let tree = fixture.path().join("cpp_engine");
    let build_dir = tree.join("build-ascend");
    let built = Command::new("sh").arg(tree.join("build.sh")).arg(&build_dir).output().unwrap();
    assert_exit(&built, 0);
    let engine =
        Command::new(build_dir.join("pocketllm_engine")).args(["--ckpt", "x", "--prompt", "hi"]).output().unwrap();
    assert_exit(&engine, 2);
    assert!(stderr(&engine).contains("unknown flag `--prompt`"), "{}", stderr(&engine));

    let kernel = fixture.path().join(KERNEL);
    let mut text = read(&kernel);
    text.push_str("#error \"fixture: ablated too much\"\n");
    fs::write(&kernel, &text).unwrap();
    let failed = Command::new("sh").arg(tree.join("build.sh")).arg(&build_dir).output().unwrap();
    assert_exit(&failed, 1);
    let line = text.lines().count();
    assert!(
        stderr(&failed).contains(&format!("qwen_gated_delta_f16.cpp:{line}:2: error: #error")),
        "{}",
        stderr(&failed)
    );
}
