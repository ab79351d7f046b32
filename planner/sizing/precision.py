"""Fixed-size precision: what a given number of items, hours or money buys.

For ``n`` items (or the items that ``H`` person-hours or a budget ``C`` pay for, at the
plan's costs) the section reports, per metric, the expected union positives ``n r``, the
half-width's median and 10th/90th percentiles over studies of that size, the assurance
``P(half-width <= width)``, the typical interval (the medians of the lower and of the upper
limits over simulated studies) and the person-hours. For PSA with an interval in
:data:`~planner.sizing.exact.EXACT_PSA_METHODS` the half-width's law and the assurance are
exact binomial sums; otherwise they come from ``replicates`` simulated studies. Each metric
also reports its interval's coverage, the share of studies whose interval holds the model's
coefficient: exact for those PSA intervals (:func:`~planner.sizing.exact.exact_psa_coverage`),
else over the same simulated studies, with its Monte Carlo SE; an interval that under-covers
at this size (:func:`planner.sizing.interval_coverage.falls_short`) is a note of the plan.

:func:`assurance_curve` gives the assurance against items for the target width (exact for
PSA, common random numbers across ``n`` for kappa), for a table, a JSON array or a figure.
Its points are refined (:func:`refined_curve`) until the straight line between neighbours
is within :data:`CURVE_TOLERANCE` of the curve at the quarter points of every gap, so that
reading the figure at any size is close to the computed value; values are clipped to [0, 1].

Both functions are the one entry for every kind of study, and every kind runs the same
evaluators of label-pattern studies (:mod:`planner.sizing.raters_precision`:
:func:`~planner.sizing.raters_precision.precision_evidence`,
:func:`~planner.sizing.raters_precision.exact_assurance` and
:func:`~planner.sizing.raters_precision.nested_assurance`). A pair is the study of two
annotators: its studies are drawn as the four cells ``(a, b, c, d)`` and read as ordered label
patterns for kappa and as patterns of positives ``(a, b + c, d)`` for PSA
(:func:`pair_studies`); a model of several annotators draws its own patterns. What stays here
is what only a pair has: both metrics at once, in one :class:`Precision`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from planner.errors import InvalidInput
from planner.sizing.exact import (
    EXACT_PSA_METHODS,
)
from planner.sizing.interval_coverage import falls_short, under_coverage_note
from planner.sizing.label_patterns import pair_pattern_rows, pair_patterns
from planner.sizing.model import PairModel
from planner.sizing.raters_team_cost import priced_budget
from planner.sizing.studies import NestedStudies, simulate_tables
from planner.validation import RULES, RngLike, check, check_choice, check_instance, seed_from

if TYPE_CHECKING:  # several annotators' seam imports this module
    from planner.sizing.raters_common import CommonPrevalenceModel
    from planner.sizing.raters_model import RatersModel
    from planner.sizing.raters_precision import RatersPrecision

QUANTILES = (0.1, 0.5, 0.9)
#: their names in results and JSON
QUANTILE_NAMES = tuple(f"p{round(100 * q)}" for q in QUANTILES)
#: the largest gap allowed between a curve and the straight line between its plotted points
CURVE_TOLERANCE = 0.01
#: the most points a refined curve gets
MAX_CURVE_POINTS = 400


@dataclass(frozen=True)
class MetricPrecision:
    """The precision one metric reaches with a fixed number of items."""

    metric: str
    method: str
    items: int
    union_positives: float
    half_width: dict[str, float]
    assurance: float
    #: the median interval's ``lower`` and ``upper`` (None: never defined), ``level`` and
    #: ``method``
    interval: dict[str, float | str | None]
    basis: str
    #: what the interval estimates under the model: PSA, Cohen's kappa, or for the ``gof``
    #: interval the intraclass kappa
    true_value: float
    #: share of studies whose interval holds ``true_value`` (no interval: not held)
    coverage: float
    #: its Monte Carlo SE over the simulated studies; None when the coverage is exact
    #: (PSA by an interval of :data:`~planner.sizing.exact.EXACT_PSA_METHODS`)
    coverage_mc_se: float | None
    #: share of studies without an interval (for PSA: without union positives), counted
    #: as not covering
    no_interval: float

    def under_covers(self) -> bool:
        """Whether the interval's coverage falls short of its level (:func:`falls_short`)."""
        nominal = float(self.interval["level"])  # type: ignore[arg-type]
        return falls_short(self.coverage, self.coverage_mc_se, nominal)


