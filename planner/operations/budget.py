"""Person-hours and cost of labelling a planned number of items.

``person_hours = items * annotators_per_item * seconds_per_item / 3600
+ contested_items * adjudication_seconds / 3600``; cost is hours times the hourly rate.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.errors import InvalidInput


@dataclass(frozen=True)
class Budget:
    """Labelling effort for one plan.

    Attributes
    ----------
    items
        Items labelled.
    labels
        ``items * annotators_per_item``.
    labelling_hours
        Hours spent labelling, ``labels * seconds_per_item / 3600``.
    contested_items
        Expected items on which exactly one annotator flags (adjudicated).
    adjudication_hours
        ``contested_items * adjudication_seconds / 3600``.
    person_hours
        Labelling plus adjudication hours.
    cost
        ``person_hours * hourly_rate``, or None without a rate.
    """

    items: int
    labels: int
    labelling_hours: float
    contested_items: float
    adjudication_hours: float
    person_hours: float
    cost: float | None


def labelling_budget(
    items: int,
    *,
    annotators_per_item: int = 2,
    seconds_per_item: float = 90.0,
    contested_rate: float = 0.0,
    adjudication_seconds: float = 0.0,
    hourly_rate: float | None = None,
) -> Budget:
    """Person-hours and cost of labelling ``items`` items.

    Parameters
    ----------
    items
        Items to label.
    annotators_per_item
        Labels per item (at least 2).
    seconds_per_item
        Seconds one annotator spends on one item.
    contested_rate
        Expected share of items with exactly one positive label, ``p_b + p_c``.
    adjudication_seconds
        Seconds to adjudicate one contested item (0: no adjudication).
    hourly_rate
        Cost of one person-hour, or None.

    Examples
    --------
    The chapter's 1,200 items at two annotators and 90 s an item are 60 hours:

    >>> labelling_budget(1200).person_hours
    60.0
    """
    if annotators_per_item < 2:
        raise InvalidInput(f"--annotators-per-item must be at least 2, got {annotators_per_item}")
    if not seconds_per_item > 0:
        raise InvalidInput(f"--seconds-per-item must be > 0, got {seconds_per_item:g}")
    if adjudication_seconds < 0:
        raise InvalidInput(f"--adjudication-seconds must be >= 0, got {adjudication_seconds:g}")
    if hourly_rate is not None and hourly_rate < 0:
        raise InvalidInput(f"--hourly-rate must be >= 0, got {hourly_rate:g}")
    labels = int(items) * int(annotators_per_item)
    labelling = labels * seconds_per_item / 3600.0
    contested = items * contested_rate
    adjudication = contested * adjudication_seconds / 3600.0
    hours = labelling + adjudication
    return Budget(
        items=int(items),
        labels=labels,
        labelling_hours=labelling,
        contested_items=contested,
        adjudication_hours=adjudication,
        person_hours=hours,
        cost=None if hourly_rate is None else hours * hourly_rate,
    )
