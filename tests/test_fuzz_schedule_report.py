"""The command-line fuzz of ``schedule``, ``report``, ``scenarios`` and ``examples``.

``schedule`` from a scenario (one stratum, many, rare and common prevalences), from
--items or from model options, with team settings near their edges and 2 runs;
``report`` of cheap scenarios into a fresh folder (replicates 100); ``scenarios``.
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
    with_defaults,
)
from tests.test_fuzz_plan import PILOT_COUNTS, confusion

pytestmark = pytest.mark.slow

#: dates that are not dates (bad day, month, format)
DATES = choice("2027-02-30", "2027-13-01", "04/01/2027", "2027-1-4", "", "tomorrow")


def schedule_options(root: Path) -> dict[str, Opt]:
    return {
        "--items": count(1, 10**5, [1, 2, 50, 10**5]),
        "--labelled": Opt(st.sampled_from([inp(root, p) for p in ("long.csv", "wide.csv")])),
        "--stratum-col": Opt(choice("stratum", "missing")),
        "--design": Opt(choice("uniform", "enriched", "weighted")),
        "--prevalence": num(0.01, 0.99, ["0.01", "0.5", "0.99"]),
        "--pilot-counts": Opt(choice(*PILOT_COUNTS)),
        "--error-rate": Opt(choice("0", "0.05", "0.499", "0.05,0.1"), choice("0.5", "-0.1", "a,b")),
        "--bias": Opt(choice("0", "0.1", "0.05,0.2"), choice("2", "-1", "0.1,0.2,0.3")),
        "--ambiguity": num(0, 1, ["0", "0.001", "1"]),
        "--union-rate": num(0.001, 1, ["0.001", "1"]),
        "--psa": num(0, 1, ["0", "0.5", "0.999", "1"]),
        "--kappa": num(0.01, 0.99, ["0.01", "0.5", "0.99"]),
        "--pilot": Opt(st.sampled_from([inp(root, p) for p in ("long.csv", "wide.csv")])),
        "--pair": Opt(choice("A,B", "B,A", "A,C")),
        "--positive": Opt(choice("yes", "1", "x")),
        # how to read --pilot or --labelled, as plan's fuzz draws them
        "--layout": Opt(choice("auto", "long", "wide")),
        "--item-col": Opt(choice("item", "doc")),
        "--annotator-col": Opt(choice("annotator", "rater")),
        "--label-col": Opt(choice("label", "verdict")),
        "--annotator-cols": Opt(choice("A,B", "A,B,C", "A,A", "A")),
        "--format": Opt(choice("csv", "tsv", "parquet", "jsonl")),
        "--missing": Opt(choice("NA,n/a", "NA", "null")),
        "--width": num(0.05, 0.99, ["0.05", "0.99"]),
        "--confidence": num(0.5, 0.999, ["0.5", "0.95", "0.999"]),
        "--assurance": num(0.01, 0.99, ["0.01", "0.5", "0.99"]),
        "--metric": Opt(choice("psa", "kappa", "both")),
        "--psa-method": Opt(choice("wilson", "clopper-pearson", "jeffreys", "wald")),
        "--kappa-method": Opt(choice("score", "gof", "fce")),
        "--replicates": Opt(choice("100", "101", "200"), choice("-1", "0", "99", "abc")),
        "--max-items": count(10, 10**7, [10, 11, 10**7]),
        "--annotators-per-item": count(2, 6, [2, 6]),
        # plan's several-annotator model options, as plan's fuzz draws them
        "--categories": count(2, 5, [2, 5]),
        "--level": Opt(choice("nominal", "ordinal", "interval")),
        "--per-item": count(2, 5, [2]),
        "--confusion": Opt(confusion(2, 2), odd_lists),
        "--seconds-per-item": num(0.01, 3600, ["0.01", "90", "3600"]),
        "--adjudication-seconds": num(0, 3600, ["0", "3600"]),
        "--contested-rate": num(0, 1, ["0", "0.001", "1"]),
        "--hourly-rate": num(0, 1000, ["0", "1000"]),
        "--team-size": count(1, 50, [1, 2, 6, 50]),
        "--annotators": count(1, 50, [1, 2, 6, 50]),
        "--start": Opt(choice("2027-01-04", "2027-01-09", "2024-02-29", "1970-01-01"), DATES),
        "--deadline": Opt(choice("2027-01-04", "2027-02-15", "2030-12-31", "2026-12-31"), DATES),
        "--add": Opt(
            choice(
                "cy",
                "cy,seconds_per_item=80,hours_per_day=6,hourly_rate=35",
                "ana,seconds_per_item=1",
                "dee,hours_per_day=24,seconds_per_item=3600",
            ),
            choice("", ",", "cy,seconds_per_item=0", "cy,hours_per_day=25", "cy,x=1", "cy,a"),
        ),
        "--without": Opt(
            choice("ana", "bo", "ana@2027-01-11", "bo@2027-01-04", "zed"),
            choice("", "@", "ana@2027-13-01", "ana@tomorrow"),
        ),
        "--assignment": Opt(choice("next-free", "balanced"), choice("round-robin", "")),
        "--min-shared-items": count(0, 10**4, [0, 1, 30, 10**4]),
        "--hours-per-day": num(0.1, 24, ["0.1", "8", "24"]),
        "--days-per-week": count(1, 7, [1, 7]),
        "--time-spread": num(0, 2, ["0", "0.5", "2"]),
        "--attention-check-share": num(0, 0.999, ["0", "0.5", "0.999"]),
        "--attention-fail-rate": num(0, 1, ["0", "0.999", "1"]),
        "--requalification-hours": num(0, 100, ["0", "100"]),
        "--adjudicators": count(1, 10, [1, 10]),
        "--runs": Opt(choice("1", "2", "3"), choice("0", "-1", "abc", str(10**30))),
        "--seed": Opt(SEEDS, odd_integers),
        "--json": FLAG,
        "--quiet": FLAG,
    }


@fuzz_settings(ci=40, explore=400)
@given(data=st.data())
def test_fuzz_schedule(fuzz_dir, data):
    table = schedule_options(fuzz_dir)
    valid = [*VALID_SCENARIOS, "team.toml", "team.toml"]  # the named team twice as often
    scenario = st.sampled_from([inp(fuzz_dir, n) for n in valid]).map(lambda p: [p])
    args = data.draw(
        st.one_of(
            scenario,
            input_paths(fuzz_dir, list(SCENARIOS)).map(lambda p: [p]),
            st.just(["--prevalence", "0.2", "--width", "0.2"]),
        )
    )
    if data.draw(st.booleans()):  # a number of items instead of planning them
        args = ["--items", data.draw(table["--items"].values())]
        if data.draw(st.booleans()):
            args += ["--contested-rate", data.draw(table["--contested-rate"].values())]
    planned = ["--design", "--prevalence", "--pilot-counts", "--width", "--assurance"]
    planned += ["--error-rate", "--bias", "--ambiguity", "--union-rate", "--psa", "--kappa"]
    planned += ["--pilot", "--pair", "--positive", "--confidence", "--metric"]
    team = [f for f in table if f not in planned and f not in ("--items", "--contested-rate")]
    args += data.draw(options(table, team if "--items" in args else team + planned))
    if data.draw(st.integers(0, 5)) == 5:  # anything at all, often clashing
        args += data.draw(options(table, max_size=2))
    args = with_defaults(args, {"--runs": "2", "--seed": "1"})
    run("schedule", args, fuzz_dir, columns=data.draw(st.sampled_from([80, 40, 200])))


REPORT_OPTIONS: dict[str, Opt] = {
    "--out": Opt(None),  # always given, into a fresh folder (the default writes ./reports)
    "--force": FLAG,
    "--seed": Opt(SEEDS, odd_integers),
    "--quiet": FLAG,
}
CHEAP_REPORTS = ["good.toml", "rare.toml", "escape-stratum.toml"]
#: report --labelled's label files (a pair, three annotators)
LABELLED_FILES = ["long.csv", "wide.csv"]


def report_options(root: Path) -> dict[str, Opt]:
    """report's options, with those of a study in progress (``--labelled FILE``)."""
    return {
        **REPORT_OPTIONS,
        "--labelled": Opt(st.sampled_from([inp(root, p) for p in LABELLED_FILES])),
        "--stratum-col": Opt(choice("stratum", "missing")),
        "--pair": Opt(choice("A,B", "B,A", "A,C", "A")),
        "--positive": Opt(choice("1", "yes", "x")),
        "--hours": num(0.01, 1000, ["0.01", "1", "1000"]),
        "--budget": num(1, 1e5, ["1", "100000"]),
        "--layout": Opt(choice("auto", "long", "wide")),
        "--item-col": Opt(choice("item", "doc")),
        "--annotator-col": Opt(choice("annotator", "rater")),
        "--label-col": Opt(choice("label", "verdict")),
        "--missing": Opt(choice("NA,n/a", "NA", "null")),
        "--annotator-cols": Opt(choice("A,B", "A,B,C", "x")),
        "--format": Opt(choice("csv", "tsv", "jsonl", "xlsx")),
    }


