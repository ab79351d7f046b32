"""The bound on the posterior lattices of the PSA plan under pilot uncertainty.

Independent check: the same degenerate pilot searched without the bound (the lattices grow
until the answer's Monte Carlo SE is 0.5 % of it) and with a bound small enough to stop at
the first lattice; the two answers must agree within their combined Monte Carlo error.
"""

from __future__ import annotations

import math

import pytest

from planner.output.jsonout import plan_document, uncertainty_json
from planner.sizing import uncertainty
from planner.sizing.model import pair_from_counts
from planner.sizing.plan import PlanSettings, make_plan
from planner.sizing.uncertainty import MAX_LATTICE_CELLS, items_under_uncertainty

#: one item both flag, nine neither: no disagreement, so the posterior of J is wide
DEGENERATE = (1, 0, 0, 9)
SETTINGS = PlanSettings(width=0.08, assurance=0.8)


@pytest.mark.slow
def test_a_bound_hit_is_noted_and_agrees_with_the_unbounded_answer(monkeypatch):
    free = items_under_uncertainty(DEGENERATE, SETTINGS, rng=5)
    assert free.draws > 880 and not any("bound" in n for n in free.notes)
    # 16 lattices of 55 points over U* = 182 (width 0.08): only the first size fits
    monkeypatch.setattr(uncertainty, "MAX_LATTICE_CELLS", 16 * 55 * 182)
    bounded = items_under_uncertainty(DEGENERATE, SETTINGS, rng=5)
    assert bounded.draws == 880
    assert any("bound" in note for note in bounded.notes)
    spread = math.hypot(free.items_mc_se, bounded.items_mc_se)
    assert abs(bounded.items - free.items) <= 4 * spread


@pytest.fixture
def bounded_plan(monkeypatch):
    """The degenerate pilot's plan with a bound small enough to stop at the first lattice."""
    monkeypatch.setattr(uncertainty, "MAX_LATTICE_CELLS", 16 * 55 * 182)
    return make_plan(
        pair_from_counts(list(DEGENERATE)),
        PlanSettings(assurance=0.8, replicates=500),
        rng=5,
        pilot_draws=880,
    )


def test_the_plan_prints_the_bound_note(bounded_plan):
    plan = bounded_plan
    assert any("under pilot uncertainty" in n and "bound" in n for n in plan.notes)


def test_the_bound_keeps_a_small_pilot_at_the_default_width_unbounded():
    # the everyday pilot (6/21/14/459) never reaches the bound
    assert 16 * 2584 * 182 > MAX_LATTICE_CELLS > 16 * 233 * 182
    u = items_under_uncertainty((6, 21, 14, 459), PlanSettings(), rng=1)
    assert u.items_mc_se <= 0.005 * u.items and not u.notes


@pytest.mark.parametrize("points, u_star, inside", [(55, 182, True), (2584, 740, False)])
def test_within_lattice_bound_counts_draw_by_union_positive_cells(points, u_star, inside):
    assert uncertainty.within_lattice_bound(points, u_star) is inside


@pytest.mark.slow
def test_the_plan_json_keeps_the_bound_note_with_the_uncertainty(bounded_plan):
    plan = bounded_plan
    notes = plan_document(plan)["uncertainty"]["notes"]
    assert any("bound" in note for note in notes)
    unbounded = items_under_uncertainty((6, 21, 14, 459), PlanSettings(), rng=1)
    assert "notes" not in uncertainty_json(unbounded)
