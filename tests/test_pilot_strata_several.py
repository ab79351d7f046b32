"""A pilot of several annotators labelled by stratum: each stratum's label patterns are its
pilot's, and the weighted design sized on them holds up when re-simulated.

The checks use no planner code for the numbers: each stratum's items with 0..3 positive
labels are counted with pandas, Uebersax's PSA is computed from them by hand, and studies at
the planned allocation are drawn from the pilot's shares with numpy and analysed by
:mod:`tests.stratified_reference` (which reproduces ``agree --stratum-col`` to 1e-12).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from tests.stratified_reference import THREE_ANNOTATOR_FILE as FILE
from tests.stratified_reference import THREE_ANNOTATOR_SCENARIO as SCENARIO
from tests.stratified_reference import THREE_ANNOTATOR_SHARES as SHARES
from tests.stratified_reference import THREE_ANNOTATOR_STRATA as NAMES
from tests.stratified_reference import weighted_psa

runner = CliRunner()
WIDTH, ASSURANCE = 0.08, 0.8  # the scenario's [target]


def _pilot_counts() -> np.ndarray:
    """``(H, 4)`` items with 0, 1, 2, 3 positive labels in each stratum."""
    frame = pd.read_csv(FILE)
    positives = (frame.label == "unsupported").groupby([frame.stratum, frame.item]).sum()
    return np.array([np.bincount(positives[n].to_numpy(), minlength=4) for n in NAMES])


def _psa(counts: np.ndarray) -> np.ndarray:
    """Uebersax's PSA of three labels an item: sum j (j - 1) / sum 2 j."""
    j = np.arange(4.0)
    return (counts @ (j * (j - 1))) / (counts @ (2 * j))


