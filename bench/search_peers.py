#!/usr/bin/env python3
"""The peers' side of bench/search.sh: Optuna's TPE on the fixture spaces the Rust benchmark exported
(each a JSON of axes, every setting's true time and a budget of runs), with the same 1% noise, as users
run it on a noisy objective ("wrap and average": a trial is the mean of 3 runs, so budget / 3 trials).
Prints markdown rows: median regret of the trial TPE names best, how often it is the true best, runs
used and wall time per study. Usage: search_peers.py EXPORT_DIR [FRACTION...]"""
import glob
import json
import os
import statistics
import sys
import time
from collections import defaultdict

import numpy as np
import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)


def study_regret(fixture, seed, multivariate):
    levels, ordered, truth = fixture["levels"], fixture["ordered"], fixture["truth"]
    strides = [int(np.prod(levels[i + 1:])) for i in range(len(levels))]
    noise = np.random.default_rng(seed ^ 0x5EED)

    def setting(params):
        return sum(params[f"x{i}"] * strides[i] for i in range(len(levels)))

    def objective(trial):
        params = {}
        for i, (count, is_ordered) in enumerate(zip(levels, ordered)):
            name = f"x{i}"
            params[name] = (trial.suggest_int(name, 0, count - 1) if is_ordered
                            else trial.suggest_categorical(name, list(range(count))))
        mean_time = truth[setting(params)]
        return float(np.mean(mean_time * (1.0 + noise.normal(0.0, 0.01, 3))))

    sampler = optuna.samplers.TPESampler(seed=seed, multivariate=multivariate)
    study = optuna.create_study(sampler=sampler, direction="minimize")
    study.optimize(objective, n_trials=fixture["budget"] // 3)
    picked = truth[setting(study.best_trial.params)]
    return picked / min(truth) - 1.0


def main():
    folder, fractions = sys.argv[1], set(sys.argv[2:])
    rows = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        space, fraction, seed = os.path.basename(path)[:-5].split("-")
        if fractions and fraction not in fractions:
            continue
        with open(path) as file:
            fixture = json.load(file)
        for name, multivariate in (("Optuna TPE", False), ("Optuna TPE multivariate", True)):
            start = time.perf_counter()
            regret = study_regret(fixture, int(seed), multivariate)
            rows[(space, len(fixture["truth"]), fraction, name)].append((regret, time.perf_counter() - start))
    for (space, settings, fraction, name), results in sorted(rows.items()):
        # The upper median, as the Rust side takes it.
        regrets = sorted(regret for regret, _ in results)
        found = sum(regret == 0.0 for regret in regrets)
        wall = statistics.median(seconds for _, seconds in results) * 1e3
        print(f"| {space} | {settings} | {float(fraction) * 100:.0f}% | {name} (3 runs a trial) | "
              f"{regrets[len(regrets) // 2] * 100:.2f}% | {found}/{len(regrets)} | 1.00 | {wall:.0f} | |")


if __name__ == "__main__":
    main()
