"""``fsmarena export``: a player file in another library's terms.

The formats are the game's (``GameEntry.exports``): the iterated prisoner's dilemma exports a
table FSM over ``opp_last`` to Axelrod's library (``--to axelrod``: the arguments of an
``axelrod.FSMPlayer``, read back with ``fsmarena.games.ipd.bridge.from_description``), so an
evolved machine can enter an Axelrod tournament (docs/tutorials/axelrod-tournament.md).

The engines are imported inside the command's functions: ``fsmarena --help`` imports every
command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import argparse

from fsmarena.commands._common import add_params, game_from_args, output_path, print_json
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.games.players import player_from_json
from fsmarena.games.registry import entry, resolve

NAME = "export"
HELP = "export a player file to another library's format (ipd table FSMs: --to axelrod)"


def add_arguments(parser) -> None:
    parser.add_argument("player", metavar="PLAYER.json", help="a player file (e.g. an evolved best.json)")
    parser.add_argument("--to", required=True, metavar="FORMAT", help="the format, one the game offers (ipd: axelrod)")
    parser.add_argument(
        "--out", type=output_path, default=None, metavar="FILE", help="write the JSON here (default: print it)"
    )
    add_params(parser, "game rule parameter the player was made with (repeatable)")


def run(args) -> int:
    source = f"player file {args.player}"
    data = read_json(args.player, "player file")
    game_name = Fields(data, source).get("game", str)
    game = game_from_args(argparse.Namespace(game=game_name, param=args.param))
    player = player_from_json(data, game, source)
    formats = entry(game.name).exports
    if args.to not in formats:
        known = ", ".join(sorted(formats)) or "none"
        raise FsmarenaError(f"{game.name} players do not export to '{args.to}' (its formats: {known})")
    exported = resolve(formats[args.to], f"export to {args.to}")(game, player)
    if args.out is None:
        print_json(exported)
    else:
        write_json(args.out, exported)
    return 0
