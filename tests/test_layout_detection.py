"""Layout detection people can trust: names and value shapes decide, both engines alike.

Each test failed before the change it guards: a long file with an id-suffixed item column
was refused as ambiguous, the refusal's hint named options the refusing command rejects,
``--layout wide`` failed (or read a week column as an annotator) where auto-detection read
the file, and an extra ``domain`` column in an Alt-Test file was proposed as an annotator.
"""

from __future__ import annotations

import json
import shlex

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.layout import LayoutUnclear, find_columns, kind_of_name
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install planner[duckdb])")

runner = CliRunner()
ENGINES = ("pandas", "duckdb")


def _run(*args: str):
    return runner.invoke(app, [*args])


def _json(*args: str) -> dict:
    result = _run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _study(n: int = 60, m: int = 3, seed: int = 0) -> np.ndarray:
    """Labels yes/no of ``m`` annotators on ``n`` items, agreeing on most of them."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.4
    flips = rng.random((n, m)) < 0.15
    return np.where(truth[:, None] ^ flips, "yes", "no")


def _long_csv(path, labels: np.ndarray, header=("comment_id", "annotator", "label")) -> str:
    rows = [
        f"c{i:03d},ann{j},{labels[i, j]}"
        for i in range(len(labels))
        for j in range(labels.shape[1])
    ]
    path.write_text(",".join(header) + "\n" + "\n".join(rows) + "\n")
    return str(path)


def _fleiss(labels: np.ndarray) -> float:
    """Fleiss' kappa of the labels, from their per-item category counts (independently)."""
    counts = np.stack([(labels == "no").sum(1), (labels == "yes").sum(1)], axis=1)
    n, m = len(labels), labels.shape[1]
    p = counts.sum(0) / (n * m)
    agreement = ((counts * (counts - 1)).sum(1) / (m * (m - 1))).mean()
    expected = float((p**2).sum())
    return float((agreement - expected) / (1 - expected))


# --------------------------------------------------------------------------- names


def test_names_say_the_kind_of_a_column():
    # *_id is an item's id unless it is an annotator's; plain words as listed
    assert [kind_of_name(n) for n in ("comment_id", "postId", "ID", "item")] == ["item"] * 4
    assert [kind_of_name(n) for n in ("worker_id", "rater", "Coder", "judge")] == ["annotator"] * 4
    assert [kind_of_name(n) for n in ("label", "rating", "verdict", "score")] == ["label"] * 4
    assert [kind_of_name(n) for n in ("alice", "paid", "valid", "week")] == [None] * 4


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_a_long_file_with_an_id_suffixed_item_column_is_read_as_long(tmp_path, engine):
    # regression: comment_id,annotator,label was refused as ambiguous
    labels = _study()
    path = _long_csv(tmp_path / "comments.csv", labels)
    doc = _json("agree", path, "--engine", engine, "--seed", "1")
    assert doc["input"]["layout"] == "long" and doc["input"]["item_col"] == "comment_id"
    assert doc["n_items"] == 60 and doc["annotators"] == ["ann0", "ann1", "ann2"]
    fleiss = doc["coefficients"]["fleiss_kappa"]["estimate"]
    assert fleiss == pytest.approx(_fleiss(labels), abs=1e-12)
    # the item column found by its name equals the one named by the options
    named = _json(
        "agree", path, "--engine", engine, "--seed", "1", "--layout", "long",
        "--item-col", "comment_id",
    )  # fmt: skip
    assert named["coefficients"] == doc["coefficients"]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_the_one_column_beside_an_annotator_and_a_label_column_is_the_item(tmp_path, engine):
    # regression: patient,observer,rating was refused as ambiguous
    labels = _study(seed=3)
    path = _long_csv(tmp_path / "p.csv", labels, ("patient", "observer", "rating"))
    doc = _json("agree", path, "--engine", engine, "--seed", "1")
    assert doc["input"] == {
        "layout": "long", "item_col": "patient", "annotator_col": "observer",
        "label_col": "rating", "n_missing_ratings": 0, "missing_values": [],
    } | ({"n_patterns": doc["input"]["n_patterns"]} if engine == "duckdb" else {})  # fmt: skip


