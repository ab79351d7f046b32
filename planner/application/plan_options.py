"""From a scenario file and command-line options to what ``plan`` runs.

Precedence: an option given on the command line beats the scenario file, which beats the
documented default. Model options on the command line (``--prevalence``,
``--union-rate``/``--psa``, ``--pilot-counts``) replace the scenario's model and strata.

What the user gave is a :class:`PlanOptions` (None: not given); the merge of defaults,
scenario and options is a :class:`ResolvedOptions`. ``schedule``'s precedence and the
operation that carries a plan out are :mod:`planner.application.schedule_options`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.application.fixed_size import (
    FIXED_SIZE,
    fixed_size_given,
    refuse_unpriced_budget,
    with_fixed_size,
)
from planner.application.precedence import SETTING_SOURCES, named_by_file, resolve_values
from planner.application.schedule_team import (
    DESIGNS_PRICED_NOTE,
    plan_pricing,
    pricing_note,
)
from planner.errors import InvalidInput
from planner.sizing.model import (
    MODEL_PARAMETERS,
    PairModel,
    mentions,
    pair_from_annotators,
    pair_from_counts,
    pair_from_union_rate,
    renamed,
)
from planner.sizing.plan import Plan, PlanSettings, make_plan

if TYPE_CHECKING:  # compare and the scenario reader load only when a scenario is given
    from collections.abc import Callable

    from planner.data.scenario import Scenario
    from planner.sizing.compare import Comparison


@dataclass(frozen=True)
class PlanOptions:
    """The options given for ``plan`` (and ``schedule``, ``report``): None = not given.

    The keys are the parameters' names (``error_rate`` for ``--error-rate``); ``pilot`` is
    the pilot file, ``pilot_reader`` the options for reading it, ``contested_rate``
    ``schedule``'s share of contested items with ``--items``.
    """

    prevalence: float | None = None
    error_rate: Sequence[float] | float | None = None
    bias: Sequence[float] | float | None = None
    ambiguity: float | None = None
    union_rate: float | None = None
    psa: float | None = None
    kappa: float | None = None
    pilot_counts: Sequence[int] | None = None
    pilot: str | None = None
    pair: tuple[str, ...] | None = None
    positive: str | None = None
    pilot_reader: Mapping[str, Any] | None = None
    width: float | None = None
    confidence: float | None = None
    assurance: float | None = None
    metric: str | None = None
    psa_method: str | None = None
    kappa_method: str | None = None
    annotators_per_item: int | None = None
    seconds_per_item: float | None = None
    adjudication_seconds: float | None = None
    hourly_rate: float | None = None
    replicates: int | None = None
    max_items: int | None = None
    seed: int | None = None
    items: int | None = None
    hours: float | None = None
    budget: float | None = None
    curve: bool | None = None
    contested_rate: float | None = None
    #: with ``pilot`` and a scenario with ``[[strata]]``: the pilot's column naming each
    #: item's stratum (each stratum's model from its own pilot counts)
    stratum_col: str | None = None

    def given(self) -> dict[str, Any]:
        """Every option by its name (None where not given), for the helpers below."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class ResolvedOptions:
    """The plan's options after the merge: documented defaults, the scenario's values, then
    the command line's (:func:`resolve`)."""

    # the library's defaults, read from PlanSettings (defined once there)
    width: float = PlanSettings.width
    confidence: float = PlanSettings.confidence_level
    assurance: float = PlanSettings.assurance
    metric: str = PlanSettings.metric
    psa_method: str = PlanSettings.psa_method
    kappa_method: str = PlanSettings.kappa_method
    annotators_per_item: int = PlanSettings.annotators_per_item
    seconds_per_item: float = PlanSettings.seconds_per_item
    adjudication_seconds: float = PlanSettings.adjudication_seconds
    hourly_rate: float | None = None
    replicates: int = PlanSettings.replicates
    max_items: int = PlanSettings.max_items
    floor_items: int = 20
    prevalence_width: float = 0.02
    seed: int | None = None


# the options that describe the pair model (the builders' parameters but a_share)
MODEL_OPTIONS = tuple(k for k in MODEL_PARAMETERS if k != "a_share")


