#!/usr/bin/env bash
# Decisions benchmark (issues 7 and 19): `sweep run` on the decision FIXTURE engine (known truth, lognormal
# noise, and on request drift, stragglers, unequal noise, a control the setting moves, a step, a regression)
# many times with different seeds. Per scenario it prints right / wrong / cannot tell / overclaim per group
# and group kind, stragglers named, control use, interval honesty, racing's runs against a fixed budget, and
# what `sweep compare` says on A/A pairs and known regressions, each beside its target with MET / MISSED.
# The fixture's numbers are not measurements; the benchmark prints figures and asserts nothing. Results and
# the machine they ran on: docs/decisions.md.
# Usage: bench/decisions.sh [SCENARIO...]   (a..z, aa..ad, default all; DECISIONS_SWEEPS sweeps per scenario
#        and DECISIONS_TRIALS A/B pairs per compare scenario, unset each scenario's own: 40 and 50 for a..s,
#        100 from t on; DECISIONS_SEED=1000 the first seed, DECISIONS_KEEP=1 keeps the work folder)
# The code is harness/benches/decisions/, the fixture harness/examples/decision_fixture.rs, the
# declarations bench/decisions/.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo bench --bench decisions -- "$@"
