"""The command-line interface: ``planner`` (with subcommands) and ``plan``.

Each command parses its options, makes the one random generator from ``--seed`` (or draws
a seed and prints it), calls one library function and renders a Rich table or, with
``--json``, exactly one JSON document on stdout. Errors are one line on stderr: exit 2 for
a usage error (an option outside its valid range, contradictory options, a bad file) and
1 for a planner error (an unreachable target); never a traceback.
"""

from __future__ import annotations

import json
import secrets
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from planner.errors import InvalidInput, PlannerError


def _fail(message: str, code: int) -> None:
    typer.secho(f"error: {message}", fg="red", err=True)
    sys.exit(code)


class _OneLineErrors:
    """Mixin for Typer's click classes: every error is one line, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):  # type: ignore[no-untyped-def]
        try:
            rv = super().main(  # type: ignore[misc]
                args=args,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
        except typer.TyperException as exc:  # Typer's click errors: usage, bad values, files
            if type(exc).__name__ == "NoArgsIsHelpError":  # help was printed already
                sys.exit(2)
            _fail(exc.format_message(), exc.exit_code)
        except typer.Abort:
            _fail("aborted", 1)
        except InvalidInput as exc:
            _fail(str(exc), 2)
        except PlannerError as exc:
            _fail(str(exc), 1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


class PlannerGroup(_OneLineErrors, TyperGroup):
    """The ``planner`` command group."""


class PlannerCommand(_OneLineErrors, TyperCommand):
    """A single command (the ``plan`` script)."""


app = typer.Typer(
    cls=PlannerGroup,
    help="Plan and measure inter-annotator agreement studies (PSA, kappa) on rare labels.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
plan_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.callback()
def _planner() -> None:
    """Plan and measure inter-annotator agreement studies (PSA, kappa) on rare labels."""


def _floats(text: str | None, option: str) -> tuple[float, ...] | None:
    """Parse ``"0.05"`` or ``"0.03,0.07"``."""
    if text is None:
        return None
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise InvalidInput(
            f"{option} takes a number or comma-separated numbers, got {text!r}"
        ) from None


def _ints(text: str, option: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise InvalidInput(f"{option} takes comma-separated whole numbers, got {text!r}") from None


def _seed(seed: int | None) -> int:
    if seed is None:
        return secrets.randbits(32)
    if seed < 0:
        raise InvalidInput(f"--seed must be a non-negative integer, got {seed}")
    return seed


def _emit_json(document: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(document, indent=2, allow_nan=False) + "\n")


PLAN_EPILOG = """
Examples:

  plan --prevalence 0.08 --width 0.08

  plan --prevalence 0.08 --error-rate 0.03,0.06 --bias 0.5,-0.5 --metric both

  plan --pilot-counts 6,21,14,459 --width 0.08 --assurance 0.9 --json

  plan --union-rate 0.082 --psa 0.5 --width 0.05 --hourly-rate 40

  plan scenarios/unsupported-claims-enriched.toml --assurance 0.9
