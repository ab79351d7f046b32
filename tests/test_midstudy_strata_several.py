"""A stratified study of several annotators in progress: the remaining items per stratum.

``examples/stratified-labels-three.csv`` holds 600 items of three annotators over the four
strata of ``scenarios/unsupported-claims-three-annotators-strata.toml``. The checks here do
not use the planner's weighted interval: :mod:`tests.stratified_reference` is an independent
linearised ratio estimator of Uebersax's PSA, which reproduces ``agree --stratum-col`` on the
file to 1e-12. The hybrid assurance is re-simulated with its own
random numbers: each stratum's truth from ``Dirichlet(counts + 1/2)``, the plan's remaining
items drawn from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from planner.application.strata_in_progress import remaining_strata_from_file
from planner.cli.commands import app
from planner.data.scenario import load_scenario
from planner.errors import InvalidInput
from planner.sizing.midstudy_settings import RemainingSettings
from planner.sizing.midstudy_strata import StrataStage, plan_remaining_strata
from tests.stratified_reference import THREE_ANNOTATOR_FILE as FILE
from tests.stratified_reference import THREE_ANNOTATOR_SCENARIO as SCENARIO
from tests.stratified_reference import THREE_ANNOTATOR_SHARES as SHARES
from tests.stratified_reference import THREE_ANNOTATOR_STRATA as NAMES
from tests.stratified_reference import weighted_psa

runner = CliRunner()
SECONDS = np.array([100.0, 90.0, 120.0, 90.0])  # the scenario's strata, else its 90 s


def _file_counts() -> np.ndarray:
    """``(H, 4)`` items with 0, 1, 2, 3 positive labels in each stratum, read with pandas."""
    frame = pd.read_csv(FILE)
    positives = (frame.label == "unsupported").groupby([frame.stratum, frame.item]).sum()
    return np.array([np.bincount(positives[n].to_numpy(), minlength=4) for n in NAMES])


def _weighted_psa(counts: np.ndarray, level: float = 0.95):
    """Estimate, lower and upper limit of the population-weighted PSA of ``(..., H, 4)``
    counts (:func:`tests.stratified_reference.weighted_psa`)."""
    return weighted_psa(counts, SHARES, level)


def _plan(**plan):
    return remaining_strata_from_file(FILE, SCENARIO, "stratum", positive="unsupported", **plan)


def test_the_interval_now_is_the_population_weighted_psa_of_the_labels_in_hand():
    result = _plan(rng=1)
    psa, low, high = _weighted_psa(_file_counts().astype(float))
    assert result.estimate == pytest.approx(psa, abs=1e-12)
    assert result.interval_now == pytest.approx((low, high), abs=1e-12)
    assert [s.labelled for s in result.strata] == _file_counts().sum(axis=1).tolist()
    assert [s.union_positives for s in result.strata] == _file_counts()[:, 1:].sum(1).tolist()
    assert result.labels_per_item == 3


def test_the_planned_remaining_items_reach_the_width_with_the_target_assurance():
    # an independent re-simulation of the hybrid assurance at the plan's remaining items, and
    # at half of them: the target holds at the plan and fails clearly below it
    result = _plan(rng=5, width=0.06)
    counts, width = _file_counts(), 0.06
    more = np.array([s.remaining for s in result.strata])
    assert result.remaining_items > 300 and (more > 0).sum() >= 2
    rng = np.random.default_rng(2026)
    truth = np.stack([rng.dirichlet(c + 0.5, size=4000) for c in counts], axis=1)  # (R, H, 4)

    def narrow_and_covering(added: np.ndarray) -> tuple[float, float]:
        final = counts[None] + np.stack(
            [rng.multinomial(int(m), truth[:, h]) for h, m in enumerate(added)], axis=1
        )
        _, low, high = _weighted_psa(final.astype(float))
        pop = np.einsum("h,rhp->rp", SHARES, truth)
        j = np.arange(4.0)
        value = (pop @ (j * (j - 1))) / (pop @ (j * 2))
        return float(np.mean((high - low) / 2 <= width)), float(
            np.mean((low <= value) & (value <= high))
        )

    assurance, coverage = narrow_and_covering(more)
    se = np.sqrt(0.8 * 0.2 / 4000) + result.assurance_se
    assert assurance == pytest.approx(result.assurance, abs=3 * se)
    assert assurance >= 0.8 - 3 * se
    assert coverage == pytest.approx(0.95, abs=0.015)
    below, _ = narrow_and_covering(more // 2)
    assert below < 0.5


def test_the_budget_bills_three_labels_of_each_remaining_item_at_its_strata_seconds():
    result = _plan(rng=5, width=0.06)
    counts = _file_counts()
    more = np.array([s.remaining for s in result.strata])
    contested = (counts[:, 1] + counts[:, 2]) / counts.sum(axis=1)  # labels not unanimous
    labelling = (more * 3 * SECONDS).sum() / 3600
    adjudication = (more * contested).sum() * 120 / 3600  # the scenario's 120 s, at 40 an hour
    assert result.budget.labels == 3 * more.sum()
    assert result.budget.labelling_hours == pytest.approx(labelling)
    assert result.budget.contested_items == pytest.approx((more * contested).sum())
    assert result.budget.cost == pytest.approx((labelling + adjudication) * 40)


def test_a_design_total_below_the_items_in_hand_still_adds_the_items_a_stratum_lacks():
    # the file over-holds the small strata: the design total that reaches 0.08 is below the
    # 600 items in hand, and only the rest of traffic gets more
    result = _plan(rng=1)
    assert result.half_width_now > 0.08
    assert result.design_total < result.labelled_items
    assert result.remaining_items > 0 and result.assurance >= 0.8 - 3 * result.assurance_se
    assert [s.remaining > 0 for s in result.strata] == [False, False, False, True]


def test_fleiss_kappa_over_strata_and_its_metric_check():
    counts = _file_counts()
    patterns = np.array([[3, 0], [2, 1], [1, 2], [0, 3]])
    stage = StrataStage(
        counts, list(NAMES), SHARES, SHARES, patterns=patterns, metric="fleiss"
    )  # fmt: skip
    result = plan_remaining_strata(stage, rng=1)
    # Fleiss' kappa of the stratum means, by hand: P_o from agreeing pairs, P_e from shares
    j = np.arange(4.0)
    p = (SHARES[:, None] * counts / counts.sum(axis=1, keepdims=True)).sum(axis=0)
    p_o = p @ ((j * (j - 1) + (3 - j) * (2 - j)) / 6)
    pi = p @ (j / 3)
    p_e = pi**2 + (1 - pi) ** 2
    assert result.estimate == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-12)
    assert result.metric_name == "Fleiss' kappa"
    with pytest.raises(InvalidInput) as raised:
        plan_remaining_strata(StrataStage(counts, list(NAMES), SHARES, SHARES, patterns=patterns,
                                          metric="conger"))  # fmt: skip
    assert raised.value.parameter == "metric"
    with pytest.raises(InvalidInput) as raised:  # a pair's four cells take PSA only
        plan_remaining_strata(StrataStage(counts, list(NAMES), SHARES, SHARES, metric="fleiss"))
    assert raised.value.parameter == "metric"


def test_a_file_whose_items_lack_a_label_is_refused_naming_the_file(tmp_path):
    frame = pd.read_csv(FILE)
    short = frame.drop(
        index=frame.index[(frame.item == "answer-007") & (frame.annotator == "ann_c")]
    )
    path = tmp_path / "short.csv"
    short.to_csv(path, index=False)
    with pytest.raises(InvalidInput) as raised:
        remaining_strata_from_file(str(path), SCENARIO, "stratum", positive="unsupported")
    assert raised.value.parameter == "labelled"
    assert "3 labels" in str(raised.value) and "items with 2 labels" in str(raised.value)
    with pytest.raises(InvalidInput) as raised:
        _plan(annotators_per_item=2)
    assert raised.value.parameter == "annotators_per_item"


def test_plan_labelled_with_a_several_annotator_scenario_answers_in_json():
    result = runner.invoke(
        app,
        ["plan", "--labelled", FILE, "--scenario", SCENARIO, "--stratum-col", "stratum",
         "--positive", "unsupported", "--seed", "1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["inputs"]["labels_per_item"] == 3
    assert doc["remaining_items"] == sum(s["remaining"] for s in doc["strata"])
    psa, low, high = _weighted_psa(_file_counts().astype(float))
    assert doc["estimate_now"] == pytest.approx(psa)


def test_the_batch_procedure_and_the_hours_of_a_several_annotator_study_in_progress():
    result = _plan(rng=5, width=0.06, remaining=RemainingSettings(batch_size=100))
    batches = result.batches
    assert batches is not None
    assert batches.coverage == pytest.approx(0.95, abs=0.02)
    assert batches.stopped_share > 0.99
    # the items 20 person-hours buy: three labels each at their strata's seconds and the
    # contested share adjudicated at 120 s, by hand, fill the 20 hours to within a few items
    bought = _plan(rng=5, width=0.06, remaining=RemainingSettings(hours=20)).bought
    assert bought is not None
    more = np.array([bought.by_stratum[n] for n in NAMES])
    counts = _file_counts()
    contested = (counts[:, 1] + counts[:, 2]) / counts.sum(axis=1)
    hours = (more * (3 * SECONDS + 120 * contested)).sum() / 3600
    assert bought.cost.person_hours == pytest.approx(hours)
    assert 20 - 5 * 3 * 90 / 3600 < hours <= 20 + 1e-9


@pytest.mark.parametrize("command", ["schedule", "report"])
def test_schedule_and_report_take_a_several_annotator_study_in_progress(command, tmp_path):
    args = [command, SCENARIO, "--labelled", FILE, "--stratum-col", "stratum", "--positive",
            "unsupported", "--seed", "1"]  # fmt: skip
    args += ["--out", str(tmp_path), "--quiet"] if command == "report" else ["--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    if command == "schedule":
        doc = json.loads(result.stdout)
        assert doc["in_progress"]["remaining_items"] == _plan(rng=1).remaining_items
    else:
        text = next(tmp_path.rglob("report.md")).read_text()
        assert "3 labels each" in text


def test_a_named_team_bills_the_rest_person_by_person(tmp_path):
    shipped = Path(load_scenario(SCENARIO).path).read_text()
    team = '\n[[team.annotator]]\nname = "ana"\nseconds_per_item = 60\nhourly_rate = 50\n'
    team += '\n[[team.annotator]]\nname = "bo"\n\n[[team.annotator]]\nname = "cy"\n'
    path = tmp_path / "team.toml"
    path.write_text(shipped + team)
    result = remaining_strata_from_file(FILE, str(path), "stratum", positive="unsupported", rng=1)
    assert any("named team person by person" in n for n in result.notes)
    # three people, three labels an item: each labels every remaining item, a stratum's time
    # scaled by its seconds over the budget's 90 s; adjudication (none named) at 120 s and 40
    counts = _file_counts()
    more = np.array([s.remaining for s in result.strata])
    contested = (counts[:, 1] + counts[:, 2]) / counts.sum(axis=1)
    work = float((more * SECONDS).sum()) / 90.0
    ana, others = work * 60 / 3600, 2 * work * 90 / 3600
    judged = float((more * contested).sum()) * 120 / 3600
    assert result.budget.labelling_hours == pytest.approx(ana + others)
    assert result.budget.cost == pytest.approx(ana * 50 + (others + judged) * 40)
