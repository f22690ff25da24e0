#!/usr/bin/env bash
# Runs every test, tier by tier, and goes on past a failing tier so that one failure hides no other:
# the style gate (rustfmt, clippy with warnings as errors), the reference engine's own tests (kernel,
# collectives, smoke, bad input), then the harness's unit, snapshot and integration tests (which drive
# the real sweep binary and engine), the Slurm ones (tests/slurm.rs) on a local single-node Slurm that
# this script starts, and stops again, unless one already runs. It ends with the failed tiers, if any,
# and exits non-zero when any tier failed.
#   scripts/test.sh          every tier (the README's command; CI runs it)
#   scripts/test.sh --fast   the harness's unit tests and declaration-error tests only (about 2 minutes)
set -uo pipefail
cd "$(dirname "$0")/.."
fast=no
case "${1:-}" in
    "") ;;
    --fast) fast=yes ;;
    *) echo "usage: scripts/test.sh [--fast]" >&2; exit 2 ;;
esac
scripts/install-deps.sh || { echo "test.sh: installing the dependencies failed (above); no test ran" >&2; exit 1; }

failed=()
# Runs one tier, printing its name first, and remembers it if it fails.
tier() {
    local name=$1
    shift
    echo "== $name"
    "$@" || failed+=("$name (exit $?)")
}
log="$(mktemp)"
# Runs a cargo test tier, its output kept in $log for the total line.
cargo_tier() {
    local name=$1
    shift
    tier "$name" bash -c 'set -o pipefail; "$@" 2>&1 | tee -a "$0"' "$log" "$@"
}
if [ "$fast" = yes ]; then
    trap 'rm -f "$log"' EXIT
    tier "reference engine build" make -s -C engine -j2
    cargo_tier "harness unit tests" cargo test --locked -p sweep --lib --bins
    cargo_tier "declaration errors" cargo test --locked -p sweep --test spec_errors
else
    slurm=yes
    if sinfo -h >/dev/null 2>&1; then
        echo "Slurm tests: using the Slurm that already runs"
    else
        slurm_status=0
        scripts/slurm-local.sh start || slurm_status=$?
        case $slurm_status in
            0) slurm_stop='scripts/slurm-local.sh stop' ;;
            3) slurm=no; echo "Slurm tests stay ignored: Slurm cannot be installed or started here (reason above)" ;;
            *) slurm=no; failed+=("local Slurm start (exit $slurm_status)") ;;
        esac
    fi
    trap 'rm -f "$log"; ${slurm_stop:-true}' EXIT
    tier "rustfmt" cargo fmt --all --check
    tier "clippy" cargo clippy --workspace --all-targets --locked -- -D warnings
    tier "reference engine build" make -s -C engine -j2
    tier "reference engine tests" make -s -C engine test
    cargo_tier "harness tests" cargo test --workspace --locked --no-fail-fast
    if [ "$slurm" = yes ]; then
        # Ignored by default (they need a controller): run them now that one answers.
        cargo_tier "Slurm tests" cargo test --locked --test slurm -- --ignored
    fi
fi
awk -f scripts/test-total.awk "$log"
if [ ${#failed[@]} -gt 0 ]; then
    printf 'FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "every tier passed"
