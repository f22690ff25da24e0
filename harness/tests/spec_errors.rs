//! Malformed declarations are refused before anything runs: the real `sweep` binary prints one line,
//! `sweep: error: <file>:<line>: `<key>`: <message>`, and exits 2. Each test pins one whole message: an
//! inline snapshot (`cargo insta review` updates them), or an expected text when the test computes a line.
//! What a declaration most likely did not mean but can run is a `sweep: note:` line, exit 0 (2 under
//! `--strict`). The mistakes of a first day come with "did you mean" when a declared name is near.

mod common;

use std::path::Path;

use common::Workspace;

/// A valid sweep on the reference profile; each test breaks one thing in it.
const BASE: &str = r#"name = "x"

[engine]
profile = "reference"

[params]
rows = [512, 1024]
slices = [1, 2]
new = 4

[reps]
count = 3

[run]
args = ["--rows", "{{rows}}", "--new", "{{new}}"]

[metrics]
result = ["rows", "prefill_tokens_per_s"]

[analysis]
primary = "prefill_tokens_per_s"
"#;

/// `BASE` with `from` replaced by `to` (`from` must occur, so a test cannot silently test nothing).
fn base_with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "`{from}` is not in the base sweep");
    BASE.replacen(from, to, 1)
}

/// `BASE` with `text` appended (new tables go after `[analysis]`).
fn base_plus(text: &str) -> String {
    format!("{BASE}{text}")
}

/// Runs `sweep <args>` in the workspace, asserts exit 2, nothing on stdout and exactly one stderr line, and
/// returns that line for the test to pin (a snapshot, or an expected text it builds).
fn rejection(ws: &Workspace, args: &[&str]) -> String {
    let output = common::sweep(ws.path(), args);
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(2), "exit code of `sweep {}`; stderr: {stderr}", args.join(" "));
    assert_eq!(common::stdout(&output), "", "nothing on stdout for a rejected declaration");
    let line = stderr.strip_suffix('\n').unwrap_or_else(|| panic!("one line ending in a newline: {stderr:?}"));
    line.to_string()
}

/// `rejection` equal to `expected`, for messages whose line numbers or values the test computes.
fn assert_rejected(ws: &Workspace, args: &[&str], expected: &str) {
    assert_eq!(rejection(ws, args), expected, "stderr of `sweep {}`", args.join(" "));
}

/// What `sweep check sweeps/x.toml` refuses `text` with (see `rejection`).
fn check_rejection(text: &str) -> String {
    let ws = Workspace::new();
    ws.write_sweep("x", text);
    rejection(&ws, &["check", "sweeps/x.toml"])
}

/// `check_rejection` equal to `expected`, for messages whose line numbers or values the test computes.
fn assert_check_rejects(text: &str, expected: &str) {
    assert_eq!(check_rejection(text), expected);
}

/// A copy of the reference profile with one line changed, at `sweeps/engines/<name>.toml`.
fn write_profile(ws: &Workspace, name: &str, from: &str, to: &str) {
    let profile = std::fs::read_to_string(ws.path().join("sweeps/engines/reference.toml")).unwrap();
    assert!(profile.contains(from), "`{from}` is not in the reference profile");
    ws.write(&format!("sweeps/engines/{name}.toml"), &profile.replacen(from, to, 1));
}

/// The absolute form the binary prints for a workspace path (its cwd, as the OS reports it).
fn absolute(ws: &Workspace, relative: &str) -> String {
    ws.path().canonicalize().unwrap().join(relative).display().to_string()
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|line| line.contains(needle)).unwrap_or_else(|| panic!("`{needle}` not in the text")) + 1
}

/// `sweep check A B C` stopped at the first bad file; every file is now checked and reported.
#[test]
fn check_reports_every_file_and_accepts_engine_profiles() {
    let ws = Workspace::new();
    ws.write_sweep("x", BASE);
    ws.write_sweep("y", &base_with("count = 3", "count = 0"));
    let output =
        common::sweep(ws.path(), &["check", "sweeps/y.toml", "sweeps/x.toml", "sweeps/engines/reference.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        common::stdout(&output),
        "sweeps/x.toml: ok (4 settings x 3 reps)\n\
         sweeps/engines/reference.toml: ok (engine profile: mpirun launcher, 2 ranks)\n"
    );
    let stderr = common::stderr(&output);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.len() == 2 && lines[0].starts_with("sweep: error: sweeps/y.toml:"), "{stderr}");
    // BASE's `slices` is named by nothing: a note, which does not fail the check.
    assert_eq!(lines[1], UNUSED_SLICES_NOTE);
}

/// What `sweep check` notes of `BASE`, whose `slices` no template names.
const UNUSED_SLICES_NOTE: &str = "sweep: note: sweeps/x.toml:8: `params.slices`: parameter `slices` is named by no \
                                  template, argument or env, so its values run the same command";

