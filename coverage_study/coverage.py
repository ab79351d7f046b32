"""Coverage of every interval method planner offers or prints, over the documented grid.

Run from the repository root::

    python coverage_study/coverage.py                      # the full grid (see README.md)
    python coverage_study/coverage.py --slice small        # a few cells, in seconds
    python coverage_study/coverage.py --reps 4000 --seed 7 --json coverage_study/coverage.json \\
        --markdown coverage_study/coverage.md --methods psa cohen_kappa/gof

Each grid cell (a population model and a study size, :mod:`coverage_study.grid`) is simulated
``reps`` times as count tables (two annotators) or label-pattern counts (several), and each
method's interval is checked against the coefficient's population value. An undefined
interval (NaN limits) counts as a miss and is also counted on its own. A row is flagged
when its coverage is outside [0.935, 0.965] *and* more than two Monte Carlo standard errors
(at the nominal 0.95, ``sqrt(0.95 * 0.05 / reps)``) from 0.95.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: import this checkout's planner, not another
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import scipy  # noqa: E402

import planner  # noqa: E402
from coverage_study.grid import SLICES, Cell, grid  # noqa: E402
from coverage_study.methods import (  # noqa: E402
    CONFIDENCE,
    PAIR_ESTIMANDS,
    Method,
    multi_estimands,
    multi_methods,
    pair_methods,
)
from planner.output.jsonout import json_ready  # noqa: E402
from planner.sizing.studies import simulate_tables  # noqa: E402
from planner.statistics import intervals as iv  # noqa: E402

DEFAULT_REPS = {
    "full": 4000,
    "small": 400,
    "two": 4000,
    "multi": 4000,
    "multi-few": 4000,
    "extreme": 4000,
}
DEFAULT_N_BOOT = {
    "full": 500,
    "small": 200,
    "two": 500,
    "multi": 500,
    "multi-few": 500,
    "extreme": 500,
}
FLAG_BAND = (0.935, 0.965)
FLAG_SE = 2.0
_TOLERANCE = 1e-9  # a limit equal to the true value (up to rounding) covers it


@dataclass(frozen=True)
class Row:
    """Coverage of one method in one grid cell."""

    regime: str
    cell: str
    n_annotators: int
    union_positives: int
    n_items: int
    coefficient: str
    method: str
    true_value: float
    reps: int
    coverage: float
    mc_se: float
    n_undefined: int
    n_zero_width: int
    miss_below: int
    miss_above: int
    median_half_width: float
    flag: str


def stream(seed: int, *key: int) -> np.random.Generator:
    """An independent generator for a cell or a (cell, method): ``SeedSequence(seed, key)``.

    Keys come from the cell's label and the method's name, so a cell's results do not
    depend on which other cells or methods run.
    """
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def _crc(text: str) -> int:
    return zlib.crc32(text.encode())


def flag(coverage: float, reps: int) -> str:
    """``"under"``/``"over"`` when coverage is outside the band and 2 nominal SEs from 0.95."""
    se0 = math.sqrt(CONFIDENCE * (1 - CONFIDENCE) / reps)
    if FLAG_BAND[0] <= coverage <= FLAG_BAND[1] or abs(coverage - CONFIDENCE) <= FLAG_SE * se0:
        return ""
    return "under" if coverage < CONFIDENCE else "over"


def summarise(cell: Cell, method: Method, truth: float, low: np.ndarray, high: np.ndarray) -> Row:
    """Coverage, its Monte Carlo SE, undefined intervals, misses by side, median half-width."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    reps = low.size
    defined = np.isfinite(low) & np.isfinite(high)
    below = defined & (truth < low - _TOLERANCE)
    above = defined & (truth > high + _TOLERANCE)
    covered = defined & ~below & ~above
    coverage = float(covered.mean())
    half = (high[defined] - low[defined]) / 2
    return Row(
        regime=cell.regime,
        cell=cell.label,
        n_annotators=cell.n_annotators,
        union_positives=cell.union_positives,
        n_items=cell.n_items,
        coefficient=method.coefficient,
        method=method.name,
        true_value=truth,
        reps=reps,
        coverage=coverage,
        mc_se=math.sqrt(coverage * (1 - coverage) / reps),
        n_undefined=int((~defined).sum()),
        n_zero_width=int((half <= _TOLERANCE).sum()),
        miss_below=int(below.sum()),
        miss_above=int(above.sum()),
        median_half_width=float(np.median(half)) if half.size else float("nan"),
        flag=flag(coverage, reps),
    )


