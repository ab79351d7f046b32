"""The committed reports' figures, without a browser: every image decodes and has alt text.

``scripts/check_report_browser.py`` renders the same pages in headless Chromium; this test
checks what a browser needs from the files: each ``<img>`` of ``report.html`` is a data URI
that decodes to a PNG (or SVG) of nonzero size, each image of ``report.md`` points to such a
file beside it, and every image has alt text. It also reads the committed figures' data.
"""

from __future__ import annotations

import base64
import json
import re
import struct
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

REPORTS = Path(__file__).parent.parent / "reports"
PAGES = sorted(REPORTS.glob("*/report.html"))
PNG = b"\x89PNG\r\n\x1a\n"


class _Images(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs))


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG (from its IHDR chunk) or an SVG (its root element); else 0, 0."""
    if data.startswith(PNG) and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if b"<svg" in data[:2000]:
        root = re.search(rb"<svg[^>]*>", data)
        numbers = [
            re.search(rb'\b%s="([\d.]+)' % key, root.group(0)) if root else None
            for key in (b"width", b"height")
        ]
        if all(numbers):
            return tuple(int(float(m.group(1))) for m in numbers)  # type: ignore[return-value,union-attr]
    return 0, 0


def _data_uri(src: str) -> bytes:
    match = re.fullmatch(r"data:image/(png|svg\+xml);base64,([A-Za-z0-9+/=\s]+)", src)
    assert match, f"not a PNG/SVG data URI: {src[:60]}"
    return base64.b64decode(match.group(2), validate=False)


def test_there_are_committed_reports():
    assert len(PAGES) >= 3


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_every_html_image_decodes_and_has_alt_text(page):
    parser = _Images()
    parser.feed(page.read_text(encoding="utf-8"))
    assert parser.images, "no images"
    for img in parser.images:
        width, height = image_size(_data_uri(img["src"] or ""))
        assert width > 0 and height > 0
        assert (img.get("alt") or "").strip(), "an image without alt text"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_every_markdown_image_is_a_file_beside_it_with_alt_text(page):
    markdown = (page.parent / "report.md").read_text(encoding="utf-8")
    images = re.findall(r"!\[([^\]]*)\]\(([^)]+)\)", markdown)
    assert len(images) == len(_html_images(page))
    for alt, target in images:
        path = page.parent / target
        assert path.is_file(), target
        assert image_size(path.read_bytes()) > (0, 0)
        assert alt.strip()


def _html_images(page: Path) -> list[dict[str, str | None]]:
    parser = _Images()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.images


def test_an_undecodable_image_is_caught():
    assert image_size(b"\x89PNG\r\n\x1a\n") == (0, 0)
    assert image_size(b"<svg width='0'") == (0, 0)
    assert image_size(b'<svg xmlns="x" width="10" height="5">') == (10, 5)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_committed_figure_data_matches_the_report(page):
    figures = json.loads((page.parent / "figures.json").read_text())
    band = figures["burndown"]
    p10, median, p90 = (np.array(band[k]) for k in ("p10", "median", "p90"))
    assert np.all(p10 <= median + 1e-12) and np.all(median <= p90 + 1e-12)
    markdown = (page.parent / "report.md").read_text(encoding="utf-8")
    assert f"seed {figures['seed']}" in markdown
    hours = figures["hours"]
    recommended = json.loads((page.parent / "plan.json").read_text()).get("recommendation", {})
    if "worst" in hours["kinds"] and "plug_in_items" not in recommended:
        # any agreement at the model's union rate needs at least what one agreement needs;
        # a plan from a pilot counts the union rate's uncertainty too, so it may need more
        worst, plan = hours["kinds"].index("worst"), hours["kinds"].index("plan")
        assert hours["items"][worst] >= hours["items"][plan]
        assert hours["hours"][worst] >= hours["hours"][plan]


def _pair_plans() -> list[Path]:
    return [
        p
        for p in PAGES
        if json.loads((p.parent / "figures.json").read_text()).get("assurance")
        and json.loads((p.parent / "plan.json").read_text())["command"] == "plan"
    ]


@pytest.mark.slow
@pytest.mark.parametrize("page", _pair_plans(), ids=lambda p: p.parent.name)
def test_the_assurance_figure_reads_true_at_every_size(page):
    # the plotted points joined by straight lines (as the figure draws them), read at many
    # sizes, against the assurance computed here: exact binomial sums for the plain PSA curve
    # on the plan's cells, the hybrid assurance on the plan's own posterior draws
    from planner.sizing.exact import exact_psa_assurance
    from planner.sizing.model import PairModel
    from planner.sizing.uncertainty import REPLICATES, DrawAssurance, lattice_cells, narrow_outcomes

    figure = json.loads((page.parent / "figures.json").read_text())["assurance"]
    plan = json.loads((page.parent / "plan.json").read_text())
    width, level = figure["width"], plan["inputs"]["confidence_level"]
    cells = [plan["model"][k] for k in ("both", "a_only", "b_only", "neither")]
    model = PairModel(cells=np.array(cells), source="cells", assumptions={})
    method = plan["inputs"]["psa_method"]
    truth = {"psa": lambda n: exact_psa_assurance(model, n, width, level, method)}
    if "uncertainty" in plan:
        u = plan["uncertainty"]
        draws = lattice_cells(
            tuple(u["pilot_counts"]), u["draws"] // REPLICATES, np.random.default_rng(u["seed"])
        )
        at = DrawAssurance(draws, narrow_outcomes(width, level, u["method"]))
        truth["psa_under_pilot_uncertainty"] = lambda n: float(at(n).mean())
        assert figure["planned"] == plan["recommendation"]["items"] == u["items_under_uncertainty"]
    for key, exact in truth.items():
        if key not in figure["curve"]:
            continue  # a kappa plan: its curve is simulated (checked in test_pilot.py)
        points = figure["curve"][key]
        items = np.array([p["items"] for p in points])
        values = np.array([p["assurance"] for p in points])
        assert np.all((values >= 0) & (values <= 1)), key
        assert figure["planned"] in items, key  # evaluated at the planned size ...
        at_plan = values[list(items).index(figure["planned"])]
        assert at_plan == pytest.approx(exact(figure["planned"]), abs=1e-9), key  # ... exactly
        sizes = np.unique(np.random.default_rng(3).integers(items[0], items[-1], 120))
        read = np.interp(sizes, items, values)
        assert np.max(np.abs(read - [exact(int(n)) for n in sizes])) <= 0.02, key
