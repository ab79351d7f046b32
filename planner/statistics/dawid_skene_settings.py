"""How to fit Dawid & Skene's latent-class model: :class:`LatentClassSettings`.

The one settings object of :func:`planner.statistics.dawid_skene.fit_latent_classes`; its
fields hold the one default of each option, checked when the settings are made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.renamed import renamed_field
from planner.validation import RULES, check, check_instance


@renamed_field("bootstrap", "n_boot")
@dataclass(frozen=True)
class LatentClassSettings:
    """The options of a latent-class (Dawid & Skene) fit by EM.

    Attributes
    ----------
    n_boot
        Bootstrap refits for the intervals (``bootstrap`` before, still accepted with a
        deprecation warning), 0 (none) or 100 to 100,000; default 200, enough
        for 95% percentile limits to about :math:`\\pm 0.01` on a proportion near 0.1 at
        1,000 items (the Monte Carlo error of a 2.5% quantile from :math:`B` refits is
        about :math:`\\sqrt{0.025 \\cdot 0.975 / B} / f(q)`).
    confidence_level
        Level of the percentile intervals, in (0, 1).
    max_iter
        EM iterations allowed, 1 to 100,000.
    tolerance
        Convergence when no prevalence or confusion entry changes by more than
        ``tolerance`` (in (0, 0.1)) between two iterations:
        :math:`\\max |\\theta^{(t)} - \\theta^{(t-1)}| < \\text{tolerance}`.
    annotators, categories
        Names for count input ``(N, m, K)`` (default ``"1".."m"`` and ``0..K-1``); a
        :class:`~planner.data.labels.Ratings` names its own.

    Examples
    --------
    >>> LatentClassSettings(n_boot=0, max_iter=5000).max_iter
    5000
    """

    n_boot: int = 200
    confidence_level: float = 0.95
    max_iter: int = 1000
    tolerance: float = 1e-8
    annotators: tuple[str, ...] | None = None
    categories: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        check("n_boot", self.n_boot, RULES["fit_n_boot"])
        check("max_iter", self.max_iter, RULES["max_iter"])
        check("tolerance", self.tolerance, RULES["fit_tolerance"])
        level = float(check("confidence_level", self.confidence_level, RULES["confidence_level"]))
        object.__setattr__(self, "confidence_level", level)
        for name in ("annotators", "categories"):
            value = getattr(self, name)
            if value is not None:
                check_instance(name, value, (list, tuple, np.ndarray), "a list of names")
                object.__setattr__(self, name, tuple(value))
