"""The assurance of finishing a study whose first stage is already labelled (an internal pilot).

The first stage's counts ``(a0, b0, c0, d0)`` of ``n0`` items stay in the final analysis
(Wittes & Brittain 1990). With ``m`` items still to label, the final table is the first stage
plus a second stage drawn from the truth ``p``, and the assurance is

    ``A(m; p) = P(half-width of the interval on first + second stage <= width | p)``,

averaged over the first stage's posterior ``p ~ Dirichlet(counts + 1/2)`` (the hybrid
assurance of O'Hagan, Stevens & Campbell 2005, as for a separate pilot in
:mod:`planner.sizing.uncertainty`).

**PSA, exactly.** A conditional PSA interval depends on the table only through ``(a, U)``, and
the narrow outcomes are runs of ``a`` for each ``U`` below ``U*``
(:func:`planner.sizing.uncertainty.narrow_outcomes`). The final counts are
``a = a0 + a2`` and ``U = U0 + U2`` with ``U2 ~ Bin(m, r)`` and ``a2 | U2 ~ Bin(U2, J)``, so

    ``A(m; r, J) = 1 - sum_{u < U* - U0} Bin(u; m, r) (1 - N(u; J))``,

``N(u; J) = sum over the runs [lo, hi] at U0 + u of P(lo - a0 <= Bin(u, J) <= hi - a0)``:
the same binomial sums as a fresh study, shifted by the first stage. :class:`StageAssurance`
evaluates them for every posterior draw at once.

**Cohen's kappa, by simulation.** Every simulated second stage has its own posterior truth
(:class:`planner.sizing.uncertainty_kappa.PosteriorStudies`, nested across ``m``) and the first
stage's table is added before the interval is computed (:class:`FirstStageStudies`).

References
----------
Wittes J, Brittain E (1990) The role of internal pilot studies in increasing the efficiency
    of clinical trials. Stat Med 9:65-72.
O'Hagan A, Stevens JW, Campbell MJ (2005) Assurance in clinical trial design.
    Pharm Stat 4:187-201.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from planner.sizing.exact import log_gamma
from planner.sizing.uncertainty import DrawAssurance, NarrowOutcomes
from planner.sizing.uncertainty_kappa import PosteriorStudies


def stage_failure(outcomes: NarrowOutcomes, a0: int, u0: int, jaccard: NDArray) -> NDArray:
    """``(draws, K)``: ``1 - N(u; J_d)`` for second-stage union positives ``u = 0 .. K - 1``,
    ``K = max(U* - U0, 0)`` (from ``K`` on every final outcome is narrow).

    ``N(u; J)`` is the probability that ``a0 + Bin(u, J)`` is a narrow outcome at
    ``U0 + u`` union positives; ``Bin(0, J)`` is 0, so ``N(0)`` says whether the first stage
    alone is narrow.
    """
    from scipy import special  # lazily: only the mid-study plan needs the binomial cdf

    k_more = max(outcomes.u_star - u0, 0)
    keep = outcomes.runs_u >= u0
    u = (outcomes.runs_u[keep] - u0)[None, :]
    lo = (outcomes.runs_lo[keep] - a0)[None, :]
    hi = (outcomes.runs_hi[keep] - a0)[None, :]
    j = np.asarray(jaccard, dtype=float)[:, None]

    def cdf(k: NDArray) -> NDArray:  # P(Bin(u, J) <= k), also for u = 0
        inside = (k >= 0) & (k < u)
        value = special.bdtr(np.clip(k, 0, np.maximum(u - 1, 0)), np.maximum(u, 1), j)
        return np.where(inside, value, np.where(k >= u, 1.0, 0.0))

    mass = cdf(hi) - cdf(lo - 1)
    reached = np.zeros((j.shape[0], k_more))
    rows = np.arange(j.shape[0])[:, None]
    np.add.at(reached, (rows, u), mass)  # the runs of one U add up
    return np.clip(1.0 - reached, 0.0, 1.0)


class StageAssurance(DrawAssurance):
    """``A(m_d; p_d)``: the assurance of finishing with ``m_d`` more items, per posterior draw.

    The binomial sum over the second stage's union positives is
    :meth:`DrawAssurance.__call__`'s; only the failure given ``u`` differs
    (:func:`stage_failure`: the first stage's ``a0`` and ``U0`` shift the narrow runs).
    Needs ``U0 < U*`` (else every final outcome is narrow and nothing is left to plan).
    """

    def __init__(self, cells: NDArray, outcomes: NarrowOutcomes, a0: int, u0: int) -> None:
        cells = np.asarray(cells, dtype=float)
        self.union_rate = cells[:, :3].sum(axis=1)
        self.jaccard = cells[:, 0] / self.union_rate
        self.failure = stage_failure(outcomes, a0, u0, self.jaccard)
        self.u = np.arange(self.failure.shape[1], dtype=float)[None, :]
        self._log_r = np.log(self.union_rate)[:, None]
        self._log_q = np.log1p(-self.union_rate)[:, None]
        self._lg_u = log_gamma(self.u + 1)


class FirstStageStudies(PosteriorStudies):
    """Second stages drawn from their own posterior truths, with the first stage's table
    added: ``tables(m)`` is the ``(R, 2, 2)`` final tables after ``m`` more items."""

    def __init__(self, cells: NDArray, first: NDArray, rng: np.random.Generator) -> None:
        super().__init__(cells, rng)
        self.first = np.asarray(first, dtype=np.int64).reshape(1, 2, 2)

    def tables(self, n_items: int) -> NDArray:
        """The final tables: the first stage plus the first ``n_items`` simulated items."""
        return super().tables(n_items) + self.first
