"""The model as users state it: prevalence and the agreement they expect.

``--prevalence P --psa Q`` (or ``--kappa K``), with an optional bias, describes the pair
by what people expect to see; the common error rate ``e`` of both annotators that gives
that agreement is found here by a root-find (:func:`scipy.optimize.brentq`) on the model of
:func:`~planner.sizing.model.pair_from_annotators`. On ``e`` in ``[0, e_max)`` (``e_max``
the largest feasible rate: below 0.5 and with both error rates at most 1) PSA and kappa fall
from 1 at ``e = 0``; a target outside the range they take there is infeasible, and the error
says why and gives the feasible range.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.errors import InvalidInput, SearchLimit
from planner.sizing.model import PairModel, pair_from_annotators
from planner.validation import RULES, check, check_per_annotator, shown

_GRID = 400  # points that bracket the root (the agreement need not be monotone in e)


def max_error_rate(prevalence: float, bias: tuple[float, float]) -> float:
    """Largest common error rate with every annotator's error rates at most 1, below 0.5."""
    limit = 0.5 - 1e-9
    for b in bias:
        share_fp = (1.0 + b) / 2.0
        if share_fp < 1:
            limit = min(limit, prevalence / (1 - share_fp))
        if share_fp > 0:
            limit = min(limit, (1 - prevalence) / share_fp)
    return limit


def _agreement(
    prevalence: float, bias: tuple[float, float], ambiguity: float, target: str
) -> Callable[[float], float]:
    def value(e: float) -> float:
        model = pair_from_annotators(prevalence, e, bias, ambiguity)
        return model.psa if target == "psa" else float(model.summary()["kappa"])

    return value


def _root(f: Callable[[float], float], low: float, high: float) -> float:
    """Brent's root of ``f`` on the bracket ``[low, high]`` (signs differ at its ends), in at
    most 100 steps (scipy's bound: the bracket is 1/400 of the error range, so bisection
    alone would reach the tolerance 1e-14 in about 40)."""
    from scipy.optimize import brentq

    try:
        return float(brentq(f, low, high, xtol=1e-14, maxiter=100))
    except RuntimeError:  # scipy: "Failed to converge after 100 iterations"
        raise SearchLimit("the error rate for the agreement target did not settle") from None


def pair_from_agreement(
    prevalence: float,
    *,
    psa: float | None = None,
    kappa: float | None = None,
    bias: float | tuple[float, ...] = 0.0,
    ambiguity: float = 0.0,
) -> PairModel:
    """The pair with the common error rate that gives the stated PSA or kappa.

    Parameters
    ----------
    prevalence
        True prevalence, in (0, 1).
    psa, kappa
        The expected agreement (exactly one of them).
    bias, ambiguity
        As in :func:`~planner.sizing.model.pair_from_annotators`.

    Raises
    ------
    InvalidInput
        When the target cannot be reached at this prevalence and bias: the message names
        the feasible range.

    Examples
    --------
    >>> m = pair_from_agreement(0.08, psa=0.6)
    >>> round(m.psa, 6), round(m.assumptions["error_rate"][0], 4)
    (0.6, 0.0365)
    """
    pi = check("prevalence", prevalence, RULES["prevalence"])
    if (psa is None) == (kappa is None):
        raise InvalidInput("give one of psa or kappa with prevalence", parameter="psa")
    target = "psa" if psa is not None else "kappa"
    goal = check(target, psa if psa is not None else kappa, RULES[target])
    bias_a, bias_b = check_per_annotator("bias", bias, 2)
    biases = (bias_a, bias_b)
    h = check("ambiguity", ambiguity, RULES["ambiguity"])
    value = _agreement(pi, biases, h, target)
    top = max_error_rate(pi, biases)
    grid = [top * i / _GRID for i in range(_GRID + 1)]
    values = [value(e) for e in grid]
    low, high = min(values), max(values)
    if not low <= goal <= high:
        raise InvalidInput(
            f"{target} {shown(goal)} cannot be reached at prevalence {shown(pi)} with bias "
            f"{', '.join(shown(b) for b in dict.fromkeys(biases))}: a common error rate in "
            f"[0, {top:.3g}] gives values from {low:.3g} to {high:.3g}",
            parameter=target,
        )
    pairs = zip(
        zip(grid, values, strict=True), zip(grid[1:], values[1:], strict=True), strict=False
    )
    for (e0, v0), (e1, v1) in pairs:
        if v0 == goal:
            root = e0
            break
        if (v0 - goal) * (v1 - goal) <= 0:
            root = _root(lambda e: value(e) - goal, e0, e1)
            break
    model = pair_from_annotators(pi, root, biases, h)
    assumptions = {**model.assumptions, f"target_{target}": goal}
    return PairModel(cells=model.cells, source="annotators", assumptions=assumptions)
