"""The annotator-pair model: from assumptions about annotators to cell probabilities.

A :class:`PairModel` holds the four cell probabilities of the 2x2 table of two annotators
(``a`` both positive, ``b`` A only, ``c`` B only, ``d`` neither) and where they came from.
Three ways to build one:

* :func:`pair_from_annotators`: true prevalence ``pi``; per annotator an error rate
  ``e_j = P(label != truth)`` and a bias in [-1, 1], the direction of its errors
  (+1 all false positives, -1 all false negatives, 0 half and half); and a share
  ``h`` of ambiguous items on which the two annotators' errors are driven by one shared
  difficulty (docs/methods/annotator-models.md section 6.2 (a) and 6.3).
* :func:`pair_from_union_rate`: the union rate ``P(a or b or c)`` and PSA stated directly.
* :func:`pair_from_counts`: pilot counts, used as plug-in probabilities.

Everything here is deterministic; simulation lives in :mod:`planner.sizing.studies`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from planner.errors import InvalidInput
from planner.sizing.label_patterns import count_patterns, marginal
from planner.statistics import agreement
from planner.statistics.intervals import jaccard_from_psa
from planner.validation import RULES, check, check_per_annotator, shown

CELL_NAMES = ("both", "a_only", "b_only", "neither")
Cells = tuple[float, float, float, float]


def as_cells(values: ArrayLike) -> Cells:
    """Four cell probabilities ``(p_a, p_b, p_c, p_d)`` as plain floats."""
    a, b, c, d = (float(v) for v in np.asarray(values, dtype=float).ravel())
    return (a, b, c, d)


@dataclass(frozen=True)
class PairModel:
    """Cell probabilities of two annotators' 2x2 table, with their provenance.

    Attributes
    ----------
    cells
        ``(p_a, p_b, p_c, p_d)``: both positive, A only, B only, neither; sum to 1.
    source
        ``"annotators"``, ``"union-rate"`` or ``"pilot-counts"``.
    assumptions
        The inputs the cells were computed from, for reports.
    """

    cells: tuple[float, float, float, float]
    source: str
    assumptions: dict[str, Any]

    @property
    def table(self) -> np.ndarray:
        """The cells as a ``(2, 2)`` probability table (positive first)."""
        a, b, c, d = self.cells
        return np.array([[a, b], [c, d]])

    @property
    def union_rate(self) -> float:
        """``P(at least one annotator flags an item) = p_a + p_b + p_c``."""
        return float(sum(self.cells[:3]))

    @property
    def jaccard(self) -> float:
        """``J = p_a / (p_a + p_b + p_c)``."""
        return float(agreement.jaccard(self.table))

    @property
    def psa(self) -> float:
        """Positive specific agreement implied by the model."""
        return float(agreement.positive_agreement(self.table))

    @property
    def contested_rate(self) -> float:
        """``p_b + p_c``: share of items on which exactly one annotator flags."""
        return float(self.cells[1] + self.cells[2])

    # the pair as the M-annotator study model with M = 2 (planner.sizing.label_patterns)
    n_annotators = 2
    n_categories = 2

    def ordered_probabilities(self) -> np.ndarray:
        """``(2, 2)`` ordered label patterns ``p[label_A, label_B]`` (category 1 positive):
        the cells as the M-annotator models give theirs.

        >>> pair_from_counts([6, 21, 14, 459]).ordered_probabilities().tolist()
        [[0.918, 0.028], [0.042, 0.012]]
        """
        a, b, c, d = self.cells
        return np.array([[d, c], [b, a]])

    def pair(self) -> PairModel:
        """The pair itself, as :meth:`planner.sizing.annotator_model.RatersModel.pair` gives a
        model of two annotators over two categories."""
        return self

    def count_patterns(self, per_item: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Count patterns ``(negatives, positives)`` and their probabilities, as for
        :meth:`planner.sizing.annotator_model.RatersModel.count_patterns` (``per_item`` 1:
        one of the two annotators at random per item).

        >>> rows, p = pair_from_counts([6, 21, 14, 459]).count_patterns()
        >>> rows.tolist(), p.round(3).tolist()
        ([[0, 2], [1, 1], [2, 0]], [0.012, 0.07, 0.918])
        """
        ordered = self.ordered_probabilities()
        return count_patterns(lambda subset: marginal(ordered, subset), 2, 2, per_item)

    def summary(self) -> dict[str, float]:
        """Every index the model implies, as plain floats (NaN where undefined)."""
        t = self.table
        rate_a, rate_b = agreement.positive_rates(t)
        return {
            **{name: float(p) for name, p in zip(CELL_NAMES, self.cells, strict=True)},
            "union_rate": self.union_rate,
            "psa": self.psa,
            "nsa": float(agreement.negative_agreement(t)),
            "kappa": float(agreement.cohen_kappa(t)),
            "observed_agreement": float(agreement.observed_agreement(t)),
            "jaccard": self.jaccard,
            "prevalence_index": float(agreement.prevalence_index(t)),
            "bias_index": float(agreement.bias_index(t)),
            "positive_rate_a": float(rate_a),
            "positive_rate_b": float(rate_b),
        }


