"""Checks every generated report must pass, whatever the study (tests/test_study*.py)."""

from __future__ import annotations

import re

#: an interval of zero width around 0% or 100%: what a degenerate sample must never be shown as
ZERO_WIDTH = re.compile(r"(100\.0%|0\.0%) \[\1, \1\]|([+-]100\.0 pp) \[\2, \2\]")


def empty_headings(text: str) -> list[str]:
    """Headings followed directly by another heading of the same or a higher level (or by
    nothing): sections the report announced but did not fill."""
    lines = [line for line in text.splitlines() if line.strip()]
    found = []
    for k, line in enumerate(lines):
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            following = lines[k + 1] if k + 1 < len(lines) else ""
            if not following or (following.startswith("#") and len(following) - len(following.lstrip("#")) <= level):
                found.append(line)
    return found


def report_defects(text: str, figures: bool) -> list[str]:
    """Every defect found in a report: empty headings, zero-width intervals, "every champion of
    no family", and (without figures) any figure listed or shown."""
    defects = [f"empty heading {h!r}" for h in empty_headings(text)]
    defects += [f"zero-width interval {m.group(0)!r}" for m in ZERO_WIDTH.finditer(text)]
    if "of no family" in text:
        defects.append("'of no family'")
    if not figures and "figures/" in text:
        defects.append("a figure listed though none was written")
    return defects
