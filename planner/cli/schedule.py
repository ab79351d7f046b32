"""The ``schedule`` command: simulate the labelling operation (registered in cli/commands.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from planner.cli import schedule_labelled as in_progress_study
from planner.cli.common import (
    emit_json,
    flags_named,
    note,
    parse_floats,
    parse_ints,
    progress_bar,
    seed_of,
    seed_or_draw,
)
from planner.cli.options import pilot_options, reader_flags_named, reader_from_flags, reader_option
from planner.cli.plan_raters import check_several_options, error_in_flags, single_prevalence
from planner.errors import InvalidInput
from planner.operations.budget import SECONDS_PER_ITEM

if TYPE_CHECKING:  # the library loads when the command runs
    from planner.application.plan_options import PlanOptions
    from planner.application.schedule_team import SeveralWork

_MODEL = "As for plan."

SCHEDULE_HELP = (
    "Simulate the labelling operation: calendar days (dates with --start), person-hours, "
    "utilisation and cost for a team, over many runs.\n\n"
    "Items come from planning the scenario or the model options (every model option plan "
    "takes: --prevalence, --error-rate, --bias, --ambiguity, --union-rate, --psa, --kappa, "
    "--pilot-counts, --pilot with --pair/--positive, the target --width, --confidence, "
    "--assurance, --metric, and the search's --psa-method, --kappa-method, --replicates, "
    "--max-items; several annotators as plan describes them: --categories, --level, "
    "--per-item (k of the --team-size), --confusion, a --prevalence list, with "
    "--annotators-per-item as plan's --annotators; over a several-annotator scenario's "
    "\\[annotators] those of them that describe several annotators), or from --items. "
    "Team settings come from the scenario's "
    "\\[team] table, overridden here; named annotators (\\[\\[team.annotator]]) run person "
    "by person, as do --start, --deadline, --add and --without."
)


SCHEDULE_EPILOG = """
Examples:

  planner schedule unsupported-claims

  planner schedule --items 2000 --team-size 5 --hours-per-day 4 --adjudication-seconds 120

  planner schedule team.toml --deadline 2027-02-15 --without ana@2027-01-11

  planner schedule team.toml --add "cy,seconds_per_item=80,hours_per_day=6,hourly_rate=35"

  planner schedule clinical-chart-review --design enriched --json
