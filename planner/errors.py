"""Errors raised by planner's library code.

The library never prints or exits; the CLI maps :class:`InvalidInput` to exit code 2
(a usage error: an option or file value outside its valid range) and any other
:class:`PlannerError` to exit code 1.
"""

from __future__ import annotations


class PlannerError(Exception):
    """Base class of every error planner raises on purpose."""


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
    """

    def __init__(self, message: str, *, parameter: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter


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
        super().__init__(message)
        self.parameters = parameters


class OutputError(PlannerError):
    """An output file or folder could not be written (permission, full disk, interrupted)."""
