"""The documented grid of the coverage study (see coverage_study/README.md), and its slices.

Each :class:`Cell` is one population model and one study size. Studies have a fixed number
of items ``n = round(U / r)``, where ``U`` is the grid's expected number of union positives
and ``r`` the model's union rate (the probability that at least one annotator flags an
item): the union positives of a study vary from study to study, as in a real study of ``n``
items. (Conditional PSA intervals are exact given ``U``; their unconditional coverage is
the average over the binomial law of ``U``.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from coverage_study.models import biased_pair, multi_rater_model, unbiased_pair

PAIR_PREVALENCES = (0.02, 0.05, 0.1, 0.3)
PAIR_LEVELS = (
    ("psa", 0.3),
    ("psa", 0.6),
    ("psa", 0.9),
    ("kappa", 0.2),
    ("kappa", 0.5),
    ("kappa", 0.8),
)
AMBIGUITIES = (0.0, 0.5)
PAIR_UNION_POSITIVES = (20, 50, 150, 1000)
BIASED_RATES = ((0.08, 0.02), (0.15, 0.05), (0.30, 0.10))
BIASED_LEVELS = (*PAIR_LEVELS, ("nested", float("nan")))
#: Extreme bias: one annotator's positive rate ten times the other's, with the rarer one's
#: positives nested in the other's (kappa at its bound) or a lower kappa; sized by the rarer
#: annotator's expected positives (what drives the kappa interval's coverage there).
EXTREME_RATES = ((0.10, 0.01), (0.07, 0.005))
EXTREME_LEVELS = (("nested", float("nan")), ("kappa", 0.1))
EXTREME_RARER_POSITIVES = (4, 7, 10, 20, 50)
MULTI_ANNOTATORS = (2, 3, 4, 5)
MULTI_PREVALENCES = (0.05, 0.3)
MULTI_LEVELS = (0.2, 0.3, 0.5, 0.8)  # population Fleiss kappa
MULTI_BIASES = (0.0, 0.8)
MULTI_UNION_POSITIVES = (20, 50, 180)
#: below 20 union positives (the ``multi-few`` slice)
MULTI_FEW_UNION_POSITIVES = (10, 15)
SLICES = ("full", "small", "two", "multi", "multi-few", "extreme")


@dataclass(frozen=True)
class Cell:
    """One grid cell: a population model and a study size.

    Attributes
    ----------
    regime
        ``"unbiased"``, ``"correlated"`` or ``"biased"`` (two annotators), or
        ``"multi-unbiased"`` / ``"multi-biased"`` (several annotators).
    label
        Short description, unique in the grid (it also keys the cell's random streams).
    n_annotators
        2 for a pair.
    probabilities
        Pair: cells ``(a, b, c, d)``. Several annotators: the ``2^M`` pattern probabilities.
    union_positives
        Expected union positives ``U`` the study size is chosen for.
    n_items
        Items per simulated study.
    params
        The model's parameters (for the JSON output).
    """

    regime: str
    label: str
    n_annotators: int
    probabilities: tuple[float, ...]
    union_positives: int
    n_items: int
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def union_rate(self) -> float:
        """Probability that at least one annotator flags an item."""
        p = np.asarray(self.probabilities)
        return float(1 - p[0]) if self.regime.startswith("multi") else float(p[:3].sum())


def _sized(
    regime: str, label: str, m: int, probs: np.ndarray, params: dict[str, Any]
) -> Iterator[Cell]:
    several = regime.startswith("multi")
    sizes = MULTI_UNION_POSITIVES if several else PAIR_UNION_POSITIVES
    if regime.startswith("multi-few"):
        sizes = MULTI_FEW_UNION_POSITIVES
    union_rate = float(1 - probs[0]) if several else float(probs[:3].sum())
    for u in sizes:
        yield Cell(
            regime,
            f"{label} U={u}",
            m,
            tuple(float(x) for x in probs),
            u,
            max(1, round(u / union_rate)),
            params,
        )


def _level_text(metric: str, level: float) -> str:
    return "nested" if metric == "nested" else f"{metric} {level:g}"


def pair_cells(skipped: list[str]) -> Iterator[Cell]:
    """Two-annotator cells; infeasible models are appended to ``skipped``."""
    for h in AMBIGUITIES:
        regime = "unbiased" if h == 0 else "correlated"
        for pi in PAIR_PREVALENCES:
            for metric, level in PAIR_LEVELS:
                label = f"pi={pi:g} {_level_text(metric, level)} h={h:g}"
                solved = unbiased_pair(pi, metric, level, h)
                if solved is None:
                    skipped.append(f"{label}: no admissible error rate gives {metric} {level:g}")
                    continue
                cells, e = solved
                params = {"prevalence": pi, metric: level, "ambiguity": h, "error_rate": e}
                yield from _sized(regime, label, 2, cells, params)
    for rate_a, rate_b in BIASED_RATES:
        for metric, level in BIASED_LEVELS:
            label = f"rates={rate_a:g}/{rate_b:g} {_level_text(metric, level)}"
            cells = biased_pair(rate_a, rate_b, metric, level)
            if cells is None:
                skipped.append(f"{label}: not reachable with these positive rates")
                continue
            params = {"positive_rates": [rate_a, rate_b], "level": _level_text(metric, level)}
            yield from _sized("biased", label, 2, cells, params)


def extreme_cells(skipped: list[str]) -> Iterator[Cell]:
    """Extreme-bias pairs, sized by the rarer annotator's expected positives ``R``.

    Regime ``"extreme"`` from ``R = 10`` on, ``"extreme-few"`` below (where no interval is
    expected to keep 0.95 and notes state the coverage measured).
    """
    for rate_a, rate_b in EXTREME_RATES:
        for metric, level in EXTREME_LEVELS:
            label = f"rates={rate_a:g}/{rate_b:g} {_level_text(metric, level)}"
            probs = biased_pair(rate_a, rate_b, metric, level)
            if probs is None:
                skipped.append(f"{label}: not reachable with these positive rates")
                continue
            params = {"positive_rates": [rate_a, rate_b], "level": _level_text(metric, level)}
            union_rate = float(probs[:3].sum())
            for r in EXTREME_RARER_POSITIVES:
                n = round(r / min(rate_a, rate_b))
                yield Cell(
                    "extreme" if r >= 10 else "extreme-few",
                    f"{label} R={r}",
                    2,
                    tuple(float(x) for x in probs),
                    round(n * union_rate),
                    n,
                    {**params, "rarer_positives": r},
                )


def multi_cells(skipped: list[str], few: bool = False) -> Iterator[Cell]:
    """Several-annotator cells; infeasible models are appended to ``skipped``.

    ``few``: the same models at 10 and 15 union positives (regime ``multi-few`` for two
    annotators, ``multi-few-several`` for 3-5), where ``agree``'s notes below 20 union
    positives are read."""
    for bias in MULTI_BIASES:
        regime = "multi-unbiased" if bias == 0 else "multi-biased"
        for m in MULTI_ANNOTATORS:
            if few:
                regime = "multi-few" if m == 2 else "multi-few-several"
            for pi in MULTI_PREVALENCES:
                for level in MULTI_LEVELS:
                    label = f"M={m} pi={pi:g} fleiss {level:g} bias=±{bias:g}"
                    solved = multi_rater_model(pi, m, level, bias)
                    if solved is None:
                        skipped.append(
                            f"{label}: no admissible error rate gives Fleiss kappa {level:g}"
                        )
                        continue
                    probs, e = solved
                    params = {
                        "n_annotators": m,
                        "prevalence": pi,
                        "fleiss_kappa": level,
                        "bias": bias,
                        "error_rate": e,
                    }
                    yield from _sized(regime, label, m, probs, params)


SMALL_SLICE = frozenset(
    {
        "pi=0.05 psa 0.6 h=0 U=20",
        "pi=0.05 psa 0.6 h=0 U=150",
        "pi=0.05 kappa 0.5 h=0 U=20",
        "rates=0.15/0.05 kappa 0.2 U=50",
        "rates=0.1/0.01 nested R=10",
        "M=3 pi=0.3 fleiss 0.5 bias=±0 U=50",
    }
)


SLICE_FILTERS: dict[str, Callable[[Cell], bool]] = {
    "full": lambda cell: True,
    "small": lambda cell: cell.label in SMALL_SLICE,
    "two": lambda cell: not cell.regime.startswith("multi"),
    "extreme": lambda cell: cell.regime.startswith("extreme"),
    "multi": lambda cell: cell.regime in ("multi-unbiased", "multi-biased"),
    "multi-few": lambda cell: cell.regime.startswith("multi-few"),
}


def grid(slice_name: str = "full") -> tuple[list[Cell], list[str]]:
    """The cells of a slice of the grid, and the infeasible models skipped (with reasons)."""
    if slice_name not in SLICE_FILTERS:
        raise ValueError(f"slice must be one of {', '.join(SLICES)}, got {slice_name!r}")
    skipped: list[str] = []
    cells = [*pair_cells(skipped), *extreme_cells(skipped), *multi_cells(skipped)]
    cells += multi_cells([], few=True)  # the same models: skipped already lists them
    keep = SLICE_FILTERS[slice_name]
    return [cell for cell in cells if keep(cell)], skipped
