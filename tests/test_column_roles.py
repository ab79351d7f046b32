"""No silent guess in column roles: repeated ids and names, one column in two roles, the
old spellings of --annotator-cols, and a scenario's pilot file that says its columns.

Each test failed before its change: a wide file with every item twice counted 1,200
items, ``a,a`` headers became ``a`` and ``a.1``, ``--item-col label --label-col label`` gave
kappa 1.0, and a scenario's pilot file could not name its columns.
"""

from __future__ import annotations

import gzip
import json

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.layout import RoleConflict
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import ratings_from_long, read_labels
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install planner[duckdb])")

runner = CliRunner()
ENGINES = ("pandas", "duckdb")
WIDE = "examples/wide.csv"
LONG = "examples/labels.csv"


def _one_line(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def _json(*args: str):
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


def _twice(tmp_path, extra: str = "") -> str:
    lines = open(WIDE).read().splitlines()
    path = tmp_path / "twice.csv"
    path.write_text("\n".join([*lines, *lines[1:]]) + "\n" + extra)
    return str(path)


# --------------------------------------------------------------------------- repeated ids


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_a_wide_file_with_each_item_twice_counts_each_item_once(tmp_path, engine):
    # regression: examples/wide.csv twice counted 1,200 items, a narrower interval, no note
    read = ("--engine", engine, "--seed", "1", "--annotator-cols", "alice,bob,carol")
    once, _ = _json("agree", WIDE, *read)
    twice, stderr = _json("agree", _twice(tmp_path), *read)
    assert twice["n_items"] == once["n_items"] == 600
    assert twice["coefficients"] == once["coefficients"]
    assert "600 item id(s) on more than one row (such as 'doc-0001')" in stderr
    assert "repeated identical rating(s) kept once" in stderr  # as the long layout says


@pytest.mark.slow
def test_both_engines_say_the_same_of_repeated_wide_ids(tmp_path):
    path = _twice(tmp_path)
    said = [_json("agree", path, "--engine", engine, "--seed", "1")[1] for engine in ENGINES]
    assert said[0] == said[1] and "1,738 repeated identical rating(s)" in said[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_repeated_wide_item_with_other_labels_is_refused_as_in_long(tmp_path, engine):
    path = _twice(tmp_path, "doc-0001,2026-W40,unsupported,supported,supported\n")
    line = _one_line(runner.invoke(app, ["agree", path, "--engine", engine]))
    assert "doc-0001" in line and "alice" in line and "more than once with different labels" in line


@pytest.mark.parametrize("engine", ENGINES)
def test_a_rated_wide_row_without_an_item_id_is_refused(tmp_path, engine):
    path = tmp_path / "noid.csv"
    path.write_text("item,a,b\n1,x,y\n,x,x\n3,y,y\n")
    line = _one_line(runner.invoke(app, ["agree", str(path), "--engine", engine]))
    assert "no 'item'" in line


# --------------------------------------------------------------------------- repeated names


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".csv.gz"])
def test_a_header_naming_a_column_twice_is_refused(tmp_path, engine, suffix):
    # regression: pandas read a,b,a as a, b, a.1 (three annotators)
    sep = "\t" if suffix == ".tsv" else ","
    text = "".join(sep.join(row) + "\n" for row in (("item", "a", "b", "a"), ("1", "x", "y", "x"),
                                                    ("2", "x", "x", "y")))  # fmt: skip
    path = tmp_path / f"dup{suffix}"
    path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    line = _one_line(runner.invoke(app, ["agree", str(path), "--engine", engine]))
    assert "names column(s) 'a' more than once" in line


def test_a_header_longer_than_the_sniffed_bytes_is_checked_whole(tmp_path):
    names = [f"annotator_number_{j:05d}" for j in range(600)]  # about 14 KB of header
    path = tmp_path / "long_header.csv"
    path.write_text(",".join(["item", *names, names[-1]]) + "\n" + ",".join(["1"] * 602) + "\n")
    with pytest.raises(InvalidInput, match="annotator_number_00599' more than once"):
        read_labels(path, ReaderSettings(layout="wide"))


# --------------------------------------------------------------------------- two roles


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("file", "options", "roles"),
    [
        (LONG, ("--item-col", "label", "--label-col", "label"), "(--item-col and --label-col)"),
        (WIDE, ("--item-col", "alice", "--annotator-cols", "alice,bob,carol"),
         "(--item-col and --annotator-cols)"),
        (WIDE, ("--by", "alice", "--annotator-cols", "alice,bob,carol"),
         "(--annotator-cols and --by)"),
        (LONG, ("--annotator-col", "label"), "(--annotator-col and --label-col)"),
    ],
)  # fmt: skip
def test_one_column_in_two_roles_is_refused_in_one_line(engine, file, options, roles):
    # regression: --item-col label --label-col label gave 2 items and kappa 1.0
    line = _one_line(runner.invoke(app, ["agree", file, *options, "--engine", engine]))
    assert roles in line and "is given two roles" in line


