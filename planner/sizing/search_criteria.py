"""What the sample-size search evaluates: its starts, its criteria and their crossings.

:func:`planner.sizing.search.find_sample_size` asks for the smallest ``n`` whose assurance
``P(half-width <= width)`` reaches a target. This module holds, for each kind of study,
where the search starts and the criterion it bisects
(:func:`planner.sizing.sample_size_search.first_crossing`, the criterion being monotone in
``n``):

* the pair's start, :func:`analytic_items` (the delta method for PSA, Fleiss-Cohen-Everitt
  for kappa), and its interval as a function of stacked 2x2 tables,
  :func:`interval_function`;
* the pair's Monte Carlo assurance on nested tables, :func:`tables_crossing` (the exact
  assurance is :class:`planner.sizing.exact.ExactPSAAssurance`);
* the Monte Carlo assurance of M annotators on nested label-pattern counts, in two stages
  (:func:`two_stage_search`): a rough search on ``replicates`` studies, then a refining one from
  its answer on :data:`REFINE_FACTOR` times as many new nested studies whose assurance must
  reach the target plus :data:`MARGIN_SE` Monte Carlo SE of the fresh check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.annotator_model import RatersModel
from planner.sizing.common_prevalence_model import CommonPrevalenceModel
from planner.sizing.exact import reaches_width
from planner.sizing.model import PairModel
from planner.sizing.sample_size_search import (
    Crossing,
    Evaluations,
    crossing_standard_error,
    first_crossing,
    unreachable_error,
)
from planner.sizing.studies import NestedPatternStudies, NestedStudies
from planner.statistics.intervals import (
    KAPPA_METHODS,
    PSA_METHODS,
    SIMULATED_BOOTSTRAP_RESAMPLES,
    ConfidenceInterval,
    kappa_interval,
    kappa_standard_error,
    normal_quantile,
    psa_interval,
)
from planner.validation import RULES, check, check_choice

if TYPE_CHECKING:
    from planner.sizing.search import SearchSettings

#: the pair's metrics (exact or Monte Carlo on 2x2 tables)
METRICS = ("psa", "kappa")
DEFAULT_METHOD = {"psa": "wilson", "kappa": "score"}
WORST_CASE_JACCARD = (5.0 - np.sqrt(17.0)) / 4.0  # argmax of 4J(1-J)/(1+J)^4
#: The refining search near the answer uses this many times ``replicates`` studies ...
REFINE_FACTOR = 4
#: ... as long as they hold at most this many ``studies x patterns`` cells
REFINE_CELLS = 1_000_000
#: The refined assurance must reach the target plus this many MC SEs of the fresh check
MARGIN_SE = 1.0


def check_target(
    metric: str, width: float, confidence_level: float, assurance: float = 0.5
) -> tuple[str, float, float, float]:
    """The sizing target checked in parameter names (:mod:`planner.validation`).

    Returns ``(metric, width, confidence_level, assurance)`` converted; used by
    :func:`analytic_items` and the union-positive rules
    (:mod:`planner.sizing.union_positives`).
    """
    return (
        check_choice("metric", metric, METRICS),
        check("width", width, RULES["width"]),
        check("confidence_level", confidence_level, RULES["confidence_level"]),
        check("assurance", assurance, RULES["assurance"]),
    )


def check_pair_model(model: Any) -> PairModel:
    """The pair to plan for: a :class:`PairModel`, or an M-annotator model with two
    annotators over two categories (its :meth:`pair`, the same four cells)."""
    if isinstance(model, PairModel):
        return model
    if isinstance(model, RatersModel | CommonPrevalenceModel):
        return model.pair()
    raise InvalidInput(
        f"model must be a PairModel (planner.pair_from_annotators, ...) or a model of two "
        f"annotators, got {type(model).__name__}",
        parameter="model",
    )


def interval_function(
    metric: str,
    method: str,
    confidence_level: float,
    *,
    n_boot: int = SIMULATED_BOOTSTRAP_RESAMPLES,
    rng=None,
) -> Callable[[NDArray], ConfidenceInterval]:
    """The pair's interval of ``metric`` by ``method`` as a function of stacked tables.

    Raises :class:`InvalidInput` naming ``metric``, ``method``, ``confidence_level`` or
    ``n_boot`` when one is outside its range.
    """
    metric = check_choice("metric", metric, METRICS)
    method = check_choice("method", method, PSA_METHODS if metric == "psa" else KAPPA_METHODS)
    confidence_level = check("confidence_level", confidence_level, RULES["confidence_level"])
    n_boot = check("n_boot", n_boot, RULES["n_boot"])
    if metric == "psa":
        return lambda t: psa_interval(t, confidence_level, method, n_boot=n_boot, rng=rng)
    return lambda t: kappa_interval(t, confidence_level, method, n_boot=n_boot, rng=rng)


def psa_variance_factor(jaccard: float) -> float:
    """``f(J) = U Var(PSA) = 4 J (1 - J) / (1 + J)^4`` (delta method, docs/methods/sample-size.md
    2.2)."""
    return 4.0 * jaccard * (1.0 - jaccard) / (1.0 + jaccard) ** 4


def analytic_items(model: PairModel, metric: str, width: float, confidence_level: float) -> float:
    """The pair's large-sample items for an expected half-width ``width`` (the search's start).

    PSA: ``U = z^2 f(J) / w^2`` union positives, ``n = U / r``. Kappa:
    ``n = z^2 Q / w^2`` with ``Q = n Var_FCE`` at the model's cells.
    """
    model = check_pair_model(model)
    metric, width, confidence_level, _ = check_target(metric, width, confidence_level)
    z = normal_quantile(confidence_level)
    if metric == "psa":
        return z * z * psa_variance_factor(model.jaccard) / width**2 / model.union_rate
    q = float(kappa_standard_error(model.table)) ** 2  # cells sum to 1, so this is n Var
    return z * z * q / width**2


def tables_crossing(
    model: PairModel,
    target: SearchSettings,
    interval: Callable[[NDArray], ConfidenceInterval],
    start: int,
    rng: np.random.Generator,
) -> tuple[Crossing, float, list[tuple[int, float]]]:
    """The crossing of the Monte Carlo assurance on nested 2x2 tables, its MC SE in items,
    and every evaluated ``(n, assurance)`` (those of the SE's slope too)."""
    replicates = target.replicates_for(several=False)
    studies = NestedStudies(model.cells, replicates, rng=rng)

    def share(n: int) -> float:
        return float(np.mean(reaches_width(interval(studies.tables(n)).half_width, target.width)))

    values = Evaluations(share)
    found = first_crossing(values, target.assurance, start, target.max_items)
    if not found.reached:
        return found, float("nan"), values.curve
    return found, crossing_standard_error(values, found.n, replicates), values.curve


def _patterns_crossing(
    patterns: NDArray[np.int64],
    probs: NDArray,
    target: SearchSettings,
    goal: float,
    start: int,
    reps: int,
    step_share: float,
    opts: dict[str, Any],
    rng: np.random.Generator,
) -> tuple[int, list[tuple[int, float]]]:
    """Smallest ``n`` whose Monte Carlo assurance on ``reps`` nested label-pattern studies
    reaches ``goal`` (steps from ``step_share`` of the start), and the evaluated curve."""
    from planner.sizing.study_intervals import study_intervals

    studies = NestedPatternStudies(probs, reps, rng=rng)

    def share(n: int) -> float:
        ci = study_intervals(target.metric, patterns, studies.counts(n), **opts)
        return float(np.mean(reaches_width(ci.half_width, target.width)))

    found = first_crossing(share, goal, start, target.max_items, step_share=step_share)
    if not found.reached:
        raise unreachable_error(
            target.metric, target.width, target.assurance, target.max_items, found.value
        )
    return found.n, list(found.curve)


def two_stage_search(
    patterns: NDArray[np.int64],
    probs: NDArray,
    target: SearchSettings,
    start: int,
    opts: dict[str, Any],
    rngs: tuple[np.random.Generator, np.random.Generator],
) -> tuple[int, list[tuple[int, float]], int, float]:
    """A rough search on ``replicates`` nested studies, then a refined one near its answer with
    more studies and a goal one fresh-check SE above the target assurance.

    Returns the items, the refined search's curve, its studies and goal."""
    replicates, assurance = target.replicates_for(several=True), target.assurance
    rough, _ = _patterns_crossing(
        patterns, probs, target, assurance, start, replicates, 0.02, opts, rngs[0]
    )
    reps = max(replicates, min(REFINE_FACTOR * replicates, REFINE_CELLS // max(len(probs), 1)))
    goal = min(
        assurance + MARGIN_SE * float(np.sqrt(assurance * (1 - assurance) / replicates)), 1.0
    )
    items, curve = _patterns_crossing(
        patterns, probs, target, goal, rough, reps, 0.005, opts, rngs[1]
    )
    return items, curve, reps, goal
