"""Peak memory of ``planner agree`` on a crowd: many items, many annotators, few ratings each.

    python benchmarks/sparse_memory.py                    # 100,000 items x 20,000 annotators
    python benchmarks/sparse_memory.py --items 10000 --annotators 2000

Writes a long CSV (item, annotator, label; ``--ratings`` random annotators per item, three
categories, 80 % agreement with a per-item truth), runs ``python -m planner agree FILE
--json`` from the current directory in a child process and prints its wall time and peak
resident memory (``resource.getrusage`` of the child, Linux kilobytes). The target of
Under 1 GB for 100,000 items x 20,000 annotators x 3 ratings (a dense items x
annotators matrix would need 8 GB of int32 codes).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_crowd(path: Path, n_items: int, n_annotators: int, per_item: int, seed: int) -> None:
    """A long label file: ``per_item`` distinct random annotators rate each item."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    # distinct annotators per item: a random offset plus distinct steps, modulo the crowd
    base = rng.integers(0, n_annotators, n_items)[:, None]
    annotators = (base + np.arange(per_item) * (n_annotators // per_item)) % n_annotators
    labels = np.where(
        rng.random((n_items, per_item)) < 0.8,
        truth[:, None],
        rng.integers(0, 3, (n_items, per_item)),
    )
    items = np.repeat(np.arange(n_items), per_item)
    with open(path, "w") as handle:
        handle.write("item,annotator,label\n")
        lines = (
            f"{i},r{a},{lab}\n"
            for i, a, lab in zip(
                items.tolist(), annotators.ravel().tolist(), labels.ravel().tolist(), strict=True
            )
        )
        handle.writelines(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--annotators", type=int, default=20_000)
    parser.add_argument("--ratings", type=int, default=3, help="ratings per item")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "crowd.csv"
        write_crowd(path, args.items, args.annotators, args.ratings, args.seed)
        size = path.stat().st_size
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "planner", "agree", str(path), "--json", "--seed", "1"],
            capture_output=True,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if done.returncode != 0:
        sys.exit(f"agree failed (exit {done.returncode}): {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    print(
        f"{args.items:,} items x {args.annotators:,} annotators, {args.ratings} ratings per "
        f"item ({size / 1e6:.1f} MB CSV): exit 0 in {elapsed:.1f} s, peak RSS {peak_mb:,.0f} MB"
    )
    print(
        f"  read {doc['n_items']:,} items, {doc['n_annotators']:,} annotators; Fleiss' kappa "
        f"{doc['coefficients']['fleiss_kappa']['estimate']:.4f}, Krippendorff's alpha "
        f"{doc['coefficients']['krippendorff_alpha']['estimate']:.4f}"
    )


if __name__ == "__main__":
    main()
