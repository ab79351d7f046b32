"""Words for counts in what planner prints: "1 stratum", "4 strata", never "stratum/strata"."""

from __future__ import annotations

from typing import Any

#: irregular plurals of the nouns planner counts
PLURALS = {"stratum": "strata", "analysis": "analyses"}

#: what a schedule's person-hours are (the uniform and the named team's tables say it alike)
PERSON_HOURS_MEANING = "everyone's working hours added up, not calendar time"


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun`` in the number ``n`` calls for.

    >>> counted(1, "stratum"), counted(4, "stratum"), counted(0, "adjudicator")
    ('1 stratum', '4 strata', '0 adjudicators')
    >>> counted(1200, "item")
    '1,200 items'
    """
    word = noun if n == 1 else PLURALS.get(noun, noun + "s")
    return f"{n:,} {word}"


def adjudication_said(adjudicators: int, adjudication_seconds: float, contested_rate: Any) -> str:
    """``"1 adjudicator"``, or ``"no adjudication"`` when no item is adjudicated (no seconds
    per adjudicated item, or no contested share), so a team is not shown an idle adjudicator.

    >>> adjudication_said(1, 60.0, (0.1,)), adjudication_said(1, 0.0, (0.1,))
    ('1 adjudicator', 'no adjudication')
    """
    if adjudication_seconds <= 0 or not any(rate > 0 for rate in contested_rate):
        return "no adjudication"
    return counted(adjudicators, "adjudicator")
