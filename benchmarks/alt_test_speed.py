"""``alt-test`` speed: the test on 10,000 items x 5 humans x 3 LLMs under 2 s, a
``--plan`` search under 5 s.

    python benchmarks/alt_test_speed.py
    python benchmarks/alt_test_speed.py --items 100000 --runs 1

Prints

1. the median time of :func:`planner.measuring.alt_test.alt_test` on ``Ratings`` of ``--items``
   items, 5 humans and 3 LLMs into 4 categories (every annotator labels every item), and the
   wall time of the whole command ``python -m planner alt-test FILE --llm ... --json`` in a
   subprocess (reading a CSV, the test, JSON);
2. the median time of :func:`planner.sizing.alt_test_plan.plan_alt_test` for 3 and 6 humans
   (4 categories, error 0.3 for humans and LLM, epsilon 0.2, power 0.8, 2,000 replicates), and
   the wall time of ``python -m planner alt-test --plan ... --table`` (plans for 2 to 6 humans).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from timing import median_time

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.data.labels import ratings_from_matrix  # noqa: E402
from planner.measuring.alt_test import alt_test  # noqa: E402
from planner.sizing.alt_test_plan import (  # noqa: E402
    AltTestPlanSettings,
    alt_test_model,
    plan_alt_test,
)

LLMS = ["llm0", "llm1", "llm2"]


def labels(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(4, size=n)
    cols = [np.where(rng.random(n) < 0.3, rng.integers(4, size=n), truth) for _ in range(8)]
    return np.stack(cols, axis=1).astype(float)


def command_seconds(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "planner", *args], cwd=ROOT, check=True,
                   capture_output=True)  # fmt: skip
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    names = [f"h{j}" for j in range(5)] + LLMS
    values = labels(args.items)
    ratings = ratings_from_matrix(values, annotators=names)
    secs = median_time(lambda: alt_test(ratings, LLMS, epsilon=0.2), args.runs)
    print(
        f"alt_test: {args.items:,} items x 5 humans x 3 LLMs: {secs:.3f} s (median of {args.runs})"
    )
    with tempfile.TemporaryDirectory() as folder:
        import pandas as pd

        path = Path(folder) / "labels.csv"
        frame = pd.DataFrame(values.astype(int), columns=names)
        frame.insert(0, "item", np.arange(args.items))
        frame.to_csv(path, index=False)
        flags = [a for name in LLMS for a in ("--llm", name)]
        wall = command_seconds(["alt-test", str(path), *flags, "--epsilon", "0.2", "--json"])
        print(f"python -m planner alt-test FILE (wide CSV) --json: {wall:.2f} s wall")
    for m in (3, 6):
        model = alt_test_model(humans=m, categories=4, human_error=0.3, llm_error=0.3)
        settings = AltTestPlanSettings(epsilon=0.2)
        secs = median_time(
            lambda model=model, settings=settings: plan_alt_test(model, settings, rng=1),
            args.runs,
        )
        print(f"plan_alt_test: {m} humans, K = 4: {secs:.3f} s (median of {args.runs})")
    wall = command_seconds(
        ["alt-test", "--plan", "--humans", "3", "--categories", "4", "--human-error", "0.3",
         "--llm-error", "0.3", "--epsilon", "0.2", "--table", "--seed", "1"]
    )  # fmt: skip
    print(f"python -m planner alt-test --plan --table (2 to 6 humans): {wall:.2f} s wall")


if __name__ == "__main__":
    main()
