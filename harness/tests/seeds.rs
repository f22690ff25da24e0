//! The source documents' experiments (`sweeps/seeds/`), each driven end to end against its FIXTURE engine
//! (made-up numbers, not measurements): the summary must have the shape of the document's table, and the
//! numbers the document derived (its quantities) must be in the summary and in `<stamp>.analysis.json`.

mod common;

use common::{csv_rows, repo_root, stderr, sweep};

type Rows = Vec<std::collections::BTreeMap<String, String>>;

/// What one seed run left: its CSV rows, its summary and its analysis JSON.
struct SeedRun {
    rows: Rows,
    summary: String,
    analysis: serde_json::Value,
}

/// Runs `sweeps/seeds/<file>` (`sweep run`, or `sweep ablate` for an ablation) with two reps into a
/// temporary results dir.
fn run_seed_with(command: &str, file: &str) -> SeedRun {
    let dir = tempfile::tempdir().unwrap();
    let spec = repo_root().join("sweeps/seeds").join(file);
    let csv = dir.path().join("seed.csv");
    let output = sweep(dir.path(), &[command, spec.to_str().unwrap(), "--reps", "2", "--out", csv.to_str().unwrap()]);
    assert!(output.status.success(), "{file}: {}", stderr(&output));
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    let analysis = std::fs::read_to_string(csv.with_extension("analysis.json"))
        .map(|text| serde_json::from_str(&text).unwrap())
        .unwrap_or(serde_json::Value::Null);
    SeedRun { rows: csv_rows(&csv), summary, analysis }
}

fn run_seed(file: &str) -> SeedRun {
    run_seed_with("run", file)
}

/// The `|` rows of the summary section under `heading`.
fn table<'a>(summary: &'a str, heading: &str) -> Vec<&'a str> {
    let section = summary.split(heading).nth(1).unwrap_or_else(|| panic!("no `{heading}`:\n{summary}"));
    section.lines().skip_while(|line| !line.starts_with('|')).take_while(|line| line.starts_with('|')).collect()
}

fn cells(row: &str) -> Vec<&str> {
    row.split('|').map(str::trim).filter(|cell| !cell.is_empty()).collect()
}

/// The leading number of an effect cell such as `0.7767 [0.7717, 0.7818], p < 0.001`.
fn estimate(cell: &str) -> f64 {
    cell.split_whitespace().next().unwrap().parse().unwrap_or_else(|_| panic!("not an estimate: {cell}"))
}

/// Every declared quantity is named in the summary and in the analysis JSON.
fn assert_quantities(run: &SeedRun, names: &[&str]) {
    let json = run.analysis.to_string();
    for name in names {
        assert!(run.summary.contains(name), "quantity `{name}` not in the summary:\n{}", run.summary);
        assert!(json.contains(&format!("\"{name}\"")), "quantity `{name}` not in analysis.json: {json}");
    }
}

fn mean_of(rows: &Rows, metric: &str, filter: impl Fn(&std::collections::BTreeMap<String, String>) -> bool) -> f64 {
    let values: Vec<f64> =
        rows.iter().filter(|row| filter(row)).map(|row| row[metric].parse::<f64>().unwrap()).collect();
    assert!(!values.is_empty(), "no rows for {metric}");
    values.iter().sum::<f64>() / values.len() as f64
}

