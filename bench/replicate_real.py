#!/usr/bin/env python3
"""Replicates a real sweep's result CSV (every column as the engine and harness wrote them) to ROWS rows:
each copy of the rows gets reps after the previous copy's, so (setting, rep, attempt) stays unique, and
the sidecar is copied with the rep count raised to match. The values repeat; the analysis' cost does not
depend on them.

Usage: bench/replicate_real.py SOURCE.csv OUT.csv ROWS
"""
import csv
import json
import sys
from pathlib import Path

source, out, rows = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
with source.open(newline="") as f:
    reader = csv.reader(f)
    header = next(reader)
    original = list(reader)
rep_at = header.index("rep")
order_at = header.index("order")
reps = max(int(row[rep_at]) for row in original)
copies = -(-rows // len(original))
with out.open("w", newline="") as f:
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(header)
    written = 0
    for copy in range(copies):
        for row in original:
            if written == rows:
                break
            row = list(row)
            row[rep_at] = str(int(row[rep_at]) + copy * reps)
            row[order_at] = str(written + 1)
            writer.writerow(row)
            written += 1
sidecar = json.loads(source.with_suffix(".json").read_text())
sidecar["reps"] = reps * copies
sidecar["sweep"]["reps"]["count"] = reps * copies
out.with_suffix(".json").write_text(json.dumps(sidecar, indent=1))
print(f"{written} rows from {len(original)} of {source} ({copies} copies)")
