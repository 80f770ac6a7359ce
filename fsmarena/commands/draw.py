"""``fsmarena draw``: an evolved machine (table FSM or BDA) as a figure, DOT or GraphML file."""

from __future__ import annotations

import argparse

NAME = "draw"
HELP = "draw a table-FSM or BDA player file as PNG/SVG/PDF, or export it as DOT or GraphML"


def add_arguments(parser) -> None:
    parser.add_argument("player", metavar="PLAYER.json", help="a table-fsm or bda player file (e.g. best.json)")
    parser.add_argument(
        "--out", required=True, metavar="FILE", help="output file: .png, .svg, .pdf (drawing), .dot or .graphml"
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game rule parameter the player was evolved with (repeatable)",
    )
    parser.add_argument("--title", default="", help="figure title (default: describes the machine)")


def run(args) -> int:
    from figures.machine_graph import FORMATS, write_machine
    from fsmarena.commands._common import game_from_args
    from fsmarena.errors import FsmarenaError
    from fsmarena.fileio import Fields, read_json
    from games.players import player_from_json

    suffix = args.out.rsplit(".", 1)[-1].lower() if "." in args.out else ""
    if suffix not in FORMATS:
        raise FsmarenaError(f"--out must end in {', '.join('.' + f for f in FORMATS)}, got '{args.out}'")
    source = f"player file {args.player}"
    data = read_json(args.player, "player file")
    game_name = Fields(data, source).get("game", str)
    game = game_from_args(argparse.Namespace(game=game_name, param=args.param))
    player = player_from_json(data, game, source)
    graph = write_machine(player, game, args.out, args.title)
    print(
        f"{player.kind} with {graph.number_of_nodes()} reachable states and {graph.number_of_edges()} edges "
        f"written to {args.out}"
    )
    return 0
