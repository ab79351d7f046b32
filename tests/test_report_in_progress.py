"""The report of a study in progress (``planner report SCENARIO --labelled FILE``)."""

from __future__ import annotations

import csv
import json
import math
import re
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.output.report_in_progress import ProgressSettings, write_progress_report

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
PAIR_FILE = str(ROOT / "examples" / "labelled-600.csv")
STRATA_FILE = str(ROOT / "examples" / "stratified-labels.csv")
PAIR = ["unsupported-claims", "--labelled", PAIR_FILE]
STRATA = [
    "unsupported-claims-enriched",
    "--labelled",
    STRATA_FILE,
    "--stratum-col",
    "stratum",
    "--positive",
    "unsupported",
]


def _report(tmp: Path, args: list[str], seed: str = "1") -> Path:
    result = runner.invoke(app, ["report", *args, "--out", str(tmp), "--seed", seed, "--quiet"])
    assert result.exit_code == 0, result.output
    (folder,) = [p for p in tmp.iterdir() if p.name.endswith("-in-progress")]
    return folder


def _rows(markdown: str) -> dict[str, str]:
    """The two-column table rows of a report, ``quantity -> value``."""
    return {m[1]: m[2] for m in re.finditer(r"^\| ([^|\n]+?) \| ([^|\n]+?) \|$", markdown, re.M)}


def _pair_counts(path: str) -> tuple[int, int, int, int]:
    """(both, a only, b only, neither) of a long two-annotator 0/1 file, read here."""
    labels: dict[str, dict[str, str]] = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            labels.setdefault(row["item"], {})[row["annotator"]] = row["label"]
    cells = Counter((v["ann_a"], v["ann_b"]) for v in labels.values())
    return cells["1", "1"], cells["1", "0"], cells["0", "1"], cells["0", "0"]