# the parameters of the model builders, as their messages name them
MODEL_PARAMETERS = (
    "prevalence",
    "error_rate",
    "bias",
    "ambiguity",
    "union_rate",
    "psa",
    "pilot_counts",
    "a_share",
    "kappa",
    "pilot_file",
)
_MENTION = re.compile(r"(?<![\w.-])(" + "|".join(MODEL_PARAMETERS) + r")(?![\w-])")


def mentions(exc: InvalidInput) -> set[str]:
    """The model parameters an error's message names."""
    return set(_MENTION.findall(str(exc)))


def renamed(exc: InvalidInput, name_of: Callable[[str], str], prefix: str = "") -> InvalidInput:
    """The model's error with every parameter it mentions named as its source names it.

    A scenario names its keys (``model.error_rate``, ``strata[2].prevalence``, after
    ``prefix`` ``"s.toml: "``); a parameter that ``name_of`` leaves as it is (a value from a
    call or the command line) is carried in the error's ``parameters``, so that the CLI
    names it as its flag (``error_rate`` -> ``--error-rate``).

    >>> exc = InvalidInput("error_rate 0.6 with bias 0", parameter="error_rate")
    >>> str(renamed(exc, lambda k: "model." + k, "s.toml: "))
    's.toml: model.error_rate 0.6 with model.bias 0'
    >>> renamed(exc, str).parameters
    ('bias', 'error_rate')
    """
    kept = tuple(sorted(k for k in mentions(exc) if name_of(k) == k))
    message = prefix + _MENTION.sub(lambda m: name_of(m.group(1)), str(exc))
    return InvalidInput(message, parameters=(*exc.parameters, *kept))


def annotator_rates(
    prevalence: float, error_rate: float, bias: float, *, label: str = ""
) -> tuple[float, float]:
    """False-negative and false-positive rates of one annotator.

    With error share ``beta = (1 + bias) / 2`` going to false positives,
    ``FPR = beta e / (1 - pi)`` and ``FNR = (1 - beta) e / pi`` (docs/methods/annotator-models.md
    6.2 (a)).

    Raises
    ------
    InvalidInput
        If either rate would exceed 1, naming the parameters to change. A rate of exactly
        1 (sensitivity or specificity 0) is a valid, degenerate annotator: the plan refuses
        a model with PSA 0 and names such an annotator in a note.

    >>> fnr, fpr = annotator_rates(0.06, 0.03, 0.0)
    >>> round(1 - fnr, 4), round(1 - fpr, 4)
    (0.75, 0.984)
    """
    share_fp = (1.0 + bias) / 2.0
    fpr = share_fp * error_rate / (1.0 - prevalence)
    fnr = (1.0 - share_fp) * error_rate / prevalence
    who = f" for annotator {label}" if label else ""
    given = f"error_rate {shown(error_rate)} with bias {shown(bias)}{who}"
    if fnr > 1.0 + 1e-12:
        raise InvalidInput(
            f"{given} needs a false-negative rate of {fnr:.3g} at prevalence "
            f"{shown(prevalence)}, but it must be at most 1: lower error_rate to "
            f"at most {prevalence / (1 - share_fp):.4g} or raise bias",
            parameter="error_rate",
        )
    if fpr > 1.0 + 1e-12:
        raise InvalidInput(
            f"{given} needs a false-positive rate of {fpr:.3g} at prevalence "
            f"{shown(prevalence)}, but it must be at most 1: lower error_rate to "
            f"at most {(1 - prevalence) / share_fp:.4g} or lower bias",
            parameter="error_rate",
        )
    return fnr, fpr


