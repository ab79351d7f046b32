"""A pilot labelled by stratum: each stratum's pair model from its own pilot counts.

``plan unsupported-claims-enriched --pilot examples/stratified-labels.csv --stratum-col stratum``
compares the scenario's three designs with every stratum's model taken from the pilot instead
of the scenario's prevalences and error rates. The expected values are computed here from the
file with pandas: the four cells of each stratum, traffic's PSA ``2 A / (2 A + B + C)`` of the
share-weighted cells, and each stratum's SD of the linearised PSA residual
``u = (x - R y) / Y`` (``x = 2`` on items both flag, ``y`` the flags of the two), which the
weighted design allocates by (``n_h ~ W_h S_h / sqrt(c_h)``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput
from planner.sizing.strata_file import pilot_strata
from tests.stratified_reference import weighted_psa

runner = CliRunner()
FILE = "examples/stratified-labels.csv"
SCENARIO = "unsupported-claims-enriched"
ARGS = ["plan", SCENARIO, "--pilot", FILE, "--stratum-col", "stratum", "--positive", "unsupported"]
NAMES = [
    "flagged by an automated check",
    "historically risky query types",
    "user complaints",
    "rest of traffic",
]
SHARES = np.array([0.04, 0.10, 0.01, 0.85])
SECONDS = np.array([100.0, 90.0, 120.0, 90.0])


def _cells() -> np.ndarray:
    """``(H, 4)`` (both, a only, b only, neither) per stratum, counted with pandas."""
    frame = pd.read_csv(FILE)
    wide = frame.pivot(index="item", columns="annotator", values="label") == "unsupported"
    stratum = frame.groupby("item").stratum.first()[wide.index]
    a, b = wide.ann_a, wide.ann_b
    return np.array(
        [[(a & b)[stratum == n].sum(), (a & ~b)[stratum == n].sum(),
          (~a & b)[stratum == n].sum(), (~a & ~b)[stratum == n].sum()] for n in NAMES]
    )  # fmt: skip


def _plan(*extra: str) -> dict:
    result = runner.invoke(app, [*ARGS, "--json", "--replicates", "500", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_each_strata_model_is_its_pilot_counts():
    cells = _cells()
    found = pilot_strata(FILE, load_scenario(SCENARIO), "stratum", positive="unsupported")
    assert [list(c) for c in found.counts] == cells.tolist()
    for model, row in zip(found.models, cells, strict=True):
        assert model.cells == pytest.approx(tuple(row / row.sum()))
    assert any("also sized under the pilot's uncertainty" in n for n in found.notes)


def test_the_designs_use_the_pilots_strata():
    doc = _plan("--seed", "3")
    cells = _cells()
    p = cells / cells.sum(axis=1, keepdims=True)
    pop = SHARES @ p
    psa = 2 * pop[0] / (2 * pop[0] + pop[1] + pop[2])
    assert doc["population"]["psa"] == pytest.approx(psa)
    y_bar = 2 * pop[0] + pop[1] + pop[2]
    u = (np.array([2, 0, 0, 0]) - psa * np.array([2, 1, 1, 0])) / y_bar
    sd = np.sqrt(p @ (u * u) - (p @ u) ** 2)
    for row, expected, share, cell in zip(doc["strata"], sd, p, cells, strict=True):
        assert row["residual_sd"] == pytest.approx(expected)
        assert row["prevalence"] == pytest.approx((2 * share[0] + share[1] + share[2]) / 2)
        assert row["model_source"] == "pilot" and row["pilot_counts"] == cell.tolist()
    # the weighted design's two largest strata (above the floor of 30) in the ratio of
    # W_h S_h / sqrt(c_h)
    items = doc["designs"]["weighted"]["items_per_stratum"]
    weight = SHARES * sd / np.sqrt(SECONDS)
    assert items[3] / items[1] == pytest.approx(weight[3] / weight[1], rel=0.02)


def test_the_scenarios_own_strata_are_unchanged_without_the_pilot():
    doc = runner.invoke(app, ["plan", SCENARIO, "--json", "--replicates", "500"])
    rows = json.loads(doc.stdout)["strata"]
    assert [r["prevalence"] for r in rows] == [s.prevalence for s in load_scenario(SCENARIO).strata]
    assert all("model_source" not in r for r in rows)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["plan", "--prevalence", "0.1", "--stratum-col", "stratum"], "--stratum-col applies only"),
        (["plan", "unsupported-claims", "--pilot", FILE, "--stratum-col", "stratum",
          "--positive", "unsupported"], "--stratum-col reads a pilot by stratum"),
        ([*ARGS, "--prevalence", "0.1"], "--prevalence cannot be used with a pilot read by"),
        ([*ARGS[:-2], "--positive", "nope"], "--positive"),
        ([*ARGS[:4], "--stratum-col", "nope", "--positive", "unsupported"], "nope"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_with_exit_code_2(args, words):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in result.output


def test_a_stratum_without_union_positives_is_refused(tmp_path):
    frame = pd.read_csv(FILE)
    complaints = frame.stratum == "user complaints"
    frame.loc[complaints, "label"] = "supported"
    path = tmp_path / "none.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InvalidInput) as raised:
        pilot_strata(str(path), load_scenario(SCENARIO), "stratum", positive="unsupported")
    assert raised.value.parameter == "pilot" and "user complaints" in str(raised.value)


def test_schedule_labels_the_weighted_design_of_the_pilots_strata():
    plan = _plan("--seed", "3")
    args = ["schedule", *ARGS[1:], "--json", "--replicates", "500", "--seed", "3"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    operation = doc["operation"]
    assert operation["items_per_stratum"] == plan["designs"]["weighted"]["items_per_stratum"]
    cells = _cells()
    assert operation["contested_rate"] == pytest.approx(
        list((cells[:, 1] + cells[:, 2]) / cells.sum(1))
    )
    # two labels of each item at its stratum's seconds, the contested ones adjudicated at 120 s
    items = np.array(operation["items_per_stratum"])
    hours = (items * (2 * SECONDS + 120 * np.array(operation["contested_rate"]))).sum() / 3600
    assert doc["analytic_person_hours"] == pytest.approx(hours)
    assert any("pilot counts" in n for n in doc["notes"])


def _weighted_psa_half_width(counts: np.ndarray) -> np.ndarray:
    """Half-widths of the population-weighted PSA of ``(R, H, 3)`` items with 0, 1 and 2 of
    the pair's labels positive (:func:`tests.stratified_reference.weighted_psa`)."""
    _, low, high = weighted_psa(counts, SHARES)
    return (high - low) / 2