def test_names_that_contradict_the_values_are_refused():
    # an annotator-named column with a different value in every row is not one
    frame = pd.DataFrame(
        {"doc": np.arange(40) // 2, "rater": [f"r{i}" for i in range(40)], "verdict": ["a"] * 40}
    )
    with pytest.raises(LayoutUnclear, match="rater has a different value in every row"):
        find_columns(frame)


# --------------------------------------------------------------------------- hints


def _hints(stderr: str) -> list[list[str]]:
    """The settings the one-line refusal proposes, each as command-line arguments."""
    line = stderr.strip().splitlines()[-1]
    assert "; set " in line, line
    return [shlex.split(way) for way in line.split("; set ", 1)[1].split(", or ")]


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ("agree", "--seed", "1"),
        ("fit", "--seed", "1"),
        ("alt-test", "--llm", "u2", "--epsilon", "0.2", "--min-items", "5"),
        ("plan", "--width", "0.2", "--pair", "u0,u1", "--replicates", "200", "--seed", "1"),
    ],
)
def test_a_refusals_hint_is_a_command_that_works_for_that_command(tmp_path, command):
    # regression: the hint proposed --annotators a,b, which plan --pilot rejects
    rng = np.random.default_rng(5)
    rows = [
        f"p{i},u{j},{int(rng.random() < 0.3 + 0.4 * (i % 2))}" for i in range(40) for j in range(3)
    ]
    path = tmp_path / "unclear.csv"
    path.write_text("post,person,answer\n" + "\n".join(rows) + "\n")
    file = ["--pilot", str(path)] if command[0] == "plan" else [str(path)]
    refused = _run(command[0], *file, *command[1:])
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    hints = _hints(refused.stderr)
    assert hints and all("--annotators" not in way for way in hints)
    for way in hints:
        result = _run(command[0], *file, *command[1:], *way)
        assert result.exit_code == 0, (way, result.output)


@pytest.mark.slow
def test_a_wide_hint_names_the_columns_that_share_labels(tmp_path):
    # two groups of columns share labels within themselves: the hint reads the larger one
    rows = "".join(f"{i},{'xy'[i % 2]},{'xy'[i % 3 > 0]},{'xy'[i % 4 > 0]},{i % 2},{i % 3}\n"
                   for i in range(30))  # fmt: skip
    path = tmp_path / "groups.csv"
    path.write_text("item,a,b,c,n1,n2\n" + rows)
    refused = _run("agree", str(path))
    assert refused.exit_code == 2, refused.output
    assert "separate groups" in refused.stderr
    (wide,) = [w for w in _hints(refused.stderr) if "wide" in w]
    assert wide[wide.index("--annotator-cols") + 1] == "a,b,c"
    assert _run("agree", str(path), *wide, "--seed", "1").exit_code == 0


# --------------------------------------------------------------------------- explicit layout


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_explicit_wide_reads_as_auto_does(tmp_path, engine):
    # regressions: --layout wide read examples/wide.csv's week as an annotator, and refused a
    # file whose all-distinct serial column auto-detection reads as the item ids
    rows = "".join(f"{1000 + i},{'ab'[i % 2]},{'ab'[(i // 3) % 2]}\n" for i in range(30))
    serial = tmp_path / "serial.csv"
    serial.write_text("serial,a,b\n" + rows)
    for path in (str(serial), "examples/wide.csv"):
        auto = _json("agree", path, "--engine", engine, "--seed", "1")
        wide = _json("agree", path, "--engine", engine, "--seed", "1", "--layout", "wide")
        assert wide["input"] == auto["input"] and wide["coefficients"] == auto["coefficients"]
    assert wide["annotators"] == ["alice", "bob", "carol"]
    # the week column is said, not read as an annotator
    result = _run("agree", "examples/wide.csv", "--engine", engine, "--layout", "wide", "--json")
    assert "'week' not read as annotators" in result.stderr