@dataclass(frozen=True)
class Precision:
    """The ``precision`` section: fixed items (given, or bought by hours or a budget)."""

    items: int
    given: dict[str, float]
    metrics: dict[str, MetricPrecision]
    person_hours: float
    cost: float | None
    width: float
    seed: int

    def under_coverage_notes(self) -> list[str]:
        """One line for each metric whose interval under-covers at these items
        (:meth:`MetricPrecision.under_covers`)."""
        return [
            under_coverage_note(
                self.items,
                m.method,
                PAIR_METRIC_LABELS[name],
                m.coverage,
                float(m.interval["level"]),  # type: ignore[arg-type]
                m.no_interval,
            )
            for name, m in self.metrics.items()
            if m.under_covers()
        ]


#: the pair's metrics as notes and tables name them
PAIR_METRIC_LABELS = {"psa": "PSA", "kappa": "Cohen's kappa"}


def seconds_per_study_item(settings: Any, contested_rate: float) -> float:
    """Person-seconds one item costs: labels plus its expected adjudication (a named team's,
    ``settings.team``: each person's share, :mod:`planner.sizing.raters_team_cost`)."""
    if getattr(settings, "team", None) is not None:
        return float(sum(settings.team.item_seconds(contested_rate)))
    return (
        settings.annotators_per_item * settings.seconds_per_item
        + contested_rate * settings.adjudication_seconds
    )


#: the most items a fixed-size study may have (the ``items`` rule's upper limit)
MAX_FIXED_ITEMS = 10_000_000


def _items_bought(
    name: str, value: float, hours: float, settings: Any, contested_rate: float, per_hour: float
) -> int:
    """The items ``hours`` pay for; ``name``/``value`` (hours or budget) name the error.

    ``per_hour`` converts hours into the unit of ``value`` (1 for hours, the hourly rate for
    a budget), so that the largest value that fits is said in the user's own unit.
    """
    seconds = seconds_per_study_item(settings, contested_rate)
    exact = hours * 3600.0 / seconds  # a float: a huge budget never becomes a huge integer
    if not math.isfinite(exact) or exact >= MAX_FIXED_ITEMS + 1:
        largest = f"{MAX_FIXED_ITEMS * seconds / 3600.0 * per_hour:,.2f}".rstrip("0").rstrip(".")
        raise InvalidInput(
            f"{name} {value:g} pays for more than the largest number of items "
            f"(max_items {MAX_FIXED_ITEMS:,}); at most {largest} fits",
            parameter=name,
        )
    items = int(math.floor(exact))
    team = getattr(settings, "team", None)
    if team is not None:  # a named team's overlap block makes the first items dearer
        unit = "person_hours" if name == "hours" else "cost"
        items = team.most_items(value, unit, contested_rate, items)
    if items < 1:
        raise InvalidInput(
            f"{name} {value:g} does not pay for one item ({seconds:g} person-seconds an item)",
            parameter=name,
        )
    return items


def items_for_hours(hours: float, settings: Any, contested_rate: float) -> int:
    """The most items whose person-hours (:func:`priced_budget`) fit in ``hours``."""
    hours = check("hours", hours, RULES["hours"])
    return _items_bought("hours", hours, hours, settings, contested_rate, 1.0)


