"""``fsmarena solve GAME``: the exact optimum of a game whose model is known (421).

Generic over games: a game qualifies when it exposes ``model()`` (its transition
probabilities, an :class:`rl.mdp.TabularMDP`) and ``exact_optimum() -> (Fraction, table)``;
it may add ``policy_rows(table)`` and ``policy_text(table)`` for a readable policy (otherwise
every state's label and chosen action are listed).  Games without a model get a clear error.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fsmarena.commands._common import add_game, add_json, game_from_args, print_json
from fsmarena.errors import FsmarenaError
from games.base import Game
from games.capabilities import ExactModel

NAME = "solve"
HELP = "exact optimal expected score and policy of a game whose model is known (421)"


def add_arguments(parser) -> None:
    add_game(parser)
    add_json(parser)


def solve(game: Game) -> dict[str, Any]:
    """The optimum of ``game`` as a JSON-ready dict (``value``, ``value_fraction``, ``policy``)."""
    from games.base import config_to_dict

    if not isinstance(game, ExactModel):
        raise FsmarenaError(
            f"the game '{game.name}' has no known model to solve exactly "
            "(solve needs known transition probabilities, as in 421)"
        )
    value, table = game.exact_optimum()
    value = Fraction(value)
    policy = game.policy_rows(table)
    return {
        "game": game.name,
        "parameters": config_to_dict(game.config),
        "value": float(value),
        "value_fraction": f"{value.numerator}/{value.denominator}",
        "policy": policy,
        "actions": [int(a) for a in table],
    }


def run(args) -> int:
    game = game_from_args(args)
    result = solve(game)
    if args.json:
        print_json(result)
        return 0
    params = ", ".join(f"{k}={v}" for k, v in result["parameters"].items())
    print(f"{game.name} ({params}): optimal expected score {result['value_fraction']} = {result['value']:.6f}")
    print()
    print(game.policy_text(result["actions"]))
    return 0
