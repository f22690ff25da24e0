#!/usr/bin/env bash
# One race round's decision (`sweep run --until-decided`) on a recorded result of each size given
# (prints figures; asserts nothing: this machine is noisy). Generates a result CSV + sidecar of that
# many rows (bench/gen_results.py: 20 settings, 3 metrics) and times, median of RACE_ROUND_SAMPLES
# (default 21) each, in harness/src/runner/race_driver.rs's ignored test `race_round_speed`:
#  - re-reading the CSV and deciding which settings still race (what every round did before);
#  - deciding on the table the session holds in memory (what a round does now);
#  - appending the last round's 20 rows to that table, as the session does when it writes them (after the
#    round before it, untimed: a cloned table's columns are full, and its first append moves them once).
# Usage: bench/race_round.sh [rows...]   (default 1000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- 1000 100000
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cargo test --release -q -p sweep --lib --no-run
for rows in "$@"; do
    python3 bench/gen_results.py "$work/r$rows.csv" "$rows" 1
    RACE_ROUND_CSV="$work/r$rows.csv" cargo test --release -q -p sweep --lib runner::race_driver::tests::race_round_speed \
        -- --ignored --nocapture --exact 2>/dev/null | grep '^race round'
done