/// Checking several sweeps that share a profile, an error in the profile says which sweep reached it.
#[test]
fn an_error_in_a_shared_profile_names_the_sweep_that_reached_it() {
    let ws = Workspace::new();
    write_profile(&ws, "bad", "ranks = 2", "ranks = 4294967295");
    ws.write_sweep("x", BASE);
    ws.write_sweep("y", &base_with("profile = \"reference\"", "profile = \"bad\""));
    let output = common::sweep(ws.path(), &["check", "sweeps/x.toml", "sweeps/y.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        common::stderr(&output),
        format!(
            "{UNUSED_SLICES_NOTE}\nsweep: error: sweeps/engines/bad.toml:12: `ranks`: 4294967295 ranks: must be \
             between 1 and 4096 (reached from sweeps/y.toml)\n"
        )
    );
}

#[test]
fn a_bad_engine_profile_checked_on_its_own_names_its_key() {
    let ws = Workspace::new();
    write_profile(&ws, "bad", "ranks = 2", "ranks = 0");
    insta::assert_snapshot!(rejection(&ws, &["check", "sweeps/engines/bad.toml"]), @"sweep: error: sweeps/engines/bad.toml:12: `ranks`: 0 ranks: must be between 1 and 4096");
}

#[test]
fn the_base_sweep_is_valid() {
    let ws = Workspace::new();
    ws.write_sweep("x", BASE);
    let output = common::sweep(ws.path(), &["check", "sweeps/x.toml"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    assert_eq!(common::stdout(&output), "sweeps/x.toml: ok (4 settings x 3 reps)\n");
}

#[test]
fn unknown_top_level_key_names_key_and_line() {
    insta::assert_snapshot!(check_rejection(&base_with("name = \"x\"\n", "name = \"x\"\ncolour = \"red\"\n")), @"sweep: error: sweeps/x.toml:2: `colour`: unknown key `colour`, expected one of `name`, `description`, `zip`, \
         `where`, `engine`, `params`, `reps`, `run`, `build`, `inputs`, `metrics`, `checks`, `analysis`, `report`, \
         `ablation`, `search`, `history`");
}

#[test]
fn an_unknown_control_scaling_names_the_key_and_the_values() {
    insta::assert_snapshot!(check_rejection(&base_plus("control_scaling = \"linear\"\n")), @"sweep: error: sweeps/x.toml:22: `analysis.control_scaling`: unknown value `linear`, expected \
         `estimated` or `proportional`");
}

#[test]
fn unknown_nested_key_names_key_and_line() {
    insta::assert_snapshot!(check_rejection(&base_with("count = 3", "cont = 3")), @"sweep: error: sweeps/x.toml:12: `reps.cont`: unknown key `cont`; did you mean `count`?");
}

#[test]
fn wrong_type_says_what_was_expected_in_plain_words() {
    insta::assert_snapshot!(check_rejection(&base_with("count = 3", "count = \"3\"")), @"sweep: error: sweeps/x.toml:12: `reps.count`: invalid type: string \"3\", expected a whole number");
}

#[test]
fn scalar_where_a_table_belongs_says_table_not_the_rust_type() {
    insta::assert_snapshot!(check_rejection(&base_with("[reps]\ncount = 3\n", "").replace("name = \"x\"\n", "name = \"x\"\nreps = 3\n")), @"sweep: error: sweeps/x.toml:2: `reps`: invalid type: integer `3`, expected a table");
}

#[test]
fn missing_required_key_puts_the_key_in_the_key_path() {
    insta::assert_snapshot!(check_rejection(&base_with("name = \"x\"\n", "")), @"sweep: error: sweeps/x.toml:1: `name`: missing required key");
}

#[test]
fn missing_nested_required_key_points_at_its_table() {
    insta::assert_snapshot!(check_rejection(&base_with("primary = \"prefill_tokens_per_s\"\n", "")), @"sweep: error: sweeps/x.toml:20: `analysis.primary`: missing required key");
}

#[test]
fn empty_param_list_is_refused() {
    insta::assert_snapshot!(check_rejection(&base_with("slices = [1, 2]", "slices = []")), @"sweep: error: sweeps/x.toml:8: `params.slices`: empty list: a parameter needs at least one value");
}

#[test]
fn param_value_that_is_a_table_is_refused() {
    insta::assert_snapshot!(check_rejection(&base_with("slices = [1, 2]", "slices = { a = 1 }")), @"sweep: error: sweeps/x.toml:8: `params.slices`: values must be numbers, strings or booleans, not a table \
         (a value map gives each value a table: `on = { args = [...], env = {...} }`)");
}

#[test]
fn nested_list_param_value_is_refused() {
    insta::assert_snapshot!(check_rejection(&base_with("slices = [1, 2]", "slices = [[1], [2]]")), @"sweep: error: sweeps/x.toml:8: `params.slices`: values must be numbers, strings or booleans, not a list");
}

#[test]
fn reserved_param_name_is_refused() {
    insta::assert_snapshot!(check_rejection(&base_with("slices = [1, 2]", "rank = [1, 2]")), @"sweep: error: sweeps/x.toml:8: `params.rank`: `rank` is reserved for the harness; rename the parameter");
}

#[test]
fn zip_of_an_unknown_param_names_it() {
    insta::assert_snapshot!(check_rejection(&base_with("name = \"x\"\n", "name = \"x\"\nzip = [[\"rows\", \"colums\"]]\n")), @"sweep: error: sweeps/x.toml:2: `zip[0]`: unknown parameter `colums` (not in [params])");
}

#[test]
fn zip_lists_of_different_lengths_give_both_lengths() {
    let text = base_with("name = \"x\"\n", "name = \"x\"\nzip = [[\"rows\", \"slices\"]]\n")
        .replace("slices = [1, 2]", "slices = [1, 2, 4]");
    insta::assert_snapshot!(check_rejection(&text), @"sweep: error: sweeps/x.toml:2: `zip[0]`: zipped lists differ in length: `rows` has 2 values, `slices` has 3");
}

#[test]
fn unknown_template_variable_in_run_args_names_arg_and_variable() {
    insta::assert_snapshot!(check_rejection(&base_with("\"{{new}}\"", "\"{{neww}}\"")), @"sweep: error: sweeps/x.toml:15: `run.args[3]`: unknown template variable `neww` (not a parameter, input or harness name); did you mean `new`?");
}

#[test]
fn unknown_template_variable_in_run_env_names_the_env_key() {
    insta::assert_snapshot!(check_rejection(&base_with("[metrics]", "[run.env]\nTPE_OVERLAP_SLICES = \"{{slice}}\"\n\n[metrics]")), @"sweep: error: sweeps/x.toml:18: `run.env.TPE_OVERLAP_SLICES`: unknown template variable `slice` (not a parameter, input or harness name); did you mean `slices`?");
}

#[test]
fn template_syntax_error_gives_template_and_column() {
    insta::assert_snapshot!(check_rejection(&base_with("\"{{new}}\"", "\"{{#if new}}x\"")), @"sweep: error: sweeps/x.toml:15: `run.args[3]`: bad template `{{#if new}}x`: invalid handlebars syntax at line 1, column 13");
}

#[test]
fn rank_under_the_mpirun_launcher_is_refused_clearly() {
    insta::assert_snapshot!(check_rejection(&base_with("\"{{new}}\"", "\"{{rank}}\"")), @"sweep: error: sweeps/x.toml:15: `run.args[3]`: `{{rank}}` has no value under the mpirun launcher, which starts \
         every rank with one command; only the per-rank launcher renders it");
}

#[test]
fn missing_engine_profile_says_where_it_looked() {
    insta::assert_snapshot!(check_rejection(&base_with("profile = \"reference\"", "profile = \"nosuch\"")), @"sweep: error: sweeps/x.toml:4: `engine.profile`: no engine profile `nosuch`: looked for engines/nosuch.toml in sweeps and its parents");
}

#[test]
fn missing_engine_profile_path_names_the_path() {
    insta::assert_snapshot!(check_rejection(&base_with("profile = \"reference\"", "profile = \"engines/nosuch.toml\"")), @"sweep: error: sweeps/x.toml:4: `engine.profile`: engine profile `sweeps/engines/nosuch.toml` does not exist");
}

#[test]
fn unknown_launcher_in_a_profile_names_the_profile_file() {
    let ws = Workspace::new();
    write_profile(&ws, "bad", "launcher = \"mpirun\"", "launcher = \"mpiexec\"");
    ws.write_sweep("x", &base_with("profile = \"reference\"", "profile = \"bad\""));
    insta::assert_snapshot!(rejection(&ws, &["check", "sweeps/x.toml"]), @"sweep: error: sweeps/engines/bad.toml:10: `launcher`: unknown value `mpiexec`, expected one of `local`, `per-rank`, `mpirun`, `srun`");
}

#[test]
fn unknown_launcher_override_names_the_sweep_key() {
    insta::assert_snapshot!(check_rejection(&base_with("profile = \"reference\"", "profile = \"reference\"\nlauncher = \"mpiexec\"")), @"sweep: error: sweeps/x.toml:5: `engine.launcher`: unknown value `mpiexec`, expected one of `local`, `per-rank`, `mpirun`, `srun`");
}

#[test]
fn bad_duration_in_a_profile_names_the_unit() {
    let ws = Workspace::new();
    write_profile(&ws, "bad", "timeout = \"120s\"", "timeout = \"5 parsecs\"");
    ws.write_sweep("x", &base_with("profile = \"reference\"", "profile = \"bad\""));
    insta::assert_snapshot!(rejection(&ws, &["check", "sweeps/x.toml"]), @"sweep: error: sweeps/engines/bad.toml:14: `timeout`: invalid duration `5 parsecs`: unknown unit `parsecs`; \
         write e.g. \"90s\", \"10m\" or \"1h 30m\"");
}

#[test]
fn bad_duration_in_an_engine_override_names_the_sweep_key() {
    insta::assert_snapshot!(check_rejection(&base_with("profile = \"reference\"", "profile = \"reference\"\ntimeout = \"5 parsecs\"")), @"sweep: error: sweeps/x.toml:5: `engine.timeout`: invalid duration `5 parsecs`: unknown unit `parsecs`; \
         write e.g. \"90s\", \"10m\" or \"1h 30m\"");
}

#[test]
fn zero_duration_is_refused() {
    insta::assert_snapshot!(check_rejection(&base_with("profile = \"reference\"", "profile = \"reference\"\ngrace = \"0s\"")), @"sweep: error: sweeps/x.toml:5: `engine.grace`: invalid duration `0s`: must be more than zero");
}

#[test]
fn engine_tree_override_that_is_not_a_directory_names_the_sweep_key() {
    let ws = Workspace::new();
    ws.write_sweep("x", &base_with("profile = \"reference\"", "profile = \"reference\"\ntree = \"../nosuch\""));
    let expected = format!(
        "sweep: error: sweeps/x.toml:5: `engine.tree`: engine tree `{}` is not a directory",
        absolute(&ws, "nosuch")
    );
    assert_rejected(&ws, &["check", "sweeps/x.toml"], &expected);
}

#[test]
fn zero_reps_are_refused() {
    insta::assert_snapshot!(check_rejection(&base_with("count = 3", "count = 0")), @"sweep: error: sweeps/x.toml:12: `reps.count`: must be at least 1");
}

#[test]
fn primary_naming_an_unknown_metric_is_refused() {
    insta::assert_snapshot!(check_rejection(&base_with("primary = \"prefill_tokens_per_s\"", "primary = \"tokens_per_s\"")), @"sweep: error: sweeps/x.toml:21: `analysis.primary`: unknown metric `tokens_per_s` (declared: rows, prefill_tokens_per_s)");
}

#[test]
fn group_by_naming_an_unknown_param_names_the_element() {
    insta::assert_snapshot!(check_rejection(&base_plus("group_by = [\"rows\", \"colums\"]\n")), @"sweep: error: sweeps/x.toml:22: `analysis.group_by[1]`: unknown parameter `colums`");
}

#[test]
fn derived_expression_with_an_unknown_name_names_it() {
    let text = base_plus("\n[metrics.derived]\nms_per_row = \"1000 * prefill_seconds / rows\"\n");
    let line = line_of(&text, "ms_per_row");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `metrics.derived.ms_per_row`: unknown name `prefill_seconds` in \
             `1000 * prefill_seconds / rows` (not a metric or numeric parameter)"
        ),
    );
}

#[test]
fn invalid_regex_is_one_line() {
    let text = base_plus("\n[metrics.regex.tps]\npattern = \"tps=([0-9\"\n");
    let line = line_of(&text, "pattern");
    assert_check_rejects(
        &text,
        &format!("sweep: error: sweeps/x.toml:{line}: `metrics.regex.tps.pattern`: invalid regex: regex parse error: tps=([0-9 ^ error: unclosed character class"),
    );
}

#[test]
fn regex_without_a_capture_group_is_refused() {
    let text = base_plus("\n[metrics.regex.tps]\npattern = \"tps=[0-9.]+\"\n");
    let line = line_of(&text, "pattern");
    assert_check_rejects(
        &text,
        &format!("sweep: error: sweeps/x.toml:{line}: `metrics.regex.tps.pattern`: the regex has no capture group: wrap the number in ( )"),
    );
}

#[test]
fn check_on_an_unknown_metric_names_the_check() {
    let text = base_plus("\n[[checks]]\nmetric = \"row\"\nequals = \"{{rows}}\"\n");
    let line = line_of(&text, "metric = \"row\"");
    assert_check_rejects(
        &text,
        &format!("sweep: error: sweeps/x.toml:{line}: `checks[0].metric`: unknown metric `row`; did you mean `rows`? (declared: rows, prefill_tokens_per_s)"),
    );
}

#[test]
fn filter_on_an_unknown_key_lists_the_params_and_writes_nothing() {
    let ws = Workspace::new();
    ws.write_sweep("x", BASE);
    insta::assert_snapshot!(rejection(&ws, &["run", "sweeps/x.toml", "--filter", "foo=1"]), @"sweep: error: --filter `foo=1`: `foo` is not a parameter of sweeps/x.toml (parameters: rows, slices, new)");
    assert!(!ws.path().join("results").exists(), "a rejected run wrote results/");
}

#[test]
fn shard_index_above_count_is_refused() {
    let ws = Workspace::new();
    ws.write_sweep("x", BASE);
    insta::assert_snapshot!(rejection(&ws, &["run", "sweeps/x.toml", "--shard", "3/2"]), @"sweep: error: --shard `3/2`: expected I/N with 1 <= I <= N");
    assert!(!ws.path().join("results").exists(), "a rejected run wrote results/");
}

#[test]
fn rejected_declaration_under_run_writes_no_results() {
    let ws = Workspace::new();
    ws.write_sweep("x", &base_with("count = 3", "count = 0"));
    insta::assert_snapshot!(rejection(&ws, &["run", "sweeps/x.toml"]), @"sweep: error: sweeps/x.toml:12: `reps.count`: must be at least 1");
    assert!(!ws.path().join("results").exists(), "a rejected run wrote results/");
}

#[test]
fn ablation_template_that_does_not_exist_is_refused() {
    let ws = Workspace::new();
    let text = base_plus(
        "\n[ablation]\ngroups = [\"g\"]\ntemplates = [{ template = \"nosuch.cpp.hbs\", target = \"kernels/gated_delta.cpp\" }]\n",
    );
    ws.write_sweep("x", &text);
    let line = line_of(&text, "templates = ");
    assert_rejected(
        &ws,
        &["ablate", "sweeps/x.toml"],
        &format!("sweep: error: sweeps/x.toml:{line}: `ablation.templates[0].template`: template `sweeps/nosuch.cpp.hbs` does not exist"),
    );
    assert!(!ws.path().join("results").exists(), "a rejected ablation wrote results/");
}

/// A stale template, over a small engine tree inside the workspace (`[engine] tree` override), so the
/// real engine tree is never read for it nor touched.
#[test]
fn stale_template_shows_the_first_differing_line() {
    let ws = Workspace::new();
    let target = ws.write("tree/kernels/k.cpp", "int a = 1;\nint b = 20;\nint c = 3;\n");
    ws.write("sweeps/k.cpp.hbs", "int a = 1;\nint b = 2;\n{{#unless ablate.g}}int c = 3;{{/unless}}\n");
    let text = base_with("profile = \"reference\"", "profile = \"reference\"\ntree = \"../tree\"")
        + "\n[ablation]\ngroups = [\"g\"]\ntemplates = [{ template = \"k.cpp.hbs\", target = \"kernels/k.cpp\" }]\n";
    ws.write_sweep("x", &text);
    let expected = format!(
        "sweep: error: {}: the template is out of date: rendered with nothing ablated it differs from {} at line 2 \
         (template says \"int b = 2;\", source says \"int b = 20;\")",
        absolute(&ws, "sweeps/k.cpp.hbs"),
        absolute(&ws, "tree/kernels/k.cpp"),
    );
    assert_rejected(&ws, &["check", "sweeps/x.toml"], &expected);
    assert_rejected(&ws, &["ablate", "sweeps/x.toml"], &expected);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "int a = 1;\nint b = 20;\nint c = 3;\n",
        "the tree was touched"
    );
    assert!(!ws.path().join("results").exists(), "a rejected ablation wrote results/");
    assert!(!Path::new(&absolute(&ws, "tree/build")).exists(), "a rejected ablation built something");
}

