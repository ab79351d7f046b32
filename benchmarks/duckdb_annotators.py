"""pandas and DuckDB on files with many annotators: time and peak memory, in the same run.

    python benchmarks/duckdb_annotators.py                   # the audit's files (about 4 min)
    python benchmarks/duckdb_annotators.py --quick           # small versions, seconds
    python benchmarks/duckdb_annotators.py --memory-limit 500MB --columns 300

Writes the files of the reliability audit's DuckDB findings into a temporary folder --
wide CSVs of 200 items with 300, 2,000 and 4,000 annotator columns (binary labels, 80 %
agreement with a per-item truth) and a long crowd CSV of 100,000 items rated three times
each by a crowd of 20,000 annotators (benchmarks/sparse_memory.py's file) -- and runs
``python -m planner agree FILE --engine E --memory-limit LIMIT --json --seed 1`` for E =
pandas and duckdb, each in its own child process. Prints per file and engine the wall time,
the child's peak resident memory (``os.wait4``'s ``ru_maxrss``, Linux kilobytes) and the
exit code, then the DuckDB / pandas ratios, and checks that both engines' Fleiss kappa and
Krippendorff alpha agree to 1e-12. Times on a shared machine vary by a factor of two or
more; the memory figures are stable.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from sparse_memory import write_crowd  # noqa: E402


@dataclass(frozen=True)
class Run:
    """One child process: wall seconds, peak RSS in MB, exit code, the JSON document."""

    seconds: float
    peak_mb: float
    code: int
    doc: dict | None
    error: str


def write_wide(path: Path, n_items: int, n_columns: int, seed: int) -> None:
    """A wide label file: an item column, then ``n_columns`` annotators' binary labels."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_items)
    agree = rng.random((n_items, n_columns)) < 0.8
    labels = np.where(agree, truth[:, None], rng.integers(0, 2, (n_items, n_columns)))
    with open(path, "w") as handle:
        handle.write("item," + ",".join(f"a{j}" for j in range(n_columns)) + "\n")
        handle.writelines(f"{i}," + ",".join(map(str, row)) + "\n" for i, row in enumerate(labels))


def agree(path: Path, engine: str, memory_limit: str) -> Run:
    """``planner agree`` on ``path`` in a child process, with that child's own peak memory."""
    command = [sys.executable, "-m", "planner", "agree", str(path), "--engine", engine]
    command += ["--memory-limit", memory_limit, "--json", "--seed", "1"]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)  # this child's rusage, not all children's
        seconds = time.perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        doc = json.loads(out.read()) if code == 0 else None
        last = (err.read().strip().splitlines() or [""])[-1]
    return Run(seconds, usage.ru_maxrss / 1024, code, doc, last)


def files(folder: Path, quick: bool, columns: list[int]) -> list[tuple[str, Path]]:
    """The audit's files (``quick``: a tenth of each), written into ``folder``."""
    made = []
    for n in columns:
        n = max(3, n // 10) if quick else n
        path = folder / f"wide{n}.csv"
        write_wide(path, 200, n, seed=n)
        made.append((f"wide, 200 items x {n:,} annotator columns", path))
    items, crowd = (10_000, 2_000) if quick else (100_000, 20_000)
    path = folder / "crowd.csv"
    write_crowd(path, items, crowd, 3, 0)
    made.append((f"long, {items:,} items x {crowd:,} annotators, 3 ratings each", path))
    return made


def shown(run: Run) -> str:
    if run.code != 0:
        return f"exit {run.code} after {run.seconds:6.1f} s, {run.peak_mb:7,.0f} MB: {run.error}"
    return f"{run.seconds:6.1f} s, peak {run.peak_mb:7,.0f} MB"


def same_numbers(a: Run, b: Run) -> str:
    """Whether both engines give Fleiss' kappa and Krippendorff's alpha equal to 1e-12."""
    if a.doc is None or b.doc is None:
        return "not compared"
    names = ("fleiss_kappa", "krippendorff_alpha")
    pairs = [
        (a.doc["coefficients"][c]["estimate"], b.doc["coefficients"][c]["estimate"]) for c in names
    ]
    return "same numbers" if all(abs(x - y) <= 1e-12 for x, y in pairs) else f"DIFFER {pairs}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of each file")
    parser.add_argument("--memory-limit", default="1GB", help="DuckDB's limit (default 1GB)")
    parser.add_argument(
        "--columns", default="300,2000,4000", help="annotator columns of the wide files"
    )
    args = parser.parse_args()
    columns = [int(c) for c in args.columns.split(",")]
    print(f"planner agree --memory-limit {args.memory_limit}, each run in its own process")
    with tempfile.TemporaryDirectory() as folder:
        for what, path in files(Path(folder), args.quick, columns):
            runs = {e: agree(path, e, args.memory_limit) for e in ("pandas", "duckdb")}
            pandas, duck = runs["pandas"], runs["duckdb"]
            print(f"{what} ({path.stat().st_size / 1e6:.1f} MB)")
            print(f"  pandas  {shown(pandas)}")
            print(f"  duckdb  {shown(duck)}")
            print(
                f"  duckdb / pandas: time {duck.seconds / pandas.seconds:.2f}, memory "
                f"{duck.peak_mb / pandas.peak_mb:.2f}; {same_numbers(pandas, duck)}"
            )


if __name__ == "__main__":
    main()
