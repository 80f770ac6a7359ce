"""Formatting shared by every study report: percentages, estimates with their intervals,
Markdown tables, figures with their captions, and sections that vanish when empty.

Why its own module: every report builder of the studies layer (the standard report, the
league, target, exploitability and exact-value reports) writes numbers the same way, so a
reader sees "ahead by X [lo, hi]" spelled identically in every report.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Sequence

from fsmarena.studies.analysis import Analysis


def pct(x: float, digits: int = 1) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{100 * x:.{digits}f}%"


def pp(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{100 * x:+.1f} pp"


def pval(p: float) -> str:
    if not math.isfinite(p):
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def p_is(p: float, name: str = "p") -> str:
    """A p-value as a reader writes it: "p = 0.0123", "p < 0.0001" (never "p = < 0.0001")."""
    shown = pval(p)
    return f"{name} {shown}" if shown.startswith("<") else f"{name} = {shown}"


def estimate(
    value: float,
    low: float,
    high: float,
    all_equal: bool = False,
    replicates: int = 0,
    fmt: Callable[[float], str] = pct,
    unit: str = "replicates",
) -> str:
    """An estimate with its interval in brackets; a sample whose values are all equal is said to
    be so ("all 5 replicates 100.0%", "+100.0 pp (all 60 games alike)"), never given a
    zero-width interval."""
    if all_equal:
        return (
            f"all {replicates} {unit} {fmt(value)}"
            if unit == "replicates"
            else f"{fmt(value)} (all {replicates} {unit} alike)"
        )
    if not (math.isfinite(low) and math.isfinite(high)):
        return fmt(value)
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


def within_rates(low: float, high: float) -> tuple[float, float]:
    """The ends of an interval of a difference of two rates, cut to [-1, 1] where such a
    difference lies (a Student-t interval of a few replicates far apart reaches beyond)."""
    return max(low, -1.0), min(high, 1.0)


def summary_cell(row: dict) -> str:
    """A summary row's mean with its interval (:func:`estimate`)."""
    return estimate(row["mean"], row["ci_low"], row["ci_high"], bool(row.get("all_equal")), row["replicates"])


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table (cells already formatted)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def figure(analysis: Analysis, key: str, caption: str, out: Path) -> str:
    """The Markdown of figure ``key`` of the analysis ("" when it was not drawn), under the
    caption the figure function wrote (it knows the replicates and the band), else ``caption``."""
    drawn = analysis.figures.get(key, [])
    return image(drawn, out, getattr(drawn, "caption", "") or caption)


def image(paths: Sequence[Path], out: Path, caption: str) -> str:
    """A PNG shown with its caption and a link to its PDF twin (paths relative to ``out``)."""
    if not paths:
        return ""
    png = next((p for p in paths if p.suffix == ".png"), paths[0])
    pdf = next((p for p in paths if p.suffix == ".pdf"), None)
    link = f" ([PDF]({pdf.relative_to(out).as_posix()}))" if pdf else ""
    return f"![{caption}]({png.relative_to(out).as_posix()})\n\n*{caption}*{link}\n"


def section(heading: str, *body: str) -> str:
    """A heading with its body, or "" when the body is empty (no heading stands alone)."""
    shown = [b for b in body if b]
    return "\n".join([heading, *shown]) if shown else ""


def sentences(parts: Sequence[str]) -> str:
    """Each part as a sentence of its own, capitalised and ended by a full stop: one finding per
    measure reads; the same findings joined by semicolons make a sentence of 200 words."""
    return " ".join(part[:1].upper() + part[1:] + ("" if part.endswith(".") else ".") for part in parts if part)