#[test]
fn a_value_listed_twice_is_refused() {
    insta::assert_snapshot!(check_rejection(&base_with("slices = [1, 2]", "slices = [1, 2, 1]")), @"sweep: error: sweeps/x.toml:8: `params.slices`: `1` is listed twice: two settings would be one and the same");
}

#[test]
fn a_zip_point_listed_twice_is_refused_but_a_value_repeated_across_points_is_not() {
    let distinct = base_with("name = \"x\"\n", "name = \"x\"\nzip = [[\"rows\", \"slices\"]]\n")
        .replacen("rows = [512, 1024]", "rows = [512, 1024, 2048]", 1)
        .replacen("slices = [1, 2]", "slices = [1, 2, 2]", 1);
    let ws = Workspace::new();
    ws.write_sweep("x", &distinct);
    let output = common::sweep(ws.path(), &["check", "sweeps/x.toml"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    insta::assert_snapshot!(check_rejection(&distinct.replacen("rows = [512, 1024, 2048]", "rows = [512, 1024, 1024]", 1)), @"sweep: error: sweeps/x.toml:2: `zip[0]`: `rows=1024 slices=2` is listed twice: two settings would be one and the same");
}

#[test]
fn reps_beyond_the_limit_are_refused_before_allocating_them() {
    insta::assert_snapshot!(check_rejection(&base_with("count = 3", "count = 4294967295")), @"sweep: error: sweeps/x.toml:12: `reps.count`: 4294967295 is more than the 10000 reps a sweep may have");
    insta::assert_snapshot!(check_rejection(&base_with("count = 3", "count = 3\nwarmup = 4294967295")), @"sweep: error: sweeps/x.toml:13: `reps.warmup`: 4294967295 is more than the 10000 reps a sweep may have");
}

#[test]
fn a_timeout_too_long_for_the_clock_is_refused_at_load_not_a_panic_mid_run() {
    insta::assert_snapshot!(check_rejection(&base_with("profile = \"reference\"", "profile = \"reference\"\ntimeout = \"300000000000y\"")), @"sweep: error: sweeps/x.toml:5: `engine.timeout`: invalid duration `300000000000y`: must be at most 30 days");
}

#[test]
fn zero_ranks_in_a_sweep_are_reported_against_the_sweep_file_not_the_profile() {
    insta::assert_snapshot!(check_rejection(&base_with("profile = \"reference\"", "profile = \"reference\"\nranks = 0")), @"sweep: error: sweeps/x.toml:5: `engine.ranks`: 0 ranks: must be between 1 and 4096");
}

#[test]
fn ranks_beyond_the_limit_in_a_profile_name_the_profile() {
    let ws = Workspace::new();
    write_profile(&ws, "bad", "ranks = 2", "ranks = 4294967295");
    ws.write_sweep("x", &base_with("profile = \"reference\"", "profile = \"bad\""));
    insta::assert_snapshot!(rejection(&ws, &["check", "sweeps/x.toml"]), @"sweep: error: sweeps/engines/bad.toml:12: `ranks`: 4294967295 ranks: must be between 1 and 4096");
}

#[test]
fn a_tolerance_that_is_not_a_finite_positive_share_is_refused() {
    for (tolerance, shown) in [("nan", "NaN"), ("-1.0", "-1"), ("0.0", "0"), ("inf", "inf")] {
        let text = base_plus(&format!(
            "\n[ablation]\ngroups = [\"g\"]\ntolerance = {tolerance}\ntemplates = [{{ template = \"k.cpp.hbs\", target = \"kernels/k.cpp\" }}]\n"
        ));
        let line = line_of(&text, "tolerance = ");
        assert_check_rejects(
            &text,
            &format!(
                "sweep: error: sweeps/x.toml:{line}: `ablation.tolerance`: {shown} is not a finite share above 0 of \
                 the all-groups delta (e.g. 0.05)"
            ),
        );
    }
}

/// `[1, 1.0]` passed check as two settings, but the CSV wrote both as `1` and the summary merged them.
#[test]
fn values_that_print_alike_are_refused_as_one_setting() {
    for (list, message) in [
        ("[32, 32.0]", "`32` and `32.0` both print as `32`: two settings would share one CSV identity"),
        ("[1, 1.0]", "`1` and `1.0` both print as `1`: two settings would share one CSV identity"),
        ("[\"a\", \"a\"]", "`a` is listed twice: two settings would be one and the same"),
    ] {
        assert_check_rejects(
            &base_with("slices = [1, 2]", &format!("slices = {list}")),
            &format!("sweep: error: sweeps/x.toml:8: `params.slices`: {message}"),
        );
    }
}

#[test]
fn mixed_type_lists_are_refused() {
    for (list, message) in [
        ("[512, \"1024\"]", "`512` is a number but `\"1024\"` is a string"),
        ("[32, \"32\"]", "`32` is a number but `\"32\"` is a string"),
        ("[1, true]", "`1` is a number but `true` is a boolean"),
    ] {
        assert_check_rejects(
            &base_with("slices = [1, 2]", &format!("slices = {list}")),
            &format!(
                "sweep: error: sweeps/x.toml:8: `params.slices`: mixed value types: {message}; write every value of \
                 a parameter as one type"
            ),
        );
    }
}

#[test]
fn non_finite_param_values_are_refused() {
    for (list, shown) in [("[nan, nan]", "NaN"), ("[1.0, inf]", "inf"), ("-inf", "-inf")] {
        assert_check_rejects(
            &base_with("slices = [1, 2]", &format!("slices = {list}")),
            &format!("sweep: error: sweeps/x.toml:8: `params.slices`: `{shown}` is not a finite number"),
        );
    }
}

#[test]
fn a_sweep_name_that_is_a_path_is_refused() {
    for name in ["../../X", "/tmp/X", "a/b", "..", ""] {
        assert_check_rejects(
            &base_with("name = \"x\"", &format!("name = \"{name}\"")),
            &format!(
                "sweep: error: sweeps/x.toml:1: `name`: `{name}` is not a plain file name (no `/`, `.` or `..`): it \
                 names the sweep's results folder"
            ),
        );
    }
}

#[test]
fn out_refuses_to_overwrite_any_sibling_it_would_write() {
    let ws = Workspace::new();
    ws.write_sweep("x", BASE);
    let siblings = [
        "victim/data.json",
        "victim/data.summary.md",
        "victim/data.svg",
        "victim/data.analysis.json",
        "victim/data.html",
    ];
    for sibling in siblings.into_iter().chain(["victim/data"]) {
        let path = ws.path().join(sibling);
        let kind = if sibling.ends_with("data") {
            std::fs::create_dir_all(&path).unwrap();
            "a folder (--force replaces files only)"
        } else {
            ws.write(sibling, "precious");
            "a file (--force replaces it)"
        };
        let expected = format!(
            "sweep: error: --out victim/data.csv: {} already exists as {kind}; a sweep never overwrites it \
             otherwise, choose another name",
            absolute(&ws, sibling)
        );
        assert_rejected(&ws, &["run", "sweeps/x.toml", "--out", "victim/data.csv"], &expected);
        assert!(!ws.path().join("victim/data.csv").exists(), "a refused run wrote its CSV");
        if path.is_file() {
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
            std::fs::remove_file(&path).unwrap();
        }
    }
}

#[test]
fn out_without_a_csv_extension_is_refused() {
    let ws = Workspace::new();
    ws.write_sweep("x", BASE);
    insta::assert_snapshot!(rejection(&ws, &["run", "sweeps/x.toml", "--out", "noext"]), @"sweep: error: --out noext: the result file must end in `.csv`");
    assert!(!ws.path().join("noext").exists(), "a refused run wrote something");
}

#[test]
fn an_os_error_is_printed_once() {
    let ws = Workspace::new();
    insta::assert_snapshot!(rejection(&ws, &["check", "sweeps/nosuch.toml"]), @"sweep: error: sweeps/nosuch.toml: cannot read: No such file or directory (os error 2)");
}

#[test]
fn report_and_compare_of_a_missing_csv_name_the_csv_and_exit_2() {
    let ws = Workspace::new();
    insta::assert_snapshot!(rejection(&ws, &["report", "nosuch.csv"]), @"sweep: error: nosuch.csv: no such result CSV");
    ws.write("a.csv", "x");
    insta::assert_snapshot!(rejection(&ws, &["compare", "a.csv", "nosuch.csv"]), @"sweep: error: a.csv: not a sweep result CSV: no `variant` column");
}

/// A kernel template with a syntax error deep inside: one short line naming the template file and line.
#[test]
fn a_kernel_template_syntax_error_names_the_template_file_and_line() {
    let ws = Workspace::new();
    ws.write("tree/kernels/k.cpp", "int a = 1;\n");
    ws.write("sweeps/k.cpp.hbs", &format!("{}{{{{#if ablate.g}}}}\nint a = 1;\n", "// x\n".repeat(89)));
    let text = base_with("profile = \"reference\"", "profile = \"reference\"\ntree = \"../tree\"")
        + "\n[ablation]\ngroups = [\"g\"]\ntemplates = [{ template = \"k.cpp.hbs\", target = \"kernels/../kernels/k.cpp\" }]\n";
    ws.write_sweep("x", &text);
    let expected = format!(
        "sweep: error: {}: the template did not render: invalid handlebars syntax at line 92, column 1",
        absolute(&ws, "sweeps/k.cpp.hbs")
    );
    assert_rejected(&ws, &["check", "sweeps/x.toml"], &expected);
}

/// `kernels/../kernels/k.cpp` stays inside the tree, so it is the same target as `kernels/k.cpp`.
#[test]
fn a_target_with_dot_dot_that_stays_inside_the_tree_is_accepted() {
    let ws = Workspace::new();
    ws.write("tree/kernels/k.cpp", "int a = 1;\nint c = 3;\n");
    ws.write("sweeps/k.cpp.hbs", "int a = 1;\n{{#unless ablate.g}}int c = 3;{{/unless}}\n");
    let text = base_with("profile = \"reference\"", "profile = \"reference\"\ntree = \"../tree\"")
        + "\n[ablation]\ngroups = [\"g\"]\ntemplates = [{ template = \"k.cpp.hbs\", target = \"kernels/../kernels/k.cpp\" }]\n";
    ws.write_sweep("x", &text);
    let output = common::sweep(ws.path(), &["check", "sweeps/x.toml"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
}

#[test]
fn a_grid_too_large_to_plan_is_refused_at_load() {
    let values: Vec<String> = (1..=400).map(|n| n.to_string()).collect();
    insta::assert_snapshot!(check_rejection(&base_with("slices = [1, 2]", &format!("slices = [{}]", values.join(", "))).replacen(
            "rows = [512, 1024]",
            &format!("rows = [{}]", values.join(", ")),
            1,
        )), @"sweep: error: sweeps/x.toml:6: `params`: 160000 settings: more than the 100000 a sweep may plan");
}

#[test]
fn more_runs_than_a_sweep_may_plan_are_refused_at_load_and_from_the_command_line() {
    let values: Vec<String> = (1..=51).map(|n| n.to_string()).collect();
    let text = base_with("slices = [1, 2]", &format!("slices = [{}]", values.join(", ")));
    insta::assert_snapshot!(check_rejection(&text.replacen("count = 3", "count = 10000", 1)), @"sweep: error: sweeps/x.toml:12: `reps.count`: 102 settings x 10000 rounds = 1020000 runs: more than the \
         1000000 a sweep may plan");
    let ws = Workspace::new();
    ws.write_sweep("x", &text);
    insta::assert_snapshot!(rejection(&ws, &["run", "sweeps/x.toml", "--reps", "10000", "--dry-run"]), @"sweep: error: --reps 10000: 102 settings x 10000 rounds = 1020000 runs, more than the 1000000 a sweep may plan");
}

#[test]
fn more_ablation_groups_than_a_factorial_design_can_build_are_refused() {
    let groups: Vec<String> = (1..=13).map(|n| format!("\"g{n}\"")).collect();
    let text = base_plus(&format!(
        "\n[ablation]\ngroups = [{}]\ntemplates = [{{ template = \"k.cpp.hbs\", target = \"kernels/k.cpp\" }}]\n",
        groups.join(", ")
    ));
    let line = line_of(&text, "groups = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `ablation.groups`: 13 groups: at most 12 (a factorial design builds \
             2^k variants)"
        ),
    );
}

#[test]
fn an_input_count_too_large_to_generate_is_refused_before_any_run() {
    let text = base_with("rows = [512, 1024]", "rows = [512, 100000000]").replacen(
        "[metrics]",
        "[[inputs]]\nname = \"ids\"\nfile = \"ids.txt\"\npattern = [1, 2]\ncount = \"{{rows}}\"\n\n[metrics]",
        1,
    );
    let line = line_of(&text, "count = \"{{rows}}\"");
    let ws = Workspace::new();
    ws.write_sweep("x", &text);
    assert_rejected(
        &ws,
        &["run", "sweeps/x.toml"],
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `inputs[0].count`: `{{{{rows}}}}` rendered to `100000000`, not a whole \
             number up to 16777216"
        ),
    );
    assert!(!ws.path().join("results").exists(), "a rejected run wrote results/");
}

#[test]
fn a_baseline_value_not_in_the_grid_is_refused() {
    let text = base_plus("baseline = { slices = 3 }\nrelative = { prefill_tokens_per_s = \"ratio\" }\n");
    let line = line_of(&text, "baseline = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `analysis.baseline.slices`: `3` is not a value of `slices` in the \
             grid (`1`, `2`)"
        ),
    );
}

#[test]
fn a_baseline_param_that_is_not_declared_is_refused() {
    let text = base_plus("baseline = { tbo = \"off\" }\nrelative = { prefill_tokens_per_s = \"ratio\" }\n");
    let line = line_of(&text, "baseline = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `analysis.baseline.tbo`: unknown parameter `tbo` (not in [params])"
        ),
    );
}

