"""How to read a label file: :class:`ReaderSettings`, the one settings object of the readers.

:func:`planner.data.reading.read_labels`, :func:`~planner.data.reading.ratings_from_long`,
:func:`~planner.data.reading.ratings_from_wide` and the DuckDB and Spark engines
(:func:`planner.data.engine_duckdb.read_with_engine`) all take one
:class:`ReaderSettings`; its fields hold the one default of each reader option.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.validation import check_choice, check_text, check_texts

LAYOUTS = ("auto", "long", "wide")
REPEATS = ("keep", "refuse")


@dataclass(frozen=True)
class ReaderSettings:
    """The options of reading a label file (long or wide) into Ratings.

    Every field is checked by type when the settings are made, in its own name; lists
    are kept as tuples (``annotator_cols=["a", "b"]`` is ``("a", "b")``).

    Attributes
    ----------
    layout
        ``"long"``, ``"wide"`` or ``"auto"``: long when the item, annotator and label
        columns are all present; wide when no column looks like an item, annotator or
        label column (by name) and the annotator columns share their labels (with
        ``annotator_cols`` given, wide); otherwise refused with the options to set.
    item_col
        The item ids' column (long layout; the ids of a wide file too, when present).
        ``None`` (wide DataFrames only): no item column, items are the rows.
    annotator_col, label_col
        The annotator and label columns of the long layout.
    annotator_cols
        Wide layout: the annotator columns (default ``None``: every column but the item
        and grouping columns).
    by
        Grouping columns kept per item (first value of each item).
    order
        Category order for ordinal string labels, lowest first (``None``: no order).
    file_format
        ``"csv"``, ``"tsv"``, ``"parquet"`` or ``"jsonl"``; ``None``: from the suffix.
    missing
        Label strings that mean "no rating" (only empty cells and nulls otherwise).
    repeats
        An item rated more than once by one annotator: ``"refuse"`` (different labels are
        an error, identical ones count once) or ``"keep"`` (every rating kept, for
        :func:`planner.statistics.dawid_skene.fit_latent_classes`).

    Examples
    --------
    >>> ReaderSettings(layout="wide", annotator_cols=["a", "b"]).annotator_cols
    ('a', 'b')
    """

    layout: str = "auto"
    item_col: str | None = "item"
    annotator_col: str = "annotator"
    label_col: str = "label"
    annotator_cols: tuple[str, ...] | None = None
    by: tuple[str, ...] = ()
    order: tuple[str, ...] | None = None
    file_format: str | None = None
    missing: tuple[str, ...] = ()
    repeats: str = "refuse"

    def __post_init__(self) -> None:
        check_choice("layout", self.layout, LAYOUTS)
        check_choice("repeats", self.repeats, REPEATS)
        check_text("item_col", self.item_col, optional=True)
        for name in ("annotator_col", "label_col"):
            check_text(name, getattr(self, name))
        check_text("file_format", self.file_format, optional=True)
        tuples = {
            "annotator_cols": check_texts("annotator_cols", self.annotator_cols, optional=True),
            "by": check_texts("by", self.by) or (),
            "order": check_texts("order", self.order, optional=True),
            "missing": check_texts("missing", self.missing) or (),
        }
        for name, value in tuples.items():
            object.__setattr__(self, name, value)

    @property
    def annotator_list(self) -> list[str] | None:
        """:attr:`annotator_cols` as a list (``None`` when not given)."""
        return None if self.annotator_cols is None else list(self.annotator_cols)

    @property
    def order_list(self) -> list[str] | None:
        """:attr:`order` as a list (``None`` when not given)."""
        return None if self.order is None else list(self.order)
