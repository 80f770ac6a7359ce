"""Evolved machines as graphs: networkx ``DiGraph``, matplotlib figure, DOT and GraphML.

Nodes are the machine's states reachable from the start state 0 (unreachable states are
dropped).

* Table FSM: one edge per (source, target) pair, merging every input that makes that move;
  its ``label`` lists ``input / action`` lines (inputs in the game's words, e.g. ``lead: 1/4
  1/2 3/4 | opp: 1/2``), ``transitions`` counts them, and each node carries the share of
  inputs on which the state plays each action.  The drawing lists an edge's lines when it has
  at most three and otherwise the number of inputs (line width grows with it), and adds a
  panel with the whole action table (state x input, coloured by action; inputs named and next
  states written in the cells when they fit).  DOT and GraphML always carry the full lists.
* BDA: each node is labelled with its test (``S3: Coop > 0.412``); the true branch (solid)
  and the false branch (dashed) are edges labelled with their actions.  A true and a false
  branch to the same state share one edge (``T: ... / F: ...``).

States sit on a circle, state 0 at the top with a thick outline; a pair of opposite edges
curves apart, a lone edge bulges away from the centre, and edge labels take the spot along
their curve that overlaps the labels already placed the least.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import atomic_path, write_text

if TYPE_CHECKING:
    from games.base import Game
    from games.players import Player

#: output formats of :func:`write_machine`
FORMATS = ("png", "svg", "pdf", "dot", "graphml")
#: an FSM edge with more transitions than this is summarised in the drawing
MAX_LISTED = 3


def machine_graph(player: "Player", game: "Game") -> nx.DiGraph:
    """The reachable part of a table FSM or BDA (member 0 of a stack) as a labelled DiGraph."""
    from evo.bda import BinaryDecisionAutomaton
    from evo.table_fsm import TableFSM

    if isinstance(player, TableFSM):
        return _fsm_graph(player, game)
    if isinstance(player, BinaryDecisionAutomaton):
        return _bda_graph(player, game)
    raise FsmarenaError(f"only table-fsm and bda players can be drawn, not '{player.kind}'")


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


def write_machine(player: "Player", game: "Game", path: str | Path, title: str = "") -> nx.DiGraph:
    """Write the machine as PNG, SVG or PDF (drawing), DOT or GraphML, by ``path``'s suffix;
    returns its graph."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise FsmarenaError(f"cannot write '{path.name}': the output must end in {', '.join('.' + f for f in FORMATS)}")
    graph = machine_graph(player, game)
    if fmt == "dot":
        write_text(path, to_dot(graph))
    elif fmt == "graphml":
        with atomic_path(path) as tmp:
            nx.write_graphml(graph, tmp)
    else:
        draw_machine(graph, path, fmt, title, player, game)
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

NODE_RADIUS = 0.25
LOOP_RADIUS = 0.09
CURVATURE = 0.3


def draw_machine(
    graph: nx.DiGraph, path: Path, fmt: str, title: str = "", player: "Player | None" = None, game: "Game | None" = None
) -> None:
    """Draw the machine: states on a circle (start at the top, thick outline), curved edges
    with their labels at the middle of the curve, self-loops outside their state.  Table FSMs
    get a second panel: the action table (state x input), coloured by action."""
    from figures.style import PAGE_WIDTH, plt, style

    fsm = graph.graph.get("kind") == "table-fsm"
    with style():
        if fsm and player is not None:
            fig, (ax, table_ax) = plt.subplots(
                2, 1, figsize=(PAGE_WIDTH, PAGE_WIDTH * 1.1), gridspec_kw={"height_ratios": [3, 1]}
            )
            _draw_action_table(table_ax, graph, player, game)
        else:
            fig, ax = plt.subplots(figsize=(PAGE_WIDTH, PAGE_WIDTH * 0.9))
        _draw_graph(ax, graph)
        ax.set_title(title or _default_title(graph), fontsize=8)
        try:
            with atomic_path(path) as tmp:
                fig.savefig(tmp, format=fmt, dpi=200)
        finally:
            plt.close(fig)


