"""The example label files that come with planner, found by name from any folder.

The documentation's examples read these files (``examples/labels.csv`` and the others, and
the team scenario ``examples/team.toml``). In a
source checkout they are the repository's ``examples/`` folder; installed, they are the
package data ``planner/example_files``. :func:`path` finds one by name, :func:`names` lists
them, and :func:`copy_to` copies them into a folder (``planner examples --copy DIR``), so
that the documentation's commands run from an empty folder too.

>>> path("labels.csv").name
'labels.csv'
>>> {"labels.csv", "pilot.csv", "wide.csv"} <= set(names())
True
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from planner.errors import InvalidInput

#: What each shipped example holds (the README's and the help texts' examples use them).
DESCRIPTIONS: dict[str, str] = {
    "labels.csv": "long layout (item, annotator, label): a 500-item pilot of two annotators, "
    "labels unsupported/supported (the counts 6, 21, 14, 459)",
    "pilot.csv": "the same pilot with labels 1 and 0",
    "wide.csv": "wide layout: 600 items, a week column and three annotators (alice, bob, "
    "carol; carol leaves 10 % unrated)",
    "wide.parquet": "wide.csv as Parquet",
    "vector-counts.csv": "wide.csv's 50 distinct label vectors (week, alice, bob, carol) with "
    "their counts, for agree --vector-counts",
    "category-counts.csv": "wide.csv's per-item category counts (supported, unsupported) with "
    "their counts, for agree --category-counts",
    "anesthesia.csv": "Dawid & Skene's (1979) anaesthesia data: 45 patients, 5 observers, "
    "observer 1 three times",
    "team.toml": "a scenario with a named team of two (ana and bo: their own speeds, hours, "
    "rates and an absence), for planner schedule",
    "stratified-labels.csv": "long layout with a stratum column: 600 items of two annotators from "
    "the four strata of unsupported-claims-enriched at an enriched allocation",
    "labelled-600.csv": "a study in progress: the first 600 items of a study of the headline "
    "model (prevalence 0.08), two annotators, labels 1 and 0, for plan --labelled",
    "three-annotator-pilot.toml": "a scenario whose [annotators] model is the pilot wide.csv "
    "(alice, bob and carol; positive label unsupported), for plan, schedule and report",
    "stratified-labels-three.csv": "long layout with a stratum column: 600 items of three "
    "annotators from the four strata of unsupported-claims-three-annotators-strata, for plan "
    "--labelled with --stratum-col",
}


def folder() -> Path:
    """The folder that holds the example files (package data, or the checkout's ``examples/``).

    Raises
    ------
    InvalidInput
        When neither exists (a broken installation).
    """
    package = Path(__file__).resolve().parent  # planner/
    for candidate in (package / "example_files", package.parent / "examples"):
        if (candidate / "labels.csv").is_file():
            return candidate
    raise InvalidInput("the example files are not installed with this copy of planner")


def names() -> list[str]:
    """The example files' names, in the order of :data:`DESCRIPTIONS`."""
    here = folder()
    return [name for name in DESCRIPTIONS if (here / name).is_file()]


def path(name: str) -> Path:
    """The path of the example file ``name`` (for example ``"labels.csv"``).

    Raises
    ------
    InvalidInput
        When ``name`` is not one of :func:`names`; the message lists them.
    """
    available = names()
    if name not in available:
        raise InvalidInput(
            f"name must be one of {', '.join(available)}, got {name!r}",
            parameter="name",
        )
    return folder() / name


def copy_to(destination: str | Path, *, overwrite: bool = False) -> list[Path]:
    """Copy every example file into the folder ``destination`` (made if missing).

    Each file is written to a temporary file beside its target and moved into place, so an
    interrupted copy leaves no half-written file. Without ``overwrite`` nothing is copied
    when any target already exists.

    Returns
    -------
    list of Path
        The files written, in the order of :func:`names`.

    Raises
    ------
    InvalidInput
        When ``destination`` is not a folder, or a target exists and ``overwrite`` is false.
    """
    dest = Path(destination)
    if dest.exists() and not dest.is_dir():
        raise InvalidInput(
            f"destination {str(dest)!r} exists and is not a folder", parameter="destination"
        )
    targets = [dest / name for name in names()]
    existing = [t.name for t in targets if t.exists() or t.is_symlink()]
    if existing and not overwrite:
        raise InvalidInput(
            f"destination {str(dest)!r} already holds {', '.join(existing)} "
            "(overwrite=True replaces them)",
            parameter="destination",
        )
    dest.mkdir(parents=True, exist_ok=True)
    for target in targets:
        _copy_atomically(folder() / target.name, target)
    return targets


def _copy_atomically(source: Path, target: Path) -> None:
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(fd)
    try:
        shutil.copyfile(source, temporary)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
