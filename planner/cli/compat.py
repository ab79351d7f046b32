"""``planner compat kappasize|irr``: R's kappaSize and irr answers, and what they deliver.

Each command reproduces the R function named by FUNCTION (R's spelling) to the integer,
then simulates studies of that size from the model the function assumes and says what the
planner's own intervals make of them (registered in ``commands.py`` as the ``compat`` group).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

import typer

from planner.cli.common import (
    FlagHelpGroup,
    emit_json,
    flags_named,
    parse_floats,
    progress_bar,
    seed_or_draw,
)
from planner.output.jsonout import compat_document

COMPAT_HELP = (
    "Reproduce R's kappaSize and irr sample sizes exactly, then simulate what that number "
    "of items really delivers."
)
compat_app = typer.Typer(
    cls=FlagHelpGroup,  # --help shown as a flag, as in the main app
    help=COMPAT_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

KAPPASIZE_EPILOG = """
Examples:

  planner compat kappasize CIBinary --kappa0 0.4 --kappaL 0.3 --kappaU 0.5 --props 0.3

  planner compat kappasize PowerBinary --kappa0 0.4 --kappa1 0.6 --props 0.3 --json

  planner compat kappasize FixedN3Cats --kappa0 0.7 --n 80 --props 0.33,0.34,0.33 --raters 5
"""

IRR_EPILOG = """
Examples:

  planner compat irr N.cohen.kappa --rate1 0.5 --rate2 0.5 --k1 0.7 --k0 0.85

  planner compat irr N2.cohen.kappa --mrg 0.2,0.25,0.55 --k1 0.6 --k0 0.4 --power 0.9
