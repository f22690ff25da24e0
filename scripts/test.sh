#!/usr/bin/env bash
# Runs every test: the style gate (rustfmt, clippy with warnings as errors), the reference engine's own
# tests (kernel, collectives, smoke, bad input), then the harness's unit, snapshot and integration tests
# (which drive the real sweep binary and engine), the Slurm ones (tests/slurm.rs) on a local single-node Slurm
# that this script starts, and stops again, unless one already runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
slurm=yes
if sinfo -h >/dev/null 2>&1; then
    echo "Slurm tests: using the Slurm that already runs"
else
    slurm_status=0
    scripts/slurm-local.sh start || slurm_status=$?
    case $slurm_status in
        0) slurm_stop='scripts/slurm-local.sh stop' ;;
        3) slurm=no; echo "Slurm tests stay ignored: Slurm cannot be installed or started here (reason above)" ;;
        *) exit "$slurm_status" ;;
    esac
fi
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
make -s -C engine -j2
make -s -C engine test
# One total line at the end: the sum of every test binary's passed, failed and ignored counts.
log="$(mktemp)"
trap 'rm -f "$log"; ${slurm_stop:-true}' EXIT
status=0
cargo test --workspace --locked 2>&1 | tee "$log" || status=$?
if [ "$slurm" = yes ]; then
    # The Slurm tests are ignored by default (they need a controller): run them now that one answers.
    cargo test --locked --test slurm -- --ignored 2>&1 | tee -a "$log" || status=$?
fi
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "TOTAL: %d passed, %d failed, %d ignored\n", p, f, i }' "$log"
exit "$status"