def test_the_weighted_design_under_the_pilots_uncertainty_is_checked_by_resimulation():
    doc = _plan("--seed", "3")
    under = doc["pilot_uncertainty"]
    assert under["plug_in_items"] == doc["designs"]["weighted"]["items"]
    cells = _cells()
    rng = np.random.default_rng(2027)
    truth = np.stack([rng.dirichlet(c + 0.5, size=8000) for c in cells], axis=1)  # (R, H, 4)
    # patterns: neither, one of the two, both
    truth = np.stack([truth[..., 3], truth[..., 1] + truth[..., 2], truth[..., 0]], axis=-1)

    def assurance(items: list[int]) -> float:
        counts = np.stack([rng.multinomial(n, truth[:, h]) for h, n in enumerate(items)], 1)
        return float(np.mean(_weighted_psa_half_width(counts.astype(float)) <= 0.08))

    se = np.sqrt(0.8 * 0.2 / 8000) + np.sqrt(0.8 * 0.2 / 500)
    planned = assurance(under["items_per_stratum"])
    assert planned == pytest.approx(under["hybrid_assurance"], abs=3 * se)
    assert planned >= 0.8 - 3 * se
    plug_in = assurance(doc["designs"]["weighted"]["items_per_stratum"])
    assert plug_in == pytest.approx(under["plug_in_hybrid_assurance"], abs=3 * se)
    assert assurance([n // 2 for n in under["items_per_stratum"]]) < 0.3


def _scenario_with_pilot(tmp_path, keys: str):
    """The shipped enriched scenario with pilot keys in its [model], beside a copy of the
    pilot file."""
    (tmp_path / "pilot.csv").write_bytes(Path(FILE).read_bytes())
    shipped = Path(load_scenario(SCENARIO).path).read_text()
    body = shipped.replace("[model]\n", f"[model]\n{keys}\n", 1)
    path = tmp_path / "s.toml"
    path.write_text(body)
    return str(path)


@pytest.mark.slow
def test_a_scenario_can_name_its_pilot_by_stratum_for_plan_schedule_and_report(tmp_path):
    keys = 'pilot_file = "pilot.csv"\npilot_positive = "unsupported"\npilot_stratum_col = "stratum"'
    path = _scenario_with_pilot(tmp_path, keys)
    from_file = runner.invoke(app, ["plan", path, "--json", "--replicates", "500", "--seed", "3"])
    assert from_file.exit_code == 0, from_file.output
    doc = json.loads(from_file.stdout)
    flags = _plan("--seed", "3")
    assert (
        doc["designs"] == flags["designs"]
        and doc["pilot_uncertainty"] == flags["pilot_uncertainty"]
    )
    schedule = runner.invoke(app, ["schedule", path, "--json", "--seed", "3", "--runs", "20"])
    assert schedule.exit_code == 0, schedule.output
    assert any("pilot counts" in n for n in json.loads(schedule.stdout)["notes"])
    report = runner.invoke(app, ["report", path, "--out", str(tmp_path / "r"), "--quiet"])
    assert report.exit_code == 0, report.output
    text = next((tmp_path / "r").rglob("report.md")).read_text()
    assert "Each stratum's model is its own pilot counts" in text and "45, 4, 11, 60" in text


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        (
            'pilot_file = "pilot.csv"',
            "model.pilot_file with [[strata]] needs model.pilot_stratum_col",
        ),
        ('pilot_stratum_col = "stratum"', "model.pilot_stratum_col names the stratum column"),
    ],
)
def test_a_scenario_pilot_without_its_stratum_column_is_one_line(tmp_path, keys, words):
    result = runner.invoke(app, ["plan", _scenario_with_pilot(tmp_path, keys)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]


PILOT_KEYS = (
    'pilot_file = "pilot.csv"\npilot_positive = "unsupported"\npilot_stratum_col = "{column}"'
)


@pytest.mark.parametrize("command", ["plan", "schedule", "report"])
def test_a_scenario_pilots_missing_stratum_column_names_its_key(tmp_path, command):
    # regression: "pilot.csv: missing column(s) 'week'", which did not say where 'week' came from
    path = _scenario_with_pilot(tmp_path, PILOT_KEYS.format(column="week"))
    extra = ["--out", str(tmp_path / "r")] if command == "report" else []
    result = runner.invoke(app, [command, path, *extra])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().replace(f"{tmp_path}/", "").splitlines()
    assert line == (
        "error: s.toml: model.pilot_stratum_col 'week' is not a column of pilot.csv (columns "
        "are: item, stratum, annotator, label)"
    )
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_the_stratum_column_flag_reads_the_scenarios_own_pilot_file(tmp_path):
    # regression: refused with "--stratum-col applies only with --labelled FILE or --pilot FILE"
    # beside a scenario whose [model] names its pilot file
    path = _scenario_with_pilot(tmp_path, PILOT_KEYS.format(column="week"))
    args = ["plan", path, "--json", "--replicates", "300", "--seed", "3"]
    by_flag = runner.invoke(app, [*args, "--stratum-col", "stratum"])
    assert by_flag.exit_code == 0, by_flag.output
    (tmp_path / "own").mkdir()
    own = _scenario_with_pilot(tmp_path / "own", PILOT_KEYS.format(column="stratum"))
    by_key = runner.invoke(app, ["plan", own, *args[2:]])
    assert json.loads(by_flag.stdout)["designs"] == json.loads(by_key.stdout)["designs"]
    wrong = runner.invoke(app, [*args, "--stratum-col", "week2"])
    assert wrong.exit_code == 2
    assert wrong.stderr.strip().replace(f"{tmp_path}/", "") == (
        "error: --stratum-col 'week2' is not a column of pilot.csv (columns are: item, stratum, "
        "annotator, label)"
    )


def test_the_library_names_a_missing_stratum_column_by_its_parameter():
    from planner.sizing.strata_file import read_by_stratum

    with pytest.raises(InvalidInput) as refused:
        read_by_stratum(FILE, "week")
    assert refused.value.parameter == "stratum_col" and refused.value.value == "week"


@pytest.mark.slow
def test_the_reports_figures_simulate_the_pilots_strata(tmp_path):
    # regression: the half-width curve and the weighted estimates were simulated from the
    # scenario's [[strata]] (union rate 0.0931) while the designs were the pilot's (0.0977)
    path = _scenario_with_pilot(tmp_path, PILOT_KEYS.format(column="stratum"))
    made = runner.invoke(app, ["report", path, "--out", str(tmp_path / "r"), "--quiet"])
    assert made.exit_code == 0, made.output
    folder = next((tmp_path / "r").iterdir())
    figures = json.loads((folder / "figures.json").read_text())
    population = json.loads((folder / "plan.json").read_text())["population"]
    assert figures["half_width"]["union_rate"] == pytest.approx(population["union_rate"])
    cells = _cells()  # the pilot's own counts by stratum, read here from the file
    mixed = SHARES @ (cells / cells.sum(axis=1, keepdims=True))
    assert population["union_rate"] == pytest.approx(1 - mixed[3], rel=1e-12)
    estimates = figures["estimates"]
    assert estimates["interval_lower"] < population["psa"] < estimates["interval_upper"]
