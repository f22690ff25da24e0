#!/bin/sh
# Direct baseline, no harness: forced slice counts {1,2,4,8} x prompt rows {512,1024,2048},
# repetitions interleaved (rep 1 of every setting, then rep 2, ...) so a slow patch of the
# machine lands on every setting. Prints each run, then a table of medians.
#   usage: engine/bench.sh [preset] [ranks] [reps]     (default: small 2 3)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
PRESET=${1:-small}
RANKS=${2:-2}
REPS=${3:-3}
NEW=8
ENGINE=$HERE/build/tp-engine
[ -x "$ENGINE" ] || make -s -C "$HERE" -j2
RAW=$(mktemp)
trap 'rm -f "$RAW"' EXIT

field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }

echo "# preset=$PRESET ranks=$RANKS reps=$REPS new=$NEW"
echo "# rep rows slices used prefill_tps decode_tps"
for rep in $(seq 1 "$REPS"); do
    for rows in 512 1024 2048; do
        for slices in 1 2 4 8; do
            line=$(TPE_OVERLAP_SLICES=$slices "$HERE/mpirun.sh" -n "$RANKS" "$ENGINE" --preset "$PRESET" \
                --rows "$rows" --new "$NEW" | grep '^tpe_result ')
            row="$rep $rows $slices $(field "$line" overlap_slices) $(field "$line" prefill_tokens_per_s) $(field "$line" decode_tokens_per_s)"
            echo "$row"
            echo "$row" >>"$RAW"
        done
    done
done

echo
echo "median of $REPS reps (used = slice count after the fallback gate)"
printf '%6s %6s %4s %12s %12s\n' rows slices used prefill_tps decode_tps
sort -k2,2n -k3,3n -k1,1n "$RAW" | awk '
    function median(list,   n, v, i, j, t) {
        n = split(list, v, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function flush() { if (key != "") printf "%6s %6s %4s %12.1f %12.2f\n", r, s, u, median(p), median(d) }
    { k = $2 " " $3
      if (k != key) { flush(); key = k; r = $2; s = $3; p = ""; d = "" }
      u = $4; p = p " " $5; d = d " " $6 }
    END { flush() }'
