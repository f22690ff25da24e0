#!/usr/bin/env bash
# Runs every test: the reference engine's own tests (kernel, collectives, smoke, bad input), then
# the harness's unit, snapshot and integration tests (which drive the real sweep binary and engine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
make -s -C engine -j2
make -s -C engine test
cargo test --workspace --locked
