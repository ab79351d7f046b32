"""A pilot label file as the start of a plan: read it, choose the pair, count its 2x2 table.

:func:`read_pilot` reads the file with the same reader as ``planner agree``
(:func:`planner.data.reading.read_labels`), chooses two annotators (``pair``, required with
three or more), and returns a :class:`Pilot`: the annotators, the items both rated, the 2x2
counts ``(both, a_only, b_only, neither)`` for the positive label, and PSA and Cohen's kappa
with their intervals (:mod:`planner.statistics.intervals`). Its counts are exactly what
``--pilot-counts`` takes, so the plug-in plan is the same.

With three or more annotators and no ``pair``, :func:`pilot_pair_model` fits all of them
with the latent-class model of Dawid & Skene (1979)
(:func:`planner.statistics.dawid_skene.fit_latent_classes`) and plans for two copies of the
average fitted annotator (:func:`planner.sizing.fitted_pair.pair_model_from_fit`); the
:class:`Pilot` then carries that model (``model``, said in ``description``) instead of a
pair's 2x2 counts. The fit assumes that the annotators err independently given the true
class (docs/methods/dawid-skene.md section 9).

The file is read by :func:`planner.data.engine_duckdb.read_with_engine`: pandas, or DuckDB
out of core (``engine``, ``memory_limit``, ``temp_dir``), as ``planner agree`` reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.errors import InvalidInput
from planner.validation import (
    RULES,
    check,
    check_instance,
    check_text,
    check_texts,
    compact_repr,
)

if TYPE_CHECKING:
    from planner.data.labels import Ratings
    from planner.sizing.model import PairModel

#: what a plan from the latent-class fit of a pilot assumes, in words
INDEPENDENCE_NOTE = (
    "the latent-class fit assumes the annotators err independently given the true class "
    "(Dawid & Skene 1979): when the same items are hard for everybody it overstates "
    "their accuracy and the plan is too small"
)


@dataclass(frozen=True)
class PilotCoefficient:
    """A coefficient of the pilot's pair with its interval (``None``: undefined there)."""

    name: str
    estimate: float | None
    lower: float | None
    upper: float | None
    level: float
    method: str


@dataclass(frozen=True)
class Pilot:
    """What a pilot file holds for planning a two-annotator study."""

    __repr__ = compact_repr  # shapes, not every value

    source: str
    annotators: tuple[str, ...]
    pair: tuple[str, str] | None
    positive: str
    items: int
    counts: tuple[int, int, int, int] | None
    psa: PilotCoefficient | None
    kappa: PilotCoefficient | None
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: three or more annotators and no pair: the plan's model from the latent-class fit
    model: PairModel | None = None

    @property
    def description(self) -> str:
        """Which annotators the plan stands for, and how."""
        if self.model is not None:
            return str(self.model.assumptions["description"])
        assert self.pair is not None  # a pilot is a pair's counts or a fitted model
        return f"annotators {self.pair[0]} and {self.pair[1]}: their 2x2 counts"


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
        f"{ratings.source}: the labels are not 0/1 or true/false, so positive must name the "
        f"label that counts (one of: {shown})",
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


def pilot_pair_model(ratings: Ratings, *, positive: str | None = None) -> PairModel:
    """The plan's model from a pilot with three or more annotators and no chosen pair.

    Fits every annotator with :func:`~planner.statistics.dawid_skene.fit_latent_classes`
    (no bootstrap: the plan uses the point estimates) and returns the model of two copies of
    the average fitted annotator (:func:`~planner.sizing.fitted_pair.pair_model_from_fit`);
    its ``assumptions["description"]`` says which annotators and how.

    Raises
    ------
    InvalidInput
        Labels other than two categories, or a fitted model plan cannot use.
    FitDidNotConverge
        The fit does not converge.
    """
    from planner.sizing.fitted_pair import pair_model_from_fit
    from planner.statistics.dawid_skene import fit_latent_classes
    from planner.statistics.dawid_skene_settings import LatentClassSettings

    _two_labels(ratings)
    pos = _positive(ratings, positive)
    fit = fit_latent_classes(ratings, LatentClassSettings(n_boot=0))
    return pair_model_from_fit(fit, positive=fit.categories[pos])


