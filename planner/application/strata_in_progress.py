"""A stratified study in progress from its label file and its scenario, a pair's or several
annotators'.

:func:`remaining_strata_from_file` is what ``plan --labelled FILE --scenario S --stratum-col
COL``, ``schedule`` and ``report`` with the same options run. A pair's scenario (``[model]``
and ``[[strata]]``) goes to :func:`planner.sizing.strata_file.remaining_strata_of_design`
(the scenario's design built once, and its named team priced from it).
A scenario whose ``[annotators]`` label its ``[[strata]]`` is resolved as ``plan SCENARIO``
resolves it (:func:`planner.application.raters_strata_options.raters_strata_of`: the options
over the scenario over the defaults); its weighted design's shares
(:func:`planner.sizing.strata_designs.weighted_design_shares`) are the design the
remaining items follow, and the file's items per count pattern in each stratum are the first
stage (:func:`planner.sizing.strata_file.stratum_counts`). The scenario's models give the
design only: the truth is drawn from each stratum's labels in hand. A scenario that names its
people (``[[team.annotator]]``) bills the remaining items person by person, as ``schedule``
runs them (:func:`planner.sizing.team_cost.priced_strata_budget`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.application.schedule_team import StrataWork
from planner.errors import InvalidInput
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.midstudy_strata import StrataStage, StratifiedRemaining, plan_remaining_strata
from planner.sizing.strata_file import (
    design_of,
    read_by_stratum,
    remaining_strata_of_design,
    stratum_counts,
)

if TYPE_CHECKING:
    from planner.sizing.team_cost import TeamPricing

#: the note of a stratified study in progress whose scenario names its people
TEAM_PRICED_NOTE = (
    "the remaining items are billed by the named team person by person, stratum by stratum: "
    "each one's seconds per label (a stratum's scaled by their ratio to the budget's) and "
    "hourly rate, labels shared as the schedule's assignment shares them"
)


def remaining_strata_from_file(
    path: str,
    scenario: Any,
    stratum_col: str,
    *,
    positive: Any = None,
    reader: dict[str, Any] | None = None,
    remaining: RemainingSettings | None = None,
    **plan: Any,
) -> StratifiedRemaining:
    """The remaining items per stratum of the study whose labels so far are ``path``.

    Parameters
    ----------
    path, stratum_col
        The label file and its column naming each item's stratum (every value one of the
        scenario's strata).
    scenario
        A stratified scenario (a path or a shipped name): a pair's, or one with
        ``[annotators]`` (every item labelled by the ``count`` annotators, or by ``per_item``
        of them; the file's items must each have that many labels).
    positive, reader
        The positive label and how to read the file.
    remaining
        ``batch_size``, ``hours`` or ``budget``
        (:func:`planner.sizing.midstudy_strata.plan_remaining_strata`).
    plan
        Overrides of the scenario's ``[target]``, ``[budget]`` and ``[simulation]``
        (``width``, ``confidence_level``, ``assurance``, ``max_items``, ``replicates``,
        ``hourly_rate``, ``adjudication_seconds``, ``annotators_per_item`` for a pair) and
        ``rng``.

    Raises
    ------
    InvalidInput
        A file or value out of range, named by its parameter.
    """
    from planner.data.scenario import load_scenario

    loaded = load_scenario(scenario) if isinstance(scenario, str | Path) else scenario
    if getattr(loaded, "annotators", None) is None:
        design = design_of(loaded)
        result = remaining_strata_of_design(
            path, design, stratum_col, positive=positive, reader=reader,
            remaining=remaining, team=_pair_team(loaded, design, plan), **plan,
        )  # fmt: skip
    else:
        result = _several(path, loaded, stratum_col, positive, reader, remaining, dict(plan))
    if (getattr(loaded, "team", None) or {}).get("annotator"):  # named people
        return replace(result, notes=[*result.notes, TEAM_PRICED_NOTE])
    return result


def _pair_team(scenario: Any, design: dict[str, Any], plan: dict[str, Any]) -> TeamPricing | None:
    """The price of the remaining items by a pair's scenario's named people (None without
    ``[[team.annotator]]``), for the labels an item the plan of the rest (``design``, the
    scenario's, with ``plan``'s overrides) gives them."""
    from planner.application.schedule_team import plan_pricing
    from planner.sizing.strata_file import design_settings

    if not (getattr(scenario, "team", None) or {}).get("annotator"):
        return None
    given = {k: v for k, v in plan.items() if k != "rng"}
    s = design_settings(design, given)
    return plan_pricing(scenario, s, s.annotators_per_item, plan.get("annotators_per_item") is None)


def _several(
    path: str,
    scenario: Any,
    stratum_col: str,
    positive: Any,
    reader: dict[str, Any] | None,
    remaining: RemainingSettings | None,
    plan: dict[str, Any],
) -> StratifiedRemaining:
    """Several annotators over strata (module docstring)."""
    from planner.application.raters_strata_options import raters_strata_of
    from planner.sizing.strata_designs import weighted_design_shares

    rng = plan.pop("rng", None)
    if plan.pop("annotators_per_item", None) is not None:
        raise InvalidInput(
            "annotators_per_item does not apply to several annotators over strata: every item "
            f"gets the labels {scenario.path} gives it (annotators.count or per_item)",
            parameter="annotators_per_item",
        )
    resolved = raters_strata_of({k: v for k, v in plan.items() if v is not None}, scenario)
    strata, settings = resolved.strata, resolved.settings
    ratings = read_by_stratum(path, stratum_col, reader)
    names = list(strata.names)
    counts = stratum_counts(ratings, stratum_col, names, positive, strata.patterns)
    stage = StrataStage(
        counts, names, strata.shares, weighted_design_shares(strata, settings.metric),
        floor_items=resolved.extra.floor_items, seconds_per_item=strata.seconds,
        patterns=strata.patterns, metric=settings.metric,
    )  # fmt: skip
    result = plan_remaining_strata(stage, settings, remaining, rng=rng)
    return replace(result, source=str(ratings.source), notes=[*ratings.notes, *result.notes])


def remaining_work(result: StratifiedRemaining, contested_rate: float | None = None) -> StrataWork:
    """The items a stratified study in progress still needs, as its schedule labels them:
    each stratum's remaining items at that stratum's seconds per item and contested share
    (the labels in hand's; ``contested_rate`` given, that share in every stratum), so that
    the schedule's analytic person-hours are the plan's (:attr:`StratifiedRemaining.budget`
    at the single rate).

    Raises
    ------
    InvalidInput
        ``contested_rate`` outside [0, 1].
    """
    from planner.validation import RULES, check

    if contested_rate is not None:
        contested_rate = check("contested_rate", contested_rate, RULES["contested_rate"])
    contested = [s.contested_rate if contested_rate is None else contested_rate
                 for s in result.strata]  # fmt: skip
    return StrataWork(
        items=tuple(s.remaining for s in result.strata),
        seconds_per_item=tuple(s.seconds_per_item for s in result.strata),
        contested_rate=tuple(min(max(float(c), 0.0), 1.0) for c in contested),
        labels_per_item=result.labels_per_item,
        notes=(),
    )
