"""The command-line fuzz of ``plan`` (the ``plan`` script and ``planner plan``).

Each example picks a way to describe the study (a pair model, a union rate, pilot counts, a
pilot file with its reader options, several annotators with their metric, categories,
level, k-of-M design and confusion matrices, or a scenario file), adds targets, fixed-size,
budget and output options, mostly valid and near the edges, sometimes any option of
:data:`plan_options` with an odd value. The checks are tests/cli_fuzzing.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.cli_fuzzing import (
    FLAG,
    SCENARIOS,
    SEEDS,
    VALID_SCENARIOS,
    Opt,
    choice,
    count,
    fuzz_settings,
    inp,
    input_paths,
    mostly,
    num,
    odd_integers,
    odd_lists,
    options,
    output_paths,
    run,
    shares,
    unit,
    with_defaults,
)

pytestmark = pytest.mark.slow

PILOT_FILES = {
    "long.csv": ["--positive", "yes"],
    "wide.csv": [],
    "one-item.csv": [],
    "two-items.csv": [],
    "all-agree.csv": [],
    "missing-but-one.csv": [],
    "six.csv": [],
    "one-category.csv": ["--positive", "x"],
    "other-names.csv": ["--item-col", "doc", "--annotator-col", "rater", "--label-col", "verdict"],
    "labels.jsonl": [],
    "escapes.csv": ["--positive", "yes"],
    "quoted.csv": ["--positive", "yes"],
    "grouped.csv": [],
    "duplicate-wide.csv": [],
    "late-nul.csv": ["--positive", "yes"],
}
PILOT_COUNTS = ["6,21,14,459", "1,0,0,1", "1,1,1,1", "0,1,1,0", "0,0,0,10", "10,0,0,0"]
PILOT_COUNTS += ["1,0,0,0", "1000000,10,10,1000000", "0,0,0,1", "1,1,0,0"]


def confusion(k: int, m: int) -> st.SearchStrategy[str]:
    """A row-stochastic k x k matrix (one for all, or one per annotator joined by '|')."""

    def matrix(d: float) -> str:
        rows = []
        for i in range(k):
            off = [round((1 - d) / (k - 1), 6)] * (k - 1)
            off[-1] = round(1 - d - sum(off[:-1]), 6)
            row = off[:i] + [d] + off[i:]
            rows.append(",".join(f"{v:g}" for v in row))
        return ";".join(rows)

    accuracies = st.sampled_from([0.5, 0.8, 0.9, 0.98, 1.0])
    one = accuracies.map(matrix)
    each = st.lists(accuracies, min_size=m, max_size=m).map(lambda ds: "|".join(map(matrix, ds)))
    return st.one_of(one, each)


def plan_options(root: Path) -> dict[str, Opt]:
    pilots = [*PILOT_FILES, "parts/*.csv"]
    scenarios = input_paths(root, list(SCENARIOS))
    return {
        "--scenario": Opt(scenarios),
        "--prevalence": num(0.001, 0.999, ["0.001", "0.01", "0.5", "0.99", "0.999"]),
        "--annotators": count(2, 6, [2, 6]),
        "--categories": count(2, 5, [2, 5]),
        "--level": Opt(choice("nominal", "ordinal", "interval")),
        "--per-item": count(2, 5, [2]),
        "--confusion": Opt(confusion(2, 2), odd_lists),
        "--error-rate": Opt(
            st.one_of(
                unit(0, 0.499, ["0", "0.001", "0.05", "0.49", "0.499"]),
                st.sampled_from(["0.01,0.3", "0,0.499", "0.05,0.05"]),
            ),
            odd_lists,
        ),
        "--bias": Opt(
            st.one_of(unit(-1, 1, ["-1", "0", "1"]), st.sampled_from(["0.5,-0.5", "1,-1"])),
            odd_lists,
        ),
        "--ambiguity": num(0, 1, ["0", "0.001", "0.5", "1"]),
        "--union-rate": num(0.001, 1, ["0.001", "0.5", "1"]),
        "--psa": num(0, 1, ["0", "0.5", "0.999", "1"]),
        "--pilot-counts": Opt(
            st.one_of(
                st.sampled_from(PILOT_COUNTS),
                st.lists(st.integers(0, 1000), min_size=4, max_size=4).map(
                    lambda c: ",".join(map(str, c))
                ),
            ),
            st.one_of(odd_lists, st.lists(odd_integers, min_size=1, max_size=5).map(",".join)),
        ),
        "--kappa": num(0.01, 0.99, ["0.01", "0.5", "0.99"]),
        "--pilot": Opt(st.sampled_from([inp(root, p) for p in pilots])),
        "--labelled": Opt(st.sampled_from([inp(root, p) for p in pilots])),
        "--planned-items": count(1, 10**6, [1, 600, 10**6]),
        "--batch-size": count(1, 10**4, [1, 100, 10**4]),
        "--stratum-col": Opt(choice("stratum", "week", "missing")),
        "--pair": Opt(choice("A,B", "B,A", "A,C", "a1,a6")),
        "--positive": Opt(choice("1", "yes", "0", "x")),
        "--layout": Opt(choice("auto", "long", "wide")),
        "--item-col": Opt(choice("item", "doc")),
        "--annotator-col": Opt(choice("annotator", "rater")),
        "--label-col": Opt(choice("label", "verdict")),
        "--annotator-cols": Opt(choice("A,B", "A,B,C", "a1,a2,a3", "A,A", "A")),
        # the deprecated spelling of --annotator-cols
        "--pilot-annotators": Opt(choice("A,B", "A,B,C", "a1,a2,a3")),
        "--format": Opt(choice("csv", "tsv", "parquet", "jsonl")),
        "--missing": Opt(choice("NA,n/a", "NA", "null")),
        "--engine": Opt(choice("pandas", "duckdb", "auto")),
        "--memory-limit": Opt(choice("1GB", "100MB", "64MB")),
        "--temp-dir": Opt(output_paths(root)),
        "--items": count(1, 10**6, [1, 2, 10, 10**6]),
        "--hours": num(0.01, 1000, ["0.01", "1", "1000"]),
        "--budget": num(1, 1e5, ["1", "100000"]),
        "--curve": FLAG,
        "--width": num(0.03, 0.99, ["0.03", "0.5", "0.99"]),
        "--confidence": num(0.01, 0.999, ["0.5", "0.8", "0.999"]),
        "--assurance": num(0.01, 0.99, ["0.01", "0.5", "0.99"]),
        "--metric": Opt(choice("psa", "kappa", "both", "fleiss", "alpha", "conger")),
        "--psa-method": Opt(choice("wilson", "clopper-pearson", "jeffreys", "wald")),
        "--kappa-method": Opt(choice("score", "gof", "fce")),
        "--annotators-per-item": count(2, 10, [2, 10]),
        "--seconds-per-item": num(0.001, 3600, ["0.001", "90", "3600"]),
        "--adjudication-seconds": num(0, 3600, ["0", "3600"]),
        "--hourly-rate": num(0, 1000, ["0", "0.01", "1000"]),
        "--replicates": Opt(choice("100", "101", "200"), choice("-1", "0", "99", "abc", "1e3")),
        "--max-items": count(10, 10**7, [10, 11, 10**7]),
        "--seed": Opt(SEEDS, odd_integers),
        "--quiet": FLAG,
        "--json": FLAG,
        "--debug": FLAG,
        "--version": FLAG,
    }


PAIR = ["--error-rate", "--bias", "--ambiguity"]
TARGETS = ["--width", "--confidence", "--assurance", "--seed", "--json", "--quiet"]
FIXED = ["--items", "--hours", "--budget", "--hourly-rate", "--curve", "--seconds-per-item"]
FIXED += ["--annotators-per-item", "--adjudication-seconds", "--max-items"]
READER = ["--pair", "--positive", "--layout", "--missing", "--engine", "--memory-limit"]
READER += ["--temp-dir", "--format"]
LABELLED = ["--planned-items", "--batch-size", "--metric", "--hourly-rate", "--max-items"]


def several(root: Path) -> st.SearchStrategy[list[str]]:
    """--annotators M with a metric, categories, level, k-of-M and confusion that fit."""

    @st.composite
    def build(draw: st.DrawFn) -> list[str]:
        m, k = draw(st.sampled_from([2, 3, 6])), draw(st.sampled_from([2, 3, 5]))
        metrics = ["fleiss", "alpha", "conger", "kappa"] + (["psa"] if k == 2 else [])
        metric = draw(st.sampled_from(metrics))
        args = ["--annotators", str(m), "--metric", metric]
        args += ["--prevalence", draw(shares(k) if k > 2 else unit(0.01, 0.99, ["0.01", "0.99"]))]
        if k > 2 or draw(st.booleans()):
            args += ["--categories", str(k)]
        if m > 2 and metric in ("fleiss", "alpha", "psa") and draw(st.booleans()):
            args += ["--per-item", str(draw(st.integers(2, m - 1)))]
        if draw(st.booleans()):
            args += ["--level", draw(st.sampled_from(["nominal", "ordinal", "interval"]))]
        if draw(st.booleans()):
            args += ["--confusion", draw(confusion(k, m))]
        return args

    return build()


def model(root: Path) -> st.SearchStrategy[list[str]]:
    table = plan_options(root)
    prevalence = table["--prevalence"].valid
    pilot = st.sampled_from(list(PILOT_FILES)).map(
        lambda n: ["--pilot", inp(root, n), *PILOT_FILES[n]]
    )
    glob = st.just(["--pilot", inp(root, "parts/*.csv"), "--positive", "yes"])
    scenario = st.sampled_from([inp(root, n) for n in VALID_SCENARIOS])
    return st.one_of(
        st.tuples(prevalence, options(table, PAIR, 3)).map(lambda t: ["--prevalence", t[0], *t[1]]),
        st.tuples(
            unit(0.05, 0.5, ["0.05", "0.5"]),
            st.sampled_from(["--psa", "--kappa"]),
            unit(0.6, 0.999, ["0.6", "0.999"]),
        ).map(lambda t: ["--prevalence", *t]),
        st.tuples(table["--union-rate"].valid, table["--psa"].valid).map(
            lambda t: ["--union-rate", t[0], "--psa", t[1]]
        ),
        table["--pilot-counts"].values().map(lambda v: ["--pilot-counts", v]),
        st.tuples(st.one_of(pilot, glob), options(table, READER, 3)).map(lambda t: t[0] + t[1]),
        st.tuples(pilot, options(table, [*READER, *LABELLED], 3)).map(  # a study in progress
            lambda t: ["--labelled", *t[0][1:], *t[1]]
        ),
        several(root),
        st.one_of(scenario.map(lambda p: [p]), scenario.map(lambda p: ["--scenario", p])),
        input_paths(root, list(SCENARIOS)).map(lambda p: [p]),
    )


@fuzz_settings(ci=60, explore=1200)
@given(data=st.data())
def test_fuzz_plan(fuzz_dir, data):
    table = plan_options(fuzz_dir)
    args = data.draw(model(fuzz_dir))
    args += data.draw(options(table, TARGETS, 3))
    pair = "--annotators" not in args
    if pair and data.draw(st.booleans()):
        args += data.draw(options(table, FIXED, 3))
    if data.draw(st.integers(0, 5)) == 5:  # anything at all, often clashing
        args += data.draw(options(table, max_size=2))
    if pair and data.draw(st.booleans()):
        args += ["--metric", data.draw(mostly(choice("psa", "kappa", "both"), choice("x")))]
    args = with_defaults(args, {"--replicates": "100", "--seed": "1"})
    entry = data.draw(st.sampled_from(["plan-script", "plan"]))
    run(entry, args, fuzz_dir, columns=data.draw(st.sampled_from([80, 40, 200])))
