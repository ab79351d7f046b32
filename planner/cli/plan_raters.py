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
the defaults is :mod:`planner.application.raters_options`.
"""

from __future__ import annotations

import re
from typing import Any

from planner.cli.common import (
    emit_json,
    note,
    parse_floats,
    progress_bar,
    seed_or_draw,
)
from planner.errors import InvalidInput

MULTI_RATER_METRICS = ("fleiss", "alpha", "psa", "conger", "kappa")
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
    "n_reps": "--replicates",
    "max_items": "--max-items",
    "seconds_per_item": "--seconds-per-item",
    "hourly_rate": "--hourly-rate",
    "adjudication_seconds": "--adjudication-seconds",
    "items": "--items",
    "hours": "--hours",
    "budget": "--budget",
    "pilot": "--pilot",
    "positive": "--positive",
}
# mid-sentence, names that are also words of the prose ("metric kappa") are not renamed;
# a leading name is renamed when the error says it is the parameter (or starts with one)
_PROSE = (
    "metric", "kappa", "level", "width", "prevalence", "bias", "assurance", "items", "hours",
    "pilot", "positive",
)  # fmt: skip
_NAMES = re.compile(r"(?<![\w.-])(" + "|".join(n for n in FLAGS if n not in _PROSE) + r")(?![\w-])")
_LEADING = re.compile(r"^(" + "|".join(FLAGS) + r")(?![\w-])")
# pair-only options: an error with several annotators (they describe one pair)
PAIR_ONLY = ("scenario", "scenario_option", "union_rate", "psa", "pilot_counts", "pair")
IGNORED = ("psa_method", "kappa_method")
# options for reading --pilot FILE (a pilot of the several annotators): refused without it
READER = {
    "positive": "--positive",
    "layout": "--layout",
    "item_col": "--item-col",
    "annotator_col": "--annotator-col",
    "label_col": "--label-col",
    "annotator_cols": "--annotator-cols",
    "pilot_annotators": "--pilot-annotators",
    "file_format": "--format",
    "missing": "--missing",
    "engine": "--engine",
    "memory_limit": "--memory-limit",
    "temp_dir": "--temp-dir",
}


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


def single_prevalence(text: str | None) -> float | None:
    """``--prevalence`` of the pair's plan: one number."""
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        raise InvalidInput(f"--prevalence takes a number in (0, 1), got {text!r}") from None


def parse_confusion(text: str | None) -> list[list[list[float]]] | None:
    """``'0.9,0.1;0.2,0.8'`` (rows by ``;``) for every annotator, or one per annotator by ``|``."""
    if text is None:
        return None
    try:
        mats = [
            [[float(x) for x in row.split(",")] for row in mat.split(";")]
            for mat in text.split("|")
        ]
    except ValueError:
        raise InvalidInput(
            f"--confusion takes rows of numbers ('0.9,0.1;0.2,0.8', '|' between annotators), "
            f"got {text!r}"
        ) from None
    if any(len(row) != len(mat) for mat in mats for row in mat):
        raise InvalidInput(f"--confusion must be square (K rows of K numbers), got {text!r}")
    return mats


def _flagged(exc: InvalidInput) -> InvalidInput:
    """The error with the library's parameter names as ``plan``'s flags: the leading name,
    and the others elsewhere except words of the prose (:data:`_PROSE`: "metric kappa needs
    ..." stays readable)."""
    text = _LEADING.sub(lambda m: FLAGS[m.group(1)], str(exc))
    text = _NAMES.sub(lambda m: FLAGS[m.group(1)], text)
    for name in getattr(exc, "parameters", ()):  # the others the sentence names
        if name in FLAGS:
            text = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", FLAGS[name], text)
    return InvalidInput(text)


def _checked_options(options: dict[str, Any], with_scenario: bool = False) -> None:
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
    if reader and options.get("pilot") is None:
        raise InvalidInput(
            f"{', '.join(reader)}: options for reading --pilot FILE, which is not given"
        )
    per_item = options.get("annotators_per_item")
    if per_item is not None:
        raise InvalidInput(
            "--annotators-per-item is the pair plan's; with several annotators use "
            "--annotators (and --per-item for k of them per item)"
        )


