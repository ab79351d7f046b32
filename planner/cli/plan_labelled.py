"""``plan --labelled FILE``: a study in progress; how many more items, kept with the first stage.

``plan_command`` (:mod:`planner.cli.commands`) hands its options here when ``--labelled`` is
given. The file is read as ``--pilot`` reads one (the same reader options, ``--pair``,
``--positive``); :func:`planner.sizing.midstudy.plan_remaining_from_file` plans the rest.
Options that describe a fresh study's model or size do not apply and are refused.
"""

from __future__ import annotations

from typing import Any

from planner.cli.common import emit_json, flags_named, note, progress_bar, seed_of
from planner.cli.options import reader_flags_named
from planner.errors import InvalidInput

#: plan's options that a study in progress cannot take (the labels in hand are the model)
NOT_WITH_LABELLED = {
    "prevalence": "--prevalence",
    "annotators": "--annotators",
    "categories": "--categories",
    "per_item": "--per-item",
    "confusion": "--confusion",
    "error_rate": "--error-rate",
    "bias": "--bias",
    "ambiguity": "--ambiguity",
    "union_rate": "--union-rate",
    "psa": "--psa",
    "pilot_counts": "--pilot-counts",
    "kappa": "--kappa",
    "pilot": "--pilot",
    "items": "--items",
    "curve": "--curve",
}
#: the options a stratified study in progress does not take
STRATA_REFUSE = {
    "pair": "--pair", "metric": "--metric", "planned_items": "--planned-items",
    "psa_method": "--psa-method", "kappa_method": "--kappa-method", "seconds_per_item":
    "--seconds-per-item", "level": "--level",
}  # fmt: skip
#: library parameters and the flags that set them
FLAGS = {
    "confidence_level": "--confidence",
    "replicates": "--replicates",
    "max_items": "--max-items",
    "planned_items": "--planned-items",
    "batch_size": "--batch-size",
    "psa_method": "--psa-method",
    "kappa_method": "--kappa-method",
    "annotators_per_item": "--annotators-per-item",
    "seconds_per_item": "--seconds-per-item",
    "adjudication_seconds": "--adjudication-seconds",
    "hourly_rate": "--hourly-rate",
    "pair": "--pair",
    "positive": "--positive",
    "level": "--level",
    "stratum_col": "--stratum-col",
    "design_shares": "the scenario's design",
    "hours": "--hours",
    "budget": "--budget",
}


def refuse_labelled_only(options: dict[str, Any], *, raters: bool = False) -> None:
    """``--planned-items`` without ``--labelled``, and ``--batch-size`` with several
    annotators or a scenario (it simulates a pair's plan from its model): one line, exit 2."""
    scenario = options.get("scenario") or options.get("scenario_option")
    if options.get("stratum_col") is not None and options.get("pilot") is None and not scenario:
        raise InvalidInput(  # a scenario's own pilot file is read by it: the scenario checks
            "--stratum-col applies only with --labelled FILE (a study in progress) or --pilot "
            "FILE (a pilot by stratum)"
        )
    if options.get("planned_items") is not None:
        raise InvalidInput(
            "--planned-items applies only with --labelled FILE (a study in progress)"
        )
    if options.get("batch_size") is not None and (raters or scenario):
        raise InvalidInput(
            "--batch-size without --labelled simulates a pair's plan from its model; it does not "
            "apply to several annotators or to a scenario file"
        )


def batches_without_labelled(result: Any, batch_size: int | None) -> Any:
    """``plan --batch-size B`` without ``--labelled``: the batch procedure from the plan's
    model, re-planning every ``B`` items from the start (None without ``--batch-size``)."""
    if batch_size is None:
        return None
    from planner.sizing.compare import Comparison
    from planner.sizing.midstudy_procedure import batches_for_plan

    if isinstance(result, Comparison):  # a scenario of strata: compared designs, no one model
        raise InvalidInput("--batch-size does not apply to a comparison of stratified designs")
    with flags_named(FLAGS):
        return batches_for_plan(result, batch_size)


def _refused(options: dict[str, Any]) -> None:
    given = [
        flag
        for key, flag in NOT_WITH_LABELLED.items()
        if options.get(key) not in (None, False)
        and key != "annotators"  # checked against the file's annotators
    ]
    if given:
        raise InvalidInput(
            f"--labelled FILE plans a study in progress from its labels: {', '.join(given)} "
            "cannot be used with it (the labels in hand are the model and the first stage)"
        )


