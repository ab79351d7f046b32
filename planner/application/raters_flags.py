"""``plan``'s several-annotator options as the library's parameters, for ``plan`` and ``schedule``.

``plan --annotators M`` (:mod:`planner.cli.plan_raters`) and ``schedule`` when it sizes the
work by the several-annotator plan (:mod:`planner.cli.schedule`) take the same options: the
checks on them (:func:`check_several_options`), the scenario they name
(:func:`raters_scenario`), their translation into the parameters of
:func:`planner.application.raters_options.raters_plan_from_options`
(:func:`library_options`) and the translation back of a library error into their flags
(:func:`flags_named`) live here, once, so that neither command imports the other's private
helpers. The options are a command's ``locals()``: option names with ``_`` (``error_rate``),
``None`` when not given.
"""

from __future__ import annotations

import re
from typing import Any

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


def _floats(text: str | None, option: str) -> tuple[float, ...] | None:
    """``"0.05"`` or ``"0.03,0.07"`` as numbers (None: not given)."""
    if text is None:
        return None
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise InvalidInput(
            f"{option} takes a number or comma-separated numbers, got {text!r}"
        ) from None


def flags_named(exc: InvalidInput) -> InvalidInput:
    """The library error ``exc`` with the library's parameter names as ``plan``'s flags: the
    leading name, and the others elsewhere except words of the prose (:data:`_PROSE`:
    "metric kappa needs ..." stays readable)."""
    text = _LEADING.sub(lambda m: FLAGS[m.group(1)], str(exc))
    text = _NAMES.sub(lambda m: FLAGS[m.group(1)], text)
    for name in getattr(exc, "parameters", ()):  # the others the sentence names
        if name in FLAGS:
            text = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", FLAGS[name], text)
    return InvalidInput(text)


def check_several_options(options: dict[str, Any], with_scenario: bool = False) -> None:
    """Refuse, in one line naming the flag, what does not combine with several annotators:
    a pair-only option (a scenario file is fine when ``with_scenario``: it is a
    several-annotator one), reading options without ``--pilot``, ``--annotators-per-item``
    and a ``--metric`` that is not a multi-rater one (:data:`MULTI_RATER_METRICS`)."""
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
    metric = options.get("metric")
    if metric is not None and metric not in MULTI_RATER_METRICS:
        raise InvalidInput(
            f"--metric must be one of {', '.join(MULTI_RATER_METRICS)} with several "
            f"annotators, got {metric!r}"
        )


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


def library_options(options: dict[str, Any]) -> dict[str, Any]:
    """``plan``'s flags as the parameters of
    :func:`~planner.application.raters_options.raters_plan_from_options` (``None``: not
    given); lists of numbers (``--prevalence 0.2,0.3,0.5``) parsed, one line on a bad one."""
    bias = _floats(options.get("bias"), "--bias")
    return {
        "n_annotators": options.get("annotators"),
        "n_categories": options.get("categories"),
        "prevalence": _floats(options.get("prevalence"), "--prevalence"),
        "error_rate": _floats(options.get("error_rate"), "--error-rate"),
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