def _ignored_notes(options: dict[str, Any]) -> list[str]:
    """Notes on options that do not apply (made after the plan, so an error stays one line;
    printed with the plan's own notes and carried in its JSON)."""
    return [
        f"--{name.replace('_', '-')} has no effect on a multi-rater plan"
        for name in IGNORED
        if options.get(name) is not None
    ]


def raters_scenario(options: dict[str, Any]) -> Any:
    """The scenario named by ``plan``'s argument or ``--scenario`` when it has an
    ``[annotators]`` section, else ``None`` (a pair's scenario, none, or one that does not
    load: the pair's plan then reports the error)."""
    from planner.data.scenario import load_scenario
    from planner.data.scenario_raters import RatersScenario

    path = options.get("scenario") or options.get("scenario_option")
    if path is None:
        return None
    try:
        scenario = load_scenario(path)
    except InvalidInput:
        return None
    return scenario if isinstance(scenario, RatersScenario) else None


def _library_options(options: dict[str, Any]) -> dict[str, Any]:
    """``plan``'s flags as the library's parameters (``None``: not given)."""
    bias = parse_floats(options.get("bias"), "--bias")
    return {
        "n_annotators": options.get("annotators"),
        "n_categories": options.get("categories"),
        "prevalence": parse_floats(options.get("prevalence"), "--prevalence"),
        "error_rate": parse_floats(options.get("error_rate"), "--error-rate"),
        "bias": bias,
        "confusion": parse_confusion(options.get("confusion")),
        "ambiguity": options.get("ambiguity"),
        "kappa": options.get("kappa"),
        "metric": options.get("metric"),
        "level": options.get("level"),
        "per_item": options.get("per_item"),
        "width": options.get("width"),
        "confidence_level": options.get("confidence"),
        "assurance": options.get("assurance"),
        "n_reps": options.get("replicates"),
        "max_items": options.get("max_items"),
        "seconds_per_item": options.get("seconds_per_item"),
        "hourly_rate": options.get("hourly_rate"),
        "adjudication_seconds": options.get("adjudication_seconds"),
        "items": options.get("items"),
        "hours": options.get("hours"),
        "budget": options.get("budget"),
        "curve": bool(options.get("curve")),
        "pilot": options.get("pilot"),
        "positive": options.get("positive"),
        "pilot_reader": _pilot_reader(options),
    }


def _pilot_reader(options: dict[str, Any]) -> dict[str, Any]:
    """The options for reading ``--pilot FILE``, as :func:`read_raters_pilot` takes them."""
    skip = ("pilot_annotators", "positive")
    reader = {name: options.get(name) for name in READER if name not in skip}
    columns = options.get("annotator_cols") or options.get("pilot_annotators")
    reader["annotator_cols"] = columns.split(",") if columns else None
    missing = options.get("missing")
    reader["missing"] = missing.split(",") if missing else None
    return {k: v for k, v in reader.items() if v is not None}


def plan_raters(options: dict[str, Any]) -> None:
    """Run and print the multi-rater plan for ``plan``'s options (its ``locals()``)."""
    from planner.application.raters_options import raters_plan_from_options
    from planner.data.layout import LayoutUnclear, RoleConflict

    scenario = raters_scenario(options)
    if scenario is not None and options.get("scenario") and options.get("scenario_option"):
        raise InvalidInput("give the scenario file once: as the argument or with --scenario")
    _checked_options(options, scenario is not None)
    metric = options.get("metric")
    if metric is not None and metric not in MULTI_RATER_METRICS:
        raise InvalidInput(
            f"--metric must be one of {', '.join(MULTI_RATER_METRICS)} with several "
            f"annotators, got {metric!r}"
        )
    library = _library_options(options)
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
        raise _flagged(exc) from None
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
