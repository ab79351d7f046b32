"""The assurance curve: ``A(n) = P(half-width <= w)`` against items, for every kind of study.

:func:`assurance_curve` gives the assurance against items for the target width of a plan's
settings, for a table, a JSON array or a figure: exact for PSA with an interval in
:data:`~planner.sizing.exact.EXACT_PSA_METHODS`, otherwise from nested simulated studies
(the study at ``n`` items holds the study at every smaller size: common random numbers
across ``n``, so the curve is smooth). A pair's nested studies are drawn as the four cells and
read as label patterns of two annotators; several annotators' as their own label patterns
(:func:`raters_assurance_curve`, which takes a :class:`~planner.sizing.study_precision.
RatersStudy`); both are evaluated by :func:`~planner.sizing.study_precision.exact_assurance`
or :func:`~planner.sizing.study_precision.nested_assurance`.

Its points are refined (:func:`refined_curve`) until the straight line between neighbours
is within :data:`CURVE_TOLERANCE` of the curve at the quarter points of every gap, so that
reading the figure at any size is close to the computed value; values are clipped to [0, 1].
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from planner.sizing.annotator_model import RatersModel
from planner.sizing.common_prevalence_model import AnyRatersModel, CommonPrevalenceModel
from planner.sizing.label_patterns import pair_pattern_rows, pair_patterns
from planner.sizing.model import PairModel
from planner.sizing.studies import NestedPatternStudies, NestedStudies
from planner.sizing.study_intervals import pattern_space
from planner.sizing.study_precision import (
    BOOTSTRAP_STREAM,
    CURVE_STREAM,
    RatersStudy,
    checked_study,
    exact_assurance,
    nested_assurance,
    pair_study,
)
from planner.validation import RULES, RngLike, check, check_choice, check_instance, seed_from

#: the largest gap allowed between a curve and the straight line between its plotted points
CURVE_TOLERANCE = 0.01

#: the most points a refined curve gets
MAX_CURVE_POINTS = 400


def curve_items(center: int, points: int = 12) -> list[int]:
    """Item counts from a quarter to twice ``center``, evenly spaced on a log scale."""
    grid = np.geomspace(max(center / 4, 2), max(2 * center, 4), points)
    return sorted({int(round(n)) for n in grid})


def refined_curve(
    evaluate: Callable[[int], float],
    items: Iterable[int],
    tolerance: float = CURVE_TOLERANCE,
    max_points: int = MAX_CURVE_POINTS,
) -> list[dict[str, float]]:
    """``[{"items": n, "assurance": A(n)}, ...]`` on ``items`` and the points a reader needs.

    Each gap ``(lo, hi)`` between neighbouring points is probed at its quarter points
    ``lo + k (hi - lo) / 4`` (``k = 1, 2, 3``); when ``A`` there is more than ``tolerance``
    from the straight line between ``(lo, A(lo))`` and ``(hi, A(hi))`` the probes become
    points and the four smaller gaps are probed in turn, until every gap passes, is a single
    item wide, or the curve has ``max_points`` points. Values are clipped to [0, 1] (a
    binomial sum can exceed 1 by rounding). Tests read the line at every size and compare.
    """
    seen: dict[int, float] = {}

    def value(n: int) -> float:
        if n not in seen:
            seen[n] = min(max(float(evaluate(n)), 0.0), 1.0)
        return seen[n]

    points = sorted({int(n) for n in items})
    kept = {n: value(n) for n in points}
    gaps = list(zip(points, points[1:], strict=False))
    while gaps and len(kept) < max_points:
        lo, hi = gaps.pop()
        probes = sorted({lo + (hi - lo) * k // 4 for k in (1, 2, 3)} - {lo, hi})
        if not probes:
            continue
        slope = (kept[hi] - kept[lo]) / (hi - lo)
        if all(abs(value(p) - kept[lo] - slope * (p - lo)) <= tolerance for p in probes):
            continue
        kept.update({p: value(p) for p in probes})
        ends = [lo, *probes, hi]
        gaps += list(zip(ends, ends[1:], strict=False))
    return [{"items": n, "assurance": kept[n]} for n in sorted(kept)]


def assurance_curve(
    model: PairModel | RatersModel | CommonPrevalenceModel,
    metric: str,
    settings: Any,
    items: list[int],
    *,
    rng: RngLike = None,
    planned: int | None = None,
) -> list[dict[str, float]]:
    """``[{"items": n, "assurance": A(n)}, ...]`` for the target width of ``settings``.

    Exact for PSA with an interval in :data:`EXACT_PSA_METHODS`; otherwise from
    ``settings.replicates`` nested simulated studies (common random numbers across ``n``, so the
    curve is smooth). The points are ``items``, ``planned`` (the plan's size, when given) and
    those :func:`refined_curve` adds; values are clipped to [0, 1]. A model of several
    annotators: ``metric`` with the settings' ``level`` and ``per_item`` on nested
    label-pattern studies (:func:`raters_assurance_curve`).
    """
    from planner.sizing.plan import PlanSettings  # plan imports this module

    check_instance("settings", settings, PlanSettings, "a PlanSettings")
    if not isinstance(model, PairModel):
        from planner.sizing.precision import study_and_costs

        study = replace(study_and_costs(model, settings)[0], metric=metric)
        return raters_assurance_curve(model, study, items, planned=planned, rng=rng)
    check_choice("metric", metric, ("psa", "kappa"))
    items = [
        check("items", n, RULES["items"])
        for n in check_instance("items", items, (list, tuple), "a list of item counts")
    ]
    ns = [check("items", n, RULES["items"]) for n in items]
    if planned is not None:
        ns.append(check("items", planned, RULES["items"]))
    return refined_curve(_pair_assurance(model, metric, settings, rng), ns)


def _pair_assurance(
    model: PairModel, metric: str, settings: Any, rng: RngLike
) -> Callable[[int], float]:
    """A pair's ``A(n)`` through the M-annotator evaluators of two annotators
    (:func:`~planner.sizing.study_precision.exact_assurance`, else
    :func:`~planner.sizing.study_precision.nested_assurance` on nested 2x2 tables, read as
    label patterns as :func:`planner.sizing.precision.pair_studies` reads them)."""
    study = pair_study(metric, settings)
    exact = exact_assurance(model, study)
    if exact is not None:
        return exact
    study_rng, interval_rng = np.random.default_rng(seed_from(rng)).spawn(2)
    studies = NestedStudies(model.cells, settings.replicates, rng=study_rng)

    def counts_at(n: int) -> Any:
        return pair_patterns(studies.tables(n).reshape(-1, 4), metric)

    patterns = pair_pattern_rows(metric)
    return nested_assurance(model, study, patterns, counts_at, rng=interval_rng)


def raters_assurance_curve(
    model: AnyRatersModel,
    study: RatersStudy,
    items: list[int],
    *,
    planned: int | None = None,
    rng: RngLike = None,
) -> list[dict[str, float]]:
    """``[{"items": n, "assurance": A(n)}, ...]``: ``P(half-width <= width)`` against items.

    ``A(n)`` is the share of ``study.replicates`` nested studies (the study at ``n`` items holds
    the study at every smaller size: common random numbers) whose interval reaches the
    width. The points are ``items``, ``planned`` (the plan's size, when given) and those
    :func:`refined_curve` adds.

    Examples
    --------
    >>> from planner.sizing.annotator_model import raters_model
    >>> model = raters_model(0.3, 3, error_rate=0.1)
    >>> curve = raters_assurance_curve(model, RatersStudy("fleiss", 0.1, replicates=200),
    ...                                [50, 400, 3000], rng=1)
    >>> curve[0]["assurance"], curve[-1]["assurance"]
    (0.0, 1.0)
    """
    study, _ = checked_study(model, study)
    ns = [
        check("items", n, RULES["items"])
        for n in check_instance("items", items, (list, tuple), "a list of item counts")
    ]
    if planned is not None:
        ns.append(check("items", planned, RULES["items"]))
    seed = seed_from(rng)
    exact = exact_assurance(model, study)
    if exact is not None:  # exact: the seed is not used
        return refined_curve(exact, ns)
    patterns, probs = pattern_space(model, study.metric, study.per_item)
    stream = np.random.default_rng([seed, CURVE_STREAM])
    studies = NestedPatternStudies(probs, study.replicates, rng=stream)
    bootstrap = np.random.default_rng([seed, BOOTSTRAP_STREAM]) if study.method else None
    evaluate = nested_assurance(model, study, patterns, studies.counts, rng=bootstrap)
    return refined_curve(evaluate, ns)
