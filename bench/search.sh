#!/usr/bin/env bash
# The budgeted search against its peers on fixture spaces with a known truth (prints a markdown table;
# asserts nothing). The Rust side (harness/src/search/test_fixture_space.rs, ignored test
# `search_against_random_search_on_fixture_spaces`) generates each space (interactions, a wide local
# optimum far from a narrow global one, 1% noise), runs the search and random search and exports the
# fixtures; bench/search_peers.py runs Optuna's TPE (installed here in a virtual environment) and
# bench/search_irace.R runs irace (Debian's r-cran-irace, installed here) on the same fixtures at the same
# budget. Usage: bench/search.sh [SEEDS] [FRACTIONS] [PEER_FRACTIONS]
# (defaults 20, "0.05,0.1,0.25", "0.1": TPE at a quarter of the grid takes minutes a study). Then the
# verdicts as `sweep run` takes them (the search replayed, the grid's rules on its final race, the bound on
# settings never run: analyse/search_scenario_tests.rs) on the same spaces, a second table; and a third,
# the same at 10% in unkind weather (stragglers, unequal noise, a drift faster than a round).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-20} fractions=${2:-0.05,0.1,0.25} peer_fractions=${3:-0.1}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
venv="${SWEEP_BENCH_VENV:-$HOME/.cache/sweep-bench-venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import optuna' 2>/dev/null || "$venv/bin/pip" install -q optuna numpy
if ! Rscript -e 'library(irace); library(jsonlite)' >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq r-cran-irace r-cran-jsonlite >/dev/null
fi
echo "| space | settings | budget (of grid runs at 3 reps) | method | median regret | true best found | budget used (median) | ms per search | final race resolved, of those beyond 1% of the true best |"
echo "|---|---|---|---|---|---|---|---|---|"
SEARCH_SEEDS="$seeds" SEARCH_FRACTIONS="$fractions" SEARCH_EXPORT="$work" \
    cargo test --release -q -p sweep --lib search::test_fixture_space -- --ignored --nocapture 2>/dev/null | grep '^|'
"$venv/bin/python" bench/search_peers.py "$work" ${peer_fractions//,/ }
Rscript bench/search_irace.R "$work" ${peer_fractions//,/ }
echo
for verdicts in search_verdicts_on_fixture_spaces search_verdicts_in_unkind_weather; do
    SEARCH_SEEDS="$seeds" SEARCH_FRACTIONS="$fractions" \
        cargo test --release -q -p sweep --lib "analyse::search_scenario_tests::$verdicts" -- --ignored --nocapture \
        2>/dev/null | grep '^|'
    echo
done
