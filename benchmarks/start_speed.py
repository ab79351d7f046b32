"""Start-up of the headline ``plan`` against a bare ``python -c "import numpy"``, in one run.

Run from the repository root (``python -m planner`` with this interpreter, so the
checkout's code is what is timed):

    python benchmarks/start_speed.py            # 11 runs of each, interleaved
    python benchmarks/start_speed.py --runs 21 --importtime

Prints, for each command, the median wall time and the median CPU time (user + system of
the child process, from ``resource.getrusage``) over the same runs, and the ratio
``plan / import numpy`` of both against the target of at most 3x. On a shared machine the
wall times carry the other processes' load; the CPU times do not, so the CPU ratio is the
one to compare between runs. Both run with compiled bytecode, as an installed package does
(``PYTHONDONTWRITEBYTECODE`` is dropped and the bytecode goes to a temporary
``PYTHONPYCACHEPREFIX``, written by a first untimed run). ``--importtime`` adds the
top-level modules ``plan`` imports, largest first (``python -X importtime``, cumulative).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HEADLINE = ["plan", "--prevalence", "0.08", "--width", "0.08"]
TARGET = 3.0


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def heaviest_imports(command: list[str], top: int) -> list[tuple[int, str]]:
    """The ``top`` largest cumulative import times of ``command`` (microseconds, name)."""
    result = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]],
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    )
    rows = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        if name.startswith("  "):  # a top-level import only: its cumulative time covers the rest
            continue
        rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs of each command")
    parser.add_argument("--importtime", action="store_true", help="list plan's heaviest imports")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        ENV["PYTHONPYCACHEPREFIX"] = cache
        compare(args.runs, args.importtime)


def compare(runs: int, importtime: bool) -> None:
    """Time both commands ``runs`` times, interleaved, and print the medians and ratios."""
    plan = [sys.executable, "-m", "planner", *HEADLINE]
    numpy_only = [sys.executable, "-c", "import numpy"]
    timed(plan), timed(numpy_only)  # warm the file cache
    samples: dict[str, list[tuple[float, float]]] = {"plan": [], "numpy": []}
    for _ in range(runs):  # interleaved: both see the same load
        samples["plan"].append(timed(plan))
        samples["numpy"].append(timed(numpy_only))
    medians = {
        name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        for name, runs in samples.items()
    }
    for name, label in (("plan", " ".join(HEADLINE)), ("numpy", "python -c 'import numpy'")):
        wall, cpu = medians[name]
        print(f"{label:40s} wall {wall:6.3f} s   cpu {cpu:6.3f} s   (medians of {runs})")
    for i, kind in enumerate(("wall", "cpu")):
        ratio = medians["plan"][i] / medians["numpy"][i]
        verdict = "met" if ratio <= TARGET else "MISSED"
        print(f"plan / import numpy, {kind:4s}: {ratio:4.2f}x  (target <= {TARGET:g}x: {verdict})")
    if importtime:
        print("plan's heaviest top-level imports (cumulative, one run):")
        for micros, name in heaviest_imports(plan, 15):
            print(f"   {micros / 1e3:7.1f} ms  {name}")


if __name__ == "__main__":
    main()
