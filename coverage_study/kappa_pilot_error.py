"""Monte Carlo error of the kappa plan under pilot uncertainty, measured over seeds.

For each pilot and width, the kappa plan under pilot uncertainty
(:func:`planner.sizing.uncertainty_kappa.kappa_items_under_uncertainty`, default settings but
the width; the plug-in items from :func:`planner.sizing.plan.make_plan`) is run with seeds
1..S; the spread (SD over seeds) of its items is the answer's Monte Carlo error, reported
next to its own delta-method estimate ``items_mc_se`` and as a share of the items.

Run: ``PYTHONPATH=. python -m coverage_study.kappa_pilot_error [--seeds 10]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from planner.sizing.model import pair_from_counts
from planner.sizing.plan import PlanSettings, size_metric
from planner.sizing.uncertainty_kappa import kappa_items_under_uncertainty

PILOTS = ((6, 21, 14, 459), (40, 12, 10, 138), (30, 20, 25, 425))
WIDTHS = (0.06, 0.08, 0.1, 0.12)


def measure(pilot: tuple[int, ...], width: float, seeds: int) -> dict[str, float]:
    """Items over ``seeds`` seeds: mean, SD, the mean reported SE, seconds per run."""
    model = pair_from_counts(pilot)
    settings = PlanSettings(width=width, metric="kappa")
    plug_in = size_metric(model, "kappa", settings, np.random.default_rng(0)).items
    items, reported, seconds = [], [], []
    for seed in range(1, seeds + 1):
        start = time.perf_counter()
        res = kappa_items_under_uncertainty(model, settings, plug_in_items=plug_in, rng=seed)
        seconds.append(time.perf_counter() - start)
        items.append(res.items)
        reported.append(res.items_mc_se)
    sd = float(np.std(items, ddof=1))
    return {
        "mean": float(np.mean(items)),
        "sd": sd,
        "sd_share": sd / float(np.mean(items)),
        "reported_se": float(np.mean(reported)),
        "seconds": float(np.median(seconds)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=12)
    args = parser.parse_args()
    print("pilot                width  mean items  SD over seeds  SD/n    reported SE  s/run")
    for pilot in PILOTS:
        for width in WIDTHS:
            m = measure(pilot, width, args.seeds)
            print(
                f"{','.join(map(str, pilot)):20} {width:5.2f} {m['mean']:11.1f} {m['sd']:14.1f} "
                f"{m['sd_share']:6.2%} {m['reported_se']:12.1f} {m['seconds']:6.2f}"
            )


if __name__ == "__main__":
    main()
