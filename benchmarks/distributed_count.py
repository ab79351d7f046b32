"""The count step at 10^8 ratings: DuckDB beside Spark in local mode (and Dask, briefly).

    nice -n 10 python benchmarks/distributed_count.py                # 10^8 ratings, 3 runs each
    python benchmarks/distributed_count.py --rows 10000000 --runs 1  # smaller
    python benchmarks/distributed_count.py --dask --rows 10000000    # Dask's LocalCluster too

Writes once, in ``--folder`` (default /tmp/planner-distributed), a long Parquet file of
``--rows`` ratings (the generator of benchmarks/bigdata.py: items x 10 annotators, binary
labels, 10 % missing), then counts it into weighted Ratings in a child process per run:

1. ``duckdb``: :func:`planner.data.engine_duckdb.count_labels` (memory limit 2GB);
2. ``spark``: :func:`planner.data.engine_spark.count_labels` on ``local[2]`` (driver memory
   2g), the session's start timed apart from the count;
3. with ``--dask``: the same count (per-item key, then counts of keys) in dask.dataframe on
   a ``distributed.LocalCluster`` of 2 workers -- the evidence for choosing Spark.

Reported per engine: the median wall time of the count (and of Spark's start), the median
peak resident memory of the whole process tree (the JVM or the Dask workers included,
sampled from /proc every 0.1 s), and whether every engine found the same distinct vectors
with the same counts. The machine may be shared: medians of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bigdata import write_parquet  # noqa: E402

#: a digest of the multiplicities of the distinct vectors, the same on every engine
DIGEST = (
    "def digest(counts): return __import__('hashlib').sha256(repr(counts).encode()).hexdigest()"
)
CHILD = {
    "duckdb": """
import json, sys, time
from planner.data.engine_duckdb import count_labels
t = time.perf_counter()
r = count_labels(sys.argv[1])
print(json.dumps({"count": time.perf_counter() - t, "patterns": r.n_rows,
                  "items": int(r.weights.sum()), "digest": digest(sorted(r.weights.tolist()))}))
""",
    "spark": """
import json, sys, time
from planner.data.engine_spark import count_labels, session
t = time.perf_counter()
session("local[2]")
start = time.perf_counter() - t
t = time.perf_counter()
r = count_labels(sys.argv[1])
print(json.dumps({"start": start, "count": time.perf_counter() - t, "patterns": r.n_rows,
                  "items": int(r.weights.sum()), "digest": digest(sorted(r.weights.tolist()))}))
""",
    "dask": """
import json, sys, time
import numpy as np
import dask.dataframe as dd
from distributed import Client, LocalCluster
t = time.perf_counter()
client = Client(LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="2GB",
                             dashboard_address=None))
start = time.perf_counter() - t
t = time.perf_counter()
frame = dd.read_parquet(sys.argv[1])
frame = frame[frame["label"].notnull()]
ann = frame["annotator"].astype(str).str.slice(10).astype("int64")
frame = frame.assign(key=(frame["label"].astype("int64") + 1) * (3 ** ann))
keys = frame.groupby("item")["key"].sum()
counts = keys.value_counts().compute()
print(json.dumps({"start": start, "count": time.perf_counter() - t, "patterns": len(counts),
                  "items": int(counts.sum()),
                  "digest": digest(sorted(counts.tolist()))}))
client.close()
""",
}


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants (from /proc)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(next(x for x in status.splitlines() if x.startswith("VmRSS:")).split()[1])
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, StopIteration, ValueError):
            continue
    return total * 1024


def run_once(engine: str, path: Path) -> dict[str, Any]:
    """One count in a child process: its figures, wall time and peak tree memory."""
    t = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", DIGEST + "\n" + CHILD[engine], str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    peak = 0
    while child.poll() is None:
        peak = max(peak, tree_rss(child.pid))
        time.sleep(0.1)
    out = child.stdout.read() if child.stdout else ""
    if child.returncode != 0:
        raise SystemExit(f"{engine} failed (exit {child.returncode})")
    # the figures are the last JSON object written (after DuckDB's progress bar, if any)
    figures = json.loads(out[out.rindex("{") :].splitlines()[0])
    return {**figures, "wall": time.perf_counter() - t, "peak": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--folder", default="/tmp/planner-distributed")
    parser.add_argument("--engines", default="duckdb,spark")
    parser.add_argument("--dask", action="store_true", help="also Dask's LocalCluster")
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"ratings-{args.rows}.parquet"
    if not path.exists():
        t = time.perf_counter()
        write_parquet(path, args.rows)
        print(f"wrote {path} ({path.stat().st_size / 2**20:,.0f} MB) in "
              f"{time.perf_counter() - t:.0f} s")  # fmt: skip
    engines = args.engines.split(",") + (["dask"] if args.dask else [])
    digests = {}
    print(f"{args.rows:,} ratings, medians of {args.runs} run(s)")
    print(f"{'engine':8} {'count s':>8} {'start s':>8} {'peak GB':>8} {'patterns':>9} "
          f"{'items':>11}")  # fmt: skip
    for engine in engines:
        runs = []
        for k in range(args.runs):
            runs.append(run_once(engine, path))
            print(f"  {engine} run {k + 1}: count {runs[-1]['count']:.1f} s, start "
                  f"{runs[-1].get('start', 0.0):.1f} s, peak {runs[-1]['peak'] / 2**30:.2f} GB",
                  flush=True)  # fmt: skip
        med = {k: statistics.median(r[k] for r in runs) for k in ("count", "peak")}
        start = statistics.median(r.get("start", 0.0) for r in runs)
        digests[engine] = runs[0]["digest"]
        print(f"{engine:8} {med['count']:8.1f} {start:8.1f} {med['peak'] / 2**30:8.2f} "
              f"{runs[0]['patterns']:9,} {runs[0]['items']:11,}   "
              f"(counts: {', '.join(format(r['count'], '.1f') for r in runs)})",
              flush=True)  # fmt: skip
    print(
        "same multiplicities of the distinct vectors on every engine:",
        len(set(digests.values())) == 1,
    )


if __name__ == "__main__":
    main()
