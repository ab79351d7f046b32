"""The planning app in a real browser: Debian's headless Chromium driven by selenium.

One server and one browser for the module. Chromium and its driver come from the Debian
packages (``chromium``, ``chromium-driver``; ``.ci/run`` installs them): where they are
missing the tests are skipped, except in CI (the variable ``CI`` set), where a skipped
browser test would hide a broken page, so they fail.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from planner import PlanSettings, make_plan, pair_from_annotators  # noqa: E402
from planner.web.pages import PAGES  # noqa: E402
from planner.web.server import BackgroundServer  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ROOT = Path(__file__).resolve().parent.parent
WAIT = 120  # seconds: the machine may be busy

pytestmark = pytest.mark.slow  # a browser per module: run by CI, not by the quick default run


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install '.[test]')"
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        return "Debian's chromium and chromium-driver are not installed"
    return None


@pytest.fixture(scope="module")
def server():
    with BackgroundServer() as running:
        yield running


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing and os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {missing}")
    if missing:
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="planner-browser-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        "--window-size=1280,1600",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()
        subprocess.run(["rm", "-rf", profile], check=False)


def by_testid(driver, testid):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]')


def wait_text(driver, testid, expected):
    """Wait until the element shows ``expected`` (a string, or a predicate on its text)."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    def shown(d):
        try:
            text = by_testid(d, testid).text
        except (NoSuchElementException, StaleElementReferenceException):
            return False
        return text if (expected(text) if callable(expected) else text == expected) else False

    return WebDriverWait(driver, WAIT, ignored_exceptions=()).until(shown)


