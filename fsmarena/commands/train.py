"""``fsmarena train``: train a tabular learner (or plan on a known model) and write its policy.

Writes ``DIR/policy.json`` (a table player usable anywhere a player is), ``DIR/curve.csv``
(the learning curve against simulated games consumed), ``DIR/tables.npz`` (Q and counts),
``DIR/run.json`` (settings and summary) and ``DIR/checkpoint.npz`` (for ``--resume``).
"""

from __future__ import annotations

import argparse

from fsmarena.commands._common import (add_game, add_json, add_seed_jobs, game_from_args, non_negative_int,
                                       positive_int, prepare_out, print_json)
from fsmarena.errors import FsmarenaError

NAME = "train"
HELP = "train Monte Carlo / SARSA / Q-learning, or run value / policy iteration, and save the policy"


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None


def _seat(text: str) -> str | int:
    if text == "alternate":
        return text
    try:
        return non_negative_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be 'alternate' or a seat number, got '{text}'") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rl.schedules import SCHEDULES
    from rl.train import ALGORITHMS

    add_game(parser)
    parser.add_argument("--algo", required=True, metavar="ALGO",
                        help="one of: " + ", ".join(ALGORITHMS))
    parser.add_argument("--episodes", type=positive_int, help="training games (sample-based algorithms)")
    parser.add_argument("--opponent", metavar="PLAYER", help="builtin name or player file (default: random)")
    parser.add_argument("--self-play-every", type=positive_int, metavar="M",
                        help="self-play: the opponent is a frozen copy of the learner refreshed every M games")
    parser.add_argument("--learner-seat", type=_seat, default="alternate",
                        help="'alternate' (default: seat = game number mod seats) or a fixed seat; 0 = thesis")
    parser.add_argument("--batch", type=positive_int, metavar="K",
                        help="games per engine batch (1 = the sequential algorithm; default 10000 or the "
                             "game's own)")
    parser.add_argument("--epsilon", type=_number,
                        help="exploration probability at the start (default: 0 for Monte Carlo, 0.2 for TD)")
    parser.add_argument("--epsilon-final", type=_number, help="epsilon at the end of the budget (default 0)")
    parser.add_argument("--epsilon-schedule", choices=SCHEDULES,
                        help="how epsilon moves to --epsilon-final (default: constant for Monte Carlo, "
                             "linear for TD)")
    parser.add_argument("--alpha", help="step size in (0, 1] or '1/n' (sample average); default: 1/n for mc "
                                        "and mc-first-visit, 0.001 otherwise")
    parser.add_argument("--gamma", type=_number, default=1.0, help="discount per decision (default 1)")
    parser.add_argument("--explore-steps", type=non_negative_int,
                        help="random first decisions of every game (exploring starts; Monte Carlo default 2)")
    parser.add_argument("--q-init", type=_number, default=0.0, help="initial action values (default 0)")
    parser.add_argument("--eval-every", type=positive_int, metavar="E", help="games between curve points")
    parser.add_argument("--eval-games", type=positive_int, default=10_000, metavar="G",
                        help="games per evaluation match (default 10000)")
    parser.add_argument("--eval-panel", nargs="+", metavar="PLAYER", help="opponents of the curve (default random)")
    parser.add_argument("--tolerance", type=_number, default=1e-12, help="value iteration stopping tolerance")
    parser.add_argument("--checkpoint-seconds", type=_number, default=60.0,
                        help="save a checkpoint at least this often (also at every curve point)")
    add_seed_jobs(parser)
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
    parser.add_argument("--resume", action="store_true", help="continue from DIR's checkpoint")
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    from games.players import resolve_player
    from rl.train import TrainConfig, prepare, train

    game = game_from_args(args)
    config = TrainConfig(
        algo=args.algo, episodes=args.episodes, batch=args.batch, epsilon=args.epsilon,
        epsilon_final=args.epsilon_final, epsilon_schedule=args.epsilon_schedule, alpha=args.alpha,
        gamma=args.gamma, explore_steps=args.explore_steps, q_init=args.q_init, learner_seat=args.learner_seat,
        self_play_every=args.self_play_every, eval_every=args.eval_every, eval_games=args.eval_games,
        tolerance=args.tolerance,
    ).resolved(game)
    if not config.sample_based and args.episodes is not None:
        raise FsmarenaError(f"{config.algo} plans on the model: --episodes does not apply")
    if not args.checkpoint_seconds > 0:
        raise FsmarenaError("--checkpoint-seconds must be positive")
    opponent = resolve_player(args.opponent, game) if args.opponent else None
    panel = [resolve_player(spec, game) for spec in args.eval_panel] if args.eval_panel else None
    prepare(game, config, args.seed, opponent, panel, args.out, args.resume)
    out = prepare_out(args.out)
    result = train(game, config, seed=args.seed, opponent=opponent, panel=panel, jobs=args.jobs, out=out,
                   resume=args.resume, checkpoint_seconds=args.checkpoint_seconds)
    summary = {"game": game.name, "out": str(out), **result.summary(), **result.extra}
    if args.json:
        print_json(summary)
    else:
        print(f"{config.algo} on {game.name}: {result.games} games in {result.seconds:.1f} s -> {out / 'policy.json'}")
        if result.exact_value is not None:
            print(f"  exact value of the policy: {result.exact_value:.6f}")
        for row in summary["final"]:
            if row.get("opponent"):
                print(f"  vs {row['opponent']}: win {row['win']:.4f} "
                      f"[{row['win_ci_low']:.4f}, {row['win_ci_high']:.4f}] over {row['eval_games']} games")
            else:
                print(f"  mean score {row['mean_score']:.4f} over {row['eval_games']} games")
    return 0
