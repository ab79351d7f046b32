"""Reading label files: ids and labels shown as typed, Parquet value types, no-effect options."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.labels import ratings_from_matrix
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels
from planner.measuring.measure import measure_agreement
from planner.measuring.measure_settings import MeasureSettings

runner = CliRunner()


def _one_line(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "internal error" not in lines[0]
    return lines[0]


def test_ids_and_annotators_are_shown_as_typed_not_as_numpy_reprs(tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("item,annotator,label\n7,1.5,1\n7,1.5,2\n2,a,1\n2,b,1\n")
    line = _one_line(runner.invoke(app, ["agree", str(path)]))
    assert "item '7' is labelled by annotator '1.5'" in line  # ids are text, as written
    assert "np." not in line


def test_labels_that_look_like_markup_are_printed_as_text(tmp_path):
    path = tmp_path / "markup.csv"
    rows = ["item,annotator,label", "1,a,[/]", "1,b,[/]", "2,a,x", "2,b,[/]", "3,a,[red]z"]
    path.write_text("\n".join([*rows, "3,b,x", ""]))
    result = runner.invoke(app, ["agree", str(path), "--seed", "1"])
    assert result.exit_code == 0, result.stderr
    assert "[/]: 3" in result.stdout and "[red]z: 1" in result.stdout


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([[1], [2], [1], [1]], "a value is an array"),
        ([b"x", b"y", b"x", b"x"], "a value is bytes"),
        (pd.to_datetime(["2020-01-01"] * 4), "dates or durations"),
    ],
)
def test_parquet_labels_that_are_not_text_or_numbers_are_refused(tmp_path, values, message):
    path = tmp_path / "odd.parquet"
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": list("abab"), "label": values})
    frame.to_parquet(path)
    assert message in _one_line(runner.invoke(app, ["agree", str(path), "--json"]))


@pytest.mark.slow
def test_schedule_errors_are_one_line_with_no_blank_line_first():
    out = subprocess.run(
        [sys.executable, "-m", "planner", "schedule", "--items", "200", "--hours-per-day", "nan"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("error: --hours-per-day must be")
    assert out.stderr.count("\n") == 1


def test_adjudication_work_without_adjudicators_is_refused():
    result = runner.invoke(
        app,
        ["schedule", "--items", "200", "--seed", "1", "--adjudicators", "0"]
        + ["--contested-rate", "0.5", "--adjudication-seconds", "120"],
    )
    assert "--adjudicators must be at least 1" in _one_line(result)
    fine = runner.invoke(app, ["schedule", "--items", "200", "--seed", "1", "--adjudicators", "0"])
    assert fine.exit_code == 0, fine.stderr


def test_format_is_named_by_its_flag(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("item,annotator,label\n1,a,1\n1,b,1\n")
    line = _one_line(runner.invoke(app, ["agree", str(path), "--format", "xls"]))
    assert line.startswith("error: --format must be one of")


def test_options_without_effect_in_agree_say_so():
    result = runner.invoke(
        app, ["agree", "--counts", "6,21,14,459", "--force", "--layout", "wide", "--seed", "1"]
    )
    assert result.exit_code == 0
    assert "--force has no effect without --contested" in result.stderr  # notes: stderr
    assert "--layout: options for label files, no effect with --counts" in result.stderr


def test_an_empty_out_is_refused_not_read_as_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["report", "unsupported-claims", "--out", ""])
    assert "--out must name a folder" in _one_line(result)
    assert list(tmp_path.iterdir()) == []


# Final review of the session's change: each of these gave a wrong number or a crash.


def test_integer_annotators_and_labels_in_parquet_are_only_the_values_that_occur(tmp_path):
    rng = np.random.default_rng(0)
    rows = [(i, a, int(rng.choice([1, 2, 4, 5]))) for i in range(50) for a in (101, 317)]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    frame.to_parquet(tmp_path / "p.parquet")
    frame.to_csv(tmp_path / "p.csv", index=False)
    parquet = read_labels(tmp_path / "p.parquet")
    assert parquet.annotators == ("101", "317")
    assert list(parquet.categories) == [1, 2, 4, 5]
    csv = measure_agreement(read_labels(tmp_path / "p.csv"), rng=1).coefficients
    same = measure_agreement(parquet, rng=1).coefficients
    assert same["gwet_ac1"].estimate == pytest.approx(csv["gwet_ac1"].estimate, abs=1e-12)


def test_unused_declared_categories_in_parquet_are_dropped(tmp_path):
    frame = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": list("abab"), "label": list("xxyx")})
    frame["annotator"] = pd.Categorical(frame["annotator"], categories=["a", "b", "ghost"])
    frame["label"] = pd.Categorical(frame["label"], categories=["x", "y", "never"])
    frame.to_parquet(tmp_path / "c.parquet")
    ratings = read_labels(tmp_path / "c.parquet")
    assert ratings.annotators == ("a", "b") and list(ratings.categories) == ["x", "y"]


def test_weighted_cohen_kappa_at_the_interval_level_uses_the_values(tmp_path):
    a = np.array([0, 1, 10, 0, 1, 10, 0, 1])
    b = np.array([1, 10, 10, 0, 0, 1, 0, 1])
    values = np.array([0.0, 1.0, 10.0])
    # by hand: quadratic weights on the values, kappa_w = (p_o - p_e) / (1 - p_e)
    w = 1 - (values[:, None] - values[None, :]) ** 2 / (values.max() - values.min()) ** 2
    ia, ib = np.searchsorted(values, a), np.searchsorted(values, b)
    p = np.zeros((3, 3))
    np.add.at(p, (ia, ib), 1 / len(a))
    p_o, p_e = (w * p).sum(), p.sum(1) @ w @ p.sum(0)
    by_hand = (p_o - p_e) / (1 - p_e)
    ratings = ratings_from_matrix(np.stack([a, b], 1).astype(float), rows="items")
    got = measure_agreement(ratings, MeasureSettings(level="interval"), rng=1).coefficients
    assert got["cohen_kappa_quadratic"].estimate == pytest.approx(by_hand, abs=1e-12)
    ranks = measure_agreement(ratings, MeasureSettings(level="ordinal"), rng=1).coefficients
    assert ranks["cohen_kappa_quadratic"].estimate != pytest.approx(by_hand, abs=1e-3)


def test_an_annotator_named_twice_is_refused(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("item,a,b\n1,x,x\n2,x,y\n3,y,y\n")
    line = _one_line(runner.invoke(app, ["agree", str(path), "--annotator-cols", "a,a"]))
    assert "--annotator-cols names a more than once" in line


@pytest.mark.slow
def test_labels_equal_as_numbers_are_one_category(tmp_path):
    path = tmp_path / "m.jsonl"
    lines = [
        '{"item":1,"annotator":"a","label":1}',
        '{"item":1,"annotator":"b","label":"1"}',
        '{"item":2,"annotator":"a","label":2}',
        '{"item":2,"annotator":"b","label":2}',
    ]
    path.write_text("\n".join(lines) + "\n")
    ratings = read_labels(path)
    assert list(ratings.categories) == [1, 2]
    report = measure_agreement(ratings, rng=1)
    assert report.coefficients["observed_agreement"].estimate == 1.0


def test_missing_strings_apply_to_label_cells_only(tmp_path):
    path = tmp_path / "wm.csv"
    path.write_text("item,week,a,b\nNA,NA,x,x\n2,w1,x,NA\n3,w1,y,y\n4,w2,x,y\n")
    ratings = read_labels(path, ReaderSettings(missing=("NA",), by=("week",)))
    assert "NA" in [str(v) for v in ratings.items]
    assert sorted(map(str, ratings.groups["week"])) == ["NA", "w1", "w1", "w2"]
    assert ratings.n_ratings == 7  # one label cell is NA


def test_a_grouping_column_of_arrays_is_refused(tmp_path):
    path = tmp_path / "b.jsonl"
    path.write_text(
        '{"item":1,"annotator":"a","label":"x","g":[1]}\n'
        '{"item":1,"annotator":"b","label":"x","g":[1]}\n'
    )
    assert "a value is an array" in _one_line(runner.invoke(app, ["agree", str(path), "--by", "g"]))
