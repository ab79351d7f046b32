"""``plan --annotators M --metric fleiss|alpha|psa``: the plan for several annotators.

``plan_command`` (:mod:`planner.cli.commands`) hands its options here when they ask for
more than two annotators, more than two categories, several class prevalences, a
multi-rater metric, a level, a ``k``-of-``M`` design or a confusion matrix, or name a
scenario file with an ``[annotators]`` section
(:func:`planner.application.several_options.asks_for_several`); everything else stays
the pair's plan. ``--kappa`` with several annotators is kappaSize's common-prevalence model
(:mod:`planner.sizing.common_prevalence_model`); ``--pilot FILE`` with ``--annotators M`` plans the
pilot's M annotators from their latent-class fit and under its uncertainty
(:mod:`planner.sizing.pilot_latent_class`); ``--items``, ``--hours``, ``--budget`` and ``--curve``
add the precision of a fixed size and the assurance curve
(:mod:`planner.sizing.precision`). The precedence of options over the scenario over
the defaults is :mod:`planner.application.raters_options`; the options' checks and their
translation into the library's parameters are :mod:`planner.application.several_options`
(``schedule`` shares them).
"""

from __future__ import annotations

import re
from typing import Any

from planner.application import several_options
from planner.application.several_options import (
    IGNORED,
    MULTI_RATER_METRICS,
    PAIR_ONLY,
    library_options,
    raters_scenario,
)
from planner.cli.common import emit_json, note, progress_bar, seed_of
from planner.cli.options import PILOT_READER_FLAGS
from planner.errors import InvalidInput

# library parameters of the multi-rater path and the flags that set them
FLAGS = {
    "n_annotators": "--annotators",
    "n_categories": "--categories",
    "per_item": "--per-item",
    "confusion": "--confusion",
    "prevalence": "--prevalence",
    "error_rate": "--error-rate",
    "bias": "--bias",
    "ambiguity": "--ambiguity",
    "metric": "--metric",
    "kappa": "--kappa",
    "level": "--level",
    "width": "--width",
    "confidence_level": "--confidence",
    "assurance": "--assurance",
    "replicates": "--replicates",
    "max_items": "--max-items",
    "seconds_per_item": "--seconds-per-item",
    "hourly_rate": "--hourly-rate",
    "adjudication_seconds": "--adjudication-seconds",
    "items": "--items",
    "hours": "--hours",
    "budget": "--budget",
    "pilot": "--pilot",
    "positive": "--positive",
    "curve": "--curve",
    "stratum_col": "--stratum-col",
    **PILOT_READER_FLAGS,  # a pilot file's reader ("use file_format csv|tsv" is --format)
}
# mid-sentence, names that are also words of the prose ("metric kappa") are not renamed;
# a leading name is renamed when the error says it is the parameter (or starts with one)
_PROSE = (
    "metric", "kappa", "level", "width", "prevalence", "bias", "assurance", "items", "hours",
    "pilot", "positive", "curve", "layout", "missing", "engine",
)  # fmt: skip
_NAMES = re.compile(r"(?<![\w.-])(" + "|".join(n for n in FLAGS if n not in _PROSE) + r")(?![\w-])")
_LEADING = re.compile(r"^(" + "|".join(FLAGS) + r")(?![\w.-])")  # not "pilot.csv: ..."
# options for reading --pilot FILE (a pilot of the several annotators): refused without it
READER = {
    "positive": "--positive",
    **PILOT_READER_FLAGS,
    "pilot_annotators": "--pilot-annotators",
}


def single_prevalence(text: str | None) -> float | None:
    """``--prevalence`` of the pair's plan: one number."""
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        raise InvalidInput(f"--prevalence takes a number in (0, 1), got {text!r}") from None


def parse_confusion(text: str | None) -> list[list[list[float]]] | None:
    """``'0.9,0.1;0.2,0.8'`` (rows by ``;``) for every annotator, or one per annotator by
    ``|`` (:func:`planner.application.several_options.parse_confusion`, its error in flags)."""
    try:
        return several_options.parse_confusion(text)
    except InvalidInput as exc:
        raise error_in_flags(exc) from None


def error_in_flags(exc: InvalidInput) -> InvalidInput:
    """The library error ``exc`` with the library's parameter names as ``plan``'s flags: the
    leading name, and the others elsewhere except words of the prose (:data:`_PROSE`:
    "metric kappa needs ..." stays readable)."""
    text = _LEADING.sub(lambda m: FLAGS[m.group(1)], str(exc))
    text = _NAMES.sub(lambda m: FLAGS[m.group(1)], text)
    for name in getattr(exc, "parameters", ()):  # the others the sentence names
        if name in FLAGS:
            text = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", FLAGS[name], text)
    return InvalidInput(text)


