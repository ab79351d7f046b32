"""Words for counts in what planner prints: "1 stratum", "4 strata", never "stratum/strata"."""

from __future__ import annotations

#: irregular plurals of the nouns planner counts
PLURALS = {"stratum": "strata", "analysis": "analyses"}


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun`` in the number ``n`` calls for.

    >>> counted(1, "stratum"), counted(4, "stratum"), counted(0, "adjudicator")
    ('1 stratum', '4 strata', '0 adjudicators')
    >>> counted(1200, "item")
    '1,200 items'
    """
    word = noun if n == 1 else PLURALS.get(noun, noun + "s")
    return f"{n:,} {word}"
