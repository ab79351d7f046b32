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


def _build_model(
    prevalence: float | None,
    error_rate: str | None,
    bias: str | None,
    ambiguity: float,
    union_rate: float | None,
    psa: float | None,
    pilot_counts: str | None,
):  # type: ignore[no-untyped-def]
    from planner import model

    given = {
        "--prevalence": prevalence is not None,
        "--union-rate/--psa": union_rate is not None or psa is not None,
        "--pilot-counts": pilot_counts is not None,
    }
    chosen = [name for name, on in given.items() if on]
    if len(chosen) != 1:
        raise InvalidInput(
            "give exactly one of --prevalence (annotator model), --union-rate with --psa, "
            f"or --pilot-counts; got {', '.join(chosen) if chosen else 'none'}"
        )
    annotator_options = error_rate is not None or bias is not None or ambiguity != 0.0
    if prevalence is None and annotator_options:
        raise InvalidInput("--error-rate, --bias and --ambiguity need --prevalence")
    if prevalence is not None:
        return model.pair_from_annotators(
            prevalence,
            _floats(error_rate, "--error-rate"),
            _floats(bias, "--bias") or 0.0,
            ambiguity,
        )
    if pilot_counts is not None:
        return model.pair_from_counts(_ints(pilot_counts, "--pilot-counts"))
    if union_rate is None or psa is None:
        raise InvalidInput("--union-rate and --psa go together: give both")
    return model.pair_from_union_rate(union_rate, psa)


PLAN_EPILOG = """
Examples:

  plan --prevalence 0.08 --width 0.08

  plan --prevalence 0.08 --error-rate 0.03,0.06 --bias 0.5,-0.5 --metric both

  plan --pilot-counts 6,21,14,459 --width 0.08 --assurance 0.9 --json

  plan --union-rate 0.082 --psa 0.5 --width 0.05 --hourly-rate 40
"""


def plan_command(
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
        float,
        typer.Option(
            help="Share of items, in [0, 1], on which the annotators' errors share one "
            "difficulty (correlated errors). Default 0: independent errors given the truth.",
            rich_help_panel="Annotator model",
        ),
    ] = 0.0,
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
        float,
        typer.Option(
            help="Target half-width (upper - lower)/2 of the interval, in (0, 1).",
            rich_help_panel="Target",
        ),
    ] = 0.08,
    confidence: Annotated[
        float,
        typer.Option(help="Confidence level of the interval, in (0, 1).", rich_help_panel="Target"),
    ] = 0.95,
    assurance: Annotated[
        float,
        typer.Option(
            help="Probability, in (0, 1), that the study reaches the width: 0.5 is "
            "the median study; use 0.8 or 0.9 for a guarantee.",
            rich_help_panel="Target",
        ),
    ] = 0.5,
    metric: Annotated[
        str,
        typer.Option(
            help="psa, kappa or both (the larger number of items decides).",
            rich_help_panel="Target",
        ),
    ] = "psa",
    psa_method: Annotated[
        str,
        typer.Option(
            help="PSA interval: wilson (Wilson on J=a/U, mapped), clopper-pearson "
            "(conservative), jeffreys, wald or bootstrap.",
            rich_help_panel="Target",
        ),
    ] = "wilson",
    kappa_method: Annotated[
        str,
        typer.Option(
            help="Kappa interval: gof (Donner-Eliasziw), fce (Wald) or bootstrap.",
            rich_help_panel="Target",
        ),
    ] = "gof",
    annotators_per_item: Annotated[
        int, typer.Option(help="Labels per item, for the budget.", rich_help_panel="Budget")
    ] = 2,
    seconds_per_item: Annotated[
        float,
        typer.Option(help="Seconds one annotator spends on one item.", rich_help_panel="Budget"),
    ] = 90.0,
    adjudication_seconds: Annotated[
        float,
        typer.Option(
            help="Seconds to adjudicate one contested item (0: none).", rich_help_panel="Budget"
        ),
    ] = 0.0,
    hourly_rate: Annotated[
        float | None,
        typer.Option(help="Cost of one person-hour; adds a cost line.", rich_help_panel="Budget"),
    ] = None,
    replicates: Annotated[
        int,
        typer.Option(
            help="Simulated studies per evaluated sample size, in [100, 1e6].",
            rich_help_panel="Simulation",
        ),
    ] = 4000,
    max_items: Annotated[
        int,
        typer.Option(
            help="Largest number of items searched; beyond it the target is unreachable (exit 1).",
            rich_help_panel="Simulation",
        ),
    ] = 10_000_000,
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
    from planner.plan import PlanSettings, make_plan

    model = _build_model(prevalence, error_rate, bias, ambiguity, union_rate, psa, pilot_counts)
    settings = PlanSettings(
        width=width,
        confidence_level=confidence,
        assurance=assurance,
        metric=metric,
        psa_method=psa_method,
        kappa_method=kappa_method,
        n_reps=replicates,
        max_items=max_items,
        annotators_per_item=annotators_per_item,
        seconds_per_item=seconds_per_item,
        adjudication_seconds=adjudication_seconds,
        hourly_rate=hourly_rate,
    )
    result = make_plan(model, settings, seed=_seed(seed))
    if json_output:
        _emit_json(result.to_dict())
        return
    from rich.console import Console

    from planner.render import render_plan

    render_plan(result, Console())


PLAN_HELP = (
    "Size a two-annotator agreement study: items, union positives, hours and cost.\n\n"
    "Simulates studies of the annotator pair as multinomial counts and finds the smallest "
    "number of items whose confidence interval for PSA (and/or kappa) has half-width at most "
    "--width with probability --assurance. Describe the pair by --prevalence (with optional "
    "--error-rate, --bias, --ambiguity), by --union-rate with --psa, or by --pilot-counts."
)
app.command("plan", help=PLAN_HELP, epilog=PLAN_EPILOG)(plan_command)
plan_app.command(cls=PlannerCommand, help=PLAN_HELP, epilog=PLAN_EPILOG)(plan_command)


def main() -> None:
    """Entry point of the ``planner`` script."""
    typer.main.get_command(app)(prog_name="planner")


def plan_main() -> None:
    """Entry point of the ``plan`` script."""
    typer.main.get_command(plan_app)(prog_name="plan")