def _wilson_psa(a: int, union: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson interval of J = a / U, mapped to PSA = 2J / (1 + J) (Newcombe 1998's score
    interval; the mapping is monotone)."""
    p = a / union
    centre = (p + z * z / (2 * union)) / (1 + z * z / union)
    half = z * math.sqrt(p * (1 - p) / union + z * z / (4 * union * union)) / (1 + z * z / union)
    return tuple(2 * j / (1 + j) for j in (centre - half, centre + half))  # type: ignore[return-value]


def test_the_independent_wilson_psa_matches_the_published_pilot_interval():
    # the worked example's pilot (6, 21, 14, 459): 0.1288 to 0.4429 (psa_interval's docstring)
    low, high = _wilson_psa(6, 6 + 21 + 14)
    assert (round(low, 4), round(high, 4)) == (0.1288, 0.4429)


@pytest.fixture(scope="module")
def pair_report(tmp_path_factory) -> Path:
    return _report(tmp_path_factory.mktemp("pair"), [*PAIR, "--hours", "20"])


@pytest.fixture(scope="module")
def strata_report(tmp_path_factory) -> Path:
    return _report(tmp_path_factory.mktemp("strata"), STRATA)


@pytest.mark.slow
def test_the_headline_is_the_library_plan_and_the_interval_now_is_wilson(pair_report):
    from planner.application.plan_options import resolve, settings_from
    from planner.data.scenario import load_scenario
    from planner.sizing.midstudy import plan_remaining_from_file
    from planner.sizing.midstudy_settings import RemainingSettings

    settings = settings_from(resolve(load_scenario("unsupported-claims"), {}))
    plan = plan_remaining_from_file(PAIR_FILE, settings, RemainingSettings(hours=20), rng=1)
    rows = _rows((pair_report / "report.md").read_text())
    assert rows["labelled so far"] == f"{plan.labelled_items:,}"
    assert rows["still to label"] == f"{plan.remaining_items:,}"
    assert rows["total"] == f"{plan.total_items:,}"
    assert rows["assurance of stopping now"] == "0"
    assert rows["items bought"] == f"{plan.bought.bought_items:,}"
    both, a_only, b_only, neither = _pair_counts(PAIR_FILE)
    assert plan.counts == (both, a_only, b_only, neither)
    low, high = _wilson_psa(both, both + a_only + b_only)
    psa = 2 * both / (2 * both + a_only + b_only)
    assert rows["interval now"].startswith(f"PSA {psa:.3f}, 95% interval {low:.3f} to {high:.3f}")
    assert (
        "finish of the remaining work" in rows
        and "calendar day" in rows["finish of the remaining work"]
    )


@pytest.mark.slow
def test_the_assurance_curve_passes_through_the_planned_answer(pair_report):
    curve = json.loads((pair_report / "figures.json").read_text())["assurance_remaining"]
    plan = json.loads((pair_report / "progress.json").read_text())
    planned = curve["remaining_items"].index(plan["remaining_items"])
    assert curve["assurance"][planned] == pytest.approx(plan["assurance"], abs=1e-12)
    assert curve["remaining_items"][0] == 0 and curve["assurance"][0] == 0.0  # stopping now
    assert all(b >= a - 0.02 for a, b in pairwise(curve["assurance"]))
    assert (pair_report / "figures" / "assurance_remaining.png").stat().st_size > 1000


@pytest.mark.slow
def test_the_schedule_labels_only_the_remaining_items(pair_report):
    schedule = json.loads((pair_report / "schedule.json").read_text())
    plan = json.loads((pair_report / "progress.json").read_text())
    assert json.dumps(schedule).count(str(plan["remaining_items"])) >= 1
    text = (pair_report / "report.md").read_text()
    assert f"| items | {plan['remaining_items']:,} (2 labels each) |" in text


@pytest.mark.slow
def test_a_stratified_report_shows_each_stratum_and_the_shares_note(strata_report):
    from planner.data.scenario import load_scenario
    from planner.sizing.strata_file import plan_remaining_strata_from_file

    scenario = load_scenario("unsupported-claims-enriched")
    plan = plan_remaining_strata_from_file(
        STRATA_FILE, scenario.path, "stratum", positive="unsupported", rng=1
    )
    text = (strata_report / "report.md").read_text()
    for s in plan.strata:
        row = f"| {s.name} | {s.share:.3f} | {s.design_share:.3f} | {s.labelled:,} | "
        assert row + f"{s.remaining:,} | {s.total:,} |" in text
    assert plan.shares_check.p_value < 0.01
    assert "does not look like a random sample of the design" in text
    assert "## What the remaining" not in text  # no hours or budget given


@pytest.mark.slow
def test_hours_of_a_stratified_study_buy_what_the_library_allocates(tmp_path):
    from planner.sizing.midstudy_settings import RemainingSettings
    from planner.sizing.strata_file import plan_remaining_strata_from_file

    folder = _report(tmp_path, [*STRATA, "--hours", "20"])
    text = (folder / "report.md").read_text()
    bought = text.split("## What the remaining 20 person-hours buy", 1)[1].split("##", 1)[0]
    plan = plan_remaining_strata_from_file(
        STRATA_FILE, "unsupported-claims-enriched", "stratum", positive="unsupported",
        remaining=RemainingSettings(hours=20.0), rng=1,
    )  # fmt: skip
    rows = _rows(bought)
    assert rows["items bought"] == f"{plan.bought.bought_items:,}"
    assert rows["total items"] == f"{plan.bought.total_items:,}"
    for name, items in plan.bought.by_stratum.items():
        assert rows[f"bought in {name}"] == f"{items:,}"
    assert sum(plan.bought.by_stratum.values()) == plan.bought.bought_items


@pytest.mark.slow
def test_a_several_annotator_scenario_reports_its_study_in_progress(tmp_path):
    """web-toxicity-three-annotators with examples/wide.csv (alice, bob, carol): the plan is
    the library's for the scenario's target, and the schedule gives each remaining item a
    label from all three."""
    from planner.sizing.midstudy import plan_remaining_from_file
    from planner.sizing.plan import PlanSettings

    wide = str(ROOT / "examples" / "wide.csv")
    args = ["web-toxicity-three-annotators", "--labelled", wide, "--positive", "unsupported"]
    text = (_report(tmp_path, args) / "report.md").read_text()
    # the scenario's [target], [budget] and [simulation], read here from the TOML
    settings = PlanSettings(
        width=0.05, assurance=0.8, metric="psa", seconds_per_item=30, hourly_rate=25,
        replicates=2000,
    )  # fmt: skip
    plan = plan_remaining_from_file(wide, settings, positive="unsupported", rng=1)
    rows = _rows(text)
    assert rows["still to label"] == f"{plan.remaining_items:,}"
    assert rows["total"] == f"{plan.total_items:,}"
    assert rows["items"] == f"{plan.remaining_items:,} (3 labels each)"
    hours = plan.remaining_items * 3 * 30 / 3600
    assert rows["person-hours still to spend"] == f"{hours:,.1f}"


@pytest.mark.slow
def test_the_same_seed_gives_the_same_bytes(tmp_path, strata_report):
    again = _report(tmp_path, STRATA)
    files = sorted(p.relative_to(strata_report) for p in strata_report.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for name in files:
        assert (strata_report / name).read_bytes() == (again / name).read_bytes(), name


@pytest.mark.slow
def test_stratum_names_are_escaped_in_markdown_and_html(tmp_path):
    odd = "user | complaints <b>"
    scenario = (ROOT / "scenarios" / "unsupported-claims-enriched.toml").read_text()
    (tmp_path / "odd.toml").write_text(
        scenario.replace('"user complaints"', f'"{odd}"').replace(
            'name = "unsupported-claims-enriched"', 'name = "odd"'
        )
    )
    labels = Path(STRATA_FILE).read_text().replace("user complaints", odd)
    (tmp_path / "odd.csv").write_text(labels)
    args = [str(tmp_path / "odd.toml"), "--labelled", str(tmp_path / "odd.csv")]
    folder = _report(tmp_path / "out", [*args, *STRATA[3:]])
    assert "| user \\| complaints &lt;b&gt; | 0.010 |" in (folder / "report.md").read_text()
    page = (folder / "report.html").read_text()
    assert "<td>user | complaints &lt;b&gt;</td>" in page and "<b>" not in page


def _refused(args: list[str], tmp_path: Path) -> str:
    result = runner.invoke(app, ["report", *args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert not (tmp_path / "out").exists()
    return lines[0]


def test_a_missing_label_file_is_refused_in_one_line(tmp_path):
    line = _refused(["unsupported-claims", "--labelled", str(tmp_path / "no.csv")], tmp_path)
    assert "--labelled" in line and "no.csv" in line


def test_stratum_col_needs_a_stratified_scenario(tmp_path):
    line = _refused([*PAIR, "--stratum-col", "stratum"], tmp_path)
    assert "--stratum-col" in line and "[[strata]]" in line


def test_a_stratified_scenario_needs_stratum_col(tmp_path):
    line = _refused(["unsupported-claims-enriched", "--labelled", STRATA_FILE], tmp_path)
    assert "--stratum-col" in line


@pytest.mark.parametrize(
    "extra", [["--stratum-col", "stratum"], ["--pair", "a,b"], ["--hours", "3"]]
)
def test_the_study_in_progress_options_need_labelled(tmp_path, extra):
    line = _refused(["unsupported-claims", *extra], tmp_path)
    assert f"{extra[0]} applies only with --labelled FILE" in line


def test_hours_and_budget_together_are_refused(tmp_path):
    line = _refused([*PAIR, "--hours", "3", "--budget", "100"], tmp_path)
    assert "--hours and --budget" in line


def test_pair_with_a_stratum_column_is_refused(tmp_path):
    line = _refused([*STRATA, "--pair", "ann_a,ann_b"], tmp_path)
    assert line.startswith("error: --pair does not apply")


def test_a_failed_plan_leaves_no_folder_behind(tmp_path):
    scenario = (ROOT / "scenarios" / "unsupported-claims.toml").read_text()
    (tmp_path / "small.toml").write_text(
        scenario.replace("[simulation]\n", "[simulation]\nmax_items = 700\n")
    )
    out = tmp_path / "reports" / "nested"
    args = [str(tmp_path / "small.toml"), "--labelled", PAIR_FILE, "--out", str(out)]
    result = runner.invoke(app, ["report", *args, "--seed", "1"])
    assert result.exit_code == 1, result.output
    assert "the scenario's simulation max_items 700" in result.output
    assert not out.exists() and not (tmp_path / "reports").exists()


def test_an_existing_report_needs_force_and_the_up_front_report_is_kept(tmp_path):
    (tmp_path / "unsupported-claims").mkdir()
    (tmp_path / "unsupported-claims" / "mine.txt").write_text("kept")
    (tmp_path / "unsupported-claims-in-progress").mkdir()
    result = runner.invoke(app, ["report", *PAIR, "--out", str(tmp_path)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "unsupported-claims-in-progress" in result.output
    assert (tmp_path / "unsupported-claims" / "mine.txt").read_text() == "kept"


def test_the_settings_check_their_values():
    from planner.errors import InvalidInput

    with pytest.raises(InvalidInput, match="^pair takes two annotators"):
        ProgressSettings(PAIR_FILE, pair=("a",))  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="^hours must be"):
        ProgressSettings(PAIR_FILE, hours=-1)
    with pytest.raises(InvalidInput, match="^labelled must name"):
        ProgressSettings(" ")


def test_the_library_refuses_a_destination_before_any_work(tmp_path):
    from planner.errors import InvalidInput

    (tmp_path / "unsupported-claims-in-progress").write_text("a file")
    with pytest.raises(InvalidInput, match="not a folder"):
        write_progress_report(
            "unsupported-claims", ProgressSettings(PAIR_FILE), tmp_path, force=True, rng=1
        )


@pytest.mark.slow
def test_a_pair_report_with_its_figure_is_the_same_for_the_same_seed(tmp_path, pair_report):
    again = _report(tmp_path, [*PAIR, "--hours", "20"])
    for name in ("report.md", "report.html", "figures/assurance_remaining.png", "progress.json"):
        assert (pair_report / name).read_bytes() == (again / name).read_bytes(), name


@pytest.mark.slow
def test_a_named_team_gives_the_finish_dates_of_the_remaining_work(tmp_path):
    folder = _report(tmp_path, [str(ROOT / "examples" / "team.toml"), "--labelled", PAIR_FILE])
    finish = _rows((folder / "report.md").read_text())["finish of the remaining work"]
    assert re.fullmatch(r"2027-\d\d-\d\d \(median; 10th percentile 2027-\S+, 90th .*\)", finish)
    assert (folder / "figures" / "team_timeline.png").is_file()


@pytest.mark.slow
def test_a_scenario_count_unlike_the_files_annotators_is_refused(tmp_path):
    wide = str(ROOT / "examples" / "wide.csv")
    args = ["web-toxicity-three-annotators", "--labelled", wide, "--positive", "unsupported"]
    message = _refused([*args, "--annotator-cols", "alice,bob", "--format", "csv"], tmp_path)
    assert "annotators.count 3 does not match the labels in hand" in message
    assert "their 2 annotators" in message
