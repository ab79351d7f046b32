"""A pilot label file as the start of a plan: read it, choose the pair, count its 2x2 table.

:func:`read_pilot` reads the file with the same reader as ``planner agree``
(:func:`planner.data.reading.read_labels`), chooses two annotators (``pair``, required with
three or more), and returns a :class:`Pilot`: the annotators, the items both rated, the 2x2
counts ``(both, a_only, b_only, neither)`` for the positive label, and PSA and Cohen's kappa
with their intervals (:mod:`planner.statistics.intervals`). Its counts are exactly what
``--pilot-counts`` takes, so the plug-in plan is the same.

With three or more annotators and no ``pair``, :func:`pilot_pair_model` is where a latent
class fit of all of them (Dawid & Skene 1979) goes; for now it refuses, naming ``pair``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.errors import InvalidInput

if TYPE_CHECKING:
    from planner.data.labels import Ratings


@dataclass(frozen=True)
class Pilot:
    """What a pilot file holds for planning a two-annotator study."""

    source: str
    annotators: tuple[str, ...]
    pair: tuple[str, str]
    positive: str
    items: int
    counts: tuple[int, int, int, int]
    psa: dict[str, Any]
    kappa: dict[str, Any]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """The pilot's JSON section (:func:`planner.output.jsonout.pilot_json`)."""
        from planner.output.jsonout import pilot_json

        return pilot_json(self)


def _positive(ratings: Ratings, positive: str | None) -> int:
    """The positive category: given, or 1 / true for 0/1 and false/true labels."""
    if positive is not None:
        return ratings.category_index(positive)
    labels = [str(c).lower() for c in ratings.categories]
    for yes, both in (("1", {"0", "1"}), ("true", {"false", "true"})):
        if set(labels) <= both and yes in labels:
            return labels.index(yes)
    shown = ", ".join(str(c) for c in ratings.categories[:10])
    raise InvalidInput(
        f"{ratings.source}: say which label is positive with positive (labels: {shown})",
        parameter="positive",
    )


def _pair_indices(ratings: Ratings, pair: tuple[str, str] | None) -> tuple[int, int]:
    names = list(ratings.annotators)
    if len(names) < 2:
        raise InvalidInput(
            f"{ratings.source}: a pilot needs two annotators' labels, found {len(names)} "
            f"({', '.join(names) or 'none'})"
        )
    if pair is None:
        if len(names) > 2:
            pilot_pair_model(ratings)
        return 0, 1
    if len(pair) != 2 or pair[0] == pair[1]:
        raise InvalidInput(
            f"pair takes two different annotators A,B; got {','.join(pair)}", parameter="pair"
        )
    unknown = [p for p in pair if p not in names]
    if unknown:
        raise InvalidInput(
            f"pair names {unknown[0]!r}, not an annotator in {ratings.source} "
            f"(annotators: {', '.join(names)})",
            parameter="pair",
        )
    return names.index(pair[0]), names.index(pair[1])


def pilot_pair_model(ratings: Ratings) -> Any:
    """The plan's model from a pilot with three or more annotators and no chosen pair.

    Placeholder for the latent-class (Dawid-Skene) fit of every annotator; until it is wired
    in, a pilot with three or more annotators needs ``pair``.
    """
    raise InvalidInput(
        f"{ratings.source} has {ratings.n_annotators} annotators "
        f"({', '.join(ratings.annotators)}): choose two with pair A,B",
        parameter="pair",
    )


def _coefficient(name: str, estimate: Any, interval: Any, level: float, method: str) -> dict:
    def number(x: Any) -> float | None:
        value = float(np.asarray(x))
        return value if np.isfinite(value) else None

    return {
        "name": name,
        "estimate": number(estimate),
        "interval": {
            "lower": number(interval.low),
            "upper": number(interval.high),
            "level": level,
            "method": method,
        },
    }


def pilot_from_ratings(
    ratings: Ratings,
    *,
    pair: tuple[str, str] | None = None,
    positive: str | None = None,
    confidence_level: float = 0.95,
) -> Pilot:
    """The :class:`Pilot` of two annotators of ``ratings`` (see the module docstring)."""
    from planner.statistics import agreement
    from planner.statistics.intervals import kappa_interval, psa_interval

    first, second = _pair_indices(ratings, pair)
    if ratings.n_categories > 2:
        raise InvalidInput(
            f"{ratings.source}: a pilot for planning has two labels (positive and not), "
            f"found {ratings.n_categories}"
        )
    pos = _positive(ratings, positive)
    table = ratings.pair_table(first, second)
    other = 1 - pos if ratings.n_categories == 2 else None
    both = int(table[pos, pos])
    a_only = int(table[pos, other]) if other is not None else 0
    b_only = int(table[other, pos]) if other is not None else 0
    neither = int(table[other, other]) if other is not None else 0
    counts = (both, a_only, b_only, neither)
    if both + a_only + b_only == 0:
        raise InvalidInput(
            f"{ratings.source}: no item of the pilot is labelled {ratings.categories[pos]} by "
            "either annotator (no union positives), so it says nothing about PSA"
        )
    t = np.array([[both, a_only], [b_only, neither]], dtype=float)
    psa = _coefficient(
        "psa",
        agreement.positive_agreement(t),
        psa_interval(t, confidence_level, "wilson"),
        confidence_level,
        "wilson",
    )
    kappa = _coefficient(
        "cohen_kappa",
        agreement.cohen_kappa(t),
        kappa_interval(t, confidence_level, "score"),
        confidence_level,
        "score",
    )
    names = ratings.annotators
    return Pilot(
        source=ratings.source,
        annotators=tuple(names),
        pair=(names[first], names[second]),
        positive=str(ratings.categories[pos]),
        items=int(sum(counts)),
        counts=counts,
        psa=psa,
        kappa=kappa,
        notes=tuple(ratings.notes),
    )


def read_pilot(
    path: str,
    *,
    pair: tuple[str, str] | None = None,
    positive: str | None = None,
    confidence_level: float = 0.95,
    **reader: Any,
) -> Pilot:
    """Read a pilot label file (``reader``: the options of
    :func:`planner.data.reading.read_labels`) into a :class:`Pilot`."""
    from planner.data.reading import read_labels

    ratings = read_labels(path, **reader)
    return pilot_from_ratings(
        ratings, pair=pair, positive=positive, confidence_level=confidence_level
    )
