"""``fsmarena games``: the games, their parameters and builtin players."""

from __future__ import annotations

from fsmarena.commands._common import add_json, print_json
from fsmarena.games import available_games, get_game

NAME = "games"
HELP = "list the games, their rule parameters and builtin players"


def add_arguments(parser) -> None:
    add_json(parser)


def run(args) -> int:
    described = [get_game(name).describe() for name in available_games()]
    if args.json:
        print_json({"games": described})
        return 0
    for info in described:
        print(f"{info['name']}: {info['title']}")
        params = ", ".join(f"{k}={_show(v)}" for k, v in info["parameters"].items())
        print(f"  players: {info['players']}    parameters (--param): {params}")
        print(f"  actions: {', '.join(info['actions'])}")
        print(f"  tabular states: {info['states']}    features: {', '.join(info['features']) or '-'}")
        print(f"  builtin players: {', '.join(info['builtin_players'])}")
    return 0


def _show(value) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)
