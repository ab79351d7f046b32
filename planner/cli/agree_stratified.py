"""``agree --stratum-col``: the options of the population-weighted analysis and their parsing."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated

import typer

from planner.errors import InvalidInput

if TYPE_CHECKING:
    from planner.data.labels import Ratings
    from planner.measuring.stratified import StratifiedReport

_PANEL = "Stratified design"

StratumCol = Annotated[
    str | None,
    typer.Option(
        help="Column naming each item's stratum: report agreement on the population, each "
        "stratum weighted by its population share (with --population-shares or "
        "--population-shares-from). Example: --stratum-col stratum.",
        rich_help_panel=_PANEL,
    ),
]
PopulationShares = Annotated[
    str | None,
    typer.Option(
        help="Each stratum's share of the population, NAME=SHARE comma-separated, summing to "
        "1. Example: --population-shares 'flagged=0.04,risky=0.10,rest=0.86'. For names with "
        "commas use --population-shares-from.",
        rich_help_panel=_PANEL,
    ),
]
PopulationSharesFrom = Annotated[
    str | None,
    typer.Option(
        help="A scenario file (or a shipped scenario's name) whose strata tables give each "
        "stratum's name and share; for names with commas. Example: --population-shares-from "
        "unsupported-claims-enriched.",
        rich_help_panel=_PANEL,
    ),
]


def parse_shares(text: str) -> dict[str, float]:
    """``NAME=SHARE,NAME=SHARE`` as a mapping (a name may hold ``=``: the last one splits)."""
    shares: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.strip().rpartition("=")
        try:
            share = float(value)
        except ValueError:
            share = math.nan
        if not sep or not name.strip() or not math.isfinite(share):
            raise InvalidInput(
                "--population-shares takes NAME=SHARE pairs, comma-separated "
                f"(e.g. 'flagged=0.2,rest=0.8'); got {part.strip()!r}"
            )
        if name.strip() in shares:
            raise InvalidInput(f"--population-shares names {name.strip()!r} twice")
        shares[name.strip()] = share
    return shares


def shares_from_options(
    stratum_col: str | None, given: str | None, scenario: str | None
) -> dict[str, float] | None:
    """The shares from the command line (None without ``--stratum-col``)."""
    if stratum_col is None:
        if given is not None or scenario is not None:
            raise InvalidInput(
                "--population-shares and --population-shares-from need --stratum-col COLUMN "
                "(the column naming each item's stratum)"
            )
        return None
    if (given is None) == (scenario is None):
        raise InvalidInput(
            "--stratum-col needs the population shares: --population-shares NAME=SHARE,... "
            "or --population-shares-from SCENARIO.toml (one of them)"
        )
    if given is not None:
        return parse_shares(given)
    from planner.data.scenario import load_scenario

    assert scenario is not None
    try:
        strata = load_scenario(scenario).strata
    except InvalidInput as exc:
        raise InvalidInput(f"--population-shares-from: {exc}") from None
    if not strata:
        raise InvalidInput(f"--population-shares-from: {scenario} has no [[strata]]")
    return {s.name: s.share for s in strata}


def measure_population(
    ratings: Ratings,
    stratum_col: str,
    shares: dict[str, float],
    *,
    positive: object,
    confidence: float,
    decide_on: str | None,
    not_demonstrated_below: float,
    demonstrated_at: float,
) -> StratifiedReport:
    """The library call, its parameter names turned into flags by the caller's handler."""
    from planner.measuring.stratified import measure_stratified

    return measure_stratified(
        ratings,
        stratum_col,
        shares,
        positive=positive,
        confidence_level=confidence,
        decide_on=decide_on,
        not_demonstrated_below=not_demonstrated_below,
        demonstrated_at=demonstrated_at,
    )
