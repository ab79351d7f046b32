"""The alternative annotator test on labels: the authors' published results, the statistics
against scipy and statsmodels, an item-by-item re-implementation, properties and bad input."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.reader_settings import ReaderSettings
from planner.data.reading import ratings_from_long
from planner.errors import InvalidInput
from planner.measuring.alt_test import alt_test
from planner.statistics.alt_test_stats import (
    by_rejections,
    by_thresholds,
    t_test_less,
    wilcoxon_less,
)

runner = CliRunner()

# --- the authors' data -------------------------------------------------------------------
# nitaytech/AltTest at commit 18428b1: the labels of its nine datasets (only item, annotator,
# role and label) are shipped in tests/data/alt_test/*.csv.gz, rebuilt by make_data.py there
# from a local copy of that repository; a copy named by PLANNER_ALTTEST_REPO is read instead.
ALTTEST_COMMIT = "18428b1"
_REPO_CANDIDATES = [
    os.environ.get("PLANNER_ALTTEST_REPO", ""),
    "/work/.mirror/nitaytech+AltTest/repo",
]

# Published: the stored output of the notebook's "Example (paper's data)" cell
# (alt_test_example.ipynb at 18428b1): dataset -> (scoring, epsilon, {llm: (omega, rho)}).
PUBLISHED = {
    "wax": ("accuracy", 0.1, {"gemini_flash": (0.38, 0.69), "gemini_pro": (0.50, 0.74),
            "gpt-4o": (0.50, 0.73), "llama-31": (0.00, 0.57), "gpt-4o-mini": (0.00, 0.59),
            "mistral-v03": (0.00, 0.50)}),
    "lgbteen": ("accuracy", 0.2, {"gemini_flash": (0.25, 0.71), "gemini_pro": (0.00, 0.67),
                "gpt-4o": (0.75, 0.77), "llama-31": (0.00, 0.72), "gpt-4o-mini": (0.75, 0.76),
                "mistral-v03": (0.25, 0.75)}),
    "mtbench": ("accuracy", 0.2, {"gemini_flash": (0.00, 0.72), "gemini_pro": (0.00, 0.76),
                "gpt-4o": (0.00, 0.77), "llama-31": (0.00, 0.69), "gpt-4o-mini": (0.00, 0.74),
                "mistral-v03": (0.00, 0.68)}),
    "framing": ("accuracy", 0.15, {"gemini_flash": (1.00, 0.83), "gemini_pro": (1.00, 0.91),
                "gpt-4o": (1.00, 0.92), "llama-31": (0.50, 0.80), "gpt-4o-mini": (1.00, 0.87),
                "mistral-v03": (0.25, 0.80)}),
    "cebab_aspects": ("accuracy", 0.1, {"gemini_flash": (0.70, 0.91),
                      "gemini_pro": (0.90, 0.94), "gpt-4o": (0.90, 0.93),
                      "llama-31": (0.60, 0.89), "gpt-4o-mini": (0.50, 0.90),
                      "mistral-v03": (0.10, 0.81)}),
    "summeval": ("neg-rmse", 0.2, {"gemini_flash": (0.00, 0.46), "gemini_pro": (0.00, 0.44),
                 "gpt-4o": (0.00, 0.48), "llama-31": (0.00, 0.58), "gpt-4o-mini": (0.00, 0.54),
                 "mistral-v03": (0.00, 0.62)}),
    "10k_prompts": ("neg-rmse", 0.15, {"gemini_flash": (0.31, 0.67), "gemini_pro": (0.08, 0.63),
                    "gpt-4o": (0.69, 0.76), "llama-31": (0.15, 0.67),
                    "gpt-4o-mini": (0.92, 0.80), "mistral-v03": (0.15, 0.67)}),
    "cebab_stars": ("neg-rmse", 0.1, {"gemini_flash": (0.60, 0.82), "gemini_pro": (0.80, 0.87),
                    "gpt-4o": (0.90, 0.90), "llama-31": (0.60, 0.85),
                    "gpt-4o-mini": (0.90, 0.89), "mistral-v03": (0.50, 0.83)}),
    "lesion": ("neg-rmse", 0.15, {"gemini_flash": (0.17, 0.71), "gemini_pro": (1.00, 0.81),
               "gpt-4o": (0.00, 0.62), "gpt-4o-mini": (0.67, 0.73)}),
}  # fmt: skip


def _authors_file(dataset: str, name: str) -> dict | None:
    """A JSON file of the authors' repository: a checkout or a git directory, or None."""
    for root in filter(None, _REPO_CANDIDATES):
        path = Path(root)
        if (path / "data" / dataset / name).is_file():
            return json.loads((path / "data" / dataset / name).read_text())
        if (path / "objects").is_dir():
            out = subprocess.run(
                ["git", f"--git-dir={path}", "show", f"{ALTTEST_COMMIT}:data/{dataset}/{name}"],
                capture_output=True,
                check=False,
            )
            if out.returncode == 0:
                return json.loads(out.stdout)
    return None


