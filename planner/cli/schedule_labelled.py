"""``planner schedule --labelled FILE``: the schedule of a study in progress.

The labels in hand are the study's first stage (:mod:`planner.sizing.midstudy`, or
:mod:`planner.sizing.midstudy_latent_class` for 3 to 6 annotators): the items still to label are
planned from them, and the schedule is simulated for those items only, so its dates are the
finish dates of the remaining work. What is done so far, what is still to do and what the rest
costs come first; the schedule's own tables follow.
"""

from __future__ import annotations

from typing import Any

from planner.cli.common import flags_named, seed_of
from planner.cli.options import reader_flags_named
from planner.cli.plan_labelled import FLAGS
from planner.errors import InvalidInput

LABELLED_HELP = (
    "A study in progress: the label file of the items labelled so far (as plan --labelled); "
    "schedules the items still to label (with a scenario: planned to its target and costs, "
    "under the flags given). Example: planner schedule --labelled "
    "examples/labelled-600.csv --width 0.08 --start 2027-01-04"
)
STRATUM_COL_HELP = (
    "The column naming each item's stratum. With --labelled and a stratified scenario: "
    "schedules the items still to label in each stratum of the design. With --pilot and a "
    "stratified scenario: each stratum's model is its own pilot counts. Example: "
    "planner schedule unsupported-claims-enriched --labelled examples/stratified-labels.csv "
    "--stratum-col stratum --positive unsupported"
)
#: the plan-of-the-rest settings a stratified study in progress takes, by option name
STRATA_SETTINGS = {
    "width": "width", "confidence_level": "confidence", "assurance": "assurance",
    "annotators_per_item": "annotators_per_item", "hourly_rate": "hourly_rate",
    "adjudication_seconds": "adjudication_seconds", "replicates": "replicates",
    "max_items": "max_items",
}  # fmt: skip
#: schedule's options that describe a fresh study's model or size (the labels in hand replace
#: them)
NOT_WITH_LABELLED = {
    "items": "--items",
    "prevalence": "--prevalence",
    "error_rate": "--error-rate",
    "bias": "--bias",
    "ambiguity": "--ambiguity",
    "union_rate": "--union-rate",
    "psa": "--psa",
    "kappa": "--kappa",
    "pilot_counts": "--pilot-counts",
    "pilot": "--pilot",
    "design": "--design",
}


#: the options of the plan of the rest that schedule takes
SCHEDULE_SETTINGS = (
    "width", "confidence", "assurance", "metric", "annotators_per_item", "seconds_per_item",
    "adjudication_seconds", "hourly_rate",
)  # fmt: skip


def in_progress(labelled: str, options: dict[str, Any]) -> tuple[Any, int, float | None, int]:
    """The plan of the rest from the labels in hand: ``(plan, remaining items, contested
    share of the first stage (or the one given), seed)``."""
    given = [flag for key, flag in NOT_WITH_LABELLED.items() if options.get(key) is not None]
    if given:
        raise InvalidInput(
            f"--labelled FILE schedules the items still to label of a study in progress: "
            f"{', '.join(given)} cannot be used with it"
        )
    from planner.application.in_progress import remaining_from_file
    from planner.cli.plan_labelled import SETTINGS_OPTIONS, loaded_scenario

    scenario = loaded_scenario(options)  # its refusals name its keys, not flags
    seed = seed_of(options.get("seed"), scenario)
    if options.get("stratum_col") is not None:
        return _strata_in_progress(labelled, options, seed)
    pair = options.get("pair")
    plan = {k: options.get(o) for k, o in SETTINGS_OPTIONS.items() if o in SCHEDULE_SETTINGS}
    with flags_named(FLAGS), reader_flags_named():  # the scenario's settings under the flags'
        result = remaining_from_file(
            labelled,
            scenario,
            pair=tuple(p.strip() for p in pair.split(",")) if pair is not None else None,
            positive=options.get("positive"),
            reader=options.get("reader") or None,
            rng=seed,
            **plan,
        )
    if result.remaining_items == 0:
        done(result, bool(options.get("json_output")))
    contested = options.get("contested_rate")
    if contested is None and result.counts is not None:
        contested = (result.counts[1] + result.counts[2]) / result.labelled_items
    elif contested is None:  # several annotators: the share the plan of the rest bills
        contested = result.budget.contested_items / max(result.remaining_items, 1)
    return result, result.remaining_items, contested, seed


def labels_per_item(plan: Any, given: int | None) -> int | None:
    """The labels a remaining item gets: one from each of a several-annotator study's
    annotators (``--annotators-per-item``, when given, must be their number), else ``given``."""
    found = len(getattr(plan, "annotators", ()))
    if found < 3:
        return given
    if given is not None and given != found:
        raise InvalidInput(
            f"--annotators-per-item {given} does not match the labels in hand: every remaining "
            f"item gets a label from each of the file's {found} annotators"
        )
    return found


