"""Errors raised by planner's library code.

The library never prints or exits; the CLI maps :class:`InvalidInput` to exit code 2
(a usage error: an option or file value outside its valid range) and any other
:class:`PlannerError` to exit code 1.
"""

from __future__ import annotations


class PlannerError(Exception):
    """Base class of every error planner raises on purpose."""


class InvalidInput(PlannerError):
    """An input value is outside its valid range or contradicts another input.

    Parameters
    ----------
    message
        One sentence naming the option and the rule, with the offending value.
    """


class TargetUnreachable(PlannerError):
    """The requested precision cannot be reached within the search limits."""
