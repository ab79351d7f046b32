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

from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from planner.errors import InvalidInput

if TYPE_CHECKING:
    from planner.data.scenario import Scenario
    from planner.sizing.midstudy_settings import RemainingSettings
    from planner.sizing.plan_settings import PlanSettings
    from planner.sizing.team_cost import TeamPricing

#: the ``[budget]`` keys a several-annotator study in progress takes (``PlanSettings`` fields)
BUDGET_KEYS = ("seconds_per_item", "adjudication_seconds", "hourly_rate")


def scenario_settings(scenario: Scenario) -> PlanSettings:
    """The plan's settings from the scenario's ``[target]``, ``[budget]`` and ``[simulation]``
    (and, for several annotators, ``[annotators]``' metric and level) over the defaults."""
    from planner.application.plan_options import resolve, settings_from
    from planner.data.scenario_raters import RatersScenario
    from planner.sizing.plan_settings import PlanSettings

    if not isinstance(scenario, RatersScenario):
        return settings_from(resolve(scenario, {}))
    section = scenario.annotators
    given: dict[str, Any] = {
        "width": scenario.target.get("width"),
        "confidence_level": scenario.target.get("confidence"),
        "assurance": scenario.target.get("assurance"),
        "metric": section.metric if section is not None else None,
        "level": section.level if section is not None else None,
        "replicates": scenario.simulation.get("replicates"),
        "max_items": scenario.simulation.get("max_items"),
        **{k: scenario.budget.get(k) for k in BUDGET_KEYS},
    }
    return PlanSettings(**{k: v for k, v in given.items() if v is not None})


def remaining_settings(scenario: Scenario | None, given: dict[str, Any]) -> PlanSettings:
    """The settings of the plan of the rest: ``given`` (:class:`~planner.sizing.plan.
    PlanSettings` fields, ``None`` = not given) over the scenario's (:func:`scenario_settings`)
    over the defaults, with the scenario's named team's pricing (:func:`rest_pricing`)."""
    from planner.sizing.plan_settings import PlanSettings

    base = PlanSettings() if scenario is None else scenario_settings(scenario)
    settings = replace(base, **{k: v for k, v in given.items() if v is not None})
    team = rest_pricing(scenario, settings, labels_given=given.get("annotators_per_item"))
    return settings if team is None else replace(settings, team=team)


def rest_pricing(
    scenario: Scenario | None, settings: PlanSettings, labels_given: int | None = None
) -> TeamPricing | None:
    """The named team's price of a remaining item (None without ``[[team.annotator]]``): a
    pair's ``annotators_per_item`` labels (``labels_given``, else the scenario's), several
    annotators' ``annotators.count`` (every item gets a label from each)
    (:func:`planner.application.schedule_team.plan_pricing`)."""
    from planner.application.schedule_team import plan_pricing, resolve_team
    from planner.data.scenario_raters import RatersScenario

    if scenario is None or not (getattr(scenario, "team", None) or {}).get("annotator"):
        return None
    labels, from_file, parameter = settings.annotators_per_item, labels_given is None, None
    if isinstance(scenario, RatersScenario):
        count = scenario.annotators.count if scenario.annotators is not None else None
        if count is None:
            raise InvalidInput(
                f"{scenario.path}: annotators.count must say how many annotators label each "
                "item, to bill the named team for them"
            )
        labels, from_file, parameter = int(count), False, "n_annotators"
    return plan_pricing(
        scenario, asdict(resolve_team(scenario)), labels, settings.seconds_per_item,
        settings.adjudication_seconds, settings.hourly_rate, from_file,
        labels_parameter=parameter or "annotators_per_item",
    )  # fmt: skip


def check_count(scenario: Scenario, plan: Any) -> None:
    """A several-annotator scenario's ``[annotators]`` count is the number the file's labels
    are planned for (a pair's plan has two)."""
    section = getattr(scenario, "annotators", None)
    found = len(getattr(plan, "annotators", ())) or 2
    if section is not None and section.count is not None and section.count != found:
        raise InvalidInput(
            f"{scenario.path}: annotators.count {section.count} does not match the labels in "
            f"hand: the study in progress is planned for their {found} annotators",
            parameter="scenario",
        )


def remaining_from_file(
    path: str,
    scenario: Scenario | str | None = None,
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
    from planner.sizing.midstudy import plan_remaining_from_file

    loaded = load_scenario(scenario) if isinstance(scenario, str) else scenario
    if loaded is not None and loaded.strata:
        raise InvalidInput(
            f"{loaded.path} has [[strata]]: its study in progress is read by stratum (stratum_col)",
            parameter="stratum_col",
        )
    settings = remaining_settings(loaded, given)
    plan = plan_remaining_from_file(
        path, settings, remaining, pair=pair, positive=positive, reader=reader, rng=rng
    )
    if loaded is not None:
        check_count(loaded, plan)
    if settings.team is None or plan.remaining_items == 0:
        return plan
    return replace(plan, notes=[*plan.notes, pricing_note(settings.team, plan.remaining_items)])
