#!/usr/bin/env bash
# Change points across versions on fixture histories with a known truth (prints a markdown table; asserts
# nothing): harness/src/history/test_fixture_history.rs's ignored test
# `history_changes_against_the_peers_on_fixture_histories`, against conbench's lookback z-score and the
# same test on one run a version; and harness/src/history/test_fixture_repository.rs's
# `bisect_against_one_measurement_a_commit` (64 commits, a 3% slowdown, 1% noise) against asv find's one
# run a commit. Usage: bench/history.sh [HISTORIES] [REPOSITORIES]   (defaults 10, 20)
set -euo pipefail
cd "$(dirname "$0")/.."
HISTORY_SEEDS="${1:-10}" BISECT_SEEDS="${2:-20}" cargo test --release -q -p sweep --lib history::test_fixture -- --ignored --nocapture --test-threads=1 2>/dev/null | grep '^|'