def _two_labels(ratings: Ratings) -> None:
    if ratings.n_categories > 2:
        raise InvalidInput(
            f"{ratings.source}: a pilot for planning has two labels (positive and not), "
            f"found {ratings.n_categories}"
        )


def _fitted_pilot(ratings: Ratings, positive: str | None) -> Pilot:
    """The :class:`Pilot` of three or more annotators: the latent-class model, no pair."""
    model = pilot_pair_model(ratings, positive=positive)
    return Pilot(
        source=ratings.source,
        annotators=tuple(ratings.annotators),
        pair=None,
        positive=str(model.assumptions["positive"]),
        items=ratings.n_items,
        counts=None,
        psa=None,
        kappa=None,
        notes=(*ratings.notes, INDEPENDENCE_NOTE),
        model=model,
    )


def _coefficient(
    name: str, estimate: Any, interval: Any, level: float, method: str
) -> PilotCoefficient:
    def number(x: Any) -> float | None:
        value = float(np.asarray(x))
        return value if np.isfinite(value) else None

    return PilotCoefficient(
        name, number(estimate), number(interval.low), number(interval.high), level, method
    )


def pilot_from_ratings(
    ratings: Ratings,
    *,
    pair: tuple[str, str] | None = None,
    positive: str | None = None,
    confidence_level: float = 0.95,
) -> Pilot:
    """The :class:`Pilot` of two annotators of ``ratings`` (see the module docstring)."""
    from planner.data.labels import Ratings

    check("confidence_level", confidence_level, RULES["confidence_level"])
    check_instance("ratings", ratings, Ratings, "a Ratings (read_labels, ratings_from_matrix, ...)")
    if pair is not None and (check_texts("pair", pair) is None or len(pair) != 2):
        raise InvalidInput(f"pair must name two annotators, got {len(pair)}", parameter="pair")
    if positive is not None:  # a label: text, or a number for numeric labels
        check_instance("positive", positive, (str, int, float, np.number), "a label")
    from planner.statistics import agreement
    from planner.statistics.intervals import kappa_interval, psa_interval

    if pair is None and ratings.n_annotators > 2:
        return _fitted_pilot(ratings, positive)
    first, second = _pair_indices(ratings, pair)
    _two_labels(ratings)
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
    engine: str | None = None,
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    **reader: Any,
) -> Pilot:
    """Read a pilot label file into a :class:`Pilot`.

    ``reader``: the options of :func:`planner.data.reading.read_labels` (layout, columns,
    format, missing); ``engine`` (``"pandas"``, ``"duckdb"`` or ``"auto"``, the default),
    ``memory_limit`` and ``temp_dir``: as :func:`planner.data.engine_duckdb.read_with_engine`.
    """
    if not isinstance(path, str | Path) or not str(path):
        raise InvalidInput(f"path must name a label file, got {path!r}", parameter="path")
    from dataclasses import replace

    from planner.data.engine_duckdb import read_with_engine
    from planner.data.reader_settings import ReaderSettings

    given = {k: v for k, v in reader.items() if v is not None}
    for key in ("annotator_cols", "missing"):  # lists on the way in, tuples in the options
        if key in given:
            given[key] = tuple(given[key])
    options = ReaderSettings(**given)
    chosen_engine = "auto" if engine is None else str(check_text("engine", engine))
    ratings, chosen, why = read_with_engine(
        path, options, engine=chosen_engine, memory_limit=memory_limit, temp_dir=temp_dir
    )
    if chosen_engine == "auto" and chosen == "duckdb":
        ratings = replace(ratings, notes=(why, *ratings.notes))
    return pilot_from_ratings(
        ratings, pair=pair, positive=positive, confidence_level=confidence_level
    )
