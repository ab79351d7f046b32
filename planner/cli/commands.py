"""The command-line interface: ``planner`` (with subcommands) and ``plan``.

Each command parses its options, makes the one random generator from ``--seed`` (or draws
a seed and prints it), calls one library function and renders a Rich table or, with
``--json``, exactly one JSON document on stdout. Errors are one line on stderr: exit 2 for
a usage error (an option outside its valid range, contradictory options, a bad file) and
1 for a planner error (an unreachable target); never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer

from planner.cli.agree import AGREE_EPILOG, AGREE_HELP, agree_command
from planner.cli.app import APP_EPILOG, APP_HELP, app_command
from planner.cli.common import (
    DEBUG_HELP,
    emit_json,
    flags_named,
    note,
    parse_floats,
    parse_ints,
    progress_bar,
    seed_or_draw,
    set_debug,
)
from planner.cli.common import FlagHelpCommand as _Command
from planner.cli.common import FlagHelpGroup as _Group
from planner.cli.fit import FIT_EPILOG, FIT_HELP, fit_command
from planner.cli.options import (
    OLD_PILOT_ANNOTATOR_COLS,
    JsonFlag,
    Quiet,
    deprecated_annotator_cols,
    pilot_options,
    reader_error,
    reader_from_flags,
    reader_option,
)
from planner.cli.report import REPORT_EPILOG, REPORT_HELP, report_command
from planner.cli.schedule import SCHEDULE_EPILOG, SCHEDULE_HELP, schedule_command
from planner.errors import InvalidInput
from planner.sizing.plan_settings import PlanSettings

if TYPE_CHECKING:
    from planner.operations.workload import ScheduleResult
    from planner.sizing.alt_test_plan import AltTestPlanSummary
    from planner.sizing.compare import Comparison
    from planner.sizing.plan import Plan


app = typer.Typer(
    cls=_Group,
    help="Plan and measure inter-annotator agreement studies (PSA, kappa) on rare labels.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
plan_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def _show_version(value: bool) -> None:
    if value:
        from planner import __version__

        typer.echo(f"planner {__version__}")
        raise typer.Exit()


# the same eager --version flag on every entry point
VersionFlag = Annotated[
    bool,
    typer.Option(
        "--version",
        metavar="",
        help="Print the version and exit.",
        is_eager=True,
        callback=_show_version,
    ),
]


@app.callback()
def _planner(
    version: VersionFlag = False,
    debug: Annotated[
        bool,
        typer.Option("--debug", metavar="", help=DEBUG_HELP, is_eager=True, callback=set_debug),
    ] = False,
) -> None:
    """Plan and measure inter-annotator agreement studies (PSA, kappa) on rare labels."""


PLAN_EPILOG = """
Examples:

  plan --prevalence 0.08 --width 0.08

  plan --prevalence 0.08 --error-rate 0.03,0.06 --bias 0.5,-0.5 --metric both

  plan --pilot-counts 6,21,14,459 --width 0.08 --assurance 0.9 --json

  plan --pilot examples/pilot.csv --width 0.08   (planner examples --copy examples first)

  plan --labelled examples/labelled-600.csv --width 0.08 --planned-items 1280

  plan --prevalence 0.08 --psa 0.6

  plan --prevalence 0.08 --width 0.08 --items 1000 --curve

  plan --union-rate 0.082 --psa 0.5 --width 0.05 --hourly-rate 40

  plan unsupported-claims-enriched --assurance 0.9
