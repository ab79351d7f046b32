"""The interval methods the coverage script simulates, and each coefficient's population value.

Two-annotator methods act on stacked tables ``(R, 2, 2)``; several-annotator methods on the
multiplicities ``(R, M + 1)`` of the per-item counts :func:`validation.models.category_rows`.
Each method returns ``(low, high)`` arrays of shape ``(R,)``; NaN marks an undefined interval.

The PSA and Cohen's kappa methods are read by name from :data:`planner.intervals.PSA_METHODS`
and :data:`planner.intervals.KAPPA_METHODS` when the grid runs, so a method added there is
simulated without a change here. The several-annotator intervals are those ``planner agree``
prints (see :mod:`planner.measure`): Gwet's linearised variance with a ``t`` interval for
Fleiss' kappa, AC1 and Brennan-Prediger (clipped to [-1, 1]); the item bootstrap
(percentile, resampling items as new multiplicities of the distinct rows) for Krippendorff's
alpha; the linearised ratio variance (Wald, clipped to [0, 1]) for specific positive
agreement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from planner import agreement as ag
from planner import intervals as iv
from planner.alpha import krippendorff_alpha
from planner.multirater import chance_corrected, specific_agreement, specific_agreement_se
from validation.models import POPULATION, category_rows

FloatArray = NDArray[np.float64]
Interval = Callable[[NDArray, np.random.Generator], tuple[FloatArray, FloatArray]]
CONFIDENCE = 0.95
_ALPHA_CHUNK = 200  # replicates bootstrapped at once; fixed so chunking never changes answers


@dataclass(frozen=True)
class Method:
    """One interval method for one coefficient.

    Attributes
    ----------
    coefficient
        Key of the coefficient's population value (:data:`PAIR_ESTIMANDS` or
        :func:`multi_estimands`).
    name
        The method's name as the tool spells it (``"wilson"``, ``"gof"``, ...).
    interval
        ``interval(data, rng) -> (low, high)``.
    """

    coefficient: str
    name: str
    interval: Interval

    @property
    def key(self) -> str:
        """``coefficient/name``, the name used by ``--methods`` and in the output."""
        return f"{self.coefficient}/{self.name}"


# --------------------------------------------------------------------------- two annotators


def _intraclass_kappa(cells: FloatArray) -> float:
    """Population intraclass kappa ``1 - (b + c) / (2 pi (1 - pi))``, ``pi = (2a + b + c) / 2``."""
    a, b, c, _ = (float(x) for x in cells)
    pi = (2 * a + b + c) / 2
    return 1 - (b + c) / (2 * pi * (1 - pi))


PAIR_ESTIMANDS: dict[str, Callable[[FloatArray], float]] = {
    "psa": lambda cells: float(ag.positive_agreement(cells.reshape(2, 2))),
    "nsa": lambda cells: float(ag.negative_agreement(cells.reshape(2, 2))),
    "pabak": lambda cells: float(ag.pabak(cells.reshape(2, 2))),
    "cohen_kappa": lambda cells: float(ag.cohen_kappa(cells.reshape(2, 2))),
    "intraclass_kappa": _intraclass_kappa,
}


def _psa(name: str, n_boot: int) -> Interval:
    def interval(tables: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        ci = iv.psa_interval(tables, CONFIDENCE, name, n_boot=n_boot, rng=rng)
        return ci.low, ci.high

    return interval


def _kappa(name: str, n_boot: int) -> Interval:
    def interval(tables: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        ci = iv.kappa_interval(tables, CONFIDENCE, name, n_boot=n_boot, rng=rng)
        return ci.low, ci.high

    return interval


def _nsa_wilson(tables: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
    _, b, c, d = ag.binary_cells(tables)
    ci = iv.psa_conditional_interval(d, b + c + d, CONFIDENCE)
    return ci.low, ci.high


def _pabak_wilson(tables: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
    a, _, _, d = ag.binary_cells(tables)
    ci = iv.wilson_interval(a + d, tables.sum(axis=(-2, -1)), CONFIDENCE)
    return 2 * ci.low - 1, 2 * ci.high - 1


def pair_methods(n_boot: int) -> list[Method]:
    """Every two-annotator method: PSA and kappa methods by name, and what ``agree`` prints.

    The Donner-Eliasziw GOF interval is simulated twice: against Cohen's kappa (printed
    beside it) and against the intraclass kappa (what it estimates).
    """
    methods = [Method("psa", name, _psa(name, n_boot)) for name in iv.PSA_METHODS]
    methods += [Method("cohen_kappa", name, _kappa(name, n_boot)) for name in iv.KAPPA_METHODS]
    if "gof" in iv.KAPPA_METHODS:
        methods.append(Method("intraclass_kappa", "gof", _kappa("gof", n_boot)))
    methods += [Method("nsa", "wilson", _nsa_wilson), Method("pabak", "wilson", _pabak_wilson)]
    return methods


# --------------------------------------------------------------------------- several annotators


def multi_estimands(n_annotators: int) -> dict[str, Callable[[FloatArray], float]]:
    """Population value of each coefficient from the ``M + 1`` category-count probabilities.

    Each is the coefficient computed on the expected frequencies (multiplicities
    ``probability x 1e12``, so Krippendorff's small-sample factor ``(n - 1) / n`` is 1).
    """
    rows = category_rows(n_annotators)

    def chance(kind: str) -> Callable[[FloatArray], float]:
        return lambda p: float(chance_corrected(rows, kind, multiplicity=p * POPULATION).estimate)

    return {
        "fleiss_kappa": chance("fleiss"),
        "gwet_ac1": chance("gwet"),
        "brennan_prediger": chance("brennan-prediger"),
        "krippendorff_alpha": lambda p: float(
            krippendorff_alpha(rows, multiplicity=p * POPULATION)
        ),
        "specific_positive": lambda p: float(specific_agreement(rows, p * POPULATION)[0]),
    }


def _gwet_t(rows: NDArray, kind: str) -> Interval:
    def interval(mult: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        low, high = chance_corrected(rows, kind, multiplicity=mult).confidence_interval(CONFIDENCE)
        return np.maximum(low, -1.0), np.minimum(high, 1.0)

    return interval


def _specific_wald(rows: NDArray) -> Interval:
    z = iv.normal_quantile(CONFIDENCE)

    def interval(mult: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        s = specific_agreement(rows, mult)[..., 0]
        se = specific_agreement_se(rows, mult)[..., 0]
        return np.clip(s - z * se, 0, 1), np.clip(s + z * se, 0, 1)

    return interval


def _alpha_bootstrap(rows: NDArray, n_boot: int) -> Interval:
    """Percentile item bootstrap of alpha, as ``agree`` does it (non-finite resamples dropped)."""
    tail = (1 - CONFIDENCE) / 2

    def interval(mult: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        n = mult.sum(axis=-1)
        low = np.full(mult.shape[0], np.nan)
        high = np.full(mult.shape[0], np.nan)
        for start in range(0, mult.shape[0], _ALPHA_CHUNK):
            part = slice(start, start + _ALPHA_CHUNK)
            probs = mult[part] / n[part, None]
            draws = rng.multinomial(n[part], probs, size=(n_boot, probs.shape[0]))
            values = krippendorff_alpha(rows, multiplicity=draws)
            ok = np.isfinite(values).any(axis=0)
            if ok.any():
                qs = np.nanquantile(values[:, ok], [tail, 1 - tail], axis=0)
                low[part][ok], high[part][ok] = qs[0], qs[1]
        return low, high

    return interval


def multi_methods(n_annotators: int, n_boot: int) -> list[Method]:
    """The intervals ``agree`` prints for several annotators (binary labels)."""
    rows = category_rows(n_annotators)
    return [
        Method("fleiss_kappa", "gwet-t", _gwet_t(rows, "fleiss")),
        Method("gwet_ac1", "gwet-t", _gwet_t(rows, "gwet")),
        Method("brennan_prediger", "gwet-t", _gwet_t(rows, "brennan-prediger")),
        Method("krippendorff_alpha", "bootstrap", _alpha_bootstrap(rows, n_boot)),
        Method("specific_positive", "wald-linearised", _specific_wald(rows)),
    ]