def _plan_strata(options: dict[str, Any], reader: dict[str, Any]) -> None:
    """``--labelled FILE --scenario S --stratum-col COL``: the remaining items per stratum."""
    from planner.application.strata_in_progress import remaining_strata_from_file

    scenario = loaded_scenario(options)
    if scenario is None:
        raise InvalidInput("--stratum-col with --labelled needs the stratified design: --scenario")
    given = [f for k, f in STRATA_REFUSE.items() if options.get(k) is not None]
    if given:
        raise InvalidInput(f"{given[0]} does not apply to a stratified study in progress")
    plan = {
        "width": options.get("width"), "confidence_level": options.get("confidence"),
        "assurance": options.get("assurance"), "max_items": options.get("max_items"),
        "replicates": options.get("replicates"), "hourly_rate": options.get("hourly_rate"),
        "annotators_per_item": options.get("annotators_per_item"),
        "adjudication_seconds": options.get("adjudication_seconds"),
    }  # fmt: skip
    quiet = bool(options.get("json_output") or options.get("quiet"))
    with flags_named(FLAGS), progress_bar("planning the rest", disabled=quiet):
        plan["rng"] = seed_of(options.get("seed"), scenario)
        with reader_flags_named():
            result = remaining_strata_from_file(
                str(options["labelled"]), scenario, options["stratum_col"],
                positive=options.get("positive"), reader=reader,
                remaining=labelled_settings(options)[1], **plan,
            )  # fmt: skip
    _show(result, bool(options.get("json_output")), strata=True)


def _show(result: Any, json_output: bool, *, strata: bool = False) -> None:
    """One JSON document (the notes on stderr), or the tables."""
    from planner.output import jsonout

    if json_output:
        for message in result.notes:
            note(message)
        doc = jsonout.labelled_strata_document if strata else jsonout.labelled_document
        emit_json(doc(result))
        return
    from planner.output import render_midstudy
    from planner.output.render import TerminalConsole as Console

    render = render_midstudy.render_labelled_strata if strata else render_midstudy.render_labelled
    render(result, Console(markup=False))


def _check_annotators(given: int | None, result: Any) -> None:
    """``--annotators`` must be the number the plan is for: the file's (or the pair's 2)."""
    found = len(getattr(result, "annotators", ())) or 2
    if given is not None and given != found:
        raise InvalidInput(
            f"--annotators {given} does not match the labels in hand: the study in progress "
            f"is planned for their {found} annotators"
        )


#: PlanSettings' fields and the options that set them (the rest keep their defaults)
SETTINGS_OPTIONS = {
    "width": "width", "confidence_level": "confidence", "assurance": "assurance",
    "metric": "metric", "psa_method": "psa_method", "kappa_method": "kappa_method",
    "annotators_per_item": "annotators_per_item", "seconds_per_item": "seconds_per_item",
    "adjudication_seconds": "adjudication_seconds", "hourly_rate": "hourly_rate",
    "max_items": "max_items", "replicates": "replicates", "level": "level",
}  # fmt: skip


def loaded_scenario(options: dict[str, Any]) -> Any:
    """The scenario given (the argument or ``--scenario``) loaded, or None: read before any
    flag is named, so that its refusals name its own keys (``budget`` stays a key)."""
    from planner.data.scenario import load_scenario

    path = options.get("scenario") or options.get("scenario_option")
    return None if path is None else load_scenario(path)


def labelled_settings(options: dict[str, Any]) -> tuple[Any, Any]:
    """The study in progress's ``(PlanSettings, RemainingSettings)`` from the options given
    (checked with the flags named)."""
    from planner.sizing.midstudy_settings import RemainingSettings
    from planner.sizing.plan import PlanSettings

    given = {k: options.get(o) for k, o in SETTINGS_OPTIONS.items()}
    # the settings' messages say "a positive number": "positive" is not the flag there
    with flags_named({k: f for k, f in FLAGS.items() if k != "positive"}):
        settings = PlanSettings(**{k: v for k, v in given.items() if v is not None})
        remaining = RemainingSettings(
            planned_items=options.get("planned_items"),
            batch_size=options.get("batch_size"),
            hours=options.get("hours"),
            budget=options.get("budget"),
        )
    return settings, remaining


def plan_labelled(options: dict[str, Any], reader: dict[str, Any]) -> None:
    """Read the labels so far, plan the rest, print tables or one JSON document."""
    from planner.application.in_progress import remaining_from_file

    _refused(options)
    if options.get("scenario") and options.get("scenario_option"):
        raise InvalidInput("give the scenario file once: as the argument or with --scenario")
    if options.get("stratum_col") is not None:
        return _plan_strata(options, reader)
    pair = options.get("pair")
    scenario = loaded_scenario(options)
    _, remaining = labelled_settings(options)  # checked with the flags named
    given = {k: options.get(o) for k, o in SETTINGS_OPTIONS.items()}
    quiet = bool(options.get("json_output") or options.get("quiet"))
    with flags_named(FLAGS), progress_bar("planning the rest", disabled=quiet):
        seed = seed_of(options.get("seed"), scenario)
        with reader_flags_named():  # a scenario's settings under the flags' (None: not given)
            result = remaining_from_file(
                str(options["labelled"]),
                scenario,
                remaining=remaining,
                pair=tuple(p.strip() for p in pair.split(",")) if pair is not None else None,
                positive=options.get("positive"),
                reader=reader,
                rng=seed,
                **given,
            )
    _check_annotators(options.get("annotators"), result)
    _show(result, bool(options.get("json_output")))
