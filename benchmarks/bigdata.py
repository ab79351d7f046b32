"""``agree`` on label files larger than memory: DuckDB's count step beside pandas.

    python benchmarks/bigdata.py                      # 10^8 ratings (about 2 GB of temp space)
    python benchmarks/bigdata.py --rows 10000000      # smaller: both engines on 10^7 ratings

Writes, in a temporary folder, a long Parquet file of ``--rows`` ratings (items x 10
annotators, binary labels, 10 % of the ratings missing as null labels) and a second file of
``--small-rows`` ratings; then runs the whole ``agree`` command in a child process and reports
its wall time and peak resident memory (``ru_maxrss`` of the child, measured by a wrapper
process that runs only that child):

1. ``--engine duckdb --memory-limit 1GB`` on the big file (the targets: under 120 s, under
   1.5 GB);
2. ``--engine pandas`` and ``--engine duckdb`` on the small file, and whether the two JSON
   documents give the same coefficients, summary and diagnostics (to 1e-12).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ANNOTATORS = 10
WRAPPER = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
    "sys.exit(r.returncode)"
)


def write_parquet(path: Path, rows: int, seed: int = 0) -> None:
    """``rows`` long ratings (item, annotator, label), written in row groups of 10^7."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    items = rows // ANNOTATORS
    names = pa.array([f"annotator_{j}" for j in range(ANNOTATORS)])
    per_chunk = 1_000_000
    schema = pa.schema(
        [("item", pa.int64()), ("annotator", pa.dictionary(pa.int8(), pa.string())),
         ("label", pa.int8())]
    )  # fmt: skip
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, items, per_chunk):
            n = min(per_chunk, items - start)
            truth = rng.random(n) < 0.1
            flip = rng.random((n, ANNOTATORS)) < 0.15
            label = (truth[:, None] ^ flip).astype(np.int8).ravel()
            missing = rng.random(label.size) < 0.1
            item = np.repeat(np.arange(start, start + n, dtype=np.int64), ANNOTATORS)
            codes = np.tile(np.arange(ANNOTATORS, dtype=np.int8), n)
            table = pa.table(
                {
                    "item": item,
                    "annotator": pa.DictionaryArray.from_arrays(codes, names),
                    "label": pa.array(label, mask=missing),
                },
                schema=schema,
            )
            writer.write_table(table)


def run_agree(path: Path, *options: str) -> tuple[float, float, dict[str, Any] | None, str]:
    """Wall seconds, peak RSS in MB, the JSON document and stderr of one ``agree`` run."""
    command = [sys.executable, "-m", "planner", "agree", str(path), "--json", "--seed", "1"]
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *command, *options], capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    lines = done.stderr.strip().splitlines()
    peak = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
    doc = json.loads(done.stdout) if done.returncode == 0 else None
    return wall, peak, doc, "\n".join(lines[:-1])


def same_numbers(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_numbers(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_numbers(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return bool(a == b)


def report(label: str, wall: float, peak: float, doc: dict[str, Any] | None, err: str) -> None:
    if doc is None:
        print(f"{label}: failed: {err.splitlines()[-1] if err else '?'}")
        return
    alpha = doc["coefficients"]["krippendorff_alpha"]["estimate"]
    print(f"{label}: {wall:6.1f} s, peak RSS {peak:7.0f} MB, {doc['n_items']:,} items, "
          f"alpha {alpha:.6f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000, help="ratings of the big file")
    parser.add_argument("--small-rows", type=int, default=10_000_000, help="ratings, both engines")
    parser.add_argument("--memory-limit", default="1GB")
    parser.add_argument("--folder", default=None, help="where to write the files (default: temp)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        folder = Path(tmp)
        big, small = folder / "big.parquet", folder / "small.parquet"
        for path, rows in ((big, args.rows), (small, args.small_rows)):
            start = time.perf_counter()
            write_parquet(path, rows)
            size = path.stat().st_size / 2**20
            print(f"wrote {rows:,} ratings to {path.name} ({size:,.0f} MB) in "
                  f"{time.perf_counter() - start:.1f} s")  # fmt: skip
        spill = folder / "spill"
        spill.mkdir()
        duck = ("--engine", "duckdb", "--memory-limit", args.memory_limit, "--temp-dir", str(spill))
        report(f"duckdb {args.rows:.0e} ratings", *run_agree(big, *duck))
        in_memory = run_agree(small, "--engine", "pandas")
        counted = run_agree(small, *duck)
        report(f"pandas {args.small_rows:.0e} ratings", *in_memory)
        report(f"duckdb {args.small_rows:.0e} ratings", *counted)
        a, b = in_memory[2], counted[2]
        if a is not None and b is not None:
            keys = ("coefficients", "summary", "diagnostics", "decision")
            same = all(same_numbers(a[k], b[k]) for k in keys)
            print(f"same numbers on both engines (1e-12): {same}")


if __name__ == "__main__":
    main()
