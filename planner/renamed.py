"""Old parameter names kept as deprecated aliases of their new names.

A name that changes (one name per concept across the library, the CLI, scenario files and
JSON) keeps working for a while: the old keyword is accepted and the old attribute read, each
with a :class:`DeprecationWarning` that names the new one. The renames so far:

============= ================ ===============================================================
old           new              where
============= ================ ===============================================================
``n_reps``    ``replicates``   the simulated studies of every settings object and result
                               (``PlanSettings``, ``SearchSettings``, ``AltTestPlanSettings``,
                               ``SampleSizeResult``, ...) and of ``check_kappasize`` and
                               ``check_irr``; the CLI's ``--replicates`` and the scenario key
                               ``simulation.replicates`` already said so; the method
                               ``SearchSettings.replicates(several)`` is now
                               ``replicates_for(several)`` (no alias: the field took its name)
``bootstrap`` ``n_boot``       the latent-class fit's bootstrap refits (``LatentClassSettings``,
                               ``LatentClassFit``; ``fit --bootstrap N`` is ``fit --n-boot N``),
                               as ``agree`` and ``MeasureSettings`` name the count; a bool
                               ``bootstrap`` means "use the bootstrap" everywhere
``counts``    ``first_stage``  the first argument of ``plan_remaining``, which now also takes
                               several annotators' labels
============= ================ ===============================================================

A renamed type stays importable under its former name as the same class:
``RatersRemaining`` is :class:`planner.sizing.midstudy_result.RemainingPlan`, the one answer
of a study in progress, pair or several annotators.

Examples
--------
>>> import warnings
>>> from planner import PlanSettings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     settings = PlanSettings(n_reps=500)
>>> settings.replicates, str(caught[0].message)
(500, 'n_reps is deprecated: use replicates (renamed after planner 0.1.0)')

Both names at once are one value given twice: the same value is accepted, two different
values are refused, naming the new parameter (``PlanSettings(n_reps=500, replicates=800)``
raises :class:`~planner.errors.InvalidInput` with ``parameter="replicates"``).
:func:`dataclasses.replace` is the exception: it passes every field, so ``replace(s,
n_reps=300)`` arrives with ``replicates`` set to the current value, and the old name wins.

A dataclass that subclasses one with a renamed field inherits the old attribute but not the
old keyword: the subclass's generated ``__init__`` replaces the wrapped one, so the subclass
applies :func:`renamed_field` again.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from planner.errors import InvalidInput

T = TypeVar("T")

#: when they were renamed (said in the warning); the old names go in a later release
SINCE = "renamed after planner 0.1.0"


def _message(old: str, new: str) -> str:
    return f"{old} is deprecated: use {new} ({SINCE})"


_REPLACE_CODES = frozenset(
    function.__code__
    for function in (dataclasses.replace, getattr(dataclasses, "_replace", None))
    if function is not None
)
"""The code of :func:`dataclasses.replace` and of the helper it delegates to in newer Pythons."""


def _called_by_replace(depth: int) -> bool:
    """Whether the frame ``depth`` levels above the caller runs :func:`dataclasses.replace`
    (or its helper), which passes every field: the code object itself is compared, so no
    other function of that name or file is taken for it."""
    return sys._getframe(depth + 1).f_code in _REPLACE_CODES


def _mapped(kwargs: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """``kwargs`` with ``old`` moved to ``new``, with a warning.

    When both are given with different values the call is refused, naming ``new``; but
    from :func:`dataclasses.replace` the old one wins, since ``replace(s, old=v)`` arrives
    with ``new`` set to the current value.
    """
    if old not in kwargs:
        return kwargs
    if new in kwargs and kwargs[new] != kwargs[old] and not _called_by_replace(2):
        raise InvalidInput(
            f"{new} is given twice, as {new}={kwargs[new]!r} and as its deprecated name "
            f"{old}={kwargs[old]!r}; give {new} once",
            parameter=new,
            value=kwargs[old],
            rule=f"one value (the deprecated {old} is the same parameter)",
        )
    warnings.warn(_message(old, new), DeprecationWarning, stacklevel=3)
    kwargs = dict(kwargs)
    kwargs[new] = kwargs.pop(old)
    return kwargs


def renamed_keyword(old: str, new: str) -> Callable[[T], T]:
    """Let a function (or a class's ``__init__``) take ``old=`` as ``new=``, with a warning."""

    def decorate(function: Any) -> Any:
        @functools.wraps(function)
        def accepting(*args: Any, **kwargs: Any) -> Any:
            return function(*args, **_mapped(kwargs, old, new))

        return accepting

    return decorate


def renamed_field(old: str, new: str) -> Callable[[T], T]:
    """Class decorator: ``obj.old`` reads ``obj.new`` with a warning, and, when ``new`` is a
    keyword of the constructor, ``Cls(old=...)`` gives ``new`` (also through
    :func:`dataclasses.replace`, which calls the constructor).

    A dataclass subclass generates its own ``__init__``, without the old keyword: decorate
    the subclass too."""

    def decorate(cls: Any) -> Any:
        def read(self: Any) -> Any:
            warnings.warn(_message(old, new), DeprecationWarning, stacklevel=2)
            return getattr(self, new)

        setattr(cls, old, property(read, doc=f"Deprecated name of :attr:`{new}`."))
        cls.__init__ = renamed_keyword(old, new)(cls.__init__)
        return cls

    return decorate
