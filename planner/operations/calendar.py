"""Working days and dates: each person's working seconds as a function of the calendar.

Day ``d`` is the ``d``-th calendar day of the operation (day 0 is the team's ``start``, or a
Monday when no start is given). A person works ``hours_per_day`` on their weekdays, except on
holidays, on their absences, before their own start and after their own end. Their *capacity*
is the cumulative working seconds ``C[d]`` available before day ``d`` (``C[0] = 0``), so
``C[d + 1] - C[d]`` is day ``d``'s shift.

Model time is a real number ``t = d + s / 86400``: day ``d``, ``s`` seconds into the person's
shift (every shift starts at the same hour, so two people's times compare as wall-clock
times). The working second ``w`` of a person ends on the first day with ``C[d + 1] >= w``
(:func:`end_time`) and a task starting after ``w`` seconds of work starts on the first day
with ``C[d + 1] > w`` (:func:`start_time`); both give ``t = d + (w - C[d]) / 86400``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np

from planner.data.scenario_team import WEEKDAYS

SECONDS_PER_DAY = 86_400.0


def first_weekday(start: dt.date | None) -> int:
    """Weekday of day 0 (0 = Monday): the start date's, or Monday without a start."""
    return 0 if start is None else start.weekday()


def day_of(start: dt.date, date: dt.date) -> int:
    """The day index of ``date`` (0 for ``start``; negative before it)."""
    return (date - start).days


def date_of(start: dt.date, day: float) -> dt.date:
    """The calendar date of day index ``day`` (rounded down)."""
    return start + dt.timedelta(days=int(day))


def shift_seconds(
    hours_per_day: float,
    days: Sequence[str],
    horizon: int,
    *,
    start: dt.date | None = None,
    holidays: Sequence[tuple[dt.date, dt.date]] = (),
    absent: Sequence[tuple[dt.date, dt.date]] = (),
    first: dt.date | None = None,
    last: dt.date | None = None,
) -> np.ndarray:
    """Working seconds of each of the ``horizon`` calendar days from day 0.

    ``start`` is day 0's date (None: a Monday, and no dated exceptions); ``holidays`` and
    ``absent`` are inclusive date intervals with no work; ``first``/``last`` are the person's own
    first and last days (inclusive).

    >>> shift_seconds(4, ("mon", "wed"), 8).tolist()[:3], float(shift_seconds(4, ("mon",), 8).sum())
    ([14400.0, 0.0, 14400.0], 28800.0)
    """
    weekday = (first_weekday(start) + np.arange(horizon)) % 7
    works = np.isin(weekday, [WEEKDAYS.index(day) for day in days])
    if start is not None:
        for low, high in (*holidays, *absent):
            works[max(day_of(start, low), 0) : max(day_of(start, high) + 1, 0)] = False
        if first is not None:
            works[: max(day_of(start, first), 0)] = False
        if last is not None:
            works[max(day_of(start, last) + 1, 0) :] = False
    return np.where(works, hours_per_day * 3600.0, 0.0)


def capacity(day_seconds: np.ndarray) -> np.ndarray:
    """Cumulative working seconds before each day, ``C[0] = 0`` (one more than the days),
    along the last axis."""
    shape = (*day_seconds.shape[:-1], 1)
    return np.concatenate([np.zeros(shape), np.cumsum(day_seconds, axis=-1)], axis=-1)


class Clock:
    """The capacities of several people (rows), for vectorised time conversions.

    Rows are flattened with an offset each, so that one :func:`numpy.searchsorted` serves
    every row: row ``r``'s capacities are shifted by ``r * span``, with ``span`` above every
    capacity, and stay sorted.
    """

    def __init__(self, capacities: np.ndarray) -> None:
        self.rows, self.width = capacities.shape
        self.capacity = capacities
        self.span = float(capacities[:, -1].max()) + SECONDS_PER_DAY
        self.offsets = np.arange(self.rows) * self.span
        self.flat = (capacities + self.offsets[:, None]).ravel()

    def _time(self, rows: np.ndarray, work: np.ndarray, side: str) -> np.ndarray:
        pos = np.searchsorted(self.flat, work + self.offsets[rows], side=side)  # type: ignore[call-overload]
        local = pos - rows * self.width
        beyond = local >= self.width  # the horizon holds no such working second
        local = np.minimum(local, self.width - 1)
        before = self.capacity[rows, np.maximum(local - 1, 0)]
        t = (local - 1) + (work - before) / SECONDS_PER_DAY
        return np.where(beyond, np.inf, t)

    def end_time(self, rows: np.ndarray, work: np.ndarray) -> np.ndarray:
        """Model time at which row ``rows`` completes its ``work``-th working second."""
        return self._time(rows, work, "left")

    def start_time(self, rows: np.ndarray, work: np.ndarray) -> np.ndarray:
        """Model time at which a task after ``work`` working seconds starts (next shift)."""
        return self._time(rows, work, "right")

    def work_at(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Working seconds row ``rows`` can have put in by model time ``t``."""
        day = np.clip(np.floor(t).astype(np.int64), 0, self.width - 2)
        low = self.capacity[rows, day]
        shift = self.capacity[rows, day + 1] - low
        into = np.clip((t - day) * SECONDS_PER_DAY, 0.0, shift)
        return np.where(t >= self.width - 1, self.capacity[rows, -1], low + into)


def finish_day(t: np.ndarray) -> np.ndarray:
    """The day index on which a task ending at model time ``t > 0`` ends (``ceil(t) - 1``:
    a task that ends with a 24-hour shift ends on that day)."""
    return np.ceil(t).astype(np.int64) - 1
