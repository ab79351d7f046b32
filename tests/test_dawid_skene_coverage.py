"""Coverage of the Dawid & Skene fit's item-bootstrap percentile intervals, by simulation.

Every interval the tool prints has its coverage checked: studies are drawn from a known
latent-class model (five annotators, binary labels), fitted with ``planner fit``'s bootstrap,
and the share of intervals that contain the true prevalence and the true sensitivity of one
annotator is compared with the nominal 95 %. The simulation below is written here, item by
item with numpy, independently of the planner's pattern compression.
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.statistics.dawid_skene import fit_latent_classes
from planner.statistics.dawid_skene_settings import LatentClassSettings

PREVALENCE = 0.2
SENSITIVITY = np.array([0.85, 0.8, 0.9, 0.75, 0.85])
SPECIFICITY = np.array([0.9, 0.95, 0.92, 0.9, 0.88])


def _study(rng: np.random.Generator, n_items: int) -> np.ndarray:
    """``(N, 5, 2)`` counts: one label per item and annotator; category 1 is positive."""
    truth = rng.random(n_items) < PREVALENCE
    p_positive = np.where(truth[:, None], SENSITIVITY, 1 - SPECIFICITY)
    says_positive = rng.random((n_items, SENSITIVITY.size)) < p_positive
    counts = np.zeros((n_items, SENSITIVITY.size, 2), dtype=int)
    counts[..., 1] = says_positive
    counts[..., 0] = ~says_positive
    return counts


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_true_parameters():
    rng = np.random.default_rng(20261201)
    studies, covered_prevalence, covered_sensitivity = 80, 0, 0
    for _ in range(studies):
        fit = fit_latent_classes(_study(rng, 400), LatentClassSettings(n_boot=100), rng=rng)
        low, high = fit.prevalence_interval[1]
        covered_prevalence += low <= PREVALENCE <= high
        low, high = fit.confusion_interval[0, 1, 1]  # annotator 1, true positive, says positive
        covered_sensitivity += low <= SENSITIVITY[0] <= high
    # nominal 0.95; 80 studies give a Monte Carlo SE of about 0.024, so 0.87 is 3 SE below
    assert covered_prevalence / studies >= 0.87
    assert covered_sensitivity / studies >= 0.87
