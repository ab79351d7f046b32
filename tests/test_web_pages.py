"""The planning app's pages without a browser: each page's numbers are its command's.

For every page: ``compute`` on typical values gives the headline numbers that the shown
``command`` prints with ``--json`` (run in-process with typer's CliRunner, in a folder
holding the files the command names); the ``python`` snippet, executed, gives the same
numbers; a bad value raises InvalidInput naming one of the page's fields; uploads are read
from bytes. Small replicate counts and fixed seeds keep them fast.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.web.page import Page, PageResult, parse_values
from planner.web.pages import PAGES, agree, alt_test, designs, pilot, schedule, several, shared

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def number(text: str) -> float:
    """A headline value as a number: ``'1,280'`` -> 1280."""
    return float(text.replace(",", ""))


def run_command(result: PageResult) -> dict[str, Any]:
    """The page's command, run with ``--json`` in the current folder: its document.

    The page's own ``document`` is checked first: plain JSON (no NaN) in the shape of
    ``planner-output.schema.json``, the document of the same command.
    """
    from jsonschema import Draft202012Validator

    from planner.output.jsonout import load_schema

    text = json.dumps(result.document, allow_nan=False)
    Draft202012Validator(load_schema()).validate(json.loads(text))
    words = shlex.split(result.command)
    assert words[0] == "planner"
    out = CliRunner().invoke(app, [*words[1:], "--json"])
    assert out.exit_code == 0, out.stderr or out.stdout
    cli = json.loads(out.stdout)
    assert cli["command"] == result.document["command"]
    return cli  # type: ignore[no-any-return]


def run_python(result: PageResult) -> dict[str, Any]:
    """The page's Python snippet, executed: its variables."""
    space: dict[str, Any] = {}
    exec(compile(result.python, "<page>", "exec"), space)  # noqa: S102 - the page's own code
    return space


def computed(page: Page, query: dict[str, str], files: dict[str, bytes] | None = None) -> Any:
    return page.compute(parse_values(page, query), files or {}, None)


def refused(page: Page, query: dict[str, str], files: dict[str, bytes] | None = None) -> str:
    """The field a bad value is refused on (it must be one of the page's)."""
    with pytest.raises(InvalidInput) as caught:
        computed(page, query, files)
    parameter = caught.value.parameter
    assert parameter in {f.name for f in page.fields}, (parameter, str(caught.value))
    assert "planner-upload-" not in str(caught.value)  # never the server's temporary folder
    return str(parameter)


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------------- the pages


def test_every_page_is_registered_once_with_unique_field_names() -> None:
    slugs = [p.slug for p in PAGES]
    assert {"designs", "several", "pilot", "alt-test", "agree", "schedule"} <= set(slugs)
    assert len(slugs) == len(set(slugs))
    for page in PAGES:
        names = [f.name for f in page.fields]
        assert len(names) == len(set(names)), page.slug
        for spec in page.fields:  # a choice's default is one of its choices
            if spec.kind == "choice" and spec.default is not None:
                assert spec.default in spec.choices, (page.slug, spec.name)


# --------------------------------------------------------------------------- designs

DESIGNS_QUERY = {"replicates": "300", "seed": "11"}


@pytest.mark.slow
def test_designs_page_gives_plan_scenarios_numbers(in_tmp: Path) -> None:
    result = computed(designs.PAGE, DESIGNS_QUERY)
    assert result.toml is not None
    (in_tmp / designs.SCENARIO_FILE).write_text(result.toml)
    cli = run_command(result)
    assert cli["command"] == "plan-comparison"
    for name in ("uniform", "enriched", "weighted"):
        assert number(result.headline[f"items-{name}"]) == cli["designs"][name]["items"]
        hours = cli["designs"][name]["budget"]["person_hours"]
        assert number(result.headline[f"person-hours-{name}"]) == pytest.approx(hours, abs=0.05)
    weighted = cli["designs"]["weighted"]
    assert number(result.headline["items"]) == weighted["items"]
    assert number(result.headline["union-positives"]) == round(weighted["union_positives"])
    assert number(result.headline["cost"]) == pytest.approx(weighted["budget"]["cost"], abs=0.005)
    # the weighted design has no prevalence slice: its items are its strata's
    assert sum(weighted["items_per_stratum"]) == weighted["items"]
    assert result.figures[0].png.startswith(b"\x89PNG\r\n\x1a\n")
    space = run_python(result)
    comparison = space["comparison"]
    assert {n: d.items for n, d in comparison.designs.items()} == {
        n: d["items"] for n, d in cli["designs"].items()
    }


