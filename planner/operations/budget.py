"""Person-hours and cost of labelling a planned number of items: the one place they are computed.

``person_hours = sum_h items_h * annotators_per_item * seconds_per_item_h / 3600
+ sum_h items_h * contested_rate_h * adjudication_seconds / 3600``; cost is hours times the
hourly rate. :func:`stratified_budget` is the general form (one value per stratum);
:func:`labelling_budget` the one-stratum case. The comparison of designs
(:mod:`planner.sizing.compare`), a plan (:mod:`planner.sizing.plan`) and the expected hours of
the workload model (:mod:`planner.operations.workload`) all count hours here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from planner.errors import InvalidInput
from planner.validation import RULES, check

#: seconds in a person-hour
SECONDS_PER_HOUR = 3600.0
#: the seconds one annotator spends on one item when nothing else is said (every plan,
#: schedule and Alt-Test plan reads its default from here)
SECONDS_PER_ITEM = 90.0


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


def labelling_hours(
    items_per_stratum: ArrayLike, seconds_per_item: ArrayLike, labels_per_item: int
) -> float:
    """Hours of labelling: ``sum_h items_h * labels_per_item * seconds_per_item_h / 3600``.

    Arithmetic only; the callers (:func:`stratified_budget`, the workload model) have checked
    the values.

    >>> labelling_hours([1200], [90.0], 2)
    60.0
    """
    labels = np.asarray(items_per_stratum, dtype=np.int64) * int(labels_per_item)
    return float(np.dot(labels, np.asarray(seconds_per_item, dtype=float))) / SECONDS_PER_HOUR


def contested_items(items_per_stratum: ArrayLike, contested_rate: ArrayLike) -> float:
    """Expected contested items, ``sum_h items_h * contested_rate_h``."""
    rates = np.asarray(contested_rate, dtype=float)
    return float(np.dot(np.asarray(items_per_stratum, dtype=np.int64), rates))


def adjudication_hours(contested: float, adjudication_seconds: float) -> float:
    """Hours of adjudication: ``contested * adjudication_seconds / 3600``."""
    return contested * adjudication_seconds / SECONDS_PER_HOUR


def _check_costs(
    annotators_per_item: int,
    adjudication_seconds: float,
    hourly_rate: float | None,
) -> tuple[int, float, float | None]:
    """The budget's scalar arguments checked by their rules, in parameter names."""
    annotators_per_item = check(
        "annotators_per_item", annotators_per_item, RULES["annotators_per_item"]
    )
    adjudication_seconds = check(
        "adjudication_seconds", adjudication_seconds, RULES["adjudication_seconds"]
    )
    if hourly_rate is not None:
        hourly_rate = check("hourly_rate", hourly_rate, RULES["hourly_rate"])
    return annotators_per_item, adjudication_seconds, hourly_rate


def stratified_budget(
    items_per_stratum: ArrayLike,
    seconds_per_item: ArrayLike,
    contested_rate: ArrayLike,
    *,
    annotators_per_item: int = 2,
    adjudication_seconds: float = 0.0,
    hourly_rate: float | None = None,
) -> Budget:
    """Person-hours and cost of labelling ``items_per_stratum[h]`` items in each stratum ``h``.

    Parameters
    ----------
    items_per_stratum
        Items to label in each stratum.
    seconds_per_item
        Seconds one annotator spends on one item of each stratum (> 0).
    contested_rate
        Expected share of each stratum's items with exactly one positive label, ``p_b + p_c``.
    annotators_per_item
        Labels per item (at least 2).
    adjudication_seconds
        Seconds to adjudicate one contested item (0: no adjudication).
    hourly_rate
        Cost of one person-hour, or None.

    Examples
    --------
    200 items at 60 s and 1,000 at 90 s, two annotators each:

    >>> stratified_budget([200, 1000], [60.0, 90.0], [0.0, 0.0]).person_hours
    56.666666666666664
    """
    annotators_per_item, adjudication_seconds, hourly_rate = _check_costs(
        annotators_per_item, adjudication_seconds, hourly_rate
    )
    items = np.asarray(items_per_stratum, dtype=np.int64)
    seconds = np.asarray(seconds_per_item, dtype=float)
    if items.shape != seconds.shape or items.shape != np.shape(contested_rate):
        raise InvalidInput(
            "items_per_stratum, seconds_per_item and contested_rate need one value per "
            f"stratum, got {items.size}, {seconds.size} and {np.size(contested_rate)}",
            parameter="items_per_stratum",
        )
    for value in seconds:
        check("seconds_per_item", float(value), RULES["seconds_per_item"])
    labelling = labelling_hours(items, seconds, annotators_per_item)
    contested = contested_items(items, contested_rate)
    adjudication = adjudication_hours(contested, adjudication_seconds)
    hours = labelling + adjudication
    return Budget(
        items=int(items.sum()),
        labels=int(items.sum()) * annotators_per_item,
        labelling_hours=labelling,
        contested_items=contested,
        adjudication_hours=adjudication,
        person_hours=hours,
        cost=None if hourly_rate is None else hours * hourly_rate,
    )


def labelling_budget(
    items: int,
    *,
    annotators_per_item: int = 2,
    seconds_per_item: float = SECONDS_PER_ITEM,
    contested_rate: float = 0.0,
    adjudication_seconds: float = 0.0,
    hourly_rate: float | None = None,
) -> Budget:
    """Person-hours and cost of labelling ``items`` items (:func:`stratified_budget`, one stratum).

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
    1,200 items (the worked example of the unsupported-claims scenario) at two annotators and
    90 s an item are 60 hours:

    >>> labelling_budget(1200).person_hours
    60.0
    """
    return stratified_budget(
        [int(items)],
        [seconds_per_item],
        [contested_rate],
        annotators_per_item=annotators_per_item,
        adjudication_seconds=adjudication_seconds,
        hourly_rate=hourly_rate,
    )
