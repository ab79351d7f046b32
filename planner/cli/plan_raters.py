"""``plan --annotators M --metric fleiss|alpha|psa``: the plan for several annotators.

``plan_command`` (:mod:`planner.cli.commands`) hands its options here when they ask for
more than two annotators, more than two categories, several class prevalences, a
multi-rater metric, a level, a ``k``-of-``M`` design or a confusion matrix, or name a
scenario file with an ``[annotators]`` section (:func:`wants_raters`); everything else stays
the pair's plan. ``--kappa`` with several annotators is kappaSize's common-prevalence model
(:mod:`planner.sizing.raters_common`); ``--pilot FILE`` with ``--annotators M`` plans the
pilot's M annotators from their latent-class fit and under its uncertainty
(:mod:`planner.sizing.raters_pilot`); ``--items``, ``--hours``, ``--budget`` and ``--curve``
add the precision of a fixed size and the assurance curve
(:mod:`planner.sizing.raters_precision`). The precedence of options over the scenario over
the defaults is :mod:`planner.application.raters_options`; the options' checks and their
translation into the library's parameters are :mod:`planner.application.raters_flags`
(``schedule`` shares them).
"""

from __future__ import annotations

from typing import Any

from planner.application.raters_flags import (
    IGNORED,
    MULTI_RATER_METRICS,
    check_several_options,
    flags_named,
    library_options,
    parse_confusion,
    raters_scenario,
    single_prevalence,
)
from planner.cli.common import emit_json, note, progress_bar, seed_or_draw
from planner.errors import InvalidInput

#: the names ``plan`` (planner.cli.commands) and the web pages take from here
__all__ = [
    "MULTI_RATER_METRICS",
    "parse_confusion",
    "plan_raters",
    "single_prevalence",
    "wants_raters",
]


def wants_raters(options: dict[str, Any]) -> bool:
    """Whether ``plan``'s options ask for the multi-rater plan."""
    annotators = options.get("annotators")
    categories = options.get("categories")
    return (
        (annotators is not None and annotators != 2)
        or options.get("metric") in ("fleiss", "alpha", "conger")
        or (categories is not None and categories != 2)
        or "," in str(options.get("prevalence") or "")
        or any(options.get(k) is not None for k in ("level", "per_item", "confusion"))
        or raters_scenario(options) is not None
    )


def _ignored_notes(options: dict[str, Any]) -> list[str]:
    """Notes on options that do not apply (made after the plan, so an error stays one line;
    printed with the plan's own notes and carried in its JSON)."""
    return [
        f"--{name.replace('_', '-')} has no effect on a multi-rater plan"
        for name in IGNORED
        if options.get(name) is not None
    ]


def plan_raters(options: dict[str, Any]) -> None:
    """Run and print the multi-rater plan for ``plan``'s options (its ``locals()``)."""
    from planner.application.raters_options import raters_plan_from_options
    from planner.data.layout import LayoutUnclear, RoleConflict

    scenario = raters_scenario(options)
    if scenario is not None and options.get("scenario") and options.get("scenario_option"):
        raise InvalidInput("give the scenario file once: as the argument or with --scenario")
    check_several_options(options, scenario is not None)
    library = library_options(options)
    if library["prevalence"] is None and scenario is None and library["pilot"] is None:
        raise InvalidInput("--prevalence is required with several annotators: P or P1,...,PK")
    seed = options.get("seed")
    if seed is None and scenario is not None:
        seed = scenario.simulation.get("seed")
    seed = seed_or_draw(seed)
    try:
        quiet = bool(options.get("json_output") or options.get("quiet"))
        with progress_bar("sizing", disabled=quiet) as progress:
            plan = raters_plan_from_options(library, scenario, rng=seed, progress=progress)
    except InvalidInput as exc:
        raise flags_named(exc) from None
    except (LayoutUnclear, RoleConflict) as exc:  # the pilot file's: name plan's flags
        from planner.cli.options import reader_error

        raise reader_error(exc) from None
    plan.notes.extend(_ignored_notes(options))
    if options.get("json_output"):
        for line in plan.notes:
            note(line)
        from planner.output.jsonout import raters_plan_document

        emit_json(raters_plan_document(plan))
        return
    from planner.output.render import TerminalConsole as Console
    from planner.output.render_raters import render_raters_plan

    render_raters_plan(plan, Console(markup=False))