def _given_ways(options: dict[str, Any]) -> list[str]:
    """The ways of describing the model that ``options`` use (exactly one is allowed)."""
    on = {k: options.get(k) is not None for k in ("prevalence", "union_rate", "psa", "kappa")}
    given = {  # by their parameters (the CLI names them as flags)
        "prevalence": on["prevalence"],
        "union_rate with psa": on["union_rate"] or (on["psa"] and not on["prevalence"]),
        "pilot_counts": options.get("pilot_counts") is not None and not options.get("pilot_read"),
        "pilot_file": options.get("pilot_file") is not None,
    }
    return [name for name, used in given.items() if used]


def _check_ways(options: dict[str, Any], fail: Any) -> None:
    """Exactly one way of describing the model, and the options each way needs."""
    if options.get("kappa") is not None and options.get("prevalence") is None:
        raise InvalidInput(
            "kappa needs prevalence (the model as prevalence and kappa)",
            parameter="kappa",
            parameters=("prevalence", "kappa"),
        )
    chosen = _given_ways(options)
    if len(chosen) != 1:
        raise InvalidInput(
            "give exactly one of prevalence (annotator model), union_rate with psa, "
            "pilot_counts or pilot_file (or a scenario file); got "
            f"{', '.join(chosen) if chosen else 'none'}",
            parameters=("prevalence", "union_rate", "psa", "pilot_counts", "pilot_file"),
        )
    prevalence = options.get("prevalence") is not None
    annotator = [k for k in ("error_rate", "bias", "ambiguity") if options.get(k) is not None]
    if not prevalence and annotator:
        verb = "needs" if len(annotator) == 1 else "need"
        raise fail(InvalidInput(f"{' and '.join(annotator)} {verb} prevalence (annotator model)"))
    if prevalence and options.get("union_rate") is not None:
        raise InvalidInput(
            "union_rate replaces prevalence: give one of them",
            parameter="union_rate",
            parameters=("prevalence",),
        )
    if prevalence and options.get("psa") is not None and options.get("kappa") is not None:
        raise InvalidInput(
            "give one of psa and kappa with prevalence, not both",
            parameters=("psa", "kappa", "prevalence"),
        )
    if prevalence and options.get("error_rate") is not None:
        target = [k for k in ("psa", "kappa") if options.get(k) is not None]
        if target:
            raise InvalidInput(
                f"{target[0]} with prevalence solves for the error rate: drop error_rate "
                f"or {target[0]}",
                parameter=target[0],
                parameters=(target[0], "prevalence", "error_rate"),
            )
    if chosen == ["union_rate with psa"]:
        if options.get("union_rate") is None or options.get("psa") is None:
            raise InvalidInput(
                "union_rate and psa go together: give both",
                parameter="union_rate",
                parameters=("psa",),
            )


def build_model(options: dict[str, Any], origin: dict[str, str] | None = None) -> PairModel:
    """The pair model from model options (exactly one way of describing it).

    A model with PSA 0 is refused: there is no agreement on positives to size.

    ``origin`` maps a key to the scenario file it came from (absent: the command line), so
    that an error names ``s.toml: model.error_rate`` or ``--error-rate`` as the value's
    source did.
    """
    origin = origin or {}

    def name(key: str) -> str:  # a value from the command line, else the scenario's key
        on_cli = options.get(key) is not None and key not in origin
        return f"model.{key}" if origin and not on_cli else key

    def fail(exc: InvalidInput) -> InvalidInput:
        files = sorted({origin[k] for k in mentions(exc) if k in origin})
        return renamed(exc, name, f"{files[0]}: " if files else "")

    _check_ways(options, fail)
    try:
        model = _model_from(options)
        if model.cells[0] <= 0 and model.source != "pilot-counts":  # a pilot's 0 is an estimate
            raise InvalidInput(
                "the model implies PSA 0 (no item is flagged by both annotators), so there is "
                f"no agreement to size: change {_ZERO_PSA_OPTIONS[model.source]}"
            )
        return model
    except InvalidInput as exc:
        raise fail(exc) from None


# what to change when a model implies PSA 0, as model parameters (renamed by source)
_ZERO_PSA_OPTIONS = {
    "annotators": "error_rate or bias",
    "union-rate": "psa",
    "pilot-counts": "pilot_counts (its first count, items both flag)",
}