"""


def plan_command(
    scenario: Annotated[
        str | None,
        typer.Argument(
            help="Scenario file (TOML), or the name of a shipped scenario (planner scenarios "
            "lists them); options given here override it.",
            show_default=False,
        ),
    ] = None,
    scenario_option: Annotated[
        str | None,
        typer.Option("--scenario", help="Scenario file, as the argument.", show_default=False),
    ] = None,
    prevalence: Annotated[
        str | None,
        typer.Option(
            help="True prevalence of the positive label, in (0, 1); with several annotators "
            "also one per category, 'P1,P2,...' summing to 1.",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    annotators: Annotated[
        int | None,
        typer.Option(
            help="Annotators per item, 2 to 6 (default 2); more than two sizes the agreement "
            "of all of them (see --metric), billing every label.",
            rich_help_panel="Several annotators",
        ),
    ] = None,
    categories: Annotated[
        int | None,
        typer.Option(
            help="Categories, 2 to 5; must match the number of --prevalence values.",
            rich_help_panel="Several annotators",
        ),
    ] = None,
    level: Annotated[
        str | None,
        typer.Option(
            help="Krippendorff's alpha level: nominal (default), ordinal or interval.",
            rich_help_panel="Several annotators",
        ),
    ] = None,
    per_item: Annotated[
        int | None,
        typer.Option(
            help="k of M: each item is labelled by k (2 to 5, k < M) of the --annotators, "
            "drawn at random; for alpha, fleiss or psa.",
            rich_help_panel="Several annotators",
        ),
    ] = None,
    confusion: Annotated[
        str | None,
        typer.Option(
            help="Confusion matrix P(label | true class), rows by ';' in category order "
            "('0.98,0.02;0.3,0.7': with one --prevalence the second row is the positive "
            "class), one for all annotators or one each separated by '|'.",
            rich_help_panel="Several annotators",
        ),
    ] = None,
    error_rate: Annotated[
        str | None,
        typer.Option(
            help="Each annotator's error rate P(label != truth), in [0, 0.5): one value for "
            "both or 'A,B'. Default min(0.05, prevalence/2, (1-prevalence)/2).",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    bias: Annotated[
        str | None,
        typer.Option(
            help="Direction of each annotator's errors in [-1, 1]: +1 all false positives, "
            "-1 all false negatives, 0 balanced (default). One value or 'A,B'.",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    ambiguity: Annotated[
        float | None,
        typer.Option(
            help="Share of items, in [0, 1], on which the annotators' errors share one "
            "difficulty (correlated errors). Default 0: independent errors given the truth.",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    union_rate: Annotated[
        float | None,
        typer.Option(
            help="Instead of an annotator model: the share of items at least one "
            "annotator flags, in (0, 1]. Needs --psa.",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    psa: Annotated[
        float | None,
        typer.Option(
            help="With --union-rate, or with --prevalence (the error rate is then solved for): "
            "the expected PSA, in [0, 1].",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    pilot_counts: Annotated[
        str | None,
        typer.Option(
            help="Instead of a model: pilot counts 'both,a_only,b_only,neither', planned "
            "as the true cell probabilities and under their uncertainty.",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    kappa: Annotated[
        float | None,
        typer.Option(
            help="With --prevalence: the expected Cohen's kappa, in (-1, 1); the common error "
            "rate that gives it is solved for (as with --prevalence and --psa).",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    pilot: Annotated[
        str | None,
        typer.Option(
            help="Instead of a model: a pilot label file (read as planner agree reads it); "
            "its 2x2 counts plan the study, with and without their uncertainty (three or more "
            "annotators and no --pair: the latent-class fit of them all, as planner fit; with "
            "--annotators M, their number, those M annotators under the fit's uncertainty).",
            rich_help_panel="Pilot file",
        ),
    ] = None,
    pair: Annotated[
        str | None,
        typer.Option(
            help="With --pilot or --labelled: the two annotators 'A,B' to plan from; without it "
            "a pilot of three or more annotators plans from the latent-class fit of all of them.",
            rich_help_panel="Pilot file",
        ),
    ] = None,
    positive: Annotated[
        str | None,
        typer.Option(
            help="With --pilot or --labelled: the positive label (0/1 and false/true labels "
            "need none).",
            rich_help_panel="Pilot file",
        ),
    ] = None,
    labelled: Annotated[
        str | None,
        typer.Option(
            help="A study in progress: the label file of the items labelled so far (read as "
            "--pilot reads one), kept in the final analysis; plans the items still to label. "
            "A file of 3 to 6 annotators without --pair is planned for all of them (--metric "
            "psa, fleiss, alpha, conger or kappa). With a scenario: its target, costs and "
            "named team, under the flags given. "
            "Example: plan --labelled examples/labelled-600.csv --width 0.08",
            rich_help_panel="Study in progress",
        ),
    ] = None,
    planned_items: Annotated[
        int | None,
        typer.Option(
            help="With --labelled: the original plan's total items; adds the assurance of "
            "continuing to it. Example: --planned-items 1280",
            rich_help_panel="Study in progress",
        ),
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(
            help="Label in batches of this many items, re-plan after each and stop when no "
            "more are asked for; simulates that procedure (its final coverage and total items), "
            "from the labels in hand with --labelled, else from the plan's model from the start. "
            "Example: plan --prevalence 0.08 --width 0.08 --batch-size 100",
            rich_help_panel="Study in progress",
        ),
    ] = None,
    stratum_col: Annotated[
        str | None,
        typer.Option(
            help="The column naming each item's stratum. With --labelled and a stratified "
            "--scenario: plans the remaining items per stratum of the scenario's population-"
            "weighted design. With --pilot and a stratified scenario: each stratum's model is "
            "its own pilot counts, for the design comparison. Example: plan --labelled "
            "examples/stratified-labels.csv --scenario unsupported-claims-enriched "
            "--stratum-col stratum",
            rich_help_panel="Study in progress",
        ),
    ] = None,
    layout: Annotated[str | None, reader_option("layout", pilot=True)] = None,
    item_col: Annotated[str | None, reader_option("item_col", pilot=True)] = None,
    annotator_col: Annotated[str | None, reader_option("annotator_col", pilot=True)] = None,
    label_col: Annotated[str | None, reader_option("label_col", pilot=True)] = None,
    annotator_cols: Annotated[
        str | None,
        reader_option(
            "annotator_cols",
            pilot=True,
            also="(In plan, --annotators is the number of annotators to plan for; "
            "--pilot-annotators, the old spelling of this option, still works.)",
        ),
    ] = None,
    pilot_annotators: Annotated[
        str | None, deprecated_annotator_cols(OLD_PILOT_ANNOTATOR_COLS)
    ] = None,
    file_format: Annotated[str | None, reader_option("file_format", pilot=True)] = None,
    missing: Annotated[str | None, reader_option("missing", pilot=True)] = None,
    engine: Annotated[str | None, reader_option("engine", pilot=True)] = None,
    memory_limit: Annotated[str | None, reader_option("memory_limit", pilot=True)] = None,
    temp_dir: Annotated[str | None, reader_option("temp_dir", pilot=True)] = None,
    items: Annotated[
        int | None,
        typer.Option(
            help="Fixed size: the precision that this many items buy (a precision section).",
            rich_help_panel="Fixed size",
        ),
    ] = None,
    hours: Annotated[
        float | None,
        typer.Option(
            help="Fixed size: the precision that this many person-hours buy, at the budget "
            "options' seconds per item, annotators per item and adjudication.",
            rich_help_panel="Fixed size",
        ),
    ] = None,
    budget: Annotated[
        float | None,
        typer.Option(
            help="Fixed size: the precision that this budget buys at --hourly-rate.",
            rich_help_panel="Fixed size",
        ),
    ] = None,
    curve: Annotated[
        bool,
        typer.Option(
            "--curve",
            metavar="",
            help="Add the assurance against items for the target width (a table; a JSON array).",
            rich_help_panel="Fixed size",
        ),
    ] = False,
    width: Annotated[
        float | None,
        typer.Option(
            help="Target half-width (upper - lower)/2 of the interval, in [0.001, 1). "
            f"Default {PlanSettings.width:g}.",
            rich_help_panel="Target",
        ),
    ] = None,
    confidence: Annotated[
        float | None,
        typer.Option(
            help="Confidence level of the interval, in (0, 1). "
            f"Default {PlanSettings.confidence_level:g}.",
            rich_help_panel="Target",
        ),
    ] = None,
    assurance: Annotated[
        float | None,
        typer.Option(
            help="Probability, in (0, 1), that the study reaches the width: 0.5 is "
            "the median study (default); use 0.8 or 0.9 for a guarantee.",
            rich_help_panel="Target",
        ),
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option(
            help="psa (default), kappa or both (the larger number of items decides); with "
            "several annotators psa (default for two categories), fleiss (default for more), "
            "alpha, conger or kappa (mean pairwise Cohen's kappa).",
            rich_help_panel="Target",
        ),
    ] = None,
    psa_method: Annotated[
        str | None,
        typer.Option(
            help="PSA interval: wilson (default; Wilson on J=a/U, mapped), clopper-pearson "
            "(conservative), jeffreys, wald or bootstrap (slow: ~30 s).",
            rich_help_panel="Target",
        ),
    ] = None,
    kappa_method: Annotated[
        str | None,
        typer.Option(
            help="Kappa interval: score (default; for Cohen's kappa, bias allowed), profile "
            "(profile likelihood, agree's default; slower), gof (Donner-Eliasziw, for the "
            "intraclass kappa), fce (Wald) or bootstrap.",
            rich_help_panel="Target",
        ),
    ] = None,
    annotators_per_item: Annotated[
        int | None,
        typer.Option(help="Labels per item, for the budget. Default 2.", rich_help_panel="Budget"),
    ] = None,
    seconds_per_item: Annotated[
        float | None,
        typer.Option(
            help="Seconds one annotator spends on one item. "
            f"Default {PlanSettings.seconds_per_item:g}.",
            rich_help_panel="Budget",
        ),
    ] = None,
    adjudication_seconds: Annotated[
        float | None,
        typer.Option(
            help="Seconds to adjudicate one contested item. Default 0: no adjudication.",
            rich_help_panel="Budget",
        ),
    ] = None,
    hourly_rate: Annotated[
        float | None,
        typer.Option(help="Cost of one person-hour; adds a cost line.", rich_help_panel="Budget"),
    ] = None,
    replicates: Annotated[
        int | None,
        typer.Option(
            help="Simulated studies per evaluated sample size, in [100, 1e6]. "
            f"Default {PlanSettings.replicates}.",
            rich_help_panel="Simulation",
        ),
    ] = None,
    max_items: Annotated[
        int | None,
        typer.Option(
            help="Largest number of items searched (default 1e7); beyond it the target is "
            "unreachable (exit 1).",
            rich_help_panel="Simulation",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed for the random generator; drawn and printed if not given.",
            rich_help_panel="Simulation",
        ),
    ] = None,
    quiet: Quiet = False,
    json_output: JsonFlag = False,
    debug: Annotated[
        bool,
        typer.Option("--debug", metavar="", help=DEBUG_HELP, is_eager=True, callback=set_debug),
    ] = False,
    version: VersionFlag = False,
) -> None:
    """Size a two-annotator agreement study: items, union positives, hours and cost."""
    from planner.application.several_options import asks_for_several
    from planner.cli.plan_labelled import (
        batches_without_labelled,
        plan_labelled,
        refuse_labelled_only,
    )
    from planner.cli.plan_raters import plan_raters, single_prevalence

    if labelled is not None:
        return plan_labelled(locals(), reader_from_flags(locals()))
    refuse_labelled_only(locals(), raters=asks_for_several(locals()))
    if asks_for_several(locals()):
        return plan_raters(locals())
    from planner.application.plan_options import PlanOptions, run_plan

    if scenario and scenario_option:
        raise InvalidInput("give the scenario file once: as the argument or with --scenario")
    reader = reader_from_flags(locals())
    options = PlanOptions(
        prevalence=single_prevalence(prevalence),
        error_rate=parse_floats(error_rate, "--error-rate"),
        bias=parse_floats(bias, "--bias"),
        ambiguity=ambiguity,
        union_rate=union_rate,
        psa=psa,
        kappa=kappa,
        pilot_counts=parse_ints(pilot_counts, "--pilot-counts") if pilot_counts else None,
        **pilot_options(pilot, pair, positive, reader, bool(scenario or scenario_option)),
        width=width,
        confidence=confidence,
        assurance=assurance,
        metric=metric,
        psa_method=psa_method,
        kappa_method=kappa_method,
        annotators_per_item=annotators_per_item,
        seconds_per_item=seconds_per_item,
        adjudication_seconds=adjudication_seconds,
        hourly_rate=hourly_rate,
        replicates=replicates,
        max_items=max_items,
        seed=seed,
        items=items,
        hours=hours,
        budget=budget,
        curve=curve or None,
        stratum_col=stratum_col,
    )
    path = scenario or scenario_option
    said: list[str] = []
    with progress_bar("planning", disabled=json_output or quiet) as progress:
        try:
            result = run_plan(path, options, seed_or_draw, said, progress)
        except InvalidInput as exc:  # a pilot file's layout or role conflict: plan's flags
            raise reader_error(exc) from None
    batches = batches_without_labelled(result, batch_size)
    sections = _scenario_sections(path, result, seconds_per_item, hourly_rate)
    _show_plan(result, sections, said, json_output, batches)


class PlanSections(NamedTuple):
    """What a scenario adds to ``plan``'s answer: the schedule of its ``[team]`` and the
    Alt-Test plan of its ``[alt_test]`` (each None without)."""

    schedule: ScheduleResult | None = None
    alt_test: AltTestPlanSummary | None = None


def _scenario_sections(
    path: str | None,
    result: Plan | Comparison,
    seconds_per_item: float | None,
    hourly_rate: float | None,
) -> PlanSections:
    """The schedule and Alt-Test sections of the scenario at ``path`` (none without one),
    priced with the command line's ``seconds_per_item`` and ``hourly_rate``."""
    if not path:
        return PlanSections()
    from planner.application.alt_test_options import HumanEffort, alt_test_for_plan
    from planner.application.schedule_options import schedule_for_plan

    effort = HumanEffort(seconds_per_item, hourly_rate)
    return PlanSections(
        schedule_for_plan(path, result), alt_test_for_plan(path, result.seed, effort)
    )


