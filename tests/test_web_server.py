"""The planning app's server without a browser: answers, errors, limits, isolation, jobs."""

from __future__ import annotations

import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

from planner import PlanSettings, make_plan, pair_from_annotators  # noqa: E402
from planner.web.page import Field, Page, PageResult, parse_values  # noqa: E402
from planner.web.pages import PAGES  # noqa: E402
from planner.web.pages.plan import PAGE as PLAN  # noqa: E402
from planner.web.server import (  # noqa: E402
    BackgroundServer,
    canonical_query,
    host_warning,
    safe_filename,
)


@pytest.fixture(scope="module")
def server():
    with BackgroundServer() as running:
        yield running


def library_items(prevalence: float, width: float) -> int:
    """The library's own answer, through the public API (not the app's code path)."""
    plan = make_plan(pair_from_annotators(prevalence), PlanSettings(width=width), rng=1)
    return plan.results["psa"].items


def answer(url: str, page: str, data: dict, files: dict | None = None) -> dict:
    """POST the form and follow the job to its end, as the page's script does."""
    with httpx.Client(base_url=url, timeout=120) as client:
        body = client.post(f"/api/{page}", data=data, files=files).json()
        job, query = body.get("job"), body["query"]
        while body["status"] == "running":
            time.sleep(0.1)
            body = client.get(f"/api/jobs/{job}").json()
    return {**body, "query": query}


def test_the_link_of_the_issue_shows_1280_items_without_javascript(server):
    # 1,280: plan --prevalence 0.08 --width 0.08 (README and the issue)
    html = httpx.get(server.url + "plan?prevalence=0.08&width=0.08", timeout=120).text
    assert re.search(r'data-testid="items">1,280<', html)
    assert 'data-testid="input-prevalence" value="0.08"' in html
    assert library_items(0.08, 0.08) == 1280


@pytest.mark.slow
def test_the_json_and_the_figures_download_as_what_the_page_shows(server):
    import base64
    import json

    body = answer(server.url, "plan", {"prevalence": "0.08", "width": "0.08", "seed": "1"})
    assert body["status"] == "done", body
    link = r'<a download="([^"]+)" href="data:[^;]+;base64,([^"]+)"'
    links = dict(re.findall(link, body["html"]))
    document = json.loads(base64.b64decode(links.pop("result.json")))
    assert document["results"]["psa"]["items"] == library_items(0.08, 0.08) == 1280
    assert links and all(name.endswith(".png") for name in links)
    for png in links.values():
        assert base64.b64decode(png)[:8] == b"\x89PNG\r\n\x1a\n"  # a PNG file


@pytest.mark.slow
def test_twenty_concurrent_sessions_each_get_their_own_answer(server):
    # each session its own question: h person-hours at 2 annotators x 90 s buy h * 3600 / 180
    # items, and its own prevalence (the Budget page runs a whole plan for each)
    questions = [(10 + i, 0.05 + 0.005 * i) for i in range(20)]

    def session(question):
        hours, prevalence = question
        data = {"prevalence": f"{prevalence:g}", "hours": str(hours), "seed": str(hours)}
        return question, answer(server.url, "budget", data)

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(session, questions))
    assert len(results) == 20
    for (hours, prevalence), body in results:
        assert body["status"] == "done", body
        assert body["headline"]["items"] == f"{hours * 20:,}"
        state = dict(parse_qsl(body["query"]))
        assert state["prevalence"] == f"{prevalence:g}" and state["seed"] == str(hours)


def test_a_bad_value_is_an_error_beside_its_field_in_parameter_words(server):
    body = answer(server.url, "plan", {"prevalence": "2", "seed": "1"})
    assert body["status"] == "error"
    assert "(0, 1)" in body["errors"]["prevalence"] and "--" not in body["errors"]["prevalence"]
    body = answer(server.url, "plan", {"prevalence": "0.08", "width": "wide"})
    assert set(body["errors"]) == {"width"} and "wide" in body["errors"]["width"]