def _model_from(options: dict[str, Any]) -> PairModel:
    if options.get("prevalence") is not None:
        bias = options.get("bias")
        bias = 0.0 if bias is None else bias
        ambiguity = 0.0 if options.get("ambiguity") is None else options["ambiguity"]
        if options.get("psa") is not None or options.get("kappa") is not None:
            from planner.sizing.model_targets import pair_from_agreement

            return pair_from_agreement(
                options["prevalence"],
                psa=options.get("psa"),
                kappa=options.get("kappa"),
                bias=bias,
                ambiguity=ambiguity,
            )
        return pair_from_annotators(
            options["prevalence"], options.get("error_rate"), bias, ambiguity
        )
    if options.get("pilot_counts") is not None:
        return pair_from_counts(options["pilot_counts"])
    return pair_from_union_rate(options["union_rate"], options["psa"])


# PlanSettings' parameters whose merged option has another name
_SETTING_KEYS = {"confidence_level": "confidence"}


#: where a pair's scenario gives each merged option: its section and key
PAIR_SOURCES = {
    **{_SETTING_KEYS.get(key, key): where for key, where in SETTING_SOURCES.items()},
    **{key: ("target", key) for key in ("metric", "psa_method", "kappa_method")},
    "annotators_per_item": ("budget", "annotators_per_item"),
    "floor_items": ("design", "floor_items"),
    "prevalence_width": ("design", "prevalence_width"),
    "seed": ("simulation", "seed"),
}
#: the merged options' documented defaults (ResolvedOptions', read from PlanSettings)
PAIR_DEFAULTS = {f.name: f.default for f in fields(ResolvedOptions)}


def resolve(scenario: Scenario | None, cli: Mapping[str, Any]) -> ResolvedOptions:
    """Merge defaults, the scenario's values and the command line's (in that order), by
    :data:`PAIR_SOURCES` (:func:`planner.application.precedence.resolve_values`)."""
    if scenario is not None and getattr(scenario, "annotators", None) is not None:  # raters2
        raise InvalidInput(
            f"{scenario.path}: a scenario with an [annotators] section (several annotators) "
            "is planned by raters_plan_from_options (plan SCENARIO), not by the pair's plan"
        )
    given = {k: v for k, v in cli.items() if k not in MODEL_OPTIONS}
    values, _ = resolve_values(given, scenario, PAIR_SOURCES, PAIR_DEFAULTS)
    return ResolvedOptions(**values)


def settings_from(merged: ResolvedOptions) -> PlanSettings:
    return PlanSettings(
        width=merged.width,
        confidence_level=merged.confidence,
        assurance=merged.assurance,
        metric=merged.metric,
        psa_method=merged.psa_method,
        kappa_method=merged.kappa_method,
        replicates=merged.replicates,
        max_items=merged.max_items,
        annotators_per_item=merged.annotators_per_item,
        seconds_per_item=merged.seconds_per_item,
        adjudication_seconds=merged.adjudication_seconds,
        hourly_rate=merged.hourly_rate,
    )


def _from_file(scenario: Scenario | None, cli: Mapping[str, Any]) -> set[str]:
    """The merged options whose value came from the scenario file."""
    return resolve_values(cli, scenario, PAIR_SOURCES, {})[1]


def scenario_keys(scenario: Scenario | None, cli: dict[str, Any]) -> dict[str, str]:
    """Merged option -> the scenario key it came from (``target.width``), unless overridden."""
    return {p: ".".join(PAIR_SOURCES[p]) for p in _from_file(scenario, cli)}


def _settings(merged: ResolvedOptions, scenario: Scenario | None, cli: dict[str, Any]):  # type: ignore[no-untyped-def]
    """:func:`settings_from`, an error naming ``file: section.key`` for a scenario's value."""
    try:
        return settings_from(merged)
    except InvalidInput as exc:
        from_file = _from_file(scenario, cli)
        raise named_by_file(exc, scenario, from_file, PAIR_SOURCES, _SETTING_KEYS) from None


