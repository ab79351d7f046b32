"""The audit's reproducers of engines that read the same file differently, each fixed.

H1: quoted labels after DuckDB's sniff sample, True/true/False/false, a late unterminated
quote; H2: numeric-looking ids and annotator names merged by pandas; M5: NFC and NFD
spellings as two categories; NUL bytes after the first 8 KiB; a UTF-8 BOM before JSON Lines.
Expected values are counted by hand from the files written here.
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import read_labels

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install planner[duckdb])")

from planner.data.engine_duckdb import count_labels  # noqa: E402

runner = CliRunner()
ENGINES = ("pandas", "duckdb")


def _read(path, engine, **options):
    if engine == "pandas":
        return read_labels(path, ReaderSettings(**options))

    return count_labels(path, ReaderSettings(**options))


@pytest.mark.parametrize("engine", ENGINES)
def test_quoted_labels_past_the_sniff_sample_are_the_same_labels(tmp_path, engine):
    # 30,000 rows without quotes (past DuckDB's 20,480-row sample), then "yes" quoted
    lines = ["item,ann_a,ann_b"] + [f"{i},yes,no" for i in range(30_000)]
    lines += [f'{i},"yes","no"' for i in range(30_000, 30_010)]
    path = tmp_path / "late_quotes.csv"
    path.write_text("\n".join(lines) + "\n")
    ratings = _read(path, engine, layout="wide")
    assert [str(c) for c in ratings.categories] == ["no", "yes"]
    assert ratings.n_items == 30_010


@pytest.mark.parametrize("engine", ENGINES)
def test_booleans_in_any_case_are_one_label_each(tmp_path, engine):
    path = tmp_path / "booleans.csv"
    path.write_text("item,r1,r2,r3\n1,True,true,TRUE\n2,False,false,FALSE\n3,true,True,false\n")
    ratings = _read(path, engine, layout="wide")
    assert [str(c) for c in ratings.categories] == ["false", "true"]
    assert ratings.counts().sum(axis=0).tolist() == [4, 5]  # 4 false, 5 true, by hand


@pytest.mark.parametrize("engine", ENGINES)
def test_a_late_unterminated_quote_is_refused_in_one_line(tmp_path, engine):
    lines = ["item,annotator,label"]
    lines += [f"{i},{a},x" for i in range(30_000) for a in ("ann_a", "ann_b")]
    path = tmp_path / "late_quote.csv"
    path.write_text("\n".join(lines) + '\n30001,"ann_a,x\n')
    result = runner.invoke(app, ["agree", str(path), "--engine", engine])
    assert result.exit_code in (1, 2), result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize("engine", ENGINES)
def test_numeric_looking_ids_and_annotators_stay_distinct(tmp_path, engine):
    pairs = ["007", "7", "1e3", "1000", "7.0", "+5", "5"]  # seven items, as written
    rows = [f"{item},{a},x" for item in pairs for a in ("1", "01")]
    path = tmp_path / "ids.csv"
    path.write_text("item,annotator,label\n" + "\n".join(rows) + "\n")
    ratings = _read(path, engine, layout="long")
    assert ratings.n_items == 7
    assert sorted(ratings.annotators) == ["01", "1"]
    # " 5" is "5" with a space around it: the same item
    path.write_text("item,annotator,label\n 5,1,x\n5,01,x\n6,1,y\n6,01,y\n")
    assert _read(path, engine, layout="long").n_items == 2


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_nfc_and_nfd_spellings_are_one_category(tmp_path, engine):
    nfc, nfd = (unicodedata.normalize(form, "café") for form in ("NFC", "NFD"))
    rows = [f"{i},{nfc},{nfd}" for i in range(10)] + [f"{i},thé,thé" for i in range(10, 20)]
    path = tmp_path / "accents.csv"
    path.write_text("item,a,b\n" + "\n".join(rows) + "\n")
    result = runner.invoke(app, ["agree", str(path), "--engine", engine, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["coefficients"]["observed_agreement"]["estimate"] == 1.0  # they agree on all
    assert len(_read(path, engine, layout="wide").categories) == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_nul_bytes_after_the_first_bytes_are_refused_in_one_line(tmp_path, engine):
    body = "item,a,b\n" + "".join(f"{i},x,y\n" for i in range(3000))  # past 8 KiB
    path = tmp_path / "padded.csv"
    path.write_bytes(body.encode() + b"\x00" * 16 + b"\n3001,x,y\n")
    result = runner.invoke(app, ["agree", str(path), "--engine", engine])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: {path}: contains NUL bytes, so it is not a csv text file"
    ]


def test_a_bom_before_json_lines_is_read_as_before_csv(tmp_path):
    records = [
        {"item": i, "annotator": a, "label": "x" if i % 2 else "y"}
        for i in range(6)
        for a in ("a", "b")
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    plain, bom = tmp_path / "plain.jsonl", tmp_path / "bom.jsonl"
    plain.write_text(text)
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    a, b = read_labels(plain), read_labels(bom)
    assert a.n_items == b.n_items == 6 and a.counts().tolist() == b.counts().tolist()


@pytest.mark.parametrize("engine", ENGINES)
def test_typed_parquet_values_are_their_text(tmp_path, engine):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {"item": [1, 1, 2, 2, 3, 3], "annotator": ["a", "b"] * 3},
    )
    frame["label"] = [True, True, False, True, False, False]
    path = tmp_path / "typed.parquet"
    frame.to_parquet(path, index=False)
    ratings = _read(path, engine, layout="long")
    assert [str(c) for c in ratings.categories] == ["false", "true"]
    assert ratings.category_index("True") == 1  # --positive True names the label true


@pytest.mark.slow
def test_ids_longer_than_38_digits_are_ordered_as_text_on_both_engines(tmp_path, monkeypatch):
    # 40 digits overflow DuckDB's HUGEINT: both engines then order the contested ids as text
    # ("10..." before "9"), and neither fails
    long_id = "1" + "0" * 39
    path = tmp_path / "long_ids.csv"
    path.write_text(f"item,annotator,label\n9,a,x\n9,b,y\n{long_id},a,x\n{long_id},b,y\n")
    monkeypatch.chdir(tmp_path)
    written = {}
    for engine in ENGINES:
        out = tmp_path / f"contested_{engine}.csv"
        result = runner.invoke(
            app, ["agree", str(path), "--engine", engine, "--contested", str(out), "--seed", "1"]
        )
        assert result.exit_code == 0, result.output
        written[engine] = [line.split(",")[0] for line in out.read_text().splitlines()[1:]]
    assert written["pandas"] == written["duckdb"] == [long_id, "9"]
