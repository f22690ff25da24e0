//! The analysis a sweep declares beyond its verdicts, driven through the real `sweep` binary on the
//! reference engine: baseline-relative effects, expression checks with a tolerance, per-group fits.

mod common;

use common::{csv_rows, stderr, sweep, Workspace};

/// A tiny interleaved sweep of the reference engine with `analysis` appended to its `[analysis]` table.
fn tiny_sweep(workspace: &Workspace, name: &str, params: &str, reps: u32, extra: &str, analysis: &str) -> String {
    workspace.write_sweep(
        name,
        &format!(
            r#"name = "{name}"
[engine]
profile = "reference"
[params]
{params}
[reps]
count = {reps}
[run]
args = ["--preset", "tiny", "--rows", "{{{{rows}}}}", "--new", "2"]
[run.env]
TPE_OVERLAP_SLICES = "{{{{slices}}}}"
[metrics]
result = ["rows", "prefill_seconds", "prefill_tokens_per_s", "decode_tokens_per_s"]
{extra}
[analysis]
primary = "prefill_tokens_per_s"
{analysis}
"#
        ),
    )
}

fn json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn baseline_relative_effects_are_tabled_in_grid_order_and_written_to_analysis_json() {
    common::ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(
        &workspace,
        "tbo_like",
        "slices = [1, 2]\nrows = [512, 256]",
        3,
        "",
        "baseline = { slices = 1 }\nrelative = { prefill_tokens_per_s = \"ratio\", prefill_seconds = \"difference\" }",
    );
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv("tbo_like");
    assert_eq!(csv_rows(&csv).len(), 12);

    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    let section = summary.split("## vs slices=1\n").nth(1).unwrap_or_else(|| panic!("no vs table:\n{summary}"));
    let table: Vec<&str> = section.lines().filter(|l| l.starts_with('|')).collect();
    assert!(table[0].contains("prefill_seconds (difference, s)") && table[0].contains("prefill_tokens_per_s (ratio)"));
    // Only slices=2 has a partner, at each row count, in the declared order 512 then 256.
    let body: Vec<&str> = table[2..].iter().copied().take_while(|l| l.starts_with("| 2 ")).collect();
    assert_eq!(body.len(), 2, "{section}");
    assert!(body[0].contains("| 512 ") && body[1].contains("| 256 "), "{section}");
    assert!(body.iter().all(|row| row.matches(", p ").count() == 2), "{section}");

    let analysis = json(&csv.with_extension("analysis.json"));
    let relative = analysis["relative"].as_array().unwrap();
    assert_eq!(relative.len(), 4, "{relative:?}");
    for effect in relative {
        assert_eq!((effect["setting"]["slices"].as_i64(), effect["baseline"]["slices"].as_i64()), (Some(2), Some(1)));
        assert_eq!(effect["setting"]["rows"], effect["baseline"]["rows"]);
        assert_eq!(effect["method"], "paired");
        let (low, value, high) =
            (effect["low"].as_f64().unwrap(), effect["effect"].as_f64().unwrap(), effect["high"].as_f64().unwrap());
        assert!(low <= value && value <= high, "{effect}");
        assert!((0.0..=1.0).contains(&effect["p_adjusted"].as_f64().unwrap()));
    }
    let ratio = relative.iter().find(|e| e["kind"] == "ratio").unwrap();
    assert!(ratio["effect"].as_f64().unwrap() > 0.0, "a ratio of throughputs is positive: {ratio}");
}

#[test]
fn a_fit_by_a_param_gives_one_line_per_group_with_its_held_out_error() {
    common::ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(
        &workspace,
        "fit_by",
        "slices = [2, 1]\nrows = [64, 128, 256]",
        1,
        "",
        "fit = { x = \"rows\", y = \"prefill_seconds\", by = [\"slices\"] }",
    );
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv("fit_by");
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    let section = summary
        .split("## Fit per slices: prefill_seconds = fixed + per-unit × rows\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no per-group fit:\n{summary}"));
    let table: Vec<&str> = section.lines().filter(|l| l.starts_with('|')).collect();
    // Cells are padded to the widest value, which the measured times decide (a negative fixed term is wider).
    let header: Vec<&str> = table[0].split('|').map(str::trim).collect();
    assert!(
        header.windows(2).any(|pair| pair == ["fixed (s)", "per rows (s)"]) && !table[0].contains("GB/s"),
        "{section}"
    );
    // One line per slice count, in the declared order 2 then 1, each over its three row counts.
    assert!(table[2].starts_with("| 2      | 3   |") && table[3].starts_with("| 1      | 3   |"), "{section}");
    assert!(table[2..4].iter().all(|row| row.trim_end_matches([' ', '|']).ends_with('%')), "{section}");
    assert!(!summary.contains("Fit (6 settings"), "no line pooled over both slice counts:\n{summary}");
}

