"""The ``alt-test`` command: can an LLM judge replace a human annotator (and how many items)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from planner.cli.common import (
    emit_json,
    flags_named,
    note,
    parse_floats,
    progress_bar,
    seed_or_draw,
)
from planner.cli.options import (
    AnnotatorCol,
    AnnotatorCols,
    Engine,
    FileFormat,
    ItemCol,
    JsonFlag,
    LabelCol,
    Layout,
    MemoryLimit,
    Missing,
    OldAnnotatorCols,
    OptionalLabelFile,
    Quiet,
    TempDir,
    read_options,
    read_ratings,
)
from planner.errors import InvalidInput
from planner.operations.budget import SECONDS_PER_ITEM
from planner.sizing.alt_test_settings import (
    ERROR_DRAW,
    HUMAN_ERROR,
    LLM_ERROR,
    AltTestPlanSettings,
)

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from planner.measuring.alt_test import AltTestResult, LLMVerdict
    from planner.sizing.alt_test_plan import AltTestModel, AltTestPlanSummary, PassProbability

ALT_TEST_HELP = (
    "The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): does an LLM judge "
    "agree with each human at least as well as the other humans do, within a margin "
    "--epsilon? Per human a one-sided test (t-test, Wilcoxon signed-rank below 30 items), "
    "Benjamini-Yekutieli over the humans; the LLM passes when it wins against at least half "
    "of them. With --plan: the number of items (each labelled by every human and the LLM) "
    "at which the test passes with probability --power, under a simple annotator model."
)

ALT_TEST_EPILOG = """
Examples:

  planner alt-test labels.csv --llm gpt-4o --scoring accuracy --epsilon 0.15

  planner alt-test scores.csv --llm judge-a --llm judge-b --scoring neg-rmse --epsilon 0.2 --json

  planner alt-test labels.csv --llm gpt-4o --epsilon 0.1 --by domain

  planner alt-test --plan --humans 3 --categories 4 --human-error 0.3 --llm-error 0.3 --epsilon 0.2

  planner alt-test --plan --human-error 0.3 --llm-error 0.2 --epsilon 0.1 --items 50