"""


def plan_command(
    scenario: Annotated[
        str | None,
        typer.Argument(
            help="Scenario file (TOML, see scenarios/); options given here override it.",
            show_default=False,
        ),
    ] = None,
    scenario_option: Annotated[
        str | None,
        typer.Option("--scenario", help="Scenario file, as the argument.", show_default=False),
    ] = None,
    prevalence: Annotated[
        float | None,
        typer.Option(
            help="True prevalence of the positive label, in (0, 1).",
            rich_help_panel="Annotator model",
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
            help="With --union-rate: the expected PSA, in [0, 1].",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    pilot_counts: Annotated[
        str | None,
        typer.Option(
            help="Instead of a model: pilot counts 'both,a_only,b_only,neither', "
            "used as the true cell probabilities.",
            rich_help_panel="Annotator model",
        ),
    ] = None,
    width: Annotated[
        float | None,
        typer.Option(
            help="Target half-width (upper - lower)/2 of the interval, in (0, 1). Default 0.08.",
            rich_help_panel="Target",
        ),
    ] = None,
    confidence: Annotated[
        float | None,
        typer.Option(
            help="Confidence level of the interval, in (0, 1). Default 0.95.",
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
            help="psa (default), kappa or both (the larger number of items decides).",
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
            help="Kappa interval: gof (default; Donner-Eliasziw), fce (Wald) or bootstrap.",
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
            help="Seconds one annotator spends on one item. Default 90.", rich_help_panel="Budget"
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
            help="Simulated studies per evaluated sample size, in [100, 1e6]. Default 4000.",
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
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON document instead of tables.")
    ] = False,
) -> None:
    """Size a two-annotator agreement study: items, union positives, hours and cost."""
    from planner.request import run_plan

    if scenario and scenario_option:
        raise InvalidInput("give the scenario file once: as the argument or with --scenario")
    cli = {
        "prevalence": prevalence,
        "error_rate": _floats(error_rate, "--error-rate"),
        "bias": _floats(bias, "--bias"),
        "ambiguity": ambiguity,
        "union_rate": union_rate,
        "psa": psa,
        "pilot_counts": _ints(pilot_counts, "--pilot-counts") if pilot_counts else None,
        "width": width,
        "confidence": confidence,
        "assurance": assurance,
        "metric": metric,
        "psa_method": psa_method,
        "kappa_method": kappa_method,
        "annotators_per_item": annotators_per_item,
        "seconds_per_item": seconds_per_item,
        "adjudication_seconds": adjudication_seconds,
        "hourly_rate": hourly_rate,
        "replicates": replicates,
        "max_items": max_items,
        "seed": seed,
    }
    from planner.request import schedule_for_plan

    path = scenario or scenario_option
    result = run_plan(path, cli, _seed)
    schedule = schedule_for_plan(path, result)
    if json_output:
        doc = result.to_dict()
        if schedule is not None:
            doc["schedule"] = _json_doc(schedule.to_dict())
        _emit_json(doc)
        return
    from rich.console import Console

    from planner.render import render_comparison, render_plan, render_schedule

    console = Console()
    if hasattr(result, "designs"):
        render_comparison(result, console)
    else:
        render_plan(result, console)
    if schedule is not None:
        render_schedule(schedule, console)


PLAN_HELP = (
    "Size a two-annotator agreement study: items, union positives, hours and cost.\n\n"
    "Simulates studies of the annotator pair as multinomial counts and finds the smallest "
    "number of items whose confidence interval for PSA (and/or kappa) has half-width at most "
    "--width with probability --assurance. Describe the pair by --prevalence (with optional "
    "--error-rate, --bias, --ambiguity), by --union-rate with --psa, or by --pilot-counts; or "
    "give a scenario file, whose strata (if any) are compared under uniform, enriched and "
    "population-weighted designs."
)
app.command("plan", help=PLAN_HELP, epilog=PLAN_EPILOG)(plan_command)
plan_app.command(cls=PlannerCommand, help=PLAN_HELP, epilog=PLAN_EPILOG)(plan_command)


AGREE_EPILOG = """
Examples:

  planner agree labels.csv --positive unsupported

  planner agree labels.parquet --item-col doc --annotator-col rater --label-col verdict

  planner agree wide.csv --layout wide --annotators alice,bob,carol --by week --json

  planner agree --counts 6,21,14,459 --contested contested.csv

  planner agree scores.tsv --level ordinal --order low,medium,high
