"""A label file counted by stratum: a stratified study's first stage, a pilot's strata.

:func:`stratum_counts` counts a label file's items in each stratum: a pair's four cells
``(both, a_only, b_only, neither)``, or several annotators' items per count pattern (every item
with the patterns' labels). :func:`design_of` reads a pair's stratified scenario as the
population-weighted design ``plan SCENARIO`` sizes, and :func:`plan_remaining_strata_from_file`
plans the rest of such a study (:func:`planner.sizing.midstudy_strata.plan_remaining_strata`);
a scenario of several annotators over strata is resolved in the application layer
(:func:`planner.application.strata_in_progress.remaining_strata_from_file`).
:func:`pilot_strata` reads a pilot labelled by stratum as one pair model per stratum, the
plug-in cells of its counts, for the designs of :func:`planner.sizing.compare.compare_designs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.midstudy_strata import (
    POSITIVE,
    StrataStage,
    StratifiedRemaining,
    plan_remaining_strata,
)
from planner.sizing.model import PairModel

if TYPE_CHECKING:
    from planner.sizing.plan_settings import PlanSettings


def design_of(scenario: Any) -> dict[str, Any]:
    """A stratified scenario's design: names, population shares, the population-weighted
    design's cost-optimal shares ``a_h ~ W_h S_h / sqrt(c_h)`` (as ``plan`` sizes it), its
    floor, each stratum's seconds per item, and the ``[target]`` and ``[budget]`` settings."""
    from planner.sizing.pair_strata import PairStrata
    from planner.sizing.plan import PlanSettings
    from planner.sizing.strata_designs import weighted_design_shares

    if not scenario.strata:
        raise InvalidInput(
            f"{scenario.path}: a stratified study in progress needs a scenario with [[strata]]",
            parameter="scenario",
        )
    if getattr(scenario, "annotators", None) is not None:
        raise InvalidInput(
            f"{scenario.path}: this reads a pair's stratified design; a scenario with "
            "[annotators] over its strata is read by "
            "planner.application.strata_in_progress.remaining_strata_from_file",
            parameter="scenario",
        )
    budget = scenario.budget
    settings = PlanSettings(seconds_per_item=float(budget.get("seconds_per_item", 90.0)))
    strata = PairStrata.of(scenario, settings)
    target = scenario.target
    return {
        "names": [s.name for s in scenario.strata],
        "shares": strata.shares,
        "design_shares": weighted_design_shares(strata, "psa"),
        "floor_items": int(scenario.design.get("floor_items", 0)),
        "seconds_per_item": strata.seconds,
        "settings": {
            "width": target.get("width"),
            "confidence_level": target.get("confidence"),
            "assurance": target.get("assurance"),
            "annotators_per_item": budget.get("annotators_per_item"),
            "seconds_per_item": budget.get("seconds_per_item"),
            "adjudication_seconds": budget.get("adjudication_seconds"),
            "hourly_rate": budget.get("hourly_rate"),
        },  # fmt: skip
    }


def design_settings(design: dict[str, Any], plan: dict[str, Any]) -> PlanSettings:
    """The plan-of-the-rest settings of a pair's stratified design (:func:`design_of`): the
    scenario's ``[target]`` and ``[budget]`` values, then ``plan``'s (``None``: not given;
    ``team``: a named team's :class:`~planner.sizing.team_cost.TeamPricing`)."""
    from planner.sizing.plan import PlanSettings

    values = {k: v for k, v in design["settings"].items() if v is not None}
    values.update({k: v for k, v in plan.items() if v is not None})
    return PlanSettings(**values)


def read_by_stratum(path: str, stratum_col: str, reader: dict[str, Any] | None = None) -> Any:
    """The :class:`~planner.data.labels.Ratings` of a label file with ``stratum_col`` kept as
    a group (``reader``: the options of
    :func:`~planner.sizing.pilot_latent_class.read_raters_ratings`). A column given two
    roles, or a stratum column the file lacks, is named ``stratum_col`` (the reader's own
    name is ``by``)."""
    from planner.data.layout import MissingColumns, RoleConflict
    from planner.sizing.pilot_latent_class import read_raters_ratings

    options = dict(reader or {})
    options["by"] = (*options.get("by", ()), stratum_col)
    try:
        return read_raters_ratings(path, options)
    except RoleConflict as exc:
        roles = tuple("stratum_col" if role == "by" else role for role in exc.roles)
        raise RoleConflict(exc.source, exc.column, (roles[0], roles[1])) from None
    except MissingColumns as exc:
        if stratum_col not in exc.missing.get("by", ()):
            raise
        raise InvalidInput(
            f"stratum_col {stratum_col!r} is not a column of {exc.source} (columns are: "
            f"{exc.columns})",
            parameter="stratum_col",
            value=stratum_col,
        ) from None


