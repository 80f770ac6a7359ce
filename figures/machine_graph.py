"""Evolved machines as graphs: networkx ``DiGraph``, matplotlib figure, DOT and GraphML.

Nodes are the machine's states reachable from the start state 0 (unreachable states are
dropped).

* Table FSM: one edge per (source, target) pair, merging every input that makes that move;
  its ``label`` lists ``input / action`` lines (inputs in the game's words, e.g. ``lead: 1/4
  1/2 3/4 | opp: 1/2``), ``transitions`` counts them, and each node carries the share of
  inputs on which the state plays each action.  DOT and GraphML always carry the full lists.
* BDA: each node is labelled with its test (``S3: Coop > 0.412``); the true branch (solid)
  and the false branch (dashed) are edges labelled with their actions.  A true and a false
  branch to the same state share one edge (``T: ... / F: ...``).

With a machine's usage (:mod:`evo.usage`) nodes also carry ``visits`` and edges ``uses``.

The drawing is one journal column wide (page wide from 13 reachable states, with smaller
states and unlabelled edges: :func:`graph_look`; at most :data:`MAX_DRAWN_STATES`).  States
sit on a circle, state 0 at the top with a thick outline; a pair of opposite edges curves
apart, a lone edge bulges away from the centre, and edge labels take the spot along their curve that overlaps the states and the
labels already placed the least.  Edge labels are short: with usage, the share of moves (a
BDA: of tests) and a width to match, grey when never used; without, the inputs of an FSM
edge (or their number) and a BDA branch's action.  The details go in a table under the
graph: for a table FSM one row per input met in play (at most :data:`MAX_ROWS`, named in the
game's words) and one column per state, coloured by action with the next state written in,
faded where never used; for a BDA one line per state with its test and both branches.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence, cast

import networkx as nx
import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import atomic_path, write_text

if TYPE_CHECKING:
    from evo.usage import Machine, Usage
    from games.base import Game
    from games.players import Player

#: output formats of :func:`write_machine`
FORMATS = ("png", "svg", "pdf", "dot", "graphml")
#: an FSM edge with more transitions than this is summarised in the drawing
MAX_LISTED = 3


def machine_graph(
    player: "Player", game: "Game", usage: "Usage | None" = None, link: "StandsFor | None" = None
) -> nx.DiGraph:
    """The reachable part of a table FSM or BDA (member 0 of a stack) as a labelled DiGraph.

    With ``usage`` (:func:`evo.usage.measure_usage` of this machine) every node carries
    ``visits`` (decisions begun in the state) and every edge ``uses`` (times it fired), and the
    graph ``decisions`` (their total).  ``link`` (a minimised machine: :func:`stands_for`)
    names each state after the player file's states it plays for, so that a drawing's numbers
    are those of the file and of ``fsmarena inspect``; each node carries ``number`` (its name)
    and ``stands_for`` (the file's states, space separated), the graph ``file_states``."""
    from evo.bda import BinaryDecisionAutomaton
    from evo.table_fsm import TableFSM

    if isinstance(player, TableFSM):
        graph = _fsm_graph(player, game)
    elif isinstance(player, BinaryDecisionAutomaton):
        graph = _bda_graph(player, game)
    else:
        raise FsmarenaError(f"only table-fsm and bda players can be drawn, not '{player.kind}'")
    if link is not None:
        _rename(graph, link)
    if usage is not None:
        _add_usage(graph, usage)
    return graph


@dataclass(frozen=True)
class StandsFor:
    """A minimised machine's link to its player file: per minimal state, the file's states it
    stands for (ascending), and how many states the file declares."""

    groups: tuple[tuple[int, ...], ...]
    file_states: int


def stands_for(state_of: np.ndarray) -> StandsFor:
    """From :attr:`evo.minimise.Minimal.state_of` (per file state its minimal state, -1: no
    longer reachable)."""
    states = np.asarray(state_of).tolist()
    groups = tuple(tuple(s for s, m in enumerate(states) if m == minimal) for minimal in range(max(states) + 1))
    return StandsFor(groups, len(states))


def state_name(graph: nx.DiGraph, state: int) -> str:
    """How a drawing names ``state``: ``S`` and its number in the player file."""
    return f"S{graph.nodes[state].get('number', state)}"


def _rename(graph: nx.DiGraph, link: StandsFor) -> None:
    """Name every state after the lowest of the file's states it stands for (the start state
    stays S0: minimisation keeps it first)."""
    graph.graph["file_states"] = link.file_states
    for state in graph.nodes:
        number = min(link.groups[state])
        node = graph.nodes[state]
        node["number"] = number
        node["stands_for"] = " ".join(str(s) for s in link.groups[state])
        node["label"] = f"S{number}" + (" (start)" if state == 0 else "")


def minimal_for_drawing(
    player: "Machine", game: "Game", panel: "Sequence[Player] | None" = None, games: int | None = None, seed: int = 0
) -> tuple["Machine", np.ndarray | None, "Usage | None", StandsFor]:
    """The minimal machine a drawing shows (``draw --minimise``, a study's best machines):
    minimised on the inputs met in ``games`` games per opponent of ``panel`` (exactly, over
    every input, with ``games=0``; default :data:`evo.usage.DEFAULT_GAMES`), the input codes it
    keeps, its usage in the same games (None with ``games=0``) and, per state, the player
    file's states it stands for."""
    from evo.minimise import minimise
    from evo.usage import DEFAULT_GAMES, measure_usage, observed_domain

    games = DEFAULT_GAMES if games is None else games
    domain = observed_domain(player, game, panel, games, seed) if games else None
    minimal = minimise(player, domain)
    machine = cast("Machine", minimal.player)  # minimise keeps the machine's kind
    usage = measure_usage(machine, game, panel, games, seed) if games else None
    return machine, minimal.inputs, usage, stands_for(minimal.state_of)


def _add_usage(graph: nx.DiGraph, usage: "Usage") -> None:
    """Copy the usage counts onto the graph's nodes and edges."""
    moves = usage.transitions
    graph.graph["decisions"] = usage.decisions
    graph.graph["games"] = usage.games
    # what edge shares count: an FSM moves once per decision, a BDA once per test
    graph.graph["moves"] = int(moves.sum())
    for node in graph.nodes:
        graph.nodes[node]["visits"] = int(usage.visits[node])
    for source, target in graph.edges:
        graph.edges[source, target]["uses"] = int(moves[source, target])


def reachable(edges: dict[int, set[int]], start: int = 0) -> list[int]:
    """States reachable from ``start`` along ``edges`` (state -> successors), in visit order."""
    seen, queue = [start], [start]
    while queue:
        for target in sorted(edges[queue.pop(0)]):
            if target not in seen:
                seen.append(target)
                queue.append(target)
    return seen


def _fsm_graph(player, game) -> nx.DiGraph:
    from evo.inputs import input_encoder

    encoder = input_encoder(game, player.inputs)
    next_state, action = player.next_state[0], player.action[0]
    successors = {s: set(next_state[s].tolist()) for s in range(player.n_states)}
    states = reachable(successors)
    graph = nx.DiGraph(kind="table-fsm", name=player.label, inputs=player.inputs, game=game.name)
    names = game.action_names
    for s in states:
        counts = Counter(int(a) for a in action[s])
        share = "  ".join(f"{names[a]} {counts[a] / player.n_inputs:.0%}" for a in sorted(counts))
        graph.add_node(s, label=f"S{s}" + (" (start)" if s == 0 else ""), actions=share)
    moves: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for s in states:
        for x in range(player.n_inputs):
            moves[(s, int(next_state[s, x]))].append((x, int(action[s, x])))
    for (s, t), transitions in sorted(moves.items()):
        lines = [f"{encoder.label(game, x)} / {names[a]}" for x, a in transitions]
        graph.add_edge(s, t, label="\n".join(lines), transitions=len(transitions))
    return graph


def _bda_graph(player, game) -> nx.DiGraph:
    from evo.bda import FALSE_ACTION, FALSE_NEXT, TRUE_ACTION, TRUE_NEXT, state_to_json

    genes = player.genes[0]
    successors = {s: {int(genes[s, TRUE_NEXT]), int(genes[s, FALSE_NEXT])} for s in range(player.n_states)}
    states = reachable(successors)
    graph = nx.DiGraph(kind="bda", name=player.label, max_tests=player.max_tests, game=game.name)
    names = game.action_names
    for s in states:
        state = state_to_json(genes[s], game.feature_names, names)
        test = f"{state['feature']} {state['test']} {state['theta']:.3f}"
        graph.add_node(s, label=f"S{s}" + (" (start)" if s == 0 else ""), test=test)
    for s in states:
        branches = (
            ("true", "T", int(genes[s, TRUE_NEXT]), names[genes[s, TRUE_ACTION]]),
            ("false", "F", int(genes[s, FALSE_NEXT]), names[genes[s, FALSE_ACTION]]),
        )
        for branch, short, target, act in branches:
            text = f"{short}: {act}"
            if graph.has_edge(s, target):
                edge = graph.edges[s, target]
                edge["label"] += f" / {text}"
                edge["branch"] = "both"
            else:
                graph.add_edge(s, target, label=text, branch=branch)
    return graph


# ---- output ------------------------------------------------------------------------------------


def write_machine(
    player: "Player",
    game: "Game",
    path: str | Path,
    title: str = "",
    usage: "Usage | None" = None,
    inputs: np.ndarray | None = None,
    measure: bool = True,
    link: StandsFor | None = None,
) -> nx.DiGraph:
    """Write the machine as PNG, SVG or PDF (drawing), DOT or GraphML, by ``path``'s suffix;
    returns its graph.  ``usage`` weights the drawing by use; without it and with ``measure``
    the machine first plays the game's builtins (:func:`evo.usage.measure_usage` with its
    defaults), so every drawing, the studies' included, shows what the machine does in play.
    ``inputs`` (input codes) are the rows of a table FSM's table (default: those used, or all
    without usage).  ``link``: the machine is a minimised one (:func:`minimal_for_drawing`);
    its states are named after the file's and the drawing says it was minimised."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise FsmarenaError(f"cannot write '{path.name}': the output must end in {', '.join('.' + f for f in FORMATS)}")
    if usage is None and measure:
        from evo.usage import measure_usage

        usage = measure_usage(player, game)
    graph = machine_graph(player, game, usage, link)
    if fmt == "dot":
        write_text(path, to_dot(graph))
    elif fmt == "graphml":
        with atomic_path(path) as tmp:
            nx.write_graphml(graph, tmp)
    else:
        draw_machine(graph, path, fmt, title, player, game, usage, inputs)
    return graph


def _dot_quote(text: object) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: nx.DiGraph) -> str:
    """Graphviz DOT text of ``graph`` (no graphviz package needed to write it)."""
    lines = [
        f"digraph {_dot_quote(graph.graph.get('name', 'machine'))} {{",
        "  node [shape=ellipse, fontname=Helvetica];",
        "  edge [fontname=Helvetica, fontsize=10];",
    ]
    for node, data in graph.nodes(data=True):
        detail = data.get("test") or data.get("actions", "")
        lines.append(
            f"  {node} [label={_dot_quote(data['label'] + chr(10) + detail)}"
            + (", peripheries=2" if node == 0 else "")
            + "];"
        )
    for source, target, data in graph.edges(data=True):
        style = {"true": "solid", "false": "dashed", "both": "bold"}.get(data.get("branch", ""), "solid")
        lines.append(f"  {source} -> {target} [label={_dot_quote(data['label'])}, style={style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- drawing -------------------------------------------------------------------------------------

#: font size of every text in a machine drawing (points), and the grey of what never fired
FONT = 5.5
UNUSED = "#cccccc"
UNUSED_TEXT = "#999999"
NODE_RADIUS = 0.18
LOOP_RADIUS = 0.09
CURVATURE = 0.3
#: machines up to this many reachable states are drawn one column wide, every edge labelled;
#: larger ones page wide, with smaller states and no edge labels (the table names every move)
MAX_COLUMN_STATES = 12
#: the most reachable states a drawing shows (DOT and GraphML files carry any machine)
MAX_DRAWN_STATES = limits.MAX_DRAWN_STATES
#: the smallest font a state's name is drawn in (points)
MIN_FONT = 3.0


@dataclass(frozen=True)
class GraphLook:
    """Sizes of a machine drawing for its number of states (:func:`graph_look`)."""

    width: float  # of the figure, inches
    node_radius: float  # of a state, in the units of the unit circle the states sit on
    font: float  # of the states' names, points
    edge_labels: bool  # whether edges carry labels (else their width and colour say it all)
    shares: bool  # whether states show the share of decisions begun there
    arrow: float  # size of an arrow head (matplotlib's mutation_scale)

    @property
    def loop_radius(self) -> float:
        return self.node_radius * LOOP_RADIUS / NODE_RADIUS


def graph_look(states: int) -> GraphLook:
    """Up to :data:`MAX_COLUMN_STATES` states: one column, full-size states and labelled edges.
    More: a page-wide figure whose states shrink to keep a gap between neighbours on the circle
    (radius 0.45 of half their distance), with the names' font shrunk to fit (two lines, the
    name and its share, while that stays at 4 points or more; the name alone below)."""
    from figures.style import COLUMN_WIDTH, PAGE_WIDTH

    if states <= MAX_COLUMN_STATES:
        return GraphLook(COLUMN_WIDTH, NODE_RADIUS, FONT, edge_labels=True, shares=True, arrow=12.0)
    radius = min(NODE_RADIUS, 0.45 * math.sin(math.pi / states))
    # a state's diameter in points: the axes span about 2.7 units over 85% of the width
    diameter = 2 * radius * PAGE_WIDTH * 0.85 * 72 / 2.7
    two_lines = min(FONT, diameter / 2.6)
    font = two_lines if two_lines >= 4.0 else max(MIN_FONT, min(FONT, diameter / 2.2))
    arrow = max(4.0, 12.0 * radius / NODE_RADIUS * PAGE_WIDTH / COLUMN_WIDTH)
    return GraphLook(PAGE_WIDTH, radius, font, edge_labels=False, shares=two_lines >= 4.0, arrow=arrow)


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
    from figures.style import plt, save_as, style

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
    Call inside :func:`figures.style.style`; the caller closes the figure."""
    from figures.style import plt

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
        fig, (ax, table_ax) = _two_panels(look, TABLE_ROW * 1.4 * (states + 1) + 0.1)
        _draw_bda_table(table_ax, graph, player, game, usage)
        _draw_graph(ax, graph, look)
    explained = _default_title(graph, look)
    if title:  # a caller's title replaces the first line, never the key to the drawing
        explained = "\n".join([title, *explained.split("\n")[1:]])
    ax.set_title(explained, fontsize=6.5)
    return fig


