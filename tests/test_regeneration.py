"""The committed reports are what their commands print today (the regeneration harness).

Every folder under ``reports/`` is rebuilt from its scenario with the scenario's own seed
(``planner report NAME --out TMP``, as the README's rebuild command does) and compared with
the committed copy: text files line for line, JSON documents value for value (floats to a
relative 1e-9, since the last binary digits may differ between numpy builds), the HTML with
its embedded images left out (their pixels depend on the matplotlib build; the data behind
every figure is ``figures.json``, compared above). A change that moves a number in a report
fails here until the reports are regenerated in a commit that says so.

The README's seeded ``$`` blocks are checked the same way by tests/test_readme_commands.py.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
REPORTS = sorted(p.name for p in (ROOT / "reports").iterdir() if (p / "report.md").is_file())
TEXT_FILES = ("report.md", "scenario.toml", ".planner-report")
JSON_FILES = ("plan.json", "schedule.json", "figures.json")
IMAGE = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reports")
    argv = [sys.executable, "-m", "planner", "report", *REPORTS, "--out", str(out), "--quiet"]
    done = subprocess.run(argv, cwd=out, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def _differences(new: Any, old: Any, where: str = "$") -> list[str]:
    """Where two JSON values differ: floats beyond a relative 1e-9, anything else at all."""
    if isinstance(new, dict) and isinstance(old, dict):
        if new.keys() != old.keys():
            return [f"{where}: keys {sorted(new.keys() ^ old.keys())}"]
        return [d for k in new for d in _differences(new[k], old[k], f"{where}.{k}")]
    if isinstance(new, list) and isinstance(old, list):
        if len(new) != len(old):
            return [f"{where}: {len(new)} items, committed {len(old)}"]
        return [
            d
            for i, (a, b) in enumerate(zip(new, old, strict=True))
            for d in _differences(a, b, f"{where}[{i}]")
        ]
    both_numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (new, old))
    if both_numbers and (isinstance(new, float) or isinstance(old, float)):
        return (
            []
            if math.isclose(new, old, rel_tol=1e-9, abs_tol=1e-12)
            else [f"{where}: {new!r}, committed {old!r}"]
        )
    return [] if new == old else [f"{where}: {new!r}, committed {old!r}"]


def test_there_are_committed_reports_to_check():
    assert len(REPORTS) >= 5 and "web-toxicity-three-annotators" in REPORTS


@pytest.mark.parametrize("name", REPORTS)
def test_committed_report_text_is_what_the_command_writes(rebuilt, name):
    for file in TEXT_FILES:
        new = (rebuilt / name / file).read_text(encoding="utf-8").splitlines()
        old = (ROOT / "reports" / name / file).read_text(encoding="utf-8").splitlines()
        changed = [
            f"{file}:{i + 1}: {a!r} != {b!r}"
            for i, (a, b) in enumerate(zip(new, old, strict=False))
            if a != b
        ]
        assert changed == [] and len(new) == len(old), "\n".join(changed[:5])


@pytest.mark.parametrize("name", REPORTS)
def test_committed_report_json_holds_the_numbers_the_command_computes(rebuilt, name):
    for file in JSON_FILES:
        committed = ROOT / "reports" / name / file
        if not committed.exists():
            assert not (rebuilt / name / file).exists(), f"{name}/{file} is not committed"
            continue
        new = json.loads((rebuilt / name / file).read_text(encoding="utf-8"))
        old = json.loads(committed.read_text(encoding="utf-8"))
        new.pop("planner_version", None)
        old.pop("planner_version", None)
        differences = _differences(new, old)
        assert differences == [], f"{name}/{file}: " + "\n".join(differences[:5])


@pytest.mark.parametrize("name", REPORTS)
def test_committed_report_html_is_the_command_html_but_for_image_pixels(rebuilt, name):
    new = IMAGE.sub("PNG", (rebuilt / name / "report.html").read_text(encoding="utf-8"))
    old = IMAGE.sub("PNG", (ROOT / "reports" / name / "report.html").read_text(encoding="utf-8"))
    assert new == old
    figures = sorted(p.name for p in (ROOT / "reports" / name / "figures").iterdir())
    assert figures == sorted(p.name for p in (rebuilt / name / "figures").iterdir())


def test_the_comparison_tells_float_noise_from_a_moved_number():
    assert _differences({"a": [1.0, 2]}, {"a": [1.0 + 1e-15, 2]}) == []
    assert _differences({"a": 0.9}, {"a": 0.91}) == ["$.a: 0.9, committed 0.91"]
    assert _differences({"n": 2292}, {"n": 2293}) == ["$.n: 2292, committed 2293"]
    assert _differences({"a": 1}, {"b": 1}) == ["$: keys ['a', 'b']"]
