"""The settings of an Alt-Test plan and the defaults of its model, defined once.

:class:`AltTestPlanSettings` is how an Alt-Test plan (:mod:`planner.sizing.alt_test_plan`)
is searched and what it reports; :data:`HUMAN_ERROR`, :data:`LLM_ERROR` and
:data:`ERROR_DRAW` are the defaults of its model
(:func:`planner.sizing.alt_test_model.alt_test_model`). The library, a scenario's
``[alt_test]`` and the ``alt-test`` command all read them from here; the module imports
nothing heavy, so the command line can state them in its help.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.errors import InvalidInput
from planner.operations.budget import SECONDS_PER_ITEM
from planner.renamed import renamed_field
from planner.statistics.alt_test_stats import EPSILON, FDR_Q, MIN_ITEMS
from planner.validation import RULES, check, check_instance

#: a human's error rate when none is given
HUMAN_ERROR = 0.2
#: the LLM's error rate when none is given
LLM_ERROR = 0.2
#: how an error picks its wrong label when not said: a uniform draw over the categories
ERROR_DRAW = "uniform"
#: studies tested at once (memory only; it never changes an answer)
BLOCK_REPLICATES = 20_000


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class AltTestPlanSettings:
    """How an Alt-Test plan is searched and what it reports: one default per setting.

    Attributes
    ----------
    epsilon
        The margin granted to the LLM, in [0, 1).
    q
        The false discovery rate of Benjamini-Yekutieli.
    power
        The target probability of passing.
    min_items
        The fewest items searched (no human is tested on fewer; below 30 the Wilcoxon test).
    replicates
        Replicate studies per size.
    max_items
        The largest size searched, at least ``min_items``.
    seconds_per_item, hourly_rate
        One human's seconds per item and the cost of a person-hour (None: no hours, no cost).
    items
        A study's own number of items: :func:`alt_test_plan_summary` gives P(pass) there.
    table
        Whether :func:`alt_test_plan_summary` also plans for every number of humans in
        ``table_humans``.
    table_humans
        The numbers of humans of :func:`plan_table`.
    block_replicates
        Studies tested at once (memory only; it never changes an answer).

    Examples
    --------
    >>> AltTestPlanSettings(epsilon=0.1).power
    0.8
    """

    epsilon: float = EPSILON
    q: float = FDR_Q
    power: float = 0.8
    min_items: int = MIN_ITEMS
    replicates: int = 2000
    max_items: int = 20_000
    seconds_per_item: float | None = SECONDS_PER_ITEM
    hourly_rate: float | None = None
    items: int | None = None
    table: bool = False
    table_humans: tuple[int, ...] = (2, 3, 4, 5, 6)
    block_replicates: int = BLOCK_REPLICATES

    def __post_init__(self) -> None:
        rules = {
            "epsilon": "alt_epsilon",
            "q": "fdr_q",
            "power": "power",
            "replicates": "replicates",
        }
        rules |= {"min_items": "alt_min_items", "max_items": "alt_min_items"}
        for name, rule in rules.items():
            object.__setattr__(self, name, check(name, getattr(self, name), RULES[rule]))
        for name in ("seconds_per_item", "hourly_rate"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, check(name, getattr(self, name), RULES[name]))
        if self.items is not None:
            object.__setattr__(self, "items", check("items", self.items, RULES["alt_min_items"]))
        if self.max_items < self.min_items:
            raise InvalidInput(
                f"max_items must be at least min_items ({self.min_items}), got {self.max_items}",
                parameter="max_items",
            )
        check_instance("table", self.table, bool, "True or False")
        what = "a tuple of numbers of humans"
        check_instance("table_humans", self.table_humans, (tuple, list), what)
        humans = tuple(check("table_humans", m, RULES["n_humans"]) for m in self.table_humans)
        object.__setattr__(self, "table_humans", humans)
        block = self.block_replicates
        if isinstance(block, bool) or not isinstance(block, int | np.integer) or block < 1:
            raise InvalidInput(
                f"block_replicates must be a whole number of at least 1, got {block!r}",
                parameter="block_replicates",
            )