def items_for_budget(budget: float, settings: Any, contested_rate: float) -> int:
    """The most items a budget pays for at ``settings.hourly_rate``."""
    budget = check("budget", budget, RULES["budget"])
    team = getattr(settings, "team", None)
    item_cost = settings.hourly_rate if team is None else team.item_cost(contested_rate)
    if not item_cost:
        raise InvalidInput(
            "budget needs hourly_rate (the cost of one person-hour) to buy items",
            parameter="budget",
        )
    rate = float(settings.hourly_rate or 0.0)
    if team is not None:  # a person-hour's cost, averaged over an item's work as they share it
        rate = item_cost * 3600.0 / seconds_per_study_item(settings, contested_rate)
    return _items_bought("budget", budget, budget / rate, settings, contested_rate, rate)


def pair_studies(model: PairModel, metric: str, n: int, replicates: int, rng: Any) -> Any:
    """``replicates`` studies of a pair of ``n`` items as label-pattern counts
    (:class:`~planner.sizing.raters_precision.SimulatedStudies`), drawn as the four cells
    (:func:`~planner.sizing.studies.simulate_tables`) and, for PSA, counted as patterns of
    positives."""
    from planner.sizing.raters_precision import SimulatedStudies

    cells = simulate_tables(model.cells, n, replicates, rng=rng).reshape(replicates, 4)
    probabilities = pair_patterns(np.asarray(model.cells, dtype=float), metric)
    patterns = pair_pattern_rows(metric)
    return SimulatedStudies(n, patterns, probabilities, pair_patterns(cells, metric))


def _pair_study(metric: str, settings: Any) -> Any:
    """The pair's ``metric`` by its interval method, as a study of two annotators."""
    from planner.sizing.raters_precision import RatersStudy

    method = settings.psa_method if metric == "psa" else settings.kappa_method
    return RatersStudy(
        metric, settings.width, confidence_level=settings.confidence_level,
        replicates=settings.replicates, method=method,
    )  # fmt: skip


def _metric_precision(
    model: PairModel, metric: str, n: int, settings: Any, rng: np.random.Generator
) -> MetricPrecision:
    """One metric's precision: the pair's studies through the M-annotator evidence
    (:func:`planner.sizing.raters_precision.precision_evidence`, two annotators)."""
    from planner.sizing.raters_precision import precision_evidence

    study = _pair_study(metric, settings)
    method, level = str(study.method), study.confidence_level
    bootstrap = rng.spawn(1)[0]
    studies = pair_studies(model, metric, n, settings.replicates, rng)
    evidence = precision_evidence(model, study, studies, rng=bootstrap)
    exact = metric == "psa" and method in EXACT_PSA_METHODS
    truth = evidence.true_value
    lower, upper = evidence.interval
    return MetricPrecision(
        metric=metric,
        method=method,
        items=n,
        union_positives=n * model.union_rate,
        half_width=dict(zip(QUANTILE_NAMES, evidence.quantiles, strict=True)),
        assurance=evidence.assurance,
        interval={"lower": lower, "upper": upper, "level": level, "method": method},
        basis="exact" if exact else "monte-carlo",
        true_value=truth,
        coverage=evidence.coverage,
        coverage_mc_se=None if evidence.exact_law else evidence.coverage_mc_se,
        no_interval=evidence.no_interval,
    )


@overload
def fixed_size_precision(
    model: PairModel,
    settings: Any,
    *,
    items: int | None = None,
    hours: float | None = None,
    budget: float | None = None,
    rng: RngLike = None,
) -> Precision: ...


@overload
def fixed_size_precision(
    model: RatersModel | CommonPrevalenceModel,
    settings: Any,
    *,
    items: int | None = None,
    hours: float | None = None,
    budget: float | None = None,
    rng: RngLike = None,
) -> RatersPrecision: ...