def stratum_counts(
    ratings: Any,
    stratum_col: str,
    names: list[str],
    positive: Any,
    patterns: NDArray[np.int64] | None = None,
) -> NDArray[np.int64]:
    """Each stratum's counts in a label file, the strata in the order of ``names`` (every
    value of the column must be one): a pair's ``(H, 4)`` ``(both, a_only, b_only,
    neither)``; with ``patterns`` (several annotators' ``(P, 2)`` count patterns), the
    ``(H, P)`` items per pattern, every item with the patterns' labels."""
    from planner.measuring.stratified import stratum_pair_tables

    _check_labelled(ratings, patterns)
    if stratum_col not in ratings.groups:
        raise InvalidInput(
            f"stratum_col {stratum_col!r} is not a column read from {ratings.source}",
            parameter="stratum_col",
        )
    text = np.asarray([str(v) for v in ratings.groups[stratum_col]])
    _check_strata_values(sorted(set(text.tolist())), names, stratum_col, ratings.source)
    index = {n: i for i, n in enumerate(names)}
    code = np.array([index[t] for t in text])
    first = _positive_index(ratings, positive) == 0
    if patterns is not None:
        return _pattern_counts(ratings, code, len(names), patterns, first)
    tables = stratum_pair_tables(ratings, code, len(names))
    if not first:  # positive first: (both, a_only, b_only, neither)
        tables = tables[:, ::-1, ::-1]
    return np.ascontiguousarray(tables).reshape(len(names), 4)


def _check_strata_values(found: list[str], names: list[str], column: str, source: Any) -> None:
    """Every value of the stratum column is one of the scenario's strata, and every stratum
    has items in the file."""
    strata = ", ".join(repr(n) for n in names)
    unknown = [v for v in found if v not in names]
    if unknown:
        raise InvalidInput(
            f"{source}: column {column!r} holds {', '.join(repr(v) for v in unknown[:5])}, "
            f"not one of the scenario's strata ({strata})",
            parameter="stratum_col",
        )
    missing = [n for n in names if n not in found]
    if missing:
        raise InvalidInput(
            f"{source}: column {column!r} has no item of the scenario's stratum "
            f"{', '.join(repr(n) for n in missing)}; every stratum needs labelled items "
            f"(the scenario's strata: {strata})",
            parameter="stratum_col",
        )


def _check_labelled(ratings: Any, patterns: NDArray[np.int64] | None) -> None:
    """Two labels; a pair's two annotators, or every item with the patterns' labels."""
    if patterns is None:
        if ratings.n_annotators != 2 or ratings.n_categories != 2:
            raise InvalidInput(
                f"{ratings.source}: a pair's labels counted by stratum need two annotators and "
                f"two labels, found {ratings.n_annotators} and {ratings.n_categories}",
                parameter="labelled",
            )
        return
    labels = int(patterns[0].sum())
    per_item = ratings.ratings_per_item()
    if ratings.n_categories != 2 or np.any(per_item != labels):
        odd = sorted(set(per_item[per_item != labels].tolist()))
        found = f"{ratings.n_categories} labels" if ratings.n_categories != 2 else (
            f"items with {', '.join(map(str, odd[:3]))} labels"
        )  # fmt: skip
        raise InvalidInput(
            f"{ratings.source}: the design gives every item {labels} labels of two kinds, "
            f"found {found}",
            parameter="labelled",
        )


def _positive_index(ratings: Any, positive: Any) -> int:
    """The index of the positive label among the file's two (``positive``, else 1/true)."""
    labels = [str(c).lower() for c in ratings.categories]
    chosen = positive if positive is not None else next(
        (p for p in ("1", "true") if p in labels and set(labels) <= {"0", "1", "false", "true"}),
        None,
    )  # fmt: skip
    if chosen is None:  # not given, and the labels are not 0/1 or false/true
        raise InvalidInput(
            f"positive must name the label that counts: the file's labels are {', '.join(labels)}",
            parameter="positive",
        )
    if str(chosen).lower() not in labels:
        raise InvalidInput(
            f"positive must be one of the file's labels: {', '.join(labels)}",
            parameter="positive",
        )
    return labels.index(str(chosen).lower())


