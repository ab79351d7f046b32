"""A study in progress that is not stratified, from its label file and, when given, its scenario.

:func:`remaining_from_file` is what ``plan --labelled FILE --scenario S``, ``schedule
--labelled FILE S`` and ``report S --labelled FILE`` run (a stratified study in progress is
:mod:`planner.application.strata_in_progress`). The plan of the rest
(:func:`planner.sizing.midstudy.plan_remaining_from_file`, a pair's or several annotators')
takes its target, costs and effort from the values given over the scenario's ``[target]``,
``[budget]`` and ``[simulation]`` (several annotators: also ``[annotators]``' metric and
level) over the defaults (:func:`remaining_settings`); a scenario that names its people
(``[[team.annotator]]``) bills the remaining items person by person, as ``schedule`` runs
them (:func:`planner.sizing.team_cost.priced_budget`), and the plan says so in a note.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.application.precedence import SETTING_SOURCES, resolve_values
from planner.errors import InvalidInput

if TYPE_CHECKING:
    from planner.data.scenario import Scenario
    from planner.sizing.midstudy_settings import RemainingSettings
    from planner.sizing.plan_settings import PlanSettings
    from planner.sizing.team_cost import TeamPricing


def scenario_settings(scenario: Scenario) -> PlanSettings:
    """The plan's settings from the scenario's ``[target]``, ``[budget]`` and ``[simulation]``
    (and, for several annotators, ``[annotators]``' metric and level) over the defaults."""
    from planner.application.plan_options import resolve, settings_from
    from planner.data.scenario_raters import RatersScenario
    from planner.sizing.plan_settings import PlanSettings

    if not isinstance(scenario, RatersScenario):
        return settings_from(resolve(scenario, {}))
    sources = {
        **SETTING_SOURCES,
        "metric": ("annotators", "metric"),
        "level": ("annotators", "level"),
    }
    given, _ = resolve_values({}, scenario, sources, {})
    return PlanSettings(**{k: v for k, v in given.items() if v is not None})


def remaining_settings(
    scenario: Scenario | None, given: dict[str, Any], file_annotators: int = 2
) -> PlanSettings:
    """The settings of the plan of the rest: ``given`` (:class:`~planner.sizing.plan.
    PlanSettings` fields, ``None`` = not given) over the scenario's (:func:`scenario_settings`)
    over the defaults, with the scenario's named team's pricing (:func:`rest_pricing`) for
    labels from ``file_annotators`` annotators."""
    from planner.sizing.plan_settings import PlanSettings

    base = PlanSettings() if scenario is None else scenario_settings(scenario)
    settings = replace(base, **{k: v for k, v in given.items() if v is not None})
    labels_given = given.get("annotators_per_item")
    team = rest_pricing(scenario, settings, labels_given, file_annotators)
    return settings if team is None else replace(settings, team=team)


def names_team(scenario: Scenario | None) -> bool:
    """Whether the scenario names its people (``[[team.annotator]]``)."""
    return scenario is not None and bool((getattr(scenario, "team", None) or {}).get("annotator"))


def rest_pricing(
    scenario: Scenario | None,
    settings: PlanSettings,
    labels_given: int | None = None,
    file_annotators: int = 2,
) -> TeamPricing | None:
    """The named team's price of a remaining item (None without ``[[team.annotator]]``): a
    pair's ``annotators_per_item`` labels (``labels_given``, else the scenario's), several
    annotators' ``annotators.count`` (every item gets a label from each), and a pair
    scenario's file of 3 to 6 annotators (``file_annotators``) their number
    (:func:`planner.application.schedule_team.plan_pricing`)."""
    from planner.application.schedule_team import plan_pricing
    from planner.data.scenario_raters import RatersScenario

    if scenario is None or not names_team(scenario):
        return None
    labels, from_file, parameter = settings.annotators_per_item, labels_given is None, None
    if not isinstance(scenario, RatersScenario) and 3 <= file_annotators <= 6:
        labels, from_file, parameter = file_annotators, False, "n_annotators"
    if isinstance(scenario, RatersScenario):
        count = scenario.annotators.count if scenario.annotators is not None else None
        if count is None:
            raise InvalidInput(
                f"{scenario.path}: annotators.count must say how many annotators label each "
                "item, to bill the named team for them"
            )
        labels, from_file, parameter = int(count), False, "n_annotators"
    return plan_pricing(
        scenario, settings, labels, from_file, labels_parameter=parameter or "annotators_per_item"
    )


def check_count(scenario: Scenario, found: int) -> None:
    """A several-annotator scenario's ``[annotators]`` count is the number of annotators the
    file's labels are planned for, ``found`` (a pair's plan has two)."""
    section = getattr(scenario, "annotators", None)
    if section is not None and section.count is not None and section.count != found:
        raise InvalidInput(
            f"{scenario.path}: annotators.count {section.count} does not match the labels in "
            f"hand: the study in progress is planned for their {found} annotators",
            parameter="scenario",
        )


def file_annotators(ratings: Any, pair: tuple[str, str] | None) -> int:
    """The number of annotators the rest of the study whose labels in hand are ``ratings``
    (:class:`planner.data.labels.Ratings`) is planned for: their 3 to 6 when ``pair`` does
    not choose two, else 2 (as :func:`planner.sizing.midstudy.plan_remaining_from_ratings`
    plans them)."""
    if pair is not None:
        return 2
    found = len(ratings.annotators)
    return found if 3 <= found <= 6 else 2


def remaining_from_file(
    path: str | Path,
    scenario: Scenario | str | Path | None = None,
    *,
    remaining: RemainingSettings | None = None,
    pair: tuple[str, str] | None = None,
    positive: Any = None,
    reader: dict[str, Any] | None = None,
    rng: Any = None,
    **given: Any,
) -> Any:
    """The plan of the rest of the study whose labels so far are ``path``.

    Parameters
    ----------
    path
        The label file (read as ``plan --pilot`` reads one: ``pair``, ``positive``,
        ``reader``).
    scenario
        A scenario without ``[[strata]]`` (a path, a shipped name or a loaded one): its
        ``[target]``, ``[budget]``, ``[simulation]`` and named team; ``None``: the defaults.
        A named team bills a label from each of the file's annotators (its 3 to 6 without
        ``pair``), and a pair scenario's ``annotators_per_item`` otherwise. The file is read
        once, before the team is priced.
    remaining
        ``planned_items``, ``batch_size``, ``hours`` or ``budget``
        (:class:`~planner.sizing.midstudy_settings.RemainingSettings`).
    given
        :class:`~planner.sizing.plan.PlanSettings` fields over the scenario's (``None``: not
        given), and ``rng``.

    Returns
    -------
    RemainingPlan
        :func:`planner.sizing.midstudy.plan_remaining_from_file`'s, a note added when the
        named team bills the rest.

    Raises
    ------
    InvalidInput
        A scenario with ``[[strata]]`` (its study in progress is read by stratum), a
        several-annotator scenario whose ``annotators.count`` is not the file's, or any of
        the plan's refusals.
    """
    from planner.application.schedule_team import pricing_note
    from planner.data.scenario import load_scenario
    from planner.sizing.midstudy import plan_remaining_from_ratings, read_labels_in_hand

    loaded = load_scenario(scenario) if isinstance(scenario, str | Path) else scenario
    if loaded is not None:
        refuse_strata(loaded)
    ratings = read_labels_in_hand(path, reader)
    found = file_annotators(ratings, pair)
    if loaded is not None and names_team(loaded):  # before the team is priced for them
        check_count(loaded, found)
        check_team_size(loaded, found, path)
    try:
        settings = remaining_settings(loaded, given, found)
        plan = plan_remaining_from_ratings(
            ratings, settings, remaining, pair=pair, positive=positive, rng=rng
        )
    except InvalidInput as exc:
        raise scenario_key_error(exc, loaded, given) from None
    if loaded is not None:
        check_count(loaded, len(getattr(plan, "annotators", ())) or 2)
        plan = replace(plan, notes=[*plan.notes, *labels_note(loaded, plan)])
    if settings.team is None or plan.remaining_items == 0:
        return plan
    note = pricing_note(settings.team, plan.remaining_items, plan.budget.contested_items)
    return replace(plan, notes=[*plan.notes, note])


def refuse_strata(scenario: Scenario) -> None:
    """A scenario with ``[[strata]]`` plans its study in progress by stratum."""
    if scenario.strata:
        raise InvalidInput(
            f"{scenario.path} has [[strata]]: its study in progress is read by stratum; name "
            "the label file's stratum column with stratum_col",
            parameter="stratum_col",
        )


#: the plan's settings a scenario sets, and its keys
SETTING_KEYS = {
    **{name: ".".join(where) for name, where in SETTING_SOURCES.items()},
    "annotators_per_item": "budget.annotators_per_item",
}


def scenario_key_error(
    exc: InvalidInput, scenario: Scenario | None, given: dict[str, Any]
) -> InvalidInput:
    """``exc`` naming the scenario's key (``s.toml: simulation.max_items must ...``) when
    the setting it starts with came from the scenario, not from ``given``; else ``exc``."""
    key = SETTING_KEYS.get(exc.parameter or "")
    message = str(exc)
    if scenario is None or key is None or given.get(exc.parameter or "") is not None:
        return exc
    section, name = key.split(".")
    if (getattr(scenario, section, None) or {}).get(name) is None or not message.startswith(
        str(exc.parameter)
    ):
        return exc
    rest = message[len(str(exc.parameter)) :]
    return InvalidInput(f"{scenario.path}: {key}{rest}", value=exc.value, rule=exc.rule)


def check_team_size(scenario: Scenario, found: int, path: str | Path) -> None:
    """The named team must hold a distinct person for each of the ``found`` annotators whose
    labels every remaining item gets."""
    named = len(scenario.team["annotator"])
    if found > named:
        raise InvalidInput(
            f"{path}: its labels are from {found} annotators, but {scenario.path} names "
            f"{named} in [[team.annotator]]: each remaining item needs {found} distinct people",
            parameter="scenario",
        )


def labels_note(scenario: Scenario, plan: Any) -> list[str]:
    """A note when a pair scenario's study in progress is one of several annotators: the rest
    is billed a label from each, not ``budget.annotators_per_item``."""
    from planner.data.scenario_raters import RatersScenario

    found = len(getattr(plan, "annotators", ()))
    if isinstance(scenario, RatersScenario) or found < 3 or plan.remaining_items == 0:
        return []
    return [
        f"the labels in hand are from {found} annotators: each remaining item is billed a "
        f"label from each of them, not the scenario's budget.annotators_per_item"
    ]
