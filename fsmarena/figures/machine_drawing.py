"""Drawing a machine's graph (:mod:`fsmarena.figures.machine_graph`): the figure of states and edges
laid out by :mod:`fsmarena.figures.machine_layout`, with the machine's table under it (a table FSM's
actions per input and state, a BDA's tests), titled by :mod:`fsmarena.figures.machine_captions`.

matplotlib (and :mod:`fsmarena.figures.style`, which loads it) is imported inside the drawing functions:
the text formats of ``fsmarena draw`` (dot, json) and ``fsmarena inspect`` go through this
module and must not pay matplotlib's second of start-up.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import networkx as nx
import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import FALSE_ACTION, FALSE_NEXT, FEATURE, TRUE_ACTION, TRUE_NEXT
from fsmarena.evo.inputs import input_encoder
from fsmarena.figures.machine_captions import default_title, drawn_label, state_name
from fsmarena.figures.machine_layout import (
    FONT,
    GRAPH_HEIGHT,
    LABEL_SPOTS,
    MAX_COLUMN_STATES,
    MAX_DRAWN_STATES,
    MAX_ROWS,
    TABLE_ROW,
    UNUSED,
    UNUSED_TEXT,
    GraphLook,
    bezier,
    free_spot,
    graph_look,
    in_file_order,
    positions,
    route_edges,
    text_box,
)
from fsmarena.figures.strategy_card import MAX_COLOURS, colour_key
from fsmarena.games.phrases import feature_words
from fsmarena.text import percent

if TYPE_CHECKING:
    from fsmarena.evo.usage import Usage
    from fsmarena.games.base import Game
    from fsmarena.games.players import Player


def draw_machine(
    graph: nx.DiGraph,
    path: Path,
    fmt: str,
    title: str = "",
    player: "Player | None" = None,
    game: "Game | None" = None,
    usage: "Usage | None" = None,
    inputs: np.ndarray | None = None,
) -> None:
    """Save :func:`machine_figure` to ``path`` in format ``fmt``."""
    from fsmarena.figures.style import plt, save_as, style

    with style():
        fig = machine_figure(graph, title, player, game, usage, inputs)
        try:
            save_as(fig, path, fmt)
        finally:
            plt.close(fig)


def machine_figure(
    graph: nx.DiGraph,
    title: str = "",
    player: "Player | None" = None,
    game: "Game | None" = None,
    usage: "Usage | None" = None,
    inputs: np.ndarray | None = None,
) -> Any:
    """The machine one journal column wide: states on a circle (start at the top, thick
    outline), curved edges with their labels, self-loops outside their state; with usage,
    edge widths follow use and what never fired is grey.  Below the graph, the machine's
    table: for a table FSM one row per input and one column per state
    (:func:`_draw_action_table`), for a BDA one line per state (:func:`_draw_bda_table`).
    Call inside :func:`fsmarena.figures.style.style`; the caller closes the figure."""
    from fsmarena.figures.style import plt

    states = graph.number_of_nodes()
    if states > MAX_DRAWN_STATES:
        raise FsmarenaError(
            f"a drawing shows at most {MAX_DRAWN_STATES} reachable states (MAX_DRAWN_STATES) and this machine has "
            f"{states}: write .dot or .graphml, or draw it with --minimise"
        )
    look = graph_look(states)
    fsm = graph.graph.get("kind") == "table-fsm"
    if player is None or game is None:
        fig, ax = plt.subplots(figsize=(look.width, _graph_height(look)))
        _draw_graph(ax, graph, look)
    elif fsm:
        rows = _table_inputs(player, usage, inputs)
        table_height = TABLE_ROW * (len(rows) + 1) + 0.9
        if states == 1:  # a policy table: the graph would show one loop
            fig, ax = plt.subplots(figsize=(look.width, table_height))
            _draw_action_table(ax, graph, player, game, usage, rows)
        else:
            fig, (ax, table_ax) = _two_panels(look, table_height)
            _draw_action_table(table_ax, graph, player, game, usage, rows)
            _draw_graph(ax, graph, look)
    else:
        legend = feature_legend_lines(graph, player, game)
        fig, (ax, table_ax) = _two_panels(look, TABLE_ROW * 1.4 * (states + 1 + len(legend)) + 0.1)
        _draw_bda_table(table_ax, graph, player, game, usage, legend)
        _draw_graph(ax, graph, look)
    explained = default_title(graph, look)
    if title:  # a caller's title replaces the first line, never the key to the drawing
        explained = "\n".join([title, *explained.split("\n")[1:]])
    ax.set_title(explained, fontsize=6.5)
    return fig


def _two_panels(look: GraphLook, table_height: float) -> Any:
    """A figure ``look.width`` wide: the graph above a table ``table_height`` inches high."""
    from fsmarena.figures.style import plt

    graph_height = _graph_height(look)
    return plt.subplots(
        2,
        1,
        figsize=(look.width, graph_height + table_height),
        gridspec_kw={"height_ratios": [graph_height, table_height], "hspace": 0.04},
    )


def _graph_height(look: GraphLook) -> float:
    """The graph panel's height: :data:`GRAPH_HEIGHT` for a column-wide figure, in proportion
    for a wider one."""
    from fsmarena.figures.style import COLUMN_WIDTH

    return GRAPH_HEIGHT * look.width / COLUMN_WIDTH


#: height of the graph panel, and of one table row, in inches


def _draw_graph(ax, graph: nx.DiGraph, look: GraphLook) -> None:
    """The machine on ``ax``: every transition (a loop for a state's own), its thickness its
    share of the uses or of the transitions, its label placed clear of states and other labels;
    then the states over them."""
    from matplotlib.patches import FancyArrowPatch

    from fsmarena.figures.style import color

    pos = positions(graph)
    kinds = {"true": (color(2), "-"), "false": (color(3), "--"), "both": ("#333333", "-")}
    weighed = "decisions" in graph.graph
    weight = "uses" if weighed else "transitions"
    max_count = max([d.get(weight, 1) for _s, _t, d in graph.edges(data=True)] + [1])
    # boxes to keep edge labels off: the states, then each label placed (centre, half size)
    radius = look.node_radius
    placed = [(pos[node], np.array([radius, radius])) for node in graph.nodes]
    routes = route_edges(graph, radius)
    for source, target, data in graph.edges(data=True):
        edge_color, line = kinds[data.get("branch", "both")]
        width = 0.5 + 2.0 * data[weight] / max_count if weight in data else 1.2
        if weighed and not data["uses"]:
            edge_color, width = UNUSED, 0.6
        text = drawn_label(data, graph.graph.get("moves"))
        stroke: dict[str, Any] = {"color": edge_color, "lw": width, "zorder": 1}
        if source == target:
            _draw_loop(ax, pos[source], len(pos), look, stroke, line, text, placed)
            continue
        rad, curve = routes[(source, target)]
        ax.plot(curve[:-2, 0], curve[:-2, 1], linestyle=line, **stroke)
        ax.add_patch(FancyArrowPatch(curve[-4], curve[-1], arrowstyle="-|>", mutation_scale=look.arrow, **stroke))
        if not look.edge_labels:
            continue
        candidates = bezier(pos[source], pos[target], rad, np.array(LABEL_SPOTS))
        spot = free_spot(candidates, text, placed)
        placed.append((spot, text_box(text)))
        ax.text(*spot, text, fontsize=FONT, ha="center", va="center", bbox=LABEL_BOX, zorder=3)
    _draw_states(ax, graph, pos, look, weighed)
    extent = 1.0 + radius + 2 * look.loop_radius + 0.15
    ax.set_aspect("equal")
    ax.set_xlim(-extent, extent)
    ax.set_ylim(-extent, extent)
    ax.set_axis_off()


#: the box behind an edge's label
LABEL_BOX = {"boxstyle": "round,pad=0.2", "fc": "white", "ec": "#bbbbbb", "lw": 0.4, "alpha": 0.9}


def _draw_loop(
    ax, centre: np.ndarray, states: int, look: GraphLook, stroke: dict, line: str, text: str, placed: list
) -> None:
    """A state's transition to itself: a ring outside the state, away from the drawing's
    centre, ending in an arrow; its label beyond the ring (and added to ``placed``)."""
    from matplotlib.patches import FancyArrowPatch

    radius, loop = look.node_radius, look.loop_radius
    outward = centre / (np.linalg.norm(centre) or 1.0) if states > 1 else np.array([0.0, 1.0])
    loop_centre = centre + outward * (radius + loop * 0.6)
    angles = np.linspace(0, 2 * math.pi, 80)
    ring = loop_centre + loop * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    outside = np.linalg.norm(ring - centre, axis=1) > radius
    ring = np.roll(ring, -int(np.argmin(outside)), axis=0)
    ring = ring[np.linalg.norm(ring - centre, axis=1) > radius]
    ax.plot(ring[:-3, 0], ring[:-3, 1], linestyle=line, **stroke)
    ax.add_patch(FancyArrowPatch(ring[-4], ring[-1], arrowstyle="-|>", mutation_scale=look.arrow * 10 / 12, **stroke))
    if look.edge_labels:
        anchor = loop_centre + outward * (loop + 0.05)
        placed.append((anchor, text_box(text)))
        ax.text(*anchor, text, fontsize=FONT, ha="center", va="center", bbox=LABEL_BOX, zorder=3)


def _draw_states(ax, graph: nx.DiGraph, pos: dict, look: GraphLook, weighed: bool) -> None:
    """Each state as a circle with its name (and, weighed by use, its share of the decisions,
    or a shade when the drawing is too small for the share); the start state ringed."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex
    from matplotlib.patches import Circle

    from fsmarena.figures.style import color

    most_visits = max([d.get("visits", 0) for _n, d in graph.nodes(data=True)] + [1])
    for node, data in graph.nodes(data=True):
        x, y = pos[node]
        fill = "#eef3f8"
        if weighed and not look.shares:  # too small for a share: the shade tells it
            fill = to_hex(colormaps["Blues"](0.05 + 0.5 * data["visits"] / most_visits))
        start = node == 0
        ring = {"ec": color(0) if start else "#555555", "lw": 2.5 if start else 1.0}
        ax.add_patch(Circle((x, y), look.node_radius, fc=fill, zorder=2, **ring))
        lines = [data["label"].replace(" (start)", "")]  # tests and actions: in the table below
        if weighed and look.shares:
            lines.append(percent(data["visits"], graph.graph["decisions"]))
        unused = weighed and not data["visits"]
        colour = UNUSED_TEXT if unused else "black"
        ax.text(x, y, "\n".join(lines), fontsize=look.font, ha="center", va="center", zorder=4, color=colour)


#: the curvatures (matplotlib's ``arc3`` rad) an edge between two states may take, in order
#: of preference: a lone edge tries each bulging away from the centre, then towards it


def _table_inputs(player, usage: "Usage | None", inputs: np.ndarray | None) -> np.ndarray:
    """The input codes a table FSM's table shows: ``inputs`` if given, else those that occur
    (all without usage); at most :data:`MAX_ROWS`, the most used first kept, in code order."""
    if inputs is None:
        inputs = np.arange(player.n_inputs) if usage is None else np.flatnonzero(_input_counts(usage))
    inputs = np.asarray(inputs, dtype=np.int64)
    if len(inputs) > MAX_ROWS:
        if usage is not None:
            inputs = inputs[np.argsort(-_input_counts(usage)[inputs], kind="stable")]
        inputs = np.sort(inputs[:MAX_ROWS])
    return inputs


def _input_counts(usage: "Usage") -> np.ndarray:
    """How often each input code occurred: a table FSM's usage always counts them."""
    if usage.inputs is None:
        raise ValueError("this usage counts no inputs (it is not a table FSM's)")
    return usage.inputs


def _draw_action_table(ax, graph: nx.DiGraph, player, game, usage: "Usage | None", rows: np.ndarray) -> None:
    """Inputs (rows, named in the game's words) x states (columns): each cell coloured by the
    action played and naming the next state; entries that never fired are faded.  At most
    :data:`fsmarena.figures.strategy_card.MAX_COLOURS` colours: with more actions on view they are
    grouped (low, middle, high) and every cell names its action too (:func:`_cell_texts`)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    states = np.array(in_file_order(graph), dtype=np.int64)
    names = game.action_names
    actions = player.action[0][np.ix_(states, rows)].T
    on_view = sorted(set(actions.ravel().tolist()))
    colour_of, key = colour_key(on_view, names)  # distinct among the actions on view, or grouped
    colours = [colour_of.get(a, "#ffffff") for a in range(len(names))]
    grouped = len(on_view) > MAX_COLOURS
    if grouped and len(states) > NAMED_ACTION_COLUMNS:  # cells give numbers: the key names each one
        key = [(colour_of[a], f"{a} {names[a]}") for a in on_view]
    used = np.ones(actions.shape, dtype=bool) if usage is None else usage.entries[np.ix_(states, rows)].T > 0
    ax.imshow(
        actions, aspect="auto", interpolation="nearest", cmap=ListedColormap(colours), vmin=-0.5, vmax=len(names) - 0.5
    )
    if not used.all():  # fade what never fired: a white veil over those cells
        veil = np.zeros((*used.shape, 4))
        veil[~used] = (1.0, 1.0, 1.0, 0.75)
        ax.imshow(veil, aspect="auto", interpolation="nearest")
    encoder = input_encoder(game, player.inputs)
    labels = [encoder.label(game, x) for x in rows]
    ax.set_yticks(range(len(rows)), labels, fontsize=FONT)
    _leave_room(ax, max(len(label) for label in labels))
    upright = len(states) <= MAX_COLUMN_STATES  # more columns: too narrow for names side by side
    ax.set_xticks(
        range(len(states)), [state_name(graph, int(s)) for s in states], fontsize=FONT, rotation=0 if upright else 90
    )
    ax.xaxis.tick_top()
    ax.tick_params(length=0, pad=1.5)
    texts, what = _cell_texts(graph, player, states, rows, names, grouped)
    for (row, col), text in np.ndenumerate(texts):
        if text:
            ax.text(
                col,
                row,
                text,
                ha="center",
                va="center",
                fontsize=FONT - 1,
                color=_ink(colours[actions[row, col]]) if used[row, col] else UNUSED_TEXT,
            )
    shown = f"{len(rows)} of {player.n_inputs} inputs"
    if usage is not None:
        shown += " met in play" + (" (the most frequent)" if len(rows) < np.count_nonzero(_input_counts(usage)) else "")
        shown += "; faded: never used"
    ax.set_xlabel(f"{what} per input and state\n{shown}", fontsize=FONT)
    box = ax.get_position()  # caption and legend are centred on the figure, not on the table
    ax.xaxis.set_label_coords((0.5 - box.x0) / box.width, -0.03 / (box.height * ax.figure.get_figheight()))
    ax.legend(  # only the actions on view (a Vautour machine uses a few of its 22 bids)
        handles=[Patch(color=colour, label=words) for colour, words in key],
        ncol=max(1, min(len(key), 4, int(ax.figure.get_figwidth() / _inches(max(len(w) for _c, w in key) + 8)))),
        loc="upper center",
        bbox_to_anchor=((0.5 - box.x0) / box.width, -0.02 - 0.25 / (TABLE_ROW * (len(rows) + 1) + 0.9)),
        frameon=False,
        fontsize=FONT,
        handlelength=1.0,
    )
    ax.spines[:].set_visible(False)


#: a table FSM's cells name their action in full up to this many columns (states), by number beyond
NAMED_ACTION_COLUMNS = 6


def _cell_texts(graph, player, states, rows, names, grouped: bool) -> tuple[np.ndarray, str]:
    """What each cell of a table FSM's table says, and the key's words: the next state (2 to
    16 states); with grouped colours the action too, by name in a table of at most
    :data:`NAMED_ACTION_COLUMNS` states and by number in a wider one."""
    actions = player.action[0][np.ix_(states, rows)].T
    next_state = player.next_state[0][np.ix_(states, rows)].T
    texts = np.full(actions.shape, "", dtype=object)
    with_state = 1 < len(states) <= 16
    by_name = len(states) <= NAMED_ACTION_COLUMNS
    for (row, col), target in np.ndenumerate(next_state):
        parts = [names[actions[row, col]] if by_name else str(actions[row, col])] if grouped else []
        if with_state:
            parts.append(state_name(graph, int(target)))
        texts[row, col] = " ".join(parts)
    if not grouped:
        return texts, "action (colour), next state"
    return (
        texts,
        f"action ({'named' if by_name else 'number'}; colour: its group){', next state' if with_state else ''}",
    )


#: characters of a line of a BDA drawing's feature legend
LEGEND_CHARS = 72


def feature_legend_lines(graph: nx.DiGraph, player, game) -> list[str]:
    """The features the drawn states test, spelled out in the game's words
    (:func:`fsmarena.games.phrases.feature_words`), wrapped to the column: ``Ttl: value of the
    card showing (0 when leading); Sml: ...``."""
    tested = sorted({int(player.genes[0][state, FEATURE]) for state in graph.nodes})
    names = [game.feature_names[f] for f in tested]
    text = "; ".join(f"{name}: {feature_words(game, name)}" for name in names)
    return textwrap.wrap(text, LEGEND_CHARS)


def _draw_bda_table(ax, graph: nx.DiGraph, player, game, usage: "Usage | None", legend: Sequence[str] = ()) -> None:
    """One line per state: its test, and for each branch the action, the next state and (with
    usage) the share of all tests it fired in; branches that never fired are grey.  Columns
    are as wide as their longest text, and the font shrinks if the lines would not fit.
    Under them the ``legend`` (the features spelled out)."""

    genes, names = player.genes[0], game.action_names
    lines: list[list[tuple[str, int | None]]] = [
        [("", None), ("test", None), ("if it holds (T)", None), ("if it fails (F)", None)]
    ]
    for state in in_file_order(graph):
        cells: list[tuple[str, int | None]] = [(state_name(graph, state), None), (graph.nodes[state]["test"], None)]
        for action, target, branch in ((TRUE_ACTION, TRUE_NEXT, 0), (FALSE_ACTION, FALSE_NEXT, 1)):
            text = f"{names[genes[state, action]]}\u2192{state_name(graph, int(genes[state, target]))}"
            fired = None
            if usage is not None:
                fired = int(usage.entries[state, branch] + (branch and usage.entries[state, 2]))
                text += f"  {percent(fired, graph.graph['moves'])}"
            cells.append((text, fired))
        lines.append(cells)
    chars = [max(len(line[column][0]) for line in lines) + 2 for column in range(4)]
    width_inches = ax.get_position().width * ax.figure.get_figwidth() * 1.2  # the table may use the margins
    size = min(FONT, width_inches / (sum(chars) * CHAR_EM) * 72)
    starts = np.cumsum([0, *chars[:-1]]) / sum(chars) * 1.2 - 0.1
    total = len(lines) + len(legend)
    for number, words in enumerate(legend, len(lines)):
        y = 1 - (number + 0.5) / total
        ax.text(starts[0], y, words, fontsize=size, va="center", transform=ax.transAxes, color="#333333")
    for number, line in enumerate(lines):
        y = 1 - (number + 0.5) / total
        for x, (text, fired) in zip(starts, line):
            grey = fired == 0
            weight = "bold" if number == 0 else "normal"
            ax.text(
                x,
                y,
                text,
                fontsize=size,
                fontweight=weight,
                va="center",
                transform=ax.transAxes,
                color=UNUSED_TEXT if grey else "black",
            )
    ax.set_axis_off()


def _inches(chars: int, size: float = FONT) -> float:
    """About how wide ``chars`` characters are at ``size`` points, in inches."""
    return chars * CHAR_EM * size / 72


def _leave_room(ax, chars: int) -> None:
    """Move the axes' left edge so that tick labels ``chars`` long fit inside the figure."""
    box = ax.get_position()
    left = (_inches(chars) + 0.08) / ax.figure.get_figwidth()
    ax.set_position([left, box.y0, 0.98 - left, box.height])


#: average width of a character, in ems of the font size (DejaVu Sans, with some room)
CHAR_EM = 0.6


def _ink(background: str) -> str:
    """Black on light colours, white on dark ones (relative luminance above one half)."""
    from matplotlib.colors import to_rgb

    red, green, blue = to_rgb(background)
    return "black" if 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.5 else "white"