def default_error_rate(prevalence: float) -> float:
    """The documented default error rate, ``min(0.05, pi / 2, (1 - pi) / 2)``.

    It is feasible at every prevalence: with bias 0 each annotator then has sensitivity and
    specificity of at least 0.75.

    >>> default_error_rate(0.08), default_error_rate(0.3)
    (0.04, 0.05)
    """
    return float(min(0.05, prevalence / 2.0, (1.0 - prevalence) / 2.0))


def error_and_bias(
    prevalence: float, sensitivity: float, specificity: float
) -> tuple[float, float]:
    """Error rate and bias of an annotator with the given sensitivity and specificity.

    ``e = pi (1 - Se) + (1 - pi)(1 - Sp)`` and ``bias = 2 beta - 1`` with
    ``beta = (1 - pi)(1 - Sp) / e`` the share of errors that are false positives.

    >>> e, bias = error_and_bias(0.06, 0.75, 0.99)
    >>> round(e, 4), round(bias, 4)
    (0.0244, -0.2295)
    """
    false_negatives = prevalence * (1.0 - sensitivity)
    false_positives = (1.0 - prevalence) * (1.0 - specificity)
    error = false_negatives + false_positives
    if error == 0:
        return 0.0, 0.0
    return float(error), float(2.0 * false_positives / error - 1.0)


def pair_from_annotators(
    prevalence: float,
    error_rate: float | tuple[float, ...] | None = None,
    bias: float | tuple[float, ...] = 0.0,
    ambiguity: float = 0.0,
) -> PairModel:
    """Cell probabilities for two annotators labelling items with true prevalence ``pi``.

    Given the truth ``T``, annotator ``j`` errs with probability ``FNR_j`` (``T = 1``) or
    ``FPR_j`` (``T = 0``). On a share ``1 - h`` of items ("clear") the two annotators err
    independently; on the remaining share ``h`` ("ambiguous") both errors are driven by one
    shared item difficulty ``V ~ U(0, 1)`` (annotator ``j`` errs when ``V < rate_j``), so
    ``P(both err | T) = (1 - h) r_A r_B + h min(r_A, r_B)``. Each annotator's own error
    rates, and so its marginal accuracy, do not depend on ``h``; only the correlation of
    errors does. The cells are the label patterns of
    :func:`planner.sizing.annotator_model.raters_model` with ``M = 2`` (the one annotator model);
    with ``m_t = P(both err | T = t)`` their closed form is::

        a = pi (1 - FNR_A - FNR_B + m_1) + (1 - pi) m_0
        b = pi (FNR_B - m_1)             + (1 - pi) (FPR_A - m_0)
        c = pi (FNR_A - m_1)             + (1 - pi) (FPR_B - m_0)
        d = pi m_1                       + (1 - pi) (1 - FPR_A - FPR_B + m_0)

    Parameters
    ----------
    prevalence
        True prevalence ``pi`` of the positive label, in (0, 1).
    error_rate
        ``P(label != truth)`` per annotator, in [0, 0.5); one value for both or a pair.
        Default :func:`default_error_rate` of the prevalence.
    bias
        Direction of each annotator's errors, in [-1, 1]: the share of its errors that are
        false positives is ``(1 + bias) / 2``.
    ambiguity
        Share ``h`` of items whose errors share one difficulty, in [0, 1].

    Examples
    --------
    docs/methods/annotator-models.md 6.1: pi = .06 with (Se, Sp) = (.75, .99) and (.65, .995) gives
    PSA 0.597
    and kappa 0.577:

    >>> e_a, bias_a = error_and_bias(0.06, 0.75, 0.99)
    >>> e_b, bias_b = error_and_bias(0.06, 0.65, 0.995)
    >>> m = pair_from_annotators(0.06, (e_a, e_b), (bias_a, bias_b))
    >>> round(m.psa, 3), round(m.summary()["kappa"], 3)
    (0.597, 0.577)
    """
    pi = check("prevalence", prevalence, RULES["prevalence"])
    if error_rate is None:
        error_rate = default_error_rate(pi)
    errors = check_per_annotator("error_rate", error_rate, 2)
    biases = check_per_annotator("bias", bias, 2)
    h = check("ambiguity", ambiguity, RULES["ambiguity"])
    fnr_a, fpr_a = annotator_rates(pi, errors[0], biases[0], label="A")
    fnr_b, fpr_b = annotator_rates(pi, errors[1], biases[1], label="B")
    # the one annotator model, M = 2 (its label patterns are the four cells)
    from planner.sizing.annotator_model import raters_model

    two = raters_model(pi, 2, error_rate=errors, bias=biases, ambiguity=h)
    cells = pair_from_ordered(two.ordered_probabilities()).cells
    return PairModel(
        cells=cells,
        source="annotators",
        assumptions={
            "prevalence": pi,
            "error_rate": list(errors),
            "bias": list(biases),
            "ambiguity": h,
            "sensitivity": [1 - fnr_a, 1 - fnr_b],
            "specificity": [1 - fpr_a, 1 - fpr_b],
        },
    )


