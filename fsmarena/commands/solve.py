"""``fsmarena solve GAME``: the exact solution of a game that declares it can be solved.

Dispatches on the game's declared capabilities:

* :class:`fsmarena.games.capabilities.ExactModel` (421): the optimal expected score and the optimal
  policy from the known transition model (``value``, ``value_fraction``, ``policy``);
* :class:`fsmarena.games.capabilities.ZeroSumSolvable` (two-player Stupide Vautour and Goofspiel with a
  small deck, :mod:`fsmarena.games.bidding_zero_sum`):
  the game's value for the first seat under ``--reward`` and, with ``--out FILE``, the
  equilibrium as a player file (usable by ``play``, ``tournament``, studies); the
  equilibrium's own exploitability is reported as a check (0 up to rounding).

Games with neither get a clear error.
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from fsmarena.commands._common import add_game, add_json, game_from_args, output_path, print_json
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import check_output_file
from fsmarena.games.base import Game, config_to_dict
from fsmarena.games.capabilities import ExactModel, ZeroSumSolvable
from fsmarena.games.players import save_player

NAME = "solve"
HELP = "exact solution: 421's optimal policy, the equilibrium of two-player Stupide Vautour or Goofspiel (small decks)"


def add_arguments(parser) -> None:
    add_game(parser)
    add_json(parser)
    parser.add_argument(
        "--reward",
        default=None,
        help="zero-sum games: what the value is of, wdl (win/draw/loss, default) or points (point difference)",
    )
    parser.add_argument(
        "--out", type=output_path, metavar="FILE", default=None, help="zero-sum games: write the equilibrium player"
    )


def solve(game: Game) -> dict[str, Any]:
    """The optimum of a game with a known model as a JSON-ready dict (``value``,
    ``value_fraction``, ``policy``)."""

    if not isinstance(game, ExactModel):
        raise FsmarenaError(_unsolvable(game))
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


def _unsolvable(game: Game) -> str:
    return (
        f"the game '{game.name}' has no known model to solve exactly "
        "(solve needs known transition probabilities, as in 421, or a small two-player zero-sum game)"
    )


def solve_zero_sum(game: Game, reward: str) -> tuple[dict[str, Any], Any]:
    """Value, timing and the equilibrium's exploitability as a JSON-ready dict, and the
    equilibrium player."""

    if not isinstance(game, ZeroSumSolvable):
        raise FsmarenaError(_unsolvable(game))
    if reward not in game.solve_rewards:
        raise FsmarenaError(f"unknown reward '{reward}' (known: {', '.join(game.solve_rewards)})")
    start = time.perf_counter()
    value, player = game.solve_equilibrium(reward)
    seconds = time.perf_counter() - start
    check = game.exploitability(player, reward)
    return {
        "game": game.name,
        "parameters": config_to_dict(game.config),
        "reward": reward,
        "value": value,
        "value_fraction": str(Fraction(value).limit_denominator(10**6)),
        "decisions": len(player.solver.nodes),
        "seconds": round(seconds, 3),
        "equilibrium_exploitability": check["exploitability"],
    }, player


def run(args) -> int:
    game: Game = game_from_args(args)
    if isinstance(game, ZeroSumSolvable):
        return _run_zero_sum(game, args)
    if args.out is not None or args.reward is not None:
        raise FsmarenaError(f"--out and --reward are for two-player zero-sum games; {game.name} is not one")
    result = solve(game)
    if args.json:
        print_json(result)
        return 0
    params = ", ".join(f"{k}={v}" for k, v in result["parameters"].items())
    print(f"{game.name} ({params}): optimal expected score {result['value_fraction']} = {result['value']:.6f}")
    print()
    assert isinstance(game, ExactModel)  # solve() refused any other game
    print(game.policy_text(result["actions"]))
    return 0


def _run_zero_sum(game: Game, args) -> int:
    out = Path(args.out) if args.out else None
    if out is not None:
        check_output_file(out)  # before the solve, which can take minutes
    rewards = game.solve_rewards if isinstance(game, ZeroSumSolvable) else ("wdl",)
    result, player = solve_zero_sum(game, args.reward or rewards[0])
    if out is not None:
        save_player(player, game, out)
        result["out"] = str(out)
    if args.json:
        print_json(result)
        return 0
    params = ", ".join(f"{k}={v}" for k, v in result["parameters"].items())
    print(f"{game.name} ({params})")
    print(
        f"  value for the first seat ({result['reward']}): {result['value_fraction']} = {result['value']:.9f}"
        f"  ({result['decisions']:,} decisions solved in {result['seconds']:.1f} s)"
    )
    print(f"  exploitability of the equilibrium: {result['equilibrium_exploitability']:.2e}")
    if out is not None:
        print(f"  equilibrium player written to {out}")
    return 0
