"""The answer to "how many more items?" for a study in progress, whoever labelled it.

A study in progress has a first stage, kept in the final analysis: a pair's four counts
(:func:`planner.sizing.midstudy.plan_remaining`) or the labels of 3 to 6 annotators, fitted by
a latent-class model (:func:`planner.sizing.midstudy_latent_class.plan_remaining_raters`). Both
answer with one :class:`RemainingPlan`: the interval now, the items still to label for the
final interval to reach the width with the target assurance, the budget of the rest and the
final interval's coverage. The first stage's own description is the part that differs: the
pair's ``counts`` (and, read from a file, ``stage``), or the annotators' ``patterns``,
``multiplicity`` and latent-class ``pilot``.

The pieces both plans share live here too: the largest total's check, the note of an
interval already narrow enough, and the standard error of a simulated share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.operations.budget import Budget

if TYPE_CHECKING:
    from planner.sizing.items_bought import LabelCosts
    from planner.sizing.midstudy_budget import BoughtItems
    from planner.sizing.midstudy_procedure import BatchProcedure
    from planner.sizing.pilot import Pilot
    from planner.sizing.pilot_latent_class import RatersPilot


@dataclass(frozen=True)
class RemainingPlan:
    """How many more items a study in progress needs (pair or several annotators).

    Attributes
    ----------
    labelled_items
        The first stage's items ``n0``.
    metric, method, width, confidence_level, target_assurance
        The final interval's coefficient, interval method, half-width, level and the
        assurance it is planned for.
    estimate, interval_now, half_width_now
        The coefficient on the labels in hand, its interval and half-width.
    coverage_now
        The interval's coverage at the first stage's size if the first stage's estimate (a
        pair) or its plug-in latent-class fit (several annotators) were the truth.
    remaining_items, remaining_mc_se
        Items still to label, and their Monte Carlo standard error.
    total_items
        ``labelled_items + remaining_items``.
    assurance, assurance_se
        The hybrid assurance at ``remaining_items`` (and its standard error).
    assurance_now
        The assurance of stopping now: 1 if the interval in hand is narrow enough, else 0.
    planned_items, assurance_planned
        The original plan's total, and the hybrid assurance of continuing to it.
    budget
        Hours (and cost) of the remaining items.
    final_coverage, final_coverage_se
        Share of simulated finished studies (truths from the first stage's plausible truths)
        whose final interval covers the truth.
    basis, seed, notes
        How the remaining items were computed, the seed used, and what the plan noticed.
    counts, stage
        A pair: the first stage ``(both, a_only, b_only, neither)``; read from a label file,
        what the file held. ``None`` for several annotators.
    annotators, categories, positive, level, patterns, multiplicity, studies, pilot, source
        Several annotators: who labelled, the categories (and the positive one), Krippendorff's
        level, the first stage's distinct patterns and their items, the simulated second stages
        per size, the latent-class fit of the first stage with its bootstrap truths, and the
        file read. Empty (``()``, ``None``, ``""``) for a pair.
    batches
        With ``batch_size``: the batch procedure.
    by_metric
        A pair's ``metric="both"``: each metric's plan (this one is the metric that needs more
        items); empty otherwise.
    bought
        With ``hours`` or ``budget``: what they buy.
    costs
        What a label of the remaining items costs: labels an item, seconds, adjudication,
        hourly rate, and the named team that bills them person by person (``costs.team``;
        ``None``: the single rate).
    """

    labelled_items: int
    metric: str
    method: str
    width: float
    confidence_level: float
    target_assurance: float
    estimate: float
    interval_now: tuple[float, float]
    half_width_now: float
    coverage_now: float
    remaining_items: int
    remaining_mc_se: float
    total_items: int
    assurance: float
    assurance_se: float
    assurance_now: float
    planned_items: int | None
    assurance_planned: float | None
    budget: Budget
    final_coverage: float
    final_coverage_se: float
    basis: str
    seed: int
    notes: list[str] = field(default_factory=list)
    counts: tuple[int, int, int, int] | None = None
    stage: Pilot | None = None
    annotators: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    positive: str | None = None
    level: str = "nominal"
    patterns: NDArray[np.int64] | None = field(default=None, repr=False)
    multiplicity: NDArray[np.int64] | None = field(default=None, repr=False)
    studies: int | None = None
    pilot: RatersPilot | None = field(default=None, repr=False)
    source: str = ""
    batches: BatchProcedure | None = None
    by_metric: dict[str, RemainingPlan] = field(default_factory=dict)
    bought: BoughtItems | None = None
    costs: LabelCosts | None = field(default=None, repr=False)


def check_total(max_items: int, labelled: int) -> None:
    """The largest total searched must exceed the items already labelled."""
    if max_items <= labelled:
        raise InvalidInput(
            f"max_items must exceed the {labelled:,} items already labelled, got {max_items}",
            parameter="max_items",
        )


def narrow_now_note(half_now: float, width: float) -> str:
    """The note of a first stage whose interval already reaches the width."""
    return (
        f"the interval in hand already has half-width {half_now:.4g} <= {width:g}: "
        "no more items are needed"
    )


def share_se(share: float, studies: int) -> float:
    """The Monte Carlo standard error ``sqrt(s (1 - s) / R)`` of a share of ``R`` studies
    (0 without studies)."""
    return float(np.sqrt(share * (1 - share) / studies)) if studies > 0 else 0.0