def _two_panels(look: GraphLook, table_height: float) -> Any:
    """A figure ``look.width`` wide: the graph above a table ``table_height`` inches high."""
    from figures.style import plt

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
    from figures.style import COLUMN_WIDTH

    return GRAPH_HEIGHT * look.width / COLUMN_WIDTH


#: height of the graph panel, and of one table row, in inches
GRAPH_HEIGHT = 3.3
TABLE_ROW = 0.105
#: a table FSM's table shows at most this many inputs (the most used ones)
MAX_ROWS = 48


def in_file_order(graph: nx.DiGraph) -> list[int]:
    """The drawn states in the order of their names (the player file's numbers)."""
    return sorted(graph.nodes, key=lambda state: graph.nodes[state].get("number", state))


def _positions(graph: nx.DiGraph) -> dict[int, np.ndarray]:
    """Each state's place on the unit circle: S0 at the top, the others clockwise in the
    machine's own order (a minimised machine's is breadth first from S0, which keeps a state
    near the states it moves to; the table under the graph lists them by name)."""
    nodes = sorted(graph.nodes)
    n = len(nodes)
    if n == 1:
        return {nodes[0]: np.zeros(2)}
    return {
        node: np.array([math.cos(math.pi / 2 - 2 * math.pi * i / n), math.sin(math.pi / 2 - 2 * math.pi * i / n)])
        for i, node in enumerate(nodes)
    }


