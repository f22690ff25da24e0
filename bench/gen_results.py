#!/usr/bin/env python3
"""Writes a synthetic sweep result CSV and its sidecar, laid out as `sweep run` writes them, for
bench/report_speed.sh. A generated fixture, not a measurement: 20 settings (rows x slices), 3 metrics,
interleaved rounds, about 0.1% failed runs.
Usage: gen_results.py OUT.csv ROWS SEED [SPEED]"""
import csv
import json
import random
import sys
from pathlib import Path

ROWS = [512, 1024, 2048, 4096, 8192]
SLICES = [1, 2, 4, 8]
METRICS = ["prefill_tokens_per_s", "decode_tokens_per_s", "wall_s"]


def header():
    return (
        ["param.rows", "param.slices", "variant", "rep", "warmup", "order", "status", "error", "started_at", "duration_s"]
        + [f"metric.{m}" for m in METRICS]
        + ["host", "engine_commit", "engine_dirty", "variant_hash", "slurm_job_id", "slurm_array_task_id", "log_dir"]
    )


def sidecar(reps):
    params = [
        {"name": "rows", "values": ROWS, "is_list": True},
        {"name": "slices", "values": SLICES, "is_list": True},
    ]
    return {
        "schema_version": 1,
        "sweep": {
            "analysis": {"primary": "prefill_tokens_per_s", "group_by": ["rows"], "control": "decode_tokens_per_s"},
            "reps": {"order": "interleaved"},
        },
        "declaration_file": "bench.toml",
        "engine": {},
        "command_line": ["sweep", "run", "bench.toml"],
        "seed": 1,
        "reps": reps,
        "settings": [f"rows={r} slices={s}" for r in ROWS for s in SLICES],
        "params": params,
        "base_environment": "inherited",
        "provenance": {"host": "bench", "engine_commit": "0" * 40, "engine_dirty": False, "toolchain": {}},
        "sweep_version": "bench",
    }


def main():
    out, total, seed = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    speed = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    rng = random.Random(seed)
    settings = [(r, s) for r in ROWS for s in SLICES]
    with out.open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header())
        order = 0
        logs = "results/bench/20261130T000000Z/runs"
        while order < total:
            rep = order // len(settings) + 1
            drift = 1.0 + 0.05 * rng.random()
            for rows, slices in rng.sample(settings, len(settings)):
                if order >= total:
                    break
                order += 1
                base = speed * 1000.0 * rows / (rows + 300.0 * slices ** 0.5)
                if rng.random() < 0.001:
                    status, error, metrics = "failed", f"rank 1 exited with code 3; logs in runs/{order}", ["", "", ""]
                else:
                    prefill = base * drift * rng.gauss(1.0, 0.02)
                    decode = 40.0 * drift * rng.gauss(1.0, 0.01)
                    status, error = "ok", ""
                    metrics = [f"{prefill:.4f}", f"{decode:.4f}", f"{rows / prefill:.6f}"]
                writer.writerow(
                    [rows, slices, "default", rep, "false", order, status, error, "2026-11-30T00:00:00Z", "1.5"]
                    + metrics
                    + ["bench-host.cluster.local", "0" * 40, "false", "a1b2c3d4" * 8, "", "", f"{logs}/{order:07d}"]
                )
    out.with_suffix(".json").write_text(json.dumps(sidecar(-(-total // 20)), indent=1))


if __name__ == "__main__":
    main()
