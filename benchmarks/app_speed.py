"""The planning app's two speed targets, each against a baseline, with the machine's load.

Run from the repository root with the ``[app]`` extra installed (``python -m planner app``
with this interpreter, so the checkout's code is what is timed):

    python benchmarks/app_speed.py              # 5 runs of each
    python benchmarks/app_speed.py --runs 9

It prints medians over the runs:

* **start**: from starting ``planner app --no-browser`` to the first answer of ``GET /``
  (the process imports, binds and serves), against ``python -c "import starlette"`` started
  the same way; target under 3 s;
* **first Plan page**: ``GET /plan?prevalence=0.08&width=0.08`` just after the start (the
  library's first import and the page with its headline; its figures follow, fetched by
  the page's script);
* **headline recompute**: ``POST /api/plan`` with ``prevalence=0.08&width=0.08`` and a new
  seed each time (a value changed: never answered from the cache), once the page's previous
  answer has settled (its figures computed, as after a user's pause), in *server time*, the
  ``Server-Timing: answer;dur=...`` the server measures from the parsed form to the answer
  with the headline; against the library's own call of the same plan in this process
  (``make_plan(pair_from_annotators(0.08), PlanSettings(width=0.08))``); target under
  300 ms.

The load average (``os.getloadavg``) before and after is printed with them: on a shared
machine the times carry the other processes' load, the ratios less so. Tests never assert
these timings; ``docs/app.md`` records a run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_time  # noqa: E402

START_TARGET = 3.0
RECOMPUTE_TARGET = 0.300
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
HEADLINE = {"prevalence": "0.08", "width": "0.08"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wall(command: list[str]) -> float:
    """Seconds of one run of ``command`` to its end."""
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=ENV)
    return time.perf_counter() - start


def get(url: str, timeout: float = 300) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return bytes(response.read())


def first_response(port: int, started: float, process: subprocess.Popen[bytes]) -> float:
    """Seconds from ``started`` until ``GET /`` answers (polled every 10 ms)."""
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"planner app ended: {process.stderr.read().decode()[-500:]}")
        try:
            get(f"http://127.0.0.1:{port}/", timeout=5)
            return time.perf_counter() - started
        except OSError:
            time.sleep(0.01)


def start_app() -> tuple[subprocess.Popen[bytes], int, float]:
    """A running ``planner app`` on a free port, and its seconds to the first response."""
    port = free_port()
    command = [sys.executable, "-m", "planner", "app", "--no-browser", "--port", str(port)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    return process, port, first_response(port, started, process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """End the app this script started (its own process, by its handle)."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def server_time(port: int, seed: int) -> tuple[float, float, str]:
    """One headline recompute: the server's seconds, the round trip's, and the items shown."""
    body = "&".join(f"{k}={v}" for k, v in {**HEADLINE, "seed": str(seed)}.items()).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/plan",
        data=body,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=300) as response:
        answer = json.loads(response.read())
        timing = response.headers.get("server-timing", "")
    trip = time.perf_counter() - start
    found = re.search(r"dur=([0-9.]+)", timing)
    if found is None:
        raise RuntimeError(f"no Server-Timing header in the answer: {timing!r}")
    shown, job = answer.get("headline", {}).get("items", "?"), answer.get("job")
    while answer["status"] == "running":  # the page settles (its figures) before the next
        time.sleep(0.05)
        answer = json.loads(get(f"http://127.0.0.1:{port}/api/jobs/{job}"))
    return float(found.group(1)) / 1000, trip, shown


def library_time(runs: int) -> float:
    """Median seconds of the library's own plan of the headline (a new seed each run)."""
    from planner import PlanSettings, make_plan, pair_from_annotators

    seeds = iter(range(1000, 1000 + runs + 1))
    model, settings = pair_from_annotators(0.08), PlanSettings(width=0.08)
    make_plan(model, settings, rng=999)  # imports and first-call costs, untimed
    return median_time(lambda: make_plan(model, settings, rng=next(seeds)), runs)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each timing (>= 5)")
    runs = max(5, parser.parse_args().runs)
    print(f"load average before: {load()}")
    wall([sys.executable, "-c", "import starlette"])  # bytecode written, untimed
    baseline = statistics.median(
        wall([sys.executable, "-c", "import starlette"]) for _ in range(runs)
    )
    starts, pages = [], []
    for _ in range(runs):
        process, port, seconds = start_app()
        try:
            starts.append(seconds)
            begin = time.perf_counter()
            page = get(f"http://127.0.0.1:{port}/plan?prevalence=0.08&width=0.08")
            pages.append(time.perf_counter() - begin)
            assert b'data-testid="items">1,280<' in page, "the headline link lost its 1,280"
        finally:
            stop(process)
    start = statistics.median(starts)
    print(f"python -c 'import starlette': {baseline:.3f} s (median of {runs})")
    print(
        f"planner app, start to first response: {start:.3f} s (median of {runs}), "
        f"{start / baseline:.1f}x the import; target < {START_TARGET:g} s: "
        f"{'met' if start < START_TARGET else 'NOT met'}"
    )
    print(f"first Plan page after the start (its headline): {statistics.median(pages):.3f} s")
    process, port, _ = start_app()
    try:
        server_time(port, 0)  # the first computation imports the library: untimed
        timed = [server_time(port, seed) for seed in range(1, runs + 1)]
    finally:
        stop(process)
    server = statistics.median(t[0] for t in timed)
    trip = statistics.median(t[1] for t in timed)
    library = library_time(runs)
    print(
        f"headline recompute, server time: {server * 1000:.0f} ms (median of {runs}; round "
        f"trip {trip * 1000:.0f} ms; items {', '.join(t[2] for t in timed)}); target < "
        f"{RECOMPUTE_TARGET * 1000:.0f} ms: {'met' if server < RECOMPUTE_TARGET else 'NOT met'}"
    )
    print(
        f"library make_plan of the same plan: {library * 1000:.0f} ms (median of {runs}); "
        f"the server's answer is {server / library:.1f}x it"
    )
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
