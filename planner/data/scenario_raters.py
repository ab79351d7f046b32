"""The ``[annotators]`` section of a scenario file: a study of several annotators.

A scenario with an ``[annotators]`` section describes three to six annotators (or two with
several categories) instead of one pair; ``plan SCENARIO`` then makes the multi-rater plan
(:mod:`planner.application.raters_options`). The other sections keep their meaning: ``[target]``
(width, confidence, assurance; a ``metric`` there is the annotators' one metric, as
``annotators.metric``), ``[budget]`` (seconds_per_item, hourly_rate),
``[simulation]`` (replicates, max_items, seed). ``[model]`` and ``[[strata]]`` describe one
pair and do not combine with it, nor does ``budget.annotators_per_item`` (``count`` and
``per_item`` say who labels)::

    [annotators]
    count = 3                   # annotators in the pool, 2 to 6
    per_item = 2                # optional: each item labelled by k < count of them
    categories = 2              # optional check: the number of prevalences
    prevalence = 0.05           # binary (the positive class), or [p1, ..., pK]
    error_rate = [0.02, 0.03, 0.025]   # one value or one per annotator
    bias = 0.0                  # one value or one per annotator (binary only)
    confusion = [[0.98, 0.02], [0.2, 0.8]]   # instead of error_rate: one K x K matrix
                                # (rows: true class) or a list of one per annotator
    ambiguity = 0.2             # share of items whose errors coincide
    kappa = 0.6                 # instead: kappaSize's common-prevalence model
    metric = "psa"              # fleiss, alpha, psa, conger, kappa
    level = "nominal"           # alpha's level: nominal, ordinal, interval

or, instead of the model, a pilot label file of the annotators (their latent-class fit is
the model, and the plan counts its uncertainty, as ``plan --pilot FILE`` does)::

    [annotators]
    pilot_file = "wide.csv"     # relative to this file
    pilot_positive = "yes"      # binary: the positive label
    pilot_layout = "wide"       # and how to read it, as [model]'s pilot_* keys:
                                # pilot_item_col, pilot_annotator_col, pilot_label_col,
                                # pilot_annotator_cols, pilot_format, pilot_missing
    count = 3                   # optional: the file's number of annotators
    per_item = 2                # optional; metric and level as above

With ``[[strata]]`` such a pilot is read by stratum: ``pilot_stratum_col = "stratum"`` names
its column giving each item's stratum, and each stratum's label patterns are its own pilot's
(the strata's prevalences and error rates are then not used).

Every value is checked here with the rules of :mod:`planner.validation`, and an error is one
line naming the file and the key; the model built from the section (rows of a confusion
matrix summing to 1, prevalences summing to 1) is checked when it is built, with errors that
name the file and key too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from planner.data.scenario import (
    PILOT_KEYS,
    SCHEMA,
    Scenario,
    check_pilot_keys,
    pilot_reader,
    scenario_from_dict,
)
from planner.errors import InvalidInput
from planner.validation import RULES, Rule, check, check_choice

METRICS = ("fleiss", "alpha", "psa", "conger", "kappa")
LEVELS = ("nominal", "ordinal", "interval")
#: section key -> the library parameter it sets (errors from the model name the key)
PARAMETERS = {
    "count": "n_annotators",
    "per_item": "per_item",
    "categories": "n_categories",
    "prevalence": "prevalence",
    "error_rate": "error_rate",
    "bias": "bias",
    "confusion": "confusion",
    "ambiguity": "ambiguity",
    "kappa": "kappa",
    "metric": "metric",
    "level": "level",
}
#: the keys of the model that a pilot file gives instead
#: the ``[annotators]`` key of a pilot read by stratum (a scenario with ``[[strata]]``)
STRATUM_KEY = "pilot_stratum_col"

MODEL_KEYS = ("categories", "prevalence", "error_rate", "bias", "confusion", "ambiguity", "kappa")
_SCALAR: dict[str, Rule] = {
    "count": RULES["n_annotators"],
    "per_item": RULES["per_item"],
    "categories": RULES["raters_categories"],
    "ambiguity": RULES["ambiguity"],
    "kappa": RULES["intraclass_kappa"],
}
_PER_ANNOTATOR = {"error_rate": RULES["error_rate"], "bias": RULES["bias"]}
_PROBABILITY = Rule("number", lambda x: 0 <= x <= 1, "a number in [0, 1]")
# with kappa (no ground truth, no rater bias) these describe nothing
_NOT_WITH_KAPPA = ("error_rate", "bias", "confusion", "ambiguity")


@dataclass(frozen=True)
class AnnotatorsSection:
    """The checked ``[annotators]`` section (``None``: not given, the defaults apply).

    With ``pilot_file`` (resolved against the scenario file's folder) the model is the
    pilot's fit: ``count`` is then
    optional and the model's keys are ``None``; ``pilot_reader`` holds the reader's settings
    as :func:`planner.data.reading.read_labels` names them.
    """

    count: int | None = None
    prevalence: float | tuple[float, ...] | None = None
    per_item: int | None = None
    categories: int | None = None
    error_rate: tuple[float, ...] | None = None
    bias: tuple[float, ...] | None = None
    confusion: tuple[Any, ...] | None = None
    ambiguity: float | None = None
    kappa: float | None = None
    metric: str | None = None
    level: str | None = None
    pilot_file: str | None = None
    pilot_positive: str | None = None
    pilot_reader: dict[str, Any] = field(default_factory=dict)
    #: with ``[[strata]]``: the pilot's column naming each item's stratum
    pilot_stratum_col: str | None = None


def _numbers(name: str, value: Any, rule: Rule, count: int, what: str) -> tuple[float, ...]:
    items = value if isinstance(value, list) else [value]
    if len(items) not in (1, count):
        raise InvalidInput(f"{name} takes one value or one per {what} ({count}), got {len(items)}")
    return tuple(check(name, item, rule) for item in items)


def _matrix(name: str, value: Any) -> tuple[tuple[float, ...], ...]:
    if not (isinstance(value, list) and value and all(isinstance(r, list) for r in value)):
        raise InvalidInput(f"{name} must be a K x K matrix (a list of K rows of K numbers)")
    if any(len(row) != len(value) for row in value):
        raise InvalidInput(f"{name} must be square: K rows of K numbers")
    return tuple(tuple(check(name, x, _PROBABILITY) for x in row) for row in value)


def _confusion(name: str, value: Any, count: int) -> tuple[Any, ...]:
    """One ``K x K`` matrix for every annotator, or a list of ``count`` of them."""
    if isinstance(value, list) and value and isinstance(value[0], list) and value[0]:
        if isinstance(value[0][0], list):  # one matrix per annotator
            if len(value) != count:
                raise InvalidInput(
                    f"{name} takes one matrix or one per annotator ({count}), got {len(value)}"
                )
            return tuple(_matrix(f"{name}[{j + 1}]", m) for j, m in enumerate(value))
    return (_matrix(name, value),)


def _prevalence(name: str, value: Any) -> float | tuple[float, ...]:
    if isinstance(value, list):
        if not 2 <= len(value) <= 5:
            raise InvalidInput(f"{name} takes one number or 2 to 5 (one per category)")
        return tuple(check(name, v, RULES["prevalence"]) for v in value)
    return float(check(name, value, RULES["prevalence"]))


def annotators_section(table: Any, source: str) -> AnnotatorsSection:
    """Check an ``[annotators]`` table of the scenario file ``source``.

    Raises
    ------
    InvalidInput
        One line, "``source``: annotators.KEY ...", for an unknown key, a missing count or
        prevalence, a value of the wrong type or outside its range, or a list of the wrong
        length.
    """
    if not isinstance(table, dict):
        raise InvalidInput(f"{source}: [annotators] must be a table")
    unknown = sorted(set(table) - set(PARAMETERS) - set(PILOT_KEYS) - {STRATUM_KEY})
    if unknown:
        allowed = ", ".join(sorted((*PARAMETERS, *PILOT_KEYS, STRATUM_KEY)))
        raise InvalidInput(f"{source}: unknown key annotators.{unknown[0]}; allowed: {allowed}")
    pilot = check_pilot_keys(source, "annotators", table)
    if "pilot_file" in pilot:
        return _pilot_section(source, table, pilot)
    if "pilot_positive" in pilot:
        raise InvalidInput(
            f"{source}: annotators.pilot_positive names the positive label of "
            "annotators.pilot_file, which is not given"
        )
    for key in ("count", "prevalence"):
        if key not in table:
            raise InvalidInput(
                f"{source}: [annotators] needs {key} (or pilot_file, the annotators' labels)"
            )
    name = {key: f"{source}: annotators.{key}" for key in PARAMETERS}
    out: dict[str, Any] = {
        key: check(name[key], table[key], rule) for key, rule in _SCALAR.items() if key in table
    }
    count = int(out["count"])
    out["prevalence"] = _prevalence(name["prevalence"], table["prevalence"])
    for key, rule in _PER_ANNOTATOR.items():
        if key in table:
            out[key] = _numbers(name[key], table[key], rule, count, "annotator")
    if "confusion" in table:
        out["confusion"] = _confusion(name["confusion"], table["confusion"], count)
    for key, choices in (("metric", METRICS), ("level", LEVELS)):
        if key in table:
            out[key] = check_choice(name[key], table[key], choices)
    if "kappa" in out:
        clash = [key for key in _NOT_WITH_KAPPA if key in table]
        if clash:
            raise InvalidInput(
                f"{source}: annotators.kappa (kappaSize's common-prevalence model: no ground "
                f"truth, no rater bias) does not combine with annotators.{clash[0]}"
            )
    if "confusion" in out and "error_rate" in out:
        raise InvalidInput(
            f"{source}: give annotators.confusion or annotators.error_rate, not both"
        )
    return AnnotatorsSection(**out)


def _pilot_section(source: str, table: dict[str, Any], pilot: dict[str, Any]) -> AnnotatorsSection:
    """The section of a pilot file: its design and metric keys checked, no model keys."""
    clash = [key for key in MODEL_KEYS if key in table]
    if clash:
        raise InvalidInput(
            f"{source}: annotators.pilot_file gives the annotators' model (their fit); it does "
            f"not combine with annotators.{clash[0]}"
        )
    out: dict[str, Any] = {
        key: check(f"{source}: annotators.{key}", table[key], _SCALAR[key])
        for key in ("count", "per_item")
        if key in table
    }
    for key, choices in (("metric", METRICS), ("level", LEVELS)):
        if key in table:
            out[key] = check_choice(f"{source}: annotators.{key}", table[key], choices)
    return AnnotatorsSection(
        **out,
        pilot_file=pilot["pilot_file"],
        pilot_positive=pilot.get("pilot_positive"),
        pilot_reader=pilot_reader(pilot),
        pilot_stratum_col=table.get(STRATUM_KEY),
    )


@dataclass(frozen=True)
class RatersScenario(Scenario):
    """A scenario of several annotators: the other sections as :class:`Scenario` has them."""

    annotators: AnnotatorsSection | None = None


#: what several annotators over strata cannot take: each stratum has its prevalence, the
#: annotators label two categories by error rates (every one of them, or ``per_item``)
_NOT_WITH_STRATA = ("prevalence", "pilot_file", "confusion", "categories", "kappa")


def _check_stratified(table: Any, source: str) -> None:
    """The ``[annotators]`` of a scenario with ``[[strata]]``: a table without the keys each
    stratum states itself or the designs do not take."""
    if not isinstance(table, dict):
        raise InvalidInput(f"{source}: [annotators] must be a table")
    if STRATUM_KEY in table and "pilot_file" not in table:
        raise InvalidInput(
            f"{source}: annotators.{STRATUM_KEY} names the stratum column of "
            "annotators.pilot_file, which is not given"
        )
    if STRATUM_KEY in table:
        rule = SCHEMA["model"][STRATUM_KEY]  # the pair's model.pilot_stratum_col's
        assert isinstance(rule, Rule)
        check(f"{source}: annotators.{STRATUM_KEY}", table[STRATUM_KEY], rule)
    if "pilot_file" in table and STRATUM_KEY not in table:
        raise InvalidInput(
            f"{source}: annotators.pilot_file with [[strata]] needs annotators.{STRATUM_KEY}, "
            "the pilot's column naming each item's stratum (each stratum's label patterns are "
            "then its own pilot's)"
        )
    by_stratum = "pilot_file" in table  # a pilot read by stratum: its labels are the model
    clash = [key for key in _NOT_WITH_STRATA if key in table and not (by_stratum
             and key == "pilot_file")]  # fmt: skip
    if clash:
        why = (
            "each stratum states its own strata[].prevalence"
            if clash[0] == "prevalence"
            else "the designs over strata take annotators of two categories, by error rates"
        )
        raise InvalidInput(
            f"{source}: annotators.{clash[0]} does not combine with [[strata]]: {why}"
        )


def raters_scenario_from_dict(data: dict[str, Any], source: str = "scenario") -> RatersScenario:
    """Validate a parsed TOML document with an ``[annotators]`` section."""
    if "model" in data:
        raise InvalidInput(
            f"{source}: [model] describes one pair and does not combine with [annotators]"
        )
    data = _metric_from_target(data, source)
    if "strata" in data:
        _check_stratified(data.get("annotators"), source)
        table = data["annotators"]
        if "pilot_file" not in table:
            table = {"prevalence": 0.5, **table}  # each stratum has its own
        section = replace(annotators_section(table, source), prevalence=None)
    else:
        section = annotators_section(data.get("annotators"), source)
        if section.pilot_stratum_col is not None or STRATUM_KEY in (data.get("annotators") or {}):
            raise InvalidInput(
                f"{source}: annotators.{STRATUM_KEY} names the stratum column of "
                "annotators.pilot_file, for a scenario with [[strata]]"
            )
    budget = data.get("budget")
    if isinstance(budget, dict) and "annotators_per_item" in budget:
        raise InvalidInput(
            f"{source}: budget.annotators_per_item does not combine with [annotators] "
            "(annotators.count and annotators.per_item say who labels)"
        )
    rest, own = _strata_errors(data, source, section.count or 3)
    base = scenario_from_dict({k: v for k, v in rest.items() if k != "annotators"}, source)
    values = {f.name: getattr(base, f.name) for f in fields(base)}
    values["strata"] = tuple(replace(s, **o) for s, o in zip(base.strata, own, strict=True))
    return RatersScenario(**values, annotators=section)


def _metric_from_target(data: dict[str, Any], source: str) -> dict[str, Any]:
    """``target.metric`` as the annotators' one metric (``annotators.metric``), where the
    pair's scenarios state it: one of :data:`METRICS`, and the same as ``annotators.metric``
    when both are given. The pair's ``"both"`` plans two metrics, which several annotators
    do not."""
    target, section = data.get("target"), data.get("annotators")
    if not (isinstance(target, dict) and "metric" in target and isinstance(section, dict)):
        return data
    metric = check_choice(f"{source}: target.metric", target["metric"], METRICS)
    if section.get("metric", metric) != metric:
        raise InvalidInput(
            f"{source}: target.metric is {metric!r} but annotators.metric is "
            f"{section['metric']!r}; give the metric once"
        )
    rest = {k: v for k, v in target.items() if k != "metric"}
    return {**data, "target": rest, "annotators": {**section, "metric": metric}}


def _strata_errors(
    data: dict[str, Any], source: str, count: int
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Each stratum's ``error_rate`` and ``bias`` as its annotators take them (one value, or
    one per annotator), and the document without them for the pair's checks of the rest."""
    raw = data.get("strata")
    if not isinstance(raw, list):
        return data, []
    kept, own = [], []
    for i, stratum in enumerate(raw, start=1):
        values: dict[str, Any] = {}
        if isinstance(stratum, dict):
            for key, rule in _PER_ANNOTATOR.items():
                if key in stratum:
                    name = f"{source}: strata[{i}].{key}"
                    values[key] = _numbers(name, stratum[key], rule, count, "annotator")
            stratum = {k: v for k, v in stratum.items() if k not in values}
        kept.append(stratum)
        own.append(values)
    return {**data, "strata": kept}, own