def wait_done(driver):
    """Wait for the whole result (the headline shows first, the figures after)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, WAIT).until(
        lambda d: by_testid(d, "result").get_attribute("data-state") == "done"
    )


def retype(driver, testid, text):
    from selenium.webdriver.common.keys import Keys

    field = by_testid(driver, testid)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(Keys.DELETE)
    field.send_keys(text)


def library_items(prevalence, width):
    """The library's answer through its public API (not the app's code path)."""
    plan = make_plan(pair_from_annotators(prevalence), PlanSettings(width=width), rng=1)
    return f"{plan.results['psa'].items:,}"


def cli_json(command: str) -> dict:
    """Run a shown ``planner ...`` command (as ``python -m planner``) with ``--json``."""
    words = shlex.split(command)
    assert words[0] == "planner"
    result = subprocess.run(
        [sys.executable, "-m", "planner", *words[1:], "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(result.stdout)


def test_the_url_state_loads_the_model(server, browser):
    browser.get(server.url + "plan?prevalence=0.08&width=0.08")
    assert wait_text(browser, "items", "1,280")  # plan --prevalence 0.08 --width 0.08
    assert by_testid(browser, "input-prevalence").get_attribute("value") == "0.08"


def test_typing_a_value_updates_the_answer_and_the_url(server, browser):
    browser.get(server.url + "plan?prevalence=0.08&width=0.08")
    wait_text(browser, "items", "1,280")
    retype(browser, "input-width", "0.1")
    assert wait_text(browser, "items", library_items(0.08, 0.1))
    assert "width=0.1" in browser.current_url and "seed=1" in browser.current_url


def test_a_bad_value_shows_its_error_beside_the_field(server, browser):
    browser.get(server.url + "plan?prevalence=0.08")
    wait_text(browser, "items", "1,280")
    retype(browser, "input-prevalence", "2")
    error = wait_text(browser, "error-prevalence", lambda t: "(0, 1)" in t)
    assert "Traceback" not in browser.page_source and "--" not in error
    assert by_testid(browser, "input-prevalence").get_attribute("aria-invalid") == "true"


def test_the_figures_decode(server, browser):
    browser.get(server.url + "plan?prevalence=0.08")
    wait_text(browser, "items", "1,280")
    wait_done(browser)
    image = by_testid(browser, "figure-assurance-curve")
    assert (
        browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image)
        > 0
    )
    assert image.get_attribute("alt")


def test_an_uploaded_pilot_gives_plan_pilots_answer(server, browser):
    browser.get(server.url + "plan?seed=1")
    by_testid(browser, "pilot-file").send_keys(str(ROOT / "examples" / "pilot.csv"))
    expected = cli_json("planner plan --pilot examples/pilot.csv --seed 1")
    items = f"{expected['recommendation']['items']:,}"
    assert wait_text(browser, "items", items)
    wait_done(browser)
    assert "--pilot pilot.csv" in by_testid(browser, "command").text


def test_the_shown_command_run_gives_the_pages_number(server, browser):
    browser.get(server.url + "plan?prevalence=0.05&error_rate=0.03,0.05&width=0.1&hourly_rate=40")
    wait_done(browser)
    items = by_testid(browser, "items").text
    cost = by_testid(browser, "cost").text
    document = cli_json(by_testid(browser, "command").text)
    recommendation = document["recommendation"]
    assert f"{recommendation['items']:,}" == items
    assert f"{recommendation['budget']['cost']:,.0f}" == cost


def test_two_tabs_keep_their_own_state(server, browser):
    browser.get(server.url + "plan?prevalence=0.08")
    wait_text(browser, "items", "1,280")
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(server.url + "plan?prevalence=0.08")
    wait_text(browser, "items", "1,280")
    retype(browser, "input-width", "0.12")
    second_items = wait_text(browser, "items", library_items(0.08, 0.12))
    second_url = browser.current_url
    browser.switch_to.window(first)
    assert by_testid(browser, "items").text == "1,280" and "width" not in browser.current_url
    browser.refresh()
    assert wait_text(browser, "items", "1,280")
    browser.switch_to.window([h for h in browser.window_handles if h != first][0])
    browser.refresh()
    assert wait_text(browser, "items", second_items) and browser.current_url == second_url
    browser.close()
    browser.switch_to.window(first)


def test_inputs_are_labelled_and_the_page_works_from_the_keyboard(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(server.url + "plan?prevalence=0.08")
    wait_text(browser, "items", "1,280")
    controls = browser.find_elements(By.CSS_SELECTOR, "form input, form select, form textarea")
    for control in controls:
        ident = control.get_attribute("id")
        assert browser.find_elements(By.CSS_SELECTOR, f'label[for="{ident}"]'), ident
    by_testid(browser, "input-prevalence").click()
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("id") == "input-error_rate"
    width = by_testid(browser, "input-width")
    width.click()
    width.send_keys(Keys.CONTROL, "a")
    browser.switch_to.active_element.send_keys("0.09" + Keys.ENTER)
    assert wait_text(browser, "items", library_items(0.08, 0.09))


def test_the_budget_page_shows_what_hours_buy(server, browser):
    browser.get(server.url + "budget?prevalence=0.08&hours=40&hourly_rate=30")
    # 40 person-hours at 2 annotators x 90 s an item: 40 * 3600 / 180 = 800 items, cost 1,200
    assert wait_text(browser, "items", "800")
    assert by_testid(browser, "cost").text == "1,200"
    retype(browser, "input-hours", "20")
    assert wait_text(browser, "items", "400")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.slug)
def test_every_page_has_labelled_inputs_and_its_hooks(server, browser, page):
    from selenium.webdriver.common.by import By

    browser.get(server.url + page.slug)
    by_testid(browser, "result")
    for spec in page.fields:
        testid = f"{spec.name}-file" if spec.kind == "file" else f"input-{spec.name}"
        control = by_testid(browser, testid)
        labels = browser.find_elements(
            By.CSS_SELECTOR, f'label[for="{control.get_attribute("id")}"]'
        )
        assert labels and labels[0].text.strip(), spec.name
        assert browser.find_elements(By.CSS_SELECTOR, f'[data-testid="error-{spec.name}"]')
    assert "Traceback" not in browser.page_source


def _upload(browser, server, url, example):
    browser.get(server.url + url)
    assert by_testid(browser, "result").get_attribute("data-state") != "done"  # no file yet
    by_testid(browser, "pilot-file").send_keys(str(ROOT / "examples" / example))
    wait_text(browser, "pilot-items", lambda text: bool(text))
    wait_done(browser)


def test_a_pilot_of_three_annotators_plans_the_study_of_them_all(server, browser, tmp_path):
    _upload(browser, server, "pilot?positive=unsupported&replicates=300&seed=5", "wide.csv")
    read = by_testid(browser, "pilot-read").text
    # examples/wide.csv: alice, bob and carol label 600 items "supported" or "unsupported"
    assert "alice, bob, carol" in read and "600" in read and "supported, unsupported" in read
    shown = {k: by_testid(browser, k).text for k in ("items", "person-hours", "assurance")}
    assert by_testid(browser, "union-positives").text == "—"  # a pair's count
    assert by_testid(browser, "cost").text == "—"  # no hourly rate
    command = by_testid(browser, "command").text
    assert "--annotators 3" in command and "--pilot pilot.csv" in command
    (tmp_path / "pilot.csv").write_bytes((ROOT / "examples" / "wide.csv").read_bytes())
    words = shlex.split(command)
    printed = subprocess.run(
        [sys.executable, "-m", "planner", *words[1:], "--json"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
    )  # fmt: skip
    document = json.loads(printed.stdout)
    assert f"{document['recommendation']['items']:,}" == shown["items"]
    assert f"{document['recommendation']['budget']['person_hours']:,.1f}" == shown["person-hours"]
    assert by_testid(browser, "python").text.startswith("from planner import")
    assert "[annotators]" in by_testid(browser, "toml").text  # the scenario form of the pilot
    assert "/pilot/report?upload=" in by_testid(browser, "download-report").get_attribute("href")


def test_the_report_of_an_uploaded_pilot_downloads_with_the_pages_items(server, browser):
    _upload(browser, server, "pilot?replicates=300&seed=5", "pilot.csv")
    items = by_testid(browser, "items").text
    link = by_testid(browser, "download-report")
    assert "upload=" in link.get_attribute("href") and "pilot.csv" not in link.get_attribute("href")
    fetched = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0].href).then(r => r.text().then(t => done("
        "[r.status, r.headers.get('content-disposition'), t])));",
        link,
    )
    status, disposition, text = fetched
    assert status == 200 and "attachment" in disposition and "report.html" in disposition
    assert f"Label {items} items" in text  # the report recommends the page's items
