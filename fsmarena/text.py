"""The one cleaner for every text fsmarena takes from outside and shows again.

Player labels, study titles and questions, ``draw --title``, names echoed in error lines: they
come from files and command lines that may be hostile, and they reach the terminal, CSV and
JSON tables and figures.  :func:`clean_text` makes any of them safe for all of these at once:

* every character of the Unicode categories in :data:`FORBIDDEN_CATEGORIES` becomes ``?``:
  control characters (``Cc``: the ESC of ANSI terminal sequences, line breaks, DEL, C1),
  format characters (``Cf``: zero-width spaces, byte-order marks, the bidirectional overrides
  such as U+202E that reorder what a terminal shows), lone surrogates (``Cs``: not encodable,
  fatal to font engines), line and paragraph separators (``Zl``, ``Zp``), private-use (``Co``)
  and unassigned code points (``Cn``);
* the text is cut to a bound (``...`` marks the cut), so one field cannot turn a line, a
  table cell or a figure title into megabytes (and a figure into minutes of layout).

The result is idempotent (cleaning a cleaned text changes nothing).  Figures draw every text
literally (``text.parse_math`` is off in :mod:`fsmarena.figures.style`), so a ``$`` needs no cleaning.
"""

from __future__ import annotations

import unicodedata

#: Unicode categories that never reach a terminal, a table or a figure
FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn"})
#: what a forbidden character becomes
REPLACEMENT = "?"
#: marks a text cut at its bound
ELLIPSIS = "..."
#: characters of a player label, and of a figure or study title
MAX_LABEL_CHARS = 120
MAX_TITLE_CHARS = 200


def clean_text(text: object, limit: int = 200, keep_lines: bool = False) -> str:
    """``text`` (anything; ``str()`` of it) with every forbidden character replaced by ``?`` and at
    most ``limit`` characters (a longer text keeps ``limit - 3`` and ends in ``...``).
    ``keep_lines`` keeps line breaks (``\\n``) for prose such as a study's question."""
    text = str(text)
    if len(text) > limit:  # cut first: cleaning keeps the length, and long texts cost nothing more
        text = text[: max(0, limit - len(ELLIPSIS))] + ELLIPSIS
    return "".join(
        char if (keep_lines and char == "\n") or unicodedata.category(char) not in FORBIDDEN_CATEGORIES else REPLACEMENT
        for char in text
    )[:limit]


def clean_label(label: object) -> str:
    """A player label safe to print, write and draw (at most :data:`MAX_LABEL_CHARS`)."""
    return clean_text(label, MAX_LABEL_CHARS)


def clean_title(title: object) -> str:
    """A figure or study title safe to print, write and draw (at most :data:`MAX_TITLE_CHARS`)."""
    return clean_text(title, MAX_TITLE_CHARS)


def percent(count: int, total: int) -> str:
    """``count`` as a share of ``total`` for people: ``31%``, ``<1%`` or ``never``; a count that
    is not zero never reads ``0%`` (0.5% rounds half to even, to 0%)."""
    if not count:
        return "never"
    shown = f"{count / total:.0%}"
    return "<1%" if shown == "0%" else shown
