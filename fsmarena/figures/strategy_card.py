"""The strategy card: a player's strategy summary (:mod:`fsmarena.evo.strategy_summary`) as a
compact figure one journal column wide that a paper can print.

One row per state and action (a colour patch for the action, the state, the action's name,
its share of the state's decisions and the situations it answers, most frequent first, or
"always" when it is all the state does) and per move to another state (``-> S2``, with what
triggers it), the rows with the most decisions first; at most
:data:`MAX_ROWS` rows, the rest counted on a last "other" row.  Colours are the Okabe-Ito
ones (:mod:`fsmarena.figures.style`), at most :data:`MAX_COLOURS`; a card with more actions on
view colours them by group (low, middle and high action numbers) and every row names its
action in text, so the colour is never the only key.  Under the rows: what the actions do and
a BDA's features, spelled out in the game's words.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from fsmarena.figures.machine_layout import FONT, UNUSED_TEXT
from fsmarena.text import percent

if TYPE_CHECKING:
    from fsmarena.evo.strategy_summary import CardRow, StrategySummary

#: rows a card shows (the rest are counted as "other")
MAX_ROWS = 12
#: distinct colours a card (or a machine table) uses at most
MAX_COLOURS = 7
#: characters of a row's situations, and of a legend line, at the card's font
ROW_CHARS = 50
LEGEND_CHARS = 88
ROW_HEIGHT = 0.135


def colour_key(on_view: Sequence[int], names: Sequence[str]) -> tuple[dict[int, str], list[tuple[str, str]]]:
    """A colour per action on view and the legend's (colour, words) entries: up to
    :data:`MAX_COLOURS` actions each get an Okabe-Ito colour; more are grouped in three by
    action number (low, middle, high), each group one colour named by its first and last
    action."""
    from fsmarena.figures.style import ACTION_PALETTE

    actions = sorted(set(int(a) for a in on_view))
    if len(actions) <= MAX_COLOURS:
        colours = {a: ACTION_PALETTE[k] for k, a in enumerate(actions)}
        return colours, [(colours[a], names[a]) for a in actions]
    thirds = [actions[k * len(actions) // 3 : (k + 1) * len(actions) // 3] for k in range(3)]
    colours, legend = {}, []
    for k, (group, word) in enumerate(zip(thirds, ("low", "middle", "high"))):
        for a in group:
            colours[a] = ACTION_PALETTE[k]
        legend.append((ACTION_PALETTE[k], f"{word}: {names[group[0]]} to {names[group[-1]]}"))
    return colours, legend


def shown_rows(summary: "StrategySummary", most: int = MAX_ROWS) -> tuple[list["CardRow"], str]:
    """The rows a card draws and the text of its "other" row ("" when every row fits)."""
    rows = summary.rows()
    if len(rows) <= most:
        return rows, ""
    kept, hidden = rows[: most - 1], rows[most - 1 :]
    decisions = sum(row.count for row in hidden if row.what == "action")
    share = f", {percent(decisions, summary.decisions)} of decisions" if summary.decisions else ""
    return kept, f"other: {len(hidden)} rows{share}"


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "\u2026"


def _columns(fig: Any, ax: Any, names: list[str]) -> tuple[float, ...]:
    """The x of the colour box, state, action, share and situations columns (axes fraction):
    the share starts after the widest action name as drawn (names differ in width by letter)."""
    renderer = fig.canvas.get_renderer()
    widest = 0.0
    for name in names:
        text = ax.text(0, 0, name, fontsize=FONT)
        box = text.get_window_extent(renderer).transformed(ax.transAxes.inverted())
        widest = max(widest, box.width)
        text.remove()
    share = max(0.315, 0.105 + widest + 0.025)
    return (0.0, 0.035, 0.105, share, share + 0.075)


def card_figure(summary: "StrategySummary", title: str = "") -> Any:
    """The card as a matplotlib figure (call inside :func:`fsmarena.figures.style.style`)."""
    from matplotlib.patches import Rectangle

    from fsmarena.figures.style import COLUMN_WIDTH, plt

    rows, other = shown_rows(summary)
    colours, key = colour_key([r.key for r in rows if r.what == "action"], summary.actions)
    tests = [f"S{state} tests {test} first" for state, test in summary.tests.items()]
    notes = [*tests, *(f"{name}: {words}" for name, words in {**summary.meanings, **summary.legend}.items())]
    if len(colours) > MAX_COLOURS:  # grouped: say which colour stands for which actions
        notes.insert(0, "colours: " + "; ".join(words for _c, words in key))
    legend = [line for note in notes for line in textwrap.wrap(note, LEGEND_CHARS, subsequent_indent="   ")]
    lines = len(rows) + bool(other)
    height = 0.65 + ROW_HEIGHT * (lines + 1) + 0.095 * len(legend)
    fig = plt.figure(figsize=(COLUMN_WIDTH, height))
    ax = fig.add_axes((0.02, 0.0, 0.96, 1.0))
    ax.set_xlim(0, 1)
    ax.set_ylim(height, 0)  # inches from the top
    ax.set_axis_off()
    head = title or f"{summary.kind} '{summary.label}' ({summary.game})"
    ax.text(0, 0.12, _clip(head, 60), fontsize=7, fontweight="bold", va="center")
    played = (
        f"{summary.decisions} decisions in {summary.games} games {summary.against()}; situations: '{summary.inputs}'"
    )
    sub = textwrap.wrap(played, LEGEND_CHARS - 6)
    for k, line in enumerate(sub):
        ax.text(0, 0.28 + 0.1 * k, line, fontsize=FONT, va="center", color="#444444")
    y = 0.45 + 0.1 * len(sub)
    columns = _columns(fig, ax, [_clip(summary.actions[r.key], 19) for r in rows if r.what == "action"])
    room = int(ROW_CHARS * (1 - columns[4]) / (1 - 0.39))  # the situations' characters that fit
    for x, text in zip(columns[1:], ("state", "plays or moves", "share", "in these situations (most frequent first)")):
        ax.text(x, y, text, fontsize=FONT - 0.5, style="italic", va="center", color="#444444")
    for row in rows:
        y += ROW_HEIGHT
        if row.what == "action":
            ax.add_patch(Rectangle((columns[0], y - 0.045), 0.025, 0.09, color=colours[row.key], lw=0))
            what, prefix = summary.actions[row.key], ""
        else:
            what, prefix = f"\u2192 S{row.key}", "after "
        cells = (f"S{row.state}", _clip(what, 19), percent(row.count, max(row.decisions, 1)))
        for x, text in zip(columns[1:4], cells):
            ax.text(x, y, text, fontsize=FONT, va="center")
        always = row.count == row.decisions  # in (or after) every decision of the state
        situations = "always" if always else prefix + row.situations
        ax.text(columns[4], y, _clip(situations, room), fontsize=FONT, va="center")
    if other:
        y += ROW_HEIGHT
        ax.text(columns[1], y, other, fontsize=FONT, va="center", color=UNUSED_TEXT)
    y += ROW_HEIGHT
    for line in legend:
        y += 0.095
        ax.text(0, y, line, fontsize=FONT - 0.5, va="center", color="#333333")
    return fig


def write_card(summary: "StrategySummary", path: str | Path, title: str = "") -> Path:
    """Save the card to ``path`` (PNG, SVG or PDF by its suffix, atomically)."""
    from fsmarena.figures.style import plt, save_as, style

    path = Path(path)
    with style():
        fig = card_figure(summary, title)
        try:
            save_as(fig, path, path.suffix.lower().lstrip("."))
        finally:
            plt.close(fig)
    return path