@pytest.fixture(scope="module")
def planned() -> dict:
    args = ["plan", SCENARIO, "--pilot", FILE, "--stratum-col", "stratum", "--positive",
            "unsupported", "--seed", "1", "--json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_each_stratum_is_its_pilot_counts(planned):
    counts = _pilot_counts()
    rows = {row["name"]: row for row in planned["strata"]}
    for name, row, psa in zip(NAMES, counts, _psa(counts), strict=True):
        assert rows[name]["model_source"] == "pilot"
        assert sorted(rows[name]["pilot_counts"]) == sorted(row.tolist())
        assert rows[name]["psa"] == pytest.approx(psa, abs=1e-12)
        positive_rate = (row @ np.arange(4.0)) / (3 * row.sum())
        assert rows[name]["prevalence"] == pytest.approx(positive_rate, abs=1e-12)
    assert any("pilot's share of items per count pattern" in n for n in planned["notes"])


def _reach_and_cover(items: np.ndarray, studies: int, seed: int) -> tuple[float, float]:
    """Share of studies whose weighted PSA interval has half-width <= WIDTH, and share that
    cover traffic's PSA, each stratum's items drawn from its pilot's pattern shares."""
    counts = _pilot_counts()
    p = counts / counts.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    draws = np.stack(
        [rng.multinomial(n, ph, size=studies) for n, ph in zip(items, p, strict=True)], axis=1
    )
    _, low, high = weighted_psa(draws, SHARES)
    j = np.arange(4.0)
    truth = (SHARES @ (p @ (j * (j - 1)))) / (SHARES @ (p @ (2 * j)))
    return float(np.mean((high - low) / 2 <= WIDTH)), float(
        np.mean((low <= truth) & (truth <= high))
    )


def test_the_weighted_design_reaches_the_target_at_its_items_and_fails_at_half(planned):
    items = np.array(planned["designs"]["weighted"]["items_per_stratum"])
    reach, cover = _reach_and_cover(items, 4000, seed=20261207)
    se = np.sqrt(ASSURANCE * (1 - ASSURANCE) / 4000)
    assert reach >= ASSURANCE - 3 * se and reach <= ASSURANCE + 0.06
    assert cover == pytest.approx(0.95, abs=0.015)
    below, _ = _reach_and_cover(np.maximum(items // 2, 2), 4000, seed=7)
    assert below < 0.3


def test_a_pilot_without_its_stratum_column_says_to_give_it():
    result = runner.invoke(app, ["plan", SCENARIO, "--pilot", FILE, "--positive", "unsupported"])
    assert result.exit_code == 2
    assert "--stratum-col" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_pairs_pilot_is_refused_for_three_annotators():
    args = ["plan", SCENARIO, "--pilot", "examples/stratified-labels.csv", "--stratum-col",
            "stratum", "--positive", "unsupported"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "3 labels" in result.stderr and "Traceback" not in result.output


def test_schedule_labels_the_weighted_design_at_each_strata_seconds(planned):
    # regression: schedule refused this pilot ("--pilot describes one pair"). The analytic
    # person-hours are recomputed here: 3 labels of each stratum's seconds, plus 120 s of
    # adjudication for each item whose pilot share of labels is not unanimous.
    args = ["schedule", SCENARIO, "--pilot", FILE, "--stratum-col", "stratum", "--positive",
            "unsupported", "--seed", "1", "--json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    items = np.array(planned["designs"]["weighted"]["items_per_stratum"])
    counts = _pilot_counts()
    contested = (counts[:, 1] + counts[:, 2]) / counts.sum(axis=1)
    seconds = np.array([100.0, 90.0, 120.0, 90.0])  # the scenario's, by stratum
    hours = (items @ (3 * seconds) + items @ (contested * 120.0)) / 3600
    document = json.loads(result.stdout)
    assert document["operation"]["items_per_stratum"] == items.tolist()
    assert document["analytic_person_hours"] == pytest.approx(hours, rel=1e-9)


@pytest.mark.parametrize(
    ("scenario", "pilot", "needle"),
    [
        (SCENARIO, FILE, "give the column naming each item's stratum (--stratum-col)"),
        ("web-toxicity-three-annotators", "examples/wide.csv", "annotators.pilot_file"),
    ],
)
def test_schedule_says_how_a_several_annotator_scenario_takes_a_pilot(scenario, pilot, needle):
    # regression: both said "--pilot describes one pair", which a three-annotator pilot is not
    result = runner.invoke(app, ["schedule", scenario, "--pilot", pilot, "--positive", "1"])
    assert result.exit_code == 2 and needle in result.stderr, result.stderr
    assert "describes one pair" not in result.stderr


def _piloted_scenario(tmp_path, keys: str) -> str:
    """The shipped three-annotator strata scenario with pilot keys in its [annotators],
    beside a copy of the pilot file."""
    from pathlib import Path

    from planner.data.scenario import load_scenario

    (tmp_path / "pilot.csv").write_bytes(Path(FILE).read_bytes())
    shipped = Path(load_scenario(SCENARIO).path).read_text()
    path = tmp_path / "s.toml"
    path.write_text(shipped.replace("[annotators]\n", f"[annotators]\n{keys}\n", 1))
    return str(path)


PILOT_KEYS = (
    'pilot_file = "pilot.csv"\npilot_positive = "unsupported"\npilot_stratum_col = "stratum"'
)


@pytest.mark.slow
def test_a_scenario_names_its_pilot_by_stratum_for_plan_schedule_and_report(tmp_path, planned):
    path = _piloted_scenario(tmp_path, PILOT_KEYS)
    from_file = runner.invoke(app, ["plan", path, "--json", "--seed", "1"])
    assert from_file.exit_code == 0, from_file.output
    assert json.loads(from_file.stdout)["designs"] == planned["designs"]  # as the flags plan it
    schedule = runner.invoke(app, ["schedule", path, "--json", "--seed", "1", "--runs", "20"])
    assert schedule.exit_code == 0, schedule.output
    items = planned["designs"]["weighted"]["items_per_stratum"]
    assert json.loads(schedule.stdout)["operation"]["items_per_stratum"] == items
    report = runner.invoke(app, ["report", path, "--out", str(tmp_path / "r"), "--quiet"])
    assert report.exit_code == 0, report.output
    text = next((tmp_path / "r").rglob("report.md")).read_text()
    # the counts in the patterns' order: items with 3, 2, 1 and 0 positive labels
    flagged = _pilot_counts()[0][::-1]
    assert "items with 3, 2, 1, 0 of their 3 labels positive" in text
    assert f"{NAMES[0]} {', '.join(str(c) for c in flagged)}" in text
    assert "first only" not in text


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        ('pilot_file = "pilot.csv"', "annotators.pilot_file with [[strata]] needs "
         "annotators.pilot_stratum_col"),
        ('pilot_stratum_col = "stratum"', "annotators.pilot_stratum_col names the stratum "
         "column of annotators.pilot_file, which is not given"),
        (PILOT_KEYS + "\nerror_rate = 0.1", "does not combine with annotators.error_rate"),
    ],
)  # fmt: skip
def test_a_scenario_pilot_by_stratum_is_checked_in_one_line(tmp_path, keys, words):
    result = runner.invoke(app, ["plan", _piloted_scenario(tmp_path, keys)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], result.stderr


def test_a_stratum_column_without_strata_is_refused(tmp_path):
    (tmp_path / "pilot.csv").write_bytes(open("examples/wide.csv", "rb").read())
    path = tmp_path / "flat.toml"
    path.write_text('[annotators]\npilot_file = "pilot.csv"\npilot_stratum_col = "stratum"\n')
    result = runner.invoke(app, ["plan", str(path)])
    assert result.exit_code == 2 and "for a scenario with [[strata]]" in result.stderr


def _hybrid_reach(items: np.ndarray, studies: int, seed: int) -> float:
    """Share of studies reaching +-WIDTH when each study first draws every stratum's pattern
    shares from Dirichlet(pilot counts + 1/2) (Jeffreys), then its items from them."""
    counts = _pilot_counts()
    rng = np.random.default_rng(seed)
    truths = np.stack([rng.dirichlet(c + 0.5, size=studies) for c in counts], axis=1)
    draws = np.stack(
        [[rng.multinomial(n, truths[r, h]) for h, n in enumerate(items)] for r in range(studies)]
    )
    _, low, high = weighted_psa(draws, SHARES)
    return float(np.mean((high - low) / 2 <= WIDTH))


def test_the_weighted_design_under_the_pilots_uncertainty_matches_an_own_simulation(planned):
    under = planned["pilot_uncertainty"]
    assert under["plug_in_items"] == planned["designs"]["weighted"]["items"]
    studies = 3000
    se = np.sqrt(0.8 * 0.2 / studies) + np.sqrt(0.8 * 0.2 / under["replicates"])
    items = np.array(under["items_per_stratum"])
    reach = _hybrid_reach(items, studies, seed=20261207)
    assert reach == pytest.approx(under["hybrid_assurance"], abs=3 * se)
    assert under["hybrid_assurance"] >= ASSURANCE
    plug_in = np.array(planned["designs"]["weighted"]["items_per_stratum"])
    at_plug_in = _hybrid_reach(plug_in, studies, seed=11)
    assert at_plug_in == pytest.approx(under["plug_in_hybrid_assurance"], abs=3 * se)
    assert _hybrid_reach(np.maximum(items // 2, 2), 1000, seed=5) < 0.3


def test_a_pilot_file_on_the_command_line_replaces_the_scenarios_in_schedule(tmp_path, planned):
    # regression: plan took the command line's file, schedule asked for --stratum-col
    path = _piloted_scenario(tmp_path, PILOT_KEYS)
    (tmp_path / "other.csv").write_bytes(Path(FILE).read_bytes())
    args = ["schedule", path, "--pilot", str(tmp_path / "other.csv"), "--seed", "1"]
    result = runner.invoke(app, [*args, "--runs", "20", "--json"])
    assert result.exit_code == 0, result.output
    items = planned["designs"]["weighted"]["items_per_stratum"]
    assert json.loads(result.stdout)["operation"]["items_per_stratum"] == items


@pytest.mark.slow
@pytest.mark.parametrize("scenario", [SCENARIO, "unsupported-claims-enriched"])
def test_design_chooses_among_the_pilots_designs_in_schedule(scenario, planned):
    # regression: "--design uniform has no effect" was said although the uniform design ran
    pilot = FILE if scenario == SCENARIO else "examples/stratified-labels.csv"
    args = ["schedule", scenario, "--pilot", pilot, "--stratum-col", "stratum", "--positive",
            "unsupported", "--seed", "1", "--runs", "20", "--json"]  # fmt: skip
    runs = {d: runner.invoke(app, [*args, "--design", d]) for d in ("uniform", "weighted")}
    for result in runs.values():
        assert result.exit_code == 0, result.output
        assert "has no effect" not in result.stderr
    items = {d: json.loads(r.stdout)["operation"]["items_per_stratum"] for d, r in runs.items()}
    assert items["uniform"] != items["weighted"]
    if scenario == SCENARIO:
        assert items["uniform"] == planned["designs"]["uniform"]["items_per_stratum"]


@pytest.mark.parametrize("command", ["plan", "schedule"])
@pytest.mark.parametrize(
    ("keys", "line"),
    [
        ('pilot_file = "pilot.csv"\npilot_positive = "nope"\npilot_stratum_col = "stratum"',
         "/s.toml: annotators.pilot_positive must be one of the file's labels: "
         "supported, unsupported"),
        ('pilot_file = "pilot.csv"\npilot_positive = "unsupported"\npilot_stratum_col = "item"',
         "pilot.csv: column 'item' is given two roles (annotators.pilot_item_col and "
         "annotators.pilot_stratum_col); each column has one role"),
    ],
    ids=["positive-not-a-label", "column-two-roles"],
)  # fmt: skip
def test_a_scenario_pilots_refusal_names_the_scenarios_keys(tmp_path, command, keys, line):
    # regression: these said --positive, or --item-col and --stratum-col, which were not given
    result = runner.invoke(app, [command, _piloted_scenario(tmp_path, keys)])
    assert result.exit_code == 2
    (said,) = result.stderr.strip().splitlines()
    assert said.startswith("error: ") and said.endswith(line)  # the file's path comes first


def test_a_stratum_column_without_a_pilot_names_the_pilot_flag():
    # regression: "give the pilot file (pilot)", the library's name beside a flag
    result = runner.invoke(app, ["schedule", SCENARIO, "--stratum-col", "stratum"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --stratum-col names the strata of a file read by stratum: give that file (--pilot)"
    )


@pytest.mark.parametrize("scenario", ["examples/three-annotator-pilot.toml",
                                      "web-toxicity-three-annotators"])  # fmt: skip
def test_a_stratum_column_beside_a_flat_several_annotator_scenario_is_refused(scenario):
    # regression: schedule ran the scenario's plan and dropped the column without a word
    result = runner.invoke(app, ["schedule", scenario, "--stratum-col", "week"])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: --stratum-col reads a file by stratum: ")
    assert line.endswith("has no [[strata]]")


def test_a_model_key_beside_a_scenarios_pilot_by_stratum_says_the_pilot_is_the_model(tmp_path):
    # regression: it advised setting error_rate in [annotators], which refuses it beside a pilot
    result = runner.invoke(app, ["plan", _piloted_scenario(tmp_path, PILOT_KEYS),
                                 "--error-rate", "0.1"])  # fmt: skip
    assert result.exit_code == 2
    assert "each stratum's model is its pilot counts" in result.stderr
    assert "[annotators]" not in result.stderr


@pytest.mark.slow
def test_design_chooses_among_a_scenario_pilots_designs_with_a_file_given(tmp_path):
    # regression: with the scenario's pilot_stratum_col (no --stratum-col) schedule said
    # "--design uniform has no effect" and then scheduled the uniform design
    path = _piloted_scenario(tmp_path, PILOT_KEYS)
    args = ["schedule", path, "--pilot", str(tmp_path / "pilot.csv"), "--seed", "1",
            "--runs", "20", "--json"]  # fmt: skip
    runs = {d: runner.invoke(app, [*args, "--design", d]) for d in ("uniform", "weighted")}
    assert all(r.exit_code == 0 and "has no effect" not in r.stderr for r in runs.values())
    items = {d: json.loads(r.stdout)["operation"]["items_per_stratum"] for d, r in runs.items()}
    assert items["uniform"] != items["weighted"]


def test_a_scenarios_pilot_positive_is_named_beside_a_command_line_file(tmp_path):
    # regression: a file given with --pilot whose labels are not the scenario's pilot_positive
    # was said to fail --positive, which was not given
    frame = pd.read_csv(FILE)
    frame["label"] = frame.label.map({"supported": "ok", "unsupported": "bad"})
    frame.to_csv(tmp_path / "relabelled.csv", index=False)
    path = _piloted_scenario(tmp_path, PILOT_KEYS)
    result = runner.invoke(app, ["plan", path, "--pilot", str(tmp_path / "relabelled.csv")])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.endswith("s.toml: annotators.pilot_positive must be one of the file's labels: "
                         "bad, ok")  # fmt: skip


@pytest.mark.parametrize("command", ["plan", "schedule"])
def test_a_scenario_pilots_missing_stratum_column_names_its_key(tmp_path, command):
    # regression: "pilot.csv: missing column(s) 'week'", which did not say where 'week' came from
    keys = 'pilot_file = "pilot.csv"\npilot_positive = "unsupported"\npilot_stratum_col = "week"'
    result = runner.invoke(app, [command, _piloted_scenario(tmp_path, keys)])
    assert result.exit_code == 2
    (said,) = result.stderr.strip().replace(f"{tmp_path}/", "").splitlines()
    assert said == (
        "error: s.toml: annotators.pilot_stratum_col 'week' is not a column of pilot.csv "
        "(columns are: item, stratum, annotator, label)"
    )


@pytest.mark.parametrize("command", ["plan", "schedule"])
def test_a_stratum_column_beside_a_flat_scenario_with_its_pilot_is_refused(command):
    # regression: plan dropped --stratum-col without a word once a scenario could carry a pilot
    result = runner.invoke(app, [command, "web-toxicity-three-annotators", "--stratum-col", "x"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: --stratum-col reads a file by stratum: web-toxicity-three-annotators.toml has "
        "no [[strata]]"
    )
