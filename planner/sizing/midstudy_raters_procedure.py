"""A study of several annotators in progress, labelled in batches and simulated to its end.

The procedure of :mod:`planner.sizing.midstudy_procedure` for 3 to 6 annotators: from the
first stage's pattern multiplicities ``c0`` (kept in the analysis), label ``B`` items at a time,
re-compute the interval after each batch and stop when its half-width is at most the width
(the re-plan then asks for no more: the batch in hand is observed, so its assurance of
stopping at once is 1 when the interval is narrow and 0 when not), or before a batch that
would pass ``max_items``.

Each simulated procedure ``r`` takes its truth ``theta_d`` (``d = r mod D``) from the ``D``
bootstrap refits of the first stage's latent-class fit, the plausible truths the plan itself
averages over (:class:`planner.sizing.midstudy_raters.FinalStudies`), and grows by

``c_r <- c_r + Multinomial(B, pi(theta_d))``

over the model's patterns, every procedure at once (a loop over batches, never over items).
Its final interval covers when it holds ``theta_d``'s coefficient; the coverage ``C`` has the
Monte Carlo SE ``sqrt(C (1 - C) / R)``.

References
----------
Wittes J, Brittain E (1990) The role of internal pilot studies in increasing the efficiency
    of clinical trials. Stat Med 9:65-72.
Chow YS, Robbins H (1965) On the asymptotic theory of fixed-width sequential confidence
    intervals for the mean. Ann Math Stat 36:457-462.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.exact import reaches_width
from planner.sizing.midstudy_procedure import BatchProcedure, run_batches, summarise
from planner.sizing.midstudy_result import RemainingPlan
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.study_intervals import study_intervals
from planner.validation import RngLike, check_instance, seed_from

if TYPE_CHECKING:
    from planner.sizing.plan import PlanSettings


def _studies(plan: RemainingPlan, replicates: int) -> Any:
    """The plan's finished studies (patterns, first stage, truths), as the plan drew them."""
    from planner.sizing.midstudy_raters import FinalStudies
    from planner.sizing.raters_precision import RatersStudy

    study = RatersStudy(
        plan.metric, plan.width, plan.level, None, plan.confidence_level, replicates
    )  # fmt: skip
    first = (np.asarray(plan.patterns), np.asarray(plan.multiplicity))
    assert plan.pilot is not None  # checked by raters_batch_procedure
    return FinalStudies(plan.pilot, study, first, replicates, plan.seed)


def raters_batch_procedure(
    plan: RemainingPlan,
    plan_settings: PlanSettings,
    remaining: RemainingSettings,
    *,
    rng: RngLike = None,
) -> BatchProcedure:
    """The batch procedure of a study of several annotators in progress (module docstring).

    Parameters
    ----------
    plan
        The plan of the rest (:func:`planner.sizing.midstudy_raters.plan_remaining_raters`):
        its first stage, metric, width, confidence level and bootstrap truths.
    plan_settings
        ``max_items`` (a procedure stops before a batch that would pass it) and ``replicates``,
        the simulated procedures (at least 400, fewer when the patterns are many, as the
        plan's second stages).
    remaining
        ``batch_size``: items per batch.
    rng
        Anything :func:`numpy.random.default_rng` takes.

    Returns
    -------
    BatchProcedure
        The final interval's coverage, the total items' mean and 10th, 50th and 90th
        percentiles, the share that stopped at the width, and the notes.
    """
    from planner.sizing.plan import PlanSettings

    check_instance("plan_settings", plan_settings, PlanSettings, "a PlanSettings")
    check_instance("remaining", remaining, RemainingSettings, "a RemainingSettings")
    if remaining.batch_size is None:
        raise InvalidInput(
            "batch_size is needed: the procedure labels batches of that many items",
            parameter="batch_size",
        )
    check_instance("plan", plan, RemainingPlan, "a RemainingPlan")
    if plan.pilot is None:
        raise InvalidInput(
            "plan is a pair's study in progress; its batch procedure is batch_procedure",
            parameter="plan",
        )
    at = _studies(plan, plan_settings.replicates)
    cells = np.zeros((at.studies, at.patterns.shape[0]))
    cells[:, at.embed] = at.by_study  # the first stage's extra patterns have no probability
    start = np.repeat(at.first[None, :], at.studies, axis=0)

    def intervals(counts: NDArray) -> Any:
        return study_intervals(
            plan.metric, at.patterns, counts, level=plan.level,
            confidence_level=plan.confidence_level, n_categories=at.k,
        )  # fmt: skip

    def narrow(counts: NDArray) -> NDArray:
        return np.asarray(reaches_width(intervals(counts).half_width, plan.width))

    generator = np.random.default_rng(seed_from(rng))
    tables, stopped = run_batches(
        start, cells, remaining.batch_size, narrow, plan_settings.max_items, generator
    )
    ci = intervals(tables)
    with np.errstate(invalid="ignore"):
        hit = np.asarray((ci.low <= at.truth + 1e-12) & (at.truth - 1e-12 <= ci.high))
    setting = {
        "batch_size": remaining.batch_size,
        "level": plan.confidence_level,
        "max_items": plan_settings.max_items,
    }
    where = f"the {len(plan.pilot.draws)} bootstrap refits of the first stage's latent-class fit"
    return summarise(hit, tables.sum(axis=1), stopped, setting, where)
