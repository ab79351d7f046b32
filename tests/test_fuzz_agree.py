"""The command-line fuzz of ``agree`` and ``fit``, the commands that read label files.

The files (tests/cli_fuzzing.py's LABELS) are small and awkward on purpose: one item, two
items, all annotators agreeing, all missing but one rating, one category, six annotators,
escapes in names and labels, numeric-looking ids, quoted labels, NFC/NFD text, duplicates,
a glob of parts. Each is read with the reader options that fit it, then measured with
options mostly valid (both engines, groups, levels, bootstrap with 100 resamples,
--contested into a fresh temporary folder or, to check the refusal, onto an input file).
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
    inp,
    mostly,
    num,
    odd_integers,
    odd_paths,
    options,
    output_paths,
    run,
    with_defaults,
)

pytestmark = pytest.mark.slow

#: file -> the reader options that read it (the fuzz adds others, sometimes clashing)
READ = {
    "long.csv": ["--positive", "yes"],
    "wide.csv": [],
    "other-names.csv": ["--item-col", "doc", "--annotator-col", "rater", "--label-col", "verdict"],
    "one-item.csv": [],
    "two-items.csv": [],
    "all-agree.csv": [],
    "one-category.csv": [],
    "missing-but-one.csv": [],
    "six.csv": [],
    "ordinal.csv": ["--level", "ordinal"],
    "grouped.csv": ["--by", "week"],
    "many-groups.csv": ["--by", "week"],
    "escapes.csv": ["--positive", "yes"],
    "numeric-ids.csv": [],
    "quoted.csv": ["--positive", "yes"],
    "na.csv": ["--missing", "NA,n/a"],
    "inf.csv": [],
    "unicode.tsv": [],
    "nfd.csv": [],
    "one-annotator.csv": [],
    "labels.jsonl": [],
    "odd.jsonl": [],
    "empty.csv": [],
    "all-empty.csv": [],
    "nan-column.csv": [],
    "duplicate.csv": [],
    "duplicate-wide.csv": [],
    "header-only.csv": [],
    "bad.parquet": [],
    "alt.csv": ["--by", "domain"],
    "alt-scores.csv": ["--level", "interval"],
    "late-nul.csv": ["--positive", "yes"],
    "nul.csv": [],
    "parts/*.csv": ["--positive", "yes", "--engine", "duckdb"],
}
FIT_FILES = ["wide.csv", "all-agree.csv", "missing-but-one.csv", "six.csv", "alt.csv"]
FIT_FILES += ["alt-scores.csv", "wide.csv", "six.csv", "long.csv", "parts/*.csv"]


def reader_options(root: Path) -> dict[str, Opt]:
    """The reader options agree, fit and alt-test share."""
    return {
        "--layout": Opt(choice("auto", "long", "wide")),
        "--item-col": Opt(choice("item", "doc", "label")),
        "--annotator-col": Opt(choice("annotator", "rater")),
        "--label-col": Opt(choice("label", "verdict")),
        "--annotator-cols": Opt(choice("A,B", "A,B,C", "A,A", "a1,a2,a3,a4,a5,a6", "h1,h2", "A")),
        # the deprecated spelling of --annotator-cols
        "--annotators": Opt(choice("A,B", "A,B,C", "A,A", "a1,a2,a3,a4,a5,a6", "h1,h2")),
        "--format": Opt(choice("csv", "tsv", "parquet", "jsonl")),
        "--missing": Opt(choice("NA,n/a", "NA", "null", "0")),
        "--engine": Opt(choice("pandas", "duckdb", "auto")),
        "--memory-limit": Opt(choice("1GB", "100MB", "64MB")),
        "--temp-dir": Opt(output_paths(root)),
    }


def agree_options(root: Path) -> dict[str, Opt]:
    inputs = [inp(root, n) for n in ("long.csv", "parts/part1.csv", "parts/part2.csv")]
    return {
        **reader_options(root),
        "--vector-counts": Opt(
            choice(inp(root, "vectors.csv"), inp(root, "bad-vectors.csv"), inp(root, "six.csv"))
        ),
        "--category-counts": Opt(choice(inp(root, "patterns.csv"), inp(root, "vectors.csv"))),
        "--count-col": Opt(choice("count", "A", "n")),
        "--counts": Opt(
            choice("6,21,14,459", "1,0,0,0", "0,0,0,1", "1,1,1,1", "1000000,1,1,1000000"),
            st.sampled_from(["0,0,0,0", "-1,2,3,4", "1e3,1,1,1", f"1,1,1,{10**30}", "1,2,3"]),
        ),
        # the Spark engine is not fuzzed (a JVM per call); without it the master is a note
        "--spark-master": Opt(choice("local[2]", "spark://127.0.0.1:9")),
        "--positive": Opt(choice("yes", "1", "x", "no")),
        "--level": Opt(choice("nominal", "ordinal", "interval", "ratio")),
        "--weights": Opt(choice("quadratic", "linear")),
        "--order": Opt(choice("no,yes", "0,1,2", "yes,yes")),
        "--confidence": num(0.5, 0.999, ["0.5", "0.9", "0.999"]),
        "--bootstrap": FLAG,
        "--n-boot": Opt(choice("100", "101", "150"), choice("-1", "99", "abc", str(10**30))),
        "--kappa-method": Opt(choice("score", "gof", "fce", "bootstrap")),
        "--cohen-marginals": Opt(choice("complete", "gwet")),
        "--weighted-kappa-method": Opt(choice("bootstrap", "wald")),
        "--alpha-min": num(-1, 1, ["-1", "0", "0.8", "1"]),
        "--decide-on": Opt(
            choice("psa", "krippendorff_alpha", "cohen_kappa", "fleiss_kappa", "gwet_ac1")
        ),
        "--not-demonstrated-below": num(-1, 1, ["-1", "0.4", "1"]),
        "--demonstrated-at": num(-1, 1, ["-1", "0.65", "1"]),
        "--by": Opt(choice("week", "domain", "A", "item")),
        "--stratum-col": Opt(choice("week", "domain", "A")),
        "--population-shares": Opt(
            choice("w0=0.5,w1=0.5", "d0=0.3,d1=0.7", "w0=1", "w0=0.5,w9=0.5")
        ),
        "--population-shares-from": Opt(choice(inp(root, "strata.toml"), "clinical-chart-review")),
        "--contested": Opt(output_paths(root, inputs)),
        "--force": FLAG,
        "--seed": Opt(SEEDS, odd_integers),
        "--quiet": FLAG,
        "--json": FLAG,
    }


def fit_options(root: Path) -> dict[str, Opt]:
    return {
        **reader_options(root),
        "--repeats": Opt(choice("keep", "refuse")),
        "--positive": Opt(choice("1", "yes", "0")),
        "--n-boot": Opt(choice("0", "100", "101"), choice("1", "99", "-1", str(10**30))),
        "--bootstrap": Opt(choice("0", "100"), choice("99")),  # the old spelling of --n-boot
        "--max-iter": count(1, 1000, [1, 2, 1000]),
        "--confidence": num(0.5, 0.999, ["0.5", "0.999"]),
        "--seed": Opt(SEEDS, odd_integers),
        "--quiet": FLAG,
        "--json": FLAG,
    }


def source(
    root: Path, names: list[str], table: dict[str, Opt] | None = None
) -> st.SearchStrategy[list[str]]:
    """A file with the reader options that read it (those ``table`` knows), or an odd path."""

    def read(name: str) -> list[str]:
        pairs = zip(READ[name][::2], READ[name][1::2], strict=True)
        return [a for f, v in pairs if table is None or f in table for a in (f, v)]

    files = st.sampled_from(names).map(lambda n: [inp(root, n), *read(n)])
    return mostly(files, st.sampled_from(odd_paths(root)).map(lambda p: [p]))


@fuzz_settings(ci=60, explore=700)
@given(data=st.data())
def test_fuzz_agree(fuzz_dir, data):
    table = agree_options(fuzz_dir)
    counts = table["--counts"].values().map(lambda c: ["--counts", c])
    vectors = table["--vector-counts"].values().map(lambda c: ["--vector-counts", c])
    patterns = table["--category-counts"].values().map(lambda c: ["--category-counts", c])
    files = source(fuzz_dir, list(READ))
    args = data.draw(st.one_of(files, files, counts, vectors, patterns))
    args += data.draw(options(table))
    if data.draw(st.booleans()):
        args += ["--contested", data.draw(table["--contested"].values())]
    if data.draw(st.integers(0, 9)) == 0:  # onto a file the glob reads, with and without force
        part = data.draw(st.sampled_from(["part1.csv", "part2.csv"]))
        args = [inp(fuzz_dir, "parts/*.csv"), "--positive", "yes"]
        args += ["--contested", inp(fuzz_dir, f"parts/{part}")]
        args += data.draw(st.sampled_from([["--force"], [], ["--force", "--engine", "pandas"]]))
        args += data.draw(st.sampled_from([[], ["--engine", "duckdb"]]))
    args = with_defaults(args, {"--n-boot": "100", "--seed": "1"})
    run("agree", args, fuzz_dir, columns=data.draw(st.sampled_from([80, 40, 200])))


@fuzz_settings(ci=30, explore=400)
@given(data=st.data())
def test_fuzz_fit(fuzz_dir, data):
    table = fit_options(fuzz_dir)
    args = data.draw(source(fuzz_dir, FIT_FILES, table)) + data.draw(options(table, max_size=4))
    args = with_defaults(args, {"--bootstrap": "100", "--seed": "1"})
    run("fit", args, fuzz_dir, columns=data.draw(st.sampled_from([80, 200])))
