"""Reports: files, figures, embedded HTML, refusing to overwrite."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app

pytestmark = pytest.mark.slow

runner = CliRunner()
SCENARIOS = Path(__file__).parent.parent / "scenarios"
PNG = b"\x89PNG\r\n\x1a\n"


def test_report_files_figures_and_embedded_html(tmp_path):
    scenario = SCENARIOS / "unsupported-claims-enriched.toml"
    result = runner.invoke(app, ["report", str(scenario), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "unsupported-claims-enriched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["unsupported-claims-enriched"]
    for name in ("report.md", "report.html", "scenario.toml", "plan.json", "schedule.json"):
        assert (folder / name).stat().st_size > 0
    figures = sorted((folder / "figures").glob("*.png"))
    assert [f.name for f in figures] == [
        "burndown.png",
        "estimates.png",
        "half_width.png",
        "hours.png",
    ]
    for figure in figures:
        data = figure.read_bytes()
        assert data.startswith(PNG) and len(data) > 5000
    markdown = (folder / "report.md").read_text()
    for figure in figures:
        assert f"figures/{figure.name}" in markdown
    assert "Designs compared" in markdown and "seed 7" in markdown
    page = (folder / "report.html").read_text()
    images = re.findall(r"<img src='([^']+)'", page)
    assert len(images) == len(figures)
    assert all(src.startswith("data:image/png;base64,") for src in images)


def test_existing_report_needs_force(tmp_path):
    scenario = str(SCENARIOS / "unsupported-claims.toml")
    assert runner.invoke(app, ["report", scenario, "--out", str(tmp_path)]).exit_code == 0
    marker = tmp_path / "unsupported-claims" / "report.md"
    before = marker.read_text()
    marker.write_text("edited by hand")
    again = runner.invoke(app, ["report", scenario, "--out", str(tmp_path)])
    assert again.exit_code == 2 and "--force" in again.stderr
    assert marker.read_text() == "edited by hand"
    forced = runner.invoke(app, ["report", scenario, "--out", str(tmp_path), "--force"])
    assert forced.exit_code == 0
    assert marker.read_text() == before  # same seed, same report
    assert sorted(p.name for p in tmp_path.iterdir()) == ["unsupported-claims"]