"""

_PLAN = "Planning (--plan)"

#: the plan's defaults, as the library defines them (the help states them)
_DEFAULT = AltTestPlanSettings()

# the library's parameters as alt-test's flags, wherever a message names them
ALT_TEST_FLAGS = (  # their flags from cli.common.FLAGS (n_items is --items, llms --llm)
    "n_items", "min_items", "max_items", "replicates", "human_error", "llm_error", "error_draw",
    "prevalences", "seconds_per_item", "hourly_rate", "llms",
)  # fmt: skip


def alt_test_command(
    file: OptionalLabelFile = None,
    llm: Annotated[
        list[str] | None,
        typer.Option(help="An LLM annotator's name (repeat for several).", show_default=False),
    ] = None,
    scoring: Annotated[
        str,
        typer.Option(help="accuracy (categories) or neg-rmse (numeric labels)."),
    ] = "accuracy",
    epsilon: Annotated[
        float | None,
        typer.Option(
            help="Margin granted to the LLM, in [0, 1): the authors suggest 0.2 for experts, "
            "0.15 for skilled annotators, 0.1 for crowd workers.",
            show_default=False,
        ),
    ] = None,
    q: Annotated[
        float, typer.Option(help="False discovery rate (Benjamini-Yekutieli).")
    ] = _DEFAULT.q,
    min_items: Annotated[
        int,
        typer.Option(
            help="Humans with fewer items labelled with another human and the LLM are not "
            "tested (the authors: 30; below 30 the Wilcoxon signed-rank test is used, which "
            "passes more easily); with --plan, the fewest items planned."
        ),
    ] = _DEFAULT.min_items,
    by: Annotated[
        str | None,
        typer.Option(help="Grouping column: one test per (domain x human), FDR over all."),
    ] = None,
    layout: Layout = "auto",
    item_col: ItemCol = "item",
    annotator_col: AnnotatorCol = "annotator",
    label_col: LabelCol = "label",
    annotator_cols: AnnotatorCols = None,
    annotators: OldAnnotatorCols = None,
    file_format: FileFormat = None,
    missing: Missing = None,
    engine: Engine = "auto",
    memory_limit: MemoryLimit = None,
    temp_dir: TempDir = None,
    plan: Annotated[
        bool,
        typer.Option("--plan", metavar="", help="Plan instead of test.", rich_help_panel=_PLAN),
    ] = False,
    humans: Annotated[
        int | None,
        typer.Option(
            help="Human annotators (default 3, or as many as --human-error lists).",
            rich_help_panel=_PLAN,
            show_default=False,
        ),
    ] = None,
    categories: Annotated[
        int | None,
        typer.Option(
            help="Categories K (default 2, or as many as --prevalences lists).",
            rich_help_panel=_PLAN,
            show_default=False,
        ),
    ] = None,
    human_error: Annotated[
        str,
        typer.Option(
            help="Humans' error rate, or one per human comma-separated (a --humans given "
            "with it must match).",
            rich_help_panel=_PLAN,
        ),
    ] = f"{HUMAN_ERROR:g}",
    llm_error: Annotated[
        float, typer.Option(help="The LLM's error rate.", rich_help_panel=_PLAN)
    ] = LLM_ERROR,
    prevalences: Annotated[
        str | None,
        typer.Option(
            help="Category prevalences, comma-separated, summing to 1 (default equal; a "
            "--categories given with them must match).",
            rich_help_panel=_PLAN,
        ),
    ] = None,
    error_draw: Annotated[
        str,
        typer.Option(
            help="An error is a uniform draw over the categories (uniform) or a draw from "
            "the prevalences (prior, the authors' simulation).",
            rich_help_panel=_PLAN,
        ),
    ] = ERROR_DRAW,
    power: Annotated[
        float, typer.Option(help="Target probability of passing.", rich_help_panel=_PLAN)
    ] = _DEFAULT.power,
    items: Annotated[
        int | None,
        typer.Option(
            help="Instead of searching: P(pass) at this many items.", rich_help_panel=_PLAN
        ),
    ] = None,
    table: Annotated[
        bool,
        typer.Option(
            "--table", metavar="", help="Also plan for 2 to 6 humans.", rich_help_panel=_PLAN
        ),
    ] = False,
    replicates: Annotated[
        int, typer.Option(help="Simulated studies per size.", rich_help_panel=_PLAN)
    ] = _DEFAULT.replicates,
    max_items: Annotated[
        int,
        typer.Option(
            help="Largest number of items searched; beyond it the target is unreachable (exit 1).",
            rich_help_panel=_PLAN,
        ),
    ] = _DEFAULT.max_items,
    seconds_per_item: Annotated[
        float,
        typer.Option(help="Seconds one human spends on one item.", rich_help_panel=_PLAN),
    ] = SECONDS_PER_ITEM,
    hourly_rate: Annotated[
        float | None,
        typer.Option(help="Cost of one person-hour; adds a cost.", rich_help_panel=_PLAN),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed for --plan; drawn and printed if not given.", rich_help_panel=_PLAN
        ),
    ] = None,
    quiet: Quiet = False,
    json_output: JsonFlag = False,
) -> None:
    if plan and (file is not None or llm):
        raise InvalidInput("--plan takes no label FILE and no --llm (it plans a study)")
    if not plan and file is None:
        raise InvalidInput("give a label FILE (or --plan to plan a study)")
    if epsilon is None:
        raise InvalidInput(
            "give --epsilon, the margin granted to the LLM (the authors: 0.2 for experts, "
            "0.15 for skilled annotators, 0.1 for crowd workers)"
        )
    if plan:
        with flags_named(ALT_TEST_FLAGS):
            settings = {
                "epsilon": epsilon, "q": q, "power": power, "min_items": min_items,
                "replicates": replicates, "max_items": max_items,
                "seconds_per_item": seconds_per_item, "hourly_rate": hourly_rate,
                "items": items, "table": table,
            }  # fmt: skip
            _plan(
                humans, categories, human_error, llm_error, prevalences, error_draw, settings,
                seed, json_output, quiet,
            )  # fmt: skip
        return
    given = _plan_options_given(
        humans, categories, human_error, llm_error, prevalences, error_draw, power, items,
        table, replicates, max_items, seconds_per_item, hourly_rate,
    )  # fmt: skip
    if given:
        raise InvalidInput(f"{given[0]} applies to --plan only (testing a FILE does not use it)")
    if seed is not None:
        note("--seed has no effect on testing a FILE: the test draws nothing at random")
    if not llm:
        raise InvalidInput("give --llm NAME for each LLM annotator in the file")
    assert file is not None  # checked above: without --plan a FILE is required
    from planner.measuring.alt_test import alt_test

    options = read_options(
        layout=layout,
        item_col=item_col,
        annotator_col=annotator_col,
        label_col=label_col,
        annotator_cols=annotator_cols,
        old_annotator_cols=annotators,
        file_format=file_format,
        missing=missing,
        by=by,
    )
    ratings, _ = read_ratings(
        file, options, engine=engine, memory_limit=memory_limit, temp_dir=temp_dir
    )
    with flags_named(ALT_TEST_FLAGS):
        result = alt_test(
            ratings, llm, scoring=scoring, epsilon=epsilon, q=q, min_items=min_items, by=by
        )
    for message in ratings.notes:  # how the file was read, once the test has run
        note(message)
    if json_output:
        from planner.output.alt_test_json import alt_test_document

        emit_json(alt_test_document(result, input=ratings.input))
        return
    _render_test(result)


def _plan_options_given(*values: Any) -> list[str]:
    """The --plan options given with a label FILE (a value other than the default)."""
    d = _DEFAULT
    defaults = (None, None, f"{HUMAN_ERROR:g}", LLM_ERROR, None, ERROR_DRAW, d.power, d.items,
                d.table, d.replicates, d.max_items, d.seconds_per_item, d.hourly_rate)  # fmt: skip
    flags = ("--humans", "--categories", "--human-error", "--llm-error", "--prevalences",
             "--error-draw", "--power", "--items", "--table", "--replicates", "--max-items",
             "--seconds-per-item", "--hourly-rate")  # fmt: skip
    return [f for f, v, d in zip(flags, values, defaults, strict=True) if v != d]


def _plan(
    humans: int | None,
    categories: int | None,
    human_error: str,
    llm_error: float,
    prevalences: str | None,
    error_draw: str,
    settings: dict[str, Any],
    seed: int | None,
    json_output: bool,
    quiet: bool = False,
) -> None:
    """``--plan``: P(pass) at ``--items``, or the one library assembly of the plan (and
    ``--table``), rendered."""
    from planner.sizing.alt_test_plan import (
        AltTestPlanSettings,
        alt_test_plan_summary,
        pass_probability,
    )

    model = _plan_model(humans, categories, human_error, llm_error, prevalences, error_draw)
    options = AltTestPlanSettings(**settings)
    if options.items is not None and options.table:
        raise InvalidInput("--table plans 2 to 6 humans; with --items give one or the other")
    drawn = seed is None
    seed = seed_or_draw(seed)
    seed_note = f"seed {seed} (give --seed {seed} to repeat)" if drawn else None
    if options.items is not None:
        at = pass_probability(model, options.items, options, rng=seed)
        if seed_note:  # after the computation: an error stays one line
            note(seed_note)
        if json_output:
            from planner.output.alt_test_json import pass_probability_document

            emit_json(pass_probability_document(model, options.epsilon, options.q, at))
            return
        _render_at(model.describe(), at, options.epsilon)
        return
    if options.table and len(set(model.human_error)) > 1:
        note("--table uses the first --human-error for every number of humans")
    with progress_bar("planning", disabled=json_output or quiet) as progress:
        summary = alt_test_plan_summary(model, options, rng=seed, progress=progress)
    if summary.plan is None:
        assert summary.unreachable is not None  # no plan: the search said why
        raise summary.unreachable
    if seed_note:
        note(seed_note)
    if json_output:
        from planner.output.alt_test_json import alt_test_summary_document

        emit_json(alt_test_summary_document(summary))
        return
    _render_plan(summary)


def _plan_model(
    humans: int | None,
    categories: int | None,
    human_error: str,
    llm_error: float,
    prevalences: str | None,
    error_draw: str,
) -> AltTestModel:
    """The annotator model of ``--plan``."""
    from planner.sizing.alt_test_plan import alt_test_model

    errors = parse_floats(human_error, "--human-error")
    assert errors is not None  # a default is always there
    prev = parse_floats(prevalences, "--prevalences")
    return alt_test_model(
        humans=humans,
        categories=categories,
        human_error=errors[0] if len(errors) == 1 else errors,
        llm_error=llm_error,
        prevalences=prev,
        error_draw=error_draw,
    )


def _console() -> Console:
    from planner.output.render import TerminalConsole as Console

    return Console(markup=False)  # names from files are text, never markup


def _render_test(result: AltTestResult) -> None:
    console = _console()
    console.print(
        f"alt-test of {result.source}: scoring {result.scoring}, epsilon {result.epsilon:g}, "
        f"q {result.q:g}, humans: {', '.join(result.humans)}"
    )
    console.print(
        "S: mean alignment with the other humans; rho_f, rho_h: share of items where the LLM "
        "(the human) aligns at least as well; won: H0 rejected after Benjamini-Yekutieli"
    )
    for rank, v in enumerate(result.llms, start=1):
        verdict = "PASSES" if v.passes else "does not pass"
        console.print(
            f"{rank}. {v.llm}: {verdict} (winning rate omega = {v.omega:.2f}, advantage "
            f"probability rho = {v.rho:.2f})"
        )
        console.print(_tests_table(v))
        if v.domains:
            console.print(f"passes in {v.domains_passed} of {len(v.domains)} domains")
        for human, domain, n in v.skipped:
            where = f" in {domain}" if domain else ""
            console.print(f"not tested: {human}{where} ({n} items < {result.min_items})")
    for message in result.notes:
        note(message.replace("min_items", "--min-items"))


def _tests_table(verdict: LLMVerdict) -> Table:
    """The per-human (per domain) tests, readable at 80 columns.

    Numbers never wrap or shorten (``p`` must read ``0.0032``, not ``0.00…``); names and
    domains fold onto more lines instead; no vertical rules, so the numbers get the width.
    """
    from rich import box
    from rich.table import Table

    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, padding=(0, 1, 0, 0))
    t.add_column("human", overflow="fold", min_width=5)
    if verdict.domains:
        t.add_column("domain", overflow="fold", min_width=6)
    for header in ("items", "S llm", "S human", "rho_f", "rho_h", "test", "p"):
        t.add_column(header, justify="right", no_wrap=True)
    t.add_column("won", no_wrap=True)
    for h in verdict.tests:
        t.add_row(
            h.human, *([str(h.domain)] if verdict.domains else []), str(h.items),
            f"{h.llm_score:.3f}", f"{h.human_score:.3f}", f"{h.rho_llm:.2f}",
            f"{h.rho_human:.2f}", f"{h.test} {h.statistic:.2f}", f"{h.p_value:.2g}",
            "yes" if h.rejected else "no",
        )  # fmt: skip
    return t


def _render_at(description: str, at: PassProbability, epsilon: float) -> None:
    console = _console()
    console.print(f"model: {description}")
    console.print(
        f"P(pass) at {at.n_items:,} items, epsilon {epsilon:g}: {at.probability:.3f} "
        f"(Monte Carlo SE {at.standard_error:.3f}, {at.replicates:,} studies)"
    )


def _render_plan(summary: AltTestPlanSummary) -> None:
    from rich.table import Table

    plan = summary.plan
    assert plan is not None  # rendered only when there is a plan
    console = _console()
    console.print(f"model: {plan.model.describe()}")
    console.print(
        f"items for P(pass) >= {plan.power:g} at epsilon {plan.epsilon:g}: {plan.n_items:,} "
        f"(P(pass) = {plan.pass_probability:.3f}, Monte Carlo SE {plan.standard_error:.3f}; "
        f"analytic start {plan.analytic_start:,}), the fewest from which P(pass) stays at or "
        f"above {plan.power:g} up to {plan.searched_to:,} items"
    )
    if plan.dips_above_first_crossing:
        note(
            f"P(pass) first reaches {plan.power:g} at {plan.first_crossing:,} items but "
            f"falls below it again before {plan.n_items:,} (it is saw-toothed in the items)"
        )
    if plan.budget is not None:
        cost = "" if plan.budget.cost is None else f", cost {plan.budget.cost:,.2f}"
        console.print(f"human labelling: {plan.budget.person_hours:,.1f} person-hours{cost}")
    if summary.table:
        t = Table("humans", "items", "person-hours")
        for m, n, hours in summary.table:
            if n is None:
                t.add_row(str(m), "unreachable", "")
            else:
                t.add_row(str(m), f"{n:,}", "" if hours is None else f"{hours:,.1f}")
        console.print(t)