def fixed_size_precision(
    model: PairModel | RatersModel | CommonPrevalenceModel,
    settings: Any,
    *,
    items: int | None = None,
    hours: float | None = None,
    budget: float | None = None,
    rng: RngLike = None,
) -> Precision | RatersPrecision:
    """The precision a fixed study buys: give exactly one of ``items``, ``hours``, ``budget``.

    ``hours`` and ``budget`` are converted to items with the costs of ``settings``
    (:class:`~planner.sizing.plan.PlanSettings`): labels per item, seconds per item, the
    model's contested share times the adjudication seconds, and (for ``budget``) the hourly
    rate. Each metric of ``settings.metrics`` is reported (:class:`MetricPrecision`).

    A model of several annotators (:class:`~planner.sizing.raters_model.RatersModel`,
    :class:`~planner.sizing.raters_common.CommonPrevalenceModel`) is simulated as label
    patterns (:func:`planner.sizing.raters_precision.raters_fixed_size`) for the settings'
    one metric, ``level`` and ``per_item``, each item billed its ``per_item`` (else every
    annotator's) labels: a :class:`~planner.sizing.raters_precision.RatersPrecision`.
    """
    from planner.sizing.plan import PlanSettings  # plan imports this module

    check_instance("settings", settings, PlanSettings, "a PlanSettings")
    if not isinstance(model, PairModel):
        from planner.sizing.raters_precision import raters_fixed_size, study_and_costs

        study, costs = study_and_costs(model, settings)
        return raters_fixed_size(
            model, study, costs, items=items, hours=hours, budget=budget, rng=rng
        )
    from planner.sizing.plan import check_pair_settings

    check_pair_settings(settings)
    for name, amount in (("items", items), ("hours", hours), ("budget", budget)):
        if amount is not None:
            check(name, amount, RULES[name])
    given = {k: v for k, v in (("items", items), ("hours", hours), ("budget", budget)) if v}
    if len([v for v in (items, hours, budget) if v is not None]) != 1:
        named = (
            " and ".join(
                k
                for k, v in (("items", items), ("hours", hours), ("budget", budget))
                if v is not None
            )
            or "none"
        )
        raise InvalidInput(f"give one of items, hours or budget; got {named}", parameter="items")
    if items is not None:
        n = check("items", items, RULES["items"])
    elif hours is not None:
        n = items_for_hours(hours, settings, model.contested_rate)
    else:
        n = items_for_budget(float(budget), settings, model.contested_rate)  # type: ignore[arg-type]
    n = check("items", n, RULES["items"])
    seed = seed_from(rng)
    streams = dict(zip(("psa", "kappa"), np.random.default_rng(seed).spawn(2), strict=True))
    metrics = {m: _metric_precision(model, m, n, settings, streams[m]) for m in settings.metrics}
    cost = priced_budget(settings, n, model.contested_rate)
    return Precision(
        items=n,
        given={k: float(v) for k, v in given.items()},
        metrics=metrics,
        person_hours=cost.person_hours,
        cost=cost.cost,
        width=settings.width,
        seed=seed,
    )


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
    label-pattern studies (:func:`planner.sizing.raters_precision.raters_assurance_curve`).
    """
    from planner.sizing.plan import PlanSettings  # plan imports this module

    check_instance("settings", settings, PlanSettings, "a PlanSettings")
    if not isinstance(model, PairModel):
        from planner.sizing.raters_precision import raters_assurance_curve, study_and_costs

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
    (:func:`planner.sizing.raters_precision.exact_assurance`, else
    :func:`~planner.sizing.raters_precision.nested_assurance` on nested 2x2 tables, read as
    label patterns as :func:`pair_studies` reads them)."""
    from planner.sizing.raters_precision import exact_assurance, nested_assurance

    study = _pair_study(metric, settings)
    exact = exact_assurance(model, study)
    if exact is not None:
        return exact
    study_rng, interval_rng = np.random.default_rng(seed_from(rng)).spawn(2)
    studies = NestedStudies(model.cells, settings.replicates, rng=study_rng)

    def counts_at(n: int) -> Any:
        return pair_patterns(studies.tables(n).reshape(-1, 4), metric)

    patterns = pair_pattern_rows(metric)
    return nested_assurance(model, study, patterns, counts_at, rng=interval_rng)
