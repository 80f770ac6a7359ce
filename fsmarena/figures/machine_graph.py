"""Evolved machines as graphs: networkx ``DiGraph``, and the files of a machine (DOT, GraphML,
or a drawing: :mod:`fsmarena.figures.machine_drawing` draws it, laid out by :mod:`fsmarena.figures.machine_layout`
and worded by :mod:`fsmarena.figures.machine_captions`).

Nodes are the machine's states reachable from the start state 0 (unreachable states are
dropped).

* Table FSM: one edge per (source, target) pair, merging every input that makes that move;
  its ``label`` lists ``input / action`` lines (inputs in the game's words, e.g. ``lead: 1/4
  1/2 3/4 | opp: 1/2``), ``transitions`` counts them, and each node carries the share of
  inputs on which the state plays each action.  DOT and GraphML always carry the full lists.
* BDA: each node is labelled with its test (``S3: Coop > 0.412``); the true branch (solid)
  and the false branch (dashed) are edges labelled with their actions.  A true and a false
  branch to the same state share one edge (``T: ... / F: ...``).

With a machine's usage (:mod:`fsmarena.evo.usage`) nodes also carry ``visits`` and edges ``uses``.

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

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, cast

import networkx as nx
import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import FALSE_ACTION, FALSE_NEXT, TRUE_ACTION, TRUE_NEXT, BinaryDecisionAutomaton, state_to_json
from fsmarena.evo.inputs import input_encoder
from fsmarena.evo.minimise import minimise, reachable_states
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.evo.usage import DEFAULT_GAMES, measure_usage, observed_domain
from fsmarena.figures.machine_captions import (
    machine_caption as machine_caption,  # re-exported for fsmarena/studies/analysis.py
)
from fsmarena.figures.machine_drawing import draw_machine
from fsmarena.figures.machine_index import content_hash, mark_png
from fsmarena.figures.machine_layout import (
    MAX_DRAWN_STATES as MAX_DRAWN_STATES,  # re-exported for fsmarena/studies/analysis.py
)
from fsmarena.fileio import atomic_path, write_text
from fsmarena.games.players import player_to_json

if TYPE_CHECKING:
    from fsmarena.evo.usage import Machine, Usage
    from fsmarena.games.base import Game
    from fsmarena.games.players import Player

#: output formats of :func:`write_machine`
FORMATS = ("png", "svg", "pdf", "dot", "graphml")


def machine_graph(
    player: "Player", game: "Game", usage: "Usage | None" = None, link: "StandsFor | None" = None
) -> nx.DiGraph:
    """The reachable part of a table FSM or BDA (member 0 of a stack) as a labelled DiGraph.

    With ``usage`` (:func:`fsmarena.evo.usage.measure_usage` of this machine) every node carries
    ``visits`` (decisions begun in the state) and every edge ``uses`` (times it fired), and the
    graph ``decisions`` (their total).  ``link`` (a minimised machine: :func:`stands_for`)
    names each state after the player file's states it plays for, so that a drawing's numbers
    are those of the file and of ``fsmarena inspect``; each node carries ``number`` (its name)
    and ``stands_for`` (the file's states, space separated), the graph ``file_states``."""

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
    #: the file's reachable states, whose places on the circle the drawing keeps (empty: the
    #: minimal machine's own places)
    layout: tuple[int, ...] = ()


def stands_for(state_of: np.ndarray, layout: Sequence[int] = ()) -> StandsFor:
    """From :attr:`fsmarena.evo.minimise.Minimal.state_of` (per file state its minimal state, -1: no
    longer reachable) and the file's reachable states (``layout``)."""
    states = np.asarray(state_of).tolist()
    groups = tuple(tuple(s for s, m in enumerate(states) if m == minimal) for minimal in range(max(states) + 1))
    return StandsFor(groups, len(states), tuple(sorted(layout)))


def _rename(graph: nx.DiGraph, link: StandsFor) -> None:
    """Name every state after the lowest of the file's states it stands for (the start state
    stays S0: minimisation keeps it first)."""
    graph.graph["file_states"] = link.file_states
    if link.layout:  # each state sits where the plain drawing puts the file state it is named after
        graph.graph["layout"] = " ".join(str(s) for s in link.layout)
    for state in graph.nodes:
        number = min(link.groups[state])
        node = graph.nodes[state]
        node["number"] = number
        node["stands_for"] = " ".join(str(s) for s in link.groups[state])
        node["label"] = f"S{number}" + (" (start)" if state == 0 else "")


def minimal_for_drawing(
    player: "Machine",
    game: "Game",
    panel: "Sequence[Player] | None" = None,
    games: int | None = None,
    seed: int = 0,
    played: bool = False,
) -> tuple["Machine", np.ndarray | None, "Usage | None", StandsFor]:
    """The minimal machine a drawing shows (``draw --minimise``, a study's best machines):
    minimised on the inputs met in ``games`` games per opponent of ``panel`` (exactly, over
    every input, with ``games=0``; default :data:`fsmarena.evo.usage.DEFAULT_GAMES`), and with
    ``played`` without the states never used in those games; the input codes it keeps, its
    usage in the same games (None with ``games=0``) and, per state, the player file's states
    it stands for, with the file's reachable states, whose places the drawing keeps."""

    games = DEFAULT_GAMES if games is None else games
    domain = observed_domain(player, game, panel, games, seed, played) if games else None
    minimal = minimise(player, domain)
    machine = cast("Machine", minimal.player)  # minimise keeps the machine's kind
    usage = measure_usage(machine, game, panel, games, seed) if games else None
    return machine, minimal.inputs, usage, stands_for(minimal.state_of, reachable_states(player))


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
    the machine first plays the game's builtins (:func:`fsmarena.evo.usage.measure_usage` with its
    defaults), so every drawing, the studies' included, shows what the machine does in play.
    ``inputs`` (input codes) are the rows of a table FSM's table (default: those used, or all
    without usage).  ``link``: the machine is a minimised one (:func:`minimal_for_drawing`);
    its states are named after the file's and the drawing says it was minimised.  A PNG
    carries the drawn machine's content hash (:mod:`fsmarena.figures.machine_index`), so
    ``fsmarena inspect`` finds a study's drawing of a champion's minimal machine."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise FsmarenaError(f"cannot write '{path.name}': the output must end in {', '.join('.' + f for f in FORMATS)}")
    if usage is None and measure:
        usage = measure_usage(player, game)
    graph = machine_graph(player, game, usage, link)
    if fmt == "dot":
        write_text(path, to_dot(graph))
    elif fmt == "graphml":
        with atomic_path(path) as tmp:
            nx.write_graphml(graph, tmp)
    else:
        draw_machine(graph, path, fmt, title, player, game, usage, inputs)
        if fmt == "png":  # found by `fsmarena inspect` by the hash of the machine it shows
            mark_png(path, content_hash(player_to_json(player, game)))
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
