"""The interval methods the coverage script simulates, and each coefficient's population value.

Two-annotator methods act on stacked tables ``(R, 2, 2)``; several-annotator methods on the
counts ``(R, 2^M)`` of the label patterns (bit ``j`` of a pattern: annotator ``j`` says
positive). Conger's kappa needs that annotator identity; the other coefficients see only the
multiplicities ``(R, M + 1)`` of the per-item counts :func:`coverage_study.models.category_rows`
(:func:`coverage_study.models.compress_patterns`). Each method returns ``(low, high)`` arrays of
shape ``(R,)``; NaN marks an undefined interval.

The PSA and Cohen's kappa methods are read by name from
:data:`planner.statistics.intervals.PSA_METHODS`
and :data:`planner.statistics.intervals.KAPPA_METHODS` when the grid runs, so a method added
there is
simulated without a change here. The several-annotator intervals are those ``planner agree``
prints (see :mod:`planner.measuring.measure`; :data:`DEFAULTS` names them): the
t-calibrated profile likelihood on the count-row multinomial
(:mod:`planner.statistics.multirater_profile`) for Krippendorff's alpha (from two
annotators), Fleiss' kappa and specific positive agreement (from three), and for Conger's
kappa Fleiss' profile interval moved by the Conger - Fleiss difference
(``profile-shifted``); Gwet's linearised variance on the ``log(1 - c)`` scale for AC1 and
Brennan-Prediger (clipped to [-1, 1]). The previous defaults (Gwet's ``t`` interval for
Fleiss' and Conger's kappa, alpha's item bootstrap -- percentile, resampling items as new
multiplicities of the distinct rows --, the logit-scale and plain Wald intervals for
specific agreement, the linear ``t`` interval for AC1 and Brennan-Prediger) are kept beside
them (:data:`PREVIOUS_DEFAULTS`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from coverage_study.models import POPULATION, category_rows, compress_patterns, pattern_bits
from planner.statistics import agreement as ag
from planner.statistics import intervals as iv
from planner.statistics import multirater_profile as mp
from planner.statistics.alpha import krippendorff_alpha
from planner.statistics.conger import conger_kappa
from planner.statistics.multirater import (
    ChanceCorrected,
    chance_corrected,
    specific_agreement,
    specific_agreement_interval,
    specific_agreement_se,
)

FloatArray = NDArray[np.float64]
Interval = Callable[[NDArray, np.random.Generator], tuple[FloatArray, FloatArray]]
CONFIDENCE = 0.95
_ALPHA_CHUNK = 200  # replicates bootstrapped at once; fixed so chunking never changes answers

#: The interval ``planner agree`` prints by default for each coefficient (``plan``'s defaults
#: for PSA and Cohen's kappa are the same); the output marks these rows.
DEFAULTS: dict[str, str] = {
    "psa": "wilson",
    "cohen_kappa": "profile",
    "nsa": "wilson",
    "pabak": "wilson",
    "fleiss_kappa": "profile",  # from three annotators; two: "score-intraclass"
    "gwet_ac1": "gwet-t-log1m",
    "brennan_prediger": "gwet-t-log1m",
    "krippendorff_alpha": "profile",  # from three annotators; two: "score-intraclass"
    "specific_positive": "profile",
    "conger_kappa": "profile-shifted",
}
#: agree's defaults for two annotators where they differ from the several-annotator one
PAIR_DEFAULTS: frozenset[tuple[str, str]] = frozenset(
    {("fleiss_kappa", "score-intraclass"), ("krippendorff_alpha", "score-intraclass")}
)
#: agree's several-annotator defaults that a complete pair no longer gets (its regime
#: ``multi-few`` holds only pairs)
PAIR_PREVIOUS_DEFAULTS: frozenset[tuple[str, str]] = frozenset({("krippendorff_alpha", "profile")})
PAIR_REGIMES: frozenset[str] = frozenset({"multi-few"})
#: Methods that were agree's default before the current one (kept to show the change).
PREVIOUS_DEFAULTS: frozenset[tuple[str, str]] = frozenset(
    {
        ("gwet_ac1", "gwet-t"),
        ("brennan_prediger", "gwet-t"),
        ("specific_positive", "wald-linearised"),
        ("specific_positive", "wald-logit"),
        ("fleiss_kappa", "gwet-t"),
        ("krippendorff_alpha", "bootstrap"),
        ("conger_kappa", "gwet-t"),
        ("cohen_kappa", "score"),
    }
)


def role(coefficient: str, name: str, regime: str = "") -> str:
    """``"default"``, ``"previous default"`` or ``""``: the method's place in ``agree``
    (in a ``regime`` of pairs only, a pair's place)."""
    pair = regime in PAIR_REGIMES
    if pair and (coefficient, name) in PAIR_PREVIOUS_DEFAULTS:
        return "previous default"
    if DEFAULTS.get(coefficient) == name or (coefficient, name) in PAIR_DEFAULTS:
        return "default"
    return "previous default" if (coefficient, name) in PREVIOUS_DEFAULTS else ""


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
    """Population value of each coefficient from the ``2^M`` pattern probabilities.

    Each is the coefficient computed on the expected frequencies (multiplicities
    ``probability x 1e12``, so Krippendorff's small-sample factor ``(n - 1) / n`` is 1);
    Conger's kappa from the patterns (each annotator's own marginals), the others from the
    ``M + 1`` category-count probabilities.
    """
    rows = category_rows(n_annotators)
    conger = _PatternRatings(n_annotators)

    def on_counts(fn: Callable[[FloatArray], float]) -> Callable[[FloatArray], float]:
        return lambda p: fn(compress_patterns(p, n_annotators))

    def chance(kind: str) -> Callable[[FloatArray], float]:
        return on_counts(
            lambda p: float(chance_corrected(rows, kind, multiplicity=p * POPULATION).estimate)
        )

    return {
        "conger_kappa": lambda p: float(conger.fit(p * POPULATION).estimate),
        "fleiss_kappa": chance("fleiss"),
        "gwet_ac1": chance("gwet"),
        "brennan_prediger": chance("brennan-prediger"),
        "krippendorff_alpha": on_counts(
            lambda p: float(krippendorff_alpha(rows, multiplicity=p * POPULATION))
        ),
        "specific_positive": on_counts(
            lambda p: float(specific_agreement(rows, p * POPULATION)[0])
        ),
    }


@dataclass(frozen=True)
class _PatternRatings:
    """The ``2^M`` label patterns as sparse ratings (one row per pattern), for Conger's kappa."""

    n_annotators: int

    def fit(self, pattern_counts: NDArray) -> ChanceCorrected:
        """:func:`planner.statistics.conger.conger_kappa` of one study's pattern counts
        ``(2^M,)``."""
        m = self.n_annotators
        bits = pattern_bits(m)
        return conger_kappa(
            np.repeat(np.arange(bits.shape[0]), m),
            np.tile(np.arange(m), bits.shape[0]),
            bits.ravel(),
            n_rows=bits.shape[0],
            n_categories=2,
            n_annotators=m,
            row_weights=pattern_counts,
        )


def _conger_t(n_annotators: int) -> Interval:
    """Conger's kappa, Gwet's variance, ``t`` interval clipped to [-1, 1], as ``agree`` prints
    it; one call of :func:`planner.statistics.conger.conger_kappa` per study (about 70 us)."""
    ratings = _PatternRatings(n_annotators)

    def interval(patterns: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        limits = np.array([ratings.fit(p).confidence_interval(CONFIDENCE) for p in patterns])
        return np.maximum(limits[:, 0], -1.0), np.minimum(limits[:, 1], 1.0)

    return interval


def _gwet_t(rows: NDArray, kind: str, scale: str = "linear") -> Interval:
    def interval(mult: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        fit = chance_corrected(rows, kind, multiplicity=mult)
        low, high = fit.confidence_interval(CONFIDENCE, scale)
        return np.maximum(low, -1.0), np.minimum(high, 1.0)

    return interval


def _specific_wald(rows: NDArray) -> Interval:
    z = iv.normal_quantile(CONFIDENCE)

    def interval(mult: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        s = specific_agreement(rows, mult)[..., 0]
        se = specific_agreement_se(rows, mult)[..., 0]
        return np.clip(s - z * se, 0, 1), np.clip(s + z * se, 0, 1)

    return interval


def _specific_wald_logit(rows: NDArray) -> Interval:
    def interval(mult: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        s = specific_agreement(rows, mult)[..., 0]
        se = specific_agreement_se(rows, mult)[..., 0]
        return specific_agreement_interval(s, se, CONFIDENCE)

    return interval


_PROFILES = {
    "fleiss_kappa": mp.fleiss_kappa_profile_interval,
    "krippendorff_alpha": mp.alpha_profile_interval,
    "specific_positive": mp.specific_agreement_profile_interval,
}
_LAST_FLEISS: dict[bytes, tuple[FloatArray, FloatArray]] = {}


def _fleiss_profile(rows: NDArray, mult: NDArray) -> tuple[FloatArray, FloatArray]:
    """Fleiss' profile interval of these studies, computed once a cell (Conger reuses it)."""
    key = rows.tobytes() + mult.tobytes()
    if key not in _LAST_FLEISS:
        _LAST_FLEISS.clear()
        ci = mp.fleiss_kappa_profile_interval(rows, mult, confidence_level=CONFIDENCE)
        _LAST_FLEISS[key] = (ci.low, ci.high)
    return _LAST_FLEISS[key]


def _profile(rows: NDArray, coefficient: str) -> Interval:
    """Profile-likelihood interval on the category-count multinomial
    (:mod:`planner.statistics.multirater_profile`)."""

    def interval(mult: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        if coefficient == "fleiss_kappa":
            return _fleiss_profile(rows, mult)
        ci = _PROFILES[coefficient](rows, mult, confidence_level=CONFIDENCE)
        return ci.low, ci.high

    return interval


def _conger_shifted(n_annotators: int) -> Interval:
    """Conger's kappa: Fleiss' profile interval moved by the estimated Conger - Fleiss
    difference (:func:`planner.statistics.multirater_profile.shifted_interval`)."""
    ratings = _PatternRatings(n_annotators)
    rows = category_rows(n_annotators)

    def interval(patterns: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        mult = compress_patterns(patterns, n_annotators)
        low, high = _fleiss_profile(rows, mult)
        conger = np.array([float(ratings.fit(p).estimate) for p in patterns])
        fleiss = chance_corrected(rows, "fleiss", multiplicity=mult).estimate
        ci = mp.shifted_interval(iv.ConfidenceInterval(low, high), conger - fleiss)
        return ci.low, ci.high

    return interval


def _intraclass_pair_score(rows: NDArray) -> Interval:
    """Two annotators: Fleiss' kappa is the intraclass kappa and alpha tends to it, so
    ``agree`` prints for both the calibrated Donner-Eliasziw score interval of the
    (2, 1, 0 positives) counts."""
    positives = rows[:, 0]

    def interval(mult: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        both = (mult * (positives == 2)).sum(axis=-1)
        one = (mult * (positives == 1)).sum(axis=-1)
        neither = (mult * (positives == 0)).sum(axis=-1)
        tables = np.stack([np.stack([both, one / 2], -1), np.stack([one / 2, neither], -1)], -2)
        ci = iv.kappa_gof_interval(tables.astype(float), CONFIDENCE)
        return ci.low, ci.high

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


def _on_counts(interval: Interval, n_annotators: int) -> Interval:
    """``interval`` of the category-count multiplicities, applied to pattern counts."""

    def on_patterns(patterns: NDArray, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        return interval(compress_patterns(patterns, n_annotators), rng)

    return on_patterns


def multi_methods(n_annotators: int, n_boot: int) -> list[Method]:
    """The intervals ``agree`` prints for several annotators (binary labels), and the
    previous defaults; Conger's kappa from three annotators on, as ``agree`` reports it."""
    rows = category_rows(n_annotators)
    on_counts = [
        ("fleiss_kappa", "profile", _profile(rows, "fleiss_kappa")),
        ("fleiss_kappa", "gwet-t", _gwet_t(rows, "fleiss")),
        ("gwet_ac1", "gwet-t-log1m", _gwet_t(rows, "gwet", "log1m")),
        ("gwet_ac1", "gwet-t", _gwet_t(rows, "gwet")),
        ("brennan_prediger", "gwet-t-log1m", _gwet_t(rows, "brennan-prediger", "log1m")),
        ("brennan_prediger", "gwet-t", _gwet_t(rows, "brennan-prediger")),
        ("krippendorff_alpha", "profile", _profile(rows, "krippendorff_alpha")),
        ("krippendorff_alpha", "bootstrap", _alpha_bootstrap(rows, n_boot)),
        ("specific_positive", "profile", _profile(rows, "specific_positive")),
        ("specific_positive", "wald-logit", _specific_wald_logit(rows)),
        ("specific_positive", "wald-linearised", _specific_wald(rows)),
    ]
    if n_annotators == 2:
        on_counts.insert(0, ("fleiss_kappa", "score-intraclass", _intraclass_pair_score(rows)))
        alpha_at = next(i for i, (c, *_) in enumerate(on_counts) if c == "krippendorff_alpha")
        score = ("krippendorff_alpha", "score-intraclass", _intraclass_pair_score(rows))
        on_counts.insert(alpha_at, score)
    methods = [Method(c, name, _on_counts(fn, n_annotators)) for c, name, fn in on_counts]
    if n_annotators >= 3:
        methods.insert(1, Method("conger_kappa", "gwet-t", _conger_t(n_annotators)))
        methods.insert(1, Method("conger_kappa", "profile-shifted", _conger_shifted(n_annotators)))
    return methods
