#!/bin/sh
# Bad input must exit 2 with a usage message on stderr, on every rank, without hanging.
# The multi-rank cases go through mpirun (which takes ~2 s to tear down a failed job); the
# rest run as an MPI singleton ("-n 0" below), which is instant and parses the same way.
set -u
ENGINE=${1:?usage: bad_input.sh path/to/tp-engine}
HERE=$(cd "$(dirname "$0")/.." && pwd)
ERR=$(mktemp)
trap 'rm -f "$ERR"' EXIT
failures=0

expect_usage_error() {
    ranks=$1
    shift
    if [ "$ranks" = 0 ]; then
        timeout 30 "$ENGINE" "$@" >/dev/null 2>"$ERR"
    else
        timeout 30 "$HERE/mpirun.sh" -n "$ranks" "$ENGINE" "$@" >/dev/null 2>"$ERR"
    fi
    code=$?
    where="-n $ranks"
    [ "$ranks" = 0 ] && where="singleton"
    if [ "$code" = 2 ] && grep -q '^usage: tp-engine' "$ERR"; then
        echo "ok   exit 2 with usage: $where $*"
    else
        echo "FAIL expected exit 2 and usage, got exit $code: $where $*" >&2
        cat "$ERR" >&2
        failures=$((failures + 1))
    fi
}

expect_usage_error 2 --bogus
expect_usage_error 2 --rows
expect_usage_error 2 --rows 0
expect_usage_error 2 --preset tiny --heads 3
expect_usage_error 0 --rows -5
expect_usage_error 0 --rows 12x
expect_usage_error 0 --preset huge
expect_usage_error 0 --pattern LXF
expect_usage_error 0 --rows=512
expect_usage_error 0 --allreduce-bench --bytes 8,,16
expect_usage_error 0 --prefill-reps 0
expect_usage_error 0 --link-alpha-us 1600
expect_usage_error 0 --link-gbps 1
expect_usage_error 0 --link-alpha-us 1600 --link-gbps 0
expect_usage_error 0 --link-alpha-us -1 --link-gbps 1
expect_usage_error 0 --link-alpha-us nan --link-gbps 1
TPE_OVERLAP_SLICES=two expect_usage_error 0 --preset tiny
# Shape products are checked before anything is allocated: an MPI count or an int width above
# INT_MAX (and any size_t overflow) is bad input, not a wrapped allocation.
expect_usage_error 0 --rows 16777216 --hidden 16777216
expect_usage_error 0 --heads 65536 --key-dim 16384 --value-dim 16384
expect_usage_error 2 --rows 65536 --hidden 65536
[ "$failures" = 0 ]
