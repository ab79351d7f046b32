"""Coverage of the multi-rater intervals the sizing uses (Fleiss, alpha, PSA for M annotators).

Run: ``python -m coverage_study.raters_coverage`` (about 15 s). For every cell of a small grid
(M = 3, 6; K = 2, 3, 5; Conger and the mean pairwise kappa for M = 3 and K <= 3; n = 30,
100, 300 items; ambiguity 0 and 0.3) it draws 4,000 studies as pattern counts, computes each
study's interval as the sizing search does
(:func:`planner.sizing.study_intervals.study_intervals`) and prints the cells whose coverage
of the model's true value is under 0.935 (Monte Carlo SE of a 0.95 coverage: 0.0034), and
the worst cell at each n. A second grid does the same under kappaSize's common-prevalence
model (:mod:`planner.sizing.common_prevalence_model`: M = 3, 6; K = 2, 3, 5; kappa 0.4 and
0.8; Fleiss and alpha; n = 30, 100, 300).
"""

from __future__ import annotations

import itertools

import numpy as np

from planner.sizing.annotator_model import raters_model
from planner.sizing.common_prevalence_model import common_prevalence_model
from planner.sizing.studies import simulate_pattern_counts
from planner.sizing.study_intervals import pattern_space, study_intervals, true_value

PREVALENCES = {
    2: (0.7, 0.3),
    3: (0.2, 0.3, 0.5),
    4: (0.2, 0.3, 0.3, 0.2),
    5: (0.1, 0.2, 0.3, 0.2, 0.2),
}
GRID = itertools.product(
    [3, 6],
    [2, 3, 5],
    ["fleiss", "alpha", "psa", "conger", "kappa"],
    ["nominal", "ordinal"],
    [30, 100, 300],
    [0, 0.3],
)
ORDERED = ("conger", "kappa")


def coverage_cell(m: int, k: int, metric: str, level: str, n: int, h: float) -> tuple:
    prev = (0.9, 0.1) if metric == "psa" else PREVALENCES[k]
    spread = "uniform" if level == "nominal" else "adjacent"
    error = 0.05 if metric == "psa" else 0.15
    model = raters_model(prev, m, error_rate=error, ambiguity=h, spread=spread)
    patterns, probs = pattern_space(model, metric)
    counts = simulate_pattern_counts(probs, n, 4000, rng=1)
    ci = study_intervals(metric, patterns, counts, level=level, n_categories=k)
    truth = true_value(metric, patterns, probs, level, k)
    coverage = float(np.mean((ci.low <= truth) & (truth <= ci.high)))
    return (metric, level, m, k, n, h, round(truth, 3), round(coverage, 3))


def common_cell(m: int, k: int, metric: str, kappa: float, n: int) -> tuple:
    """Coverage under kappaSize's common-prevalence model (no ground truth, no bias)."""
    model = common_prevalence_model(list(PREVALENCES[k]), m, kappa=kappa)
    patterns, probs = pattern_space(model, metric)
    counts = simulate_pattern_counts(probs, n, 4000, rng=1)
    ci = study_intervals(metric, patterns, counts, n_categories=k)
    truth = true_value(metric, patterns, probs, "nominal", k)
    coverage = float(np.mean((ci.low <= truth) & (truth <= ci.high)))
    return (metric, "kappaSize", m, k, n, kappa, round(truth, 3), round(coverage, 3))


def main() -> None:
    rows = [
        coverage_cell(m, k, metric, level, n, h)
        for m, k, metric, level, n, h in GRID
        if (metric != "psa" or k == 2)
        and (metric == "alpha" or level == "nominal")
        and (metric not in ORDERED or (m == 3 and k <= 3))  # K^M ordered patterns
    ]
    rows += [
        common_cell(m, k, metric, kappa, n)
        for m, k, metric, kappa, n in itertools.product(
            [3, 6], [2, 3, 5], ["fleiss", "alpha"], [0.4, 0.8], [30, 100, 300]
        )
    ]
    under = [r for r in rows if r[-1] < 0.935]
    print(
        f"{len(rows)} cells; {len(under)} under 0.935 "
        "(metric, level, M, K, n, h or kappa, true, cov)"
    )
    for row in under:
        print(row)
    for n in (30, 100, 300):
        worst = min((r for r in rows if r[4] == n), key=lambda r: r[-1])
        print(f"n = {n}: worst coverage {worst[-1]:.3f} at {worst[:6]}")


if __name__ == "__main__":
    main()
