#!/usr/bin/env bash
# Change points across versions on fixture histories with a known truth (prints a markdown table; asserts
# nothing): harness/src/history/test_fixture_history.rs's ignored test
# `history_changes_against_the_peers_on_fixture_histories`, against conbench's lookback z-score and the
# same test on one run a version. Usage: bench/history.sh [HISTORIES]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
HISTORY_SEEDS="${1:-10}" cargo test --release -q -p sweep --lib history::test_fixture_history -- --ignored --nocapture 2>/dev/null | grep '^|'
