"""Action maps of tabular policies: which action each observation index gets.

States are laid out on a grid read from the game's ``state_label``: a label ``"A: B"`` puts
the state in column ``A`` and row ``B`` (divide-the-dollar: ``"lead: 1/4 1/2 3/4"`` is column
*lead*, row *1/4 1/2 3/4*, the 4 x 10 grid of the seed's 40 states); labels without ``": "``
make a single column.  With several replicates of a method, a cell shows the modal action in
its colour and the share of replicates that chose it (the cell is paler when they disagree).

A state the policies seldom meet in play is noise: learners leave such entries near their
initial values, so replicates "disagree" there by chance.  Given how often each replicate
met each state (``visits``, counted by :func:`policy_visits` in games against a named
opponent), a cell met fewer than ``min_decisions`` times over the method's replicates is
masked (hatched grey, no action, no number), and the caption gives the threshold.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch, Rectangle

from fsmarena.figures.style import (
    PAGE_WIDTH,
    Drawn,
    action_colours,
    count_text,
    plt,
    room_for_suptitle,
    save,
    style,
    titles_collide,
)

if TYPE_CHECKING:
    from fsmarena.games.base import Game
    from fsmarena.games.players import Player

#: a cell met fewer times than this in play, over a method's replicates, is masked
MIN_DECISIONS = 30


def state_grid(labels: Sequence[str]) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    """``(row_names, column_names, row_of_state, column_of_state)`` from state labels."""
    split = [label.split(": ", 1) if ": " in label else ["", label] for label in labels]
    columns = list(dict.fromkeys(c for c, _ in split))
    rows = list(dict.fromkeys(r for _, r in split))
    row_of = np.array([rows.index(r) for _, r in split])
    col_of = np.array([columns.index(c) for c, _ in split])
    return rows, columns, row_of, col_of


def consensus(tables: Sequence[Sequence[int]], n_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """Modal action per state over replicate tables (lowest action on ties) and its share."""
    t = np.asarray(tables, dtype=np.int64)
    if t.ndim == 1:
        t = t[None, :]
    counts = np.stack([(t == a).sum(axis=0) for a in range(n_actions)], axis=1)
    return counts.argmax(axis=1), counts.max(axis=1) / len(t)


def policy_maps(
    policies: Mapping[str, Sequence[Sequence[int]]],
    state_labels: Sequence[str],
    action_names: Sequence[str],
    stem: str | Path,
    title: str = "",
    columns: int = 3,
    row_title: str = "hand (smallest, median, largest card)",
    column_title: str = "situation",
    visits: Mapping[str, Sequence[Sequence[int]]] | None = None,
    min_decisions: int = MIN_DECISIONS,
    opponent: str = "",
    width: float | None = None,
) -> Drawn:
    """One action map per method (``policies[method]`` = its replicates' tables); returns the
    files with their caption.  ``visits[method]``: per replicate, how often it met each state
    in play against ``opponent`` (:func:`policy_visits`); cells met fewer than
    ``min_decisions`` times over the replicates are masked (module docstring)."""
    rows, cols, row_of, col_of = state_grid(state_labels)
    n_actions = len(action_names)
    names = list(policies)
    columns = max(1, min(columns, len(names)))
    panel_rows = math.ceil(len(names) / columns)
    modal = {name: consensus(policies[name], n_actions)[0] for name in names}
    on_view = sorted(set(np.concatenate(list(modal.values())).tolist()))  # the legend lists these only
    colours = action_colours(on_view, n_actions)
    cmap = ListedColormap(colours)
    cell = 0.22
    width = width or min(PAGE_WIDTH, columns * (len(cols) * cell + 0.5) + 1.3)
    height = panel_rows * (len(rows) * cell + 0.9) + 0.5
    with style():
        fig, axes = plt.subplots(panel_rows, columns, figsize=(width, height), squeeze=False)
        for k, name in enumerate(names):
            ax = axes[k // columns, k % columns]
            enough = _enough(visits, name, len(state_labels), min_decisions)
            _draw_panel(ax, policies[name], (rows, cols, row_of, col_of), n_actions, cmap, enough)
            ax.set_yticks(range(len(rows)), rows if k % columns == 0 else [""] * len(rows))
            replicates = len(np.atleast_2d(policies[name]))
            suffix = f" ({replicates} replicates)" if replicates > 1 else ""
            ax.set_title(f"{name}{suffix}", fontsize=7)
            if k % columns == 0:
                ax.set_ylabel(row_title)
            if k // columns == panel_rows - 1:
                ax.set_xlabel(column_title)
        for k in range(len(names), panel_rows * columns):
            axes[k // columns, k % columns].set_visible(False)
        handles = [Patch(color=colours[a], label=action_names[a]) for a in on_view]
        fig.legend(
            handles=handles, loc="lower center", ncol=min(len(on_view), 8), frameon=False, bbox_to_anchor=(0.5, -0.01)
        )
        note = (
            "cell text: % of replicates choosing the shown (modal) action"
            if any(len(np.atleast_2d(p)) > 1 for p in policies.values())
            else ""
        )
        against = f" against {opponent}" if opponent else ""
        hatched = f"hatched: met fewer than {min_decisions} times in play{against}" if visits is not None else ""
        fig.suptitle("\n".join(t for t in (title, note, hatched) if t), fontsize=8)
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        room_for_suptitle(fig, 0.05)
        if columns > 1 and titles_collide(fig):  # long names side by side: fewer, wider columns
            plt.close(fig)
            return policy_maps(
                policies,
                state_labels,
                action_names,
                stem,
                title,
                columns - 1,
                row_title,
                column_title,
                visits,
                min_decisions,
                opponent,
                width,
            )  # fmt: skip  (fewer columns, the same width: the notes above keep their room)
        counts = [len(np.atleast_2d(p)) for p in policies.values()]
        threshold = min_decisions if visits is not None else None
        return Drawn(save(fig, stem), policy_caption(counts, threshold, opponent))


def _draw_panel(
    ax: Any, tables: Sequence[Sequence[int]], grid_of: tuple, n_actions: int, cmap: Any, enough: np.ndarray
) -> None:
    """One method's action map on ``ax``: each state's modal action over the replicates' tables,
    opaque as far as they agree (the share printed in the cell when there are several), states
    met too rarely in play hatched grey; ``grid_of`` is :func:`state_grid`'s layout."""
    rows, cols, row_of, col_of = grid_of
    action, share = consensus(tables, n_actions)
    grid = np.full((len(rows), len(cols)), np.nan)
    alpha = np.zeros_like(grid)
    agree = np.full_like(grid, np.nan)
    grid[row_of[enough], col_of[enough]] = action[enough]
    alpha[row_of, col_of] = 0.35 + 0.65 * share
    agree[row_of[enough], col_of[enough]] = share[enough]
    if not enough.all():  # too few decisions to tell a choice from noise: hatched grey
        hidden = np.zeros((len(rows), len(cols)), dtype=bool)
        hidden[row_of[~enough], col_of[~enough]] = True
        ax.imshow(np.ma.masked_where(~hidden, hidden), cmap=ListedColormap(["#dddddd"]), aspect="auto")
        for cell_row, cell_col in zip(*np.nonzero(hidden)):
            corner = (int(cell_col) - 0.5, int(cell_row) - 0.5)
            ax.add_patch(Rectangle(corner, 1, 1, fill=False, hatch="////", ec="#aaaaaa", lw=0))
    ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=n_actions - 0.5, alpha=alpha, aspect="auto")
    if len(np.atleast_2d(tables)) > 1:
        for r, c in zip(*np.nonzero(np.isfinite(agree))):
            ax.text(c, r, f"{100 * agree[r, c]:.0f}", ha="center", va="center", fontsize=5)
    ax.set_xticks(range(len(cols)), cols, rotation=40, ha="right")
    ax.tick_params(length=0)
    ax.set_xticks(np.arange(len(cols)) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(rows)) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=0.6)
    ax.spines[:].set_visible(False)


