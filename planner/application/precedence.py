"""One precedence for every plan: an option given beats the scenario file, which beats the default.

A plan of a pair (:mod:`planner.application.plan_options`) and one of several annotators
(:mod:`planner.application.raters_options`) each name, in a table of :data:`Sources`, the
scenario section and key that can give each of their parameters (``"width": ("target",
"width")``). :func:`resolve_values` merges the documented defaults, the scenario's values and
the options given (``None``: not given) by that table, and says which values came from the
file, so that :func:`named_by_file` can name an error in such a value as the file's key
(``toxicity.toml: target.width must be in [0.001, 1), got 2``) instead of as the parameter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from planner.errors import InvalidInput

#: parameter -> (scenario section, key): where a scenario file can give a plan's parameter
Sources = Mapping[str, tuple[str, str]]
#: the plan settings (:class:`planner.sizing.plan.PlanSettings` fields) every kind of
#: scenario can give, and where: the target, the simulation's effort and the budget's costs
SETTING_SOURCES: Sources = {
    "width": ("target", "width"),
    "confidence_level": ("target", "confidence"),
    "assurance": ("target", "assurance"),
    "replicates": ("simulation", "replicates"),
    "max_items": ("simulation", "max_items"),
    "seconds_per_item": ("budget", "seconds_per_item"),
    "adjudication_seconds": ("budget", "adjudication_seconds"),
    "hourly_rate": ("budget", "hourly_rate"),
}


def scenario_value(scenario: Any, section: str, key: str) -> Any:
    """The scenario's value of ``section.key``, or ``None``: a table section (``target``,
    ``budget``, ...) is a mapping, ``[annotators]`` an object with attributes."""
    part = getattr(scenario, section, None)
    if part is None:
        return None
    if isinstance(part, Mapping):
        return part.get(key)
    return getattr(part, key, None)


def resolve_values(
    options: Mapping[str, Any],
    scenario: Any,
    sources: Sources,
    defaults: Mapping[str, Any],
) -> tuple[dict[str, Any], set[str]]:
    """Every parameter of ``sources``: the option given, else the scenario's, else the
    default (``None`` without one); and the parameters whose value came from the file."""
    values: dict[str, Any] = {}
    from_file: set[str] = set()
    for parameter, (section, key) in sources.items():
        value = options.get(parameter)
        if value is None and scenario is not None:
            value = scenario_value(scenario, section, key)
            if value is not None:
                from_file.add(parameter)
        values[parameter] = defaults.get(parameter) if value is None else value
    return values, from_file


def named_by_file(
    exc: InvalidInput,
    scenario: Any,
    from_file: set[str],
    sources: Sources,
    parameter_of: Mapping[str, str] | None = None,
) -> InvalidInput:
    """``exc`` with its leading parameter name replaced by ``file: section.key`` when that
    parameter's value came from the scenario file; else ``exc`` itself.

    ``parameter_of`` maps the error's parameter to the table's name where the two differ
    (``PlanSettings``' ``confidence_level`` is a pair's ``confidence``).
    """
    parameter = getattr(exc, "parameter", None) or ""
    merged = (parameter_of or {}).get(parameter, parameter)
    if scenario is None or merged not in from_file:
        return exc
    section, key = sources[merged]
    text = re.sub(rf"^{re.escape(parameter)}\b", "", str(exc)).lstrip()
    return InvalidInput(f"{scenario.path}: {section}.{key} {text}")
