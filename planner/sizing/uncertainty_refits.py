"""Several annotators' plan under their pilot's uncertainty: the items over its bootstrap refits.

A pilot of ``M >= 3`` annotators is fitted by Dawid & Skene's latent-class model and refitted
on ``D`` item-bootstrap resamples (:mod:`planner.sizing.pilot_latent_class`); each refit is
one plausible truth ``theta_d``. The *hybrid assurance* of ``n`` items averages the assurance
over them,

``A_h(n) = (1 / D) sum_d P(half-width <= w | theta_d, n)``,

estimated from ``R`` simulated studies, study ``r`` drawn under truth ``d = r mod D`` (one
multinomial draw of ``n`` over that truth's pattern probabilities); every ``n`` uses the
same random stream (common random numbers). :func:`raters_items_under_uncertainty` finds
the smallest ``n`` with ``A_h(n) >=`` the target (bracketing and bisection,
:func:`planner.sizing.sample_size_search.smallest_passing_near`), and its Monte Carlo SE is
that of ``A_h`` divided by the curve's slope there, ``SE(n) = sqrt(A (1 - A) / R) / A_h'(n)``
(the slope from ``A_h`` at ``0.9 n`` and ``1.1 n``). It is the recommendation of
:func:`planner.sizing.plan_under_pilot.with_pilot_uncertainty`: the plug-in size reaches the
target only if the pilot is the truth (Spiegelhalter & Freedman 1986 and O'Hagan, Stevens &
Campbell 2005 on assurance under a design prior). A pair's pilot counts have their own,
exact, plan under uncertainty (:mod:`planner.sizing.uncertainty`).

References
----------
Spiegelhalter DJ, Freedman LS (1986) A predictive approach to selecting the size of a
    clinical trial, based on subjective clinical opinion. Stat Med 5:1-13.
O'Hagan A, Stevens JW, Campbell MJ (2005) Assurance in clinical trial design.
    Pharm Stat 4:187-201.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from planner.errors import TargetUnreachable
from planner.sizing.annotator_model import raters_model
from planner.sizing.exact import reaches_width
from planner.sizing.pilot_latent_class import RatersPilot
from planner.sizing.sample_size_search import smallest_passing_near
from planner.sizing.study_intervals import pattern_space, study_intervals, true_value
from planner.sizing.study_precision import RatersStudy, checked_study, interval_options
from planner.validation import RULES, RngLike, check, seed_from

#: simulated studies of the hybrid assurance at each size (at least the plan's replicates)
HYBRID_STUDIES = 4000

#: the most ``studies x patterns`` cells one evaluation of the hybrid assurance holds
HYBRID_CELLS = 4_000_000

#: the random stream of the hybrid studies, apart from the plan's and the bootstrap's
HYBRID_STREAM = 3


@dataclass(frozen=True)
class RatersUncertainty:
    """The plan of several annotators under the pilot's uncertainty.

    Attributes
    ----------
    items, items_mc_se
        Smallest ``n`` whose hybrid assurance reaches the target, and its Monte Carlo SE.
    hybrid_assurance, hybrid_assurance_se
        ``A_h`` at ``items`` and its Monte Carlo SE ``sqrt(A (1 - A) / R)``.
    target_assurance
        The assurance asked for.
    plug_in_items, plug_in_hybrid_assurance
        The plan that takes the pilot as the truth, and its hybrid assurance.
    posterior
        ``{"p10", "p50", "p90"}`` of the metric's true value over the bootstrap truths.
    draws, studies, seed
        Plausible truths, simulated studies per size, and the seed of the studies.
    """

    metric: str
    items: int
    items_mc_se: float
    hybrid_assurance: float
    hybrid_assurance_se: float
    target_assurance: float
    plug_in_items: int
    plug_in_hybrid_assurance: float
    posterior: dict[str, float]
    draws: int
    studies: int
    seed: int

    @property
    def basis(self) -> str:
        return (
            f"{self.studies:,} simulated studies per size, each under one of {self.draws} "
            "bootstrap refits of the pilot's latent-class fit"
        )


def _draw_probabilities(
    pilot: RatersPilot, study: RatersStudy
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The patterns of ``study.metric`` and ``(D, P)`` their probabilities under each truth."""
    tables: list[dict[tuple[int, ...], float]] = []
    for prevalence, confusion in pilot.draws:
        model = raters_model(list(prevalence), pilot.model.n_annotators, confusion=confusion)
        patterns, probs = pattern_space(model, study.metric, study.per_item)
        pairs = zip(patterns, probs, strict=True)
        tables.append({tuple(int(x) for x in row): float(p) for row, p in pairs})
    rows = sorted(set().union(*tables))
    probabilities = np.array([[t.get(r, 0.0) for r in rows] for t in tables])
    return np.array(rows, dtype=np.int64), probabilities / probabilities.sum(axis=1)[:, None]