SHIPPED = Path(__file__).parent / "data" / "alt_test"


def _authors_ratings(dataset: str):
    shipped = SHIPPED / f"{dataset}.csv.gz"
    if shipped.is_file() and not os.environ.get("PLANNER_ALTTEST_REPO"):
        frame = pd.read_csv(shipped)
        llms = list(dict.fromkeys(frame.loc[frame["role"] == "llm", "annotator"]))
        return ratings_from_long(frame.drop(columns="role"), source=dataset), llms
    humans = _authors_file(dataset, "human_annotations.json")
    llms = _authors_file(dataset, "llm_annotations.json")
    if humans is None or llms is None:
        pytest.skip("the authors' data (nitaytech/AltTest) are not available here")
    rows = [(i, a, v) for a, d in humans.items() for i, v in d.items()]
    rows += [(i, a, v) for a, d in llms.items() for i, v in d.items()]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    return ratings_from_long(frame, source=dataset), list(llms)


@pytest.mark.parametrize("dataset", list(PUBLISHED))
def test_authors_published_omega_and_rho(dataset):
    ratings, llms = _authors_ratings(dataset)
    scoring, epsilon, published = PUBLISHED[dataset]
    result = alt_test(ratings, llms, scoring=scoring, epsilon=epsilon)
    got = {v.llm: (round(v.omega, 2), round(v.rho, 2)) for v in result.llms}
    assert got == published
    rhos = [v.rho for v in result.llms]
    assert rhos == sorted(rhos, reverse=True)  # ranked by rho


# --- the statistics -------------------------------------------------------------------------


def test_by_thresholds_for_three_humans():
    # METHODS.md 5: q = 0.05, m = 3, H_3 = 11/6
    assert np.allclose(by_thresholds(3, 0.05), [0.00909, 0.01818, 0.02727], atol=5e-6)


@settings(max_examples=60)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=12),
    st.sampled_from([0.01, 0.05, 0.2]),
)
def test_by_rejections_match_statsmodels(p_values, q):
    from statsmodels.stats.multitest import multipletests

    expected = multipletests(p_values, alpha=q, method="fdr_by")[0]
    assert by_rejections(p_values, q).tolist() == expected.tolist()


@settings(max_examples=60)
@given(
    st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40)).filter(
        lambda c: sum(c) >= 3 and sum(x > 0 for x in c) >= 2
    ),
    st.sampled_from([0.0, 0.1, 0.15, 0.2, 0.5]),
)
def test_tests_from_counts_match_scipy_on_the_items(counts, epsilon):
    d = np.repeat([-1.0, 0.0, 1.0], counts)
    t, p = t_test_less(counts, epsilon)
    ref = scipy.stats.ttest_1samp(d, epsilon, alternative="less")
    assert np.isclose(t, ref.statistic) and np.isclose(p, ref.pvalue)
    if np.count_nonzero(d - epsilon) >= 1:
        w, pw = wilcoxon_less(counts, epsilon)
        ref = scipy.stats.wilcoxon(d - epsilon, alternative="less", method="approx")
        assert np.isclose(w, ref.statistic) and np.isclose(pw, ref.pvalue)