def test_designs_page_reads_the_strata_table() -> None:
    two = "name,share,prevalence,error_rate\nhard,0.2,0.4,0.08;0.06\neasy,0.8,0.05,0.02\n"
    tables = designs.strata_tables(two)
    assert tables == [
        {"name": "hard", "share": 0.2, "prevalence": 0.4, "error_rate": [0.08, 0.06]},
        {"name": "easy", "share": 0.8, "prevalence": 0.05, "error_rate": 0.02},
    ]


@given(st.text())
def test_any_text_survives_the_scenario_file(text: str) -> None:
    assert tomllib.loads(f"key = {shared.toml_value(text)}")["key"] == text


names = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1).map(
    str.strip
)


@given(st.lists(names.filter(bool), min_size=2, max_size=5, unique=True))
def test_the_strata_table_is_the_scenarios_strata(strata: list[str]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["name", "size", "prevalence", "error_rate"])
    for i, name in enumerate(strata, start=1):
        writer.writerow([name, i, 0.1, "0.02;0.04"])
    toml = designs.scenario_toml({"strata": buffer.getvalue(), "seed": 1})
    read = tomllib.loads(toml)["strata"]
    assert [s["name"] for s in read] == strata
    assert [s["size"] for s in read] == list(range(1, len(strata) + 1))
    assert all(s["error_rate"] == [0.02, 0.04] for s in read)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"width": "3"}, "width"),
        ({"replicates": "5"}, "replicates"),
        ({"error_rate": "0.7"}, "error_rate"),
        ({"strata": "name,share,prevalence\na,0.5,0.1\nb,0.6,0.2\n"}, "strata"),
        ({"strata": "name,share,prevalence\na,0.5,x\nb,0.5,0.2\n"}, "strata"),
        ({"strata": "name,share,prevalence\na,1,0.1\n"}, "strata"),
        ({"metric": "both"}, "metric"),
    ],
)
def test_designs_page_refuses_a_bad_value_on_its_field(query: dict[str, str], field: str) -> None:
    assert refused(designs.PAGE, {**DESIGNS_QUERY, **query}) == field


# --------------------------------------------------------------------------- several

SEVERAL_QUERY = {"annotators": "4", "per_item": "3", "replicates": "300", "hourly_rate": "30"}


def test_several_page_gives_plan_annotators_numbers(in_tmp: Path) -> None:
    result = computed(several.PAGE, SEVERAL_QUERY)
    cli = run_command(result)
    assert cli["command"] == "plan-raters"
    assert number(result.headline["items"]) == cli["items"]
    assert number(result.headline["person-hours"]) == pytest.approx(
        cli["budget"]["person_hours"], abs=0.05
    )
    assert number(result.headline["cost"]) == pytest.approx(cli["budget"]["cost"], abs=0.005)
    assert number(result.headline["coverage"]) == pytest.approx(cli["sizing"]["coverage"], abs=5e-4)
    # k of M: each item costs k labels, so labels = 3 x items
    assert cli["budget"]["labels"] == 3 * cli["items"]
    plan = run_python(result)["plan"]
    assert plan.sizing.items == cli["items"]
    assert plan.budget.person_hours == pytest.approx(cli["budget"]["person_hours"])


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"annotators": "9"}, "annotators"),
        ({"annotators": "2", "per_item": "", "metric": "psa"}, "annotators"),
        ({"prevalence": "0.5,0.6"}, "prevalence"),
        ({"confidence": "2"}, "confidence"),
        ({"replicates": "5"}, "replicates"),
        ({"per_item": "7"}, "per_item"),
        ({"error_rate": "x"}, "error_rate"),
        ({"confusion": "0.98,0.02;0.3"}, "confusion"),
        ({"confusion": "0.9,0.02;0.3,0.7"}, "confusion"),
    ],
)
def test_several_page_refuses_a_bad_value_on_its_field(query: dict[str, str], field: str) -> None:
    assert refused(several.PAGE, {**SEVERAL_QUERY, **query}) == field


