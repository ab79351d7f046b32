"""Planning the alternative annotator test: how many items give the LLM a fair chance to pass.

The model: every item has a true category drawn from the prevalences; each annotator (the
``M`` humans and the LLM) gives the true label with probability ``1 - error``, else a random
draw over the ``K`` categories (uniform, or from the prevalences: ``error_draw="prior"``, the
authors' generator). Every item is labelled by all ``M`` humans and the LLM. The model and
its difference classes are :mod:`planner.sizing.alt_test_model` (re-exported here); this
module is the search.

No items are simulated. The label pattern of an item (``K^(M+1)`` cells) fixes every
human's ``d = W^h - W^f``, so the test depends on an item only through its vector
``(d_1, ..., d_M)`` (at most ``3^M`` classes): a replicate study is a multinomial draw of
class counts, and each human's counts of ``d = -1, 0, +1`` are sums over classes. Studies
of different sizes share their random numbers (common random numbers): a larger study adds
items to a smaller one, so the pass probability is estimated on one nested sequence of
studies, in bounded memory (:mod:`planner.sizing.alt_test_studies`).

P(pass) is saw-toothed in ``n`` (the t-test's and Benjamini-Yekutieli's thresholds move in
steps of one item), so a plan that stops at the first size reaching the target can lose power
when a few items are added. :func:`plan_alt_test` walks the sizes upwards
(:func:`~planner.sizing.alt_test_studies.size_grid`) past the first crossing ``n_1`` to
``max(2 n_1, n_1 + 50)`` (further while the last size misses the target), and plans the
smallest size from which P(pass) stays at or above the target over that range; the first
crossing and the whole curve are reported too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput, TargetUnreachable
from planner.operations.budget import Budget, labelling_budget
from planner.renamed import renamed_field
from planner.sizing.alt_test_model import (
    AltTestModel,
    alt_test_model,
    difference_classes,
)
from planner.sizing.alt_test_settings import AltTestPlanSettings
from planner.sizing.alt_test_studies import NestedPassStudies, size_grid
from planner.sizing.sample_size_search import scan_until_stays, stays_from
from planner.statistics.alt_test_stats import MIN_ITEMS, by_thresholds
from planner.validation import (
    RULES,
    RngLike,
    check,
    check_instance,
    compact_repr,
    seed_from,
)

Progress = Callable[[int, int], None]


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class PassProbability:
    """The probability that the alt-test passes with ``n_items`` items, by Monte Carlo."""

    n_items: int
    probability: float
    standard_error: float
    replicates: int
    seed: int


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class AltTestPlan:
    """The smallest number of items from which the alt-test passes with probability at least
    ``power`` at every size searched above it.

    Attributes
    ----------
    model
        The planning model.
    epsilon, q, power
        The test's margin and FDR level, and the target pass probability.
    n_items
        Items (each labelled by every human and the LLM): the smallest size from which
        P(pass) stays at or above ``power`` up to ``searched_to``.
    first_crossing
        The smallest size where P(pass) first reaches ``power`` (equal to ``n_items`` unless
        the saw-tooth dips below the target again above it).
    searched_to
        The largest size searched: ``max(2 first_crossing, first_crossing + 50)``, further
        while P(pass) there misses the target, at most ``max_items``.
    pass_probability, standard_error
        Monte Carlo estimate of P(pass) at ``n_items`` and its standard error.
    analytic_start
        The search's start: one human's t-test power at the Benjamini-Yekutieli threshold of
        the ``ceil(M/2)``-th p-value, for the human needing the ``ceil(M/2)``-th fewest items.
    mean_difference
        ``(M,)`` the expected ``d`` per human (the test needs it below ``epsilon``).
    evaluated
        ``(n, P(pass))`` of every size the search evaluated, in order of ``n``: the P(pass)
        curve on :func:`~planner.sizing.alt_test_studies.size_grid` from ``min_items``.
    replicates, seed
        Replicate studies per size and the seed that reproduces them.
    budget
        Person-hours of the humans' labels (the LLM's are free), or None.
    min_items
        The smallest size searched (no human is tested on fewer items).
    """

    __repr__ = compact_repr  # shapes, not every value

    model: AltTestModel
    epsilon: float
    q: float
    power: float
    n_items: int
    pass_probability: float
    standard_error: float
    analytic_start: int
    mean_difference: tuple[float, ...]
    evaluated: tuple[tuple[int, float], ...]
    replicates: int
    seed: int
    budget: Budget | None = None
    min_items: int = MIN_ITEMS
    first_crossing: int = 0
    searched_to: int = 0

    @property
    def dips_above_first_crossing(self) -> bool:
        """Whether P(pass) falls below the target again above its first crossing."""
        return self.n_items != self.first_crossing


def _moments(d: NDArray[np.int64], prob: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
    mean = prob @ d
    return mean, np.sqrt(np.maximum(prob @ (d**2) - mean**2, 0.0))


def analytic_start(
    d: NDArray[np.int64], prob: NDArray[np.float64], epsilon: float, q: float, power: float
) -> float:
    """Items for one human's t-test to reach ``power`` at the BY threshold of rank ``ceil(M/2)``.

    ``n = ((z_{1-a} + z_power) sigma_j / (epsilon - mu_j))^2`` with ``a = k q / (M H_M)``,
    ``k = ceil(M/2)``, taken at the human needing the ``k``-th fewest items (inf when fewer
    than ``k`` humans have ``mu_j < epsilon``).
    """
    from scipy.special import ndtri

    m = d.shape[1]
    k = math.ceil(m / 2)
    a = by_thresholds(m, q)[k - 1]
    mu, sigma = _moments(d, prob)
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.where(
            mu < epsilon, ((ndtri(1 - a) + ndtri(power)) * sigma / (epsilon - mu)) ** 2, np.inf
        )
    return float(np.sort(n)[k - 1])


def pass_probability(
    model: AltTestModel,
    n_items: int,
    settings: AltTestPlanSettings = AltTestPlanSettings(),
    *,
    rng: RngLike = None,
) -> PassProbability:
    """P(the alt-test passes) with ``n_items`` items under ``model``, by Monte Carlo.

    Each of ``settings.replicates`` replicate studies is a multinomial draw of the items'
    difference classes (:func:`difference_classes`); the test is the authors' (t-test from 30
    items, Wilcoxon below; Benjamini-Yekutieli at ``q``; pass at ``omega >= 0.5``):
    ``P(pass) ~ (1/R) sum_r 1[omega_r >= 1/2]``, standard error ``sqrt(P (1 - P) / R)``.

    ``n_items`` must be at least ``settings.min_items`` (as in
    :func:`planner.measuring.alt_test.alt_test`, no human is tested below it). Below 30 items
    the Wilcoxon signed-rank test is used, which tests the median, not the mean, of ``d``:
    with many ties it rejects far more often than its level at the null's boundary, so
    P(pass) jumps down from 29 to 30 items.
    """
    check_instance("model", model, AltTestModel, "an AltTestModel (see alt_test_model)")
    check_instance("settings", settings, AltTestPlanSettings, "an AltTestPlanSettings")
    n_items = check("n_items", n_items, RULES["alt_min_items"])
    if n_items < settings.min_items:
        raise InvalidInput(
            f"n_items must be at least min_items ({settings.min_items}), got {n_items}: no "
            "human is tested on fewer items (lower min_items to plan the Wilcoxon test below 30)",
            parameter="n_items",
        )
    seed = seed_from(rng)
    d, prob = difference_classes(model)
    studies = NestedPassStudies(
        d, prob, settings.replicates, seed, epsilon=settings.epsilon, q=settings.q,
        block_replicates=settings.block_replicates,
    )  # fmt: skip
    p = studies.pass_probability(n_items)
    replicates = settings.replicates
    return PassProbability(n_items, p, math.sqrt(p * (1 - p) / replicates), replicates, seed)


def plan_alt_test(
    model: AltTestModel,
    settings: AltTestPlanSettings = AltTestPlanSettings(),
    *,
    rng: RngLike = None,
    progress: Progress | None = None,
) -> AltTestPlan:
    """The smallest number of items, at least ``min_items``, from which P(pass) stays at or
    above ``power`` over the searched range (module docstring).

    Monte Carlo on one nested sequence of replicate studies (common random numbers), grown
    along :func:`~planner.sizing.alt_test_studies.size_grid` from ``min_items``; the
    analytic start (:func:`analytic_start`) is reported beside it. With the default
    ``min_items = 30`` every test is a t-test, as in the authors' code; lower it to plan
    with the Wilcoxon test below 30 items (see :func:`pass_probability` for why that test
    passes more easily). ``progress(done, total)`` is called after each size evaluated
    (``total`` the sizes up to ``max_items``).

    Raises
    ------
    TargetUnreachable
        When fewer than half the humans are expected worse than the LLM by less than
        ``epsilon`` (P(pass) then falls as items grow), or ``power`` is not reached within
        ``max_items``.
    """
    check_instance("model", model, AltTestModel, "an AltTestModel (see alt_test_model)")
    check_instance("settings", settings, AltTestPlanSettings, "an AltTestPlanSettings")
    s = settings
    seed = seed_from(rng)
    d, prob = difference_classes(model)
    start = analytic_start(d, prob, s.epsilon, s.q, s.power)
    mu, _ = _moments(d, prob)
    if not math.isfinite(start):
        raise TargetUnreachable(
            f"epsilon {s.epsilon:g}: the expected advantage of the humans over the LLM "
            f"(mean d = {', '.join(f'{x:.3f}' for x in mu)}) is at least epsilon for more than "
            "half the humans, so the alt-test cannot be expected to pass at any number of items",
            parameters=("epsilon",),
        )
    studies = NestedPassStudies(
        d, prob, s.replicates, seed, epsilon=s.epsilon, q=s.q, block_replicates=s.block_replicates
    )
    evaluated, first, top = _walk(studies, s.power, (s.min_items, s.max_items), progress)
    n = stays_from(evaluated, s.power)
    p = evaluated[n]
    budget = None
    if s.seconds_per_item is not None:
        budget = labelling_budget(
            n,
            annotators_per_item=model.n_humans,
            seconds_per_item=s.seconds_per_item,
            hourly_rate=s.hourly_rate,
        )
    return AltTestPlan(
        model=model,
        epsilon=s.epsilon,
        q=s.q,
        power=s.power,
        n_items=n,
        pass_probability=p,
        standard_error=math.sqrt(p * (1 - p) / s.replicates),
        analytic_start=max(s.min_items, math.ceil(start)),
        mean_difference=tuple(float(x) for x in mu),
        evaluated=tuple(sorted(evaluated.items())),
        replicates=s.replicates,
        seed=seed,
        budget=budget,
        min_items=s.min_items,
        first_crossing=first,
        searched_to=top,
    )


def _walk(
    studies: NestedPassStudies,
    power: float,
    limits: tuple[int, int],
    progress: Progress | None = None,
) -> tuple[dict[int, float], int, int]:
    """P(pass) up the size grid (:func:`~planner.sizing.sample_size_search.scan_until_stays`):
    to the first crossing, then to ``max(2 n_1, n_1 + 50)``, doubling the range while its
    last size misses ``power``; ``(curve, n_1, last size)``."""
    floor, max_items = limits
    grid = size_grid(floor, max_items)
    done = iter(range(1, len(grid) + 1))

    def criterion(n: int) -> float:
        value = studies.pass_probability(n)
        if progress is not None:
            progress(next(done), len(grid))
        return value

    scan = scan_until_stays(criterion, power, grid, max_items)
    if scan.first_crossing is None:
        raise TargetUnreachable(
            f"power {power:g} is not reached within max_items {max_items:,} items "
            f"(P(pass) = {scan.last_value:.3f} there)",
            parameters=("power", "max_items"),
        )
    if scan.last_value < power:
        raise TargetUnreachable(
            f"P(pass) first reaches power {power:g} at {scan.first_crossing:,} items but "
            f"falls below it again up to max_items {max_items:,} ({scan.last_value:.3f} there)",
            parameters=("power", "max_items"),
        )
    return scan.evaluated, scan.first_crossing, scan.searched_to


def plan_table(
    model: AltTestModel,
    settings: AltTestPlanSettings = AltTestPlanSettings(),
    *,
    rng: RngLike = None,
    progress: Progress | None = None,
) -> tuple[AltTestPlan | None, ...]:
    """One plan per number of humans in ``settings.table_humans`` (None where the target is
    unreachable), with hours; every human has ``model``'s first error rate.

    Adding a human adds a label to every item, adding items adds ``M`` labels each: the
    person-hours column shows which is cheaper. Each row has its own stream spawned from
    ``rng``; the seeds are recorded in the plans. ``progress(done, total)`` counts rows.
    """
    check_instance("model", model, AltTestModel, "an AltTestModel (see alt_test_model)")
    humans = settings.table_humans
    streams = np.random.default_rng(seed_from(rng)).spawn(len(humans))
    rows: list[AltTestPlan | None] = []
    for m, stream in zip(humans, streams, strict=True):
        row_model = alt_test_model(
            humans=m,
            human_error=model.human_error[0],
            llm_error=model.llm_error,
            prevalences=model.prevalences,
            error_draw=model.error_draw,
        )
        try:
            rows.append(plan_alt_test(row_model, settings, rng=stream))
        except TargetUnreachable:
            rows.append(None)
        if progress is not None:
            progress(len(rows), len(humans))
    return tuple(rows)


@dataclass(frozen=True)
class AltTestPlanSummary:
    """What a report's alt-test section shows: the model, the plan, P(pass) at the items
    a study has, and the humans table.

    Attributes
    ----------
    model_description
        The planning model in words.
    epsilon, power
        The margin and the target pass probability.
    n_items, pass_probability, person_hours
        The plan at the model's number of humans (None where unreachable).
    items_given, pass_probability_at_items
        The study's own number of items (if any) and P(pass) there.
    table
        ``(humans, n_items or None, person_hours or None)`` per number of humans of the
        settings' table (empty without one).
    seed
        Reproduces every number.
    first_crossing, searched_to, curve
        The plan's first size reaching the target, its last size searched, and its P(pass)
        curve ``((n, P(pass)), ...)`` (empty where unreachable).
    plan, at_items, rows
        The plan itself, P(pass) at ``items_given`` and the table's plans (empty without a
        table).
    unreachable
        Why there is no plan (None when there is one).
    """

    model_description: str
    epsilon: float
    power: float
    n_items: int | None
    pass_probability: float | None
    person_hours: float | None
    items_given: int | None
    pass_probability_at_items: float | None
    table: tuple[tuple[int, int | None, float | None], ...]
    seed: int
    first_crossing: int | None = None
    searched_to: int | None = None
    curve: tuple[tuple[int, float], ...] = ()
    plan: AltTestPlan | None = None
    at_items: PassProbability | None = None
    rows: tuple[AltTestPlan | None, ...] = ()
    unreachable: TargetUnreachable | None = field(default=None, compare=False)


def alt_test_plan_summary(
    model: AltTestModel,
    settings: AltTestPlanSettings = AltTestPlanSettings(),
    *,
    rng: RngLike = None,
    progress: Progress | None = None,
) -> AltTestPlanSummary:
    """The one assembly of an Alt-Test plan: the plan, P(pass) at ``settings.items``, and
    (``settings.table``) the plans over ``settings.table_humans``.

    All three are drawn from the one seed of ``rng`` (common random numbers: P(pass) at the
    items and the table's row of ``model``'s humans are read from the plan's seed). The
    table's row with as many humans as ``model`` is the plan itself when every human has the
    same error rate (the table uses the first human's error rate for every row).
    An unreachable plan is None, its reason kept in ``unreachable``.
    """
    check_instance("settings", settings, AltTestPlanSettings, "an AltTestPlanSettings")
    seed = seed_from(rng)
    plan: AltTestPlan | None = None
    unreachable: TargetUnreachable | None = None
    try:
        plan = plan_alt_test(model, settings, rng=seed, progress=progress)
    except TargetUnreachable as error:
        unreachable = error
    at = (
        None
        if settings.items is None
        else pass_probability(model, settings.items, settings, rng=seed)
    )
    rows = _table(model, settings, plan, seed, progress)
    return AltTestPlanSummary(
        model_description=model.describe(),
        epsilon=settings.epsilon,
        power=settings.power,
        n_items=None if plan is None else plan.n_items,
        pass_probability=None if plan is None else plan.pass_probability,
        person_hours=_hours(plan),
        items_given=settings.items,
        pass_probability_at_items=None if at is None else at.probability,
        table=tuple(
            (m, None if r is None else r.n_items, _hours(r))
            for m, r in zip(settings.table_humans if rows else (), rows, strict=True)
        ),
        seed=seed,
        **_curve_fields(plan),
        plan=plan,
        at_items=at,
        rows=rows,
        unreachable=unreachable,
    )


def _table(
    model: AltTestModel,
    settings: AltTestPlanSettings,
    plan: AltTestPlan | None,
    seed: int,
    progress: Progress | None,
) -> tuple[AltTestPlan | None, ...]:
    """The summary's table (empty unless ``settings.table``): :func:`plan_table` from
    ``seed``, its row of ``model``'s humans the plan when all humans err alike."""
    if not settings.table:
        return ()
    rows = plan_table(model, settings, rng=seed, progress=progress)
    if len(set(model.human_error)) > 1:
        return rows
    return tuple(
        plan if m == model.n_humans and plan is not None else r
        for m, r in zip(settings.table_humans, rows, strict=True)
    )


def _hours(plan: AltTestPlan | None) -> float | None:
    return None if plan is None or plan.budget is None else plan.budget.person_hours


def _curve_fields(plan: AltTestPlan | None) -> dict[str, Any]:
    """The summary's first crossing, range searched and P(pass) curve of ``plan``."""
    if plan is None:
        return {"first_crossing": None, "searched_to": None, "curve": ()}
    return {
        "first_crossing": plan.first_crossing,
        "searched_to": plan.searched_to,
        "curve": plan.evaluated,
    }