@st.composite
def _wide_files(draw):
    """A wide frame: an item column, 2-5 annotators with labels from one set, an extra column
    of other values."""
    n = draw(st.integers(4, 30))
    m = draw(st.integers(2, 5))
    labels = draw(st.lists(st.sampled_from("abc"), min_size=n * m, max_size=n * m))
    frame = pd.DataFrame(np.array(labels).reshape(n, m), columns=[f"r{j}" for j in range(m)])
    frame.insert(0, "item", [f"i{k}" for k in range(n)])
    position = draw(st.integers(1, m + 1))
    frame.insert(position, "region", [draw(st.sampled_from(["north", "south"])) for _ in range(n)])
    return frame


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(frame=_wide_files())
def test_auto_and_explicit_wide_read_the_same_annotators(tmp_path, frame):
    path = tmp_path / "w.csv"
    frame.to_csv(path, index=False)
    annotators = [c for c in frame.columns if c not in ("item", "region")]
    for layout in ("auto", "wide"):
        ratings = read_labels(path, ReaderSettings(layout=layout))
        assert list(ratings.annotators) == annotators and ratings.n_items == len(frame)
        assert any("'region' not read as annotators" in note for note in ratings.notes)


# --------------------------------------------------------------------------- extra columns


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_an_alt_test_file_with_a_domain_column_is_read_without_it(tmp_path, engine):
    # regression: refused, the hint proposing domain as an annotator
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 2, 80)
    votes = np.where(rng.random((80, 4)) < 0.85, truth[:, None], 1 - truth[:, None])
    domains = np.array(["news", "sport"])[np.arange(80) % 2]
    frame = pd.DataFrame(np.where(votes == 1, "toxic", "fine"), columns=["h1", "h2", "h3", "llm"])
    frame.insert(0, "item", np.arange(80))
    frame.insert(1, "domain", domains)
    path = tmp_path / "alt.csv"
    frame.to_csv(path, index=False)
    args = ("alt-test", str(path), "--llm", "llm", "--epsilon", "0.2", "--engine", engine)
    result = _run(*args, "--json")
    assert result.exit_code == 0, result.output
    assert "'domain' not read as annotators" in result.stderr
    assert json.loads(result.stdout)["input"]["annotator_cols"] == ["h1", "h2", "h3", "llm"]
    by = _run(*args, "--by", "domain", "--json")
    assert by.exit_code == 0, by.output
    assert "not read as annotators" not in by.stderr  # a grouping column, as asked


def test_a_wide_column_sharing_no_label_is_an_annotator_when_named(tmp_path):
    labels = _study(n=30)
    frame = pd.DataFrame(labels, columns=["a", "b", "c"])
    frame["other"] = np.where(labels[:, 0] == "yes", "Y", "N")  # another spelling
    path = tmp_path / "w.csv"
    frame.to_csv(path, index=False)
    assert list(read_labels(path).annotators) == ["a", "b", "c"]
    named = read_labels(path, ReaderSettings(annotator_cols=["a", "b", "c", "other"]))
    assert list(named.annotators) == ["a", "b", "c", "other"]
    # four categories: the two spellings are not merged
    assert list(named.categories) == ["N", "Y", "no", "yes"]


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_an_unnamed_column_of_ids_that_are_not_labels_is_the_item_column(tmp_path, engine):
    # a few rows (too few to call all-distinct values ids) and one id repeated: the column
    # shares no value with the labels and nearly every row has its own, so it holds the ids
    path = tmp_path / "posts.csv"
    path.write_text("post,a,b\np1,x,y\np2,x,x\np3,y,y\np1,x,y\n")
    doc = _json("agree", str(path), "--engine", engine, "--seed", "1")
    assert doc["input"]["item_col"] == "post" and doc["n_items"] == 3
    result = _run("agree", str(path), "--engine", engine, "--json")
    assert "column 'post' read as item ids" in result.stderr
    assert "1 item id(s) on more than one row (such as 'p1')" in result.stderr


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("option", [("--item-col", "doc"), ("--annotator-col", "rater")])
def test_a_column_named_by_an_option_must_be_there(engine, option):
    # before, auto-detection read the file as wide and the option went unused, unsaid
    result = _run("agree", "examples/wide.csv", *option, "--engine", engine)
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert f"missing column(s) '{option[1]}'" in result.stderr
