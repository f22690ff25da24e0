#!/usr/bin/env bash
# Analysis speed and memory on a large result (prints figures; asserts nothing: this machine is noisy).
# Generates a 1,000,000-row result CSV + sidecar (bench/gen_results.py: 20 settings, 3 metrics) and a
# second one 2% faster, then times, median of 5 interleaved runs each:
#  - `sweep report A.csv` and `sweep compare A.csv B.csv` (elapsed and max RSS via /usr/bin/time -v);
#  - DuckDB and Polars reading A.csv and computing per-setting mean, sd and count of every metric
#    over ok, non-warmup runs (the floor a dataframe library sets for the reading part of `report`).
# Prints the ratios of `sweep report` to each library, and of `sweep compare` to twice each library's
# time (it reads two files). `sweep` includes its process start and writing its summary, page and plot;
# the libraries' times exclude Python's start and imports.
# Then the same on real data: a sweep of the reference engine (`sweeps/slices.toml`, run first unless
# REAL_CSV names a finished one) replicated to the same row count by bench/replicate_real.py, every
# column and analysis option of the real declaration kept (control, equivalence, rows-per-slice, rule
# check, derived metrics, provenance and log columns).
# Usage: bench/report_speed.sh [rows=1000000]   (needs python3 with duckdb and polars: pip install duckdb polars)
#        SWEEP=/path/to/sweep bench/report_speed.sh   times that binary instead of building target/release/sweep
#        REAL_CSV=results/slices/<stamp>.csv bench/report_speed.sh   replicates that sweep instead of running one
set -euo pipefail
cd "$(dirname "$0")/.."
rows="${1:-1000000}"
python3 -c 'import duckdb, polars' 2>/dev/null || { echo "needs: pip install duckdb polars" >&2; exit 1; }
if [ -z "${SWEEP:-}" ]; then
    cargo build --release -q -p sweep
fi
sweep="${SWEEP:-$PWD/target/release/sweep}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 bench/gen_results.py "$work/a.csv" "$rows" 1
python3 bench/gen_results.py "$work/b.csv" "$rows" 2 1.02
# The files just written are still being flushed to disk: let that finish before anything is timed.
sync
echo "result CSV: $rows rows, $(du -m "$work/a.csv" | cut -f1) MB"

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Prints "<s> <max RSS MB>" of one run of "$@" under /usr/bin/time -v (exit 1, a failed check, is fine).
timed() {
    /usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || [ $? -eq 1 ] \
        || { cat "$work/stderr" >&2; exit 1; }
    awk -F': ' '/Elapsed/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%s ", s }
                /Maximum resident/ { printf "%.0f\n", $2 / 1024 }' "$work/time"
}

# One library's time for reading A.csv and computing per-setting mean, sd and count of every metric
# over ok, non-warmup runs (import excluded).
cat > "$work/library.py" <<'PY'
import sys, time
import duckdb, polars as pl
engine, path = sys.argv[1], sys.argv[2]
header = open(path).readline().strip().split(",")
keys = [c for c in header if c.startswith("param.")] + ["variant"]
metrics = [c[len("metric."):] for c in header if c.startswith("metric.")]
settings = int(sys.argv[3])
start = time.perf_counter()
if engine == "duckdb":
    aggs = ", ".join(f'avg("metric.{m}"), stddev_samp("metric.{m}"), count("metric.{m}")' for m in metrics)
    columns = ", ".join(f'"{k}"' for k in keys)
    rows = duckdb.sql(f"SELECT {columns}, {aggs} FROM read_csv_auto('{path}') "
                      "WHERE status = 'ok' AND NOT warmup GROUP BY ALL").fetchall()
else:
    exprs = []
    for m in metrics:
        c = pl.col(f"metric.{m}")
        exprs += [c.mean().alias(f"{m}_mean"), c.std().alias(f"{m}_sd"), c.count().alias(f"{m}_n")]
    usable = (pl.col("status") == "ok") & ~pl.col("warmup")
    rows = pl.scan_csv(path).filter(usable).group_by(keys).agg(exprs).collect().rows()
elapsed = time.perf_counter() - start
assert len(rows) == settings, (len(rows), settings)
print(f"{elapsed:.3f}")
PY

# Times report, compare and both libraries on one pair of CSVs (interleaved, so a change of machine
# load lands on every contender alike) and prints the medians and ratios.
compete() {
    local label=$1 a=$2 b=$3 settings=$4
    rm -f "$work/report" "$work/compare" "$work/duckdb" "$work/polars"
    for _ in 1 2 3 4 5; do
        timed "$sweep" report --force "$a" >>"$work/report"
        timed "$sweep" compare "$a" "$b" >>"$work/compare"
        python3 "$work/library.py" duckdb "$a" "$settings" >>"$work/duckdb"
        python3 "$work/library.py" polars "$a" "$settings" >>"$work/polars"
    done
    report_s=$(cut -d' ' -f1 "$work/report" | median); report_mb=$(cut -d' ' -f2 "$work/report" | median)
    compare_s=$(cut -d' ' -f1 "$work/compare" | median); compare_mb=$(cut -d' ' -f2 "$work/compare" | median)
    duckdb_s=$(median <"$work/duckdb"); polars_s=$(median <"$work/polars")
    echo "== $label"
    printf '%-34s %8s %10s\n' "median of 5" "seconds" "max RSS MB"
    printf '%-34s %8s %10s\n' "sweep report (1 file)" "$report_s" "$report_mb"
    printf '%-34s %8s %10s\n' "sweep compare (2 files)" "$compare_s" "$compare_mb"
    printf '%-34s %8s\n' "DuckDB per-setting mean/sd/count" "$duckdb_s"
    printf '%-34s %8s\n' "Polars per-setting mean/sd/count" "$polars_s"
    awk -v r="$report_s" -v c="$compare_s" -v d="$duckdb_s" -v p="$polars_s" 'BEGIN {
        printf "report / DuckDB %.2fx, report / Polars %.2fx (target <= 1.2x)\n", r / d, r / p
        printf "compare / (2 x DuckDB) %.2fx, compare / (2 x Polars) %.2fx (two files read)\n", c / (2 * d), c / (2 * p) }'
}

compete "synthetic (bench/gen_results.py, 20 settings, 3 metrics)" "$work/a.csv" "$work/b.csv" 20

real="${REAL_CSV:-}"
if [ -z "$real" ]; then
    "$sweep" run sweeps/slices.toml --out "$work/real/slices.csv" >/dev/null 2>&1 || [ $? -eq 1 ]
    real="$work/real/slices.csv"
fi
python3 bench/replicate_real.py "$real" "$work/real_a.csv" "$rows"
cp "$work/real_a.csv" "$work/real_b.csv"; cp "$work/real_a.json" "$work/real_b.json"
sync
settings=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["settings"]))' "$work/real_a.json")
compete "real ($real replicated: $(du -m "$work/real_a.csv" | cut -f1) MB, $settings settings)" \
    "$work/real_a.csv" "$work/real_b.csv" "$settings"
