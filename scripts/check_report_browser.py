"""Render each report's HTML in headless Chromium and check that every figure loads.

Usage::

    python scripts/check_report_browser.py [REPORT.html ...]   # default: reports/*/report.html

For each page, a copy with a small script appended (in a fresh temporary folder; the report
itself is not changed) is opened as a ``file://`` URL with ``chromium --headless --dump-dom``.
When the page has loaded, the script writes one JSON line per ``<img>`` into the DOM: whether
it is complete, its natural width and height (0 when the image failed to decode) and its alt
text. An image passes when it decoded to a nonzero size and has alt text. ``--screenshot DIR``
also saves a screenshot of each page at 100 % zoom (1280 pixels wide) for a look by eye.

Prints one line per report and a one-line summary; exits 0 when every image of every report
loaded, 1 otherwise (2 when Chromium is missing). Needs Debian's ``chromium`` (``apt-get
install chromium``); not part of the test suite, which checks the same files without a browser
(tests/test_report_images.py).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
PROBE = """
<script>
window.addEventListener('load', () => {
  const out = document.createElement('pre');
  out.id = 'planner-image-check';
  out.textContent = Array.from(document.images).map(img => JSON.stringify({
    complete: img.complete, width: img.naturalWidth, height: img.naturalHeight,
    alt: img.getAttribute('alt') || ''})).join('\\n');
  document.body.appendChild(out);
});
</script>
"""
MARK = '<pre id="planner-image-check">'


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run(browser: str, profile: Path, *args: str) -> str:
    command = [browser, *FLAGS, f"--user-data-dir={profile}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    return done.stdout


def images_of(browser: str, page: Path, work: Path) -> list[dict]:
    """The images of ``page`` as the browser loaded them."""
    text = page.read_text(encoding="utf-8")
    copy = work / page.parent.name / page.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = _run(
        browser, work / "profile", "--virtual-time-budget=10000", "--dump-dom", copy.as_uri()
    )
    if MARK not in dom:
        raise RuntimeError(f"{page}: the page did not finish loading in the browser")
    block = dom.split(MARK, 1)[1].split("</pre>", 1)[0]
    return [json.loads(line.replace("&amp;", "&")) for line in block.splitlines() if line]


def screenshot(browser: str, page: Path, folder: Path, work: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{page.parent.name}.png"
    _run(
        browser,
        work / "profile",
        "--window-size=1280,4000",
        "--force-device-scale-factor=1",
        f"--screenshot={target}",
        page.resolve().as_uri(),
    )
    return target


def check(page: Path, browser: str, work: Path) -> tuple[int, list[str]]:
    """How many images the page has, and what is wrong with them."""
    images = images_of(browser, page, work)
    problems = []
    for i, img in enumerate(images, 1):
        if not (img["complete"] and img["width"] > 0 and img["height"] > 0):
            problems.append(f"image {i} did not load ({img['width']}x{img['height']})")
        if not img["alt"].strip():
            problems.append(f"image {i} has no alt text")
    if not images:
        problems.append("no images")
    return len(images), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--screenshot", type=Path, help="save a screenshot of each page here")
    args = parser.parse_args(argv)
    browser = chromium()
    if browser is None:
        print("chromium not found: apt-get install chromium", file=sys.stderr)
        return 2
    pages = args.pages or sorted(Path("reports").glob("*/report.html"))
    failed, total = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for page in pages:
            try:
                count, problems = check(page, browser, Path(tmp))
            except (OSError, RuntimeError, subprocess.TimeoutExpired, ValueError) as exc:
                count, problems = 0, [str(exc)]
            total += count
            failed += bool(problems)
            print(f"{page}: {count} images, " + ("; ".join(problems) or "all loaded"))
            if args.screenshot:
                screenshot(browser, page, args.screenshot, Path(tmp))
    verdict = "FAIL" if failed else "OK"
    print(f"{verdict}: {len(pages) - failed} of {len(pages)} reports, {total} images checked")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
