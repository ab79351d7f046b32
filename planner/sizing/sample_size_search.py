"""The sample-size search: the smallest number of items that meets a criterion.

Every plan of the package asks the same question, "the smallest ``n`` whose criterion
``c(n)`` reaches a target ``t``", with ``c`` an exact assurance (binomial sums), a Monte Carlo
assurance on nested studies (common random numbers: the studies at ``n`` contain those at
every smaller size, so ``c`` estimated on them moves smoothly with ``n``), or a probability
of passing a test. This module holds the one search each of them runs:

* **monotone criteria** (an interval's assurance grows with ``n``):
  :func:`first_crossing` brackets the answer from a start and bisects on integers. The
  bracket either halves down / doubles up from the start (:func:`smallest_passing`, for a
  rough start) or steps away from it by a few percent, doubling the step
  (:func:`smallest_passing_near`, for a start within a few percent of the answer: about 8
  evaluations instead of about 20). :func:`smallest_passing_each` is the bisection
  vectorised over a batch of criteria (one per posterior draw);
* **criteria that are not monotone** (the alternative annotator test's P(pass) is
  saw-toothed in ``n``): :func:`scan_until_stays` evaluates a grid of sizes past the first
  crossing and :func:`stays_from` returns the smallest size from which every evaluated
  size meets the target;
* **an exact answer**: an exact criterion goes through the same :func:`first_crossing`
  (its answer is then exact), and the caller checks it by Monte Carlo on fresh studies.

Every loop is bounded by :func:`planner.errors.step_guard`, and every criterion is
evaluated at most once per ``n`` (:class:`Evaluations`), so the searched curve is returned
with the answer. The Monte Carlo uncertainty of a crossing is the criterion's standard
error divided by its slope around the answer (:func:`crossing_standard_error`).
A target not reached even at the largest size is one error, :func:`unreachable_error`,
naming ``width``, ``assurance`` and ``max_items`` (the CLI names their flags).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from planner.errors import TargetUnreachable, step_guard


class Evaluations:
    """A criterion ``c(n)`` evaluated at most once per ``n``; the evaluated curve is kept.

    >>> c = Evaluations(lambda n: n / 10)
    >>> c(3), c(3), c.curve
    (0.3, 0.3, [(3, 0.3)])
    """

    def __init__(self, criterion: Callable[[int], float]) -> None:
        self.criterion = criterion
        self.evaluated: dict[int, float] = {}

    def __call__(self, n: int) -> float:
        n = int(n)
        if n not in self.evaluated:
            self.evaluated[n] = float(self.criterion(n))
        return self.evaluated[n]

    @property
    def curve(self) -> list[tuple[int, float]]:
        """``(n, c(n))`` for every evaluated ``n``, sorted by ``n``."""
        return sorted(self.evaluated.items())


def bisect_passing(passes: Callable[[int], bool], low: int, high: int) -> int:
    """Smallest passing integer in ``(low, high]`` given ``passes(high)``, by bisection.

    >>> bisect_passing(lambda m: m >= 37, 0, 64)
    37
    """
    guard = step_guard("the bisection over items")
    while high - low > 1:
        guard()
        mid = (low + high) // 2
        if passes(mid):
            high = mid
        else:
            low = mid
    return high


def smallest_passing(passes: Callable[[int], bool], start: int, max_value: int) -> int:
    """Smallest integer ``m >= 1`` with ``passes(m)``, assuming ``passes`` is monotone.

    Halves down from ``start`` while it passes, or doubles up until it does (at most to
    ``max_value``), then bisects (:func:`bisect_passing`).

    Raises
    ------
    TargetUnreachable
        When ``passes(max_value)`` is false; its message is ``max_value``.

    >>> smallest_passing(lambda m: m * m >= 50, 3, 1000)
    8
    """
    start = int(min(max(start, 1), max_value))
    if passes(start):
        high, low = start, 0
        guard = step_guard("halving the start")
        while high > 1:
            guard()
            trial = max(high // 2, 1)
            if passes(trial):
                high = trial
            else:
                low = trial
                break
    else:
        low = start
        guard = step_guard("doubling the bracket")
        while True:
            guard()
            if low >= max_value:
                raise TargetUnreachable(str(max_value))
            trial = min(low * 2, max_value)
            if passes(trial):
                high = trial
                break
            low = trial
    return bisect_passing(passes, low, high)


def smallest_passing_near(
    passes: Callable[[int], bool], start: int, max_value: int, share: float = 0.02
) -> int:
    """:func:`smallest_passing` for a good ``start``: bracket with steps from ``share`` of it.

    Steps double away from ``start`` until ``passes`` changes, then bisection; a start
    within a few percent of the answer costs about 8 evaluations instead of about 20.

    >>> smallest_passing_near(lambda m: m >= 1234, 1200, 10**6)
    1234
    """
    start = int(min(max(start, 1), max_value))
    step = max(1, int(share * start))
    if passes(start):
        high, low = start, start - step
        guard = step_guard("stepping the bracket down")
        while low >= 1 and passes(low):
            guard()
            high, step = low, 2 * step
            low = high - step
        low = max(low, 0)
    else:
        low, high = start, start + step
        guard = step_guard("stepping the bracket up")
        while True:
            guard()
            if low >= max_value:
                raise TargetUnreachable(str(max_value))
            high = min(high, max_value)
            if passes(high):
                break
            low, step = high, 2 * step
            high = low + step
    return bisect_passing(passes, low, high)


@dataclass(frozen=True)
class Crossing:
    """The smallest ``n`` whose criterion reaches the target (:func:`first_crossing`).

    Attributes
    ----------
    n
        The smallest passing ``n`` in ``[1, max_value]``; ``max_value + 1`` when none passes.
    value
        The criterion at ``n`` (at ``max_value`` when none passes).
    curve
        ``(n, c(n))`` for every evaluated ``n``, sorted by ``n``.
    """

    n: int
    value: float
    curve: tuple[tuple[int, float], ...]
    max_value: int

    @property
    def reached(self) -> bool:
        """Whether some ``n <= max_value`` reaches the target."""
        return self.n <= self.max_value


def first_crossing(
    criterion: Callable[[int], float] | Evaluations,
    target: float,
    start: int,
    max_value: int,
    *,
    step_share: float | None = None,
) -> Crossing:
    """Smallest ``n`` in ``[1, max_value]`` with ``criterion(n) >= target`` (monotone in ``n``).

    Parameters
    ----------
    criterion
        ``c(n)``: an exact assurance, or a Monte Carlo one on nested studies (common random
        numbers). Evaluated at most once per ``n``.
    target
        The value to reach.
    start
        Where the bracket starts (an analytic or plug-in answer).
    max_value
        Largest ``n`` searched.
    step_share
        None: bracket by halving / doubling from ``start`` (:func:`smallest_passing`); a share
        such as 0.02: by steps of that share of ``start``, doubling (
        :func:`smallest_passing_near`, for a start close to the answer).

    >>> c = first_crossing(lambda n: 1 - 1 / n, 0.9, 3, 100)
    >>> c.n, c.reached
    (10, True)
    >>> first_crossing(lambda n: 0.0, 0.5, 3, 100).n
    101
    """
    values = criterion if isinstance(criterion, Evaluations) else Evaluations(criterion)

    def passes(n: int) -> bool:
        return values(n) >= target

    try:
        if step_share is None:
            n = smallest_passing(passes, start, max_value)
        else:
            n = smallest_passing_near(passes, start, max_value, step_share)
    except TargetUnreachable:
        return Crossing(max_value + 1, values(max_value), tuple(values.curve), max_value)
    return Crossing(n, values(n), tuple(values.curve), max_value)


#: The parameters a :class:`TargetUnreachable` message of a sample-size search names (the
#: CLI names them as its flags).
UNREACHABLE_PARAMETERS = ("width", "assurance", "max_items")


def unreachable_error(
    metric: str | None,
    width: float,
    assurance: float,
    max_items: int,
    share: float | None = None,
    *,
    criterion: str = "assurance",
) -> TargetUnreachable:
    """The error of a search whose target is not reached even at ``max_items``.

    ``metric`` (None: not named) and ``criterion`` (``"assurance"``, ``"hybrid
    assurance"``) name what was searched; with ``share`` (the criterion at ``max_items``)
    the message says how far it got and what to change.

    >>> str(unreachable_error("kappa", 0.01, 0.5, 1000, criterion="hybrid assurance"))
    'width 0.01 for kappa is not reached with hybrid assurance 0.5 even at max_items 1000'
    """
    named = f"width {width:g}" + (f" for {metric}" if metric else "")
    text = f"{named} is not reached with {criterion} {assurance:g} even at max_items {max_items}"
    if share is not None:
        text += (
            f": the share of studies that reach it there is {share:.3f}; widen width, "
            "lower assurance or raise max_items"
        )
    return TargetUnreachable(text, parameters=UNREACHABLE_PARAMETERS)


def crossing_standard_error(
    criterion: Callable[[int], float],
    n: int,
    replicates: int,
    *,
    spread: float = 0.05,
    max_value: int | None = None,
    flat: float = float("nan"),
) -> float:
    """Monte Carlo standard error of a crossing ``n`` of a simulated assurance, in items.

    ``se(n) = sqrt(A (1 - A) / R) / slope``, with ``A`` the assurance at ``n`` on ``R``
    studies and the slope ``(A(n + s) - A(n - s)) / (2 s)``, ``s = round(spread * n)``, on
    the same nested studies (``n + s`` at most ``max_value``): the delta method for the
    inverse of ``A``. ``flat`` (NaN unless given) where the slope is not positive.
    """
    share = float(criterion(n))
    se = float(np.sqrt(share * (1 - share) / replicates))
    step = max(1, round(spread * n))
    lo_n, hi_n = max(n - step, 1), n + step
    if max_value is not None:
        hi_n = min(hi_n, max_value)
    slope = (float(criterion(hi_n)) - float(criterion(lo_n))) / max(hi_n - lo_n, 1)
    return se / slope if slope > 0 else flat


def smallest_passing_each(
    passes: Callable[[NDArray], NDArray], low: NDArray, high: NDArray, max_value: int
) -> NDArray[np.int64]:
    """Per member of a batch, the smallest ``n`` in ``(low, max_value]`` with ``passes(n)``.

    ``passes`` maps a ``(B,)`` vector of sizes to ``(B,)`` booleans, each monotone in its
    ``n``. A bisection vectorised over the batch, from the bracket ``(low, high]`` (widened
    to ``max_value`` where ``high`` does not pass); ``max_value + 1`` where none passes.

    >>> smallest_passing_each(lambda n: n >= np.array([3, 70]), np.zeros(2),
    ...                       np.array([8, 8]), 100).tolist()
    [3, 70]
    """
    low = np.asarray(low, dtype=float).copy()
    high = np.minimum(np.asarray(high, dtype=float), max_value)
    ok = passes(high)
    high = np.where(ok, high, float(max_value))
    ok_high = ok | passes(high)
    guard = step_guard("the bisection over items per draw")
    while True:
        guard()
        mid = np.floor((low + high) / 2)
        active = high - low > 1
        if not active.any():
            break
        ok = passes(mid)
        high = np.where(active & ok, mid, high)
        low = np.where(active & ~ok, mid, low)
    return np.where(ok_high, high, max_value + 1).astype(np.int64)


@dataclass(frozen=True)
class Scan:
    """A criterion evaluated along a grid of sizes (:func:`scan_until_stays`).

    Attributes
    ----------
    evaluated
        ``{n: c(n)}`` for every scanned size.
    first_crossing
        The first scanned size reaching the target, or None.
    searched_to
        The largest scanned size.
    """

    evaluated: dict[int, float]
    first_crossing: int | None
    searched_to: int

    @property
    def last_value(self) -> float:
        """The criterion at the largest scanned size."""
        return self.evaluated[self.searched_to]


def scan_until_stays(
    criterion: Callable[[int], float],
    target: float,
    grid: Iterable[int],
    max_value: int,
    *,
    reach: Callable[[int], int] = lambda n: max(2 * n, n + 50),
) -> Scan:
    """Scan a criterion that need not be monotone along ``grid`` past its first crossing.

    After the first size ``n_1`` that reaches ``target`` the scan goes on to
    ``reach(n_1)`` (default ``max(2 n_1, n_1 + 50)``), doubling that end while the last size
    misses the target, never past ``max_value``; the grid is read lazily. With
    :func:`stays_from` on the result, the plan is the smallest size from which every
    scanned size meets the target.

    >>> s = scan_until_stays(lambda n: float(n >= 4 and n != 6), 1.0, range(1, 200), 199)
    >>> s.first_crossing, s.searched_to, stays_from(s.evaluated, 1.0)
    (4, 54, 7)
    """
    evaluated: dict[int, float] = {}
    first: int | None = None
    top = max_value
    guard = step_guard("scanning the sizes", 1_000_000)
    for n in grid:
        guard()
        evaluated[n] = float(criterion(n))
        if first is None and evaluated[n] >= target:
            first, top = n, min(max_value, reach(n))
        if n >= top:
            if evaluated[n] >= target or top >= max_value:
                break
            top = min(max_value, 2 * top)
    return Scan(evaluated, first, max(evaluated))


def stays_from(evaluated: dict[int, float], target: float) -> int:
    """The smallest evaluated size from which every evaluated size reaches ``target``
    (the largest size when the last one misses it).

    >>> stays_from({10: 0.9, 20: 0.7, 30: 0.85, 40: 0.9}, 0.8)
    30
    """
    sizes = sorted(evaluated)
    n = sizes[-1]
    for size in reversed(sizes):
        if evaluated[size] < target:
            break
        n = size
    return n
