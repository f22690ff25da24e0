#!/usr/bin/env bash
# Fuzzes the readers of untrusted input for a fixed time each: the CSV reader (a result CSV beside its
# sidecar), the sidecar reader and the declaration parser, on mutations of valid inputs (byte edits, and
# node edits of their JSON or TOML) drawn from a random seed that each line names, so a failure reproduces.
# Prints per reader the cases tried and how many were refused, accepted, accepted inconsistently (what was
# read is not what the file says, or does not hold together) and panicked; fails if any input panicked or
# was accepted inconsistently, showing the first few. CI runs the same campaigns for a fixed number of
# cases (`cargo test -p sweep --lib fuzz_tests`).
# Usage: bench/fuzz.sh [seconds-per-reader=60]   (or SWEEP_FUZZ_SECONDS)
#        PROFILE=release bench/fuzz.sh           more cases a second, after a longer build
set -euo pipefail
cd "$(dirname "$0")/.."
export SWEEP_FUZZ_SECONDS="${1:-${SWEEP_FUZZ_SECONDS:-60}}"
cargo test -q -p sweep --lib --profile "${PROFILE:-dev}" -- --ignored --exact --nocapture --test-threads=1 \
    record::fuzz_tests::csv_reader_for_a_time \
    record::fuzz_tests::sidecar_reader_for_a_time \
    declare::fuzz_tests::declaration_parser_for_a_time