#[test]
fn seed_000_slices_runs_the_rule_beside_forced_counts_and_prices_the_fixed_term() {
    let run = run_seed("000_slices.toml");
    assert_eq!(run.rows.len(), 40, "5 slice settings x 4 shapes x 2 reps");
    for row in &run.rows {
        assert_eq!(row["metric.prompt_tokens"], row["param.rows"], "{row:?}");
    }
    // The rule (override unset) resolved to the study's optimum: 1, 1, 2, 4 slices.
    for (rows, slices) in [("512", "1"), ("1024", "1"), ("2048", "2"), ("4096", "4")] {
        let rule =
            mean_of(&run.rows, "metric.overlap_slices", |r| r["param.slices"] == "rule" && r["param.rows"] == rows);
        assert_eq!(rule, slices.parse::<f64>().unwrap(), "rule at {rows} rows");
    }
    // slices=8 at 512 rows falls back to serial: the equivalence section says the paths agree.
    assert!(run.summary.contains("## Equivalence (overlap_slices)"), "{}", run.summary);
    // Section 4: the rule's setting against the best forced one, in every group.
    assert!(run.summary.contains("## Rule"), "{}", run.summary);
    let groups = run.analysis["rule"]["groups"].as_array().expect("analysis.json has the rule check");
    assert_eq!(groups.len(), 4, "{groups:?}");
    assert!(groups.iter().all(|group| group["agreement"] != "disagree"), "{groups:?}");
    let pivot = table(&run.summary, "## prefill_tokens_per_s by rows × slices");
    assert_eq!(cells(pivot[0]), ["rows \\ slices", "rule", "1", "2", "4", "8"], "{}", run.summary);
    assert_quantities(
        &run,
        &["fixed_ms_per_extra_call", "serial_ms_per_call", "byte_term_ms", "serial_vs_4_slices", "rule_vs_constant_4"],
    );
}

#[test]
fn seed_000_phases_reads_the_matching_block_and_reports_shares_fit_and_projection() {
    let run = run_seed("000_phases.toml");
    assert_eq!(run.rows.len(), 6);
    for row in &run.rows {
        // The decoy block (decode-shaped, same tag) is not the one read: STACK.r tracks the prompt.
        let share: f64 = row["metric.gated_delta_pct"].parse().unwrap();
        assert!((40.0..60.0).contains(&share), "{row:?}");
        let listed: f64 = row["metric.listed_pct"].parse().unwrap();
        assert!((listed - 96.0).abs() < 0.5, "{row:?}");
    }
    assert!(run.summary.contains("Fit (3 settings"), "{}", run.summary);
    assert_quantities(
        &run,
        &[
            "gbps_ends",
            "fixed_ms_ends",
            "middle_predicted_us",
            "middle_error_pct",
            "recurrence_budget_s",
            "recurrence_cut_x",
        ],
    );
}

#[test]
fn seed_000_allreduce_probe_finds_the_expansion_mode_unmoving() {
    let run = run_seed("000_allreduce_probe.toml");
    assert_eq!(run.rows.len(), 16);
    let pivot = table(&run.summary, "## us_per_call by bytes × expansion_mode");
    assert_eq!(cells(pivot[0]), ["bytes \\ expansion_mode", "0", "1", "2", "3"], "{}", run.summary);
    assert_quantities(&run, &["large_vs_small_payload", "vs_mode_0", "host_over_device"]);
}

#[test]
fn seed_000_gated_delta_ablation_is_additive() {
    let run = run_seed_with("ablate", "000_gated_delta.toml");
    assert_eq!(run.rows.len(), 8, "4 variants x 2 reps");
    assert!(run.summary.contains("-> additive within 5.0%"), "{}", run.summary);
    let both = mean_of(&run.rows, "metric.gated_delta", |r| r["variant"] == "broadcast_rows+rank1_update");
    let baseline = mean_of(&run.rows, "metric.gated_delta", |r| r["variant"] == "baseline");
    assert!(both < 0.5 * baseline, "both groups ablated: {both} against {baseline}");
}

