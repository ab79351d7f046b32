"""Errors raised by planner's library code.

The library never prints or exits; the CLI maps :class:`InvalidInput` to exit code 2
(a usage error: an option or file value outside its valid range) and any other
:class:`PlannerError` to exit code 1.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class PlannerError(Exception):
    """Base class of every error planner raises on purpose.

    ``parameters``: the library parameters the message names, which the CLI shows as
    their flags.
    """

    def __init__(self, message: str = "", *, parameters: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.parameters = tuple(parameters)


class InvalidInput(PlannerError, ValueError):
    """An input value is outside its valid range or contradicts another input.

    Also a :class:`ValueError`, so that ``except ValueError`` in a notebook catches it.

    Parameters
    ----------
    message
        One sentence naming the value and the rule, with the offending value.
    parameter
        The library parameter the message starts with, when it does; the CLI replaces it
        by the flag's name (``hours_per_day`` -> ``--hours-per-day``).
    value
        The offending value, as given (``None`` when the error is about a missing value or
        a combination).
    rule
        The rule in words (``"a number in (0, 24]"``), when one rule was broken.
    parameters
        Library parameters the message names inside its sentence: the CLI names each as
        its flag wherever it stands as a word, so a message never spells a flag itself
        (``"kappa needs prevalence"`` with ``parameters=("prevalence",)`` is shown as
        ``"--kappa needs --prevalence"``). Prose in such a message avoids those words in
        other senses.

    Examples
    --------
    >>> e = InvalidInput("width must be a number in [0.001, 1), got 2", parameter="width",
    ...                  value=2, rule="a number in [0.001, 1)")
    >>> e.parameter, e.value, e.rule
    ('width', 2, 'a number in [0.001, 1)')
    """

    def __init__(
        self,
        message: str,
        *,
        parameter: str | None = None,
        value: object = None,
        rule: str | None = None,
        parameters: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, parameters=parameters)
        self.parameter = parameter
        self.value = value
        self.rule = rule


class TargetUnreachable(PlannerError):
    """The requested precision cannot be reached within the search limits.

    Parameters
    ----------
    message
        One sentence naming the library parameters involved (``width``, ``max_items``).
    parameters
        Those parameters; the CLI replaces each by its flag (``max_items`` ->
        ``--max-items``).
    """

    def __init__(self, message: str, *, parameters: tuple[str, ...] = ()) -> None:
        super().__init__(message, parameters=parameters)


class SearchLimit(PlannerError):
    """A search or iteration stopped at its step bound without settling.

    Every loop of the library that searches (bracketing, bisection, walking up) runs at most
    :data:`SEARCH_STEPS` steps (or a bound of its own, stated where it is); reaching it means
    the inputs sit where the search cannot resolve them, never that it should run longer.
    """


#: the most steps any bracketing or bisection loop takes (a bisection over integers up to
#: 2^63 needs 64; bracketing by factors of 1.5 from 1 to 10^15 needs 86)
SEARCH_STEPS = 256


def step_guard(what: str, limit: int = SEARCH_STEPS) -> Callable[[], None]:
    """A counter to call once per step of a loop: past ``limit`` steps it raises
    :class:`SearchLimit` ("``what`` did not settle in ``limit`` steps").

    >>> guard = step_guard("the bisection", 2)
    >>> guard(); guard(); guard()
    Traceback (most recent call last):
    ...
    planner.errors.SearchLimit: the bisection did not settle in 2 steps
    """
    taken = [0]

    def step() -> None:
        taken[0] += 1
        if taken[0] > limit:
            raise SearchLimit(f"{what} did not settle in {limit} steps")

    return step


class OutputError(PlannerError):
    """An output file or folder could not be written (permission, full disk, interrupted)."""


#: a library parameter named in a note's text: ```name``` (``"drop `bootstrap`"``)
_NOTE_PARAMETER = re.compile(r"`([a-z][a-z0-9_]*)`")
#: how the front end running now names a parameter (None: by its name); a context variable,
#: so that a thread (the web server's, started by ``planner app``) starts with names again
_note_names: ContextVar[Callable[[str], str | None] | None] = ContextVar(
    "planner_note_names", default=None
)


def shown_note(note: str) -> str:
    """A result's note as shown: each parameter it names (in backticks) as the front end
    names it (the CLI: its flag, ``psa_method`` -> ``--psa-method``), else by its name.

    Library notes that advise a setting write the parameter as ```name```, so that a note
    reads right from Python, on the command line and on a page alike.

    >>> shown_note("use `psa_method` wilson")
    'use psa_method wilson'
    >>> with parameters_named(lambda name: "--" + name.replace("_", "-")):
    ...     shown_note("use `psa_method` wilson")
    'use --psa-method wilson'
    """
    name_of = _note_names.get()

    def named(match: re.Match[str]) -> str:
        name = match.group(1)
        return (name_of(name) if name_of else None) or name

    return _NOTE_PARAMETER.sub(named, str(note))


@contextmanager
def parameters_named(name_of: Callable[[str], str | None]) -> Iterator[None]:
    """Inside, :func:`shown_note` names each parameter as ``name_of`` does (None: its name)."""
    token = _note_names.set(name_of)
    try:
        yield
    finally:
        _note_names.reset(token)