def _named(key: str, keys: dict[str, str], scenario: Scenario | None) -> str:
    if key in keys and scenario is not None:
        return f"{scenario.path}: {keys[key]}"
    return f"`{key}`"  # a note's parameter, named as the front end names it


def option_notes(
    scenario: Scenario | None, cli: dict[str, Any], merged: ResolvedOptions, cli_model: bool
) -> list[str]:
    """One note per option that the plan does not use, so that none is ignored silently."""
    keys = scenario_keys(scenario, cli)
    given = {k for k in ("psa_method", "kappa_method") if cli.get(k) is not None or k in keys}
    notes = []
    for method, metric in (("kappa_method", "kappa"), ("psa_method", "psa")):
        if method in given and merged.metric not in (metric, "both"):
            notes.append(
                f"{_named(method, keys, scenario)} {getattr(merged, method)} is not used: "
                f"`metric` {merged.metric} does not size {metric}"
            )
    if scenario is not None and cli_model and (scenario.model or scenario.strata):
        replaced = "[model] and [[strata]]" if scenario.strata else "[model]"
        notes.append(f"the model options given here replace the {replaced} of {scenario.path}")
    return notes


#: command-line keys that describe the model (any of them replaces a scenario's model)
CLI_MODEL_KEYS = ("prevalence", "union_rate", "psa", "kappa", "pilot_counts", "pilot")
#: posterior draws of the plan under pilot uncertainty
PILOT_DRAWS = 880  # 16 randomly shifted lattices of 55 (sizing.uncertainty.DRAWS)


def model_on_command_line(cli: Mapping[str, Any]) -> bool:
    """Whether a command-line option describes the model (and so replaces the scenario's)."""
    return any(cli.get(k) is not None for k in CLI_MODEL_KEYS)


def _pilot_by_stratum(scenario: Scenario | None, cli: dict[str, Any]) -> bool:
    """Whether each stratum's model comes from a pilot labelled by stratum (``pilot`` and
    ``stratum_col`` with a scenario of ``[[strata]]``, or its ``model.pilot_file`` and
    ``model.pilot_stratum_col`` when the command line gives no model, ``stratum_col`` over
    the latter); ``stratum_col`` otherwise is refused."""
    if cli.get("stratum_col") is None:
        model = scenario.model if scenario is not None else {}
        return "pilot_stratum_col" in model and not model_on_command_line(cli)
    own_file = scenario is not None and "pilot_file" in scenario.model  # read by stratum_col
    if (cli.get("pilot") is None and not own_file) or scenario is None or not scenario.strata:
        raise InvalidInput(
            "stratum_col reads a pilot by stratum: it needs pilot_file and a scenario with "
            "[[strata]]",
            parameter="stratum_col",
            parameters=("pilot_file",),
        )
    others = [k for k in CLI_MODEL_KEYS if k != "pilot" and cli.get(k) is not None]
    if others:
        raise InvalidInput(
            f"{others[0]} cannot be used with a pilot read by stratum: each stratum's model is "
            "its pilot counts",
            parameter=others[0],
        )
    return True


def _pilot_models(scenario: Scenario, cli: dict[str, Any]) -> Any:
    """Each stratum's model from the pilot file, read by its stratum column (the command
    line's, else the scenario's ``model.pilot_*`` keys, which its refusals then name)."""
    from planner.data.scenario import pilot_error_by_keys, pilot_reader
    from planner.sizing.strata_file import pilot_strata

    model = {} if cli.get("pilot") is not None else scenario.model
    try:
        return pilot_strata(
            str(cli.get("pilot") or model["pilot_file"]), scenario,
            str(cli.get("stratum_col") or model["pilot_stratum_col"]),
            positive=cli.get("positive") or model.get("pilot_positive"),
            reader={**pilot_reader(model), **(cli.get("pilot_reader") or {})},
        )  # fmt: skip
    except InvalidInput as exc:
        if cli.get("pilot") is not None:  # the command line's file, read by its options
            raise _pilot_parameters(exc) from None
        own = {k: f"pilot_{k}" for k in ("positive", "stratum_col") if cli.get(k) is None}
        named = pilot_error_by_keys(exc, "model", own, source=scenario.path)
        raise named if named is not exc else _pilot_parameters(exc) from None


