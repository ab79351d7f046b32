"""Speed of ``planner compat kappasize|irr``: each under 0.5 s.

    python benchmarks/compat_speed.py            # from the repository root
    python benchmarks/compat_speed.py --runs 9

Runs every compat command in-process through Typer's runner (the CLI path: parse, R's
answer, 2,000 simulated studies, JSON), after one warm-up call that pays the imports, and
prints the median wall time of each with the 0.5 s budget. Then times the whole process as
a user runs it (``python -m planner ...`` in a subprocess: start-up and imports included),
the median of ``--runs``, for the compat commands, ``plan --prevalence 0.08 --width 0.08``
and ``planner --help``, against the same budget.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from timing import median_time
from typer.testing import CliRunner

from planner.cli.commands import app

BUDGET = 0.5
COMMANDS = {
    "CIBinary": "kappasize CIBinary --kappa0 0.4 --kappaL 0.3 --kappaU 0.5 --props 0.3",
    "CI3Cats (3 raters)": "kappasize CI3Cats --kappa0 0.4 --kappaL 0.3 --kappaU 0.6 "
    "--props 0.3,0.2,0.5 --raters 3",
    "CI5Cats (6 raters)": "kappasize CI5Cats --kappa0 0.4 --kappaL 0.3 --kappaU 0.5 "
    "--props 0.13,0.17,0.2,0.2,0.3 --raters 6",
    "FixedNBinary": "kappasize FixedNBinary --kappa0 0.7 --n 100 --props 0.5 --raters 4",
    "FixedN4Cats": "kappasize FixedN4Cats --kappa0 0.7 --n 80 --props 0.4,0.4,0.1,0.1 --raters 5",
    "PowerBinary": "kappasize PowerBinary --kappa0 0.4 --kappa1 0.6 --props 0.3",
    "Power5Cats": "kappasize Power5Cats --kappa0 0.4 --kappa1 0.6 --props 0.3,0.2,0.1,0.3,0.1",
    "N.cohen.kappa": "irr N.cohen.kappa --rate1 0.5 --rate2 0.5 --k1 0.7 --k0 0.85",
    "N2.cohen.kappa": "irr N2.cohen.kappa --mrg 0.2,0.05,0.2,0.05,0.2,0.3 --k1 0.5 --k0 0.1",
}

# whole processes, as a user types them (after ``planner``)
PROCESSES = {
    "compat CIBinary": ["compat", *COMMANDS["CIBinary"].split(), "--seed", "1"],
    "compat PowerBinary": ["compat", *COMMANDS["PowerBinary"].split(), "--seed", "1"],
    "compat N2.cohen.kappa": ["compat", *COMMANDS["N2.cohen.kappa"].split(), "--seed", "1"],
    "plan": ["plan", "--prevalence", "0.08", "--width", "0.08", "--seed", "1"],
    "--help": ["--help"],
}


def _process(arguments: list[str]) -> None:
    """One ``python -m planner ARGUMENTS`` run, output discarded; a failure stops the script."""
    done = subprocess.run(
        [sys.executable, "-m", "planner", *arguments], capture_output=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(arguments)}\n{done.stderr.decode()}")


def whole_processes(runs: int) -> None:
    """Median wall time of each whole process (start-up included) against the budget."""
    for name, arguments in PROCESSES.items():
        seconds = median_time(lambda arguments=arguments: _process(arguments), runs)
        verdict = "ok" if seconds < BUDGET else "OVER BUDGET"
        print(f"process {name:22s} {seconds:6.3f} s  (budget {BUDGET} s: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    runner = CliRunner()

    def call(line: str) -> None:
        result = runner.invoke(app, ["compat", *line.split(), "--seed", "1", "--json"])
        if result.exit_code != 0:
            raise SystemExit(f"failed: {line}\n{result.output}")

    call(COMMANDS["CIBinary"])  # warm-up: imports numpy, scipy, the statistics
    worst = 0.0
    for name, line in COMMANDS.items():
        seconds = median_time(lambda line=line: call(line), runs)
        worst = max(worst, seconds)
        verdict = "ok" if seconds < BUDGET else "OVER BUDGET"
        print(f"{name:22s} {seconds:6.3f} s  (budget {BUDGET} s: {verdict})")
    print(f"slowest {worst:.3f} s")
    whole_processes(runs)


if __name__ == "__main__":
    main()
