#!/usr/bin/env bash
# Variant builds of `sweep ablate gated_delta` (copy isolation): serial (--jobs 1) vs parallel
# (--jobs 2) wall time of the build phase, each from an empty cache, then a rerun on the warm cache.
# Note: each build is `make -j2`, so on a 2-core machine even --jobs 1 keeps both cores busy for
# most of a build; the ratio measures what running variants side by side adds on top.
# Compiler invocations are counted by an `mpicxx` wrapper first on PATH, so "0 on a rerun" is
# counted, not inferred. Prints figures; asserts nothing.
# Usage: bench/ablate_builds.sh [rounds=2]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-2}"
cargo build --release -q
sweep="$PWD/target/release/sweep"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
real_mpicxx="$(command -v mpicxx)"
# Counts compiler invocations, not the `mpicxx --version` probes that record the toolchain.
cat > "$work/bin/mpicxx" <<SH
#!/bin/sh
[ "\$1" = --version ] || echo x >> "$work/compiles"
exec "$real_mpicxx" "\$@"
SH
chmod +x "$work/bin/mpicxx"
export PATH="$work/bin:$PATH"

ablate() { # $1 = jobs, $2 = results dir -> "<build seconds> <compiler invocations>"
    : > "$work/compiles"
    "$sweep" ablate gated_delta --reps 1 --jobs "$1" --results-dir "$2" 2> "$work/stderr" > /dev/null || true
    local seconds
    seconds=$(sed -n 's/^variant builds: \([0-9.]*\)s wall.*/\1/p' "$work/stderr")
    echo "$seconds $(wc -l < "$work/compiles")"
}
serial=(); parallel=()
for round in $(seq "$rounds"); do
    read -r s _ < <(ablate 1 "$work/serial-$round")
    read -r p _ < <(ablate 2 "$work/parallel-$round")
    serial+=("$s"); parallel+=("$p")
done
read -r warm compiles < <(ablate 2 "$work/parallel-1")
cached=$(grep -c '^cached ' "$work/stderr" || true)
python3 - "$rounds" "$warm" "$compiles" "$cached" "${serial[@]}" "${parallel[@]}" <<'PY'
import statistics, sys
rounds = int(sys.argv[1]); warm, compiles, cached = float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
values = [float(x) for x in sys.argv[5:]]
serial, parallel = values[:rounds], values[rounds:]
ms, mp = statistics.median(serial), statistics.median(parallel)
print(f"4 variant builds of the gated_delta ablation (copy isolation, empty cache), {rounds} rounds interleaved:")
print(f"  serial   --jobs 1  median {ms:6.2f} s  ({', '.join(f'{x:.2f}' for x in serial)})")
print(f"  parallel --jobs 2  median {mp:6.2f} s  ({', '.join(f'{x:.2f}' for x in parallel)})")
print(f"  speed-up serial/parallel {ms / mp:.2f}x")
print(f"rerun on the warm cache: build phase {warm:.2f} s, compiler invocations {compiles}, variants reported cached {cached}")
PY
