#!/usr/bin/env bash
# Decisions benchmark (issue 7): `sweep run` on the decision FIXTURE engine (known truth, 1% lognormal
# noise, optional shared drift) many times with different seeds; prints right / wrong / wash-where-clear /
# clear-where-wash group counts, engine runs per sweep, racing's savings against fixed 5 reps, and the A/A
# false-alarm rate of `sweep compare`, each beside the issue's target. The fixture's numbers are not
# measurements; the benchmark prints figures and asserts nothing.
# Usage: bench/decisions.sh [SCENARIO...]   (a..g, default all; DECISIONS_SWEEPS=20 sweeps per scenario)
# The code is harness/benches/decisions/, the fixture harness/examples/decision_fixture.rs, the
# declarations bench/decisions/.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo bench --bench decisions -- "$@"