# --------------------------------------------------------------------------- pilot

PILOT_QUERY = {"replicates": "300", "seed": "5"}


def pilot_bytes() -> dict[str, bytes]:
    return {"pilot": (EXAMPLES / "pilot.csv").read_bytes()}


@pytest.mark.slow
def test_pilot_page_gives_plan_pilots_numbers(in_tmp: Path) -> None:
    result = computed(pilot.PAGE, PILOT_QUERY, pilot_bytes())
    (in_tmp / "pilot.csv").write_bytes(pilot_bytes()["pilot"])
    cli = run_command(result)
    recommendation = cli["recommendation"]
    assert number(result.headline["items"]) == recommendation["items"]
    assert number(result.headline["plug-in-items"]) == recommendation["plug_in_items"]
    assert number(result.headline["union-positives"]) == round(recommendation["union_positives"])
    assert number(result.headline["person-hours"]) == pytest.approx(
        recommendation["budget"]["person_hours"], abs=0.05
    )
    assert result.document["pilot"]["counts"] == cli["pilot"]["counts"]
    assert result.document["pilot"]["file"] == "pilot.csv"  # never the temporary folder
    plan = run_python(result)["plan"]
    assert plan.items == recommendation["items"]


@pytest.mark.slow
def test_pilot_page_says_what_it_read_from_the_bytes() -> None:
    result = computed(pilot.PAGE, PILOT_QUERY, pilot_bytes())
    read = dict(result.tables[0].rows)
    # examples/pilot.csv is the pilot 6, 21, 14, 459 (both, A only, B only, neither)
    assert read["both, A only, B only, neither"] == "6, 21, 14, 459"
    assert read["items"] == "500"
    # PSA = 2a / (2a + b + c) = 12 / 47
    assert read["psa"].startswith(f"{12 / 47:.3f}")
    assert result.headline["pilot-items"] == "500"


@pytest.mark.parametrize(
    ("query", "upload", "field"),
    [
        ({"pair": "x,y"}, "pilot.csv", "pair"),
        ({"positive": "7"}, "pilot.csv", "positive"),
        ({}, "wide.csv", "positive"),  # labels supported/unsupported: which is positive?
        ({"item_col": "label"}, "pilot.csv", "item_col"),
        ({"width": "2"}, "pilot.csv", "width"),
        ({}, "team.toml", "pilot"),  # not a label file
        ({}, None, "pilot"),  # nothing uploaded
    ],
)
def test_pilot_page_refuses_a_bad_value_on_its_field(
    query: dict[str, str], upload: str | None, field: str
) -> None:
    files = {} if upload is None else {"pilot": (EXAMPLES / upload).read_bytes()}
    assert refused(pilot.PAGE, {**PILOT_QUERY, **query}, files) == field


# --------------------------------------------------------------------------- alt-test

ALT_QUERY = {"replicates": "300", "hourly_rate": "30", "seed": "2"}


@pytest.mark.slow
def test_alt_test_page_gives_alt_test_plans_numbers(in_tmp: Path) -> None:
    result = computed(alt_test.PAGE, ALT_QUERY)
    cli = run_command(result)
    assert cli["command"] == "alt-test-plan"
    assert number(result.headline["items"]) == cli["plan"]["n_items"]
    assert number(result.headline["pass-probability"]) == pytest.approx(
        cli["plan"]["pass_probability"], abs=0.005
    )
    # three humans label every item at 90 s each
    hours = 3 * cli["plan"]["n_items"] * 90 / 3600
    assert number(result.headline["person-hours"]) == pytest.approx(hours, abs=0.05)
    assert number(result.headline["cost"]) == pytest.approx(30 * hours, abs=0.005)
    plan = run_python(result)["plan"]
    assert plan.n_items == cli["plan"]["n_items"]
    assert result.figures[0].png.startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"humans": "1"}, "humans"),
        ({"humans": "3", "human_error": "0.2,0.3"}, "humans"),
        ({"epsilon": "2"}, "epsilon"),
        ({"epsilon": ""}, "epsilon"),
        ({"replicates": "3"}, "replicates"),
        ({"prevalences": "0.5,0.6"}, "prevalences"),
        ({"power": "1.5"}, "power"),
    ],
)
def test_alt_test_page_refuses_a_bad_value_on_its_field(query: dict[str, str], field: str) -> None:
    assert refused(alt_test.PAGE, {**ALT_QUERY, **query}) == field