#[test]
fn a_relative_metric_that_is_not_declared_is_refused() {
    let text = base_plus("baseline = { slices = 1 }\nrelative = { output_tps = \"ratio\" }\n");
    let line = line_of(&text, "relative = ");
    assert_check_rejects(
        &text,
        &format!("sweep: error: sweeps/x.toml:{line}: `analysis.relative.output_tps`: unknown metric `output_tps`"),
    );
}

#[test]
fn a_baseline_without_relative_metrics_is_refused() {
    let text = base_plus("baseline = { slices = 1 }\n");
    let line = line_of(&text, "baseline = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `analysis.baseline`: no `relative` metrics to compare with it: add \
             `relative = {{ <metric> = \"ratio\" }}`"
        ),
    );
}

#[test]
fn a_check_with_neither_metric_nor_expr_is_refused() {
    let text = base_plus("\n[[checks]]\nequals = \"rows\"\n");
    let line = line_of(&text, "[[checks]]");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `checks[0]`: give either `metric` (with `equals` a template) or \
             `expr` (with `equals` an expression)"
        ),
    );
}

#[test]
fn a_check_expression_over_an_unknown_name_is_refused() {
    let text = base_plus("\n[[checks]]\nexpr = \"prefill_tokens_per_s * prefill_seconds\"\nequals = \"rows\"\n");
    let line = line_of(&text, "expr = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `checks[0].expr`: unknown name `prefill_seconds` in \
             `prefill_tokens_per_s * prefill_seconds` (not a metric or numeric parameter)"
        ),
    );
}

