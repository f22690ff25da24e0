#!/bin/sh
# End-to-end: a 2-rank tiny run must print a parseable result line and, with the phase
# profile on, one complete block per rank and boundary whose prefill STACK matches
# prefill_seconds. Also: two slice settings that resolve to the same path agree exactly,
# and a 1-rank run computes the same model as a 2-rank run. Repeated prefills and the emulated link
# change timings, never values; the link is named in the result line and priced as modelled.
set -eu
ENGINE=${1:?usage: smoke.sh path/to/tp-engine}
HERE=$(cd "$(dirname "$0")/.." && pwd)
RUN="timeout 60 $HERE/mpirun.sh"
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
fail() { echo "FAIL smoke: $*" >&2; cat "$OUT" >&2; exit 1; }

TPE_PHASE_PROFILE=1 $RUN -n 2 "$ENGINE" --preset tiny --rows 512 --new 8 >"$OUT" || fail "engine exited $?"

result=$(grep '^tpe_result ' "$OUT") || fail "no result line"
[ "$(grep -c '^tpe_result ' "$OUT")" = 1 ] || fail "more than one result line"
for key in ranks rows new overlap_slices prefill_seconds prefill_tokens_per_s decode_seconds \
           decode_tokens_per_s decode_token_count checksum wall; do
    echo "$result" | grep -Eq " $key=-?[0-9][0-9.e+-]*( |\$)" || fail "result has no numeric $key="
done
echo "$result" | grep -q ' ranks=2 rows=512 new=8 ' || fail "result does not echo the run shape"
echo "$result" | grep -Eq ' link=off$' || fail "a run without link flags does not say link=off"

for tag in prefill decode; do
    for rank in 0 1; do
        for phase in gated_delta full_attention projections tp_all_reduce norm STACK TOTAL; do
            grep -Eq "^tpe_phase tag=$tag rank=$rank phase=$phase seconds=[0-9.]+" "$OUT" ||
                fail "no $phase line for tag=$tag rank=$rank"
        done
    done
done

prefill=$(echo "$result" | sed 's/.*prefill_seconds=\([^ ]*\).*/\1/')
stack=$(sed -n 's/^tpe_phase tag=prefill rank=0 phase=STACK seconds=\([^ ]*\).*/\1/p' "$OUT")
awk -v p="$prefill" -v s="$stack" 'BEGIN { d = (p - s) / p; exit !(d < 0.05 && d > -0.05) }' ||
    fail "prefill STACK $stack is not within 5% of prefill_seconds $prefill"
echo "ok   2-rank tiny run: result line and profile blocks (STACK $stack s, prefill $prefill s)"

checksum() { sed -n 's/^tpe_result .* checksum=\([^ ]*\).*/\1/p' "$OUT"; }
slices_used() { sed -n 's/^tpe_result .* overlap_slices=\([^ ]*\).*/\1/p' "$OUT"; }
TPE_OVERLAP_SLICES=1 $RUN -n 2 "$ENGINE" --preset tiny --rows 512 --new 4 >"$OUT" || fail "serial run"
serial=$(checksum)
TPE_OVERLAP_SLICES=8 $RUN -n 2 "$ENGINE" --preset tiny --rows 512 --new 4 >"$OUT" || fail "8-slice run"
[ "$(slices_used)" = 1 ] || fail "8 slices of 64 rows were not refused by the gate"
[ "$(checksum)" = "$serial" ] || fail "gated 8-slice run differs from serial: $(checksum) vs $serial"
TPE_OVERLAP_SLICES=4 $RUN -n 2 "$ENGINE" --preset tiny --rows 512 --new 4 >"$OUT" || fail "4-slice run"
[ "$(slices_used)" = 4 ] || fail "4 slices of 128 rows did not take the overlap path"
echo "ok   slices=8 at 512 rows falls back to serial and matches it bit for bit; slices=4 overlaps"

$RUN -n 1 "$ENGINE" --preset tiny --rows 512 --new 4 >"$OUT" || fail "1-rank run"
single=$(checksum)
awk -v a="$single" -v b="$serial" 'BEGIN { d = (a - b) / (b == 0 ? 1 : b); exit !(d < 1e-3 && d > -1e-3) }' ||
    fail "1-rank checksum $single differs from 2-rank $serial"
echo "ok   1-rank and 2-rank runs compute the same model ($single vs $serial)"

field() { sed -n "s/^tpe_result .* $1=\([^ ]*\).*/\1/p" "$OUT"; }
TPE_OVERLAP_SLICES=1 $RUN -n 2 "$ENGINE" --preset tiny --rows 512 --new 4 --prefill-reps 3 >"$OUT" || fail "3 prefills"
[ "$(field prefill_reps)" = 3 ] || fail "prefill_reps=3 not echoed"
[ "$(checksum)" = "$serial" ] || fail "3 repeated prefills differ from one: $(checksum) vs $serial (state not reset)"
echo "ok   --prefill-reps 3 (warm + 3 timed, median) computes what one prefill does"

# The emulated link: 9 serial all-reduces of 512 x 256 floats (512 KiB) at 1600 us + 512 KiB / 0.33 GB/s
# = 3.19 ms each, so the prefill takes at least 28.7 ms; values are unchanged.
TPE_OVERLAP_SLICES=1 $RUN -n 2 "$ENGINE" --preset tiny --rows 512 --new 4 --link-alpha-us 1600 --link-gbps 0.33 \
    >"$OUT" || fail "linked run"
result=$(grep '^tpe_result ' "$OUT")
echo "$result" | grep -Eq ' link=emulated link_alpha_us=1600 link_gbps=0.33$' || fail "result does not name the emulated link"
[ "$(checksum)" = "$serial" ] || fail "the emulated link changed the result: $(checksum) vs $serial"
awk -v p="$(field prefill_seconds)" 'BEGIN { exit !(p >= 9 * (1600e-6 + 524288 / 0.33e9)) }' ||
    fail "prefill $(field prefill_seconds) s is shorter than 9 emulated all-reduces"
echo "ok   --link-alpha-us 1600 --link-gbps 0.33: named in the result, >= 9 x 3.19 ms of link ($(field prefill_seconds) s)"

$RUN -n 2 "$ENGINE" --allreduce-bench --bytes 1000000 --link-alpha-us 500 --link-gbps 1 >"$OUT" || fail "linked bench"
us=$(sed -n 's/^tpe_allreduce bytes=1000000 calls=[0-9]* us_per_call=\([^ ]*\) min_us_per_call=.* link=emulated .*/\1/p' "$OUT")
# Only from below: a busy machine can end the link's sleeps late, never early.
awk -v us="$us" 'BEGIN { exit !(us >= 1500) }' || fail "1 MB over a 500 us, 1 GB/s link took '$us' us per call, under the model's 1500"
echo "ok   the all-reduce probe pays the link: 1 MB at 500 us + 1 GB/s = $us us per call (model 1500, at least)"