def test_the_library_names_the_two_roles_as_parameters():
    import pandas as pd

    frame = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": [0, 1]})
    with pytest.raises(RoleConflict, match=r"\(item_col and label_col\)"):
        ratings_from_long(frame, ReaderSettings(item_col="label"))
    with pytest.raises(RoleConflict, match=r"\(item_col and annotator_cols\)"):
        read_labels(WIDE, ReaderSettings(item_col="alice", annotator_cols=["alice", "bob"]))


STRATIFIED = "examples/stratified-labels.csv"
ENRICHED = "unsupported-claims-enriched"


@pytest.mark.parametrize(
    ("args", "roles"),
    [
        (("plan", "--labelled", STRATIFIED, "--scenario", ENRICHED, "--stratum-col", "item"),
         "(--item-col and --stratum-col)"),
        (("schedule", ENRICHED, "--labelled", STRATIFIED, "--stratum-col", "annotator"),
         "(--annotator-col and --stratum-col)"),
        (("plan", ENRICHED, "--pilot", STRATIFIED, "--stratum-col", "item"),
         "(--item-col and --stratum-col)"),
        (("schedule", ENRICHED, "--pilot", STRATIFIED, "--stratum-col", "item"),
         "(--item-col and --stratum-col)"),
        (("schedule", ENRICHED, "--pilot", STRATIFIED, "--item-col", "label"),
         "(--item-col and --label-col)"),
    ],
)  # fmt: skip
def test_a_stratum_column_in_a_second_role_names_plans_flags(args, roles):
    # regression: plan --labelled ... --stratum-col item ended in "internal error: TypeError"
    # (the refusal could not be copied to rename its flags), and the pilot's named "--by"
    line = _one_line(runner.invoke(app, list(args)))
    assert roles in line and "is given two roles" in line


def test_a_report_in_progress_names_the_stratum_columns_flag(tmp_path):
    # regression: report --labelled ... --stratum-col label ended in an internal error
    args = ["report", ENRICHED, "--labelled", STRATIFIED, "--stratum-col", "label"]
    line = _one_line(runner.invoke(app, [*args, "--out", str(tmp_path / "r")]))
    assert "(--label-col and --stratum-col)" in line
    assert not (tmp_path / "r").exists()


def test_a_readers_refusal_copies_and_pickles_with_its_parts():
    import copy
    import pickle

    from planner.data.layout import LayoutUnclear

    conflict = RoleConflict("f.csv", "item", ("item_col", "stratum_col"))
    unclear = LayoutUnclear("f.csv", "one column", ["a"], ({"layout": "wide"},))
    for exc in (conflict, unclear):
        for again in (copy.copy(exc), pickle.loads(pickle.dumps(exc))):
            assert type(again) is type(exc) and str(again) == str(exc)
    assert copy.copy(conflict).roles == ("item_col", "stratum_col")


def test_the_library_names_a_stratum_columns_role_stratum_col():
    from planner.sizing.strata_file import read_by_stratum

    with pytest.raises(RoleConflict, match=r"\(item_col and stratum_col\)"):
        read_by_stratum(STRATIFIED, "item")


# --------------------------------------------------------------------------- --annotator-cols


@pytest.mark.slow
@pytest.mark.parametrize("command", ["agree", "fit", "alt-test"])
def test_the_old_annotators_spelling_still_reads_the_columns_with_a_note(command):
    extra = {
        "agree": ["--seed", "1", "--positive", "unsupported"],
        "fit": ["--seed", "1", "--positive", "unsupported"],
        "alt-test": ["--llm", "carol", "--epsilon", "0.2"],
    }[command]
    args = [command, WIDE, *extra]
    new, new_err = _json(*args, "--annotator-cols", "alice,bob,carol")
    old, old_err = _json(*args, "--annotators", "alice,bob,carol")
    new.pop("planner_version"), old.pop("planner_version")
    assert old == new
    assert "--annotators alice,bob,carol is now --annotator-cols alice,bob,carol" in old_err
    assert "is now --annotator-cols" not in new_err
    both = runner.invoke(app, [*args, "--annotators", "a,b", "--annotator-cols", "a,b"])
    assert "old spelling of --annotator-cols" in _one_line(both)


@pytest.mark.slow
def test_plan_reads_pilot_columns_with_annotator_cols_and_the_old_pilot_annotators():
    base = ["plan", "--pilot", WIDE, "--positive", "unsupported", "--width", "0.1", "--seed", "1"]
    new, _ = _json(*base, "--annotator-cols", "alice,bob")
    old, stderr = _json(*base, "--pilot-annotators", "alice,bob")
    assert old["pilot"] == new["pilot"] and old["results"] == new["results"]
    assert "--pilot-annotators alice,bob is now --annotator-cols alice,bob" in stderr


