"""The ``report`` command: write reports of scenarios (registered in cli.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from planner.errors import InvalidInput

REPORT_HELP = (
    "Write a report of each scenario to reports/NAME/: Markdown and a self-contained HTML "
    "page with the assumptions, the plan, the design comparison, the budget, the schedule "
    "and figures. An existing report is replaced only with --force."
)


REPORT_EPILOG = """
Examples:

  planner report scenarios/unsupported-claims.toml

  planner report scenarios/*.toml --force
"""


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