"""

AGREE_HELP = (
    "Measure agreement on a label file: coefficients with intervals, a decision against "
    "thresholds fixed in advance, and diagnostics.\n\n"
    "Reads CSV, TSV, Parquet or JSON Lines, long (item, annotator, label) or wide (one "
    "column per annotator), missing ratings allowed; or a 2x2 table by --counts. Reports "
    "PSA/NSA (with a positive label), observed agreement, Cohen's kappa (two annotators), "
    "Fleiss' kappa, Krippendorff's alpha, Gwet's AC1/AC2, Brennan-Prediger, specific "
    "agreement per category, prevalence and Byrt's indices."
)


def _write_atomically(path: str, header: list[str], rows: list[list[Any]]) -> None:
    """Write a CSV through a temporary file in the same folder, then move it into place."""
    import csv
    import os
    import tempfile
    from pathlib import Path

    target = Path(path)
    if not target.parent.is_dir():
        raise InvalidInput(f"--contested {path}: folder {target.parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            writer.writerows(rows)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@app.command("agree", help=AGREE_HELP, epilog=AGREE_EPILOG)
def agree_command(
    file: Annotated[
        str | None,
        typer.Argument(help="Label file (.csv, .tsv, .parquet, .jsonl).", show_default=False),
    ] = None,
    counts: Annotated[
        str | None,
        typer.Option(
            help="Instead of a file: a 2x2 table 'both,a_only,b_only,neither'.",
            rich_help_panel="Input",
        ),
    ] = None,
    layout: Annotated[
        str,
        typer.Option(
            help="long, wide or auto (long when the item, annotator and label columns exist).",
            rich_help_panel="Input",
        ),
    ] = "auto",
    item_col: Annotated[
        str, typer.Option(help="Item id column.", rich_help_panel="Input")
    ] = "item",
    annotator_col: Annotated[
        str, typer.Option(help="Annotator column (long layout).", rich_help_panel="Input")
    ] = "annotator",
    label_col: Annotated[
        str, typer.Option(help="Label column (long layout).", rich_help_panel="Input")
    ] = "label",
    annotators: Annotated[
        str | None,
        typer.Option(
            help="Wide layout: comma-separated annotator columns (default: "
            "all but the item and --by columns).",
            rich_help_panel="Input",
        ),
    ] = None,
    file_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="csv, tsv, parquet or jsonl (default: from the file suffix).",
            rich_help_panel="Input",
        ),
    ] = None,
    positive: Annotated[
        str | None,
        typer.Option(
            help="The positive label, for PSA/NSA, prevalence and the "
            "decision (0/1 and false/true labels need none).",
            rich_help_panel="Measures",
        ),
    ] = None,
    level: Annotated[
        str, typer.Option(help="nominal, ordinal, interval or ratio.", rich_help_panel="Measures")
    ] = "nominal",
    weights: Annotated[
        str,
        typer.Option(
            help="Agreement weights for ordinal/interval/ratio levels: quadratic or linear.",
            rich_help_panel="Measures",
        ),
    ] = "quadratic",
    order: Annotated[
        str | None,
        typer.Option(
            help="Category order for ordinal text labels, lowest first, comma-separated.",
            rich_help_panel="Measures",
        ),
    ] = None,
    confidence: Annotated[
        float,
        typer.Option(
            help="Confidence level of every interval, in (0, 1).", rich_help_panel="Measures"
        ),
    ] = 0.95,
    bootstrap: Annotated[
        bool,
        typer.Option(
            "--bootstrap",
            help="Use the item bootstrap for every interval.",
            rich_help_panel="Measures",
        ),
    ] = False,
    n_boot: Annotated[
        int, typer.Option(help="Bootstrap resamples (>= 100).", rich_help_panel="Measures")
    ] = 1000,
    kappa_method: Annotated[
        str | None,
        typer.Option(
            help="Cohen's kappa interval: gof (binary default), fce, bootstrap.",
            rich_help_panel="Measures",
        ),
    ] = None,
    alpha_min: Annotated[
        float,
        typer.Option(
            help="Report P(alpha < alpha_min) from the bootstrap.", rich_help_panel="Measures"
        ),
    ] = 0.8,
    decide_on: Annotated[
        str | None,
        typer.Option(
            help="Coefficient the decision reads (default psa with a "
            "positive label, else krippendorff_alpha).",
            rich_help_panel="Decision",
        ),
    ] = None,
    not_demonstrated_below: Annotated[
        float,
        typer.Option(
            help="Upper interval limit below this: not demonstrated.", rich_help_panel="Decision"
        ),
    ] = 0.40,
    demonstrated_at: Annotated[
        float,
        typer.Option(
            help="Lower interval limit at or above this: demonstrated.", rich_help_panel="Decision"
        ),
    ] = 0.65,
    by: Annotated[
        str | None,
        typer.Option(
            help="Grouping column: agreement per group (week, stratum, length bucket).",
            rich_help_panel="Diagnostics",
        ),
    ] = None,
    contested: Annotated[
        str | None,
        typer.Option(
            help="Write the contested items (ratings differ) to this CSV.",
            rich_help_panel="Diagnostics",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed for the bootstrap; drawn and printed if not given.")
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON document instead of tables.")
    ] = False,
) -> None:
    from planner.labels import ratings_from_counts, read_labels
    from planner.measure import contested_rows, measure_agreement

    if (file is None) == (counts is None):
        raise InvalidInput("give a label FILE or --counts both,a_only,b_only,neither (one of them)")
    if counts is not None:
        cells = _ints(counts, "--counts")
        if len(cells) != 4:
            raise InvalidInput(
                f"--counts takes four numbers both,a_only,b_only,neither; got {counts!r}"
            )
        ratings = ratings_from_counts(*cells)
    else:
        ratings = read_labels(
            file,
            layout=layout,
            item_col=item_col,
            annotator_col=annotator_col,
            label_col=label_col,
            annotator_cols=annotators.split(",") if annotators else None,
            by=(by,) if by else (),
            order=order.split(",") if order else None,
            file_format=file_format,
        )
    report = measure_agreement(
        ratings,
        positive=positive,
        level=level,
        confidence_level=confidence,
        bootstrap=bootstrap,
        n_boot=n_boot,
        alpha_min=alpha_min,
        decide_on=decide_on,
        not_demonstrated_below=not_demonstrated_below,
        demonstrated_at=demonstrated_at,
        kappa_method=kappa_method,
        weights=weights,
        by=by,
        seed=_seed(seed),
    )
    if contested:
        header, rows = contested_rows(ratings)
        _write_atomically(contested, header, rows)
    if json_output:
        doc = report.to_dict()
        doc["contested_file"] = contested
        _emit_json(doc)
        return
    from rich.console import Console

    from planner.render import render_agreement

    console = Console()
    render_agreement(report, console)
    if contested:
        console.print(f"contested items written to {contested}")


SCHEDULE_HELP = (
    "Simulate the labelling operation (SimPy): calendar days, person-hours, utilisation and "
    "cost for a team, over many runs.\n\n"
    "Items come from planning the scenario (or the model options, as for plan), or from "
    "--items. Team settings come from the scenario's [team] table, overridden here."
)
SCHEDULE_EPILOG = """
Examples:

  planner schedule scenarios/unsupported-claims.toml

  planner schedule --items 2000 --annotators 5 --hours-per-day 4 --adjudication-seconds 120

  planner schedule scenarios/clinical-chart-review.toml --design enriched --json
