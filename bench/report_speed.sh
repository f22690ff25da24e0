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
# Usage: bench/report_speed.sh [rows=1000000]   (needs python3 with duckdb and polars: pip install duckdb polars)
#        SWEEP=/path/to/sweep bench/report_speed.sh   times that binary instead of building target/release/sweep
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
keys = ["param.rows", "param.slices", "variant"]
metrics = ["prefill_tokens_per_s", "decode_tokens_per_s", "wall_s"]
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
assert len(rows) == 20, rows
print(f"{elapsed:.3f}")
PY

# Interleaved, so a change of machine load lands on every contender alike.
for _ in 1 2 3 4 5; do
    timed "$sweep" report "$work/a.csv" >>"$work/report"
    timed "$sweep" compare "$work/a.csv" "$work/b.csv" >>"$work/compare"
    python3 "$work/library.py" duckdb "$work/a.csv" >>"$work/duckdb"
    python3 "$work/library.py" polars "$work/a.csv" >>"$work/polars"
done
report_s=$(cut -d' ' -f1 "$work/report" | median); report_mb=$(cut -d' ' -f2 "$work/report" | median)
compare_s=$(cut -d' ' -f1 "$work/compare" | median); compare_mb=$(cut -d' ' -f2 "$work/compare" | median)
duckdb_s=$(median <"$work/duckdb"); polars_s=$(median <"$work/polars")

printf '%-34s %8s %10s\n' "median of 5" "seconds" "max RSS MB"
printf '%-34s %8s %10s\n' "sweep report (1 file)" "$report_s" "$report_mb"
printf '%-34s %8s %10s\n' "sweep compare (2 files)" "$compare_s" "$compare_mb"
printf '%-34s %8s\n' "DuckDB per-setting mean/sd/count" "$duckdb_s"
printf '%-34s %8s\n' "Polars per-setting mean/sd/count" "$polars_s"
awk -v r="$report_s" -v c="$compare_s" -v d="$duckdb_s" -v p="$polars_s" 'BEGIN {
    printf "report / DuckDB %.2fx, report / Polars %.2fx (target <= 1.5x)\n", r / d, r / p
    printf "compare / (2 x DuckDB) %.2fx, compare / (2 x Polars) %.2fx (two files read)\n", c / (2 * d), c / (2 * p) }'
