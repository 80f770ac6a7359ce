"""421's figure: its policy as a readable chart.

* :func:`optimal_policy_figure` — which dice to keep, for every dice triple (best scores
  first, in two blocks side by side) and every number of throws left: each cell says what to
  keep (``stop`` keeps all three, ``roll all`` keeps none) and its colour is the number of dice
  thrown again.

The figures of exact values any game with an exact model shares are in :mod:`fsmarena.figures.exact_values`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from fsmarena.figures.style import COLUMN_WIDTH, PAGE_WIDTH, Drawn, plt, save, style
from fsmarena.games.dice421.exact import keep_label, policy_table

#: colours by number of dice thrown again (0 = stop): light to dark, readable under black text
REROLL_COLORS = ("#FFFFFF", "#CFE3F3", "#8DBFE6", "#4A90C8")
REROLL_NAMES = ("stop (keep all)", "throw 1 die", "throw 2 dice", "throw all 3")


def policy_cells(game, table: np.ndarray) -> tuple[list[int], list[list[str]], np.ndarray]:
    """``(triple order, cell texts [triple][column], dice thrown [triple, column])`` of a policy;
    columns are throws left from the most to one."""

    table = policy_table(game, table)
    t, R = game.tables, game.config.rethrows
    order = sorted(range(len(t.triples)), key=lambda k: (-int(t.score[k]), t.triples[k]))
    texts, thrown = [], np.zeros((len(order), R), dtype=np.int64)
    for row, k in enumerate(order):
        cells = []
        for col, left in enumerate(range(R, 0, -1)):
            action = int(table[left * len(t.triples) + k])
            cells.append(keep_label(game, t.triples[k], action))
            thrown[row, col] = bin(action).count("1")
        texts.append(cells)
    return order, texts, thrown


def optimal_policy_figure(game, table: np.ndarray, stem: str | Path, title: str = "", blocks: int = 2) -> Drawn:
    """A policy table of 421 drawn as a chart (see the module docstring), with its caption."""
    order, texts, thrown = policy_cells(game, table)
    t, R = game.tables, game.config.rethrows
    per_block = -(-len(order) // blocks)
    cmap = ListedColormap(REROLL_COLORS)
    height = per_block * 0.15 + 0.9
    with style():
        fig, axes = plt.subplots(
            1, blocks, figsize=(PAGE_WIDTH if R > 1 else COLUMN_WIDTH * 1.6, height), squeeze=False
        )
        for b in range(blocks):
            ax = axes[0, b]
            rows = range(b * per_block, min(len(order), (b + 1) * per_block))
            ax.imshow(thrown[rows.start : rows.stop], cmap=cmap, vmin=-0.5, vmax=3.5, aspect="auto")
            for i, row in enumerate(rows):
                for col in range(R):
                    ax.text(col, i, texts[row][col], ha="center", va="center", fontsize=5.5)
            labels = [f"{''.join(map(str, t.triples[order[row]]))}  ({int(t.score[order[row]])})" for row in rows]
            ax.set_yticks(range(len(labels)), labels, fontsize=6, family="monospace")
            ax.set_xticks(range(R), [f"{left} throw{'s' if left != 1 else ''} left" for left in range(R, 0, -1)])
            ax.xaxis.tick_top()
            ax.tick_params(which="both", length=0)
            ax.set_xticks(np.arange(R) - 0.5, minor=True)
            ax.set_yticks(np.arange(len(labels)) - 0.5, minor=True)
            ax.grid(which="minor", color="0.75", linewidth=0.4)
            ax.spines[:].set_visible(False)
            if b == 0:
                ax.set_ylabel("dice (score if kept)")
        handles = [
            Patch(facecolor=c, edgecolor="0.6", linewidth=0.4, label=n) for c, n in zip(REROLL_COLORS, REROLL_NAMES)
        ]
        fig.legend(handles=handles, loc="lower center", ncol=4, frameon=False, bbox_to_anchor=(0.5, -0.005))
        if title:
            fig.suptitle(title)
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        return Drawn(
            save(fig, stem),
            "A 421 policy as a chart: one row per dice triple (best scores first), one column per number of "
            "throws left; each cell says which dice the policy keeps (stop: all three, roll all: none), its "
            "colour how many dice are thrown again.",
        )