# --------------------------------------------------------------------------- agree

AGREE_QUERY = {"positive": "unsupported", "seed": "3", "n_boot": "200"}


def labels_bytes() -> dict[str, bytes]:
    return {"labels": (EXAMPLES / "labels.csv").read_bytes()}


@pytest.mark.slow
def test_agree_page_gives_agrees_numbers(in_tmp: Path) -> None:
    result = computed(agree.PAGE, AGREE_QUERY, labels_bytes())
    (in_tmp / "labels.csv").write_bytes(labels_bytes()["labels"])
    cli = run_command(result)
    coefficients = cli["coefficients"]
    assert number(result.headline["items"]) == cli["n_items"]
    assert number(result.headline["kappa"]) == round(coefficients["cohen_kappa"]["estimate"], 3)
    assert number(result.headline["psa"]) == round(coefficients["psa"]["estimate"], 3)
    assert number(result.headline["alpha"]) == round(
        coefficients["krippendorff_alpha"]["estimate"], 3
    )
    assert result.headline["decision"] == cli["decision"]["verdict"]
    assert number(result.headline["contested-items"]) == cli["diagnostics"]["contested_items"]
    assert result.document["coefficients"] == coefficients  # intervals too, same seed
    # the download is the file --contested wrote
    assert result.downloads[0].content == (in_tmp / agree.CONTESTED_FILE).read_bytes()
    report = run_python(result)["report"]
    assert report.coefficients["psa"].estimate == coefficients["psa"]["estimate"]


def test_agree_page_measures_the_uploaded_bytes() -> None:
    result = computed(agree.PAGE, AGREE_QUERY, labels_bytes())
    # examples/labels.csv: both 6, A only 21, B only 14, neither 459 of 500 items
    a, b, c, d = 6, 21, 14, 459
    n = a + b + c + d
    p_o = (a + d) / n
    p_e = ((a + b) * (a + c) + (c + d) * (b + d)) / n**2
    assert number(result.headline["kappa"]) == pytest.approx((p_o - p_e) / (1 - p_e), abs=5e-4)
    assert number(result.headline["psa"]) == pytest.approx(2 * a / (2 * a + b + c), abs=5e-4)
    assert number(result.headline["contested-items"]) == b + c
    header, *rows = result.downloads[0].content.decode().splitlines()
    assert header == "item,ann_a,ann_b" and len(rows) == b + c


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"positive": "zzz"}, "positive"),
        ({"confidence": "2"}, "confidence"),
        ({"n_boot": "3"}, "n_boot"),
        ({"decide_on": "nothing"}, "decide_on"),
        ({"kappa_method": "bad"}, "kappa_method"),
        ({"level": "ordinal", "order": "a,b"}, "order"),
        ({"by": "nope"}, "by"),
    ],
)
def test_agree_page_refuses_a_bad_value_on_its_field(query: dict[str, str], field: str) -> None:
    assert refused(agree.PAGE, {**AGREE_QUERY, **query}, labels_bytes()) == field


def test_agree_page_refuses_an_empty_upload() -> None:
    assert refused(agree.PAGE, AGREE_QUERY, {"labels": b""}) == "labels"


# --------------------------------------------------------------------------- schedule

SCHEDULE_QUERY = {"runs": "30", "deadline": "2027-01-12"}


@pytest.mark.slow
def test_schedule_page_gives_schedules_numbers(in_tmp: Path) -> None:
    result = computed(schedule.PAGE, SCHEDULE_QUERY)
    assert result.toml is not None
    (in_tmp / schedule.SCENARIO_FILE).write_text(result.toml)
    cli = run_command(result)
    assert cli["command"] == "schedule"
    team = cli["team"]
    assert result.headline["finish-p50"] == team["finish"]["p50"]
    assert result.headline["finish-p90"] == team["finish"]["p90"]
    assert number(result.headline["cost"]) == pytest.approx(team["cost_median"], abs=0.005)
    assert number(result.headline["p-deadline"]) == pytest.approx(
        team["p_finish_by_deadline"], abs=0.005
    )
    items = sum(cli["operation"]["items_per_stratum"])
    assert number(result.headline["items"]) == items
    rows = {row[0]: row for row in result.tables[0].rows}
    assert set(rows) == {p["name"] for p in team["annotators"]}
    # two annotators per item, a team of two: each labels every item
    assert all(number(rows[name][2]) == items for name in rows)
    assert result.figures[0].png.startswith(b"\x89PNG")
    space = run_python(result)
    assert space["result"].team.finish_dates == team["finish"]


