"""Dawid & Skene (1979) latent-class model: each annotator's confusion matrix, fitted by EM.

Every item ``i`` has an unobserved true class ``T_i`` with ``P(T_i = t) = pi_t``; annotator
``j`` gives category ``k`` with probability ``theta_{j,t,k}`` when the truth is ``t``,
independently of the other annotators given the truth (conditional independence). What an
item contributes depends only on its count vector ``n_{j,k}`` (how many times annotator ``j``
gave category ``k``; repeated ratings of one item by one annotator are used, as Dawid and
Skene's anaesthesia data has them), so items are grouped into distinct count patterns with
multiplicities and every step costs O(distinct patterns), not O(items).

EM (Dawid & Skene 1979, section 2):

* start: each item's vote shares, ``T_i`` soft-assigned in proportion to how often it was put
  in each category (Dawid & Skene's own start, their eq. 3.1). It also fixes the labels:
  class ``t`` starts as "the items voted ``t``", so class ``t`` is category ``t``;
* M-step: ``pi_t = sum_i w_it / N`` and ``theta_{j,t,k} ∝ sum_i w_it n_{ijk}``;
* E-step: ``w_it ∝ pi_t prod_{j,k} theta_{j,t,k} ** n_{ijk}`` (on the log scale);
* convergence: the largest absolute change of any ``pi_t`` or ``theta_{j,t,k}`` between two
  iterations is below ``tolerance`` (default 1e-8), within ``max_iter`` (default 1000)
  iterations; otherwise :class:`FitDidNotConverge`. The log-likelihood never decreases.

Intervals come from the item bootstrap: the pattern multiplicities are resampled
(multinomial with the observed shares), and each resample is refitted by EM started from the
point estimate (warm start), all resamples at once along a leading batch axis. After each
refit the classes are matched to the point estimate's classes (so class ``t`` stays category
``t``; the warm start almost always makes this the identity). The intervals are percentile
intervals of the ``bootstrap`` refits.

Identifiability needs at least three annotators (conditionally independent given the truth);
two are refused. When errors are correlated (the same items are hard for everybody), the fit
overstates accuracy: see docs/methods/dawid-skene.md.

References
----------
Dawid AP, Skene AM (1979) Maximum likelihood estimation of observer error-rates using the EM
    algorithm. J R Stat Soc C (Appl Stat) 28:20-28.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.errors import InvalidInput, PlannerError
from planner.renamed import renamed_field
from planner.statistics.dawid_skene_settings import LatentClassSettings
from planner.validation import RngLike, check_instance, compact_repr, seed_from, shown

FloatArray = NDArray[np.float64]
DENSE_LIMIT = 50_000_000  # cells of the dense items x annotators x categories counts, at most
#: bootstrap refits run at once (a block per progress step; the blocks change no number)
BOOTSTRAP_BLOCK = 50
_TINY = 1e-300  # log(0) guard: a count against a zero probability adds log(1e-300)


class FitDidNotConverge(PlannerError):
    """EM stopped at ``max_iter`` iterations before meeting its convergence rule (exit 1).

    ``parameters`` names the library parameters the message mentions, so that the CLI names
    them as flags (``max_iter`` -> ``--max-iter``).
    """

    def __init__(self, message: str, *, parameters: tuple[str, ...] = ("max_iter",)) -> None:
        super().__init__(message)
        self.parameters = parameters


@dataclass(frozen=True)
class BinaryAnnotators:
    """Per-annotator accuracy of a two-category fit, in plan's parametrisation.

    Attributes
    ----------
    positive
        The category taken as positive.
    prevalence
        Fitted ``pi = P(T = positive)``.
    sensitivity, specificity
        ``(m,)`` ``Se_j = P(Y = + | T = +)`` and ``Sp_j = P(Y = - | T = -)``.
    error_rate
        ``(m,)`` ``e_j = P(Y != T) = pi (1 - Se_j) + (1 - pi)(1 - Sp_j)``.
    false_positive_share
        ``(m,)`` ``beta_j = P(error is a false positive) = (1 - pi)(1 - Sp_j) / e_j``
        (docs/methods/annotator-models.md 6.2 (a)); 0.5 where ``e_j = 0``.
    bias
        ``(m,)`` plan's ``--bias``: ``2 beta_j - 1`` (+1 all false positives, -1 all false
        negatives).
    """

    positive: Any
    prevalence: float
    sensitivity: FloatArray
    specificity: FloatArray
    error_rate: FloatArray
    false_positive_share: FloatArray
    bias: FloatArray


@renamed_field("bootstrap", "n_boot")
@dataclass(frozen=True)
class LatentClassFit:
    """A Dawid & Skene fit: class prevalences, confusion matrices, posteriors, intervals.

    Attributes
    ----------
    categories
        ``(K,)`` the category labels; class ``t`` is category ``t``.
    annotators
        The ``m`` annotator names.
    prevalence
        ``(K,)`` fitted class prevalences ``pi_t``.
    confusion
        ``(m, K, K)`` ``confusion[j, t, k] = P(annotator j gives k | true class t)``.
    patterns, multiplicity
        ``(P, m, K)`` the distinct per-item count patterns and ``(P,)`` how many items share
        each.
    item_pattern
        ``(N,)`` the pattern of each item (row of the input), for :meth:`item_posteriors`.
    posterior
        ``(P, K)`` ``P(T = t | pattern)`` at the fit.
    log_likelihood
        Log-likelihood of the items at the fit.
    iterations, converged
        EM iterations used, and whether the convergence rule was met (a returned fit always
        converged; a fit that does not raises :class:`FitDidNotConverge`).
    tolerance, max_iter
        The convergence rule used.
    n_boot, confidence_level, seed
        Bootstrap refits, the intervals' level, and the seed of the resampling (None with
        ``n_boot=0``).
    prevalence_interval
        ``(K, 2)`` percentile interval of each ``pi_t`` (NaN with ``n_boot=0``).
    confusion_interval
        ``(m, K, K, 2)`` percentile interval of each confusion entry.
    bootstrap_unconverged
        Bootstrap refits that hit ``max_iter`` (kept; their last iterate is used).
    """

    __repr__ = compact_repr  # shapes, not every value

    categories: tuple[Any, ...]
    annotators: tuple[str, ...]
    prevalence: FloatArray
    confusion: FloatArray
    patterns: NDArray[np.int64]
    multiplicity: NDArray[np.int64]
    item_pattern: NDArray[np.int64]
    posterior: FloatArray
    log_likelihood: float
    iterations: int
    converged: bool
    tolerance: float
    max_iter: int
    n_boot: int
    confidence_level: float
    seed: int | None
    prevalence_interval: FloatArray
    confusion_interval: FloatArray
    bootstrap_unconverged: int = 0

    @property
    def n_items(self) -> int:
        return int(self.multiplicity.sum())

    @property
    def n_annotators(self) -> int:
        return len(self.annotators)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    def item_posteriors(self) -> FloatArray:
        """``(N, K)`` ``P(T_i = t | item i's ratings)``, one row per input item."""
        return self.posterior[self.item_pattern]

    def binary(self, positive: Any = None) -> BinaryAnnotators:
        """Sensitivity, specificity, error rate and bias of each annotator (two categories).

        Parameters
        ----------
        positive
            The positive category; may be omitted for 0/1 and False/True labels.
        """
        pos = _positive_index(self.categories, positive)
        neg = 1 - pos
        pi = float(self.prevalence[pos])
        se = self.confusion[:, pos, pos]
        sp = self.confusion[:, neg, neg]
        false_pos = (1.0 - pi) * (1.0 - sp)
        error = pi * (1.0 - se) + false_pos
        with np.errstate(invalid="ignore", divide="ignore"):
            beta = np.where(error > 0, false_pos / np.where(error > 0, error, 1.0), 0.5)
        return BinaryAnnotators(
            positive=self.categories[pos],
            prevalence=pi,
            sensitivity=se.copy(),
            specificity=sp.copy(),
            error_rate=error,
            false_positive_share=beta,
            bias=2.0 * beta - 1.0,
        )


# --------------------------------------------------------------------------- input


def _positive_index(categories: tuple[Any, ...], positive: Any) -> int:
    if len(categories) != 2:
        raise InvalidInput(
            f"positive applies to two categories; this fit has {len(categories)}",
            parameter="positive",
        )
    if positive is None:
        values = [c.item() if isinstance(c, np.generic) else c for c in categories]
        if values in ([0, 1], [False, True]):
            return 1
        raise InvalidInput(
            f"positive must name the positive label, one of {', '.join(map(shown, values))}",
            parameter="positive",
        )
    for index, category in enumerate(categories):
        if category == positive or str(category) == str(positive):
            return index
    raise InvalidInput(
        f"positive must be one of the labels {', '.join(map(shown, categories))}; "
        f"got {shown(positive)}",
        parameter="positive",
    )


def counts_from_ratings(ratings: Any) -> NDArray[np.int64]:
    """``(rows, m, K)`` how many times each annotator put each row in each category.

    ``ratings`` is a :class:`planner.data.labels.Ratings` (duck-typed: statistics do not
    import data); its rows may stand for several items (``weights``).
    """
    rows, m, k = ratings.n_rows, ratings.n_annotators, ratings.n_categories
    if rows * m * k > DENSE_LIMIT:
        raise InvalidInput(
            f"{ratings.source}: {rows:,} items x {m:,} annotators x {k} categories is too "
            f"large for a latent-class fit (at most {DENSE_LIMIT:,} cells)"
        )
    key = (np.asarray(ratings.item_index, np.int64) * m + ratings.annotator_index) * k
    key += ratings.label_index
    return np.bincount(key, minlength=rows * m * k).reshape(rows, m, k)


def _check_counts(counts: NDArray[np.int64], source: str) -> None:
    """Refuse what the model cannot identify: < 3 annotators, one category, no overlap."""
    _, m, k = counts.shape
    if m < 3:
        raise InvalidInput(
            f"{source}: a latent-class fit needs ratings from at least 3 annotators "
            f"(with 2 the annotators' error rates are not identifiable); got {m}"
        )
    if k < 2:
        raise InvalidInput(
            f"{source}: a latent-class fit needs at least 2 categories; every rating is "
            "in one category"
        )
    rated_by = (counts.sum(axis=2) > 0).sum(axis=1)
    if not (rated_by >= 2).any():
        raise InvalidInput(
            f"{source}: no item is rated by 2 or more annotators, so nothing links the "
            "annotators' labels"
        )


def compress_counts(
    counts: NDArray[np.int64], weights: ArrayLike | None = None
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Distinct ``(P, m, K)`` count patterns, their ``(P,)`` multiplicities, ``(N,)`` index.

    Items with no rating at all are kept out of the patterns (their index is -1).
    """
    n, m, k = counts.shape
    flat = counts.reshape(n, m * k)
    rated = flat.sum(axis=1) > 0
    rows, inverse = np.unique(flat[rated], axis=0, return_inverse=True)
    w = np.ones(n, dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
    mult = np.bincount(inverse.ravel(), weights=w[rated], minlength=len(rows))
    index = np.full(n, -1, dtype=np.int64)
    index[rated] = inverse.ravel()
    return rows.reshape(-1, m, k), np.round(mult).astype(np.int64), index


# --------------------------------------------------------------------------- EM


def _m_step(
    flat: FloatArray, weights: FloatArray, post: FloatArray, m: int, k: int
) -> tuple[FloatArray, FloatArray]:
    """Prevalences ``(..., K)`` and confusions ``(..., m, K, K)`` from posteriors.

    ``flat`` is ``(P, m K)``, ``weights`` ``(..., P)``, ``post`` ``(..., P, K)``.
    """
    wpost = post * weights[..., None]
    prevalence = wpost.sum(axis=-2) / weights.sum(axis=-1, keepdims=True)
    numer = np.swapaxes(wpost, -1, -2) @ flat  # (..., K_true, m K)
    numer = numer.reshape(*numer.shape[:-1], m, k)  # (..., K_true, m, K_given)
    denom = numer.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(denom > 0, numer / np.where(denom > 0, denom, 1.0), 1.0 / k)
    return prevalence, np.swapaxes(theta, -2, -3)  # (..., m, K_true, K_given)


def _e_step(
    flat: FloatArray, prevalence: FloatArray, confusion: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Posteriors ``(..., P, K)`` and per-pattern log-likelihoods ``(..., P)``."""
    log_theta = np.log(np.maximum(confusion, _TINY))  # (..., m, K_true, K_given)
    log_theta = np.swapaxes(log_theta, -2, -3)  # (..., K_true, m, K_given)
    log_theta = log_theta.reshape(*log_theta.shape[:-2], -1)  # (..., K_true, m K)
    joint = flat @ np.swapaxes(log_theta, -1, -2)  # (..., P, K_true)
    joint += np.log(np.maximum(prevalence, _TINY))[..., None, :]
    top = joint.max(axis=-1, keepdims=True)
    scaled = np.exp(joint - top)
    total = scaled.sum(axis=-1, keepdims=True)
    return scaled / total, (np.log(total) + top)[..., 0]


@dataclass(frozen=True)
class _EMResult:
    prevalence: FloatArray
    confusion: FloatArray
    posterior: FloatArray
    log_likelihood: FloatArray
    iterations: NDArray[np.int64]  # (B,) per fit
    change: FloatArray  # (B,) last largest parameter change per fit


_EM_FIELDS = ("prevalence", "confusion", "posterior", "log_likelihood", "iterations", "change")


def _run_em(
    flat: FloatArray,
    weights: FloatArray,
    start: tuple[FloatArray, FloatArray] | FloatArray,
    shape: tuple[int, int],
    tolerance: float,
    max_iter: int,
) -> _EMResult:
    """EM for ``B`` fits at once: weights ``(B, P)``, from posteriors ``(B, P, K)`` or from
    parameters ``((B, K), (B, m, K, K))``.

    One iteration is an M-step then an E-step. A fit stops when its largest parameter change
    is below ``tolerance`` (converged fits leave the batch, so a few slow refits do not keep
    the others iterating), or after ``max_iter`` iterations.
    """
    m, k = shape
    n_fits = weights.shape[0]
    if isinstance(start, tuple):
        prevalence, confusion = (np.array(x, dtype=float) for x in start)
        post, _ = _e_step(flat, prevalence, confusion)
    else:
        post = np.array(start, dtype=float)
        prevalence, confusion = np.full((n_fits, k), np.nan), np.full((n_fits, m, k, k), np.nan)
    change = np.full(n_fits, np.inf)
    iterations = np.zeros(n_fits, dtype=np.int64)
    active = np.arange(n_fits)
    while active.size and iterations[active[0]] < max_iter:
        iterations[active] += 1
        new_prev, new_conf = _m_step(flat, weights[active], post[active], m, k)
        step = np.maximum(
            np.abs(new_prev - prevalence[active]).max(axis=-1),
            np.abs(new_conf - confusion[active]).max(axis=(-1, -2, -3)),
        )
        change[active] = np.where(np.isnan(step), np.inf, step)
        prevalence[active], confusion[active] = new_prev, new_conf
        post[active], _ = _e_step(flat, new_prev, new_conf)
        active = active[change[active] >= tolerance]
    _, per_pattern = _e_step(flat, prevalence, confusion)
    return _EMResult(
        prevalence,
        confusion,
        post,
        (per_pattern * weights).sum(axis=-1),
        iterations,
        change,
    )


def _vote_shares(patterns: NDArray[np.int64]) -> FloatArray:
    """``(P, K)`` each pattern's share of ratings per category (Dawid & Skene's start)."""
    votes = patterns.sum(axis=1).astype(float)
    return votes / votes.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- bootstrap


def _align(prevalence: FloatArray, confusion: FloatArray, reference: FloatArray) -> None:
    """Permute each refit's classes (in place) to match the point estimate's classes.

    The cost of matching refit class ``t`` to point class ``s`` is the summed absolute
    difference of their rows in every annotator's confusion matrix; the warm start almost
    always makes the identity the best match, and then nothing is done.
    """
    cost = np.abs(confusion[:, :, :, None, :] - reference[None, :, None, :, :]).sum(axis=(1, 4))
    k = reference.shape[1]
    diagonal = cost[:, np.arange(k), np.arange(k)]
    off = np.flatnonzero((diagonal > cost.min(axis=2) + 1e-12).any(axis=1))
    if off.size == 0:
        return
    from scipy.optimize import linear_sum_assignment

    for b in off:
        rows, cols = linear_sum_assignment(cost[b])
        order = rows[np.argsort(cols)]  # refit class that becomes point class s
        prevalence[b] = prevalence[b][order]
        confusion[b] = confusion[b][:, order, :]


def _bootstrap(
    flat: FloatArray,
    mult: NDArray[np.int64],
    point: _EMResult,
    shape: tuple[int, int],
    settings: tuple[int, float, int, float, int],
    progress: Callable[[int, int], None] | None = None,
) -> tuple[FloatArray, FloatArray, int]:
    """Percentile intervals ``(K, 2)`` and ``(m, K, K, 2)`` from ``B`` warm-started refits.

    The refits run in blocks of :data:`BOOTSTRAP_BLOCK` (each refit is independent of the
    others, so the blocks change no number), with ``progress(done, B)`` after each.
    """
    n_boot, tolerance, max_iter, level, seed = settings
    rng = np.random.default_rng(seed)
    n = int(mult.sum())
    weights = rng.multinomial(n, mult / n, size=n_boot).astype(float)
    parts = []
    for lo in range(0, n_boot, BOOTSTRAP_BLOCK):
        block = weights[lo : lo + BOOTSTRAP_BLOCK]
        start = (
            np.broadcast_to(point.prevalence, (len(block), *point.prevalence.shape)),
            np.broadcast_to(point.confusion, (len(block), *point.confusion.shape)),
        )
        parts.append(_run_em(flat, block, start, shape, tolerance, max_iter))
        if progress is not None:
            progress(lo + len(block), n_boot)
    prevalence = np.concatenate([r.prevalence for r in parts])
    confusion = np.concatenate([r.confusion for r in parts])
    change = np.concatenate([np.asarray(r.change) for r in parts])
    _align(prevalence, confusion, point.confusion)
    tail = (1.0 - level) / 2.0
    qs = [tail, 1.0 - tail]
    prev_int = np.moveaxis(np.quantile(prevalence, qs, axis=0), 0, -1)
    conf_int = np.moveaxis(np.quantile(confusion, qs, axis=0), 0, -1)
    return prev_int, conf_int, int((change >= tolerance).sum())


# --------------------------------------------------------------------------- public

_DEFAULT_SETTINGS = LatentClassSettings()


def _point_fit(
    flat: NDArray[np.float64],
    mult: NDArray[np.int64],
    patterns: NDArray[np.int64],
    shape: tuple[int, int],
    tolerance: float,
    max_iter: int,
) -> _EMResult:
    """EM from the majority-vote start on the distinct patterns; refuses a fit that does
    not converge within ``max_iter`` iterations."""
    batch = _run_em(
        flat, mult[None].astype(float), _vote_shares(patterns)[None], shape, tolerance, max_iter
    )
    point = _EMResult(*(np.asarray(getattr(batch, f))[0] for f in _EM_FIELDS))
    if not point.change < tolerance:
        raise FitDidNotConverge(
            f"the latent-class fit did not converge in max_iter = {max_iter:,} iterations "
            f"(largest parameter change {float(point.change):.2g}, needs < {tolerance:g}): "
            "raise max_iter"
        )
    return point


def _intervals(
    flat: NDArray[np.float64],
    mult: NDArray[np.int64],
    point: _EMResult,
    shape: tuple[int, int],
    settings: tuple[int, float, int, float, RngLike],
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The seed, the bootstrap's percentile intervals of the prevalences and confusion
    matrices, and the refits that did not converge (NaN intervals and no seed without a
    bootstrap), as :class:`LatentClassFit` fields.

    ``settings`` is ``(bootstrap, tolerance, max_iter, level, rng)``."""
    bootstrap, tolerance, max_iter, level, rng = settings
    m, k = shape
    seed = None if bootstrap == 0 else seed_from(rng)
    found = (
        (np.full((k, 2), np.nan), np.full((m, k, k, 2), np.nan), 0)
        if seed is None
        else _bootstrap(
            flat, mult, point, shape, (bootstrap, tolerance, max_iter, level, seed), progress
        )
    )
    names = ("prevalence_interval", "confusion_interval", "bootstrap_unconverged")
    return {"seed": seed, **dict(zip(names, found, strict=True))}


def fit_latent_classes(
    ratings: Any,
    settings: LatentClassSettings = _DEFAULT_SETTINGS,
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> LatentClassFit:
    """Fit Dawid & Skene's latent-class model by EM, with item-bootstrap intervals.

    Parameters
    ----------
    ratings
        A :class:`planner.data.labels.Ratings`, or per-item counts ``(N, m, K)``: how many
        times annotator ``j`` put item ``i`` in category ``k`` (repeated ratings allowed).
    settings
        The fit's options (:class:`~planner.statistics.dawid_skene_settings.LatentClassSettings`):
        ``n_boot`` refits for the intervals (0: none), their ``confidence_level``, the EM
        iterations allowed (``max_iter``) and the convergence ``tolerance`` (no prevalence
        or confusion entry changes by more than it between two iterations), and names of
        the ``annotators`` and ``categories`` of count input.
    rng, progress
        Seed or generator of the bootstrap (the seed used is recorded in the result);
        ``progress(done, n_boot)`` as the refits finish.

    Returns
    -------
    LatentClassFit

    Raises
    ------
    InvalidInput
        Fewer than 3 annotators, one category, no item rated by two annotators, or an
        argument out of range.
    FitDidNotConverge
        EM did not meet the convergence rule within ``max_iter`` iterations.

    Examples
    --------
    >>> # three annotators; the third always says 0
    >>> counts = np.zeros((4, 3, 2), dtype=int)
    >>> counts[:2, :2, 1] = 1; counts[2:, :2, 0] = 1; counts[:, 2, 0] = 1
    >>> fit = fit_latent_classes(counts, LatentClassSettings(n_boot=0))
    >>> fit.prevalence.round(3).tolist(), fit.confusion[2, 1].round(3).tolist()
    ([0.5, 0.5], [1.0, 0.0])
    """
    check_instance("settings", settings, LatentClassSettings, "LatentClassSettings")
    n_boot, level = settings.n_boot, float(settings.confidence_level)
    max_iter, tolerance = settings.max_iter, settings.tolerance
    counts, names, labels, weights, source = _as_counts(
        ratings, settings.annotators, settings.categories
    )
    _check_counts(counts, source)
    patterns, mult, index = compress_counts(counts, weights)
    (m, k), flat = counts.shape[1:], patterns.reshape(len(patterns), -1).astype(float)
    point = _point_fit(flat, mult, patterns, (m, k), tolerance, max_iter)
    return LatentClassFit(
        categories=labels,
        annotators=names,
        prevalence=point.prevalence,
        confusion=point.confusion,
        patterns=patterns,
        multiplicity=mult,
        item_pattern=index,
        posterior=point.posterior,
        log_likelihood=float(point.log_likelihood),
        iterations=int(point.iterations),
        converged=True,
        tolerance=tolerance,
        max_iter=max_iter,
        n_boot=n_boot,
        confidence_level=level,
        **_intervals(
            flat, mult, point, (m, k), (n_boot, tolerance, max_iter, level, rng), progress
        ),
    )


def _as_counts(
    ratings: Any, annotators: Any, categories: Any
) -> tuple[NDArray[np.int64], tuple[str, ...], tuple[Any, ...], Any, str]:
    """``(counts, annotator names, categories, row weights, source)`` from either input."""
    if hasattr(ratings, "item_index"):
        counts = counts_from_ratings(ratings)
        labels = tuple(c.item() if isinstance(c, np.generic) else c for c in ratings.categories)
        return counts, tuple(ratings.annotators), labels, ratings.weights, str(ratings.source)
    counts = np.asarray(ratings)
    if counts.ndim != 3 or counts.dtype.kind not in "iub" or (counts < 0).any():
        raise InvalidInput(
            "ratings must be a Ratings or whole-number counts of shape (items, annotators, "
            f"categories), got an array of shape {counts.shape} and type {counts.dtype}",
            parameter="ratings",
        )
    _, m, k = counts.shape
    names = tuple(annotators) if annotators is not None else tuple(str(j + 1) for j in range(m))
    labels = tuple(categories) if categories is not None else tuple(range(k))
    if len(names) != m or len(labels) != k:
        raise InvalidInput(
            f"annotators and categories must name the {m} annotators and {k} categories of "
            f"the counts; got {len(names)} and {len(labels)}",
            parameter="annotators",
        )
    return counts.astype(np.int64), names, labels, None, "ratings"