def _bezier(p0: np.ndarray, p1: np.ndarray, rad: float, t: np.ndarray) -> np.ndarray:
    """Points of matplotlib's ``arc3`` curve from p0 to p1 (a quadratic Bezier)."""
    d = p1 - p0
    control = (p0 + p1) / 2 + rad * np.array([d[1], -d[0]])
    t = t[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t**2 * p1


def _draw_graph(ax, graph: nx.DiGraph, look: GraphLook) -> None:
    from matplotlib import colormaps
    from matplotlib.colors import to_hex
    from matplotlib.patches import Circle, FancyArrowPatch

    from figures.style import color

    pos = _positions(graph)
    kinds = {"true": (color(2), "-"), "false": (color(3), "--"), "both": ("#333333", "-")}
    weighed = "decisions" in graph.graph
    weight = "uses" if weighed else "transitions"
    max_count = max([d.get(weight, 1) for _s, _t, d in graph.edges(data=True)] + [1])
    label_box = {"boxstyle": "round,pad=0.2", "fc": "white", "ec": "#bbbbbb", "lw": 0.4, "alpha": 0.9}
    # boxes to keep edge labels off: the states, then each label placed (centre, half size)
    radius, loop = look.node_radius, look.loop_radius
    placed = [(pos[node], np.array([radius, radius])) for node in graph.nodes]
    routes = route_edges(graph, radius)
    for source, target, data in graph.edges(data=True):
        edge_color, line = kinds[data.get("branch", "both")]
        width = 0.5 + 2.0 * data[weight] / max_count if weight in data else 1.2
        if weighed and not data["uses"]:
            edge_color, width = UNUSED, 0.6
        text = _drawn_label(data, graph.graph.get("moves"))
        if source == target:
            centre = pos[source]
            outward = centre / (np.linalg.norm(centre) or 1.0) if len(pos) > 1 else np.array([0.0, 1.0])
            loop_centre = centre + outward * (radius + loop * 0.6)
            angles = np.linspace(0, 2 * math.pi, 80)
            ring = loop_centre + loop * np.stack([np.cos(angles), np.sin(angles)], axis=1)
            outside = np.linalg.norm(ring - centre, axis=1) > radius
            ring = np.roll(ring, -int(np.argmin(outside)), axis=0)
            ring = ring[np.linalg.norm(ring - centre, axis=1) > radius]
            ax.plot(ring[:-3, 0], ring[:-3, 1], color=edge_color, linestyle=line, lw=width, zorder=1)
            ax.add_patch(
                FancyArrowPatch(
                    ring[-4],
                    ring[-1],
                    arrowstyle="-|>",
                    mutation_scale=look.arrow * 10 / 12,
                    color=edge_color,
                    lw=width,
                    zorder=1,
                )
            )
            if look.edge_labels:
                anchor = loop_centre + outward * (loop + 0.05)
                placed.append((anchor, _box(text)))
                ax.text(*anchor, text, fontsize=FONT, ha="center", va="center", bbox=label_box, zorder=3)
            continue
        rad, curve = routes[(source, target)]
        ax.plot(curve[:-2, 0], curve[:-2, 1], color=edge_color, linestyle=line, lw=width, zorder=1)
        ax.add_patch(
            FancyArrowPatch(
                curve[-4], curve[-1], arrowstyle="-|>", mutation_scale=look.arrow, color=edge_color, lw=width, zorder=1
            )
        )
        if not look.edge_labels:
            continue
        candidates = _bezier(pos[source], pos[target], rad, np.array(LABEL_SPOTS))
        spot = _free_spot(candidates, text, placed)
        placed.append((spot, _box(text)))
        ax.text(*spot, text, fontsize=FONT, ha="center", va="center", bbox=label_box, zorder=3)
    most_visits = max([d.get("visits", 0) for _n, d in graph.nodes(data=True)] + [1])
    for node, data in graph.nodes(data=True):
        x, y = pos[node]
        fill = "#eef3f8"
        if weighed and not look.shares:  # too small for a share: the shade tells it
            fill = to_hex(colormaps["Blues"](0.05 + 0.5 * data["visits"] / most_visits))
        ax.add_patch(
            Circle(
                (x, y),
                radius,
                fc=fill,
                ec=color(0) if node == 0 else "#555555",
                lw=2.5 if node == 0 else 1.0,
                zorder=2,
            )
        )
        lines = [data["label"].replace(" (start)", "")]  # tests and actions: in the table below
        if weighed and look.shares:
            lines.append(share_text(data["visits"], graph.graph["decisions"]))
        unused = weighed and not data["visits"]
        ax.text(
            x,
            y,
            "\n".join(lines),
            fontsize=look.font,
            ha="center",
            va="center",
            zorder=4,
            color=UNUSED_TEXT if unused else "black",
        )
    ax.set_aspect("equal")
    extent = 1.0 + radius + 2 * loop + 0.15
    ax.set_xlim(-extent, extent)
    ax.set_ylim(-extent, extent)
    ax.set_axis_off()


#: the curvatures (matplotlib's ``arc3`` rad) an edge between two states may take, in order
#: of preference: a lone edge tries each bulging away from the centre, then towards it
CURVATURES = (0.3, 0.15, 0.0, 0.45, 0.6, 0.8, 1.0, 1.3)
#: the least gap between an edge and a state it does not join (units of the unit circle)
CLEARANCE = 0.015


def route_edges(graph: nx.DiGraph, radius: float) -> dict[tuple[int, int], tuple[float, np.ndarray]]:
    """Each edge between two states (self-loops aside): its curvature and the points of its
    curve outside its two states, chosen so that it passes no other state.

    A lone edge prefers to bulge away from the centre (the middle stays clear for labels) and
    a pair of opposite edges curves apart; the first curvature of :data:`CURVATURES` whose
    curve keeps :data:`CLEARANCE` from every other state is taken (the clearest one if none
    does).  States sit on a circle, so a curve that follows it through a neighbour is common
    without this search."""
    pos = _positions(graph)
    routes = {}
    for source, target in graph.edges:
        if source == target:
            continue
        others = np.array([pos[n] for n in graph.nodes if n not in (source, target)]).reshape(-1, 2)
        if graph.has_edge(target, source):  # a positive curvature bends each of the pair its own way
            options = [c for c in CURVATURES if c > 0]
        else:
            outward = 1.0 if _bulges_outward(pos[source], pos[target], 1.0) else -1.0
            options = list(dict.fromkeys(sign * outward * c for c in CURVATURES for sign in (1.0, -1.0)))
        tried = []
        for rad in options:
            curve = _edge_curve(pos[source], pos[target], rad, radius)
            gap = _clearance(curve, others) - radius
            if gap >= CLEARANCE:
                routes[(source, target)] = (rad, curve)
                break
            tried.append((gap, rad, curve))
        else:
            _gap, rad, curve = max(tried, key=lambda option: option[0])
            routes[(source, target)] = (rad, curve)
    return routes


def _bulges_outward(p0: np.ndarray, p1: np.ndarray, rad: float) -> bool:
    """Whether the ``arc3`` curve of curvature ``rad`` from p0 to p1 bends away from the centre."""
    d = p1 - p0
    control = (p0 + p1) / 2 + rad * np.array([d[1], -d[0]])
    return bool(np.linalg.norm(control) >= np.linalg.norm((p0 + p1) / 2))


def _edge_curve(p0: np.ndarray, p1: np.ndarray, rad: float, radius: float) -> np.ndarray:
    """The drawn part of an edge: its curve from p0 to p1 outside both states."""
    curve = _bezier(p0, p1, rad, np.linspace(0, 1, 120))
    inside = (np.linalg.norm(curve - p0, axis=1) < radius) | (np.linalg.norm(curve - p1, axis=1) < radius + 0.01)
    return curve[~inside]


def _clearance(points: np.ndarray, centres: np.ndarray) -> float:
    """The least distance from the polyline through ``points`` to any of ``centres`` (inf
    without centres)."""
    if not len(centres) or len(points) < 2:
        return math.inf
    start, end = points[:-1], points[1:]
    step = end - start
    length = np.maximum((step**2).sum(axis=1), 1e-18)
    # per segment and centre: the nearest point of the segment
    t = np.clip(((centres[:, None, :] - start[None]) * step[None]).sum(axis=2) / length[None], 0.0, 1.0)
    nearest = start[None] + t[..., None] * step[None]
    return float(np.linalg.norm(centres[:, None, :] - nearest, axis=2).min())


#: where along an edge (0 = source, 1 = target) its label may go, in order of preference
LABEL_SPOTS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8)