#[test]
fn seed_001_gemm_allreduce_builds_each_shape_once_verifies_and_reports_speedup_and_overlap() {
    let run = run_seed("001_gemm_allreduce.toml");
    assert_eq!(run.rows.len(), 16, "2 shapes x 2 compute x 2 comm blocks x 2 reps");
    for row in &run.rows {
        assert_eq!(row["metric.config_m"], row["param.M"], "{row:?}");
        assert_eq!(row["metric.config_k"], row["param.K"], "{row:?}");
        assert_eq!(row["metric.config_n"], row["param.N"], "{row:?}");
        assert_eq!(row["metric.nranks"], "8", "{row:?}");
        assert_eq!(row["metric.hccl_buffsize"], row["param.hccl_buffsize"], "{row:?}");
        assert_eq!(row["metric.verify_failures"], "0", "{row:?}");
    }
    // Every run after the first of a build found the previous run's HCCL state cleared by pre_run.
    assert!(run.rows.iter().all(|row| row["status"] == "ok"));
    let hash = |m: &str| {
        let hashes: std::collections::BTreeSet<&str> =
            run.rows.iter().filter(|r| r["param.M"] == m).map(|r| r["variant_hash"].as_str()).collect();
        assert_eq!(hashes.len(), 1, "one build per shape: {hashes:?}");
        hashes.into_iter().next().unwrap().to_string()
    };
    assert_ne!(hash("5416"), hash("8192"));
    let default = run.rows.iter().find(|r| r["param.M"] == "5416").unwrap();
    assert_eq!(default["param.hccl_buffsize"], "80");
    assert_eq!(default["param.tiles"], "258");
    assert_quantities(&run, &["speedup", "time_saved_us", "time_saved_pct", "overlap_eff_pct"]);
}

#[test]
fn seed_002_two_batch_overlap_has_the_tbo_impact_table_per_family() {
    let run = run_seed("002_two_batch_overlap.toml");
    assert_eq!(run.rows.len(), 24);
    let impact = table(&run.summary, "## vs tbo=off");
    assert!(impact[0].contains("output_throughput (ratio)") && impact[0].contains("total_throughput (ratio)"));
    let body: Vec<Vec<&str>> = impact[2..].iter().map(|row| cells(row)).collect();
    assert_eq!(body.len(), 8, "all and prefill at each family x concurrency:\n{}", run.summary);
    for row in &body {
        let ratio = estimate(row[3]);
        match row[1] {
            "all" => assert!(ratio < 0.95, "TBO all regresses in the fixture: {row:?}"),
            "prefill" => assert!(ratio > 1.0, "TBO prefill helps in the fixture: {row:?}"),
            other => panic!("unexpected mode {other}"),
        }
    }
    assert_quantities(&run, &["tbo_impact_pct", "tbo_impact_total_pct"]);
}

#[test]
fn seed_002_backends_and_mtp_report_the_impact_with_mtp() {
    let run = run_seed("002_tbo_backends_mtp.toml");
    assert_eq!(run.rows.len(), 16);
    assert_quantities(&run, &["tbo_impact_pct", "low_latency_vs_high_throughput", "mtp3_vs_no_mtp"]);
}

#[test]
fn seed_003_per_token_sync_reports_t_gate_t_sync_and_the_saving_per_round() {
    let run = run_seed("003_per_token_sync.toml");
    assert!(run.rows.iter().all(|r| r["param.ranks"] == r["param.nodes"] && r["metric.nodes"] == r["param.nodes"]));
    let saving = table(&run.summary, "## vs fast_synch=off");
    assert!(saving[0].contains("round_ms (difference, ms)"), "{}", saving[0]);
    let body: Vec<Vec<&str>> = saving[2..].iter().map(|row| cells(row)).collect();
    assert_eq!(body.len(), 6, "nodes x (PR loop under two MLX versions, matmul-free loop):\n{}", run.summary);
    assert!(body.iter().all(|row| estimate(row[row.len() - 2]) < 0.0), "fast synch saves time:\n{}", run.summary);
    assert_quantities(&run, &["t_gate_ms", "t_sync_ms", "fast_synch_saving_ms", "mlx_main_vs_pinned"]);
}