def _show_plan(
    result: Plan | Comparison,
    sections: PlanSections,
    said: list[str],
    json_output: bool,
    batches: Any = None,
) -> None:
    """Print the plan (or the comparison) as tables, or as one JSON document, with the
    scenario's ``sections``; with ``batches`` (``--batch-size``), the batch procedure after
    the plan."""
    from planner.sizing.plan import Plan

    schedule = sections.schedule
    if json_output:
        for message in said:  # options not used: the tables show them, JSON readers see them
            note(message)
        from planner.output.alt_test_json import with_alt_test
        from planner.output.jsonout import plan_result_document, with_batches

        document = with_batches(plan_result_document(result, schedule), batches)
        emit_json(with_alt_test(document, sections.alt_test))
        return
    from planner.output.render import TerminalConsole as Console
    from planner.output.render import render_comparison, render_plan, render_schedule

    console = Console(markup=False)  # labels and names from files are text, never markup
    if not isinstance(result, Plan):  # a comparison of designs
        render_comparison(result, console)
    else:
        from planner.output.render_precision import render_pilot, render_plan_sections

        render_pilot(result, console)
        render_plan(result, console)
        render_plan_sections(result, console)
    if schedule is not None:
        render_schedule(schedule, console)
    if sections.alt_test is not None:
        from planner.output.render_alt_test import render_alt_test_section

        render_alt_test_section(sections.alt_test, console)
    if batches is not None:
        from planner.output.render_midstudy import render_batches

        render_batches(batches, console)


