"""``fsmarena draw``: a player file as a figure, DOT or GraphML file, or its strategy card.

Every player kind draws.  A table FSM or a BDA is drawn as its machine (states, moves, its
table); a table policy as its table (a one-state machine over the game's ``index``); any other
kind (builtins, networks, agents) as its strategy card, the figure ``--card`` draws for every
kind: what it plays in which situations and when it changes state, in the game's words
(:mod:`fsmarena.evo.strategy_summary`, :mod:`fsmarena.figures.strategy_card`).

The player first plays a panel (default: the game's builtins) so the drawing can weight
edges by use, grey out what never fired and keep only the inputs met in play; ``--minimise``
draws the minimal machine: ``played`` (the default) drops every state never used in those
games and plays alike on the entries that fired, ``inputs`` keeps every state reachable on the
inputs met in play.  Each state is named after the player file's states it stands for (the
numbers ``fsmarena inspect`` prints) and keeps its place in the drawing.  ``--games 0`` draws
the bare structure.  Every PNG carries the player's content hash, by which ``fsmarena inspect``
finds it (:mod:`fsmarena.figures.machine_index`).

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from fsmarena.commands._common import add_params, game_from_args, games_count, non_negative_int, output_path, seed_value
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json
from fsmarena.games.players import TablePolicy, player_from_json, player_to_json, resolve_player
from fsmarena.text import MAX_TITLE_CHARS, clean_title

NAME = "draw"
HELP = "draw a player file (machine, table or strategy card) as PNG/SVG/PDF, or export a machine as DOT or GraphML"

#: the kinds drawn as machines (states and moves); every other kind is drawn as its card
MACHINE_KINDS = ("table-fsm", "bda")
#: what ``--minimise`` keeps
MINIMISE = ("played", "inputs")
CARD_FORMATS = ("png", "svg", "pdf")


def add_arguments(parser) -> None:
    parser.add_argument("player", metavar="PLAYER.json", help="a player file of any kind (e.g. best.json)")
    parser.add_argument(
        "--out",
        type=output_path,
        required=True,
        metavar="FILE",
        help="output file: .png, .svg, .pdf (drawing), .dot or .graphml (a machine's graph)",
    )
    add_params(parser, "game rule parameter the player was evolved with (repeatable)")
    parser.add_argument(
        "--title",
        type=clean_title,
        default="",
        help=f"figure title (default: describes the player; at most {MAX_TITLE_CHARS} characters are drawn)",
    )
    parser.add_argument(
        "--card",
        action="store_true",
        help="draw the strategy card: per state, what it plays in which situations and its moves (every kind)",
    )
    parser.add_argument(
        "--minimise",
        nargs="?",
        const="played",
        choices=MINIMISE,
        help="draw the minimal machine: 'played' (default) drops every state never used in the panel's games, "
        "'inputs' keeps those reachable on the inputs met in play",
    )
    add_panel_arguments(parser)


def add_panel_arguments(parser, minimum: int = 0) -> None:
    """The options that choose the games a player's usage is measured in (draw, inspect);
    ``minimum`` is the least ``--games`` accepted (0: no usage)."""

    parser.add_argument(
        "--panel", nargs="+", metavar="PLAYER", help="opponents for the usage counts (default: every builtin)"
    )
    parser.add_argument(
        "--games",
        type=non_negative_int if minimum == 0 else games_count,
        default=200,
        help="games per opponent and seat for the usage counts (200" + ("; 0: none)" if minimum == 0 else ")"),
    )
    parser.add_argument("--seed", type=seed_value, default=0, help="seed of the usage games (0)")


def load_player_file(args) -> tuple[Any, Any]:
    """The player file's game (with ``--param``) and its player, of any kind, or one clear error."""

    source = f"player file {args.player}"
    data = read_json(args.player, "player file")
    game_name = Fields(data, source).get("game", str)
    game = game_from_args(argparse.Namespace(game=game_name, param=args.param))
    return game, player_from_json(data, game, source)


def as_machine(player: Any, game: Any) -> Any:
    """The machine a drawing shows: a table FSM or BDA as it is, a table policy as the
    one-state table FSM over ``index`` that plays like it (when the game's index fits a table
    FSM's inputs), None for any other kind."""
    from fsmarena.evo.inputs import MAX_INPUTS
    from fsmarena.evo.table_fsm import TableFSM

    if player.kind in MACHINE_KINDS:
        return player
    if isinstance(player, TablePolicy) and game.n_states <= MAX_INPUTS:
        table = np.asarray(player.table[0], dtype=np.int64)[None, :]
        return TableFSM(np.zeros_like(table), table, "index", label=player.label)
    return None


def panel_of(args, game) -> Any:
    """The players of ``--panel`` (None: the default panel, every builtin)."""

    return [resolve_player(spec, game) for spec in args.panel] if args.panel else None


def panel_usage(args, game, player) -> Any:
    """The machine's usage against ``--panel`` (None with ``--games 0``)."""
    from fsmarena.evo.usage import measure_usage

    if not args.games:
        return None
    return measure_usage(player, game, panel_of(args, game), args.games, args.seed)


def run(args) -> int:
    from fsmarena.figures.machine_graph import FORMATS

    suffix = args.out.rsplit(".", 1)[-1].lower() if "." in args.out else ""
    if suffix not in FORMATS:
        raise FsmarenaError(f"--out must end in {', '.join('.' + f for f in FORMATS)}, got '{args.out}'")
    game, player = load_player_file(args)
    machine = as_machine(player, game)
    if args.minimise and player.kind not in MACHINE_KINDS:
        raise FsmarenaError(f"--minimise needs a table-fsm or bda player, not '{player.kind}'")
    if args.card or machine is None:
        return draw_card(args, game, player, suffix)
    return draw_machine(args, game, player, machine)


def draw_card(args, game, player, suffix: str) -> int:
    """Write the player's strategy card."""
    from fsmarena.evo.strategy_summary import summarise
    from fsmarena.figures.machine_index import content_hash, note_drawing
    from fsmarena.figures.strategy_card import write_card

    if suffix not in CARD_FORMATS:
        raise FsmarenaError(f"a strategy card is a figure: --out must end in .png, .svg or .pdf, got '{args.out}'")
    if not args.games:
        raise FsmarenaError("a strategy card summarises play: --games must be at least 1")
    summary = summarise(player, game, panel_of(args, game), args.games, args.seed)
    write_card(summary, args.out, args.title)
    note_drawing(args.out, content_hash(player_to_json(player, game)))
    print(f"strategy card of {player.kind} '{player.label}' ({len(summary.states)} states used) written to {args.out}")
    return 0


def draw_machine(args, game, player, machine) -> int:
    """Write the machine drawing (or its DOT or GraphML file)."""
    from fsmarena.figures.machine_graph import minimal_for_drawing, write_machine
    from fsmarena.figures.machine_index import content_hash, note_drawing

    inputs, link = None, None
    if args.minimise:  # states keep the file's numbers (those `fsmarena inspect` prints)
        played = args.minimise == "played"
        panel = panel_of(args, game)
        machine, inputs, usage, link = minimal_for_drawing(machine, game, panel, args.games, args.seed, played=played)
    else:
        usage = panel_usage(args, game, machine)
    graph = write_machine(machine, game, args.out, args.title, usage, inputs, measure=False, link=link)
    note_drawing(args.out, content_hash(player_to_json(player, game)))
    print(
        f"{player.kind} with {graph.number_of_nodes()} reachable states and {graph.number_of_edges()} edges "
        f"written to {args.out}"
        + (f" (minimised from {link.file_states} states, named as in the player file)" if link else "")
    )
    return 0
