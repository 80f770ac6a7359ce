"""The one text cleaner (fsmarena.text) and the one CSV writer (fsmarena.csvfile).

Oracles: Unicode's own category table (unicodedata) for what may never come out, Python's csv
reader for what a spreadsheet would read back, and matplotlib itself (every cleaned text must
render to PNG, PDF and SVG).
"""

from __future__ import annotations

import csv
import io
import unicodedata

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsmarena.csvfile import FORMULA_STARTS, cell_text, csv_text, write_csv
from fsmarena.text import FORBIDDEN_CATEGORIES, MAX_LABEL_CHARS, MAX_TITLE_CHARS, clean_label, clean_text, clean_title

#: texts that broke a terminal, a table or a figure before they were cleaned
HOSTILE = [
    "\x1b[31mred\x1b[0m",
    "\ud800",
    "a\nb\rc",
    "a\u200bb\ufeff",  # zero-width space, byte-order mark
    "\u202eevil\u202c",  # right-to-left override
    "line\u2028para\u2029",
    "\ue000private",
    "\U000e0001tag",
    "unassigned\u0378",
    "$$",
    "$\\undefinedmacro$",
    "$" + "{" * 300 + "$",
    '=HYPERLINK("http://x")',
]
#: any code point at all, lone surrogates included
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=60) | st.sampled_from(HOSTILE)


def forbidden(text: str) -> list[str]:
    return [c for c in text if unicodedata.category(c) in FORBIDDEN_CATEGORIES]


@pytest.mark.parametrize(
    "text, clean",
    [
        ("a\u200bb\ufeff", "a?b?"),
        ("\u202eabc\u2028d", "?abc?d"),
        ("\x1b[2J", "?[2J"),
        ("x\ud800y", "x?y"),
        ("tab\there", "tab?here"),
        ("$\\alpha$ = 50%", "$\\alpha$ = 50%"),  # drawn literally: nothing to clean
        ("héllo wörld ☃ 日本", "héllo wörld ☃ 日本"),
    ],
)
def test_forbidden_characters_become_question_marks_and_the_rest_is_kept(text, clean):
    assert clean_text(text) == clean


def test_long_texts_are_cut_with_an_ellipsis_at_their_bound():
    assert clean_text("x" * 10, 10) == "x" * 10
    assert clean_text("x" * 11, 10) == "x" * 7 + "..."
    assert len(clean_label("y" * 10**6)) == MAX_LABEL_CHARS
    assert len(clean_title("z" * 30_000)) == MAX_TITLE_CHARS
    assert clean_text("a\nb\rc", keep_lines=True) == "a\nb?c"


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(text=ANY_TEXT, limit=st.integers(1, 80), keep_lines=st.booleans())
def test_cleaned_text_is_safe_bounded_and_idempotent(text, limit, keep_lines):
    clean = clean_text(text, limit, keep_lines)
    clean.encode("utf-8")  # raises on a lone surrogate
    assert len(clean) <= limit
    assert forbidden(clean.replace("\n", "")) == [] and ("\n" not in clean or keep_lines)
    assert clean_text(clean, limit, keep_lines) == clean
    if len(text) <= limit:  # nothing cut: only forbidden characters changed, one for one
        assert len(clean) == len(text)
        assert all(a == b or b == "?" for a, b in zip(text, clean))


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")  # drawn as a box: still right
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=ANY_TEXT)
def test_matplotlib_draws_every_cleaned_text_in_every_format(text):
    """As a title, a tick label and a text in the figure, literally (no mathtext)."""
    from fsmarena.figures.style import plt, style

    clean = clean_title(text)
    with style():
        fig, ax = plt.subplots(figsize=(1.5, 1.0))
        try:
            ax.set_title(clean)
            ax.set_xticks([0], [clean])
            drawn = ax.text(0, 0, clean)
            for fmt in ("png", "pdf", "svg"):
                fig.savefig(io.BytesIO(), format=fmt, dpi=40)
            assert drawn.get_text() == clean and not drawn._parse_math
        finally:
            plt.close(fig)


# ---- CSV ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, written",
    [
        ("=1+1", "'=1+1"),
        ("+cmd", "'+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "?x"),  # a tab is cleaned first: no formula left
        ("-0.25", "-0.25"),
        ("+3e-05", "+3e-05"),
        ("a=b", "a=b"),
        ("\u202e\u2028", "??"),
        (-0.25, "-0.25"),
        (np.float64(0.1), "0.1"),
        (np.int64(-3), "-3"),
        (None, ""),
        (True, "True"),
    ],
)
def test_csv_cells_are_numbers_or_defused_texts(value, written):
    assert cell_text(value) == written


@settings(max_examples=300)
@given(cells=st.lists(ANY_TEXT | st.floats(allow_nan=False) | st.integers(), min_size=1, max_size=6))
def test_no_csv_cell_reads_back_as_a_formula_or_with_a_forbidden_character(cells):
    text = csv_text([f"c{i}" for i in range(len(cells))], [cells])
    header, row = list(csv.reader(io.StringIO(text)))
    assert header == [f"c{i}" for i in range(len(cells))]
    assert len(row) == len(cells)
    for value, cell in zip(cells, row):
        assert forbidden(cell) == []
        if isinstance(value, str) and cell.startswith(FORMULA_STARTS):
            float(cell)  # only a plain number may start like a formula
        if isinstance(value, int):
            assert int(cell) == value  # exactly, however large
        elif isinstance(value, float):
            assert float(cell) == value  # repr round-trips


def test_write_csv_takes_mappings_or_sequences_and_writes_atomically(tmp_path):
    path = tmp_path / "t.csv"
    write_csv(path, ["player", "=rate"], [{"player": "=evil()", "=rate": 0.5, "extra": 1}, ["ok", None]])
    assert path.read_text() == "player,'=rate\n'=evil(),0.5\nok,\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]  # no temporary file left