PLAN_HELP = (
    "Size a two-annotator agreement study: items, union positives, hours and cost.\n\n"
    "Simulates studies of the annotator pair as multinomial counts and finds the smallest "
    "number of items whose confidence interval for PSA (and/or kappa) has half-width at most "
    "--width with probability --assurance. Describe the pair by --prevalence (with optional "
    "--error-rate, --bias, --ambiguity, or --psa/--kappa to solve for the error rate), by "
    "--union-rate with --psa, by --pilot-counts or by a pilot label file (--pilot; both also "
    "planned under the pilot's uncertainty); or give a scenario file, whose strata (if any) are "
    "compared under uniform, enriched and population-weighted designs. --items, --hours or "
    "--budget add the precision a study of fixed size buys."
)
app.command("plan", help=PLAN_HELP, epilog=PLAN_EPILOG)(plan_command)
plan_app.command(cls=_Command, help=PLAN_HELP, epilog=PLAN_EPILOG)(plan_command)
app.command("agree", help=AGREE_HELP, epilog=AGREE_EPILOG)(agree_command)
app.command("schedule", help=SCHEDULE_HELP, epilog=SCHEDULE_EPILOG)(schedule_command)
app.command("report", help=REPORT_HELP, epilog=REPORT_EPILOG)(report_command)
app.command("fit", help=FIT_HELP, epilog=FIT_EPILOG)(fit_command)