def team_of(scenario: Scenario | None, settings: PlanSettings, cli: dict[str, Any]) -> Any:
    """The scenario's named team's price of a pair's item (None without one), for the
    ``annotators_per_item`` labels of ``settings`` (:func:`planner.application.schedule_team.
    plan_pricing`; an error names the file's key unless the command line gave them)."""
    labels_from_file = cli.get("annotators_per_item") is None
    return plan_pricing(scenario, settings, settings.annotators_per_item, labels_from_file)


def _stratified(  # type: ignore[no-untyped-def]
    scenario: Scenario,
    cli: dict[str, Any],
    merged: ResolvedOptions,
    settings,
    seed_fn,
    notes,
    progress,
) -> Any:
    """The design comparison of a stratified scenario."""
    annotator = [k for k in ("error_rate", "bias", "ambiguity") if cli.get(k) is not None]
    if annotator:
        raise InvalidInput(
            f"{' and '.join(annotator)} cannot change the stratified scenario {scenario.path}: "
            "set these in its [model] or [[strata]], or describe one population with "
            "prevalence",
            parameters=(*annotator, "prevalence"),
        )
    by_stratum = _pilot_by_stratum(scenario, cli)
    given = [k for k in (*FIXED_SIZE, "pilot", "pair") if cli.get(k) is not None]
    given = [k for k in given if not (by_stratum and k == "pilot")]
    if given:
        raise InvalidInput(
            f"{', '.join(given)} cannot be used with the stratified scenario {scenario.path}: "
            "describe one population with prevalence",
            parameters=(*given, "prevalence"),
        )
    seed = seed_fn(merged.seed)
    from planner.sizing.compare import compare_designs

    pricing = team_of(scenario, settings, cli)  # a named team bills each person
    pilot = _pilot_models(scenario, cli) if by_stratum else None
    comparison = compare_designs(
        scenario,
        replace(settings, team=pricing),
        rng=seed,
        floor_items=merged.floor_items,
        prevalence_width=merged.prevalence_width,
        progress=progress,
        models=None if pilot is None else list(pilot.models),
    )
    comparison.notes.extend([*notes, *(() if pilot is None else pilot.notes)])
    if pricing is not None:
        comparison.notes.append(DESIGNS_PRICED_NOTE)
    return comparison


def _model_options(
    scenario: Scenario | None, cli: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str], Any]:
    """The model options (command line, else the scenario's), their origin, and the pilot."""
    options = {k: cli.get(k) for k in MODEL_OPTIONS}
    options["pilot_file"] = cli.get("pilot")
    origin: dict[str, str] = {}
    if scenario is not None and not model_on_command_line(cli):
        from_file = {k: v for k, v in scenario.model.items() if options.get(k) is None}
        options.update(from_file)
        origin = dict.fromkeys(from_file, scenario.path)
    pilot = None
    if options.get("pilot_file") is not None:
        _check_ways(options, lambda exc: renamed(exc, str))  # before the file is read
        from planner.sizing.pilot import read_pilot

        pair = cli.get("pair")
        if pair is None and options.get("pilot_pair") is not None:
            pair = tuple(part.strip() for part in str(options["pilot_pair"]).split(","))
        try:
            from planner.data.scenario import pilot_reader

            pilot = read_pilot(
                str(options["pilot_file"]),
                pair=pair,
                positive=cli.get("positive") or options.get("pilot_positive"),
                **{**pilot_reader(options), **(cli.get("pilot_reader") or {})},  # flags win
            )
        except InvalidInput as exc:
            raise _pilot_parameters(exc) from None
        if pilot.counts is not None:  # else the pilot carries its fitted model
            options["pilot_counts"] = list(pilot.counts)
        options["pilot_read"] = True
    elif cli.get("pilot_reader"):
        given = tuple(cli["pilot_reader"])
        raise InvalidInput(
            f"{', '.join(given)}: options for reading a pilot file, which is not given",
            parameters=given,
        )
    elif cli.get("pair") is not None or cli.get("positive") is not None:
        name = "pair" if cli.get("pair") is not None else "positive"
        raise InvalidInput(
            f"{name} applies only with pilot_file FILE (it reads the pilot file)",
            parameter=name,
            parameters=("pilot_file",),
        )
    return options, origin, pilot