"""


@app.command("schedule", help=SCHEDULE_HELP, epilog=SCHEDULE_EPILOG)
def schedule_command(
    scenario: Annotated[
        str | None, typer.Argument(help="Scenario file (TOML).", show_default=False)
    ] = None,
    items: Annotated[
        int | None, typer.Option(help="Items to label (instead of planning them).")
    ] = None,
    design: Annotated[
        str, typer.Option(help="For stratified scenarios: uniform, enriched or weighted.")
    ] = "weighted",
    prevalence: Annotated[float | None, typer.Option(help="As for plan.")] = None,
    pilot_counts: Annotated[str | None, typer.Option(help="As for plan.")] = None,
    width: Annotated[float | None, typer.Option(help="As for plan.")] = None,
    assurance: Annotated[float | None, typer.Option(help="As for plan.")] = None,
    annotators_per_item: Annotated[
        int | None, typer.Option(help="Distinct annotators per item. Default 2.")
    ] = None,
    seconds_per_item: Annotated[
        float | None, typer.Option(help="Mean seconds per label. Default 90.")
    ] = None,
    adjudication_seconds: Annotated[
        float | None, typer.Option(help="Mean seconds per adjudicated item. Default 0.")
    ] = None,
    contested_rate: Annotated[
        float | None, typer.Option(help="With --items: share of items adjudicated. Default 0.")
    ] = None,
    hourly_rate: Annotated[float | None, typer.Option(help="Cost of one person-hour.")] = None,
    annotators: Annotated[int | None, typer.Option(help="Team size. Default 5.")] = None,
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
        bool, typer.Option("--json", help="Print one JSON document instead of tables.")
    ] = False,
) -> None:
    from planner.request import run_schedule

    if contested_rate is not None and not 0 <= contested_rate <= 1:
        raise InvalidInput(f"--contested-rate must be in [0, 1], got {contested_rate}")
    cli = {
        "prevalence": prevalence,
        "pilot_counts": _ints(pilot_counts, "--pilot-counts") if pilot_counts else None,
        "width": width,
        "assurance": assurance,
        "annotators_per_item": annotators_per_item,
        "seconds_per_item": seconds_per_item,
        "adjudication_seconds": adjudication_seconds,
        "hourly_rate": hourly_rate,
        "contested_rate": contested_rate,
        "seed": seed,
    }
    team = {
        "annotators": annotators,
        "hours_per_day": hours_per_day,
        "days_per_week": days_per_week,
        "time_spread": time_spread,
        "attention_check_share": attention_check_share,
        "attention_fail_rate": attention_fail_rate,
        "requalification_hours": requalification_hours,
        "adjudicators": adjudicators,
        "runs": runs,
    }
    from rich.progress import Progress

    with Progress(transient=True, disable=json_output) as bar:
        task = bar.add_task("simulating runs", total=None)
        _, result = run_schedule(
            scenario,
            cli,
            team,
            _seed,
            items=items,
            design=design,
            progress=lambda done: bar.update(task, completed=done),
        )
    if json_output:
        _emit_json(_json_doc(result.to_dict()))
        return
    from rich.console import Console

    from planner.render import render_schedule

    render_schedule(result, Console())


REPORT_HELP = (
    "Write a report of each scenario to reports/NAME/: Markdown and a self-contained HTML "
    "page with the assumptions, the plan, the design comparison, the budget, the schedule "
    "and figures. An existing report is replaced only with --force."
)


@app.command(
    "report",
    help=REPORT_HELP,
    epilog="""
Examples:

  planner report scenarios/unsupported-claims.toml

  planner report scenarios/*.toml --force
""",
)
def report_command(
    scenarios: Annotated[list[str], typer.Argument(help="Scenario files (TOML).")],
    out: Annotated[str, typer.Option(help="Folder that holds the reports.")] = "reports",
    force: Annotated[bool, typer.Option("--force", help="Replace existing reports.")] = False,
) -> None:
    from planner.report import write_report
    from planner.scenario import load_scenario

    if not force:  # refuse before doing any work
        from pathlib import Path

        for path in scenarios:
            dest = Path(out) / load_scenario(path).name
            if dest.exists():
                raise InvalidInput(f"{dest} exists; use --force to replace it")
    for path in scenarios:
        folder = write_report(path, out, force=force)
        typer.echo(f"wrote {folder}/report.md and {folder}/report.html")


def _json_doc(doc: dict[str, Any]) -> dict[str, Any]:
    from planner.jsonout import json_ready

    return json_ready(doc)


def main() -> None:
    """Entry point of the ``planner`` script."""
    typer.main.get_command(app)(prog_name="planner")


def plan_main() -> None:
    """Entry point of the ``plan`` script."""
    typer.main.get_command(plan_app)(prog_name="plan")
