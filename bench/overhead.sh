#!/usr/bin/env bash
# Harness overhead benchmark (prints figures; asserts nothing: this machine is noisy).
#  1. Trivial command: ms per run that `sweep run` adds over running the same command directly
#     (hyperfine -N), including the CSV row's fsync. Fixed costs (start, plan, summary) cancel by
#     differencing two sweep sizes: overhead = (T(2N) - T(N)) / N - direct. The same for CPU time
#     (user + sys of sweep and of every process it reaped, from wait4; direct: hyperfine's user +
#     system), which other work on the machine perturbs far less than wall time.
#  2. Reference engine: prefill tokens/s measured directly vs through `sweep`, interleaved one run
#     each in the same loop, so the harness's perturbation of the metric is compared under the same
#     machine conditions. Medians and their ratio.
# Usage: bench/overhead.sh [trivial-runs=200] [engine-pairs=10]
#   SWEEP=<binary> measures that sweep binary (an older build, for a before/after) instead of building
#   this tree's; engine-pairs=0 skips part 2.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
pairs="${2:-10}"
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
[ -n "${SWEEP:-}" ] || cargo build --release -q
make -s -C engine -j2
sweep="${SWEEP:-$PWD/target/release/sweep}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sweeps/engines"

# --- 1. trivial command -------------------------------------------------------------------------
cat > "$work/sweeps/engines/echo.toml" <<TOML
tree = "/"
program = "/bin/echo"
launcher = "local"
ranks = 1
timeout = "10s"
[result]
prefix = "r"
TOML
trivial_sweep() { # $1 = reps
    cat > "$work/sweeps/trivial.toml" <<TOML
name = "trivial"
[engine]
profile = "echo"
[reps]
count = $1
[run]
args = ["r", "v=1"]
[metrics]
result = ["v"]
[analysis]
primary = "v"
TOML
}
timed_sweep() { # $1 = reps -> "wall cpu": seconds for the whole `sweep run`, wall and user + sys
    trivial_sweep "$1"
    (cd "$work" && python3 - "$sweep" run sweeps/trivial.toml --no-build --out "$work/trivial-$1-$RANDOM$RANDOM.csv" <<'PY'
import os, subprocess, sys, time
start = time.perf_counter()
with open(os.devnull, "w") as null:
    pid = subprocess.Popen(sys.argv[1:], stdout=null, stderr=null).pid
    _, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_utime + usage.ru_stime)
sys.exit(status != 0)
PY
    ) || { echo "the trivial sweep failed" >&2; exit 1; }
}
direct=$(hyperfine -N --runs "$runs" --warmup 20 --export-json "$work/direct.json" '/bin/echo r v=1' >/dev/null 2>&1 &&
    python3 -c "import json,statistics;r=json.load(open('$work/direct.json'))['results'][0];print(statistics.median(r['times'])*1000, (r['user']+r['system'])*1000)")
timed_sweep 20 >/dev/null # warm the page cache
small=(); large=()
for _ in 1 2 3; do small+=("$(timed_sweep "$runs")"); large+=("$(timed_sweep $((2 * runs)))"); done
python3 - "$runs" $direct "${small[@]}" "${large[@]}" <<'PY'
import statistics, sys
runs, direct, direct_cpu = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
small, large = [x.split() for x in sys.argv[4:7]], [x.split() for x in sys.argv[7:10]]
def per_run(column):
    return (statistics.median(float(x[column]) for x in large) - statistics.median(float(x[column]) for x in small)) / runs * 1000
wall, cpu = per_run(0), per_run(1)
print(f"trivial command (/bin/echo), {runs} vs {2*runs} runs per sweep, 3 sweeps each:")
print(f"  direct (hyperfine -N, median)        {direct:7.3f} ms/run   cpu {direct_cpu:7.3f} ms/run (mean)")
print(f"  through sweep (marginal, median)     {wall:7.3f} ms/run   cpu {cpu:7.3f} ms/run")
print(f"  harness overhead                     {wall - direct:7.3f} ms/run   cpu {cpu - direct_cpu:7.3f} ms/run  (target < 1 ms, fsync included)")
PY
[ "$pairs" -gt 0 ] || exit 0

# --- 2. reference engine --------------------------------------------------------------------------
sed "s|tree = \"../../engine\"|tree = \"$PWD/engine\"|" sweeps/engines/reference.toml > "$work/sweeps/engines/reference.toml"
cat > "$work/sweeps/one.toml" <<TOML
name = "one"
[engine]
profile = "reference"
[reps]
count = 1
[run]
args = ["--preset", "tiny", "--rows", "1024", "--new", "8"]
[run.env]
TPE_OVERLAP_SLICES = "1"
[metrics]
result = ["prefill_tokens_per_s"]
[analysis]
primary = "prefill_tokens_per_s"
TOML
direct=(); through=()
for i in $(seq "$pairs"); do
    line=$(OPENBLAS_NUM_THREADS=1 TPE_OVERLAP_SLICES=1 engine/mpirun.sh -n 2 engine/build/tp-engine --preset tiny --rows 1024 --new 8 | grep '^tpe_result')
    direct+=("$(sed 's/.*prefill_tokens_per_s=\([^ ]*\).*/\1/' <<<"$line")")
    (cd "$work" && "$sweep" run sweeps/one.toml --no-build --out "$work/one-$i.csv" >/dev/null 2>&1)
    through+=("$(python3 -c "import csv;print(next(csv.DictReader(open('$work/one-$i.csv')))['metric.prefill_tokens_per_s'])")")
done
python3 - "${direct[@]}" "${through[@]}" <<'PY'
import statistics, sys
values = [float(x) for x in sys.argv[1:]]
half = len(values) // 2
direct, through = values[:half], values[half:]
md, mt = statistics.median(direct), statistics.median(through)
# Each pair ran back to back, so its ratio cancels the slow patches of machine both runs shared.
ratios = sorted(t / d for d, t in zip(direct, through))
q1, q3 = ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]
print(f"reference engine, tiny preset, 1024 rows, 2 ranks, {half} interleaved pairs:")
print(f"  direct        median {md:9.1f} prefill tok/s  (min {min(direct):.1f}, max {max(direct):.1f})")
print(f"  through sweep median {mt:9.1f} prefill tok/s  (min {min(through):.1f}, max {max(through):.1f})")
print(f"  ratio of medians through/direct {mt / md:.4f}; per-pair ratio median {statistics.median(ratios):.4f}, IQR {q1:.3f}..{q3:.3f}")
print("  (target: within 1%; read it against the pair-to-pair spread, which is this machine's noise)")
PY