def _enough(visits: Mapping[str, Sequence[Sequence[int]]] | None, name: str, n: int, least: int) -> np.ndarray:
    """Per state, whether the method's replicates met it at least ``least`` times in all
    (every state without ``visits``)."""
    if visits is None:
        return np.ones(n, dtype=bool)
    counts = np.atleast_2d(np.asarray(visits[name], dtype=np.int64))
    if counts.shape[1] != n:
        raise ValueError(f"visits of '{name}' count {counts.shape[1]} states, the policies have {n}")
    return counts.sum(axis=0) >= least


def policy_visits(
    game: "Game", tables: Sequence[Sequence[int]], opponent: "Player", games: int = 200, seed: int = 0
) -> list[list[int]]:
    """Per table policy of ``tables``, how often it meets each state in ``games`` games in
    every seat against ``opponent`` (the ``visits`` of :func:`policy_maps`): each table plays
    as the one-state table FSM over ``index`` it is, counted by
    :func:`fsmarena.evo.usage.measure_usage`."""
    from fsmarena.evo.table_fsm import TableFSM
    from fsmarena.evo.usage import measure_usage

    found = []
    for table in tables:
        actions = np.asarray(table, dtype=np.int64)[None, :]
        machine = TableFSM(np.zeros_like(actions), actions, "index")
        found.append(measure_usage(machine, game, [opponent], games, seed).entries[0].tolist())
    return found


def policy_caption(replicates: Sequence[int], masked: int | None = None, opponent: str = "") -> str:
    """What :func:`policy_maps` shows, in words; ``masked``: the threshold below which cells
    were masked."""
    several = (
        " With several replicates a cell shows the action most of them choose, the number in it is the share "
        "of replicates that agree (%), and the paler the cell, the more they disagree."
        if any(r > 1 for r in replicates)
        else ""
    )
    against = f" against {opponent}" if opponent else ""
    mask = (
        f" Hatched grey: states the method's replicates met fewer than {masked} times in all in play{against}, "
        "too seldom for their entries to say anything; they are not shown."
        if masked is not None
        else ""
    )
    return (
        "Action maps: each cell is one state of a tabular policy (rows and columns name it), coloured by the "
        f"action the policy plays there; one panel per method ({count_text(replicates)} per method).{several}{mask}"
    )