def test_the_budget_page_buys_the_items_its_hours_pay_for(server):
    # 40 person-hours at 2 annotators x 90 s an item: 40 * 3600 / 180 = 800 items
    body = answer(server.url, "budget", {"prevalence": "0.08", "hours": "40", "seed": "1"})
    assert body["headline"]["items"] == "800" and body["headline"]["person-hours"] == "40.0"
    body = answer(server.url, "budget", {"prevalence": "0.08", "seed": "1"})
    assert "items" in body["errors"]


def test_an_upload_past_the_limit_is_refused_in_one_line():
    with BackgroundServer(upload_limit_mb=0.001) as small:  # 1,048 bytes
        files = {"pilot": ("pilot.csv", b"item,annotator,label\n" * 200, "text/csv")}
        response = httpx.post(small.url + "api/plan", data={"seed": "1"}, files=files)
    assert response.status_code == 413
    error = response.json()["error"]
    assert "0.001 MB" in error and "\n" not in error


def test_unknown_pages_and_jobs_are_404(server):
    assert httpx.get(server.url + "nothing").status_code == 404
    assert httpx.post(server.url + "api/nothing").status_code == 404
    assert httpx.get(server.url + "api/jobs/not-a-job").status_code == 404


def test_the_scripts_and_styles_are_served_from_the_package(server):
    html = httpx.get(server.url + "plan").text
    assert "http" not in re.sub(r'href="/[^"]*"|src="/[^"]*"', "", html.split("<body>")[0])
    for asset in ("app.js", "app.css"):
        assert httpx.get(server.url + "static/" + asset).status_code == 200


def test_a_host_other_than_loopback_is_warned_about_in_one_line():
    for host in ("127.0.0.1", "::1", "localhost", "127.0.0.2"):
        assert host_warning(host) is None
    warning = host_warning("0.0.0.0")
    assert warning is not None and "0.0.0.0" in warning and "\n" not in warning


def test_a_taken_port_is_one_line_exit_2():
    from typer.testing import CliRunner

    from planner.cli.commands import app

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["app", "--port", str(port), "--no-browser"])
    assert result.exit_code == 2
    assert f"--port {port}" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_missing_app_extra_says_how_to_install_it(monkeypatch):
    import importlib.util

    from typer.testing import CliRunner

    from planner.cli.commands import app

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name)
    )
    result = CliRunner().invoke(app, ["app", "--no-browser"])
    assert result.exit_code == 2 and "pip install '.[app]'" in result.output


def _slow_page(started: threading.Event) -> Page:
    def compute(values, files, progress):
        started.set()
        for step in range(1000):
            progress(step, 1000)
            time.sleep(0.01)
        return PageResult(headline={"items": "never"}, command="", python="")

    return Page(
        "slow", "Slow", "ten seconds of steps", (Field("seed", "Seed", "integer"),), compute
    )


@pytest.mark.slow
def test_a_cancelled_job_stops_at_its_next_step():
    started = threading.Event()
    with BackgroundServer(pages=[_slow_page(started)]) as slow, httpx.Client() as client:
        body = client.post(slow.url + "api/slow", data={"seed": "1"}).json()
        assert body["status"] == "running" and started.wait(10)
        running = client.get(slow.url + f"api/jobs/{body['job']}").json()
        assert running["status"] == "running" and running["total"] == 1000
        client.post(slow.url + f"api/jobs/{body['job']}/cancel")
        deadline = time.monotonic() + 5
        while (state := client.get(slow.url + f"api/jobs/{body['job']}").json())["status"] == (
            "running"
        ):
            assert time.monotonic() < deadline, "the job did not stop"
            time.sleep(0.05)
    assert state["status"] == "cancelled"


def _state(page: Page) -> dict[str, str]:
    """A value of each number, whole number, choice and flag field (not a default's)."""
    texts = {"number": "0.05", "integer": "7", "flag": "1"}
    state = {f.name: texts[f.kind] for f in page.fields if f.kind in texts}
    state.update({f.name: f.choices[-1] for f in page.fields if f.kind == "choice"})
    return state


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.slug)
def test_the_url_of_a_state_gives_back_the_same_values(page):
    query = _state(page)
    again = dict(parse_qsl(canonical_query(page, query), keep_blank_values=True))
    assert parse_values(page, again) == parse_values(page, query)
    if "seed" in query:
        assert again["seed"] == "7"