#[test]
fn a_check_tolerance_that_is_not_a_share_is_refused() {
    let text = base_plus("\n[[checks]]\nexpr = \"rows * 2\"\nequals = \"rows + rows\"\nwithin = 5\n");
    let line = line_of(&text, "within = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `checks[0].within`: must be a share between 0 and 1 (e.g. 0.01 for 1%)"
        ),
    );
}

#[test]
fn a_fit_by_something_that_is_not_a_param_is_refused() {
    let text = base_plus("fit = { x = \"rows\", y = \"prefill_tokens_per_s\", by = [\"topology\"] }\n");
    let line = line_of(&text, "fit = ");
    assert_check_rejects(
        &text,
        &format!("sweep: error: sweeps/x.toml:{line}: `analysis.fit.by[0]`: unknown parameter `topology`"),
    );
}

#[test]
fn a_pivot_of_an_unknown_metric_is_refused() {
    let text = base_plus("\n[report]\npivot = { rows = \"rows\", columns = \"slices\", value = \"latency_ns\" }\n");
    let line = line_of(&text, "pivot = ");
    assert_check_rejects(
        &text,
        &format!("sweep: error: sweeps/x.toml:{line}: `report.pivot.value`: unknown metric `latency_ns`"),
    );
}

#[test]
fn an_equivalence_expression_over_an_unknown_name_is_refused() {
    let text = base_plus("equivalence = \"if(rows / slice < 96, 1, slices)\"\n");
    let line = line_of(&text, "equivalence = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `analysis.equivalence`: unknown name `slice` in \
             `if(rows / slice < 96, 1, slices)` (not a metric or numeric parameter); did you mean `slices`?"
        ),
    );
}

#[test]
fn a_baseline_of_another_type_than_the_grid_names_both_as_written() {
    let text = base_with("slices = [1, 2]", "slices = [1.0, 2.0]")
        + "baseline = { slices = 1 }\nrelative = { prefill_tokens_per_s = \"ratio\" }\n";
    let line = line_of(&text, "baseline = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `analysis.baseline.slices`: `1` is not a value of `slices` in the \
             grid (`1.0`, `2.0`)"
        ),
    );
}

#[test]
fn a_build_template_naming_an_unknown_param_is_refused() {
    let text = base_plus("\n[build]\nargs = [\"TPE_ATTENTION_BLOCK={{block}}\"]\n");
    let line = line_of(&text, "args = [\"TPE_");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `build.args[0]`: unknown build template variable `block` \
             (a build sees only params, `tree` and `build_dir`)"
        ),
    );
}

#[test]
fn a_build_env_naming_a_run_time_name_is_refused() {
    let text = base_plus("\n[build]\nenv = { CXXFLAGS = \"-DREP={{rep}}\" }\n");
    let line = line_of(&text, "env = { CXX");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `build.env.CXXFLAGS`: unknown build template variable `rep` \
             (a build sees only params, `tree` and `build_dir`)"
        ),
    );
}

#[test]
fn a_build_section_for_a_profile_without_a_build_command_is_refused() {
    let ws = Workspace::new();
    write_profile(
        &ws,
        "prebuilt",
        "build = [\"make\", \"-s\", \"-C\", \"{{tree}}\", \"BUILD_DIR={{build_dir}}\", \"-j2\"]",
        "",
    );
    let text = base_with("profile = \"reference\"", "profile = \"prebuilt\"") + "\n[build]\nargs = [\"X={{rows}}\"]\n";
    ws.write_sweep("x", &text);
    let line = line_of(&text, "[build]");
    assert_rejected(
        &ws,
        &["check", "sweeps/x.toml"],
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `build`: the engine profile sweeps/engines/prebuilt.toml has no \
             build command to append to"
        ),
    );
}

#[test]
fn a_rank_count_template_over_an_unknown_name_is_refused() {
    let text = base_with("profile = \"reference\"", "profile = \"reference\"\nranks = \"{{nodes}}\"");
    let line = line_of(&text, "ranks = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `engine.ranks`: unknown template variable `nodes` (not a parameter)"
        ),
    );
}