def _positions(nodes: list[int]) -> dict[int, np.ndarray]:
    n = len(nodes)
    if n == 1:
        return {nodes[0]: np.zeros(2)}
    return {
        node: np.array([math.cos(math.pi / 2 - 2 * math.pi * i / n), math.sin(math.pi / 2 - 2 * math.pi * i / n)])
        for i, node in enumerate(sorted(nodes))
    }


def _bezier(p0: np.ndarray, p1: np.ndarray, rad: float, t: np.ndarray) -> np.ndarray:
    """Points of matplotlib's ``arc3`` curve from p0 to p1 (a quadratic Bezier)."""
    d = p1 - p0
    control = (p0 + p1) / 2 + rad * np.array([d[1], -d[0]])
    t = t[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t**2 * p1


def _draw_graph(ax, graph: nx.DiGraph) -> None:
    from matplotlib.patches import Circle, FancyArrowPatch

    from figures.style import color

    pos = _positions(list(graph.nodes))
    kinds = {"true": (color(2), "-"), "false": (color(3), "--"), "both": ("#333333", "-")}
    max_count = max([d.get("transitions", 1) for _s, _t, d in graph.edges(data=True)] + [1])
    label_box = {"boxstyle": "round,pad=0.2", "fc": "white", "ec": "#bbbbbb", "lw": 0.4, "alpha": 0.9}
    placed: list[tuple[np.ndarray, np.ndarray]] = []  # edge labels drawn so far: centre, half size
    for source, target, data in graph.edges(data=True):
        edge_color, line = kinds[data.get("branch", "both")]
        width = 0.6 + 1.8 * data["transitions"] / max_count if "transitions" in data else 1.3
        text = _drawn_label(data)
        if source == target:
            centre = pos[source]
            outward = centre / (np.linalg.norm(centre) or 1.0) if len(pos) > 1 else np.array([0.0, 1.0])
            loop_centre = centre + outward * (NODE_RADIUS + LOOP_RADIUS * 0.6)
            angles = np.linspace(0, 2 * math.pi, 80)
            ring = loop_centre + LOOP_RADIUS * np.stack([np.cos(angles), np.sin(angles)], axis=1)
            outside = np.linalg.norm(ring - centre, axis=1) > NODE_RADIUS
            ring = np.roll(ring, -int(np.argmin(outside)), axis=0)
            ring = ring[np.linalg.norm(ring - centre, axis=1) > NODE_RADIUS]
            ax.plot(ring[:-3, 0], ring[:-3, 1], color=edge_color, linestyle=line, lw=width, zorder=1)
            ax.add_patch(
                FancyArrowPatch(
                    ring[-4], ring[-1], arrowstyle="-|>", mutation_scale=10, color=edge_color, lw=width, zorder=1
                )
            )
            anchor = loop_centre + outward * (LOOP_RADIUS + 0.05)
            ax.text(*anchor, text, fontsize=6, ha="center", va="center", bbox=label_box, zorder=3)
            continue
        rad = CURVATURE
        if not graph.has_edge(target, source):  # a lone edge bulges away from the centre
            d = pos[target] - pos[source]
            control = (pos[source] + pos[target]) / 2 + rad * np.array([d[1], -d[0]])
            if np.linalg.norm(control) < np.linalg.norm((pos[source] + pos[target]) / 2):
                rad = -rad
        curve = _bezier(pos[source], pos[target], rad, np.linspace(0, 1, 120))
        inside = (np.linalg.norm(curve - pos[source], axis=1) < NODE_RADIUS) | (
            np.linalg.norm(curve - pos[target], axis=1) < NODE_RADIUS + 0.01
        )
        curve = curve[~inside]
        ax.plot(curve[:-2, 0], curve[:-2, 1], color=edge_color, linestyle=line, lw=width, zorder=1)
        ax.add_patch(
            FancyArrowPatch(
                curve[-4], curve[-1], arrowstyle="-|>", mutation_scale=12, color=edge_color, lw=width, zorder=1
            )
        )
        candidates = _bezier(pos[source], pos[target], rad, np.array(LABEL_SPOTS))
        spot = _free_spot(candidates, text, placed)
        placed.append((spot, _box(text)))
        ax.text(*spot, text, fontsize=6, ha="center", va="center", bbox=label_box, zorder=3)
    for node, data in graph.nodes(data=True):
        ax.add_patch(
            Circle(
                pos[node],
                NODE_RADIUS,
                fc="#eef3f8",
                ec=color(0) if node == 0 else "#555555",
                lw=2.5 if node == 0 else 1.0,
                zorder=2,
            )
        )
        text = f"{data['label']}\n{data['test']}" if "test" in data else data["label"]
        ax.text(*pos[node], text, fontsize=6, ha="center", va="center", zorder=4)
    ax.set_aspect("equal")
    extent = 1.0 + NODE_RADIUS + 2 * LOOP_RADIUS + 0.15
    ax.set_xlim(-extent, extent)
    ax.set_ylim(-extent, extent)
    ax.set_axis_off()


#: where along an edge (0 = source, 1 = target) its label may go, in order of preference
LABEL_SPOTS = (0.5, 0.4, 0.6, 0.3, 0.7)


def _box(text: str) -> np.ndarray:
    """Approximate half width and half height of an edge label, in axis units."""
    lines = text.split("\n")
    return np.array([0.011 * max(len(line) for line in lines) + 0.02, 0.035 * len(lines) + 0.015])


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


def _draw_action_table(ax, graph: nx.DiGraph, player, game) -> None:
    """States (rows) x inputs (columns), coloured by the action played; inputs are named and
    cells show the next state when there are few of them."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from evo.inputs import input_encoder
    from figures.style import color

    states = sorted(graph.nodes)
    table = player.action[0][states]
    names = game.action_names
    colours = [color(i) for i in range(len(names))]
    ax.imshow(
        table, aspect="auto", interpolation="nearest", cmap=ListedColormap(colours), vmin=-0.5, vmax=len(names) - 0.5
    )
    ax.set_yticks(range(len(states)), [f"S{s}" for s in states])
    encoder = input_encoder(game, player.inputs)
    if player.n_inputs <= 48:
        ax.set_xticks(
            range(player.n_inputs),
            [encoder.label(game, x) for x in range(player.n_inputs)],
            rotation=90 if player.n_inputs > 6 else 0,
            fontsize=4.5 if player.n_inputs > 6 else 6,
        )
        if player.n_inputs * len(states) <= 200:
            next_state = player.next_state[0][states]
            for row, col in np.ndindex(next_state.shape):
                ax.text(col, row, f"to S{next_state[row, col]}", ha="center", va="center", fontsize=5, color="white")
    else:
        ax.set_xlabel(f"input number (0-{player.n_inputs - 1}; '{player.inputs}')")
    ax.set_title(
        "action per state and input"
        + (" (and next state)" if player.n_inputs * len(states) <= 200 and player.n_inputs <= 48 else ""),
        fontsize=8,
    )
    ax.legend(
        handles=[Patch(color=c, label=n) for c, n in zip(colours, names)],
        ncol=len(names),
        loc="lower center",
        bbox_to_anchor=(0.5, 1.08),
        frameon=False,
        fontsize=6,
    )
    ax.spines[:].set_visible(False)


def _drawn_label(data: dict) -> str:
    if "transitions" in data and data["transitions"] > MAX_LISTED:
        return f"{data['transitions']} inputs"
    return data["label"]


def _default_title(graph: nx.DiGraph) -> str:
    info = graph.graph
    if info.get("kind") == "bda":
        return (
            f"binary decision automaton '{info.get('name')}' ({info.get('game')})\n"
            f"T: the test holds (solid)   F: it fails (dashed); an F action is played only when "
            f"{info.get('max_tests')} tests in a row fail"
        )
    return (
        f"table FSM '{info.get('name')}' ({info.get('game')}), inputs '{info.get('inputs')}'\n"
        f"edge: the inputs that make the move (width: how many), with the action played"
    )