def test_constant_differences_give_p_zero_below_epsilon_and_one_otherwise():
    # scipy returns NaN here (the t statistic is infinite); the documented choice
    stat, p = t_test_less([[0, 40, 0], [0, 0, 40]], 0.1)
    assert stat.tolist() == [-np.inf, np.inf] and p.tolist() == [0.0, 1.0]


# --- an item-by-item re-implementation of the authors' procedure ----------------------------


def _loop_alt_test(labels, llm, epsilon, q=0.05, min_items=30):
    """The notebook's ``alt_test``, item by item, on a dict ``human -> {item: label}``."""
    h_set: dict = {}
    for h, anns in labels.items():
        for i in anns:
            h_set.setdefault(i, []).append(h)
    keep = {i for i in h_set if len(h_set[i]) >= 2 and i in llm}
    p_values, rhos = [], []
    for h, anns in labels.items():
        items = [i for i in anns if i in keep]
        if len(items) < min_items:
            continue
        d, w_f = [], []
        for i in items:
            others = [labels[o][i] for o in h_set[i] if o != h]
            s_h = np.mean([anns[i] == o for o in others])
            s_f = np.mean([llm[i] == o for o in others])
            w_f.append(s_f >= s_h)
            d.append(int(s_h >= s_f) - int(s_f >= s_h))
        p_values.append(scipy.stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
        rhos.append(np.mean(w_f))
    rejected = by_rejections(p_values, q)
    return rejected.mean(), np.mean(rhos)


def _random_labels(seed, n_items=80, n_humans=4, k=3, missing=0.25):
    rng = np.random.default_rng(seed)
    truth = rng.integers(k, size=n_items)
    rows = []
    for a in [f"h{j}" for j in range(n_humans)] + ["llm"]:
        noisy = np.where(rng.random(n_items) < 0.35, rng.integers(k, size=n_items), truth)
        for i in range(n_items):
            if a == "llm" or rng.random() >= missing:
                rows.append((f"i{i}", a, f"c{noisy[i]}"))
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_vectorised_equals_the_authors_loop(seed):
    frame = _random_labels(seed)
    labels = {
        a: dict(zip(g["item"], g["label"], strict=True))
        for a, g in frame[frame.annotator != "llm"].groupby("annotator")
    }
    llm = dict(frame[frame.annotator == "llm"][["item", "label"]].itertuples(index=False))
    omega, rho = _loop_alt_test(labels, llm, 0.1)
    result = alt_test(ratings_from_long(frame), ["llm"], epsilon=0.1).llms[0]
    assert np.isclose(result.omega, omega) and np.isclose(result.rho, rho)


# --- properties ---------------------------------------------------------------------------


@settings(max_examples=15)
@given(st.integers(0, 10_000), st.permutations(["c0", "c1", "c2"]))
def test_relabelling_categories_leaves_omega_and_rho_unchanged(seed, names):
    frame = _random_labels(seed, n_items=40)
    renamed = frame.assign(label=frame.label.map(dict(zip(["c0", "c1", "c2"], names, strict=True))))
    # min_items 10: every human is tested (t-test from 30 items, Wilcoxon below)
    first = alt_test(ratings_from_long(frame), ["llm"], epsilon=0.15, min_items=10).llms[0]
    second = alt_test(ratings_from_long(renamed), ["llm"], epsilon=0.15, min_items=10).llms[0]
    assert (first.omega, first.rho) == (second.omega, second.rho)


def test_an_llm_identical_to_one_human_ties_that_human_on_every_item():
    frame = _random_labels(7)
    copy = frame[frame.annotator == "h0"].assign(annotator="llm")
    frame = pd.concat([frame[frame.annotator != "llm"], copy])
    full = alt_test(ratings_from_long(frame), ["llm"], epsilon=0.1)
    (test,) = [t for t in full.llms[0].tests if t.human == "h0"]
    assert test.rho_llm == test.rho_human == 1.0
    assert test.p_value == 0.0 and test.rejected  # d = 0 < epsilon on every item
    assert any("the same d on every item" in n for n in full.notes)


def test_domains_control_the_fdr_over_every_domain_and_human():
    frame = _random_labels(4, n_items=120, missing=0.0)
    frame["domain"] = frame["item"].map(lambda i: "a" if int(i[1:]) % 2 else "b")
    result = alt_test(
        ratings_from_long(frame, ReaderSettings(by=("domain",))), ["llm"], epsilon=0.2, by="domain"
    )
    v = result.llms[0]
    assert len(v.tests) == 8 and [d.domain for d in v.domains] == ["a", "b"]
    expected = by_rejections([t.p_value for t in v.tests], 0.05)
    assert [t.rejected for t in v.tests] == expected.tolist()
    assert v.domains_passed == sum(d.omega >= 0.5 for d in v.domains)


def test_wilcoxon_below_thirty_items_when_min_items_allows():
    frame = _random_labels(5, n_items=25, missing=0.0)
    result = alt_test(ratings_from_long(frame), ["llm"], epsilon=0.1, min_items=10)
    assert {t.test for t in result.llms[0].tests} == {"wilcoxon"}
    assert any("Wilcoxon signed-rank test" in n for n in result.notes)


# --- bad input ------------------------------------------------------------------------------


def test_an_llm_not_in_the_file_lists_the_annotators():
    with pytest.raises(InvalidInput, match=r"'gpt' is not an annotator .*annotators: h0, h1"):
        alt_test(ratings_from_long(_random_labels(1)), ["gpt"], epsilon=0.1)


def test_fewer_than_two_humans():
    frame = _random_labels(1, n_humans=2)
    with pytest.raises(
        InvalidInput, match="two or more human annotators besides the LLMs, found 1"
    ):
        alt_test(ratings_from_long(frame), ["llm", "h1"], epsilon=0.1)


def test_no_human_with_enough_items():
    # the reference code divides by zero here (no human tested)
    with pytest.raises(InvalidInput, match="no human annotator has 30 or more items"):
        alt_test(ratings_from_long(_random_labels(1, n_items=20)), ["llm"], epsilon=0.1)


def test_neg_rmse_needs_numbers():
    with pytest.raises(InvalidInput, match="scoring 'neg-rmse' needs numeric labels, found 'c"):
        alt_test(ratings_from_long(_random_labels(1)), ["llm"], scoring="neg-rmse", epsilon=0.1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": 1.0}, "epsilon must be a number in [0, 1), got 1"),
        ({"epsilon": 0.1, "q": 0.0}, "q must be a number in (0, 1), got 0"),
        ({"epsilon": 0.1, "min_items": 1}, "min_items must be a whole number in [2,"),
        ({"epsilon": 0.1, "scoring": "f1"}, "scoring must be one of accuracy, neg-rmse; got 'f1'"),
    ],
)
def test_arguments_are_checked(kwargs, message):
    with pytest.raises(InvalidInput) as caught:
        alt_test(ratings_from_long(_random_labels(1)), ["llm"], **kwargs)
    assert str(caught.value).startswith(message)