def _hybrid(
    study: RatersStudy, patterns: NDArray, probabilities: NDArray, studies: int, seed: int, k: int
) -> Callable[[int], float]:
    """``A_h(n)``: the share of ``studies`` studies (study ``r`` under truth ``r mod D``) whose
    interval reaches the width; the same stream at every ``n``."""
    by_study = probabilities[np.arange(studies) % probabilities.shape[0]]
    seen: dict[int, float] = {}

    def at(n: int) -> float:
        if n not in seen:
            rng = np.random.default_rng([seed, HYBRID_STREAM])
            counts = rng.multinomial(int(n), by_study)
            ci = study_intervals(study.metric, patterns, counts, **interval_options(study, k, seed))
            seen[n] = float(np.mean(reaches_width(ci.half_width, study.width)))
        return seen[n]

    return at


def raters_items_under_uncertainty(
    pilot: RatersPilot,
    study: RatersStudy,
    plug_in_items: int,
    *,
    assurance: float = 0.5,
    max_items: int = 10_000_000,
    rng: RngLike = None,
) -> RatersUncertainty:
    """Items whose assurance, averaged over the pilot's bootstrap truths, reaches the target.

    Raises
    ------
    TargetUnreachable
        When ``max_items`` items do not reach the hybrid assurance.
    """
    model = pilot.model
    study, _ = checked_study(model, study)
    assurance = check("assurance", assurance, RULES["assurance"])
    max_items = check("max_items", max_items, RULES["max_items"])
    plug_in_items = check("plug_in_items", plug_in_items, RULES["items"])
    seed = seed_from(rng)
    patterns, probabilities = _draw_probabilities(pilot, study)
    studies = int(
        min(max(HYBRID_STUDIES, study.replicates), max(400, HYBRID_CELLS // len(patterns)))
    )
    at = _hybrid(study, patterns, probabilities, studies, seed, model.n_categories)
    try:
        items = smallest_passing_near(lambda n: at(n) >= assurance, plug_in_items, max_items)
    except TargetUnreachable:
        raise TargetUnreachable(
            f"width {study.width:g} is not reached with hybrid assurance {assurance:g} even at "
            f"max_items {max_items}",
            parameters=("width", "assurance", "max_items"),
        ) from None
    a = at(items)
    se = float(np.sqrt(a * (1 - a) / studies))
    low, high = max(1, int(0.9 * items)), min(max_items, int(np.ceil(1.1 * items)))
    slope = (at(high) - at(low)) / max(high - low, 1)
    truths = [
        true_value(study.metric, patterns, p, study.level, model.n_categories)
        for p in probabilities
    ]
    return RatersUncertainty(
        metric=study.metric,
        items=int(items),
        items_mc_se=float(se / slope) if slope > 0 else float("inf"),
        hybrid_assurance=a,
        hybrid_assurance_se=se,
        target_assurance=assurance,
        plug_in_items=plug_in_items,
        plug_in_hybrid_assurance=at(plug_in_items),
        posterior={f"p{q}": float(np.nanquantile(truths, q / 100)) for q in (10, 50, 90)},
        draws=len(pilot.draws),
        studies=studies,
        seed=seed,
    )