def _pattern_counts(
    ratings: Any, code: NDArray, n_strata: int, patterns: NDArray[np.int64], first: bool
) -> NDArray[np.int64]:
    """``(H, P)`` items per count pattern ``(negatives, positives)`` in each stratum."""
    counts = ratings.counts()  # (rows, 2) labels per category
    hits = counts[:, 0] if first else counts[:, 1]
    column = np.zeros(int(patterns[:, POSITIVE].max()) + 1, dtype=np.int64)
    column[patterns[:, POSITIVE]] = np.arange(len(patterns))  # positives -> pattern
    cell = code * len(patterns) + column[hits]
    weights = None if ratings.weights is None else ratings.weights.astype(float)
    out = np.bincount(cell, weights=weights, minlength=n_strata * len(patterns))
    return np.round(out).astype(np.int64).reshape(n_strata, len(patterns))


def plan_remaining_strata_from_file(
    path: str,
    scenario: Any,
    stratum_col: str,
    *,
    positive: Any = None,
    reader: dict[str, Any] | None = None,
    remaining: RemainingSettings | None = None,
    **plan: Any,
) -> StratifiedRemaining:
    """:func:`plan_remaining_strata` from a pair's label file with a stratum column and a
    stratified scenario (a path or a shipped name): the design is the scenario's
    population-weighted design (:func:`design_of`); ``plan`` overrides its ``[target]`` and
    ``[budget]`` settings (:func:`design_settings`; ``team``: a named team's prices);
    ``remaining`` as :func:`plan_remaining_strata` takes it."""
    from planner.data.scenario import load_scenario

    design = design_of(load_scenario(scenario))
    return remaining_strata_of_design(
        path, design, stratum_col, positive=positive, reader=reader, remaining=remaining, **plan
    )


def remaining_strata_of_design(
    path: str,
    design: dict[str, Any],
    stratum_col: str,
    *,
    positive: Any = None,
    reader: dict[str, Any] | None = None,
    remaining: RemainingSettings | None = None,
    **plan: Any,
) -> StratifiedRemaining:
    """:func:`plan_remaining_strata_from_file` with the scenario's design (:func:`design_of`)
    already built."""
    from dataclasses import replace

    ratings = read_by_stratum(path, stratum_col, reader)
    counts = stratum_counts(ratings, stratum_col, design["names"], positive)
    rng = plan.pop("rng", None)
    stage = StrataStage(
        counts, design["names"], design["shares"], design["design_shares"],
        floor_items=design["floor_items"], seconds_per_item=design["seconds_per_item"],
    )  # fmt: skip
    result = plan_remaining_strata(stage, design_settings(design, plan), remaining, rng=rng)
    return replace(result, source=str(ratings.source), notes=[*ratings.notes, *result.notes])


#: what a plan from a pilot by stratum says of its models
PILOT_STRATA_NOTE = (
    "each stratum's model is its pilot counts (the designs use the plug-in cells; the weighted "
    "design is also sized under the pilot's uncertainty); the scenario's prevalences and error "
    "rates are not used"
)
#: below this many union positives a pilot stratum's model gets a note (its PSA is loose)
FEW_UNION_POSITIVES = 10


@dataclass(frozen=True)
class PilotStrata:
    """A pilot labelled by stratum (:func:`pilot_strata`): each stratum's pair model (the
    plug-in cells of its counts), the ``(H, 4)`` counts, the file and notes."""

    models: tuple[PairModel, ...]
    counts: tuple[tuple[int, int, int, int], ...]
    source: str
    notes: tuple[str, ...] = ()


