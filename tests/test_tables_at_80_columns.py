"""Every table and line the CLI prints is readable at 80 columns when piped.

Piped, with COLUMNS=80 (what a pipe gets when COLUMNS is unset), each command's output is
compared with the same command at 400 columns: every word and number of the wide output
must be found whole in the narrow one (names wrap between words; nothing is cut, folded
or ended with an ellipsis), and no line is wider than 80 columns.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
WIDE = ["--layout", "wide", "--annotators", "alice,bob,carol"]
COMMANDS = {
    "plan": ["plan", "--prevalence", "0.08", "--seed", "1"],
    "plan --curve": ["plan", "--prevalence", "0.08", "--seed", "1", "--curve"],
    "plan scenario (designs, strata)": ["plan", "scenarios/clinical-chart-review.toml",
                                        "--seed", "1", "--replicates", "200"],
    "plan --annotators": ["plan", "--annotators", "3", "--kappa", "0.6", "--prevalence", "0.2",
                          "--seed", "1", "--replicates", "200"],
    "plan --pilot": ["plan", "--pilot", "examples/pilot.csv", "--positive", "1",
                     "--seed", "1"],
    "plan --labelled": ["plan", "--labelled", "examples/labelled-600.csv", "--metric", "both",
                        "--batch-size", "200", "--planned-items", "1280", "--seed", "1"],
    "agree": ["agree", "examples/labels.csv", "--positive", "unsupported", "--seed", "1"],
    "agree --by": ["agree", "examples/wide.csv", *WIDE, "--by", "week", "--seed", "1"],
    "fit": ["fit", "examples/anesthesia.csv", "--item-col", "patient", "--annotator-col",
            "observer", "--label-col", "rating", "--seed", "1"],
    "fit wide": ["fit", "examples/wide.csv", *WIDE, "--positive", "unsupported", "--seed", "1"],
    "alt-test": ["alt-test", "examples/wide.csv", *WIDE, "--llm", "carol", "--epsilon", "0.1"],
    "alt-test --by": ["alt-test", "examples/wide.csv", *WIDE, "--llm", "carol", "--epsilon",
                      "0.1", "--by", "week", "--min-items", "20"],
    "alt-test --plan --table": ["alt-test", "--plan", "--humans", "3", "--categories", "2",
                                "--human-error", "0.3", "--llm-error", "0.2", "--epsilon",
                                "0.1", "--table", "--seed", "1"],
    "schedule": ["schedule", "--items", "2000", "--annotators", "5", "--seed", "1"],
    "compat kappasize": ["compat", "kappasize", "CIBinary", "--kappa0", "0.4", "--kappaL",
                         "0.3", "--kappaU", "0.5", "--props", "0.3", "--seed", "1"],
    "compat irr": ["compat", "irr", "N.cohen.kappa", "--rate1", "0.5", "--rate2", "0.5",
                   "--k1", "0.7", "--k0", "0.85", "--seed", "1"],
}  # fmt: skip
# box-drawing characters of Rich's tables: not part of any word
BOX = re.compile("[\u2500-\u257f]")


def _stdout(args: list[str], columns: int) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": str(columns)}
    env.pop("FORCE_COLOR", None)
    result = subprocess.run(
        [sys.executable, "-m", "planner", *args], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def _words(text: str) -> list[str]:
    return BOX.sub(" ", text).split()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_output_at_80_columns_splits_no_word_or_number(name):
    wide = _stdout(COMMANDS[name], 400)
    narrow = _stdout(COMMANDS[name], 80)
    too_long = [line for line in narrow.splitlines() if len(line) > 80]
    assert not too_long, too_long
    assert "…" not in narrow
    cropped = [line for line in narrow.splitlines() if line[:1] in "│┃" and line[-1:] not in "│┃"]
    assert not cropped, cropped  # a bordered table's right edge is there: nothing cut off
    missing = sorted(set(_words(wide)) - set(_words(narrow)))
    assert not missing, f"cut at 80 columns: {missing}"
