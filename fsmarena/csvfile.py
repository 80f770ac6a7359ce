"""The one CSV writer: every table fsmarena writes (results, matrices, curves, logbooks, study tables).

Cells are written so that a spreadsheet shows them as data and never runs them:

* a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to
  Excel, LibreOffice and Google Sheets (a player label ``=HYPERLINK(...)`` would be one); it is
  written with a leading ``'`` (OWASP's advice against CSV injection).  Numbers, and texts that
  are plain numbers such as ``-0.25``, are written as they are;
* forbidden characters (:data:`fsmarena.text.FORBIDDEN_CATEGORIES`: controls, bidirectional
  overrides, line separators, lone surrogates ...) become ``?``, as in every label;
* ``None`` is an empty cell; floats (numpy's too) are written with ``repr`` (shortest exact form).

:func:`write_csv` writes the file atomically (:func:`fsmarena.fileio.write_text`).
"""

from __future__ import annotations

import csv
import io
import os
import re
import unicodedata
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from fsmarena.fileio import write_text
from fsmarena.text import FORBIDDEN_CATEGORIES, REPLACEMENT

#: first characters that make a spreadsheet cell a formula
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: a plain decimal number (which a spreadsheet reads as a number, never as a formula)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def cell_text(value: Any) -> str:
    """One cell's text: numbers as numbers, texts cleaned and defused (see the module)."""
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    text = str(value)
    if not (text.isascii() and text.isprintable()):  # printable ASCII holds no forbidden character
        text = "".join(REPLACEMENT if unicodedata.category(c) in FORBIDDEN_CATEGORIES else c for c in text)
    if text.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_text(columns: Sequence[str], rows: Iterable[Mapping[str, Any] | Sequence[Any]]) -> str:
    """CSV text: a header of ``columns``, then one line per row.  A row is a mapping (its values
    for ``columns``, a missing key an empty cell, other keys ignored) or a sequence of cells."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([cell_text(c) for c in columns])
    for row in rows:
        cells = [row.get(c) for c in columns] if isinstance(row, Mapping) else list(row)
        writer.writerow([cell_text(c) for c in cells])
    return buffer.getvalue()


def write_csv(
    path: str | os.PathLike, columns: Sequence[str], rows: Iterable[Mapping[str, Any] | Sequence[Any]]
) -> None:
    """Write :func:`csv_text` to ``path`` atomically."""
    write_text(path, csv_text(columns, rows))