def test_schedule_page_with_a_team_size_and_fixed_items(in_tmp: Path) -> None:
    query = {
        "runs": "30",
        "people": "",
        "start": "",
        "items": "2000",
        "hourly_rate": "30",
        "team_size": "4",
        "hours_per_day": "6",
    }
    result = computed(schedule.PAGE, query)
    assert result.toml is not None and "[[team.annotator]]" not in result.toml
    (in_tmp / schedule.SCENARIO_FILE).write_text(result.toml)
    cli = run_command(result)
    assert number(result.headline["items"]) == 2000 == sum(cli["operation"]["items_per_stratum"])
    assert number(result.headline["person-hours"]) == pytest.approx(
        cli["person_hours_median"], abs=0.05
    )
    assert result.headline["finish-p50"] == f"{cli['calendar_days_median']:.1f} days"
    # 2,000 items x 2 labels x 90 s = 100 person-hours of labelling, by 4 people at 6 h a day
    assert cli["analytic_person_hours"] == pytest.approx(2000 * 2 * 90 / 3600)
    assert (cli["operation"]["annotators"], cli["operation"]["hours_per_day"]) == (4, 6)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"people": "", "team_size": "0"}, "team_size"),
        ({"team_size": "3"}, "team_size"),  # and the people table: two teams
        ({"people": "name,hours_per_day\nx,30\n"}, "people"),
        ({"people": "name,hours_per_day\nx,many\n"}, "people"),
        ({"deadline": "tomorrow"}, "deadline"),
        ({"items": "-3"}, "items"),
        ({"prevalence": "2"}, "prevalence"),
        ({"start": "2027-13-01"}, "start"),
    ],
)
def test_schedule_page_refuses_a_bad_value_on_its_field(query: dict[str, str], field: str) -> None:
    assert refused(schedule.PAGE, {**SCHEDULE_QUERY, **query}) == field


def test_the_documentation_lists_every_url_key_of_every_page() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "app-pages.md").read_text()
    for page in (designs.PAGE, several.PAGE, pilot.PAGE, alt_test.PAGE, agree.PAGE, schedule.PAGE):
        section = text.split(f"URL: `/{page.slug}`")[1].split("\n## ")[0]
        keys = {f.name for f in page.fields if f.kind != "file"}
        missing = [k for k in sorted(keys) if f"`{k}`" not in section]
        assert missing == [], (page.slug, missing)


def test_the_documented_alt_test_command_is_the_pages() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "app-pages.md").read_text()
    result = computed(alt_test.PAGE, {"replicates": "300", "seed": "2"})
    assert f"$ {result.command}\n" in text
    assert result.headline["items"] == "35"  # the documented number, which the block prints


@pytest.mark.slow
def test_agree_page_reads_parquet_bytes_as_the_csv_they_hold() -> None:
    # examples/wide.parquet is examples/wide.csv as Parquet: 600 items, three annotators
    query = {"positive": "unsupported", "seed": "3", "n_boot": "200"}
    as_csv = computed(agree.PAGE, query, {"labels": (EXAMPLES / "wide.csv").read_bytes()})
    parquet = {"labels": (EXAMPLES / "wide.parquet").read_bytes()}
    as_parquet = computed(agree.PAGE, {**query, "file_format": "parquet"}, parquet)
    assert as_parquet.headline == as_csv.headline
    assert as_parquet.headline["items"] == "600"
    assert "labels.parquet" in as_parquet.command


