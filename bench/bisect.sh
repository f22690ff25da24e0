#!/usr/bin/env bash
# `sweep bisect` itself (the real binary: builds through the cache, runs through the session) on FIXTURE
# repositories with a known truth: 16 commits of harness/tests/fixtures/bisect/, whose engine prints 1.00,
# or 1.03 from a commit drawn at random on, times 1 + N(0, 1%). Prints one line a repository and the count
# named right; asserts nothing. Usage: bench/bisect.sh [REPOSITORIES]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p sweep
SWEEP="$PWD/target/debug/sweep" FIXTURE="$PWD/harness/tests/fixtures/bisect"
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
right=0; repositories="${1:-10}"
for seed in $(seq 1 "$repositories"); do
    dir="$WORK/$seed"; mkdir -p "$dir/engine" "$dir/sweeps/engines"; cp "$FIXTURE"/* "$dir/engine/"
    RANDOM=$seed; first=$(( RANDOM % 15 + 1 ))
    (
        cd "$dir/engine"; git init -q; git config user.name fixture; git config user.email fixture@example.com
        for commit in $(seq 0 15); do
            if [ "$commit" -ge "$first" ]; then echo 1.03; else echo 1.00; fi > value.txt
            echo "$commit" > history.txt; git add .; git commit -qm "fixture commit $commit"
        done
    )
    printf 'tree = "../../engine"\nbuild = ["sh", "build.sh", "{{build_dir}}"]\nprogram = "{{build_dir}}/fixture_engine.sh"\nlauncher = "local"\nranks = 1\ntimeout = "10s"\n[result]\nprefix = "fixture_result"\n' > "$dir/sweeps/engines/fixture.toml"
    printf 'name = "fixture_bisect"\n[engine]\nprofile = "fixture"\n[params]\nsize = [1]\n[metrics]\nresult = ["t"]\n[analysis]\nprimary = "t"\n' > "$dir/sweeps/fixture_bisect.toml"
    want=$(git -C "$dir/engine" rev-list --reverse HEAD | sed -n "$((first + 1))p")
    good=$(git -C "$dir/engine" rev-list --max-parents=0 HEAD)
    read -r got builds runs < <(cd "$dir" && "$SWEEP" bisect fixture_bisect --good "$good" --bad HEAD --json 2>/dev/null |
        python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["first_bad"]["sha"], r["builds"], r["runs"])')
    verdict=WRONG; if [ "$got" = "$want" ]; then verdict=right; right=$((right + 1)); fi
    echo "repository $seed: first bad commit $first named $verdict in $builds builds, $runs runs"
done
echo "named right: $right/$repositories"
