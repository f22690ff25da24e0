//! The source documents' experiments (`sweeps/seeds/`), each driven end to end against its FIXTURE engine
//! (made-up numbers, not measurements): the summary must have the shape of the document's table.

mod common;

use common::{csv_rows, repo_root, stderr, sweep};

/// Runs `sweeps/seeds/<file>` with two reps into a temporary results dir; returns (csv rows, summary).
fn run_seed(file: &str) -> (Vec<std::collections::BTreeMap<String, String>>, String) {
    let dir = tempfile::tempdir().unwrap();
    let spec = repo_root().join("sweeps/seeds").join(file);
    let csv = dir.path().join("seed.csv");
    let output = sweep(dir.path(), &["run", spec.to_str().unwrap(), "--reps", "2", "--out", csv.to_str().unwrap()]);
    assert!(output.status.success(), "{file}: {}", stderr(&output));
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    (csv_rows(&csv), summary)
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

#[test]
fn seed_001_gemm_allreduce_builds_each_shape_once_and_reports_speedup_and_overlap() {
    let (rows, summary) = run_seed("001_gemm_allreduce.toml");
    assert_eq!(rows.len(), 8);
    for row in &rows {
        assert_eq!(row["metric.config_m"], row["param.M"], "{row:?}");
        assert_eq!(row["metric.hccl_buffsize"], row["param.hccl_buffsize"], "{row:?}");
    }
    let hash = |m: &str| {
        let hashes: std::collections::BTreeSet<&str> =
            rows.iter().filter(|r| r["param.M"] == m).map(|r| r["variant_hash"].as_str()).collect();
        assert_eq!(hashes.len(), 1, "one build per M: {hashes:?}");
        hashes.into_iter().next().unwrap().to_string()
    };
    assert_ne!(hash("2048"), hash("5416"));
    let other = table(&summary, "## Other metrics");
    assert!(other[0].contains("overlap_eff") && other[0].contains("speedup"), "{}", other[0]);
    assert_eq!(other.len(), 2 + 4, "one row per shape x comm blocks:\n{summary}");
}

#[test]
fn seed_002_two_batch_overlap_has_the_tbo_impact_table() {
    let (_, summary) = run_seed("002_two_batch_overlap.toml");
    let impact = table(&summary, "## vs tbo=off");
    assert!(impact[0].contains("output_tps (ratio)"), "{}", impact[0]);
    let body: Vec<Vec<&str>> = impact[2..].iter().map(|row| cells(row)).collect();
    assert_eq!(body.len(), 4, "all and prefill at each concurrency:\n{summary}");
    for row in &body {
        let ratio = estimate(row[2]);
        match row[1] {
            "all" => assert!(ratio < 0.9, "TBO all regresses in the fixture: {row:?}"),
            "prefill" => assert!(ratio > 1.0, "TBO prefill helps in the fixture: {row:?}"),
            other => panic!("unexpected mode {other}"),
        }
    }
}

#[test]
fn seed_003_per_token_sync_reports_the_saving_per_round_at_each_node_count() {
    let (rows, summary) = run_seed("003_per_token_sync.toml");
    assert!(rows.iter().all(|r| r["param.ranks"] == r["param.nodes"] && r["metric.nodes"] == r["param.nodes"]));
    let saving = table(&summary, "## vs fast_synch=off");
    assert!(saving[0].contains("round_ms (difference, ms)"), "{}", saving[0]);
    let body: Vec<Vec<&str>> = saving[2..].iter().map(|row| cells(row)).collect();
    assert_eq!(body.len(), 4, "nodes x bytes:\n{summary}");
    assert!(body.iter().all(|row| estimate(row.last().unwrap()) < 0.0), "fast synch saves time:\n{summary}");
}

#[test]
fn seed_004_allreduce_has_the_bytes_by_topology_pivot_and_a_fit_per_topology() {
    let (_, summary) = run_seed("004_allreduce_topologies.toml");
    let pivot = table(&summary, "## latency_ns by bytes × topology");
    assert_eq!(cells(pivot[0]), ["bytes \\ topology", "mesh", "ring", "torus"], "{summary}");
    let bytes: Vec<&str> = pivot[2..].iter().map(|row| cells(row)[0]).collect();
    assert_eq!(bytes, ["256", "4096", "16384", "65536", "98304"], "grid order:\n{summary}");
    let fits = table(&summary, "## Fit per topology: latency_ns = fixed + per-unit × bytes");
    let topologies: Vec<&str> = fits[2..].iter().map(|row| cells(row)[0]).collect();
    assert_eq!(topologies, ["mesh", "ring", "torus"], "{summary}");
    assert!(fits[0].contains("GB/s"), "{}", fits[0]);
}