# --- the command ----------------------------------------------------------------------------


@pytest.fixture
def labels_csv(tmp_path):
    path = tmp_path / "labels.csv"
    _random_labels(2).to_csv(path, index=False)
    return path


def test_cli_json(labels_csv):
    result = runner.invoke(
        app, ["alt-test", str(labels_csv), "--llm", "llm", "--epsilon", "0.1", "--json"]
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["schema_version"] == "2" and doc["command"] == "alt-test"
    (llm,) = doc["llms"]
    assert llm["llm"] == "llm" and len(llm["tests"]) == 4 and llm["rank"] == 1
    assert llm["passes"] == (llm["omega"] >= 0.5)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--llm", "gpt", "--epsilon", "0.1"], "is not an annotator in"),
        (["--llm", "llm"], "give --epsilon"),
        (["--llm", "llm", "--epsilon", "0.1", "--min-items", "1"], "--min-items must be"),
        (["--llm", "llm", "--epsilon", "0.1", "--scoring", "neg-rmse"], "--scoring 'neg-rmse'"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(labels_csv, args, message):
    result = runner.invoke(app, ["alt-test", str(labels_csv), *args])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_one_llm_name_may_be_a_string():
    ratings = ratings_from_long(_random_labels(3))
    assert alt_test(ratings, "llm", epsilon=0.1) == alt_test(ratings, ["llm"], epsilon=0.1)


def test_cli_without_a_file_or_plan():
    result = runner.invoke(app, ["alt-test", "--llm", "x", "--epsilon", "0.1"])
    assert result.exit_code == 2 and "give a label FILE (or --plan" in result.stderr


def test_neg_rmse_sparse_sums_equal_the_direct_scores():
    # rating_differences uses per-item sums; alignment_differences scores each item directly
    from planner.measuring.alt_test import rating_differences
    from planner.statistics.alt_test_stats import alignment_differences

    frame = _random_labels(9, n_items=60, k=5).assign(
        label=lambda f: f.label.str[1:].astype(int) + 1
    )
    ratings = ratings_from_long(frame)
    humans = np.array([a != "llm" for a in ratings.annotators])
    f = ratings.annotators.index("llm")
    values = ratings.categories.astype(float)
    row, ann, d, s_f, s_h = rating_differences(ratings, humans, f, values)
    codes = ratings.codes
    human_cols = np.flatnonzero(humans)
    for col, j in enumerate(human_cols):
        d_ref, f_ref, h_ref = alignment_differences(codes[:, human_cols], codes[:, f], col, values)
        assert d[ann == j].tolist() == d_ref.tolist()
        assert np.allclose(s_f[ann == j], f_ref) and np.allclose(s_h[ann == j], h_ref)


def test_equally_distant_decimal_labels_are_a_tie():
    # |2.2 - 3.3| and |4.4 - 3.3| differ in binary floating point; the test counts a tie
    from planner.measuring.alt_test import rating_differences

    frame = pd.DataFrame(
        [("i", "a", 2.2), ("i", "b", 3.3), ("i", "llm", 4.4)],
        columns=["item", "annotator", "label"],
    )
    ratings = ratings_from_long(frame)
    humans = np.array([True, True, False])
    _, ann, d, _, _ = rating_differences(ratings, humans, 2, ratings.categories.astype(float))
    assert d[ann == 0].tolist() == [0]


@pytest.mark.slow
def test_a_crowd_runs_without_a_dense_items_x_annotators_matrix():
    # regression: the first version built the dense codes matrix, refused above 5e7 cells
    rng = np.random.default_rng(0)
    n_items, crowd = 30_000, 20_000
    item = np.repeat(np.arange(n_items), 4)
    who = np.concatenate(
        [
            np.stack([rng.choice(crowd, 3, replace=False) for _ in range(n_items)]),
            np.full((n_items, 1), crowd),
        ],
        axis=1,
    ).ravel()
    label = rng.integers(2, size=item.size)
    names = np.array([f"w{j}" for j in range(crowd)] + ["llm"])
    frame = pd.DataFrame({"item": item, "annotator": names[who], "label": label})
    ratings = ratings_from_long(frame)
    assert ratings.n_rows * ratings.n_annotators > 5 * 10**7
    result = alt_test(ratings, ["llm"], epsilon=0.1, min_items=5).llms[0]
    assert len(result.tests) > 1000 and 0 <= result.omega <= 1