#[test]
fn a_declared_pivot_tables_per_setting_means_in_grid_order() {
    common::ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(
        &workspace,
        "pivot",
        "slices = [2, 1]\nrows = [256, 64]",
        1,
        "[report]\npivot = { rows = \"rows\", columns = \"slices\", value = \"prefill_seconds\" }",
        "",
    );
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv("pivot");
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    let section =
        summary.split("## prefill_seconds by rows × slices\n").nth(1).unwrap_or_else(|| panic!("no pivot:\n{summary}"));
    let table: Vec<&str> = section.lines().filter(|l| l.starts_with('|')).take(4).collect();
    assert!(table[0].starts_with("| rows \\ slices | 2 ") && table[0].contains("| 1 "), "{section}");
    assert!(table[2].starts_with("| 256 ") && table[3].starts_with("| 64 "), "{section}");
    let rows = csv_rows(&csv);
    let seconds = |rows_value: &str, slices: &str| {
        let row = rows.iter().find(|r| r["param.rows"] == rows_value && r["param.slices"] == slices).unwrap();
        row["metric.prefill_seconds"].parse::<f64>().unwrap()
    };
    // One rep per setting: each cell is that run's value.
    let cells: Vec<f64> = table[2].split('|').skip(2).filter_map(|c| c.trim().parse().ok()).collect();
    assert_eq!(cells.len(), 2, "{section}");
    assert!((cells[0] - seconds("256", "2")).abs() <= 5e-5 * seconds("256", "2").max(1.0), "{section}");
}

/// The reference engine's gate runs a forced slice count below 96 rows per slice on the serial path; a
/// sweep that does not read the slice count it used states that rule as the equivalence expression.
#[test]
fn an_equivalence_expression_over_params_classes_settings_without_a_resolved_metric() {
    common::ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(
        &workspace,
        "equivalence_expr",
        "slices = [1, 4, 2]\nrows = 256",
        2,
        "",
        "group_by = [\"rows\"]\nequivalence = \"if(rows / slices < 96, 1, slices)\"",
    );
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    // Whether the two serial settings agree within their noise is the machine's business, not this test's.
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", stderr(&output));
    let csv = workspace.result_csv("equivalence_expr");
    assert!(csv_rows(&csv).iter().all(|row| row["status"] == "ok" && !row.contains_key("metric.overlap_slices")));
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    assert!(summary.contains("## Equivalence (if(rows / slices < 96, 1, slices))"), "{summary}");
    assert!(summary.contains("slices=1, slices=4 resolve to if(rows / slices < 96, 1, slices)=1"), "{summary}");
    assert!(summary.contains("| slices=1 = slices=4 here |"), "{summary}");
}

#[test]
fn a_finding_named_in_findings_is_reported_in_the_summary_and_analysis_json() {
    common::ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(&workspace, "cv", "slices = [1, 2]\nrows = [64]", 3, "", "findings = [\"setting_cv\"]");
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv("cv");
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    let section = summary.split("## Setting CV\n").nth(1).unwrap_or_else(|| panic!("no CV section:\n{summary}"));
    assert!(section.contains("median") && section.contains("- slices=") && section.contains("(3 runs)"), "{section}");
    let cv = &json(&csv.with_extension("analysis.json"))["setting_cv"];
    assert_eq!((cv["metric"].as_str(), cv["settings"].as_u64()), (Some("prefill_tokens_per_s"), Some(2)), "{cv}");
    assert!(cv["median"].as_f64().unwrap() >= 0.0 && cv["highest"][0]["runs"] == 3, "{cv}");
}