# --------------------------------------------------------------------------- scenario pilots


def _scenario(tmp_path, model: str) -> str:
    pilot = tmp_path / "pilot.csv"
    rows = [f"p{i},{who},{int((i * 7 + k) % 5 == 0)}" for i in range(60)
            for k, who in enumerate(("u0", "u1"))]  # fmt: skip
    pilot.write_text("post,person,answer\n" + "\n".join(rows) + "\n")
    path = tmp_path / "s.toml"
    path.write_text(
        f'name = "s"\n[model]\npilot_file = "pilot.csv"\n{model}\n[target]\nwidth = 0.2\n'
    )
    return str(path)


READ = 'pilot_layout = "long"\npilot_item_col = "post"\npilot_annotator_col = "person"\n'


def test_a_scenario_pilot_says_its_layout_and_columns(tmp_path):
    # regression: a scenario's pilot file could not name its columns (refused as unclear)
    path = _scenario(tmp_path, READ + 'pilot_label_col = "answer"')
    doc, _ = _json("plan", path, "--seed", "1", "--replicates", "200")
    flags, _ = _json(
        "plan", "--pilot", str(tmp_path / "pilot.csv"), "--layout", "long", "--item-col", "post",
        "--annotator-col", "person", "--label-col", "answer", "--width", "0.2", "--seed", "1",
        "--replicates", "200",
    )  # fmt: skip
    assert doc["pilot"]["counts"] == flags["pilot"]["counts"] is not None
    said = "item column 'post', annotator column 'person', label column 'answer'"
    assert said in json.dumps(doc["pilot"])


def test_reader_options_on_the_command_line_win_over_the_scenarios(tmp_path):
    # regression: the reader options were refused when a scenario gave the pilot
    path = _scenario(tmp_path, READ + 'pilot_label_col = "post"')  # wrong on purpose
    doc, _ = _json("plan", path, "--label-col", "answer", "--seed", "1", "--replicates", "200")
    assert doc["pilot"]["counts"] is not None
    missing = runner.invoke(app, ["plan", path, "--seed", "1"])
    assert "'post' is given two roles" in _one_line(missing)


def test_scenario_pilot_keys_are_checked(tmp_path):
    path = _scenario(tmp_path, 'pilot_layout = "diagonal"')
    with pytest.raises(InvalidInput, match="model.pilot_layout must be auto, long or wide"):
        load_scenario(path)
    listed = load_scenario(
        _scenario(tmp_path, 'pilot_annotator_cols = "a,b"\npilot_missing = ["NA"]')
    )
    assert listed.model["pilot_annotator_cols"] == ("a", "b")
    assert listed.model["pilot_missing"] == ("NA",)
    (tmp_path / "p.toml").write_text('[model]\nprevalence = 0.1\npilot_item_col = "doc"\n')
    with pytest.raises(InvalidInput, match="pilot_item_col says how to read model.pilot_file"):
        load_scenario(tmp_path / "p.toml")
    (tmp_path / "q.toml").write_text("[model]\nprevalence = 0.1\n")
    line = _one_line(runner.invoke(app, ["plan", str(tmp_path / "q.toml"), "--layout", "long"]))
    assert "--layout: options for reading a pilot file, which is not given" in line


def test_the_old_spellings_note_never_joins_an_error():
    # an error stays one line: the note is said only when the command succeeds
    bad = runner.invoke(app, ["agree", WIDE, "--annotators", "alice,bob", "--positive", "zzz"])
    assert "'zzz' is not a label" in _one_line(bad)
    plan = ["plan", "--pilot", WIDE, "--pilot-annotators", "alice,bob", "--width", "2"]
    assert "--width" in _one_line(runner.invoke(app, plan))


def test_a_scenario_pilots_refusal_hints_flags_that_read_it(tmp_path):
    path = _scenario(tmp_path, "")
    line = _one_line(runner.invoke(app, ["plan", path, "--seed", "1"]))
    assert "set --layout long --item-col post --annotator-col person --label-col answer" in line
    hint = line.split("; set ", 1)[1].split()
    doc, _ = _json("plan", path, *hint, "--seed", "1", "--replicates", "200")
    assert doc["pilot"]["counts"] is not None


@pytest.mark.parametrize(("flag", "named"), [("--stratum-col", "--stratum-col"), ("--by", "--by")])
def test_agree_names_the_flag_that_gave_the_column_its_second_role(flag, named):
    # regression: --stratum-col item was said to be "--item-col and --by"
    args = ["agree", "examples/stratified-labels.csv", flag, "item", "--positive", "unsupported"]
    if flag == "--stratum-col":
        args += ["--population-shares-from", "unsupported-claims-enriched"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: examples/stratified-labels.csv: column 'item' is given two roles (--item-col "
        f"and {named}); each column has one role"
    )
