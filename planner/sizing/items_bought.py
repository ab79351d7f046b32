"""What a fixed number of person-hours or a budget buys: the items of a study.

One item costs ``k s + c a`` person-seconds, with ``k`` labels an item, ``s`` seconds a
label, ``a`` seconds to adjudicate a contested item and ``c`` the model's share of contested
items (a pair's ``p_b + p_c``; several annotators' items whose labels do not all agree,
:func:`planner.sizing.label_patterns.contested_share`). ``H`` person-hours buy
``n = floor(3600 H / (k s + c a))`` items, and a budget ``C`` at hourly rate ``r`` buys those
of ``H = C / r``. A named team (``team``, a
:class:`~planner.sizing.team_cost.TeamPricing`) prices each person's share at their
own seconds and rate, and its overlap block makes the first items dearer
(:meth:`~planner.sizing.team_cost.TeamPricing.most_items`).

Every fixed-size study reads its items here: a pair's and several annotators' precision
(:mod:`planner.sizing.precision`) and a study in progress's remaining hours
(:mod:`planner.sizing.midstudy_budget`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from planner.errors import InvalidInput
from planner.operations.budget import SECONDS_PER_ITEM
from planner.validation import RULES, check

if TYPE_CHECKING:
    from planner.sizing.team_cost import TeamPricing

#: the most items a fixed-size study may have (the ``items`` rule's upper limit)
MAX_FIXED_ITEMS = 10_000_000


@dataclass(frozen=True)
class LabelCosts:
    """What a label costs: seconds per label, adjudication and the hourly rate.

    ``annotators_per_item`` is the labels an item gets (``k``); the names are those
    :func:`items_for_hours` reads.
    """

    annotators_per_item: int
    seconds_per_item: float = SECONDS_PER_ITEM
    adjudication_seconds: float = 0.0
    hourly_rate: float | None = None
    #: a named team's pricing (None: every label at ``hourly_rate``)
    team: TeamPricing | None = None


def seconds_per_study_item(settings: Any, contested_rate: float) -> float:
    """Person-seconds one item costs: labels plus its expected adjudication (a named team's,
    ``settings.team``: each person's share, :mod:`planner.sizing.team_cost`)."""
    if getattr(settings, "team", None) is not None:
        return float(sum(settings.team.item_seconds(contested_rate)))
    return (
        settings.annotators_per_item * settings.seconds_per_item
        + contested_rate * settings.adjudication_seconds
    )


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


def items_given(
    given: dict[str, Any], costs: Any, contested: float
) -> tuple[int, dict[str, float]]:
    """The study's items from exactly one of ``items``, ``hours`` and ``budget`` (the
    others None), and what fixed them as ``{name: value}``; each value checked by its rule
    first (``items`` as a whole number). ``costs``: a :class:`LabelCosts` or a plan's settings (what
    :func:`items_for_hours` reads)."""
    named = [k for k, v in given.items() if v is not None]
    if len(named) != 1:
        raise InvalidInput(
            f"give one of items, hours or budget; got {' and '.join(named) or 'none'}",
            parameter="items",
            parameters=tuple(named),
        )
    name = named[0]
    value = float(check(name, given[name], RULES[name]))
    if name == "items":
        n = check("items", value, RULES["items"])
    elif name == "hours":
        n = items_for_hours(value, costs, contested)
    else:
        n = items_for_budget(value, costs, contested)
    n = check("items", n, RULES["items"])
    return n, {name: n if name == "items" else value}  # a count stays a whole number
