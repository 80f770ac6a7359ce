"""The words of a machine drawing: shares of use, edge labels, the title that explains the
drawing, and the caption and minimisation note the studies' machine pages print under it.
"""

from __future__ import annotations

import networkx as nx

from fsmarena.figures.machine_layout import GraphLook, in_file_order
from fsmarena.text import percent

#: an FSM edge with more transitions than this is summarised in the drawing
MAX_LISTED = 3


def state_name(graph: nx.DiGraph, state: int) -> str:
    """How a drawing names ``state``: ``S`` and its number in the player file."""
    return f"S{graph.nodes[state].get('number', state)}"


def drawn_label(data: dict, moves: int | None) -> str:
    if moves is not None:
        return percent(data["uses"], moves)
    if "transitions" in data and data["transitions"] > MAX_LISTED:
        return f"{data['transitions']} inputs"
    return data["label"]


def default_title(graph: nx.DiGraph, look: GraphLook | None = None) -> str:
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