def test_a_field_cleared_from_its_default_stays_cleared_in_the_url():
    again = dict(parse_qsl(canonical_query(PLAN, {"width": ""}), keep_blank_values=True))
    assert again == {"width": ""} and parse_values(PLAN, again)["width"] is None


def test_an_uploaded_name_never_names_a_path():
    assert safe_filename("../../etc/passwd") == "passwd"
    assert safe_filename("C:\\Users\\me\\pilot labels.csv").endswith("pilot_labels.csv")
    assert "/" not in safe_filename("/tmp/x/..") and safe_filename(None) == "upload"


@pytest.mark.slow
def test_the_plan_pages_report_is_planner_reports_page_for_its_scenario(server):
    body = answer(server.url, "plan", {"prevalence": "0.08", "seed": "1"})
    link = re.search(r'href="(/plan/report\?[^"]*)" data-testid="download-report"', body["html"])
    assert link is not None
    response = httpx.get(server.url + link.group(1).lstrip("/").replace("&amp;", "&"), timeout=300)
    assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
    assert "1,280" in response.text and "<html" in response.text.lower()
    refused = httpx.get(server.url + "plan/report?prevalence=2", timeout=60)
    assert (
        refused.status_code == 400 and "(0, 1)" in refused.text and "Traceback" not in refused.text
    )


def test_an_uploaded_pilots_errors_name_the_file_as_uploaded_never_a_server_path(server):
    content = (Path(__file__).parent.parent / "examples" / "labels.csv").read_bytes()
    files = {"pilot": ("labels.csv", content, "text/csv")}
    body = answer(server.url, "plan", {"positive": "nope", "seed": "1"}, files)
    assert set(body["errors"]) == {"positive"}
    assert "labels.csv" in body["errors"]["positive"] and "planner-app-" not in str(body)


