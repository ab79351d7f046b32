"""What a report says: the headline, the decision rule, the seed, and its figures' data.

The headline's numbers are checked against a plan made here with ``make_plan`` from the
scenario's values typed in by hand (not through the report's code path) and against the
schedule of ``planner schedule``'s own path (``run_schedule``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.application.plan_options import PlanOptions
from planner.application.schedule_options import run_schedule
from planner.cli.commands import app
from planner.measuring.decision import decide
from planner.output import plots
from planner.output.report import write_report
from planner.output.report_figures import BurndownBand, plan_hours
from planner.sizing.model import pair_from_counts, pair_from_union_rate
from planner.sizing.plan import PlanSettings, make_plan

pytestmark = pytest.mark.slow

runner = CliRunner()
SCENARIOS = Path(__file__).parent.parent / "scenarios"
SMALL = """\
name = "small"
[model]
pilot_counts = [6, 21, 14, 459]
[target]
metric = "psa"
width = 0.15
assurance = 0.8
[budget]
seconds_per_item = 60
hourly_rate = 30.0
[team]
annotators = 3
hours_per_day = 6
days_per_week = 5
runs = 20
"""


def _report(tmp_path: Path, scenario: str | Path, *args: str) -> Path:
    out = tmp_path / "out"
    result = runner.invoke(app, ["report", str(scenario), "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    return next(p for p in out.iterdir() if not p.name.startswith("."))


def _recommendation(markdown: str) -> list[str]:
    section = markdown.split("## Recommendation\n", 1)[1].split("\n## ", 1)[0]
    return [p for p in section.strip().split("\n\n") if p]


def _number(pattern: str, text: str) -> float:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in {text!r}"
    return float(match.group(1).replace(",", ""))


def test_headline_numbers_equal_the_plan_and_the_schedule(tmp_path):
    folder = _report(tmp_path, SCENARIOS / "unsupported-claims.toml")
    headline = _recommendation((folder / "report.md").read_text())[0]
    # the scenario's values, typed in here
    settings = PlanSettings(
        width=0.08,
        confidence_level=0.95,
        assurance=0.9,
        metric="psa",
        annotators_per_item=2,
        seconds_per_item=90,
        adjudication_seconds=120,
        hourly_rate=40.0,
    )
    # with the pilot's uncertainty counted, as the report's plan does
    plan = make_plan(pair_from_counts([6, 21, 14, 459]), settings, rng=20261130, pilot_draws=880)
    budget = plan.budget
    assert _number(r"Label ([\d,]+) items", headline) == plan.items
    assert _number(r"([\d,.]+) person-hours", headline) == round(budget.person_hours, 1)
    assert _number(r"cost ([\d,]+)", headline) == round(budget.cost)
    _, schedule = run_schedule(
        str(SCENARIOS / "unsupported-claims.toml"), PlanOptions(), {}, lambda _: 20261130
    )
    assert _number(r"about ([\d.]+) calendar days", headline) == schedule.calendar_days_median
    assert _number(r"90th percentile ([\d.]+)\)", headline) == schedule.calendar_days_p90
    assert "5 annotators, 4 h a day, 5 days a week" in headline


def test_comparison_headline_is_the_weighted_design(tmp_path):
    folder = _report(tmp_path, SCENARIOS / "clinical-chart-review.toml")
    plan = json.loads((folder / "plan.json").read_text())
    weighted = plan["designs"]["weighted"]
    headline = _recommendation((folder / "report.md").read_text())[0]
    assert "weighted design" in headline
    assert _number(r"Label ([\d,]+) items", headline) == weighted["items"]
    assert _number(r"([\d,.]+) person-hours", headline) == round(
        weighted["budget"]["person_hours"], 1
    )
    assert "(wilson)" not in headline  # the weighted design's interval is linearised


@pytest.mark.parametrize(
    ("thresholds", "below", "at", "source"),
    [
        (
            "[thresholds]\nnot_demonstrated_below = 0.15\ndemonstrated_at = 0.3\n",
            0.15,
            0.3,
            "the scenario's [thresholds]",
        ),
        ("[thresholds]\ndemonstrated_at = 0.5\n", 0.4, 0.5, "the scenario's [thresholds]"),
        ("", 0.4, 0.65, "planner agree's defaults"),
    ],
)
def test_decision_rule_reflects_the_scenario_thresholds(tmp_path, thresholds, below, at, source):
    path = tmp_path / "small.toml"
    path.write_text(SMALL + thresholds)
    folder = _report(tmp_path, path, "--seed", "5")
    rule = _recommendation((folder / "report.md").read_text())[1]
    assert f"Decide in advance ({source})" in rule
    assert f"lower limit is at least {at:g}," in rule
    assert f"upper limit is below {below:g}," in rule
    plan = json.loads((folder / "plan.json").read_text())["results"]["psa"]
    low, high = plan["interval"]["lower"], plan["interval"]["upper"]
    verdict = decide("psa", 0.2553, low, high, below, at).verdict
    assert rule.endswith(f"would read: {verdict}.")
    command = _recommendation((folder / "report.md").read_text())[2]
    assert (
        f"planner agree LABELS.csv --not-demonstrated-below {below:g} --demonstrated-at {at:g}"
        in command
    )
    drawn = json.loads((folder / "figures.json").read_text())["thresholds"]
    assert (drawn["not_demonstrated_below"], drawn["demonstrated_at"]) == (below, at)


def test_same_seed_same_report_byte_for_byte(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)  # no simulation.seed: the seed comes from --seed
    one = _report(tmp_path / "a", path, "--seed", "123")
    two = _report(tmp_path / "b", path, "--seed", "123")
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    for name in files:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    assert "seed 123" in (one / "report.md").read_text()
    assert json.loads((one / "figures.json").read_text())["seed"] == 123
    other = _report(tmp_path / "c", path, "--seed", "124")
    assert (other / "figures.json").read_bytes() != (one / "figures.json").read_bytes()


def test_seed_is_drawn_and_printed_when_absent_and_rebuilds_the_report(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    result = runner.invoke(app, ["report", str(path), "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    seed = int(re.search(r"\(seed (\d+)\)", result.stdout).group(1))
    again = _report(tmp_path / "b", path, "--seed", str(seed))
    first = (tmp_path / "a" / "small" / "report.md").read_text()
    assert first == (again / "report.md").read_text()
    assert f"--seed {seed} --force" in first


def test_write_report_takes_rng_keyword_only(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    one = write_report(path, tmp_path / "a", rng=np.random.default_rng(9))
    two = write_report(path, tmp_path / "b", rng=np.random.default_rng(9))
    assert (one / "report.md").read_text() == (two / "report.md").read_text()
    with pytest.raises(TypeError):
        write_report(path, tmp_path / "c", False, 9)  # type: ignore[misc]


def test_bad_seed_is_a_usage_error_naming_the_flag(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    result = runner.invoke(app, ["report", str(path), "--out", str(tmp_path), "--seed", "-1"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--seed" in lines[0] and "-1" in lines[0]
    assert not (tmp_path / "small").exists()


# ---------------------------------------------------------------- the figures' data


def _vertical_extent(vertices: np.ndarray, x: float) -> tuple[float, float]:
    """Lowest and highest y of a polygon's boundary at ``x`` (edges crossing or touching x)."""
    ys = []
    for (x0, y0), (x1, y1) in zip(vertices[:-1], vertices[1:], strict=True):
        lo, hi = min(x0, x1), max(x0, x1)
        if not lo - 1e-12 <= x <= hi + 1e-12:
            continue
        if hi - lo < 1e-12:
            ys += [y0, y1]
        else:
            ys.append(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    return min(ys), max(ys)


def _drawn_burndown(band: BurndownBand) -> tuple[np.ndarray, np.ndarray]:
    from matplotlib.figure import Figure

    ax = plots.burndown(Figure().add_subplot(), band)
    (polygon,) = ax.collections
    median = next(line for line in ax.lines if "median of" in line.get_label())
    return median.get_path().vertices, polygon.get_paths()[0].vertices


def test_burndown_median_is_drawn_inside_its_band(tmp_path):
    # regression: the median was drawn as a step ('post') through a band drawn with straight
    # lines, so between days the step sat above the band (the committed figures showed it)
    folder = _report(tmp_path, SCENARIOS / "unsupported-claims.toml")
    data = json.loads((folder / "figures.json").read_text())["burndown"]
    p10, median, p90 = (np.array(data[k]) for k in ("p10", "median", "p90"))
    assert np.all(p10 <= median + 1e-12) and np.all(median <= p90 + 1e-12)
    band = BurndownBand(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})
    line, polygon = _drawn_burndown(band)
    assert len(line) >= len(band.days)
    for x, y in line:
        low, high = _vertical_extent(polygon, x)
        assert low - 1e-9 <= y <= high + 1e-9, (x, y, low, high)


