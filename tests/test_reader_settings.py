"""ReaderSettings and LatentClassSettings: the one settings object of the readers and the
latent-class fit, checked when made."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from planner import LatentClassSettings, ReaderSettings, fit_latent_classes, read_labels
from planner.data.reading import ratings_from_long, ratings_from_wide
from planner.errors import InvalidInput


@pytest.mark.parametrize(
    ("field", "value"),
    [("layout", "tall"), ("repeats", "sometimes"), ("label_col", 3), ("by", "week"),
     ("missing", [1]), ("annotator_cols", "ab")],
)  # fmt: skip
def test_reader_settings_refuse_a_bad_field_in_its_name(field, value):
    with pytest.raises(InvalidInput) as info:
        ReaderSettings(**{field: value})
    assert info.value.parameter == field


def test_reader_settings_keep_lists_as_tuples():
    settings = ReaderSettings(annotator_cols=["a", "b"], order=["lo", "hi"], missing=["NA"])
    assert (settings.annotator_cols, settings.order, settings.missing) == (
        ("a", "b"), ("lo", "hi"), ("NA",),
    )  # fmt: skip


def test_a_long_file_read_with_settings_equals_its_frame(tmp_path):
    frame = pd.DataFrame(
        {"case": [1, 1, 2, 2, 3, 3], "who": ["x", "y"] * 3, "says": list("abbbaa")}
    )
    frame.to_csv(path := tmp_path / "long.csv", index=False)
    settings = ReaderSettings(item_col="case", annotator_col="who", label_col="says")
    from_file = read_labels(path, settings)
    from_frame = ratings_from_long(frame, settings)
    np.testing.assert_array_equal(from_file.codes, from_frame.codes)
    assert from_file.annotators == ("x", "y")
    # the same ratings laid out wide: one column per annotator
    wide = frame.pivot(index="case", columns="who", values="says").reset_index()
    from_wide = ratings_from_wide(wide, ReaderSettings(item_col="case"))
    np.testing.assert_array_equal(from_wide.codes, from_frame.codes)


def test_readers_refuse_options_that_are_not_settings(tmp_path):
    with pytest.raises(InvalidInput, match="settings must be ReaderSettings"):
        ratings_from_long(pd.DataFrame(), {"layout": "long"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value"),
    [("n_boot", 50), ("confidence_level", 1.0), ("max_iter", 0), ("tolerance", 0.5)],
)
def test_latent_class_settings_refuse_a_value_out_of_range(field, value):
    with pytest.raises(InvalidInput) as info:
        LatentClassSettings(**{field: value})
    assert info.value.parameter == field


def test_fit_names_count_input_from_its_settings():
    counts = np.zeros((4, 3, 2), dtype=int)
    counts[:2, :2, 1] = 1
    counts[2:, :2, 0] = 1
    counts[:, 2, 0] = 1
    names = LatentClassSettings(n_boot=0, annotators=["p", "q", "r"], categories=["n", "y"])
    fit = fit_latent_classes(counts, names)
    assert fit.annotators == ("p", "q", "r") and tuple(fit.categories) == ("n", "y")
    # the same data as the docstring example: prevalence 0.5 each, annotator r always "n"
    np.testing.assert_allclose(fit.prevalence, [0.5, 0.5], atol=1e-6)
    np.testing.assert_allclose(fit.confusion[2, 1], [1.0, 0.0], atol=1e-6)