def simulate_cell(cell: Cell, methods: Sequence[Method], reps: int, seed: int) -> list[Row]:
    """Simulate ``reps`` studies of ``cell`` and summarise every method on the same studies."""
    key = _crc(cell.label)
    probs = np.asarray(cell.probabilities)
    if cell.regime.startswith("multi"):
        gen = stream(seed, key, 0)
        data = gen.multinomial(cell.n_items, probs / probs.sum(), size=reps)  # pattern counts
        truth_of = {name: fn(probs) for name, fn in multi_estimands(cell.n_annotators).items()}
    else:
        data = simulate_tables(probs, cell.n_items, reps, rng=stream(seed, key, 0))
        truth_of = {name: fn(probs) for name, fn in PAIR_ESTIMANDS.items()}
    rows = []
    for method in methods:
        low, high = method.interval(data, stream(seed, key, 1, _crc(method.key)))
        rows.append(summarise(cell, method, truth_of[method.coefficient], low, high))
    return rows


def select(methods: list[Method], wanted: Sequence[str] | None) -> list[Method]:
    """Methods whose coefficient, name or ``coefficient/name`` is in ``wanted`` (all if None)."""
    if not wanted:
        return methods
    return [m for m in methods if {m.coefficient, m.name, m.key} & set(wanted)]


def methods_for(cell: Cell, n_boot: int, wanted: Sequence[str] | None) -> list[Method]:
    """The methods simulated in ``cell``."""
    if cell.regime.startswith("multi"):
        return select(multi_methods(cell.n_annotators, n_boot), wanted)
    return select(pair_methods(n_boot), wanted)