from planner.cli.compat import compat_app  # noqa: E402 - the compat group

app.add_typer(compat_app, name="compat")

from planner.cli.alt_test import ALT_TEST_EPILOG, ALT_TEST_HELP, alt_test_command  # noqa: E402

app.command("alt-test", help=ALT_TEST_HELP, epilog=ALT_TEST_EPILOG)(alt_test_command)


SCENARIOS_HELP = (
    "List the scenarios that come with planner: give a NAME wherever a scenario file goes "
    "(plan NAME, planner schedule NAME, planner report NAME), from any folder."
)


def scenarios_command(
    json_output: Annotated[
        bool, typer.Option("--json", metavar="", help="Print one JSON document instead of a table.")
    ] = False,
) -> None:
    from planner.data.scenario import load_scenario, shipped_scenarios

    rows: list[dict[str, object]] = []
    for name, path in shipped_scenarios().items():
        scenario = load_scenario(path)
        rows.append(
            {
                "name": name,
                "strata": len(scenario.strata),
                "team": bool(scenario.team),
                "description": scenario.description,
                "path": str(path),
            }
        )
    if json_output:
        from planner.output.jsonout import scenarios_document

        emit_json(scenarios_document(rows))
        return
    from rich.table import Table

    from planner.output.render import TerminalConsole as Console

    table = Table("name", "strata", "team", "description", title="Shipped scenarios")
    for row in rows:
        first = " ".join(str(row["description"]).split()).split(". ")[0]
        table.add_row(str(row["name"]), str(row["strata"]), "yes" if row["team"] else "", first)
    Console(markup=False).print(table)


