"""The documentation site (mkdocs.yml over docs/) builds with warnings as errors.

``mkdocs build --strict`` fails on a broken link between pages, a page left out of the
navigation, or a docstring that the API reference cannot parse; the README's test command
therefore builds the site in CI. The other tests here check what the build cannot: every
public name of the library has its entry in the API reference, and every page the
navigation names exists.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import planner

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
MKDOCS = ROOT / "mkdocs.yml"

pytest.importorskip("mkdocs", reason="the docs packages are in the test extra")
pytest.importorskip("mkdocstrings")


def _nav_pages() -> list[str]:
    """The pages of mkdocs.yml's ``nav``, in order (its entries end in ``.md``)."""
    nav = MKDOCS.read_text().split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+- (?:.+: )?([\w./-]+\.md)$", nav, re.M)


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
    argv += ["--config-file", str(MKDOCS), "--site-dir", str(tmp_path / "site")]
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "api" / "index.html").exists()


def test_every_page_in_the_navigation_exists_and_every_page_is_in_it():
    named = _nav_pages()
    assert len(named) == len(set(named)), "a page is named twice"
    assert named[0] == "index.md"
    for page in named:
        assert (ROOT / "docs" / page).is_file(), page
    present = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert present <= set(named), sorted(present - set(named))


def test_sources_come_last_among_the_methods():
    methods = [page for page in _nav_pages() if page.startswith("methods/")]
    assert methods[0] == "methods/index.md"
    assert methods[-1] == "methods/references.md"


def test_every_public_name_has_its_entry_in_the_api_reference():
    reference = (ROOT / "docs" / "api.md").read_text()
    entries = set(re.findall(r"^::: ([\w.]+)$", reference, re.M))
    for name in planner.__all__:
        if name == "__version__":
            continue
        assert f"{planner._PUBLIC[name]}.{name}" in entries, name