def _solved_note(model: PairModel) -> list[str]:
    """The error rate solved from ``--psa`` or ``--kappa`` with ``--prevalence``, in words."""
    for target in ("psa", "kappa"):
        goal = model.assumptions.get(f"target_{target}")
        if goal is not None:
            error = model.assumptions["error_rate"][0]
            return [
                f"error rate {error:.4g} for both annotators solved from `{target}` {goal:g} at "
                f"`prevalence` {model.assumptions['prevalence']:g}"
            ]
    return []


def _pilot_parameters(exc: InvalidInput) -> InvalidInput:
    """A pilot error about ``pair`` or ``positive``, with that parameter also named inside its
    sentence (``"... with pair ..."``), so that the CLI shows it as a flag there too."""
    if exc.parameter not in ("pair", "positive"):
        return exc
    return InvalidInput(
        str(exc),
        parameter=exc.parameter,
        value=exc.value,
        rule=exc.rule,
        parameters=(*exc.parameters, exc.parameter),
    )


def _curve_streams(seed: int) -> dict[str, Any]:
    """``curve``'s random stream of each metric a pair's plan sizes (psa, kappa)."""
    return dict(zip(("psa", "kappa"), np.random.default_rng(seed).spawn(2), strict=True))


def _load(scenario_path: str | None) -> Scenario | None:
    """The scenario file at ``scenario_path`` (None without one)."""
    if not scenario_path:
        return None
    from planner.data.scenario import load_scenario

    return load_scenario(scenario_path)


def run_plan(
    scenario_path: str | None,
    options: PlanOptions,
    seed_fn: Callable[[int | None], int],
    option_notes_out: list[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Plan | Comparison:
    """Plan a study from a scenario file and/or options: a Plan, or a design Comparison.

    Options that the plan would not use are a note in the result's ``notes`` (and in
    ``option_notes_out``, when given, for the CLI to show on stderr); annotator
    options (``--error-rate``, ``--bias``, ``--ambiguity``) with a stratified scenario are
    refused (the strata carry their own), unless ``--prevalence`` describes one population.
    A pilot file (``pilot`` or the scenario's ``model.pilot_file``) is read into pilot
    counts; ``items``, ``hours`` or ``budget`` add the precision a fixed study buys, and
    ``curve`` the assurance against items. ``progress(done, total)`` is called after each
    step of the search (each metric of a plan, each design of a comparison).
    """
    scenario = _load(scenario_path)
    cli = options.given()
    merged = resolve(scenario, cli)
    settings = _settings(merged, scenario, cli)
    by_stratum = _pilot_by_stratum(scenario, cli)
    notes = option_notes(scenario, cli, merged, model_on_command_line(cli) and not by_stratum)
    if option_notes_out is not None:
        option_notes_out.extend(notes)
    if scenario is not None and scenario.strata and (by_stratum or not model_on_command_line(cli)):
        return _stratified(scenario, cli, merged, settings, seed_fn, notes, progress)
    fixed_size_given(cli)  # before the pilot file is read
    model_options, origin, pilot = _model_options(scenario, cli)
    fitted = pilot is not None and pilot.model is not None  # 3+ annotators, no pair
    model = pilot.model if fitted else build_model(model_options, origin)
    seed = seed_fn(merged.seed)
    draws = PILOT_DRAWS if model.source == "pilot-counts" else 0
    pricing = team_of(scenario, settings, cli)  # a named team bills each person
    settings = replace(settings, team=pricing)
    plan: Plan = make_plan(model, settings, rng=seed, pilot_draws=draws, progress=progress)
    plan.notes.extend(notes + _solved_note(model))
    if pricing is not None:
        plan.notes.append(pricing_note(pricing, plan.items, plan.budget.contested_items))
    given = fixed_size_given(cli)
    refuse_unpriced_budget(given, settings, model.contested_rate)
    plan = replace(plan, pilot=pilot)
    curve = bool(cli.get("curve"))
    return with_fixed_size(plan, given, curve=curve, seed=seed, curve_streams=_curve_streams(seed))