def _strata_in_progress(
    labelled: str, options: dict[str, Any], seed: int
) -> tuple[Any, int, float | None, int]:
    """:func:`in_progress` of a stratified study: the remaining items of every stratum,
    planned from the labels in hand and the scenario's design."""
    from planner.application.strata_in_progress import remaining_strata_from_file
    from planner.cli.plan_labelled import STRATA_REFUSE, loaded_scenario

    scenario = loaded_scenario(options)
    if scenario is None:
        raise InvalidInput("--stratum-col with --labelled needs the stratified design: a scenario")

    given = [flag for key, flag in STRATA_REFUSE.items() if options.get(key) is not None]
    if given:  # each stratum has its own seconds and the design its own metric
        raise InvalidInput(f"{given[0]} does not apply to a stratified study in progress")
    plan = {k: options.get(o) for k, o in STRATA_SETTINGS.items()}
    with flags_named(FLAGS), reader_flags_named():
        result = remaining_strata_from_file(
            labelled, scenario, options["stratum_col"], positive=options.get("positive"),
            reader=options.get("reader") or None, rng=seed, **plan,
        )  # fmt: skip
    if result.remaining_items == 0:
        done(result, bool(options.get("json_output")))
    contested = options.get("contested_rate")
    if contested is None:
        contested = result.budget.contested_items / max(result.budget.items, 1)
    return result, result.remaining_items, contested, seed


def strata_remaining_work(result: Any, contested_rate: float | None) -> Any:
    """The schedule's work of a stratified study in progress: each stratum's remaining items
    at its seconds and contested share (``--contested-rate`` given: that share in every one)."""
    from planner.application.strata_in_progress import remaining_work

    return remaining_work(result, contested_rate)


def done(plan: Any, json_output: bool) -> None:
    """Nothing remains to label: say what was labelled and the interval now, exit 0."""
    import typer

    from planner.cli.common import emit_json

    low, high = plan.interval_now
    if json_output:
        emit_json({**in_progress_json({"command": "schedule", "status": "done"}, plan)})
    else:
        typer.echo(
            f"done: {plan.labelled_items:,} items labelled; {plan.metric} now "
            f"{plan.estimate:.3f} (interval {low:.3f} to {high:.3f}, half-width "
            f"{plan.half_width_now:.4g} <= {plan.width:g}); no items are left to schedule"
        )
    raise typer.Exit(0)


def in_progress_json(doc: dict[str, Any], plan: Any) -> dict[str, Any]:
    """The schedule's document with ``in_progress``: done so far, still to do, the rest's
    budget (the schedule's dates are those of the remaining items)."""
    if plan is None:
        return doc
    from planner.output.jsonout import budget_json, json_ready

    low, high = plan.interval_now
    return {
        **doc,
        "in_progress": json_ready(
            {
                "labelled_items": plan.labelled_items,
                "metric": plan.metric,
                "estimate_now": plan.estimate,
                "interval_now": [low, high],
                "half_width_now": plan.half_width_now,
                "remaining_items": plan.remaining_items,
                "total_items": plan.total_items,
                "assurance": plan.assurance,
                "budget": budget_json(plan.budget),
                "notes": list(plan.notes),  # the rest's plan's: how a named team bills it
                # a stratified study: the items still to label in each stratum (else null)
                "remaining_by_stratum": {s.name: s.remaining for s in plan.strata}
                if getattr(plan, "strata", None)
                else None,
            }
        ),
    }


def render_in_progress(plan: Any, console: Any) -> None:
    """Done so far and still to do, before the schedule of the remaining items (nothing
    without a study in progress)."""
    if plan is None:
        return
    from planner.output.render import fmt, quantity_table
    from planner.output.render_midstudy import priced_by

    table = quantity_table("Study in progress: done so far and still to do")
    low, high = plan.interval_now
    table.add_row("labelled so far", fmt(plan.labelled_items), "done")
    table.add_row(
        f"{plan.metric} now", fmt(plan.estimate, 3), f"interval {fmt(low, 3)} to {fmt(high, 3)}"
    )
    table.add_row(
        "remaining items", fmt(plan.remaining_items),
        f"still to do: half-width <= {plan.width:g} with assurance {plan.target_assurance:g}",
    )  # fmt: skip
    for stratum in getattr(plan, "strata", ()):  # a stratified study: each stratum's rest
        table.add_row(f"  in {stratum.name}", fmt(stratum.remaining), "still to label")
    table.add_row("total items", fmt(plan.total_items), "labelled + remaining")
    table.add_row(
        "person-hours still to spend", fmt(plan.budget.person_hours), "the plan's, for the rest"
    )
    if plan.budget.cost is not None:
        table.add_row("cost still to spend", f"{plan.budget.cost:,.2f}", priced_by(plan))
    table.add_row("schedule below", "", "the remaining items only: its dates finish the study")
    console.print(table)
