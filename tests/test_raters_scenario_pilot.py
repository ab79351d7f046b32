"""A several-annotator scenario whose model is a pilot file: ``[annotators] pilot_file``.

The scenario must plan exactly what ``plan --pilot FILE --annotators M`` plans at the same
seed (the same fit, the same bootstrap, the same recommendation under its uncertainty);
``schedule`` labels the recommendation's items with every annotator's label, and the report
recommends them with a section on the pilot.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.scenario import load_scenario
from planner.output.report import scenario_inputs, write_report

EXAMPLES = Path(__file__).parent.parent / "examples"
SCENARIO = EXAMPLES / "three-annotator-pilot.toml"
runner = CliRunner()


def _json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the pilot file (examples/wide.csv: alice, bob and carol)."""
    shutil.copyfile(EXAMPLES / "wide.csv", tmp_path / "wide.csv")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _scenario(folder: Path, body: str) -> str:
    path = folder / "s.toml"
    path.write_text('name = "s"\n[annotators]\n' + body + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.slow
def test_a_pilot_scenario_plans_what_plan_pilot_plans_at_the_same_seed(in_tmp):
    path = _scenario(
        in_tmp, 'pilot_file = "wide.csv"\npilot_positive = "unsupported"\n[target]\nwidth = 0.1'
    )
    from_file = _json("plan", path, "--seed", "3")
    given = _json(
        "plan", "--pilot", "wide.csv", "--positive", "unsupported", "--annotators", "3",
        "--width", "0.1", "--seed", "3",
    )  # fmt: skip
    assert from_file["recommendation"] == given["recommendation"]
    assert from_file["items"] == given["items"] and from_file["uncertainty"] == given["uncertainty"]
    assert from_file["pilot"]["annotators"] == ["alice", "bob", "carol"]
    assert from_file["model"] == given["model"]  # the same latent-class fit


def test_the_pilot_file_is_found_beside_the_scenario_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the example's wide.csv is beside it, not here
    scenario = load_scenario(str(SCENARIO))
    assert scenario.annotators.pilot_file == str(EXAMPLES / "wide.csv")
    assert scenario.annotators.pilot_reader == {
        "layout": "wide", "annotator_cols": ["alice", "bob", "carol"],
    }  # fmt: skip
    assert scenario_inputs(scenario) == (str(SCENARIO), str(EXAMPLES / "wide.csv"))


@pytest.mark.slow
def test_the_command_lines_pilot_and_reader_win_over_the_scenarios(in_tmp):
    (in_tmp / "other.csv").write_text(
        (in_tmp / "wide.csv").read_text().replace("alice", "ann"), encoding="utf-8"
    )
    body = 'pilot_file = "wide.csv"\npilot_positive = "unsupported"\npilot_layout = "wide"\n'
    path = _scenario(in_tmp, body + 'pilot_annotator_cols = ["alice", "bob", "carol"]')
    # another file is read as given, not with the scenario's keys for its own file
    doc = _json("plan", path, "--pilot", "other.csv", "--positive", "unsupported", "--seed", "3")
    assert doc["pilot"]["annotators"] == ["ann", "bob", "carol"]
    # the reader flags and --positive win over the scenario's keys for its file
    doc = _json("plan", path, "--annotator-cols", "carol,bob,alice", "--positive", "supported")
    assert doc["pilot"]["annotators"] == ["carol", "bob", "alice"]
    assert doc["pilot"]["positive"] == "supported"


def test_model_options_beside_a_pilot_scenario_are_one_line_naming_both(in_tmp):
    path = _scenario(in_tmp, 'pilot_file = "wide.csv"\npilot_positive = "unsupported"')
    result = runner.invoke(app, ["plan", path, "--prevalence", "0.1", "--seed", "1"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: --prevalence describes the annotators' model, which the pilot file {path}: "
        "annotators.pilot_file gives"
    ]
    unnamed = runner.invoke(app, ["plan", _scenario(in_tmp, 'pilot_file = "wide.csv"')])
    assert unnamed.exit_code == 2 and "s.toml: annotators.pilot_positive:" in unnamed.stderr


def test_a_pilot_on_the_command_line_does_not_replace_a_scenarios_stated_model(in_tmp):
    path = _scenario(in_tmp, "count = 3\nprevalence = 0.05")
    result = runner.invoke(app, ["plan", path, "--pilot", "wide.csv", "--seed", "1"])
    assert result.exit_code == 2
    assert "give the scenario annotators.pilot_file instead" in result.stderr


@pytest.mark.slow
def test_schedule_labels_the_recommendation_under_the_pilots_uncertainty(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plan = _json("plan", str(SCENARIO))
    schedule = _json("schedule", str(SCENARIO))
    items = plan["recommendation"]["items"]
    assert items == plan["items"] != plan["sizing"]["items"]  # the pilot's uncertainty moves it
    assert plan["recommendation"]["plug_in_items"] == plan["sizing"]["items"]
    assert schedule["operation"]["items_per_stratum"] == [items]
    assert schedule["operation"]["labels_per_item"] == 3
    # 3 labels of 30 s each, no adjudication time: the analytic person-hours of the plan
    assert plan["recommendation"]["budget"]["person_hours"] == pytest.approx(items * 3 * 30 / 3600)


@pytest.mark.slow
def test_the_report_recommends_the_pilots_items_and_says_what_was_read(tmp_path):
    folder = write_report(SCENARIO, tmp_path, rng=4)
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    text = (folder / "report.md").read_text(encoding="utf-8")
    rec = plan["recommendation"]
    assert f"Label {rec['items']:,} items, each by all 3 annotators" in text
    hours = rec["budget"]["person_hours"]
    assert f"({3 * rec['items']:,} labels): {hours:,.1f} person-hours" in text
    assert "## The pilot" in text and "| annotators | alice, bob, carol |" in text
    assert "| file | wide.csv |" in text and str(EXAMPLES / "wide.csv") not in text
    u = plan["uncertainty"]
    assert f"hybrid assurance {u['hybrid_assurance']:.3f}" in text
    assert f"{plan['sizing']['items']:,} items if the pilot's fit were the truth" in text
    schedule = json.loads((folder / "schedule.json").read_text(encoding="utf-8"))
    assert schedule["operation"]["items_per_stratum"] == [rec["items"]]
    figures = json.loads((folder / "figures.json").read_text(encoding="utf-8"))
    assert figures["hours"]["items"][0] == rec["items"]  # the plan's bar: the recommendation
    assert figures["hours"]["hours"][0] == pytest.approx(rec["budget"]["person_hours"])
    assert figures["half_width"]["planned"] == figures["assurance"]["planned"] == rec["items"]
    assert plan["pilot"]["source"] == "wide.csv"  # the file's name, not this machine's path


@pytest.mark.slow
def test_a_report_folder_keeps_its_pilot_and_rebuilds_the_same_plan_elsewhere(tmp_path):
    (tmp_path / "data").mkdir()
    shutil.copyfile(EXAMPLES / "wide.csv", tmp_path / "data" / "labels.csv")
    (tmp_path / "plans").mkdir()
    body = (SCENARIO.read_text(encoding="utf-8")
            .replace('pilot_file = "wide.csv"', "pilot_file = '../data/labels.csv'"))  # fmt: skip
    (tmp_path / "plans" / "s.toml").write_text(body, encoding="utf-8")
    folder = write_report(tmp_path / "plans" / "s.toml", tmp_path / "out", rng=4)
    copied = load_scenario(folder / "scenario.toml")  # a path outside: copied by its name
    assert Path(copied.annotators.pilot_file) == folder / "labels.csv"
    assert (folder / "labels.csv").read_bytes() == (EXAMPLES / "wide.csv").read_bytes()
    assert "labels.csv" in (folder / ".planner-report").read_text().splitlines()
    moved = tmp_path / "elsewhere"
    shutil.move(folder, moved)
    shutil.rmtree(tmp_path / "data")  # the original pilot is gone: the folder suffices
    again = write_report(moved / "scenario.toml", tmp_path / "again", rng=4)
    first, second = (json.loads((f / "plan.json").read_text()) for f in (moved, again))
    assert second["recommendation"] == first["recommendation"]
    assert second["pilot"] == first["pilot"]
    assert first["pilot"]["source"] == "labels.csv"  # the copy beside the report


def test_a_pilot_inside_the_scenarios_folder_keeps_its_written_path(tmp_path):
    from planner.output.report import copy_inputs

    (tmp_path / "in" / "pilots").mkdir(parents=True)
    shutil.copyfile(EXAMPLES / "wide.csv", tmp_path / "in" / "pilots" / "p.csv")
    path = _scenario(tmp_path / "in", 'pilot_file = "pilots/p.csv"\npilot_positive = "unsupported"')
    (tmp_path / "out").mkdir()
    copy_inputs(load_scenario(path), tmp_path / "out")
    assert (tmp_path / "out" / "scenario.toml").read_text() == Path(path).read_text()
    assert (tmp_path / "out" / "pilots" / "p.csv").is_file()


@pytest.mark.parametrize("name", ["plan.json", "figures.json", "figures", "scenario.toml"])
def test_a_pilot_named_like_a_report_file_is_copied_under_another_name(tmp_path, name):
    from planner.output.report import copy_inputs

    shutil.copyfile(EXAMPLES / "wide.csv", tmp_path / name)
    path = _scenario(tmp_path, f'pilot_file = "{name}"\npilot_format = "csv"')
    (tmp_path / "out").mkdir()
    assert copy_inputs(load_scenario(path), tmp_path / "out") == f"pilot-{name}"
    assert f'pilot_file = "pilot-{name}"' in (tmp_path / "out" / "scenario.toml").read_text()
    assert (tmp_path / "out" / f"pilot-{name}").is_file()


def test_a_pilot_outside_with_any_characters_is_renamed_in_valid_toml(tmp_path):
    from planner.output.report import copy_inputs

    (tmp_path / "data").mkdir()
    pilot = tmp_path / "data" / 'étude 😀 "q".csv'
    shutil.copyfile(EXAMPLES / "wide.csv", pilot)
    (tmp_path / "plans").mkdir()
    path = _scenario(tmp_path / "plans", f"pilot_file = '{pilot}'\npilot_positive = 'unsupported'")
    (tmp_path / "out").mkdir()
    assert copy_inputs(load_scenario(path), tmp_path / "out") == pilot.name
    copied = load_scenario(tmp_path / "out" / "scenario.toml")
    assert Path(copied.annotators.pilot_file) == tmp_path / "out" / pilot.name


@pytest.mark.slow
def test_a_pilot_key_the_copy_cannot_rewrite_is_one_line_and_writes_nothing(tmp_path):
    (tmp_path / "data").mkdir()
    shutil.copyfile(EXAMPLES / "wide.csv", tmp_path / "data" / "wide.csv")
    (tmp_path / "plans").mkdir()
    body = SCENARIO.read_text(encoding="utf-8").replace(
        'pilot_file = "wide.csv"', '"pilot_file" = "../data/wide.csv"'
    )
    (tmp_path / "plans" / "s.toml").write_text(body, encoding="utf-8")
    result = runner.invoke(app, ["report", str(tmp_path / "plans" / "s.toml"), "--out",
                                 str(tmp_path / "out"), "--quiet"])  # fmt: skip
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert "pilot_file: the report copies the pilot beside scenario.toml as 'wide.csv'" in line
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


@pytest.mark.slow
def test_the_documented_python_gives_the_scenarios_plan(tmp_path, monkeypatch, capsys):
    """docs/several-annotators.md: the Python block plans what the scenario file plans."""
    page = (Path(__file__).parent.parent / "docs" / "several-annotators.md").read_text()
    code = page.split("gives the same plan:\n\n```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/several-annotators.md", "exec"), {})
    printed = capsys.readouterr().out.split()
    scenario = _json("plan", str(SCENARIO))
    expected = (scenario["recommendation"]["items"], scenario["sizing"]["items"])
    assert printed[:2] == [str(n) for n in expected]
    claimed = re.search(r"# (\d+) (\d+):", code)
    assert claimed is not None and list(claimed.groups()) == printed[:2]


@pytest.mark.slow
def test_schedule_takes_the_pilots_options_over_a_pilot_scenario(in_tmp):
    (in_tmp / "other.csv").write_text(
        (in_tmp / "wide.csv").read_text().replace("alice", "ann"), encoding="utf-8"
    )
    path = _scenario(in_tmp, 'pilot_file = "wide.csv"\n[target]\nwidth = 0.1')
    given = ["--pilot", "other.csv", "--positive", "unsupported", "--seed", "3"]
    plan = _json("plan", path, *given, "--annotator-cols", "ann,bob,carol")
    schedule = _json("schedule", path, *given, "--annotator-cols", "ann,bob,carol")
    assert plan["pilot"]["annotators"] == ["ann", "bob", "carol"]
    assert schedule["operation"]["items_per_stratum"] == [plan["recommendation"]["items"]]
    refused = runner.invoke(app, ["schedule", path, "--psa", "0.5", "--seed", "3"])
    assert refused.exit_code == 2 and "psa describes one pair" in refused.stderr


@pytest.mark.slow
def test_a_named_team_bills_the_recommendation_person_by_person(tmp_path, monkeypatch):
    # three people at 120 s a label and 100 an hour, instead of [budget]'s 30 s and 25
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(EXAMPLES / "wide.csv", tmp_path / "wide.csv")
    people = "".join(
        f'[[team.annotator]]\nname = "{name}"\nseconds_per_item = 120\nhourly_rate = 100.0\n'
        for name in ("alice", "bob", "carol")
    )
    text = SCENARIO.read_text(encoding="utf-8") + "\n[team]\nruns = 20\n" + people
    (tmp_path / "team.toml").write_text(text, encoding="utf-8")
    plan = _json("plan", "team.toml")
    rec = plan["recommendation"]
    assert rec["budget"]["person_hours"] == pytest.approx(rec["items"] * 3 * 120 / 3600)
    assert rec["budget"]["cost"] == pytest.approx(rec["budget"]["person_hours"] * 100)
    plug_in = plan["sizing"]["items"]
    assert plan["sizing_budget"]["person_hours"] == pytest.approx(plug_in * 3 * 120 / 3600)
    assert plan["budget"] == rec["budget"]
    schedule = _json("schedule", "team.toml")
    assert schedule["operation"]["items_per_stratum"] == [rec["items"]]
    # the schedule's people label at their own speeds: its hours are the billed ones
    hours = rec["budget"]["person_hours"]
    assert schedule["person_hours_median"] == pytest.approx(hours, rel=0.02)
