#!/usr/bin/env bash
# Runs every test: the style gate (rustfmt, clippy with warnings as errors), the reference engine's own
# tests (kernel, collectives, smoke, bad input), then the harness's unit, snapshot and integration tests
# (which drive the real sweep binary and engine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
make -s -C engine -j2
make -s -C engine test
cargo test --workspace --locked
