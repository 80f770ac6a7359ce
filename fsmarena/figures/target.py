"""Figures of a study with a target and a table (:mod:`fsmarena.studies.target_study`): every champion
against the reference with each family's confirmed best, and the table of more players.  Each
takes the rows of the report's tables and draws nothing else, and returns the files with a caption."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from fsmarena.figures.style import PAGE_WIDTH, Drawn, color, count_text, plt, save, style


def versus_reference_figure(
    panel: Sequence[Sequence[tuple[float, float, float]]],
    families: Sequence[Mapping[str, Any]],
    reference: str,
    target: float,
    stem: Path,
    reference_result: tuple[float, str] | None = None,
) -> Drawn:
    """Every champion's panel win rate against ``reference`` (dots with the Wilson interval over its
    own games; ``panel[k]``: (rate, low, high) of each of family ``k``'s champions) and each family's best
    champion on fresh games (diamond), with the target and, when given, a result from elsewhere."""
    with style():
        fig, ax = plt.subplots(figsize=(PAGE_WIDTH * 0.7, 0.45 * len(families) + 0.9))
        for y, (champions, fam) in enumerate(zip(panel, families)):
            offsets = np.linspace(-0.25, 0.25, len(champions)) if len(champions) > 1 else [0.0]
            for off, (rate, low, high) in zip(offsets, champions):
                ax.errorbar(
                    100 * rate,
                    y + off,
                    xerr=[[100 * (rate - low)], [100 * (high - rate)]],
                    fmt="o",
                    ms=3,
                    color=color(y),
                    elinewidth=0.8,
                    capsize=0,
                )
            ax.errorbar(
                100 * fam["confirm_win_rate"],
                y + 0.38,
                xerr=[
                    [100 * (fam["confirm_win_rate"] - fam["confirm_ci_low"])],
                    [100 * (fam["confirm_ci_high"] - fam["confirm_win_rate"])],
                ],
                fmt="D",
                ms=4,
                color="black",
                elinewidth=1.0,
                capsize=2,
            )
        ax.axvline(100 * target, color="0.3", linestyle="--", linewidth=0.8, label=f"target {100 * target:.0f}%")
        if reference_result is not None:
            value, what = reference_result
            ax.axvline(100 * value, color="0.5", linestyle=":", linewidth=0.8, label=f"{what} {100 * value:.1f}%")
        ax.set_yticks(range(len(families)), [f["method"] for f in families])
        ax.set_ylim(len(families) - 0.4, -0.6)
        ax.set_xlabel(f"win rate against {reference} (%), 1v1")
        ax.grid(True, axis="x", linewidth=0.4, alpha=0.5)
        ax.legend(frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)
        elsewhere = f"; dotted: {reference_result[1]}" if reference_result is not None else ""
        caption = (
            f"Every champion's win rate against {reference} (%, one against one) on the panel's games: one dot "
            f"per champion ({count_text([len(c) for c in panel], 'champion')} per family) with its 95% Wilson "
            "interval over its own games. Black diamond: the family's best champion replayed on fresh games, "
            f"with its 95% Wilson interval. Dashed: the target {100 * target:.0f}%{elsewhere}."
        )
        return Drawn(save(fig, stem), caption)


def table_figure(
    summary: Sequence[Mapping[str, Any]],
    rows: Sequence[Mapping[str, Any]],
    seats: int,
    opponents: Sequence[str],
    stem: Path,
) -> Drawn:
    """Per group at the table: entrants (dots) and the group's rate with its interval (diamond:
    a family's mean over its champions with their interval, a builtin's own Wilson interval)."""
    with style():
        fig, ax = plt.subplots(figsize=(PAGE_WIDTH * 0.7, 0.4 * len(summary) + 0.9))
        for y, s in enumerate(summary):
            mine = [r for r in rows if r["group"] == s["group"]]
            ax.scatter([100 * r["win_rate"] for r in mine], [y] * len(mine), s=6, color=color(y), alpha=0.7)
            ax.errorbar(
                100 * s["rate"],
                y - 0.25,
                xerr=[[100 * (s["rate"] - s["rate_low"])], [100 * (s["rate_high"] - s["rate"])]],
                fmt="D",
                ms=3.5,
                color="black",
                elinewidth=0.9,
                capsize=2,
            )
        ax.axvline(100 / seats, color="0.3", linestyle="--", linewidth=0.8, label=f"fair share 1/{seats}")
        ax.set_yticks(range(len(summary)), [s["group"] for s in summary])
        ax.set_ylim(len(summary) - 0.4, -0.7)
        ax.set_xlabel(f"win rate (%) at a {seats}-player table with " + " + ".join(opponents))
        ax.grid(True, axis="x", linewidth=0.4, alpha=0.5)
        ax.legend(frameon=False, loc="lower right")
        caption = (
            f"Win rate (%) at a {seats}-player table with {' + '.join(opponents)}: each dot is one entrant, a "
            "champion or a builtin; the black diamond is the group's rate with its 95% interval (a family: the "
            "mean over its champions, the interval over them; a builtin: the Wilson interval over its games). "
            f"Dashed: the fair share 1/{seats}."
        )
        return Drawn(save(fig, stem), caption)
