"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

# Same examples on every run: CI never fails on a new random example that a developer
# did not see. Explore more locally with HYPOTHESIS_PROFILE=explore.
settings.register_profile("deterministic", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


@pytest.fixture(scope="session")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The command-line fuzz's folder (tests/cli_fuzzing.py); FUZZ_DIR=folder keeps it there
    (an empty or new folder), so that a logged reproducer's input files stay for rerunning."""
    from tests.cli_fuzzing import make_inputs

    kept = os.environ.get("FUZZ_DIR")
    if kept:
        root = Path(kept).resolve()
        root.mkdir(parents=True, exist_ok=True)
        return make_inputs(root)
    return make_inputs(tmp_path_factory.mktemp("fuzz"))


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    """The command-line fuzz's exit-code mix, when this session ran it."""
    fuzzing = sys.modules.get("tests.cli_fuzzing")
    if fuzzing is not None and fuzzing.TALLY:
        terminalreporter.section("command-line fuzz: exit codes")
        for line in fuzzing.tally_lines(fuzzing.TALLY):
            terminalreporter.write_line(line)


# The chapter's pilot table (seed 001): 6 both, 21 A only, 14 B only, 459 neither.
CHAPTER_TABLE = np.array([[6, 21], [14, 459]])


@pytest.fixture
def chapter_table() -> np.ndarray:
    return CHAPTER_TABLE.copy()


def cells_from_margins(p_a: float, p_b: float, kappa: float) -> tuple[float, float, float, float]:
    """Cells (a, b, c, d) from the two positive rates and Cohen's kappa
    (docs/methods/sample-size.md 2.3)."""
    p_e = p_a * p_b + (1 - p_a) * (1 - p_b)
    p_o = kappa * (1 - p_e) + p_e
    a = (p_o - 1 + p_a + p_b) / 2
    return (a, p_a - a, p_b - a, 1 - p_a - p_b + a)


# Krippendorff (2011) reliability data: 4 observers x 12 units, missing values as None.
KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}

# Fleiss (1971) diagnoses: 30 patients x 6 ratings, categories 1..5 (as in R irr and the
# statsmodels test suite).
FLEISS_1971_DIAGNOSES = [
    [4, 4, 4, 4, 4, 4],
    [2, 2, 2, 5, 5, 5],
    [2, 3, 3, 3, 3, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3],
    [3, 3, 3, 3, 5, 5],
    [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4],
    [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4],
    [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3],
    [1, 4, 4, 4, 4, 4],
    [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5],
    [1, 1, 1, 1, 1, 2],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5],
    [2, 4, 4, 4, 4, 4],
    [2, 2, 4, 5, 5, 5],
    [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4],
    [1, 1, 1, 1, 5, 5],
    [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3],
    [5, 5, 5, 5, 5, 5],
]


def counts_from_matrix(matrix, categories):
    """Per-item category counts from an items x annotators list (None = missing)."""
    out = np.zeros((len(matrix), len(categories)), dtype=int)
    for i, row in enumerate(matrix):
        for value in row:
            if value is not None:
                out[i, categories.index(value)] += 1
    return out


@pytest.fixture
def krippendorff_counts() -> np.ndarray:
    units = list(zip(*KRIPPENDORFF_2011.values(), strict=True))
    return counts_from_matrix(units, [1, 2, 3, 4, 5])


@pytest.fixture
def diagnoses_counts() -> np.ndarray:
    return counts_from_matrix(FLEISS_1971_DIAGNOSES, [1, 2, 3, 4, 5])


@pytest.fixture(scope="session")
def short_first_stage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``examples/stratified-labels.csv`` with only 30 of the 100 s stratum's ("flagged by an
    automated check") and 20 of the 120 s stratum's ("user complaints") items: the rest of
    the enriched scenario's design then falls in strata whose seconds are not the budget's."""
    import pandas as pd

    frame = pd.read_csv(Path(__file__).parent.parent / "examples" / "stratified-labels.csv")
    kept = {"rest of traffic", "historically risky query types"}
    keep = set(frame.item[frame.stratum.isin(kept)])
    for name, n in {"user complaints": 20, "flagged by an automated check": 30}.items():
        keep |= set(frame.item[frame.stratum == name].drop_duplicates().head(n))
    path = tmp_path_factory.mktemp("first-stage") / "first-stage.csv"
    frame[frame.item.isin(keep)].to_csv(path, index=False)
    return path