def test_several_page_with_a_confusion_matrix_gives_plans_numbers(in_tmp: Path) -> None:
    query = {"confusion": "0.98,0.02;0.3,0.7", "replicates": "300"}
    result = computed(several.PAGE, query)
    cli = run_command(result)
    assert number(result.headline["items"]) == cli["items"]
    # the model is the matrix given, for each of the three annotators
    assert cli["model"]["confusion"] == [[[0.98, 0.02], [0.3, 0.7]]] * 3


@pytest.mark.slow
def test_agree_page_by_a_column_gives_agrees_groups(in_tmp: Path) -> None:
    query = {"positive": "unsupported", "seed": "3", "n_boot": "200", "by": "week"}
    labels = (EXAMPLES / "wide.csv").read_bytes()
    result = computed(agree.PAGE, query, {"labels": labels})
    (in_tmp / "labels.csv").write_bytes(labels)
    cli = run_command(result)
    groups = {row[0]: row for row in result.tables[2].rows}
    assert set(groups) == {g["group"] for g in cli["diagnostics"]["by"]["groups"]}
    # examples/wide.csv: 600 items over six weeks of 100
    assert all(row[1] == "100" for row in groups.values())


@pytest.mark.slow
def test_pilot_page_with_three_annotators_plans_the_study_of_them_all(in_tmp: Path) -> None:
    labels = (EXAMPLES / "wide.csv").read_bytes()  # alice, bob and carol
    query = {**PILOT_QUERY, "positive": "unsupported"}
    result = computed(pilot.PAGE, query, {"pilot": labels})
    (in_tmp / "pilot.csv").write_bytes(labels)
    cli = run_command(result)
    assert cli["command"] == "plan-raters" and "--annotators 3" in result.command
    assert number(result.headline["items"]) == cli["recommendation"]["items"]
    assert number(result.headline["plug-in-items"]) == cli["sizing"]["items"]
    assert number(result.headline["person-hours"]) == pytest.approx(
        cli["recommendation"]["budget"]["person_hours"], abs=0.05
    )
    assert result.headline["union-positives"] == shared.ABSENT  # a pair's count
    assert cli["pilot"]["annotators"] == ["alice", "bob", "carol"]
    read = dict(result.tables[0].rows)
    # examples/wide.csv: 600 items labelled by alice, bob and carol
    assert read["annotators"] == "alice, bob, carol" and read["items"] == "600"
    assert read["labels"] == "supported, unsupported"
    plan = run_python(result)["plan"]
    assert plan.items == cli["recommendation"]["items"]


@pytest.mark.slow
def test_pilot_page_with_three_annotators_offers_the_several_metrics(in_tmp: Path) -> None:
    labels = (EXAMPLES / "wide.csv").read_bytes()
    query = {**PILOT_QUERY, "positive": "unsupported", "metric": "fleiss"}
    result = computed(pilot.PAGE, query, {"pilot": labels})
    (in_tmp / "pilot.csv").write_bytes(labels)
    cli = run_command(result)
    assert cli["sizing"]["metric"] == "fleiss"
    assert number(result.headline["items"]) == cli["recommendation"]["items"]
    plan = run_python(result)["plan"]  # the library call the page shows
    assert (plan.sizing.metric, plan.items) == ("fleiss", cli["recommendation"]["items"])


@pytest.mark.slow
def test_pilot_page_with_three_annotators_and_a_pair_plans_the_pair(in_tmp: Path) -> None:
    labels = (EXAMPLES / "wide.csv").read_bytes()
    query = {**PILOT_QUERY, "positive": "unsupported", "pair": "alice,bob"}
    result = computed(pilot.PAGE, query, {"pilot": labels})
    (in_tmp / "pilot.csv").write_bytes(labels)
    cli = run_command(result)
    assert cli["pilot"]["pair"] == ["alice", "bob"]
    assert number(result.headline["items"]) == cli["recommendation"]["items"]


@pytest.mark.parametrize(
    ("query", "upload", "field"),
    [
        ({"metric": "both"}, "wide.csv", "metric"),
        ({}, "wide.csv", "positive"),  # unsupported/supported: which is positive?
        ({"metric": "fleiss"}, "pilot.csv", "pilot"),  # two annotators
    ],
)
def test_pilot_page_refuses_a_bad_several_annotator_pilot_on_its_field(
    query: dict[str, str], upload: str, field: str
) -> None:
    files = {"pilot": (EXAMPLES / upload).read_bytes()}
    positive = {"positive": "unsupported"} if "metric" in query and upload == "wide.csv" else {}
    assert refused(pilot.PAGE, {**PILOT_QUERY, **positive, **query}, files) == field


