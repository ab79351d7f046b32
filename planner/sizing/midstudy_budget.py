"""What the remaining budget buys for a study in progress, a pair's or several annotators'.

With ``H`` person-hours (or a budget ``B`` at hourly rate ``c``, ``H = B / c``) still to
spend, the items bought are priced as ``plan --hours`` prices them
(:func:`planner.sizing.items_bought.items_for_hours`, through
:func:`planner.operations.budget.labelling_budget`'s costs):

    ``m = floor(3600 H / (k s + q t))``,

``k`` labels per item, ``s`` seconds per label, ``q = (b0 + c0) / n0`` the first stage's
contested share and ``t`` the adjudication seconds. The final interval is on the
``n0 + m`` items; its assurance is the hybrid assurance of the mid-study plan at ``m``
(:mod:`planner.sizing.midstudy_assurance`), and its expected half-width the mean usable
half-width of ``replicates`` simulated finished studies, each second stage drawn from its own
first-stage posterior truth ``p ~ Dirichlet(counts + 1/2)`` with the first stage added.

The assurance's Monte Carlo standard error is binomial, ``sqrt(A (1 - A) / R)`` over the
``R`` simulated finished studies (Cohen's kappa; PSA when the interval in hand is already
narrow). PSA's assurance is a mean of exact per-draw probabilities over ``L`` randomly
shifted lattices of posterior draws: its SE is ``sd(lattice means) / sqrt(L)``, as the
mid-study plan's own (the binomial formula would only bound it, ``Var(A_d) <= A (1 - A)``).
Strata (:mod:`planner.sizing.midstudy_strata_budget`) fill the same :class:`BoughtItems`.

Several annotators (:func:`raters_bought`): the items are priced as a fresh plan of several
annotators prices them (:class:`planner.sizing.items_bought.LabelCosts`),
``m = floor(3600 H / (M s + q t))`` with every one of the ``M`` annotators labelling every
item and ``q`` the latent-class fit's contested share (counted whether or not ``t > 0``).
The assurance is the plan's hybrid assurance ``A_h(m)``
(:class:`planner.sizing.midstudy_latent_class.FinalStudies`: each simulated second stage drawn under
one bootstrap refit of the first stage and added to it), with binomial Monte Carlo SE over its
``R`` finished studies, and the expected half-width
the mean usable half-width over the same studies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.operations.budget import Budget
from planner.sizing.midstudy_result import share_se
from planner.sizing.team_cost import priced_budget

if TYPE_CHECKING:
    from planner.sizing.items_bought import LabelCosts
    from planner.sizing.midstudy_latent_class import FinalStudies
    from planner.sizing.midstudy_settings import RemainingSettings
    from planner.sizing.plan import PlanSettings


@dataclass(frozen=True)
class BoughtItems:
    """What the remaining hours or budget buy (``RemainingSettings.hours`` / ``budget``).

    Attributes
    ----------
    hours, budget
        The person-hours or money given (the other is None).
    bought_items
        Items they buy, ``floor(3600 H / (k s + q t))``.
    total_items
        ``labelled_items + bought_items``.
    half_width_expected, half_width_se
        The final interval's mean usable half-width over simulated finished studies, and its
        Monte Carlo standard error.
    assurance, assurance_se
        The hybrid assurance of reaching ``width`` at ``total_items``, and its Monte Carlo
        standard error: binomial, ``sqrt(A (1 - A) / R)`` over the ``R`` simulated studies
        (PSA's exact sums for a pair: over its lattices of posterior draws).
    cost
        Hours and cost of the bought items.
    by_stratum
        A stratified study: the bought items of each stratum by name (None otherwise).
    """

    hours: float | None
    budget: float | None
    bought_items: int
    total_items: int
    half_width_expected: float
    half_width_se: float
    assurance: float
    assurance_se: float
    cost: Budget
    by_stratum: dict[str, int] | None = None


def half_width_summary(half_width: Any, width: float) -> tuple[float, float, float]:
    """``(mean, se, share narrow)`` of simulated final half-widths: usable half-widths
    (:func:`planner.sizing.exact.usable_half_width`; an undefined or zero-width interval
    counts as half-width 1), their mean, its standard error ``sd / sqrt(R)`` and the share
    at most ``width``."""
    from planner.sizing.exact import usable_half_width

    half = np.asarray(usable_half_width(half_width), dtype=float).ravel()
    finite = np.where(np.isfinite(half), half, 1.0)
    n = finite.size
    se = float(np.std(finite, ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    return float(finite.mean()), se, float(np.mean(finite <= width))


class DrawMean:
    """A pair's PSA assurance at ``m`` more items: the mean of the exact per-draw
    assurances ``A(m; p_d)`` over the posterior draws of ``at`` (``REPLICATES`` randomly
    shifted lattices, one after another)."""

    def __init__(self, at: Any) -> None:
        self.at = at

    def __call__(self, m: int) -> float:
        return float(np.mean(self.at(m)))

    def se(self, m: int) -> float:
        """The Monte Carlo SE of the mean: the lattices' means' ``sd / sqrt(REPLICATES)``
        (the draws' assurances are exact probabilities, not 0/1 outcomes)."""
        from planner.sizing.uncertainty import REPLICATES

        means = np.asarray(self.at(m), dtype=float).reshape(REPLICATES, -1).mean(axis=1)
        return float(np.std(means, ddof=1) / np.sqrt(REPLICATES))


def items_bought(knobs: RemainingSettings, settings: Any, contested_rate: float) -> int:
    """The items the remaining ``hours`` or ``budget`` pay for, priced as a fresh plan's
    (``settings``: a :class:`planner.sizing.plan.PlanSettings`, or several annotators'
    :class:`planner.sizing.items_bought.LabelCosts`)."""
    from planner.sizing.items_bought import items_for_budget, items_for_hours

    if knobs.hours is not None:
        return items_for_hours(knobs.hours, settings, contested_rate)
    return items_for_budget(float(knobs.budget or 0.0), settings, contested_rate)


def expected_half_width(
    counts: tuple[int, ...], more: int, metric: str, target: Any, replicates: int, seed: int
) -> tuple[float, float, float]:
    """``(mean, se, share narrow)`` of the final usable half-width with ``more`` items,
    over ``replicates`` second stages from the first stage's posterior, first stage added."""
    from planner.sizing.midstudy_assurance import FirstStageStudies
    from planner.sizing.uncertainty import posterior_cells
    from planner.statistics.intervals import kappa_interval, psa_interval

    truth_rng, study_rng = np.random.default_rng([seed, 25]).spawn(2)
    cells = posterior_cells(counts, replicates, truth_rng)
    tables = FirstStageStudies(cells, np.asarray(counts), study_rng).tables(more)
    interval = psa_interval if metric == "psa" else kappa_interval
    ci = interval(tables.astype(float), target.level, target.method)
    return half_width_summary(ci.half_width, target.width)


def bought(
    counts: tuple[int, int, int, int],
    metric: str,
    target: Any,
    settings: PlanSettings,
    knobs: RemainingSettings,
    seed: int,
    assurance_at: Any,
) -> BoughtItems | None:
    """What ``knobs.hours`` / ``knobs.budget`` buy (None without either); ``assurance_at``
    is the plan's hybrid assurance at ``m`` more items (None: the interval in hand is
    narrow, and the simulated share is used). The assurance's SE is binomial over the
    ``replicates`` simulated studies, or PSA's (:class:`DrawMean`) over its lattices."""
    if knobs.hours is None and knobs.budget is None:
        return None
    labelled = sum(counts)
    contested = (counts[1] + counts[2]) / labelled
    more = items_bought(knobs, settings, contested)
    half, se, share = expected_half_width(counts, more, metric, target, settings.replicates, seed)
    assurance = share if assurance_at is None else float(assurance_at(more))
    se_of = getattr(assurance_at, "se", None)  # PSA's exact sums; else replicates studies
    cost = priced_budget(settings, more, contested)  # a named team's, person by person
    return BoughtItems(
        hours=knobs.hours,
        budget=knobs.budget,
        bought_items=more,
        total_items=labelled + more,
        half_width_expected=half,
        half_width_se=se,
        assurance=assurance,
        assurance_se=se_of(more) if se_of is not None else share_se(assurance, settings.replicates),
        cost=cost,
    )


def raters_bought(
    at: FinalStudies, knobs: RemainingSettings, prices: LabelCosts, contested_rate: float
) -> BoughtItems | None:
    """What ``knobs.hours`` / ``knobs.budget`` buy for several annotators (None without
    either).

    Parameters
    ----------
    at
        The finished studies of the mid-study plan (first stage plus ``m`` simulated items).
    knobs
        ``hours`` or ``budget``.
    prices, contested_rate
        What the plan's remaining items cost (the study's labels per item, seconds, rate and
        named team: :class:`planner.sizing.items_bought.LabelCosts`) and the fit's contested
        share.
    """
    if knobs.hours is None and knobs.budget is None:
        return None
    more = items_bought(knobs, prices, contested_rate)
    half, se, _ = half_width_summary(at.intervals(more).half_width, at.study.width)
    assurance = at(more)
    return BoughtItems(
        hours=knobs.hours,
        budget=knobs.budget,
        bought_items=more,
        total_items=int(at.first.sum()) + more,
        half_width_expected=half,
        half_width_se=se,
        assurance=assurance,
        assurance_se=share_se(assurance, at.studies),
        cost=priced_budget(prices, more, contested_rate),
    )