def test_a_step_median_would_leave_its_band():
    # the test above can fail: the old drawing (a post step) leaves this band
    band = BurndownBand(
        (0.0, 1.0, 2.0), (1.0, 0.5, 0.0), (1.0, 0.45, 0.0), (1.0, 0.55, 0.0), 2, 2, 3
    )
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    ax.fill_between(band.days, band.p10, band.p90)
    (line,) = ax.step(band.days, band.median, where="post")
    polygon = ax.collections[0].get_paths()[0].vertices
    outside = [
        (x, y)
        for x, y in line.get_path().vertices
        if not _vertical_extent(polygon, x)[0] - 1e-9 <= y <= _vertical_extent(polygon, x)[1] + 1e-9
    ]
    assert outside


@pytest.mark.parametrize(
    ("counts", "width", "assurance"),
    [([6, 21, 14, 459], 0.08, 0.9), ([6, 21, 14, 459], 0.1, 0.5), ([30, 10, 12, 448], 0.1, 0.95)],
)
def test_worst_case_bar_is_at_the_assurance_and_not_below_the_plan(counts, width, assurance):
    plan = make_plan(
        pair_from_counts(counts),
        PlanSettings(width=width, assurance=assurance, replicates=500, hourly_rate=10.0),
        rng=2,
    )
    bars = plan_hours(plan)
    worst = bars.kinds.index("worst")
    fixed = bars.kinds.index("plan")
    assert f"assurance {assurance:g}" in bars.labels[worst]
    assert bars.items[worst] == plan.worst_case.items_at_model_union_rate  # carried
    assert bars.items[worst] >= bars.items[fixed] == plan.items
    assert bars.hours[worst] >= bars.hours[fixed]
    assert bars.costs[worst] == pytest.approx(bars.hours[worst] * 10.0)