@pytest.mark.slow
def test_schedule_page_adds_and_drops_people_as_the_command_does(in_tmp: Path) -> None:
    # ana leaves from Monday 11 January and cy (80 s a label, 6 h a day) joins: the page's
    # command (--add, --without) and its Python give the page's numbers, cy labels items and
    # ana's last working day is before the 11th
    query = {
        **SCHEDULE_QUERY,
        "items": "1440",
        "add": "cy,seconds_per_item=80,hours_per_day=6,hourly_rate=35",
        "without": "ana@2027-01-11",
    }
    result = computed(schedule.PAGE, query)
    assert "--add cy,seconds_per_item=80" in result.command
    assert "--without ana@2027-01-11" in result.command
    (in_tmp / schedule.SCENARIO_FILE).write_text(result.toml)
    cli = run_command(result)
    names = {p["name"]: p for p in cli["team"]["annotators"]}
    assert set(names) == {"ana", "bo", "cy"}
    assert names["cy"]["items"] > 0
    rows = {row[0]: row for row in result.tables[0].rows}
    assert set(rows) == set(names)
    assert result.headline["finish-p50"] == cli["team"]["finish"]["p50"]
    space = run_python(result)
    assert space["result"].team.finish_dates == cli["team"]["finish"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"without": "zed"}, "without"),
        ({"without": "ana@someday"}, "without"),
        ({"add": "bo,seconds_per_item=60"}, "add"),
        ({"add": "cy,seconds_per_item=fast"}, "add"),
    ],
)
def test_schedule_page_refuses_a_bad_change_of_people_on_its_field(
    query: dict[str, str], field: str
) -> None:
    assert refused(schedule.PAGE, {**SCHEDULE_QUERY, **query}) == field


@pytest.mark.slow
def test_pilot_pages_scenario_file_beside_the_upload_gives_its_numbers(in_tmp: Path) -> None:
    query = {**PILOT_QUERY, "layout": "long", "item_col": "item"}
    result = computed(pilot.PAGE, query, pilot_bytes())
    assert result.toml is not None and 'pilot_layout = "long"' in result.toml
    (in_tmp / "pilot.csv").write_bytes(pilot_bytes()["pilot"])
    (in_tmp / "pilot.toml").write_text(result.toml)
    out = CliRunner().invoke(app, ["plan", "pilot.toml", "--json"])
    assert out.exit_code == 0, out.stderr or out.stdout
    cli = json.loads(out.stdout)
    assert number(result.headline["items"]) == cli["recommendation"]["items"]
    assert tomllib.loads(result.toml)["simulation"] == {"replicates": 300, "seed": 5}


@pytest.mark.slow
@pytest.mark.parametrize("metric", [None, "fleiss"])
def test_a_several_annotator_pilots_scenario_file_beside_the_upload_gives_its_numbers(
    in_tmp: Path, metric: str | None
) -> None:
    labels = (EXAMPLES / "wide.csv").read_bytes()  # alice, bob and carol
    query = {**PILOT_QUERY, "positive": "unsupported", **({"metric": metric} if metric else {})}
    result = computed(pilot.PAGE, query, {"pilot": labels})
    assert result.toml is not None and result.reportable
    scenario = tomllib.loads(result.toml)
    assert scenario["annotators"]["pilot_file"] == "pilot.csv"
    assert scenario["annotators"]["count"] == 3 and "model" not in scenario
    (in_tmp / "pilot.csv").write_bytes(labels)
    (in_tmp / "pilot.toml").write_text(result.toml)
    out = CliRunner().invoke(app, ["plan", "pilot.toml", "--json"])
    assert out.exit_code == 0, out.stderr or out.stdout
    cli = json.loads(out.stdout)
    assert cli["command"] == "plan-raters" and cli["sizing"]["metric"] == (metric or "psa")
    assert scenario["annotators"]["metric"] == cli["sizing"]["metric"]
    assert number(result.headline["items"]) == cli["recommendation"]["items"]
    assert number(result.headline["plug-in-items"]) == cli["sizing"]["items"]