#[test]
fn a_rank_count_template_that_renders_no_count_is_refused_at_load() {
    let text = base_with("profile = \"reference\"", "profile = \"reference\"\nranks = \"{{slices}}\"").replacen(
        "slices = [1, 2]",
        "slices = [1, 0]",
        1,
    );
    let line = line_of(&text, "ranks = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `engine.ranks`: `{{{{slices}}}}` rendered to `0`, not a rank count \
             from 1 to 4096"
        ),
    );
}

#[test]
fn a_where_constraint_over_an_unknown_param_is_refused() {
    let text = format!("where = [\"K % 256 == 0\"]\n{BASE}");
    insta::assert_snapshot!(check_rejection(&text), @"sweep: error: sweeps/x.toml:1: `where[0]`: unknown parameter `K` in `K % 256 == 0`");
}

#[test]
fn a_derived_param_over_a_text_param_is_refused_at_check_not_at_run_time() {
    let text = base_with("new = 4", "new = 4\nmode = [\"a\", \"b\"]\n\n[params.derived]\nbuf = \"mode * 2\"");
    let line = line_of(&text, "buf = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `params.derived.buf`: `mode` is not numeric: expressions are over \
             numbers (compare it in a value map)"
        ),
    );
}

#[test]
fn a_derived_param_may_not_shadow_a_param() {
    let text = base_with("new = 4", "new = 4\n\n[params.derived]\nrows = \"new * 2\"");
    let line = line_of(&text, "rows = \"new");
    assert_check_rejects(
        &text,
        &format!("sweep: error: sweeps/x.toml:{line}: `params.derived.rows`: `rows` is already a parameter or a harness name"),
    );
}

#[test]
fn a_value_map_entry_with_an_unknown_key_is_refused() {
    let text = base_with("new = 4", "new = 4\n\n[params.tbo]\noff = { args = [] }\nall = { flags = [\"--tbo\"] }");
    let line = line_of(&text, "all = ");
    let output_start = format!("sweep: error: sweeps/x.toml:{line}: `params.tbo.all`: unknown field `flags`");
    let ws = Workspace::new();
    ws.write_sweep("x", &text);
    let output = common::sweep(ws.path(), &["check", "sweeps/x.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).starts_with(&output_start), "{}", common::stderr(&output));
}

#[test]
fn a_check_expression_over_a_text_param_is_refused_at_check_not_at_run_time() {
    let text = base_with("new = 4", "new = 4\nmode = [\"a\", \"b\"]")
        + "\n[[checks]]\nexpr = \"prefill_tokens_per_s * mode\"\nequals = \"rows\"\n";
    let line = line_of(&text, "expr = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `checks[0].expr`: unknown name `mode` in \
             `prefill_tokens_per_s * mode` (not a metric or numeric parameter)"
        ),
    );
}

#[test]
fn a_hostfile_template_for_a_launcher_that_is_not_mpirun_is_refused() {
    let text = base_with(
        "profile = \"reference\"",
        "profile = \"reference\"\nlauncher = \"per-rank\"\nhostfile = \"hosts/{{slices}}.txt\"",
    );
    let line = line_of(&text, "hostfile = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `engine.hostfile`: a hostfile is passed to mpirun only; the \
             launcher is not mpirun"
        ),
    );
}

// `sweep check` used to pass declarations that fail every run. Each is now refused at check, naming
// the file, line and key.

#[test]
fn a_derived_metric_that_does_not_evaluate_is_refused_at_check() {
    let text = base_plus("\n[metrics.derived]\nms = \"prefill_tokens_per_s +* 2\"\n");
    let line = line_of(&text, "ms = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `metrics.derived.ms`: `prefill_tokens_per_s +* 2` cannot be \
             evaluated: An operator expected 2 arguments, but got 1."
        ),
    );
}

#[test]
fn derived_metrics_defined_in_a_cycle_are_refused_at_check() {
    let text = base_plus("\n[metrics.derived]\na = \"b + 1\"\nb = \"c * 2\"\nc = \"a - rows\"\n");
    let line = line_of(&text, "a = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `metrics.derived.a`: derived metrics defined in terms of each \
             other (a -> b -> c -> a) can never be evaluated"
        ),
    );
}

#[test]
fn a_check_with_an_unknown_template_variable_is_refused_at_check() {
    let text = base_plus("\n[[checks]]\nmetric = \"rows\"\nequals = \"{{row}}\"\n");
    let line = line_of(&text, "equals = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `checks[0].equals`: `{{{{row}}}}` does not render: unknown \
             template variable `row`"
        ),
    );
}

#[test]
fn a_missing_hostfile_of_the_profile_is_refused_at_check() {
    let ws = Workspace::new();
    write_profile(&ws, "hosts", "ranks = 2", "ranks = 2\nhostfile = \"hosts.txt\"");
    ws.write_sweep("x", &base_with("profile = \"reference\"", "profile = \"hosts\""));
    let line = line_of(&std::fs::read_to_string(ws.path().join("sweeps/engines/hosts.toml")).unwrap(), "hostfile");
    let expected = format!(
        "sweep: error: sweeps/engines/hosts.toml:{line}: `hostfile`: hostfile {} does not exist: mpirun would \
         fail every run",
        absolute(&ws, "sweeps/engines/hosts.txt")
    );
    assert_rejected(&ws, &["check", "sweeps/x.toml"], &expected);
}

#[test]
fn a_derived_param_that_evaluates_to_inf_is_refused_at_check() {
    let text = base_with("new = 4", "new = 4\n[params.derived]\nper_slice = \"rows / (slices - 1)\"");
    let line = line_of(&text, "per_slice = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `params.derived.per_slice` at rows=512 slices=1 new=4: \
             `rows / (slices - 1)` is inf, not a finite number"
        ),
    );
}

#[test]
fn env_names_that_are_empty_or_hold_an_equals_sign_are_refused_at_check() {
    let text = base_plus("\n[run.env]\n\"A=B\" = \"1\"\n");
    let line = line_of(&text, "\"A=B\"");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `run.env.A=B`: `A=B`: a variable name cannot hold `=` (it would \
             end the name)"
        ),
    );
    let text = base_with("profile = \"reference\"", "profile = \"reference\"\nenv = { \"\" = \"1\" }");
    let line = line_of(&text, "env = ");
    assert_check_rejects(
        &text,
        &format!("sweep: error: sweeps/x.toml:{line}: `engine.env.`: ``: an empty variable name cannot be set"),
    );
}

#[test]
fn a_result_prefix_that_no_line_can_start_with_is_refused_at_check() {
    let ws = Workspace::new();
    write_profile(&ws, "spaced", "prefix = \"tpe_result\"", "prefix = \" \"");
    ws.write_sweep("x", &base_with("profile = \"reference\"", "profile = \"spaced\""));
    let profile = std::fs::read_to_string(ws.path().join("sweeps/engines/spaced.toml")).unwrap();
    let line = line_of(&profile, "prefix = \" \"");
    let expected = format!(
        "sweep: error: sweeps/engines/spaced.toml:{line}: `result.prefix`: ` ` holds whitespace, so no line's \
         first token can be it: every run would find no result line (write the first token, or \"\" for any line \
         of key=value tokens) (reached from sweeps/x.toml)"
    );
    assert_rejected(&ws, &["check", "sweeps/x.toml", "sweeps/x.toml"], &format!("{expected}\n{expected}"));
}

#[test]
fn a_control_that_is_the_primary_metric_is_refused_at_check() {
    let text = base_plus("control = \"prefill_tokens_per_s\"\n");
    let line = line_of(&text, "control = ");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{line}: `analysis.control`: `prefill_tokens_per_s` is the primary \
             metric: the control is a metric no setting changes, which removes drift from the primary"
        ),
    );
}

#[test]
fn a_shard_beyond_the_reps_is_refused_and_writes_nothing() {
    let ws = Workspace::new();
    ws.write_sweep("x", BASE);
    insta::assert_snapshot!(rejection(&ws, &["run", "sweeps/x.toml", "--shard", "4/4", "--dry-run"]), @"sweep: error: --shard 4/4: 4 shards of 3 reps leave shard 4 without a rep; give at most 3 shards");
    assert!(!ws.path().join("results").exists(), "a rejected run wrote results/");
}

