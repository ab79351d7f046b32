"""Working days and model time: shifts by weekday, holidays, absences, own start and end."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from planner.operations.calendar import Clock, capacity, finish_day, shift_seconds

WED = dt.date(2027, 1, 6)  # a Wednesday


def test_weekdays_follow_the_start_date():
    day = shift_seconds(2, ("mon", "fri"), 10, start=WED).tolist()
    # Wed Thu Fri Sat Sun Mon Tue Wed Thu Fri
    assert day == [0, 0, 7200, 0, 0, 7200, 0, 0, 0, 7200]


def test_holidays_absences_and_own_dates_remove_days():
    days = ("mon", "tue", "wed", "thu", "fri")
    start = dt.date(2027, 1, 4)  # Monday
    base = shift_seconds(1, days, 14, start=start)
    assert base.sum() == 10 * 3600
    holiday = shift_seconds(1, days, 14, start=start, holidays=[(start, start)])
    absent = shift_seconds(1, days, 14, start=start, absent=[(WED, dt.date(2027, 1, 8))])
    late = shift_seconds(1, days, 14, start=start, first=dt.date(2027, 1, 11))
    early = shift_seconds(1, days, 14, start=start, last=dt.date(2027, 1, 5))
    assert (holiday.sum(), absent.sum(), late.sum(), early.sum()) == (
        9 * 3600,
        7 * 3600,
        5 * 3600,
        2 * 3600,
    )
    assert absent[2:5].tolist() == [0, 0, 0]


def test_clock_end_and_start_times_by_hand():
    # 4 h on Mon, Tue (days 0, 1), none on Wed, 4 h Thu
    clock = Clock(capacity(np.array([[14400.0, 14400.0, 0.0, 14400.0]])))
    rows = np.zeros(3, dtype=np.int64)
    work = np.array([3600.0, 14400.0, 28800.0])
    end = clock.end_time(rows, work)
    start = clock.start_time(rows, work)
    # an hour into Monday; the end of Monday's shift; the end of Tuesday's shift
    assert end.tolist() == pytest.approx([3600 / 86400, 14400 / 86400, 1 + 14400 / 86400])
    # the next task starts an hour into Monday, at Tuesday's start, at Thursday's start
    assert start.tolist() == pytest.approx([3600 / 86400, 1.0, 3.0])
    assert finish_day(end).tolist() == [0, 0, 1]
    assert np.isinf(clock.end_time(rows[:1], np.array([50_000.0])))[0]  # beyond the horizon
    got = clock.work_at(rows[:2], np.array([1 + 1800 / 86400, 2.5]))
    assert got.tolist() == pytest.approx([16200.0, 28800.0])


def test_a_full_day_shift_ends_on_its_own_day():
    clock = Clock(capacity(np.array([[86400.0, 86400.0]])))
    end = clock.end_time(np.zeros(1, dtype=np.int64), np.array([86400.0]))
    assert finish_day(end).tolist() == [0]
