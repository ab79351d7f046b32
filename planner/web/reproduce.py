"""The command line that reproduces a page: the same numbers from a terminal.

Each page shows the ``planner`` command that prints its numbers. Options are named by their
library parameter (``error_rate``) and rendered as the CLI's flag (``--error-rate``) from the
CLI's own table, so a page never spells a flag itself.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any


def option_text(value: Any) -> str:
    """A value as the CLI reads it: numbers in their shortest exact form, lists comma-joined.

    >>> option_text(0.08), option_text(1280), option_text((0.03, 0.05)), option_text("a b")
    ('0.08', '1280', '0.03,0.05', 'a b')
    """
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e16 else str(int(value))
    if isinstance(value, (list, tuple)):
        return ",".join(option_text(v) for v in value)
    return str(value)


def _flag(parameter: str) -> str:
    from planner.cli.common import FLAGS

    return FLAGS.get(parameter, "--" + parameter.replace("_", "-"))


def command_line(
    words: Sequence[str], options: Mapping[str, Any], positional: Sequence[str] = ()
) -> str:
    """The shell command ``planner WORDS POSITIONAL --flag value ...`` for the options given.

    ``options`` maps library parameters to values; ``None`` and ``False`` are left out,
    ``True`` is the flag alone; every word is quoted for a POSIX shell.

    >>> command_line(["plan"], {"prevalence": 0.08, "width": 0.08, "seed": None})
    'planner plan --prevalence 0.08 --width 0.08'
    >>> command_line(["agree"], {"curve": True}, positional=["my labels.csv"])
    "planner agree 'my labels.csv' --curve"
    """
    parts = ["planner", *words, *positional]
    for parameter, value in options.items():
        if value is None or value is False:
            continue
        parts.append(_flag(parameter))
        if value is not True:
            parts.append(option_text(value))
    return " ".join(shlex.quote(part) for part in parts)
