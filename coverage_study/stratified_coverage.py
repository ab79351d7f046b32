"""Coverage of ``agree --stratum-col``'s population-weighted intervals over stratified designs.

Run: ``python -m coverage_study.stratified_coverage`` (about 15 s). For each design (items per
stratum of a shipped scenario with ``[[strata]]``) it draws 20,000 studies, each stratum's
2 x 2 table one ``Generator.multinomial`` draw from the scenario's cells, computes the
weighted PSA, observed agreement and Cohen's kappa intervals
(:func:`planner.statistics.stratified.weighted_from_tables`) and prints the share that covers
the population's coefficient (Monte Carlo SE about 0.0015), and that of the plain Wald
interval ``estimate +- z SE`` of PSA and kappa with the same SE; then the same for three annotators
with independent errors (Fleiss' kappa, observed agreement, specific positive agreement).
The table is docs/methods/stratified-estimation.md's. The designs are the planned ones of
``plan --scenario NAME`` (seeds 7 and 11), the enriched design's uniform slice split over the
strata by their shares, and a few allocations of "rest of traffic" around the note's threshold.
"""

from __future__ import annotations

import numpy as np

from planner.data.scenario import load_scenario
from planner.sizing.compare import stratum_models
from planner.statistics.stratified import (
    SCALES,
    multirater_coefficient,
    multirater_features,
    pair_coefficient,
    weighted_from_moments,
    weighted_from_tables,
)

STUDIES = 20_000
PAIR = ("psa", "observed_agreement", "cohen_kappa")
MULTI = ("psa", "observed_agreement", "fleiss_kappa")
DESIGNS = {
    "unsupported-claims-enriched": {
        "weighted": [106, 186, 30, 859],
        "enriched with its slice": [94 + 25, 67 + 63, 40 + 6, 67 + 532],
        "rest of traffic at 200 items": [94, 67, 40, 200],
        "rest of traffic at 120 items": [94, 67, 40, 120],
        "enriched without the slice": [94, 67, 40, 67],
    },
    "clinical-chart-review": {
        "weighted": [453, 495, 1034],
        "enriched with its slice": [339 + 76, 174 + 210, 176 + 668],
        "enriched without the slice": [339, 174, 176],
    },
}


def pair_coverage(name: str, items: list[int], rng: np.random.Generator) -> list[float]:
    scenario = load_scenario(name)
    shares = np.array([s.share for s in scenario.strata])
    cells = np.array([m.cells for m in stratum_models(scenario)], dtype=float).reshape(-1, 4)
    tables = np.stack([rng.multinomial(n, cells[h], size=STUDIES) for h, n in enumerate(items)], 1)
    tables = tables.reshape(STUDIES, len(items), 2, 2)
    out = []
    for metric in PAIR:
        truth = float(pair_coefficient(metric, 2)(shares @ cells)[0])
        e = weighted_from_tables(metric, tables, shares)
        out.append(float(np.mean((e.low <= truth) & (truth <= e.high))))
    for metric in ("psa", "cohen_kappa"):  # the plain Wald interval, same variance
        truth = float(pair_coefficient(metric, 2)(shares @ cells)[0])
        e = weighted_from_tables(metric, tables, shares)
        half = 1.959963984540054 * e.se
        out.append(float(np.mean(np.abs(e.estimate - truth) <= half)))
    return out


def three_annotator_coverage(name: str, items: list[int], rng: np.random.Generator) -> list[float]:
    scenario = load_scenario(name)
    shares = np.array([s.share for s in scenario.strata])
    prevalence = np.array([s.prevalence for s in scenario.strata])
    error = np.array([(s.error_rate or (0.03,))[0] for s in scenario.strata])[:, None]
    k = np.arange(3, -1, -1)
    choose = np.array([1, 3, 3, 1])
    p = prevalence[:, None] * choose * (1 - error) ** k * error ** (3 - k)
    p += (1 - prevalence[:, None]) * choose * error**k * (1 - error) ** (3 - k)
    n = np.array(items, dtype=float)
    counts = np.stack([rng.multinomial(m, p[h], size=STUDIES) for h, m in enumerate(items)], 1)
    features = multirater_features(np.array([[3, 0], [2, 1], [1, 2], [0, 3]]), positive=0)
    f = counts / n[None, :, None]
    second = np.einsum("rhp,pf,pg->rhfg", f, features, features)
    out = []
    for metric in MULTI:
        g = multirater_coefficient(metric, 2)
        truth = float(g(shares @ (p @ features))[0])
        e = weighted_from_moments(
            g, f @ features, second, np.broadcast_to(n, f.shape[:2]), shares, SCALES[metric]
        )
        out.append(float(np.mean((e.low <= truth) & (truth <= e.high))))
    return out


def main() -> None:
    rng = np.random.default_rng(2026)
    print("| scenario | design | PSA | observed agreement | Cohen's kappa | Wald: PSA | kappa |")
    print("|---|---|---|---|---|---|---|")
    for name, designs in DESIGNS.items():
        for design, items in designs.items():
            cov = " | ".join(f"{c:.3f}" for c in pair_coverage(name, items, rng))
            print(f"| {name} | {design} {items} | {cov} |")
    print("\nthree annotators: PSA (specific), observed agreement, Fleiss' kappa")
    for design, items in DESIGNS["unsupported-claims-enriched"].items():
        cov = ", ".join(f"{c:.3f}" for c in three_annotator_coverage(
            "unsupported-claims-enriched", items, rng))  # fmt: skip
        print(f"unsupported-claims-enriched, {design}: {cov}")


if __name__ == "__main__":
    main()