def pair_from_ordered(
    probabilities: ArrayLike, source: str = "patterns", assumptions: dict[str, Any] | None = None
) -> PairModel:
    """The pair of an M-annotator model with M = 2 and two categories, from its ordered
    label-pattern probabilities ``p[label_A, label_B]`` (category 1 positive).

    >>> pair_from_ordered([[0.918, 0.028], [0.042, 0.012]]).cells
    (0.012, 0.042, 0.028, 0.918)
    """
    p = np.asarray(probabilities, dtype=float)
    if p.shape != (2, 2) or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise InvalidInput(
            f"a pair's label patterns are a 2 x 2 table of probabilities, got shape {p.shape}",
            parameter="model",
        )
    if abs(p.sum() - 1.0) > 1e-9:
        raise InvalidInput(
            f"a pair's label patterns must sum to 1, got {p.sum():.6g}", parameter="model"
        )
    cells = as_cells([p[1, 1], p[1, 0], p[0, 1], p[0, 0]])
    return PairModel(cells, source, dict(assumptions or {}))


def pair_from_union_rate(union_rate: float, psa: float, a_share: float = 0.5) -> PairModel:
    """Cells from the union rate and PSA stated directly.

    ``J = PSA / (2 - PSA)``, ``a = J r``, and the contested share ``(1 - J) r`` splits into
    ``b`` (A only) and ``c`` (B only) as ``a_share : 1 - a_share``.

    >>> m = pair_from_union_rate(0.082, 0.255319)
    >>> round(m.psa, 6), round(m.union_rate, 3)
    (0.255319, 0.082)
    """
    r = check("union_rate", union_rate, RULES["union_rate"])
    p = check("psa", psa, RULES["psa"])
    s = check("a_share", a_share, RULES["a_share"])
    j = float(jaccard_from_psa(p))
    contested = (1 - j) * r
    cells = (j * r, s * contested, (1 - s) * contested, 1.0 - r)
    return PairModel(
        cells=cells,
        source="union-rate",
        assumptions={"union_rate": r, "psa": p, "a_share": s},
    )


def pair_from_counts(counts: tuple[int, ...] | list[int]) -> PairModel:
    """Plug-in cells from pilot counts ``(both, a_only, b_only, neither)``.

    >>> pair_from_counts([6, 21, 14, 459]).cells
    (0.012, 0.042, 0.028, 0.918)
    """
    if not isinstance(counts, list | tuple | np.ndarray):
        raise InvalidInput(
            f"pilot_counts must be four counts, got {type(counts).__name__}",
            parameter="pilot_counts",
        )
    if len(counts) != 4:
        raise InvalidInput(
            f"pilot_counts takes four counts both,a_only,b_only,neither; got {len(counts)}",
            parameter="pilot_counts",
        )
    rule = RULES["pilot_count"]
    values = [float(check("pilot_counts", v, rule)) for v in counts]
    if values[0] + values[1] + values[2] == 0:
        raise InvalidInput(
            "pilot_counts has no union positives: PSA cannot be planned", parameter="pilot_counts"
        )
    n = sum(values)
    return PairModel(
        cells=tuple(v / n for v in values),  # type: ignore[arg-type]
        source="pilot-counts",
        assumptions={"pilot_counts": [int(v) for v in values], "pilot_items": int(n)},
    )