app.command("scenarios", help=SCENARIOS_HELP)(scenarios_command)


EXAMPLES_HELP = (
    "List the example label files that come with planner, or copy them into a folder with "
    "--copy, so that the documentation's commands (which read examples/labels.csv and the "
    "others) run from any folder."
)
EXAMPLES_EPILOG = (
    "Examples:\n\n"
    "  planner examples\n\n"
    "  planner examples --copy examples && planner agree examples/labels.csv "
    "--positive unsupported"
)


def examples_command(
    copy: Annotated[
        Path | None,
        typer.Option(
            "--copy",
            metavar="DIR",
            help="Copy every example file into DIR (made if missing); existing files are "
            "refused unless --force.",
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="With --copy: replace example files already in DIR.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    from planner import examples

    if copy is not None:
        with flags_named({"destination": "--copy", "overwrite=True": "--force"}):
            written = examples.copy_to(copy, overwrite=force)
    else:
        written = [examples.path(name) for name in examples.names()]
    rows = [
        {"name": p.name, "description": examples.DESCRIPTIONS[p.name], "path": str(p)}
        for p in written
    ]
    if json_output:
        from planner.output.jsonout import examples_document

        emit_json(examples_document(rows))
        return
    from rich.console import Console
    from rich.table import Table

    where = written[0].parent if written else examples.folder()
    verb = "copied into" if copy is not None else "in"
    table = Table("name", "what it holds", title=f"Example files {verb} {where}")
    for row in rows:
        table.add_row(row["name"], row["description"])
    Console(markup=False).print(table)


app.command("examples", help=EXAMPLES_HELP, epilog=EXAMPLES_EPILOG)(examples_command)
app.command("app", help=APP_HELP, epilog=APP_EPILOG)(app_command)


def main() -> None:
    """Entry point of the ``planner`` script.

    ``planner plan ...`` runs the ``plan`` command alone (the same command, help and errors
    as under the group, whose other commands then need not be built at start-up).
    """
    import os
    import sys

    if sys.argv[1:2] == ["plan"] and "_PLANNER_COMPLETE" not in os.environ:
        del sys.argv[1]
        typer.main.get_command(plan_app)(prog_name="planner plan")
        return
    typer.main.get_command(app)(prog_name="planner")


def plan_main() -> None:
    """Entry point of the ``plan`` script."""
    typer.main.get_command(plan_app)(prog_name="plan")