"""

EXPECTED_LIMIT = (
    "kappaSize's CI criterion puts the expected limits at kappaL (and kappaU): it is not a "
    "guarantee, and about half of the studies of that size miss each limit"
)

# R's argument names inside messages ("must be below kappa0 (0.4)"), as the flags they are
COMPAT_FLAGS = ("kappa0", "kappaL", "kappaU", "kappa1", "k0", "k1", "rate1", "rate2", "alpha")

Replicates = Annotated[int, typer.Option("--replicates", help="Simulated studies, in [100, 1e6].")]
Seed = Annotated[
    int | None, typer.Option(help="Seed for the simulation; drawn and printed if not given.")
]
Quiet = Annotated[bool, typer.Option("--quiet", metavar="", help="Show no progress bar on stderr.")]
JsonFlag = Annotated[
    bool, typer.Option("--json", metavar="", help="Print one JSON document instead of a table.")
]


def kappasize_command(
    function: Annotated[
        str,
        typer.Argument(
            help="kappaSize's function, by its R name (spelled as in R): CIBinary, CI3Cats, "
            "CI4Cats, CI5Cats, FixedNBinary, FixedN3Cats-FixedN5Cats, PowerBinary, "
            "Power3Cats-Power5Cats.",
            show_default=False,
        ),
    ],
    kappa0: Annotated[float | None, typer.Option("--kappa0", help="Planning kappa.")] = None,
    kappaL: Annotated[
        float | None, typer.Option("--kappaL", help="CI*: expected lower limit.")
    ] = None,
    kappaU: Annotated[
        float | None,
        typer.Option("--kappaU", help="CI*: expected upper limit; omit for one-sided."),
    ] = None,
    kappa1: Annotated[
        float | None, typer.Option("--kappa1", help="Power*: the alternative kappa.")
    ] = None,
    n: Annotated[int | None, typer.Option("--n", help="FixedN*: items available.")] = None,
    props: Annotated[
        str | None,
        typer.Option(
            "--props",
            help="Category proportions 'P1,P2,...' (binary: the positive proportion, or both).",
        ),
    ] = None,
    raters: Annotated[int, typer.Option("--raters", help="Raters, 2-6.")] = 2,
    alpha: Annotated[float, typer.Option("--alpha", help="Type I error rate.")] = 0.05,
    power: Annotated[
        float | None, typer.Option("--power", help="Power*: desired power. Default 0.80.")
    ] = None,
    replicates: Replicates = 2000,
    seed: Seed = None,
    quiet: Quiet = False,
    json_output: JsonFlag = False,
) -> None:
    from planner.sizing.compat_check import check_kappasize
    from planner.sizing.compat_kappasize import FUNCTIONS, CIResult, FixedNResult, kappasize

    kind = FUNCTIONS.get(function, ("", 0))[0]
    arguments: dict[str, Any] = {
        "kappa0": kappa0,
        "kappaL": kappaL,
        "kappaU": kappaU,
        "kappa1": kappa1,
        "n": n,
        "props": parse_floats(props, "--props"),
        "raters": raters,
        "alpha": alpha,
        "power": power if power is not None or kind != "Power" else 0.80,
    }
    with flags_named(COMPAT_FLAGS):
        result = kappasize(function, **arguments)
        used = seed_or_draw(seed)
        with progress_bar("simulating studies", disabled=json_output or quiet):
            verdict = check_kappasize(result, replicates=replicates, rng=used)
    doc: dict[str, Any] = {
        "function": function,
        "arguments": {k: v for k, v in arguments.items() if v is not None},
    }
    if isinstance(result, CIResult):
        doc["n"] = result.n
        doc["criterion"] = EXPECTED_LIMIT
    elif isinstance(result, FixedNResult):
        doc["kappaL"] = float(f"{result.kappaL:.7g}")  # as R prints it
        doc["criterion"] = "the expected one-sided lower limit with n items"
    else:
        doc["N"] = result.N
        doc["N_ceiling"] = result.N_ceiling
        doc["criterion"] = "power of the goodness-of-fit test of kappa0 against kappa1"
    doc["simulation"] = _verdict_doc(verdict)
    doc["verdict"] = kappasize_verdict(result, verdict)
    _show(compat_document("compat-kappasize", doc, seed=used), json_output)


def irr_command(
    function: Annotated[
        str,
        typer.Argument(
            help="irr's function, by its R name (spelled as in R): N.cohen.kappa or "
            "N2.cohen.kappa.",
            show_default=False,
        ),
    ],
    rate1: Annotated[
        float | None, typer.Option("--rate1", help="N.cohen.kappa: rater 1's positive rate.")
    ] = None,
    rate2: Annotated[
        float | None, typer.Option("--rate2", help="N.cohen.kappa: rater 2's positive rate.")
    ] = None,
    mrg: Annotated[
        str | None, typer.Option("--mrg", help="N2.cohen.kappa: margins 'P1,P2,...'.")
    ] = None,
    k1: Annotated[float | None, typer.Option("--k1", help="The true kappa.")] = None,
    k0: Annotated[float | None, typer.Option("--k0", help="Kappa under the null.")] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="Type I error rate.")] = 0.05,
    power: Annotated[float, typer.Option("--power", help="Desired power.")] = 0.8,
    twosided: Annotated[
        bool, typer.Option("--twosided", metavar="", help="A two-sided test (R's twosided=TRUE).")
    ] = False,
    replicates: Replicates = 2000,
    seed: Seed = None,
    quiet: Quiet = False,
    json_output: JsonFlag = False,
) -> None:
    from planner.sizing.compat_check import check_irr
    from planner.sizing.compat_irr import irr

    arguments: dict[str, Any] = {
        "rate1": rate1,
        "rate2": rate2,
        "mrg": parse_floats(mrg, "--mrg"),
        "k1": k1,
        "k0": k0,
        "alpha": alpha,
        "power": power,
        "twosided": twosided,
    }
    with flags_named(COMPAT_FLAGS):
        result = irr(function, **arguments)
        used = seed_or_draw(seed)
        with progress_bar("simulating studies", disabled=json_output or quiet):
            verdict = check_irr(result, replicates=replicates, rng=used)
    doc: dict[str, Any] = {
        "function": function,
        "arguments": {k: v for k, v in arguments.items() if v is not None},
        "N": result.N,
        "N_raw": result.N_raw,
        "criterion": f"power of the {'two' if twosided else 'one'}-sided test of k0 when kappa "
        "is k1"
        + (" (at the worst-case table for the margins)" if function == "N2.cohen.kappa" else ""),
        "simulation": _verdict_doc(verdict),
        "verdict": irr_verdict(result, verdict),
    }
    _show(compat_document("compat-irr", doc, seed=used), json_output)


def kappasize_verdict(result: Any, verdict: Any) -> str:
    """One sentence: what the simulation says kappaSize's answer delivers."""
    from planner.sizing.compat_kappasize import CIResult, FixedNResult

    v = verdict
    studies = f"{v.replicates} simulated studies of {v.n_items} items"
    if isinstance(result, CIResult):
        text = (
            "kappaSize's CI criterion is an expected-limit criterion (about 50 % assurance), "
            f"not a guarantee: in {studies}, {v.share_lower_ok:.1%} had a lower limit >= "
            f"kappaL {result.kappaL:g}"
        )
        if result.kappaU is not None:
            text += (
                f", {v.share_upper_ok:.1%} an upper limit <= kappaU {result.kappaU:g} and "
                f"only {v.assurance:.1%} both"
            )
        return text + (
            f"; the intervals covered the true kappa in {v.coverage:.1%} "
            f"(nominal {v.nominal_coverage:.0%})."
        )
    if isinstance(result, FixedNResult):
        q10, q50, q90 = v.lower_quantiles
        return (
            f"kappaL {result.kappaL:.3f} is the expected lower limit, not a guarantee: in "
            f"{studies}, {v.share_at_least:.1%} reached it; the lower limit's 10/50/90 % "
            f"points were {q10:.3f} / {q50:.3f} / {q90:.3f}."
        )
    return f"in {studies} at kappa1, the test rejected kappa0 in {v.power:.1%} (target " + (
        f"{result.power:.0%})."
    )


