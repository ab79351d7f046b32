"""The command-line fuzz of ``alt-test`` (on a file and with ``--plan``) and ``compat``.

``alt-test`` on a file: humans and an LLM column, accuracy or neg-rmse, groups, margins;
``alt-test --plan``: 2 to 6 humans, 2 to 5 categories, error rates near 0 and 1, small
replicates and --max-items. ``compat kappasize`` runs each of its 12 functions with the
arguments its family takes (limits on either side of the planning kappa, proportions
summing to 1, 2 to 6 raters); ``compat irr`` both of its functions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.cli_fuzzing import (
    FLAG,
    SEEDS,
    Opt,
    choice,
    count,
    fuzz_settings,
    mostly,
    num,
    odd_integers,
    odd_lists,
    options,
    run,
    shares,
    unit,
    with_defaults,
)
from tests.test_fuzz_agree import reader_options, source

pytestmark = pytest.mark.slow

ALT_FILES = ["alt.csv", "alt-scores.csv", "wide.csv", "six.csv", "all-agree.csv", "long.csv"]
ALT_FILES += ["missing-but-one.csv", "escapes.csv", "one-item.csv", "parts/*.csv"]


def alt_test_options(root: Path) -> dict[str, Opt]:
    return {
        **reader_options(root),
        "--llm": Opt(choice("llm", "h3", "C", "a6", "B")),
        "--scoring": Opt(choice("accuracy", "neg-rmse")),
        "--epsilon": num(0, 0.999, ["0.2", "0", "0.1", "0.999"]),
        "--q": num(0.001, 0.999, ["0.001", "0.05", "0.999"]),
        "--min-items": count(1, 100, [2, 1, 30]),
        "--by": Opt(choice("domain", "week", "h1")),
        "--plan": FLAG,
        "--humans": count(2, 6, [2, 6]),
        "--categories": count(2, 5, [2, 5]),
        "--human-error": Opt(
            st.one_of(unit(0, 0.99, ["0", "0.01", "0.5", "0.99"]), choice("0.1,0.2", "0,0.5,0.3")),
            odd_lists,
        ),
        "--llm-error": num(0, 0.99, ["0", "0.01", "0.99"]),
        "--prevalences": Opt(st.one_of(shares(2), shares(3), shares(5)), odd_lists),
        "--error-draw": Opt(choice("uniform", "prior")),
        "--power": num(0.05, 0.99, ["0.05", "0.5", "0.99"]),
        "--items": count(1, 2000, [1, 2, 30, 2000]),
        "--table": FLAG,
        "--replicates": Opt(choice("100", "101"), choice("0", "-1", "99", str(10**30))),
        "--max-items": count(1, 2000, [1, 2, 30, 2000]),
        "--seconds-per-item": num(0.001, 3600, ["0.001", "3600"]),
        "--hourly-rate": num(0, 1000, ["0", "1000"]),
        "--seed": Opt(SEEDS, odd_integers),
        "--quiet": FLAG,
        "--json": FLAG,
    }


PLANNING = ["--humans", "--categories", "--human-error", "--llm-error", "--prevalences"]
PLANNING += ["--error-draw", "--power", "--items", "--table", "--seconds-per-item"]
PLANNING += ["--hourly-rate", "--q", "--min-items", "--json", "--quiet"]
TESTING = ["--scoring", "--q", "--min-items", "--by", "--json", "--quiet", "--engine"]
TESTING += ["--layout", "--missing"]


@fuzz_settings(ci=50, explore=600)
@given(data=st.data())
def test_fuzz_alt_test(fuzz_dir, data):
    table = alt_test_options(fuzz_dir)
    if data.draw(st.booleans()):
        args = ["--plan", "--epsilon", data.draw(table["--epsilon"].values())]
        args += data.draw(options(table, PLANNING, 4))
        args = with_defaults(args, {"--replicates": "100", "--max-items": "2000", "--seed": "1"})
    else:
        args = data.draw(source(fuzz_dir, ALT_FILES, table))
        args += ["--llm", data.draw(table["--llm"].values())]
        args += ["--epsilon", data.draw(table["--epsilon"].values())]
        args += data.draw(options(table, TESTING, 3))
        args = with_defaults(args, {"--min-items": data.draw(st.sampled_from(["2", "10", "30"]))})
    if data.draw(st.integers(0, 5)) == 5:  # anything at all, often clashing
        args += data.draw(options(table, max_size=2))
    run("alt-test", args, fuzz_dir, columns=data.draw(st.sampled_from([80, 40, 200])))


FUNCTIONS = [
    kind + cats
    for kind in ("CI", "FixedN", "Power")
    for cats in ("Binary", "3Cats", "4Cats", "5Cats")
]
KAPPASIZE_OPTIONS: dict[str, Opt] = {
    "--kappa0": num(0.01, 0.99, ["0.01", "0.4", "0.99"]),
    "--kappaL": num(0.01, 0.99, ["0.01", "0.3"]),
    "--kappaU": num(0.01, 0.99, ["0.5", "0.99"]),
    "--kappa1": num(0.01, 0.99, ["0.6", "0.99"]),
    "--n": count(2, 10**6, [2, 11, 80, 10**6]),
    "--props": Opt(st.one_of(unit(0.01, 0.99, ["0.01", "0.3", "0.99"]), shares(2)), odd_lists),
    "--raters": count(2, 6, [2, 6]),
    "--alpha": num(0.001, 0.4, ["0.001", "0.05", "0.4"]),
    "--power": num(0.5, 0.99, ["0.5", "0.8", "0.99"]),
    "--replicates": Opt(choice("100", "101"), choice("0", "99", str(10**30))),
    "--seed": Opt(SEEDS, odd_integers),
    "--json": FLAG,
    "--quiet": FLAG,
}


@st.composite
def kappasize_args(draw: st.DrawFn) -> list[str]:
    """A function with the arguments of its family, valid and near the edges."""
    function = draw(mostly(st.sampled_from(FUNCTIONS), choice("cibinary", "CI6Cats", "", "\x1b")))
    sizes = {"Binary": 2, "3Cats": 3, "4Cats": 4, "5Cats": 5}
    cats = next((k for suffix, k in sizes.items() if function.endswith(suffix)), 2)
    kappa0 = draw(st.floats(0.05, 0.9))
    args = [function, "--kappa0", f"{kappa0:.3f}", "--raters", str(draw(st.integers(2, 6)))]
    props = draw(unit(0.01, 0.99, ["0.01", "0.5", "0.99"]) if cats == 2 else shares(cats))
    args += ["--props", props]
    if function.startswith("CI"):
        args += ["--kappaL", f"{kappa0 - draw(st.floats(0.01, 0.04)):.3f}"]
        if draw(st.booleans()):
            args += ["--kappaU", f"{kappa0 + draw(st.floats(0.02, 0.09)):.3f}"]
    elif function.startswith("FixedN"):
        args += ["--n", draw(whole_n)]
    elif function.startswith("Power"):
        args += ["--kappa1", f"{min(0.99, kappa0 + draw(st.floats(0.05, 0.3))):.3f}"]
    return args


whole_n = st.sampled_from(["11", "80", "1000", "1000000"])


@fuzz_settings(ci=40, explore=400)
@given(data=st.data())
def test_fuzz_compat_kappasize(fuzz_dir, data):
    args = data.draw(kappasize_args())
    if data.draw(st.integers(0, 3)) == 3:  # any option, often not one of the function's
        args += data.draw(options(KAPPASIZE_OPTIONS, max_size=2))
    else:
        args += data.draw(options(KAPPASIZE_OPTIONS, ["--alpha", "--power", "--json"], 2))
    run("compat kappasize", with_defaults(args, {"--replicates": "100", "--seed": "1"}), fuzz_dir)


IRR_OPTIONS: dict[str, Opt] = {
    "--rate1": num(0.01, 0.99, ["0.01", "0.5", "0.99"]),
    "--rate2": num(0.01, 0.99, ["0.01", "0.5", "0.99"]),
    "--mrg": Opt(st.one_of(shares(2), shares(3), shares(5)), odd_lists),
    "--k1": num(0.01, 0.99, ["0.01", "0.7", "0.99"]),
    "--k0": num(0.01, 0.99, ["0.01", "0.4", "0.85"]),
    "--alpha": num(0.001, 0.4, ["0.001", "0.05", "0.4"]),
    "--power": num(0.5, 0.99, ["0.5", "0.8", "0.99"]),
    "--twosided": FLAG,
    "--replicates": Opt(choice("100", "101"), choice("0", "99", str(10**30))),
    "--seed": Opt(SEEDS, odd_integers),
    "--json": FLAG,
    "--quiet": FLAG,
}


@st.composite
def irr_args(draw: st.DrawFn) -> list[str]:
    function = draw(mostly(choice("N.cohen.kappa", "N2.cohen.kappa"), choice("n.cohen.kappa", "")))
    k0 = draw(st.floats(0.05, 0.85))
    k1 = min(0.99, k0 + draw(st.floats(0.02, 0.3)))
    args = [function, "--k0", f"{k0:.3f}", "--k1", f"{k1:.3f}"]
    if function == "N2.cohen.kappa":
        return [*args, "--mrg", draw(st.one_of(shares(2), shares(3), shares(5)))]
    rates = draw(st.tuples(IRR_OPTIONS["--rate1"].valid, IRR_OPTIONS["--rate2"].valid))
    return [*args, "--rate1", rates[0], "--rate2", rates[1]]


@fuzz_settings(ci=25, explore=300)
@given(data=st.data())
def test_fuzz_compat_irr(fuzz_dir, data):
    args = data.draw(irr_args())
    if data.draw(st.integers(0, 3)) == 3:  # any option, often not one of the function's
        args += data.draw(options(IRR_OPTIONS, max_size=2))
    else:
        args += data.draw(options(IRR_OPTIONS, ["--alpha", "--power", "--twosided", "--json"], 2))
    run("compat irr", with_defaults(args, {"--replicates": "100", "--seed": "1"}), fuzz_dir)
