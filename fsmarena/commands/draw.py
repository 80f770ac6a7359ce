"""``fsmarena draw``: an evolved machine (table FSM or BDA) as a figure, DOT or GraphML file.

The machine first plays a panel (default: the game's builtins) so the drawing can weight
edges by use, grey out what never fired and keep only the inputs met in play; ``--minimise``
draws the minimal machine that plays like it on those inputs, each state named after the
player file's states it stands for (the numbers ``fsmarena inspect`` prints), and says so
under its title.  ``--games 0`` draws the bare structure.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import argparse
from typing import Any

from fsmarena.commands._common import add_params, game_from_args, games_count, non_negative_int, output_path, seed_value
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json
from fsmarena.games.players import player_from_json, resolve_player
from fsmarena.text import MAX_TITLE_CHARS, clean_title

NAME = "draw"
HELP = "draw a table-FSM or BDA player file as PNG/SVG/PDF, or export it as DOT or GraphML"


def add_arguments(parser) -> None:
    parser.add_argument("player", metavar="PLAYER.json", help="a table-fsm or bda player file (e.g. best.json)")
    parser.add_argument(
        "--out",
        type=output_path,
        required=True,
        metavar="FILE",
        help="output file: .png, .svg, .pdf (drawing), .dot or .graphml",
    )
    add_params(parser, "game rule parameter the player was evolved with (repeatable)")
    parser.add_argument(
        "--title",
        type=clean_title,
        default="",
        help=f"figure title (default: describes the machine; at most {MAX_TITLE_CHARS} characters are drawn)",
    )
    parser.add_argument(
        "--minimise", action="store_true", help="draw the minimal machine that plays alike on the inputs met in play"
    )
    add_panel_arguments(parser)


def add_panel_arguments(parser, minimum: int = 0) -> None:
    """The options that choose the games a machine's usage is measured in (draw, inspect);
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


def load_machine(args) -> tuple[Any, Any]:
    """The player file's game (with ``--param``) and its table FSM or BDA, or one clear error."""

    source = f"player file {args.player}"
    data = read_json(args.player, "player file")
    game_name = Fields(data, source).get("game", str)
    game = game_from_args(argparse.Namespace(game=game_name, param=args.param))
    player = player_from_json(data, game, source)
    if player.kind not in ("table-fsm", "bda"):
        raise FsmarenaError(f"only table-fsm and bda players can be drawn or inspected, not '{player.kind}'")
    return game, player


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
    from fsmarena.figures.machine_graph import FORMATS, minimal_for_drawing, write_machine

    suffix = args.out.rsplit(".", 1)[-1].lower() if "." in args.out else ""
    if suffix not in FORMATS:
        raise FsmarenaError(f"--out must end in {', '.join('.' + f for f in FORMATS)}, got '{args.out}'")
    game, player = load_machine(args)
    inputs, link = None, None
    if args.minimise:  # states keep the file's numbers (those `fsmarena inspect` prints)
        player, inputs, usage, link = minimal_for_drawing(player, game, panel_of(args, game), args.games, args.seed)
    else:
        usage = panel_usage(args, game, player)
    graph = write_machine(player, game, args.out, args.title, usage, inputs, measure=False, link=link)
    print(
        f"{player.kind} with {graph.number_of_nodes()} reachable states and {graph.number_of_edges()} edges "
        f"written to {args.out}"
        + (f" (minimised from {link.file_states} states, named as in the player file)" if link else "")
    )
    return 0