def run(
    slice_name: str = "full",
    *,
    reps: int | None = None,
    seed: int = 20261201,
    n_boot: int | None = None,
    wanted: Sequence[str] | None = None,
    extra: Sequence[Method] = (),
    cells: Sequence[Cell] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Simulate a slice of the grid; return the JSON document (settings, skipped, rows).

    ``extra`` methods (for example a deliberately broken one, in tests) run in every
    two-annotator cell; ``cells`` replaces the slice's cells.
    """
    reps = reps or DEFAULT_REPS[slice_name]
    n_boot = n_boot or DEFAULT_N_BOOT[slice_name]
    start = time.perf_counter()
    commit = _git_commit()  # the code that runs, even if a commit lands while it runs
    skipped: list[str] = []
    if cells is None:
        cells, skipped = grid(slice_name)
    rows: list[Row] = []
    for i, cell in enumerate(cells):
        methods = methods_for(cell, n_boot, wanted)
        if not cell.regime.startswith("multi"):
            methods = [*methods, *extra]
        tick = time.perf_counter()
        rows.extend(simulate_cell(cell, methods, reps, seed))
        if progress:
            print(
                f"[{i + 1}/{len(cells)}] {cell.label}: {time.perf_counter() - tick:.1f} s",
                file=sys.stderr,
            )
    return {
        "settings": settings(
            slice_name, reps, seed, n_boot, wanted, time.perf_counter() - start, commit
        ),
        "skipped": skipped,
        "rows": [asdict(r) for r in rows],
    }


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def settings(
    slice_name: str,
    reps: int,
    seed: int,
    n_boot: int,
    wanted: Sequence[str] | None,
    seconds: float,
    commit: str | None,
) -> dict[str, Any]:
    """What produced the rows: slice, seed, reps, bootstrap size, the flag rule, versions."""
    return {
        "slice": slice_name,
        "seed": seed,
        "reps": reps,
        "n_boot": n_boot,
        "methods": list(wanted) if wanted else "all",
        "confidence_level": CONFIDENCE,
        "flag_rule": (
            f"coverage outside [{FLAG_BAND[0]}, {FLAG_BAND[1]}] and more than {FLAG_SE:g} "
            f"x sqrt(0.95 x 0.05 / reps) from 0.95"
        ),
        "undefined_intervals": "count as misses (and are counted in n_undefined)",
        "study_size": "fixed n = round(U / union rate) per cell; U varies between studies",
        "psa_methods": list(iv.PSA_METHODS),
        "kappa_methods": list(iv.KAPPA_METHODS),
        "seconds": round(seconds, 1),
        "versions": {
            "planner": planner.__version__,
            "git_commit": commit,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
        },
    }


def carry_over(document: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """``document`` plus the rows of ``previous`` for the (regime, coefficient, method)
    combinations ``document`` did not run.

    Lets one part of the grid or a few methods be rerun (``--slice two``, ``--methods``)
    while the other rows are kept from an earlier run whose methods did not change;
    ``settings.carried_over`` says which regimes came from which run (its commit, seed,
    reps and seconds).
    """

    def key(row: dict[str, Any]) -> tuple[str, str, str]:
        return row["regime"], row["coefficient"], row["method"]

    ran = {key(row) for row in document["rows"]}
    kept = [row for row in previous["rows"] if key(row) not in ran]
    before = previous["settings"]
    skipped = list(dict.fromkeys([*document["skipped"], *previous["skipped"]]))
    settings = dict(document["settings"])
    if kept:
        settings["carried_over"] = {
            "regimes": sorted({row["regime"] for row in kept}),
            "slice": before["slice"],
            "seed": before["seed"],
            "reps": before["reps"],
            "n_boot": before["n_boot"],
            "seconds": before["seconds"],
            "git_commit": before["versions"]["git_commit"],
        }
    return {"settings": settings, "skipped": skipped, "rows": document["rows"] + kept}


def merge(document: dict[str, Any], into: dict[str, Any]) -> dict[str, Any]:
    """``into`` with ``document``'s rows added, each replacing the row of the same cell,
    coefficient and method; ``settings.merged_runs`` records the run (slice, methods, reps,
    seconds, commit). For a few methods rerun or added on part of the grid, where
    :func:`carry_over` (by regime) would drop the other cells' rows of those methods."""

    def key(row: dict[str, Any]) -> tuple[str, str, str]:
        return row["cell"], row["coefficient"], row["method"]

    new = {key(row) for row in document["rows"]}
    rows = [row for row in into["rows"] if key(row) not in new] + document["rows"]
    s = document["settings"]
    run_record = {
        "slice": s["slice"],
        "methods": s["methods"],
        "reps": s["reps"],
        "seconds": s["seconds"],
        "git_commit": s["versions"]["git_commit"],
    }
    settings = {**into["settings"]}
    settings["merged_runs"] = [*settings.get("merged_runs", []), run_record]
    skipped = list(dict.fromkeys([*into["skipped"], *document["skipped"]]))
    return {"settings": settings, "skipped": skipped, "rows": rows}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options (see the module docstring and README.md)."""
    parser = argparse.ArgumentParser(
        description="Simulate the coverage of every planner interval method over the grid."
    )
    parser.add_argument("--reps", type=int, default=None, help="simulated studies per cell")
    parser.add_argument("--seed", type=int, default=20261201, help="seed of all random streams")
    parser.add_argument("--slice", default="full", choices=SLICES, help="part of the grid")
    parser.add_argument("--n-boot", type=int, default=None, help="bootstrap resamples")
    parser.add_argument("--json", type=Path, default=None, help="write every row here")
    parser.add_argument("--markdown", type=Path, default=None, help="write the summary table")
    parser.add_argument(
        "--methods",
        nargs="+",
        default=None,
        help="coefficients, method names or coefficient/method keys to run (default all)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="a JSON file of an earlier run: keep its rows for the regimes this run skips",
    )
    parser.add_argument(
        "--merge-into",
        type=Path,
        default=None,
        help="a JSON file of an earlier run: this run's rows replace its rows of the same "
        "cell, coefficient and method (or are added); the result is what --json writes",
    )
    args = parser.parse_args(argv)
    if args.reps is not None and args.reps < 10:
        parser.error(f"--reps must be at least 10, got {args.reps}")
    if args.n_boot is not None and args.n_boot < 10:
        parser.error(f"--n-boot must be at least 10, got {args.n_boot}")
    known = {
        name
        for m in [*pair_methods(10), *multi_methods(2, 10), *multi_methods(3, 10)]
        for name in (m.coefficient, m.name, m.key)
    }
    unknown = sorted(set(args.methods or ()) - known)
    if unknown:
        parser.error(
            f"--methods: unknown {', '.join(unknown)}; choose from {', '.join(sorted(known))}"
        )
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the slice, print the table (flagged rows marked), write JSON and Markdown."""
    from coverage_study.output import markdown, text_table

    args = parse_args(argv)
    document = run(
        args.slice,
        reps=args.reps,
        seed=args.seed,
        n_boot=args.n_boot,
        wanted=args.methods,
        progress=not args.quiet,
    )
    if args.keep is not None:
        document = carry_over(document, json.loads(args.keep.read_text()))
    if args.merge_into is not None:
        document = merge(document, json.loads(args.merge_into.read_text()))
    rows = document["rows"]
    print(text_table(rows))
    flagged = [r for r in rows if r["flag"]]
    print(f"\n{len(flagged)} of {len(rows)} rows flagged ({document['settings']['flag_rule']}).")
    for line in document["skipped"]:
        print(f"skipped: {line}")
    print(f"{document['settings']['seconds']} s", file=sys.stderr)
    if args.json is not None:
        args.json.write_text(json.dumps(json_ready(document), indent=1, allow_nan=False) + "\n")
    if args.markdown is not None:
        args.markdown.write_text(markdown(document))
    return 0


if __name__ == "__main__":
    sys.exit(main())