#[test]
fn a_list_of_100000_values_checks_and_its_repeat_is_found() {
    let values: Vec<String> = (0..100_000).map(|value| value.to_string()).collect();
    let text = base_with("slices = [1, 2]", &format!("slices = [{}]", values.join(", ")))
        .replace("rows = [512, 1024]", "rows = 512");
    let ws = Workspace::new();
    ws.write_sweep("x", &text);
    let output = common::sweep(ws.path(), &["check", "sweeps/x.toml"]);
    assert!(output.status.success(), "{}", common::stderr(&output));
    let repeated = text.replacen(", 99999]", ", 7]", 1);
    let line = line_of(&repeated, "slices = ");
    assert_check_rejects(
        &repeated,
        &format!("sweep: error: sweeps/x.toml:{line}: `params.slices`: `7` is listed twice: two settings would be one and the same"),
    );
}

/// Runs `sweep <args>` and asserts its exit code, stderr and stdout exactly.
fn assert_output(ws: &Workspace, args: &[&str], code: i32, stderr: &str, stdout: &str) {
    let output = common::sweep(ws.path(), args);
    assert_eq!(common::stderr(&output), stderr, "stderr of `sweep {}`", args.join(" "));
    assert_eq!(common::stdout(&output), stdout, "stdout of `sweep {}`", args.join(" "));
    assert_eq!(output.status.code(), Some(code), "exit code of `sweep {}`", args.join(" "));
}

/// The line of `needle` in the workspace's reference profile.
fn profile_line(ws: &Workspace, needle: &str) -> usize {
    line_of(&std::fs::read_to_string(ws.path().join("sweeps/engines/reference.toml")).unwrap(), needle)
}

#[test]
fn a_misspelt_program_beside_the_built_one_is_refused_with_the_right_name() {
    common::ensure_engine_built();
    let ws = Workspace::new();
    write_profile(&ws, "typo", "program = \"{{build_dir}}/tp-engine\"", "program = \"{{build_dir}}/tp-engin\"");
    let build = common::engine_tree().join("build");
    let expected = format!(
        "sweep: error: sweeps/engines/typo.toml:{}: `program`: program {}/tp-engin does not exist; did you mean \
         {}/tp-engine?",
        profile_line(&ws, "program ="),
        build.display(),
        build.display()
    );
    assert_rejected(&ws, &["check", "sweeps/engines/typo.toml"], &expected);
    // A sweep on the profile is refused the same way, before anything runs.
    ws.write_sweep("x", &base_with("profile = \"reference\"", "profile = \"typo\""));
    assert_rejected(&ws, &["check", "sweeps/x.toml"], &expected);
}

#[test]
fn a_program_nothing_builds_must_exist() {
    let ws = Workspace::new();
    let line = profile_line(&ws, "program =");
    write_profile(&ws, "gone", "program = \"{{build_dir}}/tp-engine\"", "program = \"/nonexistent/tp-engine\"");
    let expected = format!(
        "sweep: error: sweeps/engines/gone.toml:{line}: `program`: program /nonexistent/tp-engine does not exist: \
         every run would fail to start"
    );
    assert_rejected(&ws, &["check", "sweeps/engines/gone.toml"], &expected);
    write_profile(&ws, "bare", "program = \"{{build_dir}}/tp-engine\"", "program = \"tp-engine-nowhere\"");
    let expected = format!(
        "sweep: error: sweeps/engines/bare.toml:{line}: `program`: program `tp-engine-nowhere` is not on PATH: \
         every run would fail to start"
    );
    assert_rejected(&ws, &["check", "sweeps/engines/bare.toml"], &expected);
}

