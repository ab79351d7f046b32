"""``plan``'s several-annotator options as the library's parameters, for ``plan`` and ``schedule``.

``plan --annotators M`` (:mod:`planner.cli.plan_raters`) and ``schedule`` when it sizes the
work by the several-annotator plan (:mod:`planner.cli.schedule`) take the same options: the
scenario they name (:func:`raters_scenario`) and their translation into the parameters of
:func:`planner.application.raters_options.raters_plan_from_options` (:func:`library_options`)
live here, once. The options are a command's ``locals()``: option names with ``_``
(``error_rate``), ``None`` when not given. Errors name the library's parameters
(``error_rate takes a number ...``); the CLI turns them into its flags
(:func:`planner.cli.plan_raters.error_in_flags`), and so do the checks that speak of flags
(:func:`planner.cli.plan_raters.check_several_options`).
"""

from __future__ import annotations

from typing import Any

from planner.errors import InvalidInput

MULTI_RATER_METRICS = ("fleiss", "alpha", "psa", "conger", "kappa")
# pair-only options: an error with several annotators (they describe one pair)
PAIR_ONLY = ("scenario", "scenario_option", "union_rate", "psa", "pilot_counts", "pair")
IGNORED = ("psa_method", "kappa_method")
#: the options for reading ``pilot`` (a pilot file of the several annotators)
READER_OPTIONS = (
    "positive",
    "layout",
    "item_col",
    "annotator_col",
    "label_col",
    "annotator_cols",
    "pilot_annotators",
    "file_format",
    "missing",
    "engine",
    "memory_limit",
    "temp_dir",
)


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
            f"confusion takes rows of numbers ('0.9,0.1;0.2,0.8', '|' between annotators), "
            f"got {text!r}",
            parameter="confusion",
        ) from None
    if any(len(row) != len(mat) for mat in mats for row in mat):
        raise InvalidInput(
            f"confusion must be square (K rows of K numbers), got {text!r}", parameter="confusion"
        )
    return mats


def parse_numbers(text: str | None, name: str) -> tuple[float, ...] | None:
    """``"0.05"`` or ``"0.03,0.07"`` as numbers (None: not given); ``name``: the parameter."""
    if text is None:
        return None
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise InvalidInput(
            f"{name} takes a number or comma-separated numbers, got {text!r}", parameter=name
        ) from None


def raters_scenario(options: dict[str, Any]) -> Any:
    """The scenario named by ``plan``'s argument or ``--scenario`` when it has an
    ``[annotators]`` section, else ``None`` (a pair's scenario, none, or one that does not
    load: the pair's plan then reports the error)."""
    path = options.get("scenario") or options.get("scenario_option")
    if path is None:
        return None
    from planner.data.scenario import load_scenario
    from planner.data.scenario_raters import RatersScenario

    try:
        scenario = load_scenario(path)
    except InvalidInput:
        return None
    return scenario if isinstance(scenario, RatersScenario) else None


def asks_for_several(options: dict[str, Any]) -> bool:
    """Whether ``plan``'s options (a command's ``locals()``) ask for the several-annotator
    plan rather than the pair's: more or fewer than two annotators, a multi-rater metric
    (``fleiss``, ``alpha``, ``conger``), other than two categories, several class
    prevalences (``"0.2,0.3,0.5"``), a ``level``, ``per_item`` or ``confusion``, or a
    scenario with an ``[annotators]`` section (:func:`raters_scenario`)."""
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


def library_options(options: dict[str, Any]) -> dict[str, Any]:
    """``plan``'s flags as the parameters of
    :func:`~planner.application.raters_options.raters_plan_from_options` (``None``: not
    given); lists of numbers (``--prevalence 0.2,0.3,0.5``) parsed, one line on a bad one."""
    bias = parse_numbers(options.get("bias"), "bias")
    return {
        "n_annotators": options.get("annotators"),
        "n_categories": options.get("categories"),
        "prevalence": parse_numbers(options.get("prevalence"), "prevalence"),
        "error_rate": parse_numbers(options.get("error_rate"), "error_rate"),
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
        "replicates": options.get("replicates"),
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
    reader = {name: options.get(name) for name in READER_OPTIONS if name not in skip}
    columns = options.get("annotator_cols") or options.get("pilot_annotators")
    reader["annotator_cols"] = columns.split(",") if columns else None
    missing = options.get("missing")
    reader["missing"] = missing.split(",") if missing else None
    return {k: v for k, v in reader.items() if v is not None}