@pytest.mark.slow
def test_calendar_days_are_those_of_the_schedule_command_the_page_names(server):
    import json
    import shlex
    import subprocess
    import sys

    data = {"prevalence": "0.08", "team_size": "3", "hours_per_day": "6", "seed": "3"}
    body = answer(server.url, "plan", data)
    note = re.search(r"the median of (planner schedule [^(]*) \(", body["html"])
    assert note is not None
    words = shlex.split(note.group(1).replace("&#x27;", "'"))
    assert words[:4] == ["planner", "schedule", "--items", "1280"]
    printed = subprocess.run(
        [sys.executable, "-m", "planner", *words[1:], "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    days = json.loads(printed.stdout)["calendar_days_median"]
    assert body["headline"]["calendar-days"] == f"{days:g}"


EXAMPLES = Path(__file__).parent.parent / "examples"


def _report_link(html: str, slug: str) -> str:
    link = re.search(rf'href="(/{slug}/report\?upload=[^"]*)" data-testid="download-report"', html)
    assert link is not None, html[:500]
    return link.group(1).lstrip("/")


@pytest.mark.slow
def test_an_uploaded_pilots_report_holds_the_pages_items_and_no_file_is_left(
    server, tmp_path, monkeypatch
):
    import tempfile

    # the server runs in this process: its temporary folders go to a folder of this test's
    # own, which other processes on the machine do not write to
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    before = set(Path(tempfile.gettempdir()).glob("planner-*"))
    files = {"pilot": ("my pilot.csv", (EXAMPLES / "pilot.csv").read_bytes(), "text/csv")}
    body = answer(server.url, "pilot", {"replicates": "300", "seed": "5"}, files)
    assert body["status"] == "done", body
    link = _report_link(body["html"], "pilot")
    response = httpx.get(server.url + link, timeout=300)
    assert response.status_code == 200 and "attachment" in response.headers["content-disposition"]
    assert f"Label {body['headline']['items']} items" in response.text  # the recommendation
    assert "<html" in response.text.lower() and "planner-report-" not in response.text
    assert set(tmp_path.glob("planner-*")) <= before == set()  # removed afterwards
    # the key is the only way to the upload: another key, or another page, has nothing
    other = link.replace("upload=", "upload=x")
    assert httpx.get(server.url + other, timeout=60).status_code == 404
    assert httpx.get(server.url + link.replace("pilot/", "plan/"), timeout=60).status_code == 404


@pytest.mark.slow
def test_the_plan_pages_report_of_an_uploaded_pilot_holds_its_items(server):
    files = {"pilot": ("pilot.csv", (EXAMPLES / "pilot.csv").read_bytes(), "text/csv")}
    body = answer(server.url, "plan", {"seed": "1", "replicates": "300"}, files)
    assert body["status"] == "done", body
    response = httpx.get(server.url + _report_link(body["html"], "plan"), timeout=300)
    assert response.status_code == 200
    assert f"Label {body['headline']['items']} items" in response.text


@pytest.mark.slow
def test_a_several_annotator_pilots_report_recommends_the_pages_items(server):
    import html as html_module

    files = {"pilot": ("wide.csv", (EXAMPLES / "wide.csv").read_bytes(), "text/csv")}
    data = {"positive": "unsupported", "replicates": "200", "seed": "5"}
    body = answer(server.url, "pilot", data, files)
    assert body["status"] == "done", body
    assert body["headline"]["pilot-annotators"] == "3"
    response = httpx.get(server.url + _report_link(body["html"], "pilot"), timeout=300)
    assert response.status_code == 200, response.text[:300]
    text = html_module.unescape(re.sub(r"<[^>]+>", "", response.text))
    assert f"Label {body['headline']['items']} items, each by all 3 annotators" in text
    assert "The pilot" in text and "alice, bob, carol" in text
    assert f"{body['headline']['plug-in-items']} items if the pilot's fit were the truth" in text


def test_kept_uploads_are_claimed_by_their_key_and_page_and_the_oldest_goes_first():
    from planner.web.jobs import KeptUploads

    kept = KeptUploads(size=2)
    first = kept.keep("pilot", {"seed": 1}, {"pilot": b"a"})
    assert kept.keep("pilot", {"seed": 1}, {"pilot": b"a"}) == first  # the same inputs again
    assert kept.get(first, "pilot") == ({"seed": 1}, {"pilot": b"a"})
    assert kept.get(first, "plan") is None  # another page's report cannot claim it
    second = kept.keep("pilot", {"seed": 2}, {"pilot": b"a"})
    third = kept.keep("pilot", {"seed": 1}, {"pilot": b"b"})
    assert len({first, second, third}) == 3 and len(first) >= 24  # random, unguessable
    assert kept.get(first, "pilot") is None  # two kept: the oldest went
    assert kept.get(second, "pilot") is not None and kept.get(third, "pilot") is not None


@pytest.mark.slow
def test_an_empty_seed_is_drawn_once_for_the_number_the_command_and_the_report(server):
    import html as html_module
    import json
    import shlex
    import subprocess
    import sys

    files = {"pilot": ("pilot.csv", (EXAMPLES / "pilot.csv").read_bytes(), "text/csv")}
    body = answer(server.url, "pilot", {"replicates": "300", "seed": ""}, files)
    assert body["status"] == "done", body
    shown = html_module.unescape(body["html"])
    drawn = re.search(r"seed (\d+) drawn \(give seed to repeat this page\)", shown)
    assert drawn is not None, shown[:800]
    command = re.search(r'data-testid="command"><code>([^<]*)<', body["html"])
    assert command is not None
    words = shlex.split(html_module.unescape(command.group(1)))
    assert words[words.index("--seed") + 1] == drawn.group(1)
    printed = subprocess.run(
        [sys.executable, "-m", "planner", *words[1:], "--json"],
        capture_output=True, text=True, check=True, cwd=EXAMPLES,
    )  # fmt: skip
    assert f"{json.loads(printed.stdout)['recommendation']['items']:,}" == body["headline"]["items"]
    report = httpx.get(server.url + _report_link(body["html"], "pilot"), timeout=300)
    assert f"Label {body['headline']['items']} items" in report.text
