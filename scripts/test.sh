#!/usr/bin/env bash
# Runs every test: the style gate (rustfmt, clippy with warnings as errors), the reference engine's own
# tests (kernel, collectives, smoke, bad input), then the harness's unit, snapshot and integration tests
# (which drive the real sweep binary and engine), the Slurm ones (tests/slurm.rs) on a local single-node Slurm
# that this script starts, and stops again, unless one already runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if sinfo -h >/dev/null 2>&1; then
    echo "Slurm tests: using the Slurm that already runs"
else
    slurm_status=0
    scripts/slurm-local.sh start || slurm_status=$?
    case $slurm_status in
        0) trap 'scripts/slurm-local.sh stop' EXIT ;;
        3) echo "SKIP Slurm tests: Slurm cannot be installed or started here (reason above)" ;;
        *) exit "$slurm_status" ;;
    esac
fi
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
make -s -C engine -j2
make -s -C engine test
cargo test --workspace --locked