def pilot_strata(
    path: str,
    scenario: Any,
    stratum_col: str,
    *,
    positive: Any = None,
    reader: dict[str, Any] | None = None,
) -> PilotStrata:
    """Each stratum's pair model from a pilot file with a stratum column, in the order of
    ``scenario``'s ``[[strata]]`` (a loaded scenario; every value of the column must be one of
    its strata, and every stratum must be in the file).

    A stratum's model is :func:`~planner.sizing.model.pair_from_counts` of its counts: the
    plug-in cells, as ``--pilot-counts`` takes them (the designs are sized on them; the
    weighted design also under the pilot's uncertainty,
    :mod:`planner.sizing.strata_pilot_uncertainty`); a stratum with fewer than
    :data:`FEW_UNION_POSITIVES` union positives gets its own note.

    Raises
    ------
    InvalidInput
        A file that is not a pair's two labels, a stratum column that was not read, a value
        that is not a stratum, or a stratum without union positives (named ``pilot``).
    """
    from planner.sizing.model import pair_from_counts

    names = [s.name for s in scenario.strata]
    ratings = read_by_stratum(path, stratum_col, reader)
    counts = stratum_counts(ratings, stratum_col, names, positive)
    models = []
    for name, row in zip(names, counts, strict=True):
        if row[:3].sum() == 0:
            raise InvalidInput(
                f"pilot {ratings.source}: stratum {name!r} has no item either annotator flags, "
                "so its PSA cannot be planned from the pilot",
                parameter="pilot",
            )
        models.append(pair_from_counts([int(x) for x in row]))
    unions = [int(row[:3].sum()) for row in counts]
    notes = [*ratings.notes, f"{PILOT_STRATA_NOTE} ({ratings.source})", *_few_note(names, unions)]
    return PilotStrata(
        tuple(models), tuple(tuple(int(x) for x in r) for r in counts),  # type: ignore[misc]
        str(ratings.source), tuple(notes),
    )  # fmt: skip


#: what a plan of several annotators from a pilot by stratum says of its strata
PILOT_PATTERNS_NOTE = (
    "each stratum's label patterns are its pilot's share of items per count pattern (the "
    "designs use the plug-in shares; the weighted design is also sized under the pilot's "
    "uncertainty); the scenario's prevalences and error rates are not used"
)


@dataclass(frozen=True)
class PilotPatterns:
    """A pilot of several annotators labelled by stratum (:func:`pilot_pattern_strata`): the
    ``(H, P)`` items per count pattern, the file and notes."""

    counts: tuple[tuple[int, ...], ...]
    source: str
    notes: tuple[str, ...] = ()

    @property
    def probabilities(self) -> NDArray[np.float64]:
        """``(H, P)`` each stratum's share of items per pattern (the plug-in model)."""
        table = np.asarray(self.counts, dtype=float)
        return np.asarray(table / table.sum(axis=1, keepdims=True))


def pilot_pattern_strata(
    path: str,
    names: list[str],
    stratum_col: str,
    patterns: NDArray[np.int64],
    *,
    positive: Any = None,
    reader: dict[str, Any] | None = None,
) -> PilotPatterns:
    """Each stratum's items per count pattern in a pilot of several annotators labelled by
    stratum, in the order of ``names`` (every value of the column one of them, every one in
    the file; every item with the labels of ``patterns``, ``(P, 2)`` negatives and
    positives); a stratum with fewer than :data:`FEW_UNION_POSITIVES` union positives gets a
    note.

    Raises
    ------
    InvalidInput
        As :func:`stratum_counts`, or a stratum where no annotator flags an item (named
        ``pilot``).
    """
    ratings = read_by_stratum(path, stratum_col, reader)
    counts = stratum_counts(ratings, stratum_col, names, positive, patterns)
    flagged = patterns[:, POSITIVE] > 0
    unions: list[int] = []
    for name, row in zip(names, counts, strict=True):
        union = int(row[flagged].sum())
        if union == 0:
            raise InvalidInput(
                f"pilot {ratings.source}: stratum {name!r} has no item any annotator flags, so "
                "its agreement cannot be planned from the pilot",
                parameter="pilot",
            )
        unions.append(union)
    notes = [*ratings.notes, f"{PILOT_PATTERNS_NOTE} ({ratings.source})", *_few_note(names, unions)]
    rows = tuple(tuple(int(x) for x in r) for r in counts)
    return PilotPatterns(rows, str(ratings.source), tuple(notes))


def _few_note(names: list[str], unions: list[int]) -> list[str]:
    """A note naming the pilot's strata with fewer than :data:`FEW_UNION_POSITIVES` union
    positives (none when every stratum has enough)."""
    few = [f"{n!r} ({u})" for n, u in zip(names, unions, strict=True) if u < FEW_UNION_POSITIVES]
    if not few:
        return []
    return [
        f"strata with fewer than {FEW_UNION_POSITIVES} union positives in the pilot: "
        f"{', '.join(few)}; their models, and the designs' allocation, rest on few items"
    ]