def test_worst_case_items_reach_the_union_positives_with_the_assurance():
    from scipy.stats import binom

    plan = make_plan(pair_from_union_rate(0.1, 0.5), PlanSettings(assurance=0.9), rng=1)
    wc = plan.worst_case
    n, u, rate = wc.items_at_model_union_rate, wc.union_positives_wilson_every_outcome, 0.1
    assert binom.sf(u - 1, n, rate) >= 0.9 > binom.sf(u - 1, n - 1, rate)


KAPPA = """\
name = "kappa-study"
[model]
pilot_counts = [30, 10, 12, 448]
[target]
metric = "kappa"
width = 0.15
confidence = 0.9
[thresholds]
not_demonstrated_below = 0.5
demonstrated_at = 0.7
[simulation]
replicates = 300
"""


def test_the_agree_call_under_the_rule_runs_and_decides_on_the_planned_metric(tmp_path):
    path = tmp_path / "kappa.toml"
    path.write_text(KAPPA)
    folder = _report(tmp_path, path, "--seed", "3")
    command = _recommendation((folder / "report.md").read_text())[2].strip("`\n").split()
    assert command[:3] == ["planner", "agree", "LABELS.csv"]
    assert "--decide-on" in command and "cohen_kappa" in command
    assert command[command.index("--confidence") + 1] == "0.9"
    args = ["agree", "--counts", "30,10,12,448", "--seed", "1", *command[3:]]
    result = runner.invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Decision on cohen_kappa" in result.stdout
    assert "demonstrated below 0.5, demonstrated at 0.7" in result.stdout
