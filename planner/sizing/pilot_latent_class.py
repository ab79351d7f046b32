"""A pilot of several annotators read as a latent-class fit, with its bootstrap refits.

A pilot label file of ``M >= 3`` annotators (two to five categories) is fitted by Dawid &
Skene's latent-class model (:func:`planner.statistics.dawid_skene.fit_latent_classes`); the
fitted class prevalences and each annotator's confusion matrix are the plan's
:class:`~planner.sizing.annotator_model.RatersModel` (the plug-in model: the pilot taken as the
truth). Binary labels put the positive label second (category 1, the class PSA is about).

The pilot's uncertainty comes from ``D`` item-bootstrap refits (items drawn with replacement,
each resample refitted, its classes matched to the point fit's): each refit is one
plausible truth ``theta_d``, and :class:`RatersPilot` carries them. The plan under them is
:mod:`planner.sizing.uncertainty_refits`; a study in progress of several annotators fits its
first stage the same way (:mod:`planner.sizing.midstudy_latent_class`). A pair's pilot is its 2x2
counts instead (:mod:`planner.sizing.pilot`): two annotators do not identify the model.

The bootstrap keeps the latent-class model's assumption that annotators err independently
given the true class; correlated errors make the fit, and both plans, optimistic.

References
----------
Dawid AP, Skene AM (1979) Maximum likelihood estimation of observer error-rates using the
    EM algorithm. J R Stat Soc C 28:20-28.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.annotator_model import MAX_ANNOTATORS, MAX_CATEGORIES, RatersModel, raters_model
from planner.validation import RULES, RngLike, check, check_text, seed_from

#: bootstrap refits of the pilot: the plausible truths the hybrid assurance averages over
PILOT_DRAWS = 200
INDEPENDENCE_NOTE = (
    "the latent-class fit assumes the annotators err independently given the true class "
    "(Dawid & Skene 1979): when the same items are hard for everybody it overstates their "
    "accuracy and the plan is too small"
)
_BINARY_LABELS = ({"0", "1"}, {"false", "true"})


@dataclass(frozen=True)
class RatersPilot:
    """A pilot of several annotators: its fitted model and the bootstrap's plausible truths.

    Attributes
    ----------
    source, annotators, items
        The file, its annotators (in the model's order) and its items.
    categories
        The labels in the model's category order (binary: the positive label second).
    positive
        The positive label (binary), else ``None``.
    model
        The plug-in model: fitted prevalences and confusion matrices.
    draws
        ``D`` bootstrap refits, each ``(prevalences (K,), confusion (M, K, K))``.
    unconverged
        Bootstrap refits left out because EM did not converge.
    seed, notes
        The bootstrap's seed; how the file was read and what the fit assumes.
    """

    source: str
    annotators: tuple[str, ...]
    items: int
    categories: tuple[str, ...]
    positive: str | None
    model: RatersModel
    draws: tuple[tuple[NDArray[np.float64], NDArray[np.float64]], ...] = field(repr=False)
    unconverged: int
    seed: int
    notes: tuple[str, ...] = ()


def _category_order(categories: tuple[Any, ...], positive: Any) -> tuple[list[int], str | None]:
    """The model's order of the fit's categories: binary puts the positive label last."""
    names = [str(c) for c in categories]
    if len(names) > MAX_CATEGORIES:
        raise InvalidInput(
            f"the pilot has {len(names)} labels; several annotators are planned for 2 to "
            f"{MAX_CATEGORIES} categories",
            parameter="pilot",
        )
    if len(names) != 2:
        if positive is not None:
            raise InvalidInput(
                f"positive names the positive label of two categories; the pilot has "
                f"{len(names)} ({', '.join(names)})",
                parameter="positive",
            )
        return list(range(len(names))), None
    if positive is None:
        if {n.lower() for n in names} not in _BINARY_LABELS:
            raise InvalidInput(
                f"positive is needed: which of the pilot's labels {names[0]!r} and "
                f"{names[1]!r} is the positive one",
                parameter="positive",
            )
        positive = "1" if "1" in names else next(n for n in names if n.lower() == "true")
    if str(positive) not in names:
        raise InvalidInput(
            f"positive {str(positive)!r} is not a label of the pilot ({', '.join(names)})",
            parameter="positive",
        )
    pos = names.index(str(positive))
    return [1 - pos, pos], names[pos]


def _aligned(
    prevalence: NDArray[np.float64], confusion: NDArray[np.float64], reference: NDArray
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A refit's classes permuted to match the point fit's (closest confusion rows)."""
    k = prevalence.size
    best = min(
        itertools.permutations(range(k)),
        key=lambda order: float(np.abs(confusion[:, list(order)] - reference).sum()),
    )
    order = list(best)
    return prevalence[order], confusion[:, order]


def _bootstrap_draws(
    counts: NDArray[np.int64], fit: Any, draws: int, rng: np.random.Generator
) -> tuple[list[tuple[NDArray, NDArray]], int]:
    """``draws`` item-bootstrap refits of the latent-class model, aligned to ``fit``."""
    from planner.statistics.dawid_skene import FitDidNotConverge, fit_latent_classes
    from planner.statistics.dawid_skene_settings import LatentClassSettings

    out, failed = [], 0
    n = counts.shape[0]
    for _ in range(draws):
        resample = counts[rng.integers(0, n, size=n)]
        try:
            refit = fit_latent_classes(
                resample, LatentClassSettings(categories=fit.categories, n_boot=0)
            )
        except (FitDidNotConverge, InvalidInput):  # a resample without what the fit needs
            failed += 1
            continue
        out.append(_aligned(refit.prevalence, refit.confusion, fit.confusion))
    return out, failed


def _point_fit(ratings: Any) -> Any:
    """The pilot's latent-class fit at the default effort; a fit that does not converge is
    an error of the pilot (the plan has no effort to raise)."""
    from planner.statistics.dawid_skene import FitDidNotConverge, fit_latent_classes
    from planner.statistics.dawid_skene_settings import LatentClassSettings

    settings = LatentClassSettings(n_boot=0)
    try:
        return fit_latent_classes(ratings, settings)
    except FitDidNotConverge:
        raise InvalidInput(
            f"{ratings.source}: the latent-class fit of the pilot did not converge in "
            f"{settings.max_iter:,} iterations, so it gives no model to plan from; the "
            "annotators' labels may not tell their errors apart (fit the file on its own to "
            "see how far it got)",
            parameter="pilot",
        ) from None


def raters_pilot_from_ratings(
    ratings: Any, *, positive: Any = None, draws: int = PILOT_DRAWS, rng: RngLike = None
) -> RatersPilot:
    """The plug-in model and ``draws`` bootstrap truths of a pilot of 3 to 6 annotators.

    Raises
    ------
    InvalidInput
        Fewer than three or more than :data:`MAX_ANNOTATORS` annotators, more than
        :data:`MAX_CATEGORIES` labels, a positive label that is not one, or too few
        bootstrap refits converging (fewer than half).
    """
    from planner.statistics.dawid_skene import counts_from_ratings

    m = ratings.n_annotators
    if not 3 <= m <= MAX_ANNOTATORS:
        raise InvalidInput(
            f"{ratings.source}: a pilot of several annotators needs 3 to {MAX_ANNOTATORS} of "
            f"them for the latent-class fit, found {m}",
            parameter="pilot",
        )
    draws = check("draws", draws, RULES["draws"])
    seed = seed_from(rng)
    fit = _point_fit(ratings)
    order, positive_label = _category_order(tuple(fit.categories), positive)
    counts = counts_from_ratings(ratings)
    weights = getattr(ratings, "weights", None)
    if weights is not None:  # rows that stand for several items: one row per item
        counts = np.repeat(counts, np.asarray(weights, dtype=np.int64), axis=0)
    found, failed = _bootstrap_draws(counts, fit, draws, np.random.default_rng(seed))
    if len(found) < draws / 2:
        raise InvalidInput(
            f"{ratings.source}: only {len(found)} of {draws} bootstrap refits of the "
            "latent-class fit converged; the pilot is too small to say how uncertain it is",
            parameter="pilot",
        )
    reorder = [(p[order], c[:, order][:, :, order]) for p, c in found]
    point = fit.confusion[:, order][:, :, order]
    model = raters_model(list(fit.prevalence[order]), m, confusion=point)
    return RatersPilot(
        source=str(ratings.source),
        annotators=tuple(str(a) for a in fit.annotators),
        items=int(counts.shape[0]),
        categories=tuple(str(fit.categories[i]) for i in order),
        positive=positive_label,
        model=model,
        draws=tuple(reorder),
        unconverged=failed,
        seed=seed,
        notes=(*getattr(ratings, "notes", ()), INDEPENDENCE_NOTE),
    )


def read_raters_pilot(
    path: str | Path,
    reader: dict[str, Any] | None = None,
    *,
    positive: Any = None,
    draws: int = PILOT_DRAWS,
    rng: RngLike = None,
) -> RatersPilot:
    """Read a pilot label file (``reader``: the options of
    :func:`planner.sizing.pilot.read_pilot`, with ``engine``, ``memory_limit`` and
    ``temp_dir``) and fit it (:func:`raters_pilot_from_ratings`)."""
    ratings = read_raters_ratings(path, reader)
    return raters_pilot_from_ratings(ratings, positive=positive, draws=draws, rng=rng)


def read_raters_ratings(path: str | Path, reader: dict[str, Any] | None = None) -> Any:
    """The :class:`planner.data.labels.Ratings` of a label file, read as
    :func:`read_raters_pilot` reads a pilot (``reader``: its options)."""
    from dataclasses import replace

    from planner.data.engine_duckdb import read_with_engine
    from planner.data.reader_settings import ReaderSettings

    if not isinstance(path, str | Path) or not str(path):
        raise InvalidInput(f"pilot must name a label file, got {path!r}", parameter="pilot")
    given = {k: v for k, v in (reader or {}).items() if v is not None}
    engine = str(check_text("engine", given.pop("engine", "auto")))
    memory_limit, temp_dir = given.pop("memory_limit", None), given.pop("temp_dir", None)
    for key in ("annotator_cols", "missing"):  # lists on the way in, tuples in the options
        if key in given:
            given[key] = tuple(given[key])
    ratings, chosen, why = read_with_engine(
        str(path), ReaderSettings(**given), engine=engine, memory_limit=memory_limit,
        temp_dir=temp_dir,
    )  # fmt: skip
    if engine == "auto" and chosen == "duckdb":
        ratings = replace(ratings, notes=(why, *ratings.notes))
    return ratings