def irr_verdict(result: Any, verdict: Any) -> str:
    """One sentence: the simulated power at irr's N."""
    v = verdict
    text = (
        f"in {v.replicates} simulated studies of {v.n_items} items at k1, the test rejected k0 in "
        f"{v.power:.1%} (target {result.power:.0%})"
    )
    if v.power_proportional is not None:
        text += (
            f" at Flack's worst-case table and in {v.power_proportional:.1%} at the "
            "proportional table (the worst case is conservative)"
        )
    return text + "."


def _verdict_doc(verdict: Any) -> dict[str, Any]:
    raw = asdict(verdict)
    doc = {k: v for k, v in raw.items() if v is not None and k not in ("method", "seed")}
    doc["interval_method"] = verdict.method  # the interval each simulated study computes
    return doc


def _show(doc: dict[str, Any], json_output: bool) -> None:
    if json_output:
        emit_json(doc)
        return
    from planner.output.render import TerminalConsole as Console

    console = Console(markup=False, highlight=False)  # wrapped between words at the width
    for line in _lines(doc):
        console.print(line)


def _number(value: Any) -> str:
    return f"{value:.7g}" if isinstance(value, float) else str(value)


def _lines(doc: dict[str, Any]) -> list[str]:
    """The human-readable summary: R's answer, then the simulated verdict."""
    args = ", ".join(f"{k}={_number(v)}" for k, v in doc["arguments"].items())
    answer = {k: doc[k] for k in ("n", "kappaL", "N", "N_ceiling", "N_raw") if k in doc}
    sim = doc["simulation"]
    lines = [
        f"{doc['function']}({args})",
        "R's answer: " + ", ".join(f"{k} = {_number(v)}" for k, v in answer.items()),
        f"criterion: {doc['criterion']}",
        f"simulated: {sim['replicates']} studies of {sim['n_items']} items, {sim['model']}",
        f"interval: {sim['interval_method']}, level {sim['confidence_level']:g}",
    ]
    labels = {
        "share_lower_ok": "share with lower limit >= kappaL",
        "share_upper_ok": "share with upper limit <= kappaU",
        "assurance": "assurance (both limits met at once)",
        "coverage": "coverage of the true kappa",
        "nominal_coverage": "nominal coverage",
        "mean_lower": "mean lower limit",
        "mean_upper": "mean upper limit",
        "lower_quantiles": "lower limit 10/50/90 %",
        "share_at_least": "share with lower limit >= R's kappaL",
        "power": "simulated power",
        "power_proportional": "simulated power at the proportional table",
        "n_undefined": "undefined intervals",
    }
    for key, label in labels.items():
        if key in sim:
            value = sim[key]
            shown = " / ".join(_number(v) for v in value) if isinstance(value, list) else value
            lines.append(f"  {label}: {_number(shown)}")
    lines.append(f"verdict: {doc['verdict']}")
    lines.append(f"seed {doc['seed']} (rerun with --seed {doc['seed']} for identical output)")
    return lines


compat_app.command(
    "kappasize",
    epilog=KAPPASIZE_EPILOG,
    help=(
        "R kappaSize's sample sizes, by R's function names (CI*, FixedN*, Power*), with "
        "kappaSize's argument names and defaults, then a simulation of what that n delivers."
    ),
)(kappasize_command)
compat_app.command(
    "irr",
    epilog=IRR_EPILOG,
    help=(
        "R irr's N.cohen.kappa (Cantor 1996) and N2.cohen.kappa (Flack et al. 1988), by R's "
        "names and arguments, then the simulated power at that N."
    ),
)(irr_command)
