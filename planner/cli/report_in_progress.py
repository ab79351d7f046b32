"""``planner report SCENARIO --labelled FILE``: the report of a study in progress.

:func:`planner.output.report_in_progress.write_progress_report` writes it into
``OUT/NAME-in-progress/`` (the up-front report ``OUT/NAME/`` stays); this module checks the
options, every destination before any work, and names the flags in the library's messages.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from planner.cli.options import PILOT_READER_FLAGS
from planner.errors import InvalidInput

PANEL = "Study in progress"
LABELLED_HELP = (
    "A study in progress: the label file of the items labelled so far (read as plan "
    "--labelled reads it). Writes OUT/NAME-in-progress/ (the up-front report OUT/NAME/ stays): "
    "labelled so far, still to label, the interval now, the dates of the remaining work with "
    "the scenario's team, what --hours/--budget buy, the notes and the assurance against "
    "the items still to label. Example: planner report unsupported-claims --labelled "
    "examples/labelled-600.csv"
)
STRATUM_HELP = (
    "With --labelled and a stratified scenario: the column naming each item's stratum; the "
    "items still to label per stratum of the scenario's population-weighted design."
)
PAIR_HELP = "With --labelled: the two annotators 'A,B' the study is planned for."
POSITIVE_HELP = "With --labelled: the positive label (0/1 and false/true labels need none)."
HOURS_HELP = "With --labelled: the person-hours still to spend; adds what they buy."
BUDGET_HELP = "With --labelled: the money still to spend, at the scenario's hourly rate."
READER_KEYS = (
    "layout", "item_col", "annotator_col", "label_col", "annotator_cols", "file_format", "missing"
)  # fmt: skip
#: the options that apply only with --labelled, by their flags
ONLY_WITH_LABELLED = {
    "stratum_col": "--stratum-col",
    "pair": "--pair",
    "positive": "--positive",
    "hours": "--hours",
    "budget": "--budget",
    **{key: PILOT_READER_FLAGS[key] for key in READER_KEYS},
}
#: the plan's flags that report does not have: the scenario sets them, by these keys
SCENARIO_KEYS = {
    "--width": "the scenario's target width",
    "--confidence": "the scenario's target confidence",
    "--assurance": "the scenario's target assurance",
    "--max-items": "the scenario's simulation max_items",
    "--replicates": "the scenario's simulation replicates",
}
#: the library's parameters and the flags that set them
#: (the reader's option names are words of its messages: its errors name them themselves)
FLAGS = {
    **{k: f for k, f in ONLY_WITH_LABELLED.items() if k not in READER_KEYS},
    "labelled": "--labelled", "out": "--out", "force": "--force",
}  # fmt: skip


@contextmanager
def named() -> Iterator[None]:
    """Planner errors raised inside name report's flags, and the scenario's keys for the
    plan's flags report does not have (:data:`SCENARIO_KEYS`)."""
    from planner.cli.common import flags_named
    from planner.errors import PlannerError

    try:
        with flags_named(FLAGS):
            yield
    except PlannerError as exc:
        message = str(exc)
        for flag, key in SCENARIO_KEYS.items():
            message = re.sub(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", key, message)
        new = copy.copy(exc)
        new.args = (message,)
        raise new from None


def labelled_reader_option(name: str, *flags: str) -> Any:
    """The ``typer.Option`` of reader option ``name`` for the label file of ``--labelled``
    (its help as the reader's, :data:`planner.cli.options.READER_HELP`; ``flags``, its
    spelling when it is not the parameter's name)."""
    import typer

    from planner.cli.options import READER_HELP

    text = READER_HELP[name]
    help_text = f"With --labelled: {text[0].lower()}{text[1:]}"
    return typer.Option(*flags, help=help_text, rich_help_panel=PANEL)


def in_progress_options(options: dict[str, Any]) -> list[str]:
    """The flags given that apply only with ``--labelled``."""
    return [flag for key, flag in ONLY_WITH_LABELLED.items() if options.get(key) is not None]


def _settings(options: dict[str, Any]) -> Any:
    from planner.cli.common import flags_named
    from planner.output.report_in_progress import ProgressSettings

    if options.get("labelled") is None:
        given = in_progress_options(options)
        raise InvalidInput(f"{given[0]} applies only with --labelled FILE (a study in progress)")
    reader = {k: options[k] for k in READER_KEYS if options.get(k) is not None}
    for listed in ("missing", "annotator_cols"):  # comma-separated on the command line
        if listed in reader:
            reader[listed] = tuple(reader[listed].split(","))
    pair = options.get("pair")
    # the settings' messages say "a positive number": "positive" is not the flag there
    with flags_named({k: f for k, f in FLAGS.items() if k != "positive"}):
        return ProgressSettings(
            labelled=options["labelled"],
            stratum_col=options.get("stratum_col"),
            pair=tuple(p.strip() for p in pair.split(",")) if pair is not None else None,  # type: ignore[arg-type]
            positive=options.get("positive"),
            reader=reader or None,
            hours=options.get("hours"),
            budget=options.get("budget"),
        )


def _checked(scenarios: list[str], settings: Any, options: dict[str, Any]) -> list[Any]:
    """Every scenario and destination, before any work; distinct folder names."""
    from planner.data.scenario import load_scenario
    from planner.output.report_in_progress import check_progress_report

    for path in scenarios:  # read before any flag is named: its refusals name its own keys
        load_scenario(path)
    with named():
        checked = [
            check_progress_report(path, settings, options["out"], force=options["force"])
            for path in scenarios
        ]
    seen: dict[str, str] = {}
    for scenario, dest, _ in checked:
        key = dest.name.casefold()
        if key in seen:
            raise InvalidInput(
                f"{seen[key]} and {scenario.path} both have name {scenario.name!r}; reports of "
                "one call need distinct names"
            )
        seen[key] = scenario.path
    return [scenario for scenario, _, _ in checked]


def report_in_progress(scenarios: list[str], options: dict[str, Any]) -> None:
    """Write one report of the study in progress per scenario; say where, and the seed."""
    import typer

    from planner.cli.common import progress_bar, seed_of
    from planner.cli.options import reader_error
    from planner.data.layout import LayoutUnclear, RoleConflict
    from planner.output.report_in_progress import write_progress_report
    from planner.output.safe_output import interruptible, visible

    settings = _settings(options)
    loaded = _checked(scenarios, settings, options)
    written: list[str] = []
    seed = options.get("seed")
    try:
        with interruptible(), progress_bar("writing reports", disabled=options["quiet"]) as bar:
            for path, scenario in zip(scenarios, loaded, strict=True):
                chosen = seed_of(seed, scenario)
                try:
                    with named():
                        folder = write_progress_report(
                            path, settings, options["out"], force=options["force"], rng=chosen
                        )
                except (LayoutUnclear, RoleConflict) as exc:
                    raise reader_error(exc) from None
                written.append(str(folder))
                shown = visible(folder)
                typer.echo(f"wrote {shown}/report.md and {shown}/report.html (seed {chosen})")
                bar(len(written), len(scenarios))
    except KeyboardInterrupt as exc:
        from planner.cli.report import interrupted

        interrupted(exc, written)