@fuzz_settings(ci=6, explore=150)
@given(data=st.data())
def test_fuzz_report(fuzz_dir, data):
    cheap = st.sampled_from([inp(fuzz_dir, n) for n in CHEAP_REPORTS])
    odd = input_paths(fuzz_dir, [n for n in SCENARIOS if n not in VALID_SCENARIOS])
    scenarios = data.draw(
        mostly(st.lists(cheap, min_size=1, max_size=2), st.lists(odd, min_size=0, max_size=2))
    )
    args = [*scenarios, "--out", data.draw(output_paths(fuzz_dir))]
    args += data.draw(options(REPORT_OPTIONS, ["--force", "--seed", "--quiet"], 2))
    run("report", with_defaults(args, {"--seed": "1"}), fuzz_dir)


@fuzz_settings(ci=4, explore=60)
@given(data=st.data())
def test_fuzz_report_in_progress(fuzz_dir, data):
    """``report SCENARIO --labelled FILE`` of a cheap scenario, with the reader's options."""
    table = report_options(fuzz_dir)
    cheap = st.sampled_from([inp(fuzz_dir, n) for n in ["good.toml", "strata.toml"]])
    args = [data.draw(cheap), "--out", data.draw(output_paths(fuzz_dir))]
    args += data.draw(options(table, ["--labelled"], 1))
    rest = [f for f in table if f not in ("--out", "--labelled")]
    args += data.draw(options(table, rest, 3))
    run("report", with_defaults(args, {"--seed": "1", "--positive": "yes"}), fuzz_dir)


SCENARIOS_OPTIONS: dict[str, Opt] = {"--json": FLAG}


@fuzz_settings(ci=2, explore=10)
@given(data=st.data())
def test_fuzz_scenarios(fuzz_dir, data):
    run("scenarios", data.draw(options(SCENARIOS_OPTIONS, max_size=2)), fuzz_dir)


EXAMPLES_OPTIONS: dict[str, Opt] = {"--json": FLAG, "--force": FLAG}


@fuzz_settings(ci=4, explore=30)
@given(data=st.data())
def test_fuzz_examples(fuzz_dir, data):
    """``planner examples``, listing or copying (into a fresh folder, a file, or twice)."""
    args = data.draw(options(EXAMPLES_OPTIONS, max_size=2))
    if data.draw(st.booleans()):
        args += ["--copy", data.draw(output_paths(fuzz_dir))]
    run("examples", args, fuzz_dir)
