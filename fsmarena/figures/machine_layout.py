"""Where a machine drawing puts things: its sizes by number of states, the states on a circle,
the edges' curves routed around the states, and the spots of the edge labels.

The geometry only; :mod:`fsmarena.figures.machine_drawing` draws with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx
import numpy as np

from fsmarena import limits

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
    # inside: figures.style loads matplotlib, which the text formats skip (figures.machine_drawing)
    from fsmarena.figures.style import COLUMN_WIDTH, PAGE_WIDTH

    if states <= MAX_COLUMN_STATES:
        return GraphLook(COLUMN_WIDTH, NODE_RADIUS, FONT, edge_labels=True, shares=True, arrow=12.0)
    radius = min(NODE_RADIUS, 0.45 * math.sin(math.pi / states))
    # a state's diameter in points: the axes span about 2.7 units over 85% of the width
    diameter = 2 * radius * PAGE_WIDTH * 0.85 * 72 / 2.7
    two_lines = min(FONT, diameter / 2.6)
    font = two_lines if two_lines >= 4.0 else max(MIN_FONT, min(FONT, diameter / 2.2))
    arrow = max(4.0, 12.0 * radius / NODE_RADIUS * PAGE_WIDTH / COLUMN_WIDTH)
    return GraphLook(PAGE_WIDTH, radius, font, edge_labels=False, shares=two_lines >= 4.0, arrow=arrow)


GRAPH_HEIGHT = 3.3
TABLE_ROW = 0.105
#: a table FSM's table shows at most this many inputs (the most used ones)
MAX_ROWS = 48


def in_file_order(graph: nx.DiGraph) -> list[int]:
    """The drawn states in the order of their names (the player file's numbers)."""
    return sorted(graph.nodes, key=lambda state: graph.nodes[state].get("number", state))


def positions(graph: nx.DiGraph) -> dict[int, np.ndarray]:
    """Each state's place on the unit circle: S0 at the top, the others clockwise in the
    machine's own order; a minimised machine's states keep the places of the file's states
    they are named after (``layout``), so the plain and the minimised drawing line up."""
    nodes = sorted(graph.nodes)
    slot = {node: i for i, node in enumerate(nodes)}
    n = len(nodes)
    if graph.graph.get("layout"):  # a minimised machine: the places of the file's states
        layout = [int(s) for s in str(graph.graph["layout"]).split()]
        slot = {node: layout.index(graph.nodes[node].get("number", node)) for node in nodes}
        n = len(layout)
    if n == 1:
        return {nodes[0]: np.zeros(2)}
    return {
        node: np.array(
            [math.cos(math.pi / 2 - 2 * math.pi * slot[node] / n), math.sin(math.pi / 2 - 2 * math.pi * slot[node] / n)]
        )
        for node in nodes
    }


def bezier(p0: np.ndarray, p1: np.ndarray, rad: float, t: np.ndarray) -> np.ndarray:
    """Points of matplotlib's ``arc3`` curve from p0 to p1 (a quadratic Bezier)."""
    d = p1 - p0
    control = (p0 + p1) / 2 + rad * np.array([d[1], -d[0]])
    t = t[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t**2 * p1


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
    pos = positions(graph)
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
    curve = bezier(p0, p1, rad, np.linspace(0, 1, 120))
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


#: where along an edge (0 = source, 1 = target) its label may go, in order of preference: the
#: middle first, then outwards, then the spots between (a crowded drawing needs them)
LABEL_SPOTS = (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.45, 0.55, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85)


def text_box(text: str) -> np.ndarray:
    """Approximate half width and half height of an edge label, in axis units."""
    lines = text.split("\n")
    # measured on the drawn labels (font FONT, their rounded box): a '%' is wider than a letter,
    # so 0.025 a character, a little more than any label needs
    return np.array([0.025 * max(len(line) for line in lines) + 0.035, 0.06 * len(lines) + 0.02])


def free_spot(candidates: np.ndarray, text: str, placed: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The candidate position whose label box overlaps the labels already placed the least."""
    half = text_box(text)

    def overlap(spot: np.ndarray) -> float:
        total = 0.0
        for centre, other in placed:
            sides = np.clip(half + other - np.abs(spot - centre), 0.0, None)
            total += sides[0] * sides[1]
        return total

    costs = [overlap(spot) for spot in candidates]
    return candidates[int(np.argmin(costs))]