"""


AddPerson = Annotated[
    list[str] | None,
    typer.Option(
        help="Add an annotator: 'name,seconds_per_item=80,hours_per_day=6,hourly_rate=35"
        ",days=mon+wed' (repeatable).",
        show_default=False,
    ),
]
DropPerson = Annotated[
    list[str] | None,
    typer.Option(
        help="Drop an annotator by name, or NAME@DATE: gone from that date on "
        "(repeatable). E.g. ana@2027-01-11.",
        show_default=False,
    ),
]


def schedule_command(
    scenario: Annotated[
        str | None, typer.Argument(help="Scenario file (TOML).", show_default=False)
    ] = None,
    items: Annotated[
        int | None, typer.Option(help="Items to label (instead of planning them).")
    ] = None,
    labelled: Annotated[str | None, typer.Option(help=in_progress_study.LABELLED_HELP)] = None,
    stratum_col: Annotated[
        str | None, typer.Option(help=in_progress_study.STRATUM_COL_HELP, show_default=False)
    ] = None,
    design: Annotated[
        str | None,
        typer.Option(
            help="For stratified scenarios: uniform, enriched or weighted. Default weighted.",
            show_default=False,
        ),
    ] = None,
    prevalence: Annotated[
        str | None,
        typer.Option(help=_MODEL + " One value, or 'P1,...,PK' (several annotators)."),
    ] = None,
    categories: Annotated[
        int | None, typer.Option(help=_MODEL + " Categories, 2 to 5 (several annotators).")
    ] = None,
    level: Annotated[
        str | None, typer.Option(help=_MODEL + " nominal, ordinal or interval (alpha).")
    ] = None,
    per_item: Annotated[
        int | None,
        typer.Option(
            help=_MODEL + " k of M: each item labelled by k of the --team-size annotators."
        ),
    ] = None,
    confusion: Annotated[
        str | None, typer.Option(help=_MODEL + " E.g. '0.98,0.02;0.3,0.7'.")
    ] = None,
    error_rate: Annotated[str | None, typer.Option(help=_MODEL + " One value or 'A,B'.")] = None,
    bias: Annotated[str | None, typer.Option(help=_MODEL + " One value or 'A,B'.")] = None,
    ambiguity: Annotated[float | None, typer.Option(help=_MODEL)] = None,
    union_rate: Annotated[float | None, typer.Option(help=_MODEL)] = None,
    psa: Annotated[float | None, typer.Option(help=_MODEL)] = None,
    kappa: Annotated[float | None, typer.Option(help=_MODEL)] = None,
    pilot_counts: Annotated[str | None, typer.Option(help=_MODEL)] = None,
    pilot: Annotated[str | None, typer.Option(help=_MODEL + " A pilot label file.")] = None,
    pair: Annotated[str | None, typer.Option(help=_MODEL + " With --pilot.")] = None,
    positive: Annotated[str | None, typer.Option(help=_MODEL + " With --pilot.")] = None,
    layout: Annotated[str | None, reader_option("layout", pilot=True)] = None,
    item_col: Annotated[str | None, reader_option("item_col", pilot=True)] = None,
    annotator_col: Annotated[str | None, reader_option("annotator_col", pilot=True)] = None,
    label_col: Annotated[str | None, reader_option("label_col", pilot=True)] = None,
    annotator_cols: Annotated[str | None, reader_option("annotator_cols", pilot=True)] = None,
    file_format: Annotated[str | None, reader_option("file_format", pilot=True)] = None,
    missing: Annotated[str | None, reader_option("missing", pilot=True)] = None,
    width: Annotated[float | None, typer.Option(help=_MODEL)] = None,
    confidence: Annotated[float | None, typer.Option(help=_MODEL)] = None,
    assurance: Annotated[float | None, typer.Option(help=_MODEL)] = None,
    metric: Annotated[str | None, typer.Option(help=_MODEL + " psa, kappa or both.")] = None,
    psa_method: Annotated[str | None, typer.Option(help=_MODEL + " E.g. wilson.")] = None,
    kappa_method: Annotated[str | None, typer.Option(help=_MODEL + " E.g. score.")] = None,
    replicates: Annotated[int | None, typer.Option(help=_MODEL + " E.g. 4000.")] = None,
    max_items: Annotated[int | None, typer.Option(help=_MODEL + " E.g. 100000.")] = None,
    annotators_per_item: Annotated[
        int | None, typer.Option(help="Distinct annotators per item. Default 2.")
    ] = None,
    seconds_per_item: Annotated[
        float | None, typer.Option(help=f"Mean seconds per label. Default {SECONDS_PER_ITEM:g}.")
    ] = None,
    adjudication_seconds: Annotated[
        float | None, typer.Option(help="Mean seconds per adjudicated item. Default 0.")
    ] = None,
    contested_rate: Annotated[
        float | None, typer.Option(help="With --items: share of items adjudicated. Default 0.")
    ] = None,
    hourly_rate: Annotated[float | None, typer.Option(help="Cost of one person-hour.")] = None,
    team_size: Annotated[
        int | None, typer.Option(help="Annotators of a uniform team. Default 5.")
    ] = None,
    annotators: Annotated[
        int | None, typer.Option(hidden=True, help="Deprecated: use --team-size.")
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(help="First calendar day (YYYY-MM-DD): results as dates. E.g. 2027-01-04."),
    ] = None,
    deadline: Annotated[
        str | None,
        typer.Option(help="A date (YYYY-MM-DD): the probability of finishing by it."),
    ] = None,
    add: AddPerson = None,
    without: DropPerson = None,
    assignment: Annotated[
        str | None,
        typer.Option(help="next-free (default: whoever is free takes the next item) or balanced."),
    ] = None,
    min_shared_items: Annotated[
        int | None,
        typer.Option(help="Items every pair of annotators labels together. Default 30."),
    ] = None,
    hours_per_day: Annotated[
        float | None, typer.Option(help="Shift hours per day. Default 8.")
    ] = None,
    days_per_week: Annotated[
        int | None, typer.Option(help="Working days a week. Default 5.")
    ] = None,
    time_spread: Annotated[
        float | None, typer.Option(help="Lognormal sigma of the time per label. Default 0.5.")
    ] = None,
    attention_check_share: Annotated[
        float | None, typer.Option(help="Extra attention-check items per label. Default 0.")
    ] = None,
    attention_fail_rate: Annotated[
        float | None, typer.Option(help="Chance of failing a check. Default 0.")
    ] = None,
    requalification_hours: Annotated[
        float | None, typer.Option(help="Hours out after a failed check. Default 0.")
    ] = None,
    adjudicators: Annotated[int | None, typer.Option(help="Adjudicators. Default 1.")] = None,
    runs: Annotated[int | None, typer.Option(help="Simulated runs. Default 200.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed; drawn and printed if not given.")] = None,
    json_output: Annotated[
        bool, typer.Option("--json", metavar="", help="Print one JSON document instead of tables.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", metavar="", help="Show no progress bar on stderr.")
    ] = False,
) -> None:
    from planner.application.schedule_options import run_schedule

    said = []  # shown after the run: a failing command prints its one error line only
    if annotators is not None:
        said.append(
            "--annotators is deprecated in schedule (it means a count elsewhere): use --team-size"
        )
        if team_size is not None and team_size != annotators:
            raise InvalidInput("give --team-size once (--annotators is its old name)")
        team_size = annotators if team_size is None else team_size
    reader = reader_from_flags(locals())  # of --pilot, --labelled or the scenario's pilot_file
    study = remaining = None
    if labelled is not None:  # a study in progress: schedule the items still to label
        given_contested = contested_rate
        study, items, contested_rate, seed = in_progress_study.in_progress(labelled, locals())
        said += list(study.notes)  # the plan of the rest's, as plan prints them
        if stratum_col is not None:  # each stratum's rest at its seconds and contested share
            remaining = in_progress_study.strata_remaining_work(study, given_contested)
            items = contested_rate = None
        else:  # several annotators' rest: a label from each of the file's annotators
            annotators_per_item = in_progress_study.labels_per_item(study, annotators_per_item)
        width = confidence = assurance = metric = pair = positive = None  # used by the plan
        reader = {}  # read: the labels in hand
    several = _several_work(locals())
    if several is not None:  # sized by plan's several-annotator plan: the schedule labels it
        work, seed = several
        items, contested_rate = work.items, work.contested_rate
        annotators_per_item = work.labels_per_item
        prevalence = error_rate = bias = ambiguity = kappa = width = confidence = None
        assurance = metric = replicates = max_items = None
    cli = _plan_options(locals())
    team = {
        "annotators": team_size,
        "hours_per_day": hours_per_day,
        "days_per_week": days_per_week,
        "time_spread": time_spread,
        "attention_check_share": attention_check_share,
        "attention_fail_rate": attention_fail_rate,
        "requalification_hours": requalification_hours,
        "adjudicators": adjudicators,
        "runs": runs,
    }
    with (
        progress_bar("simulating runs", disabled=json_output or quiet) as progress,
        flags_named({"stratum_col": "--stratum-col"}),  # named inside the library's sentences
        _team_size_named(),
        reader_flags_named(),
    ):
        _, result = run_schedule(
            scenario,
            cli,
            team,
            seed_or_draw,
            items=items,
            design=design,
            progress=progress,
            changes=_changes(start, deadline, add, without, assignment, min_shared_items),
            work=remaining,
        )
    if several is not None:
        result = result.with_notes(list(several[0].notes))
    for message in (*said, *result.notes):
        note(message)
    if json_output:
        from planner.output.jsonout import schedule_document

        emit_json(in_progress_study.in_progress_json(schedule_document(result), study))
        return
    from planner.output.render import TerminalConsole as Console

    in_progress_study.render_in_progress(study, Console(markup=False))
    if result.team is not None:
        from planner.output.render_team import render_team_schedule

        render_team_schedule(result, Console(markup=False))
        return
    from planner.output.render import render_schedule

    render_schedule(result, Console(markup=False))


def _plan_options(v: dict[str, Any]) -> PlanOptions:
    """The plan's options among schedule's values (``locals()`` of the command)."""
    from planner.application.plan_options import PlanOptions

    return PlanOptions(
        prevalence=single_prevalence(v["prevalence"]),
        error_rate=parse_floats(v["error_rate"], "--error-rate"),
        bias=parse_floats(v["bias"], "--bias"),
        ambiguity=v["ambiguity"],
        union_rate=v["union_rate"],
        psa=v["psa"],
        kappa=v["kappa"],
        pilot_counts=parse_ints(v["pilot_counts"], "--pilot-counts") if v["pilot_counts"] else None,
        **pilot_options(
            v["pilot"],
            v["pair"],
            v["positive"],
            v["reader"],
            v["scenario"] is not None or v["labelled"] is not None,
        ),
        width=v["width"],
        confidence=v["confidence"],
        assurance=v["assurance"],
        metric=v["metric"],
        psa_method=v["psa_method"],
        kappa_method=v["kappa_method"],
        replicates=v["replicates"],
        max_items=v["max_items"],
        annotators_per_item=v["annotators_per_item"],
        seconds_per_item=v["seconds_per_item"],
        adjudication_seconds=v["adjudication_seconds"],
        hourly_rate=v["hourly_rate"],
        contested_rate=v["contested_rate"],
        seed=v["seed"],
        # with --pilot (not --labelled): each stratum's model from the pilot's counts
        stratum_col=v["stratum_col"] if v["labelled"] is None else None,
    )


SEVERAL_FLAGS = ("categories", "level", "per_item", "confusion")


def _refuse_strata(v: dict[str, Any], scenario: Any) -> None:
    """One line for a several-annotator model option with a scenario of ``[[strata]]``: its
    designs are scheduled as the file states them."""
    if not getattr(scenario, "strata", ()):
        return
    flag = next((k for k in SEVERAL_FLAGS if v[k] is not None), "prevalence")
    why = (
        "set annotators.per_item in the file (plan takes --per-item to compare the designs)"
        if flag == "per_item"
        else "it does not combine with [[strata]]"
    )
    raise InvalidInput(
        f"--{flag.replace('_', '-')} does not change the strata designs that schedule labels "
        f"for {scenario.path}: {why}"
    )


def _several_work(  # the several-annotator plan's work and its seed
    v: dict[str, Any],
) -> tuple[SeveralWork, int] | None:
    """The work sized by ``plan``'s several-annotator plan when schedule's options ask for
    one (``--categories``, ``--level``, ``--per-item``, ``--confusion`` or a list of
    prevalences), built by ``plan``'s own option code (:mod:`planner.application.several_options`).

    The plan's ``--annotators M`` is ``--team-size`` with ``--per-item`` (the team is the pool
    the ``k`` are drawn from), else ``--annotators-per-item`` (everyone labels every item).
    """
    if all(v[k] is None for k in SEVERAL_FLAGS) and "," not in (v["prevalence"] or ""):
        return None
    from planner.application.schedule_team import several_work
    from planner.application.several_options import library_options, raters_scenario

    if v["items"] is not None or v["labelled"] is not None:
        given = "--items" if v["items"] is not None else "--labelled"
        raise InvalidInput(
            f"{given} fixes the items to label, so the several-annotator model options "
            "(--categories, --level, --per-item, --confusion, --prevalence P1,...) would "
            "have no effect; drop one or the other"
        )
    as_plan = dict(v)
    as_plan["annotators"] = (
        v["team_size"] if v["per_item"] is not None else v["annotators_per_item"]
    )
    as_plan.update(annotators_per_item=None, scenario_option=None, hours=None, budget=None)
    scenario = raters_scenario(as_plan)
    _refuse_strata(v, scenario)
    check_several_options(as_plan, scenario)  # plan's own checks
    try:
        library = library_options(as_plan)
    except InvalidInput as exc:
        raise error_in_flags(exc) from None
    seed = seed_of(v["seed"], scenario)
    try:
        work = several_work(library, scenario, seed)
    except InvalidInput as exc:
        raise error_in_flags(exc) from None
    return work, seed


@contextmanager
def _team_size_named() -> Iterator[None]:
    """Errors about the uniform team's ``annotators`` name schedule's ``--team-size``."""
    try:
        yield
    except InvalidInput as exc:
        if exc.parameter != "annotators":
            raise
        text = str(exc).removeprefix("annotators")
        raise InvalidInput("team_size" + text, parameter="team_size") from None


def _changes(  # type: ignore[no-untyped-def]
    start, deadline, add, without, assignment, min_shared_items
) -> Any:
    """The options about people and dates, parsed (dates checked, one line each)."""
    from planner.application.schedule_team import TeamChanges
    from planner.data.scenario_team import to_date

    return TeamChanges(
        start=to_date("start", start) if start is not None else None,
        deadline=to_date("deadline", deadline) if deadline is not None else None,
        add=tuple(add or ()),
        without=tuple(without or ()),
        assignment=assignment,
        min_shared_items=min_shared_items,
    )
