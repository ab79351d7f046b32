"""What simulated studies show about an interval (planner.sizing.study_evidence): each figure
against a computation written out here, and the exact PSA figures against the exact law."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.sizing.exact import exact_psa_assurance, exact_psa_law
from planner.sizing.model import pair_from_counts
from planner.sizing.study_evidence import simulated_evidence, with_exact_psa
from planner.statistics.intervals import ConfidenceInterval

limits = st.one_of(st.floats(-1.0, 1.0), st.just(float("nan")))


@settings(max_examples=150, deadline=None)
@given(
    pairs=st.lists(st.tuples(limits, limits), min_size=1, max_size=40),
    truth=st.floats(-1.0, 1.0),
    width=st.floats(0.01, 1.0),
)
def test_simulated_evidence_is_each_share_and_median_written_out(pairs, truth, width):
    low = np.array([min(p) if not np.isnan(p).any() else p[0] for p in pairs])
    high = np.array([max(p) if not np.isnan(p).any() else p[1] for p in pairs])
    e = simulated_evidence(ConfidenceInterval(low, high), truth, width, (0.5,))
    r = len(pairs)
    hw = (high - low) / 2
    ok = [bool(np.isfinite(h) and 0 < h <= width) for h in hw]
    held = [bool(lo - 1e-9 <= truth <= hi + 1e-9) for lo, hi in zip(low, high, strict=True)]
    assert e.assurance == pytest.approx(sum(ok) / r)
    assert e.coverage == pytest.approx(sum(held) / r)
    assert e.n_undefined == sum(not np.isfinite(h) for h in hw)
    assert e.no_interval == pytest.approx(e.n_undefined / r)
    assert e.assurance_mc_se == pytest.approx(np.sqrt(e.assurance * (1 - e.assurance) / r))
    finite_low = sorted(x for x in low if np.isfinite(x))
    if finite_low:
        assert e.interval[0] == pytest.approx(float(np.median(finite_low)))
    else:
        assert e.interval[0] is None
    usable = sorted(h if np.isfinite(h) and h > 0 else np.inf for h in hw)
    assert e.quantiles[0] == usable[int(np.ceil(0.5 * r)) - 1]


def test_exact_psa_evidence_takes_the_exact_laws_figures():
    pair = pair_from_counts([30, 10, 10, 950])
    rng = np.random.default_rng(0)
    ci = ConfidenceInterval(rng.uniform(0.4, 0.6, 50), rng.uniform(0.7, 0.9, 50))
    simulated = simulated_evidence(ci, pair.psa, 0.1, (0.1, 0.5))
    e = with_exact_psa(simulated, pair, 1000, 0.1, (0.1, 0.5), 0.95, "wilson")
    law = exact_psa_law(pair, 1000, 0.95, "wilson")
    assert e.quantiles == tuple(law.quantiles((0.1, 0.5)))
    assert e.assurance == pytest.approx(exact_psa_assurance(pair, 1000, 0.1, 0.95, "wilson"))
    assert (e.coverage, e.no_interval) == (law.coverage, law.no_interval)
    assert e.assurance_mc_se == e.coverage_mc_se == 0.0 and e.exact_law
    assert e.interval == simulated.interval  # the typical interval stays the simulated one
