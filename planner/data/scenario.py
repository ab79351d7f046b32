"""Scenario files: a study described once, in TOML, validated on load.

A scenario names the traffic (one population, or strata with their shares and
prevalences), the annotators, the precision target, the decision thresholds, the budget and
the team. Every key is checked: an unknown key, a wrong type or an out-of-range value is
one :class:`~planner.errors.InvalidInput` naming the file, the key and what is allowed.

Layout (every table optional except what the model needs)::

    name = "enriched"       # the report folder: ASCII letters, digits, ".", "_", "-"
    description = "..."

    [model]                 # a single population (with [[strata]]: their defaults)
    prevalence = 0.08       # or union_rate + psa, or pilot_counts = [a, b, c, d],
                            # or pilot_file = "pilot.csv" (relative to this file);
                            # with pilot_positive = "yes", pilot_pair = "A,B" if needed,
                            # and how to read it (as plan's reader options):
                            # pilot_layout = "long", pilot_item_col = "comment_id",
                            # pilot_annotator_col, pilot_label_col, pilot_format,
                            # pilot_annotator_cols = ["h1", "h2"], pilot_missing = ["NA"];
                            # with [[strata]], pilot_stratum_col = "stratum";
                            # with prevalence: psa or kappa instead of error_rate
    error_rate = 0.04       # one value or [A, B]
    bias = 0.0              # one value or [A, B]
    ambiguity = 0.0

    [[strata]]              # traffic strata
    name = "flagged by an automated check"
    share = 0.05            # population share (or size = number of items)
    prevalence = 0.45
    error_rate = 0.06       # optional overrides of [model]
    seconds_per_item = 120  # optional override of [budget]
    enriched_share = 0.4    # share of the enriched sample (design b), optional

    [target]                # metric, width, confidence, assurance, psa_method, kappa_method
    [thresholds]            # not_demonstrated_below, demonstrated_at
    [budget]                # annotators_per_item, seconds_per_item, adjudication_seconds,
                            # hourly_rate
    [design]                # floor_items, prevalence_width
    [simulation]            # replicates, max_items, seed
    [team]                  # annotators, hours_per_day, days_per_week, time_spread, ...
                            # or named people: [[team.annotator]] (planner/data/scenario_team.py)

    [alt_test]              # an LLM judge to validate against the humans (the Alt-Test)
    humans = 3              # human annotators M (or the length of human_error)
    categories = 2          # categories K (or the length of prevalences)
    human_error = 0.2       # one value or one per human, in [0, 1]
    llm_error = 0.2         # the LLM's error rate, in [0, 1]
    prevalences = [0.3, 0.7]  # optional, sum to 1 (default: equal)
    error_draw = "uniform"  # an error is a uniform draw, or "prior": from the prevalences
    epsilon = 0.2           # the margin; q = 0.05 (FDR), power = 0.8 (target P(pass))
    items = 200             # optional: the items the study will have, for P(pass) there
    min_items = 30          # no human is tested on fewer items; replicates = 2000
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.errors import InvalidInput
from planner.validation import MAX_STRATA, RULES, UNIT, Rule, check, shown

#: a scenario's ``[team]`` keys and their documented defaults, the one place they are set:
#: the simulated operation (:class:`planner.operations.workload.Operation`) and schedule's
#: team (:class:`planner.application.schedule_team.TeamSettings`) read them from here
TEAM_DEFAULTS: dict[str, int | float] = {
    "annotators": 5,
    "hours_per_day": 8.0,
    "days_per_week": 5,
    "time_spread": 0.5,
    "attention_check_share": 0.0,
    "attention_fail_rate": 0.0,
    "requalification_hours": 0.0,
    "adjudicators": 1,
    "runs": 200,
}
TEAM_KEYS = tuple(TEAM_DEFAULTS)


@dataclass(frozen=True)
class Stratum:
    """One slice of traffic with its own prevalence and, optionally, annotator behaviour."""

    name: str
    share: float
    prevalence: float
    error_rate: tuple[float, ...] | None = None
    bias: tuple[float, ...] | None = None
    ambiguity: float | None = None
    seconds_per_item: float | None = None
    enriched_share: float | None = None


@dataclass(frozen=True)
class Scenario:
    """A validated scenario file."""

    name: str
    description: str
    path: str
    model: dict[str, Any] = field(default_factory=dict)
    strata: tuple[Stratum, ...] = ()
    target: dict[str, Any] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)
    budget: dict[str, Any] = field(default_factory=dict)
    design: dict[str, Any] = field(default_factory=dict)
    simulation: dict[str, Any] = field(default_factory=dict)
    team: dict[str, Any] = field(default_factory=dict)
    alt_test: dict[str, Any] = field(default_factory=dict)


# section -> key -> the rule its value obeys (planner.validation), a pair of them, or counts
_PAIR = "pair"
_COUNTS = Rule("counts", None, "a list of four non-negative whole numbers")
_TEXT = Rule("text", None, "text")
_METHOD = Rule("text", None, "an interval method name")
_METRIC = Rule("text", lambda x: x in ("psa", "kappa", "both"), "psa, kappa or both")
# the Alt-Test ([alt_test], library helper): a list of any length, or one number or a list
_LIST = "list"
_ONE_OR_LIST = "one or list"
_ERROR_DRAW = Rule("text", lambda x: x in ("uniform", "prior"), "uniform or prior")
# a pilot file's reader settings: a list of column names or labels (or "a,b,c")
_TEXTS = Rule("texts", None, 'a list of text (["a", "b"]) or comma-separated text ("a,b")')
_NAME = Rule("text", bool, "a column name (text)")
#: the ``[model]`` keys that say how to read ``pilot_file``, and the reader's parameters
PILOT_READER_KEYS = {
    "pilot_layout": "layout",
    "pilot_item_col": "item_col",
    "pilot_annotator_col": "annotator_col",
    "pilot_label_col": "label_col",
    "pilot_annotator_cols": "annotator_cols",
    "pilot_format": "file_format",
    "pilot_missing": "missing",
}
SCHEMA: dict[str, dict[str, Rule | tuple[str, Rule]]] = {
    "model": {
        "prevalence": RULES["prevalence"],
        "error_rate": (_PAIR, RULES["error_rate"]),
        "bias": (_PAIR, RULES["bias"]),
        "ambiguity": RULES["ambiguity"],
        "union_rate": RULES["union_rate"],
        "psa": RULES["psa"],
        "pilot_counts": _COUNTS,
        # the model as prevalence with kappa, and a pilot label file
        "kappa": RULES["kappa"],
        "pilot_file": _TEXT,
        "pilot_positive": _TEXT,
        "pilot_pair": _TEXT,
        "pilot_layout": Rule("text", lambda x: x in ("auto", "long", "wide"), "auto, long or wide"),
        "pilot_item_col": _NAME,
        "pilot_annotator_col": _NAME,
        "pilot_label_col": _NAME,
        "pilot_annotator_cols": _TEXTS,
        "pilot_format": Rule(
            "text", lambda x: x in ("csv", "tsv", "parquet", "jsonl"), "csv, tsv, parquet or jsonl"
        ),
        "pilot_missing": _TEXTS,
        # with [[strata]]: the pilot's column naming each item's stratum
        "pilot_stratum_col": _NAME,
    },
    "strata": {
        "name": _TEXT,
        "share": Rule("number", lambda x: 0 < x <= 1, "a number in (0, 1]"),
        "size": Rule("number", lambda x: x > 0, "a positive number of items"),
        "prevalence": RULES["prevalence"],
        "error_rate": (_PAIR, RULES["error_rate"]),
        "bias": (_PAIR, RULES["bias"]),
        "ambiguity": RULES["ambiguity"],
        "seconds_per_item": RULES["seconds_per_item"],
        "enriched_share": UNIT,
    },
    "target": {
        "metric": _METRIC,
        "width": RULES["width"],
        "confidence": RULES["confidence"],
        "assurance": RULES["assurance"],
        "psa_method": _METHOD,
        "kappa_method": _METHOD,
    },
    "thresholds": {key: RULES[key] for key in ("not_demonstrated_below", "demonstrated_at")},
    "budget": {
        key: RULES[key]
        for key in (
            "annotators_per_item",
            "seconds_per_item",
            "adjudication_seconds",
            "hourly_rate",
        )
    },
    "design": {key: RULES[key] for key in ("floor_items", "prevalence_width")},
    "simulation": {key: RULES[key] for key in ("replicates", "max_items", "seed")},
    "team": {key: RULES[key] for key in TEAM_KEYS},
    "alt_test": {
        "humans": RULES["n_humans"],
        "categories": RULES["n_categories"],
        "human_error": (_ONE_OR_LIST, RULES["annotator_error"]),
        "llm_error": RULES["annotator_error"],
        "prevalences": (_LIST, RULES["prevalence"]),
        "error_draw": _ERROR_DRAW,
        "epsilon": RULES["alt_epsilon"],
        "q": RULES["fdr_q"],
        "power": RULES["power"],
        "items": RULES["alt_min_items"],
        "min_items": RULES["alt_min_items"],
        "replicates": RULES["replicates"],
    },
}
_TOP = {"name", "description", *SCHEMA}


def _check_value(source: str, key: str, value: Any, spec: Rule | tuple[str, Rule]) -> Any:
    name = f"{source}: {key}"
    if isinstance(spec, tuple) and spec[0] in (_LIST, _ONE_OR_LIST):
        return _check_list(name, value, spec)
    if isinstance(spec, tuple):  # one number for both annotators, or [A, B]
        rule = spec[1]
        pair = Rule(
            rule.kind,
            rule.test,
            "a number or a list of two numbers" + rule.allowed.removeprefix("a number"),
        )
        items = value if isinstance(value, list) else [value]
        if not 1 <= len(items) <= 2:
            check(name, None, pair)
        return tuple(check(name, item, pair) for item in items)
    if spec is _TEXTS:
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list | tuple) or not items:
            check(name, None, Rule("text", None, spec.allowed))
        return tuple(check(name, item, Rule("text", bool, spec.allowed)) for item in items)
    if spec is _COUNTS:
        if not (isinstance(value, list) and len(value) == 4) or any(
            isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in value
        ):
            check(name, None, spec)
        return [int(v) for v in value]
    return check(name, value, spec)


def _check_list(name: str, value: Any, spec: tuple[str, Rule]) -> Any:
    """A list of numbers each obeying the rule (``_ONE_OR_LIST``: or one such number)."""
    kind, rule = spec
    if kind == _ONE_OR_LIST and not isinstance(value, list):
        return check(name, value, rule)
    listed = Rule(rule.kind, rule.test, "a list of numbers" + rule.allowed.removeprefix("a number"))
    if kind == _ONE_OR_LIST:
        listed = Rule(rule.kind, rule.test, rule.allowed + " or a list of them")
    if not isinstance(value, list) or not value:
        check(name, None, listed)
    return tuple(check(name, item, listed) for item in value)


def _check_length(
    source: str, alt: dict[str, Any], key: str, count_key: str, rule: Rule, what: str
) -> None:
    """A list in ``[alt_test]`` has a length ``rule`` allows, and ``count_key`` agrees."""
    values = alt.get(key)
    if not isinstance(values, tuple):
        return
    if not rule.test or not rule.test(len(values)):
        raise InvalidInput(
            f"{source}: alt_test.{key} must list {what} ({rule.allowed}), got {len(values)}"
        )
    if count_key in alt and alt[count_key] != len(values):
        raise InvalidInput(
            f"{source}: alt_test.{count_key} is {alt[count_key]} but alt_test.{key} lists "
            f"{len(values)}"
        )


def _check_alt_test(source: str, alt: dict[str, Any], present: bool) -> dict[str, Any]:
    """The ``[alt_test]`` keys together: lengths that agree, prevalences that sum to 1; a
    table that is ``present`` but empty is refused rather than taken for no table."""
    if present and not alt:
        raise InvalidInput(
            f"{source}: [alt_test] is empty; give its model (human_error, llm_error, ...: "
            "every key has a default, so one is enough) or remove the table"
        )
    _check_length(source, alt, "human_error", "humans", RULES["n_humans"], "one error rate a human")
    _check_length(source, alt, "prevalences", "categories", RULES["n_categories"], "categories")
    prevalences = alt.get("prevalences")
    if prevalences is not None and not math.isclose(sum(prevalences), 1.0, abs_tol=1e-9):
        raise InvalidInput(
            f"{source}: alt_test.prevalences must sum to 1, got {sum(prevalences):g}"
        )
    if "items" in alt and alt["items"] < alt.get("min_items", 30):
        raise InvalidInput(
            f"{source}: alt_test.items must be at least alt_test.min_items "
            f"({alt.get('min_items', 30)}), got {alt['items']}"
        )
    return alt


def _check_table(source: str, section: str, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise InvalidInput(f"{source}: [{section}] must be a table")
    schema = SCHEMA[section]
    out = {}
    for key, value in table.items():
        if key not in schema:
            raise InvalidInput(
                f"{source}: unknown key {section}.{key}; allowed: {', '.join(sorted(schema))}"
            )
        out[key] = _check_value(source, f"{section}.{key}", value, schema[key])
    return out


def _check_team(source: str, table: Any) -> dict[str, Any]:
    """``[team]``: the flat keys of a uniform team, and the named people with their dates
    (:mod:`planner.data.scenario_team`)."""
    from planner.data.scenario_team import NAMED_TEAM_KEYS, named_team_values

    if not isinstance(table, dict):
        raise InvalidInput(f"{source}: [team] must be a table")
    flat = {k: v for k, v in table.items() if k not in NAMED_TEAM_KEYS}
    try:
        checked = _check_table(source, "team", flat)
    except InvalidInput as exc:
        if "unknown key team." not in str(exc):
            raise
        allowed = ", ".join(sorted((*SCHEMA["team"], *NAMED_TEAM_KEYS)))
        raise InvalidInput(f"{str(exc).split('; allowed')[0]}; allowed: {allowed}") from None
    return {**checked, **named_team_values(source, table)}


def _check_strata(source: str, raw_strata: Any) -> list[dict[str, Any]]:
    """The ``[[strata]]`` tables, each checked, and their shares (or sizes) as a whole."""
    if not isinstance(raw_strata, list):
        raise InvalidInput(f"{source}: strata must be an array of tables ([[strata]])")
    if len(raw_strata) > MAX_STRATA:
        raise InvalidInput(
            f"{source}: strata must be at most {MAX_STRATA:,} tables, got {len(raw_strata):,}"
        )
    strata = []
    for i, raw in enumerate(raw_strata, start=1):
        entry = _check_table(source, "strata", raw)
        label = f"strata[{i}]"
        for key in ("name", "prevalence"):
            if key not in entry:
                raise InvalidInput(f"{source}: {label} needs {key}")
        if ("share" in entry) == ("size" in entry):
            raise InvalidInput(f"{source}: {label} needs exactly one of share or size")
        strata.append(entry)
    if not strata:
        return strata
    if len({s["name"] for s in strata}) != len(strata):
        raise InvalidInput(f"{source}: stratum names must be unique")
    kinds = {"share" if "share" in s else "size" for s in strata}
    if len(kinds) > 1:
        raise InvalidInput(f"{source}: give every stratum a share, or every stratum a size")
    total = sum(s.get("share", s.get("size", 0)) for s in strata)
    if "share" in kinds and not math.isclose(total, 1.0, abs_tol=1e-6):
        raise InvalidInput(f"{source}: strata shares must sum to 1, got {total:g}")
    enriched = [s.get("enriched_share") for s in strata]
    if any(e is not None for e in enriched):
        if any(e is None for e in enriched) or not math.isclose(
            sum(e for e in enriched if e is not None), 1.0, abs_tol=1e-6
        ):
            raise InvalidInput(
                f"{source}: enriched_share must be given for every stratum and sum to 1"
            )
    return strata


#: the keys that name a pilot label file and say how to read it (``[model]``, ``[annotators]``)
PILOT_KEYS = ("pilot_file", "pilot_positive", *PILOT_READER_KEYS)


def check_pilot_keys(source: str, section: str, table: dict[str, Any]) -> dict[str, Any]:
    """The pilot keys of the table ``[section]`` of the scenario file ``source``, checked.

    Each value obeys its ``[model]`` rule; ``pilot_file`` is taken relative to the scenario
    file's folder (unless absolute) and must be a readable file; a key that says how to read
    the pilot needs ``pilot_file``. Errors name ``source: section.key``.
    """
    out = {
        key: _check_value(source, f"{section}.{key}", table[key], SCHEMA["model"][key])
        for key in PILOT_KEYS
        if key in table
    }
    if "pilot_file" in out:
        from planner.data.sniff import check_path

        if not str(out["pilot_file"]).strip():
            raise InvalidInput(f"{source}: {section}.pilot_file must name a label file, got ''")
        path = Path(out["pilot_file"])
        if not path.is_absolute():
            path = Path(source).parent / path
        try:
            check_path(path, "pilot file")
        except InvalidInput as exc:
            raise InvalidInput(f"{source}: {section}.pilot_file: {exc}") from None
        out["pilot_file"] = str(path)
    reading = [key for key in PILOT_READER_KEYS if key in out]
    if reading and "pilot_file" not in out:
        raise InvalidInput(
            f"{source}: {section}.{reading[0]} says how to read {section}.pilot_file, "
            "which is not given"
        )
    return out


def _check_model(source: str, model: dict[str, Any], stratified: bool) -> dict[str, Any]:
    """One way of describing the single population; ``pilot_file`` resolved and checked."""
    model = {**model, **check_pilot_keys(source, "model", model)}
    if "pilot_stratum_col" in model and not (stratified and "pilot_file" in model):
        raise InvalidInput(
            f"{source}: model.pilot_stratum_col names the stratum column of model.pilot_file, "
            "for a scenario with [[strata]]"
        )
    if stratified:
        if "pilot_file" in model and "pilot_stratum_col" not in model:
            raise InvalidInput(
                f"{source}: model.pilot_file with [[strata]] needs model.pilot_stratum_col, the "
                "pilot's column naming each item's stratum (each stratum's model is then its "
                "own pilot counts)"
            )
        return model
    ways = [k for k in ("prevalence", "union_rate", "pilot_counts", "pilot_file") if k in model]
    if len(ways) > 1:
        raise InvalidInput(
            f"{source}: [model] takes one of prevalence, union_rate + psa, pilot_counts, pilot_file"
        )
    if "union_rate" in model and "psa" not in model:
        raise InvalidInput(f"{source}: model.union_rate and model.psa go together")
    if "psa" in model and not ({"union_rate", "prevalence"} & set(model)):
        raise InvalidInput(f"{source}: model.psa goes with model.union_rate or model.prevalence")
    if "kappa" in model and "prevalence" not in model:
        raise InvalidInput(f"{source}: model.kappa goes with model.prevalence")
    return model


def pilot_reader(model: dict[str, Any]) -> dict[str, Any]:
    """The reader settings of a scenario's pilot file (``read_labels``' parameter names).

    >>> pilot_reader({"pilot_file": "p.csv", "pilot_item_col": "doc", "pilot_missing": ("NA",)})
    {'item_col': 'doc', 'missing': ('NA',)}
    """
    reader = {PILOT_READER_KEYS[k]: v for k, v in model.items() if k in PILOT_READER_KEYS}
    if "annotator_cols" in reader:
        reader["annotator_cols"] = list(reader["annotator_cols"])
    return reader


def pilot_error_by_keys(
    exc: Exception,
    section: str,
    others: dict[str, str] | None = None,
    source: str = "",
    reader: bool = True,
) -> Exception:
    """A scenario's pilot file's refusal with its settings named as the scenario's keys.

    The reader's settings become ``section.pilot_*`` (:data:`PILOT_READER_KEYS`), and so do
    ``others`` (a parameter -> its key, ``{"positive": "pilot_positive"}``): a refused
    layout or a column given two roles is rewritten whole, any other refusal whose own
    parameter is one of them has that leading word replaced (by ``source: key`` when the
    scenario's path ``source`` is given). ``reader`` false: the file was read by other
    settings (a command line's), so only ``others`` are renamed. Other errors are returned.

    >>> str(pilot_error_by_keys(InvalidInput("positive must be 1", parameter="positive"),
    ...     "annotators", {"positive": "pilot_positive"}))
    'annotators.pilot_positive must be 1'
    """
    import json

    from planner.data.layout import LayoutUnclear, RoleConflict

    keys = {parameter: f"{section}.{key}" for key, parameter in PILOT_READER_KEYS.items()}
    if not reader:  # the file was read by other settings: only ``others`` are the scenario's
        keys = {}
    keys |= {parameter: f"{section}.{key}" for parameter, key in (others or {}).items()}

    def setting(name: str, value: Any) -> str:
        shown = json.dumps(list(value) if isinstance(value, tuple | list) else str(value))
        return f"{keys.get(name, name)} = {shown}"

    if isinstance(exc, LayoutUnclear):
        return InvalidInput(exc.message(setting, "; "))
    if isinstance(exc, RoleConflict):
        return InvalidInput(exc.message(lambda name: keys.get(name, name)))
    own = getattr(exc, "parameter", None)
    if isinstance(exc, InvalidInput) and own in keys and str(exc).startswith(own):
        named = f"{source}: {keys[own]}" if source else keys[own]
        return InvalidInput(named + str(exc).removeprefix(own))
    return exc


def scenario_from_dict(data: dict[str, Any], source: str = "scenario") -> Scenario:
    """Validate a parsed TOML document into a :class:`Scenario`."""
    if "annotators" in data:  # several annotators: planner/data/scenario_raters.py
        from planner.data.scenario_raters import raters_scenario_from_dict

        return raters_scenario_from_dict(data, source)
    unknown = set(data) - _TOP
    if unknown:
        raise InvalidInput(
            f"{source}: unknown key {sorted(unknown)[0]}; allowed: {', '.join(sorted(_TOP))}"
        )
    sections = {
        name: _check_table(source, name, data.get(name, {}))
        for name in SCHEMA
        if name not in ("strata", "team")
    }
    sections["team"] = _check_team(source, data.get("team", {}))
    strata = _check_strata(source, data.get("strata", []))
    model = _check_model(source, sections["model"], bool(strata))
    thresholds = sections["thresholds"]
    if thresholds.get("not_demonstrated_below", 0) > thresholds.get("demonstrated_at", 1):
        raise InvalidInput(f"{source}: thresholds.not_demonstrated_below exceeds demonstrated_at")
    name = _scenario_name(data, source)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise InvalidInput(f"{source}: description must be text, got {shown(description)}")
    total = sum(s.get("share", s.get("size", 0)) for s in strata) if strata else 1.0
    return Scenario(
        name=name,
        description=description,
        path=source,
        model=model,
        strata=tuple(
            Stratum(
                name=s["name"],
                share=s.get("share", s.get("size", 0)) / total,
                prevalence=s["prevalence"],
                error_rate=s.get("error_rate"),
                bias=s.get("bias"),
                ambiguity=s.get("ambiguity"),
                seconds_per_item=s.get("seconds_per_item"),
                enriched_share=s.get("enriched_share"),
            )
            for s in strata
        ),
        target=sections["target"],
        thresholds=thresholds,
        budget=sections["budget"],
        design=sections["design"],
        simulation=sections["simulation"],
        team=sections["team"],
        alt_test=_check_alt_test(source, sections["alt_test"], "alt_test" in data),
    )


def _scenario_name(data: dict[str, Any], source: str) -> str:
    """The scenario's ``name`` (default: the file's stem): the report's folder, so one plain
    path component (``RULES["scenario_name"]``), never a path."""
    if "name" in data:
        return str(check(f"{source}: name", data["name"], RULES["scenario_name"]))
    stem = Path(source).stem
    return str(check(f"{source}: name (not set; from the file name)", stem, RULES["scenario_name"]))


def shipped_scenarios() -> dict[str, Path]:
    """The scenarios that come with planner, by name (their ``scenarios/NAME.toml``).

    Installed, they are the package data ``planner/scenarios``; in a source checkout they
    are the repository's ``scenarios/`` folder beside the package.

    >>> {'clinical-chart-review', 'unsupported-claims'} <= set(shipped_scenarios())
    True
    """
    package = Path(__file__).resolve().parent.parent  # planner/
    for folder in (package / "scenarios", package.parent / "scenarios"):
        if folder.is_dir():
            return {p.stem: p for p in sorted(folder.glob("*.toml"))}
    return {}


def scenario_file(path: str | Path) -> Path:
    """The file a scenario argument names: a path, or the name of a shipped scenario.

    A path that exists wins; a bare name (no folder, with or without ``.toml``) that is not a
    file here is looked up among :func:`shipped_scenarios`.
    """
    p = Path(path)
    if p.exists() or len(p.parts) != 1:
        return p
    return shipped_scenarios().get(p.name.removesuffix(".toml"), p)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario TOML file (a path, or the name of a shipped scenario).

    Raises
    ------
    InvalidInput
        When ``path`` does not exist, is a folder or is not a regular file (a device, a
        FIFO), cannot be read, is not UTF-8 TOML, or holds an invalid scenario.
    """
    if not isinstance(path, str | Path) or not str(path):
        raise InvalidInput(f"path must name a scenario file, got {path!r}", parameter="path")
    from planner.data.sniff import check_path

    p = scenario_file(path)
    if not p.exists() and len(p.parts) == 1:
        names = ", ".join(shipped_scenarios()) or "none"
        raise InvalidInput(
            f"{p}: no such scenario file, nor a shipped scenario (shipped: {names}; "
            "`planner scenarios` lists them)"
        )
    check_path(p, "scenario file")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput(f"{p}: cannot read the scenario file: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{p}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise InvalidInput(f"{p}: not valid TOML: nested too deeply") from None
    return scenario_from_dict(data, str(p))