#[test]
fn seed_004_allreduce_has_the_bytes_by_topology_pivot_a_fit_per_topology_and_vs_ring() {
    let run = run_seed("004_allreduce_topologies.toml");
    let pivot = table(&run.summary, "## latency_ns by bytes × topology");
    assert_eq!(cells(pivot[0]), ["bytes \\ topology", "mesh", "ring", "torus"], "{}", run.summary);
    let bytes: Vec<&str> = pivot[2..].iter().map(|row| cells(row)[0]).collect();
    assert_eq!(bytes, ["256", "4096", "16384", "65536", "98304"], "grid order:\n{}", run.summary);
    let fits = table(&run.summary, "## Fit per topology: latency_ns = fixed + per-unit × bytes");
    let topologies: Vec<&str> = fits[2..].iter().map(|row| cells(row)[0]).collect();
    assert_eq!(topologies, ["mesh", "ring", "torus"], "{}", run.summary);
    assert!(fits[0].contains("GB/s"), "{}", fits[0]);
    assert_quantities(
        &run,
        &["vs_ring", "torus_faster_than_mesh_pct", "torus_faster_than_ring_pct", "vs_analytic_torus"],
    );
}

#[test]
fn seed_004_staging_buffer_ties_at_small_payloads_and_prices_tcm() {
    let run = run_seed("004_staging_buffer.toml");
    assert_eq!(run.rows.len(), 18);
    assert!(run.summary.contains("- bytes=65536: resolved: staging=tcm is best"), "{}", run.summary);
    assert_quantities(&run, &["tcm_faster_than_hbm_pct", "tcm_faster_than_sram_pct"]);
}

/// Copies `sweeps/seeds/` into a temporary dir so a test can edit a declaration or profile.
fn seeds_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(repo_root().join("sweeps/seeds"))
        .arg(dir.path().join("seeds"))
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// The `error` cells of a CSV's failed rows.
fn errors(rows: &Rows) -> Vec<String> {
    rows.iter().filter(|row| row["status"] != "ok").map(|row| row["error"].clone()).collect()
}

#[test]
fn seed_001_fails_a_run_whose_output_does_not_verify_and_one_left_stale_hccl_state() {
    let dir = seeds_copy();
    let seeds = dir.path().join("seeds");
    let run = |spec: &std::path::Path| {
        let csv = dir.path().join(format!("{}.csv", spec.file_stem().unwrap().to_str().unwrap()));
        let output = sweep(dir.path(), &["run", spec.to_str().unwrap(), "--reps", "2", "--out", csv.to_str().unwrap()]);
        assert!(!output.status.success(), "{}", stderr(&output));
        csv_rows(&csv)
    };
    // A corrupted C_final (the fixture's --corrupt) fails VerifyOutput's atol 1.0 / rtol 0.01 check.
    let declaration = std::fs::read_to_string(seeds.join("001_gemm_allreduce.toml")).unwrap();
    let corrupt = declaration.replace("\"--rtol\", \"{{rtol}}\"]", "\"--rtol\", \"{{rtol}}\", \"--corrupt\"]");
    assert_ne!(corrupt, declaration);
    std::fs::write(seeds.join("corrupt.toml"), corrupt.replace("seed_001_gemm_allreduce", "corrupt")).unwrap();
    let failed = errors(&run(&seeds.join("corrupt.toml")));
    assert!(!failed.is_empty() && failed.iter().all(|e| e.contains("verify_failures")), "{failed:?}");
    // Without the profile's pre_run, the state a run leaves makes the next run of that build fail.
    let profile = seeds.join("engines/gemm_ar_fixture.toml");
    let text = std::fs::read_to_string(&profile).unwrap();
    let without: String =
        text.lines().filter(|line| !line.starts_with("pre_run")).map(|line| format!("{line}\n")).collect();
    assert_ne!(without, text);
    std::fs::write(&profile, without).unwrap();
    let failed = errors(&run(&seeds.join("001_gemm_allreduce.toml")));
    assert!(failed.iter().any(|e| e.contains("HcclGetRootInfo failed: 7")), "{failed:?}");
}