#[test]
fn a_result_key_the_engine_never_prints_is_refused_with_the_near_one() {
    let ws = Workspace::new();
    let text = base_with("\"prefill_tokens_per_s\"]", "\"prefill_token_per_s\"]");
    ws.write_sweep("x", &text);
    let output = common::sweep(ws.path(), &["check", "sweeps/x.toml"]);
    let stderr = common::stderr(&output);
    let expected = format!(
        "sweep: error: sweeps/x.toml:{}: `metrics.result[1]`: `prefill_token_per_s` is not a key the engine's result \
         line prints; did you mean `prefill_tokens_per_s`? (documented in ",
        line_of(&text, "prefill_token_per_s")
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
    assert!(stderr.ends_with("reference.toml: ranks, rows, new, overlap_slices, prefill_seconds, prefill_tokens_per_s, decode_seconds, decode_tokens_per_s, decode_token_count, checksum, wall, attention_block, prefill_reps, prefill_spread, prefill_cpu_wait, prefill_cpu_share, link_alpha_us, link_gbps)\n"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_param_nothing_uses_is_a_note_and_an_error_under_strict() {
    let ws = Workspace::new();
    ws.write_sweep("x", BASE);
    let note = format!("{UNUSED_SLICES_NOTE}\n");
    assert_output(&ws, &["check", "sweeps/x.toml"], 0, &note, "sweeps/x.toml: ok (4 settings x 3 reps)\n");
    assert_output(&ws, &["check", "--strict", "sweeps/x.toml"], 2, &note, "");
    // Named by a template, it is used: no note.
    ws.write_sweep("x", &base_with("\"{{new}}\"]", "\"{{new}}\", \"--prefill-reps\", \"{{slices}}\"]"));
    assert_output(&ws, &["check", "--strict", "sweeps/x.toml"], 0, "", "sweeps/x.toml: ok (4 settings x 3 reps)\n");
}

#[test]
fn a_param_named_only_by_a_misspelt_name_in_a_block_gets_a_suggestion() {
    let ws = Workspace::new();
    ws.write_sweep("x", &base_with("\"{{new}}\"]", "\"{{new}}\", \"{{#if slice}}--slices{{/if}}\"]"));
    let note = format!("{UNUSED_SLICES_NOTE}; did you mean `slice`?\n");
    assert_output(&ws, &["check", "sweeps/x.toml"], 0, &note, "sweeps/x.toml: ok (4 settings x 3 reps)\n");
}

#[test]
fn an_unknown_template_variable_near_a_param_is_suggested() {
    insta::assert_snapshot!(check_rejection(&base_with("\"{{rows}}\"", "\"{{row}}\"")), @"sweep: error: sweeps/x.toml:15: `run.args[1]`: unknown template variable `row` (not a parameter, input or \
         harness name); did you mean `rows`?");
}

/// `sweep run slice` said `cannot read`, not that `slices` is declared; `sweep ablate` the same.
#[test]
fn a_sweep_name_near_a_declared_one_is_suggested() {
    let ws = Workspace::new();
    ws.write_sweep("slices", BASE);
    for command in ["run", "ablate"] {
        assert_rejected(
            &ws,
            &[command, "slice"],
            "sweep: error: sweeps/slice.toml: no such sweep declaration; did you mean `slices`?",
        );
    }
    insta::assert_snapshot!(rejection(&ws, &["run", "colour"]), @"sweep: error: sweeps/colour.toml: no such sweep declaration");
}

/// `primary = "prefill_tokens_per_sec"` listed the metrics but did not point at `prefill_tokens_per_s`; so
/// for the control and an equivalence key.
#[test]
fn a_metric_name_in_an_analysis_key_near_a_declared_one_is_suggested() {
    let with_decode = base_with("\"prefill_tokens_per_s\"]", "\"prefill_tokens_per_s\", \"decode_tokens_per_s\"]");
    let declared = "(declared: rows, prefill_tokens_per_s, decode_tokens_per_s)";
    let primary = with_decode.replacen("primary = \"prefill_tokens_per_s\"", "primary = \"prefill_tokens_per_sec\"", 1);
    assert_check_rejects(
        &primary,
        &format!(
            "sweep: error: sweeps/x.toml:21: `analysis.primary`: unknown metric `prefill_tokens_per_sec`; did you \
             mean `prefill_tokens_per_s`? {declared}"
        ),
    );
    let control = format!("{with_decode}control = \"decode_token_per_s\"\n");
    assert_check_rejects(
        &control,
        &format!(
            "sweep: error: sweeps/x.toml:{}: `analysis.control`: unknown metric `decode_token_per_s`; did you mean \
             `decode_tokens_per_s`? {declared}",
            line_of(&control, "control = ")
        ),
    );
    let equivalence =
        format!("{with_decode}equivalence = \"overlap_slice\"\n[metrics.derived]\noverlap_slices = \"rows\"\n");
    assert_check_rejects(
        &equivalence,
        &format!(
            "sweep: error: sweeps/x.toml:{}: `analysis.equivalence`: unknown name `overlap_slice` in `overlap_slice` \
             (not a metric or numeric parameter); did you mean `overlap_slices`?",
            line_of(&equivalence, "equivalence = ")
        ),
    );
}

#[test]
fn unknown_keys_name_the_near_key_or_list_the_keys() {
    let text = base_plus("grup_by = [\"rows\"]\n");
    assert_check_rejects(
        &text,
        &format!(
            "sweep: error: sweeps/x.toml:{}: `analysis.grup_by`: unknown key `grup_by`; did you mean `group_by`?",
            line_of(&text, "grup_by")
        ),
    );
    let ws = Workspace::new();
    write_profile(&ws, "typo", "timeout = ", "timout = ");
    let expected = format!(
        "sweep: error: sweeps/engines/typo.toml:{}: `timout`: unknown key `timout`; did you mean `timeout`?",
        profile_line(&ws, "timeout =")
    );
    assert_rejected(&ws, &["check", "sweeps/engines/typo.toml"], &expected);
    let text = base_plus("colour = [\"rows\"]\n");
    ws.write_sweep("x", &text);
    let stderr = common::stderr(&common::sweep(ws.path(), &["check", "sweeps/x.toml"]));
    let expected = format!(
        "sweep: error: sweeps/x.toml:{}: `analysis.colour`: unknown key `colour`, expected one of `primary`, ",
        line_of(&text, "colour")
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
}

#[test]
fn a_profile_whose_tree_is_missing_is_checked_as_a_declaration() {
    let ws = Workspace::new();
    let text = std::fs::read_to_string(common::repo_root().join("sweeps/engines/reference.toml")).unwrap();
    let away = text.replace("tree = \"../../engine\"", "tree = \"../PocketLLM\"");
    ws.write("sweeps/engines/away.toml", &away);
    let note = format!(
        "sweep: note: sweeps/engines/away.toml:{}: `tree`: tree ../PocketLLM not found: checked the declaration only\n",
        line_of(&text, "tree =")
    );
    let ok = "sweeps/engines/away.toml: ok (engine profile, declaration only)\n";
    assert_output(&ws, &["check", "sweeps/engines/away.toml"], 0, &note, ok);
    assert_output(&ws, &["check", "--strict", "sweeps/engines/away.toml"], 2, &note, "");
    // A declaration error is still found without the tree.
    ws.write("sweeps/engines/away.toml", &away.replace("ranks = 2", "ranks = 0"));
    let expected = format!(
        "sweep: error: sweeps/engines/away.toml:{}: `ranks`: 0 ranks: must be between 1 and 4096",
        line_of(&away, "ranks = 2")
    );
    assert_rejected(&ws, &["check", "sweeps/engines/away.toml"], &expected);
}

/// README: `sweep check sweeps/*.toml sweeps/engines/*.toml` exits 0 on a fresh clone, where the
/// PocketLLM tree is not (a note).
#[test]
fn the_readme_check_command_passes_on_the_repository() {
    let root = common::repo_root();
    let mut files: Vec<String> = Vec::new();
    for dir in ["sweeps", "sweeps/engines"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".toml") {
                files.push(format!("{dir}/{name}"));
            }
        }
    }
    files.sort();
    let args: Vec<&str> = std::iter::once("check").chain(files.iter().map(String::as_str)).collect();
    let output = common::sweep(&root, &args);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    assert_eq!(common::stdout(&output).lines().count(), files.len(), "{}", common::stdout(&output));
}

#[test]
fn a_quantity_over_an_unknown_metric_names_its_key() {
    insta::assert_snapshot!(check_rejection(&base_plus("[[analysis.quantity]]\nname = \"q\"\nexpr = \"tps[slices=2] / 2\"\n")), @"sweep: error: sweeps/x.toml:24: `analysis.quantity[0].expr`: `tps` is neither a metric nor a numeric parameter (in `tps[slices=2] / 2`)");
}

#[test]
fn a_quantity_at_a_value_outside_the_grid_names_its_key() {
    insta::assert_snapshot!(check_rejection(&base_plus("[[analysis.quantity]]\nname = \"q\"\nexpr = \"prefill_tokens_per_s[slices=8]\"\n")), @"sweep: error: sweeps/x.toml:24: `analysis.quantity[0].expr`: `slices=8` is not in the grid (`1`, `2`) (in `prefill_tokens_per_s[slices=8]`)");
}

#[test]
fn unsetting_a_param_no_arg_uses_names_its_key() {
    insta::assert_snapshot!(check_rejection(&base_with("[metrics]", "[run.unset]\nslices = \"1\"\n\n[metrics]")), @"sweep: error: sweeps/x.toml:18: `run.unset.slices`: no `[run]` arg or env uses `{{slices}}`: unsetting `slices` would change nothing");
}

#[test]
fn a_rule_value_outside_the_grid_names_its_key() {
    insta::assert_snapshot!(check_rejection(&base_plus("verify_rule = { param = \"slices\", rule = \"rule\" }\n")), @"sweep: error: sweeps/x.toml:22: `analysis.verify_rule.rule`: `rule` is not a value of `slices` beside forced ones");
}

/// Regression: a NUL byte in a param value passed `check`, then failed every run.
#[test]
fn check_refuses_a_nul_byte_in_a_param_value() {
    let ws = Workspace::new();
    ws.write_sweep("x", &base_with("slices = [1, 2]", "slices = [1, 2]\nmode = [\"fast\", \"slow\\u0000\"]"));
    let says = "sweep: error: sweeps/x.toml:9: `params.mode[1]`: holds a NUL byte (\\u0000), which no program \
                argument, environment variable or path can hold: every run would fail";
    assert_rejected(&ws, &["check", "sweeps/x.toml"], says);
    assert_rejected(&ws, &["run", "sweeps/x.toml", "--no-build"], says);
    assert!(!ws.path().join("results").exists(), "a refused run wrote results");
}

/// Regression: a NUL byte in a `[run.env]` value passed `check`, then failed every run.
#[test]
fn check_refuses_a_nul_byte_in_an_env_value() {
    insta::assert_snapshot!(check_rejection(&base_with("[metrics]", "[run.env]\nTPE_MODE = \"a\\u0000b\"\n\n[metrics]")), @"sweep: error: sweeps/x.toml:18: `run.env.TPE_MODE`: holds a NUL byte (\\u0000), which no program argument, \
         environment variable or path can hold: every run would fail");
}

/// Regression: `a = ["1 b=2", "1"]` and `b = ["3", "2 b=3"]` make two settings that both
/// print as `a=1 b=2 b=3`, the one identity a result CSV knows a setting by: `check` said ok, every run
/// ran, then the sweep refused its own CSV. Both are refused before anything runs, each named as written.
#[test]
fn check_refuses_settings_that_print_alike() {
    let ws = Workspace::new();
    let text = base_with("new = 4", "new = 4\na = [\"1 b=2\", \"1\"]\nb = [\"3\", \"2 b=3\"]")
        .replace("\"{{new}}\"]", "\"{{new}}\", \"{{a}}\", \"{{b}}\"]");
    ws.write_sweep("x", &text);
    let says = "sweep: error: sweeps/x.toml: settings { rows = 512, slices = 1, new = 4, a = \"1 b=2\", b = \"3\" } \
                and { rows = 512, slices = 1, new = 4, a = \"1\", b = \"2 b=3\" } both print as \
                `rows=512 slices=1 new=4 a=1 b=2 b=3`: two settings would share one CSV identity (a text value \
                holding a space then `name=` reads as another param)";
    assert_rejected(&ws, &["check", "sweeps/x.toml"], says);
    assert_rejected(&ws, &["run", "sweeps/x.toml", "--no-build", "--filter", "b=3"], says);
    assert!(!ws.path().join("results").exists(), "a refused run wrote results");
}

#[test]
fn an_unknown_finding_is_refused_with_the_nearest_name() {
    let text = base_plus("findings = [\"setting_cv\", \"setting_vc\"]\n");
    let line = line_of(&text, "findings = ");
    let expected = format!(
        "sweep: error: sweeps/x.toml:{line}: `analysis.findings[1]`: unknown finding `setting_vc`; did you mean \
         `setting_cv`?"
    );
    assert_check_rejects(&text, &expected);
    let ws = Workspace::new();
    ws.write_sweep("x", &text);
    assert_rejected(&ws, &["run", "sweeps/x.toml"], &expected);
}