def check_several_options(options: dict[str, Any], scenario: Any = None) -> None:
    """Refuse, in one line naming the flag (``plan``'s and ``schedule``'s several-annotator
    options), what does not combine with several annotators:
    a pair-only option (a scenario file is fine when ``scenario`` is given: it is a
    several-annotator one), reading options without ``--pilot`` (or the scenario's
    ``annotators.pilot_file``), ``--annotators-per-item``
    and a ``--metric`` that is not a multi-rater one (:data:`MULTI_RATER_METRICS`)."""
    with_scenario = scenario is not None
    for name in PAIR_ONLY:
        if with_scenario and name.startswith("scenario"):
            continue
        if options.get(name) is not None:
            flag = "a scenario file" if name.startswith("scenario") else FLAGS.get(name, name)
            flag = flag if flag.startswith(("a ", "--")) else "--" + name.replace("_", "-")
            raise InvalidInput(
                f"{flag} describes one pair and does not combine with several annotators; "
                "describe them by --prevalence, --error-rate, --bias or --confusion"
            )
    reader = [flag for name, flag in READER.items() if options.get(name) is not None]
    piloted = with_scenario and getattr(scenario.annotators, "pilot_file", None) is not None
    if reader and options.get("pilot") is None and not piloted:
        raise InvalidInput(
            f"{', '.join(reader)}: options for reading --pilot FILE, which is not given"
        )
    per_item = options.get("annotators_per_item")
    if per_item is not None:
        raise InvalidInput(
            "--annotators-per-item is the pair plan's; with several annotators use "
            "--annotators (and --per-item for k of them per item)"
        )
    metric = options.get("metric")
    if metric is not None and metric not in MULTI_RATER_METRICS:
        raise InvalidInput(
            f"--metric must be one of {', '.join(MULTI_RATER_METRICS)} with several "
            f"annotators, got {metric!r}"
        )


def _ignored_notes(options: dict[str, Any]) -> list[str]:
    """Notes on options that do not apply (made after the plan, so an error stays one line;
    printed with the plan's own notes and carried in its JSON)."""
    return [
        f"--{name.replace('_', '-')} has no effect on a multi-rater plan"
        for name in IGNORED
        if options.get(name) is not None
    ]


def _plan_strata(
    options: dict[str, Any], library: dict[str, Any], scenario: Any, seed: int
) -> None:
    """Run and print the designs over the strata of a several-annotator scenario."""
    from planner.application.raters_strata_options import raters_comparison_from_options

    try:
        quiet = bool(options.get("json_output") or options.get("quiet"))
        with progress_bar("sizing designs", disabled=quiet) as progress:
            library = {**library, "stratum_col": options.get("stratum_col")}
            comparison = raters_comparison_from_options(
                library, scenario, rng=seed, progress=progress
            )
    except InvalidInput as exc:
        raise error_in_flags(exc) from None
    comparison.notes.extend(_ignored_notes(options))
    from planner.output import jsonout, render

    _emit(options, comparison, jsonout.comparison_document, render.render_comparison)


def _emit(options: dict[str, Any], result: Any, document: Any, show: Any) -> None:
    """``result`` as its JSON ``document`` (which carries its notes; only the options it did
    not use are also said on stderr, as for a pair) or as the tables ``show``
    prints; with the scenario's schedule where it has a ``[team]`` and its Alt-Test plan
    where it has ``[alt_test]``."""
    from planner.application.alt_test_options import HumanEffort, alt_test_for_plan
    from planner.application.schedule_options import schedule_for_plan

    path = options.get("scenario") or options.get("scenario_option")
    schedule = schedule_for_plan(path, result)
    effort = HumanEffort(options.get("seconds_per_item"), options.get("hourly_rate"))
    alt_test = alt_test_for_plan(path, result.seed, effort)
    if options.get("json_output"):
        from planner.output.alt_test_json import with_alt_test

        for line in _ignored_notes(options):  # as the pair's: the rest is in the document
            note(line)
        emit_json(with_alt_test(document(result, schedule), alt_test))
        return
    from planner.output.render import TerminalConsole as Console
    from planner.output.render import render_schedule

    console = Console(markup=False)
    show(result, console)
    if schedule is not None:
        render_schedule(schedule, console)
    if alt_test is not None:
        from planner.output.render_alt_test import render_alt_test_section

        render_alt_test_section(alt_test, console)


def plan_raters(options: dict[str, Any]) -> None:
    """Run and print the multi-rater plan for ``plan``'s options (its ``locals()``)."""
    from planner.application.raters_options import raters_plan_from_options
    from planner.application.raters_strata_options import has_strata
    from planner.data.layout import LayoutUnclear, RoleConflict

    scenario = raters_scenario(options)
    if scenario is not None and options.get("scenario") and options.get("scenario_option"):
        raise InvalidInput("give the scenario file once: as the argument or with --scenario")
    check_several_options(options, scenario)
    try:
        library = library_options(options)
    except InvalidInput as exc:
        raise error_in_flags(exc) from None
    if library["prevalence"] is None and scenario is None and library["pilot"] is None:
        raise InvalidInput("--prevalence is required with several annotators: P or P1,...,PK")
    seed = seed_of(options.get("seed"), scenario)
    if scenario is not None and has_strata(scenario):
        return _plan_strata(options, library, scenario, seed)
    try:
        quiet = bool(options.get("json_output") or options.get("quiet"))
        with progress_bar("sizing", disabled=quiet) as progress:
            library = {**library, "stratum_col": options.get("stratum_col")}
            plan = raters_plan_from_options(library, scenario, rng=seed, progress=progress)
    except InvalidInput as exc:
        raise error_in_flags(exc) from None
    except (LayoutUnclear, RoleConflict) as exc:  # the pilot file's: name plan's flags
        from planner.cli.options import reader_error

        raise reader_error(exc) from None
    plan.notes.extend(_ignored_notes(options))
    from planner.output.jsonout import raters_plan_document
    from planner.output.render_raters import render_raters_plan

    _emit(options, plan, raters_plan_document, render_raters_plan)
