"""The mid-study knobs, one settings object for every kind of study in progress.

A study in progress is planned by ``job(subject, plan_settings, remaining, *, rng)``: the
subject is what has been labelled (a pair's counts, several annotators' ratings, a stratified
first stage), :class:`planner.sizing.plan.PlanSettings` the precision target, the search's
effort and the labelling costs (the same as a fresh plan's), and :class:`RemainingSettings`
what only a study in progress has: the original plan's total, the batches of a re-plan
procedure, the posterior draws, a simulated first stage's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.errors import InvalidInput
from planner.validation import RULES, check

if TYPE_CHECKING:
    from planner.sizing.plan import PlanSettings


@dataclass(frozen=True)
class RemainingSettings:
    """What only a study in progress needs (every value checked by its rule on construction).

    Attributes
    ----------
    planned_items
        The original plan's total items: adds the hybrid assurance of continuing to it.
    batch_size
        Label in batches of this many items, re-plan after each and stop when the re-plan asks
        for no more: adds the simulated procedure's final coverage and total items.
    draws
        The first stage's plausible truths: a pair's PSA posterior draws to start from (more
        until the Monte Carlo SE is at most 0.5 % of the answer), several annotators' bootstrap
        refits; ``None``: the kind's default (:data:`PAIR_DRAWS`, :data:`RATERS_DRAWS`).
    first_items
        A whole study simulated from a model: the first stage's size before the batches
        (``None``: one batch).
    hours, budget
        What the remaining budget buys (a pair, several annotators or strata): the
        person-hours, or the money at ``PlanSettings.hourly_rate``, still to spend; adds the
        items they buy, the total and the final interval's expected half-width and assurance
        there (:class:`planner.sizing.midstudy_budget.BoughtItems`). At most one of the two.

    Examples
    --------
    >>> RemainingSettings(planned_items=1280).batch_size is None
    True
    """

    planned_items: int | None = None
    batch_size: int | None = None
    draws: int | None = None
    first_items: int | None = None
    hours: float | None = None
    budget: float | None = None

    def __post_init__(self) -> None:
        if self.hours is not None and self.budget is not None:
            raise InvalidInput(
                "hours and budget both size what is bought; give one of them", parameter="budget"
            )
        for name in ("hours", "budget"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, check(name, getattr(self, name), RULES[name]))
        for name in ("planned_items", "batch_size", "first_items"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, check(name, getattr(self, name), RULES["items"]))
        if self.draws is not None:
            object.__setattr__(self, "draws", check("draws", self.draws, RULES["draws"]))

    def draws_or(self, default: int) -> int:
        """``draws``, or ``default`` (the kind's) when not given."""
        return default if self.draws is None else self.draws


#: a pair's PSA posterior draws (16 randomly shifted lattices of 55)
PAIR_DRAWS = 880
#: several annotators' bootstrap refits of the first stage's latent-class fit
RATERS_DRAWS = 200


def interval_method(settings: PlanSettings, metric: str) -> str:
    """The pair's interval method of ``metric`` (``psa`` or ``kappa``) in ``settings``."""
    return settings.psa_method if metric == "psa" else settings.kappa_method
