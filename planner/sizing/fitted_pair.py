"""From a latent-class fit of a pilot (three or more annotators) to the pair model plan uses.

``ratings -> fit_latent_classes -> pair_model_from_fit -> PairModel``: the fitted prevalence
and each annotator's sensitivity and specificity become plan's prevalence, error rate and
bias (docs/methods/annotator-models.md 6.2 (a)), through
:func:`planner.sizing.model.pair_from_annotators`.
The model's ``assumptions["description"]`` says which annotators it stands for.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from planner.errors import InvalidInput
from planner.sizing.model import PairModel, error_and_bias, pair_from_annotators
from planner.statistics.dawid_skene import LatentClassFit
from planner.validation import shown


def _annotator_index(fit: LatentClassFit, name: Any) -> int:
    for index, annotator in enumerate(fit.annotators):
        if annotator == name or annotator == str(name):
            return index
    raise InvalidInput(
        f"pair must name two of the fitted annotators ({', '.join(fit.annotators)}); "
        f"got {shown(name)}",
        parameter="pair",
    )


def _pair_indices(fit: LatentClassFit, pair: tuple[Any, Any] | list[Any]) -> tuple[int, int]:
    names = tuple(pair)
    if len(names) != 2:
        raise InvalidInput(
            f"pair must name two annotators, got {len(names)}: {', '.join(map(shown, names))}",
            parameter="pair",
        )
    first, second = (_annotator_index(fit, name) for name in names)
    if first == second:
        raise InvalidInput(
            f"pair must name two different annotators, got {shown(names[0])} twice",
            parameter="pair",
        )
    return first, second


def pair_model_from_fit(
    fit: LatentClassFit, pair: tuple[Any, Any] | list[Any] | None = None, *, positive: Any = None
) -> PairModel:
    """The two-annotator model of a binary latent-class fit, for :func:`make_plan`.

    Parameters
    ----------
    fit
        A two-category :class:`~planner.statistics.dawid_skene.LatentClassFit`.
    pair
        Two annotator names: the model of exactly those two. ``None`` (default): two copies
        of the *average annotator*, whose sensitivity and specificity are the means over
        every fitted annotator. A study is usually staffed by annotators drawn from the
        same pool as the pilot's, not by the pilot's best two; picking the two lowest
        fitted error rates would plan for the luckiest pair of a noisy pilot (winner's
        curse), while the average annotator plans for a typical pair.
    positive
        The positive category (may be omitted for 0/1 and False/True labels).

    Returns
    -------
    PairModel
        ``source`` ``"annotators"`` (the model is stated by prevalence, error rates and
        biases); ``assumptions`` adds ``description`` (which annotators, how) and
        ``fitted_annotators``.

    Raises
    ------
    InvalidInput
        A fit with more than two categories, an unknown annotator, or a fitted annotator
        outside plan's model (error rate 0.5 or more: worse than a coin).
    """
    rates = fit.binary(positive)
    if pair is None:
        chosen: tuple[int, ...] = tuple(range(fit.n_annotators))
        se: tuple[float, ...] = (float(np.mean(rates.sensitivity)),) * 2
        sp: tuple[float, ...] = (float(np.mean(rates.specificity)),) * 2
        description = (
            f"average of the {fit.n_annotators} fitted annotators "
            f"({', '.join(fit.annotators)}): sensitivity {se[0]:.3f}, specificity "
            f"{sp[0]:.3f} each"
        )
    else:
        chosen = _pair_indices(fit, pair)
        se = tuple(float(rates.sensitivity[j]) for j in chosen)
        sp = tuple(float(rates.specificity[j]) for j in chosen)
        description = f"fitted annotators {fit.annotators[chosen[0]]} and " + (
            f"{fit.annotators[chosen[1]]}"
        )
    pi = rates.prevalence
    errors, biases = zip(
        *(error_and_bias(pi, s, p) for s, p in zip(se, sp, strict=True)), strict=True
    )
    try:
        model = pair_from_annotators(pi, errors, biases)
    except InvalidInput as exc:
        raise InvalidInput(
            f"the latent-class fit gives a model plan cannot use ({description}): {exc}",
            parameter="pair",
        ) from None
    extra = {
        "description": f"latent-class (Dawid & Skene) fit: {description}",
        "fitted_annotators": [fit.annotators[j] for j in chosen],
        "positive": rates.positive,
    }
    return replace(model, assumptions={**model.assumptions, **extra})