def _box(text: str) -> np.ndarray:
    """Approximate half width and half height of an edge label, in axis units."""
    lines = text.split("\n")
    return np.array([0.022 * max(len(line) for line in lines) + 0.03, 0.06 * len(lines) + 0.02])


def _free_spot(candidates: np.ndarray, text: str, placed: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The candidate position whose label box overlaps the labels already placed the least."""
    half = _box(text)

    def overlap(spot: np.ndarray) -> float:
        total = 0.0
        for centre, other in placed:
            sides = np.clip(half + other - np.abs(spot - centre), 0.0, None)
            total += sides[0] * sides[1]
        return total

    costs = [overlap(spot) for spot in candidates]
    return candidates[int(np.argmin(costs))]


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
    action played and naming the next state; entries that never fired are faded."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from evo.inputs import input_encoder
    from figures.style import action_colours

    states = np.array(in_file_order(graph), dtype=np.int64)
    names = game.action_names
    actions = player.action[0][np.ix_(states, rows)].T
    on_view = sorted(set(actions.ravel().tolist()))
    colours = action_colours(on_view, len(names))  # distinct among the actions on view
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
    if 1 < len(states) <= 16:
        next_state = player.next_state[0][np.ix_(states, rows)].T
        for (row, col), target in np.ndenumerate(next_state):
            ax.text(
                col,
                row,
                state_name(graph, int(target)),
                ha="center",
                va="center",
                fontsize=FONT - 1,
                color=_ink(colours[actions[row, col]]) if used[row, col] else UNUSED_TEXT,
            )
    shown = f"{len(rows)} of {player.n_inputs} inputs"
    if usage is not None:
        shown += " met in play" + (" (the most frequent)" if len(rows) < np.count_nonzero(_input_counts(usage)) else "")
        shown += "; faded: never used"
    ax.set_xlabel(f"action (colour), next state per input and state\n{shown}", fontsize=FONT)
    box = ax.get_position()  # caption and legend are centred on the figure, not on the table
    ax.xaxis.set_label_coords((0.5 - box.x0) / box.width, -0.03 / (box.height * ax.figure.get_figheight()))
    ax.legend(  # only the actions on view (a Vautour machine uses a few of its 22 bids)
        handles=[Patch(color=colours[a], label=names[a]) for a in on_view],
        ncol=max(1, min(len(on_view), 4, int(ax.figure.get_figwidth() / _inches(max(map(len, names)) + 8)))),
        loc="upper center",
        bbox_to_anchor=((0.5 - box.x0) / box.width, -0.02 - 0.25 / (TABLE_ROW * (len(rows) + 1) + 0.9)),
        frameon=False,
        fontsize=FONT,
        handlelength=1.0,
    )
    ax.spines[:].set_visible(False)


def _draw_bda_table(ax, graph: nx.DiGraph, player, game, usage: "Usage | None") -> None:
    """One line per state: its test, and for each branch the action, the next state and (with
    usage) the share of all tests it fired in; branches that never fired are grey.  Columns
    are as wide as their longest text, and the font shrinks if the lines would not fit."""
    from evo.bda import FALSE_ACTION, FALSE_NEXT, TRUE_ACTION, TRUE_NEXT

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
                text += f"  {share_text(fired, graph.graph['moves'])}"
            cells.append((text, fired))
        lines.append(cells)
    chars = [max(len(line[column][0]) for line in lines) + 2 for column in range(4)]
    width_inches = ax.get_position().width * ax.figure.get_figwidth() * 1.2  # the table may use the margins
    size = min(FONT, width_inches / (sum(chars) * CHAR_EM) * 72)
    starts = np.cumsum([0, *chars[:-1]]) / sum(chars) * 1.2 - 0.1
    for number, line in enumerate(lines):
        y = 1 - (number + 0.5) / len(lines)
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


def share_text(count: int, total: int) -> str:
    """``count`` as a share of ``total`` for people: ``31%``, ``<1%`` or ``0``."""
    if not count:
        return "0"
    share = count / total
    return "<1%" if share < 0.005 else f"{share:.0%}"


def _drawn_label(data: dict, moves: int | None) -> str:
    if moves is not None:
        return share_text(data["uses"], moves)
    if "transitions" in data and data["transitions"] > MAX_LISTED:
        return f"{data['transitions']} inputs"
    return data["label"]


def _default_title(graph: nx.DiGraph, look: GraphLook | None = None) -> str:
    """Short lines, so that the title never makes the figure wider than a column; the key
    says what states and edges show in a drawing of ``look`` (default: a column-wide one)."""
    edge_labels = look is None or look.edge_labels
    shares = look is None or look.shares
    info = graph.graph
    bda = info.get("kind") == "bda"
    lines = [f"{'BDA' if bda else 'table FSM'} '{info.get('name')}' ({info.get('game')})"]
    if "file_states" in info:
        lines += minimised_note(graph)
    if bda:
        lines.append(f"T: test holds (solid), F: fails (dashed); F acts after {info.get('max_tests')} fails")
    else:
        lines.append(f"inputs '{info.get('inputs')}'")
    moves = "tests" if bda else "moves"
    if "decisions" in info:
        node = "node %" if shares else "node shade"
        lines.append(f"{node}: decisions begun there ({info['decisions']} in {info['games']} games)")
        lines.append(f"edge {'%' if edge_labels else 'width'}: share of {moves}; grey: never used")
    elif not bda:
        lines.append(
            "edge: the inputs that make the move (width: how many)"
            if edge_labels
            else "edge width: how many inputs make the move"
        )
    return "\n".join(lines)


#: merged states a drawing's note lists by name (the rest are counted)
MAX_MERGES_NAMED = 3


def minimised_note(graph: nx.DiGraph) -> list[str]:
    """The lines a drawing of a minimised machine carries under its title: that it was
    minimised, from how many states, that the numbers are the player file's (the lowest of
    the states each one stands for) and which states were merged."""
    drawn, total = graph.number_of_nodes(), graph.graph["file_states"]
    lines = [f"minimised: {drawn} of {total} states; numbers as in the player file"]
    groups = [graph.nodes[n]["stands_for"].split() for n in in_file_order(graph)]
    merged = [group for group in groups if len(group) > 1]
    if merged:
        named = [f"S{'=S'.join(group)}" for group in merged[:MAX_MERGES_NAMED]]
        more = len(merged) - len(named)
        lines.append("merged: " + ", ".join(named) + (f" and {more} more" if more else ""))
    return lines


def machine_caption(graph: nx.DiGraph) -> str:
    """What a machine drawing shows, in words (the report writers print it under the figure)."""
    info = graph.graph
    bda = info.get("kind") == "bda"
    parts = [
        f"{'Binary decision automaton' if bda else 'Table FSM'} '{info.get('name')}': its {graph.number_of_nodes()} "
        "reachable states on a circle (S0, thick outline, is the start), an arrow per move"
        + (" (solid: the test holds, dashed: it fails)" if bda else "")
        + "; under the graph, "
        + ("each state's test and where each branch leads." if bda else "the action and next state per input.")
    ]
    if "file_states" in info:
        parts.append(
            f"Minimised from the player file's {info['file_states']} states to the machine that plays alike on the "
            "inputs met in play; each state keeps the number of the lowest file state it stands for."
        )
    if "decisions" in info:
        parts.append(
            f"Weighted by use in {info['games']:,} games against the game's builtins: a state's share of the "
            f"{info['decisions']:,} decisions begun there, an edge's share of the {'tests' if bda else 'moves'}; "
            "grey: never used."
        )
    return " ".join(parts)
