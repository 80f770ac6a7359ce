"""``fsmarena train``: train a tabular learner (or plan on a known model) and write its policy.

Writes ``DIR/policy.json`` (a table player usable anywhere a player is), ``DIR/curve.csv``
(the learning curve against simulated games consumed), ``DIR/tables.npz`` (Q and counts),
``DIR/run.json`` (settings and summary) and ``DIR/checkpoint.npz`` (for ``--resume``).

``--algo mlp`` trains the network learner instead (:mod:`fsmarena.rl.network_training`: action-value
networks on the game's features, any game that has them); it writes ``DIR/policy.json``,
``curve.csv``, ``metrics.csv``, ``metrics.png``/``.pdf``, ``run.json`` and ``checkpoint.npz``,
and takes the options that make sense for it (others are refused, by the learner itself).

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import argparse
import sys

from fsmarena.commands._common import (
    add_dask,
    add_game,
    add_json,
    add_seed_jobs,
    episodes_count,
    game_from_args,
    games_count,
    non_negative_int,
    output_path,
    parallel_backend,
    positive_int,
    prepare_out,
    print_json,
)
from fsmarena.errors import FsmarenaError
from fsmarena.games.players import resolve_player
from fsmarena.games.registry import resolve
from fsmarena.outdir import confine
from fsmarena.rl import registry  # names only: the learners themselves are imported when a run starts
from fsmarena.rl.schedules import CURVE_SCHEDULES, LOG_POINTS, SCHEDULES

NAME = "train"
HELP = (
    "train Monte Carlo / SARSA / Q-learning (or action-value networks, --algo mlp), or run value / "
    "policy iteration, and save the policy"
)
#: every training option, passed on only when given (None = the algorithm's default): the
#: settings the registered learners take (:mod:`fsmarena.rl.registry`), but ``--resume``, a flag
OPTIONS = tuple(name for name in registry.option_names() if name != "resume")
#: options only the network learner uses
NETWORK_OPTIONS = tuple(
    name for name in registry.option_names("network") if name not in registry.option_names("sample", "model", "search")
)


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


def _layers(text: str) -> list[int]:
    """``--hidden``: comma-separated layer sizes, checked against the limits on layers and
    units as they are parsed (the network learner checks its parameter count on the game)."""
    from fsmarena.rl.network import check_layer_sizes  # here: start-up reads the registry's names only

    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of layer sizes") from None
    try:
        check_layer_sizes(sizes, prefix="")
    except FsmarenaError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return sizes


def _algo_help() -> str:
    """``--algo``'s help, from the registry: the tabular learners and planners, then the networks."""
    runs = ", ".join(registry.names("sample", "model"))
    agents = "; ".join(f"{e.name}: {e.summary}" for e in registry.learners("network"))
    return f"one of: {runs}; {agents}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options, in the order ``--help`` lists them: the game, then one group of
    options after another (each group's function), then the run's seed, jobs, output and format."""
    add_game(parser)
    _add_training_options(parser)
    _add_learner_options(parser)
    _add_curve_options(parser)
    _add_planner_and_checkpoint_options(parser)
    _add_network_options(parser)
    add_seed_jobs(parser)
    add_dask(parser)
    parser.add_argument("--out", type=output_path, required=True, metavar="DIR", help="output folder")
    parser.add_argument("--resume", action="store_true", help="continue from DIR's checkpoint")
    add_json(parser)


def _add_training_options(parser: argparse.ArgumentParser) -> None:
    """What is trained, for how long, against whom and in which seat: the algorithm, the
    budget, the opponent (or self-play) and the batch."""
    parser.add_argument("--algo", required=True, metavar="ALGO", help=_algo_help())
    parser.add_argument("--episodes", type=episodes_count, help="training games (sample-based algorithms)")
    parser.add_argument(
        "--opponent", metavar="PLAYER", help="builtin name or player file (default: random; mlp on thirtyone: greedy)"
    )
    parser.add_argument(
        "--self-play-every",
        type=positive_int,
        metavar="M",
        help="self-play: the opponent is a frozen copy of the learner refreshed every M games",
    )
    parser.add_argument(
        "--learner-seat",
        type=_seat,
        help="'alternate' (default: seat = game number mod seats) or a fixed seat; 0 = thesis",
    )
    parser.add_argument(
        "--batch",
        type=positive_int,
        metavar="K",
        help="1 (default for games with a compiled kernel) = the textbook sequential algorithm, "
        "updating after every decision/game; K > 1 = the batched algorithm, a different "
        "one: K games per engine call with the policy of the batch start (see "
        "docs/sequential-learning.md)",
    )


def _add_learner_options(parser: argparse.ArgumentParser) -> None:
    """The learners' settings: exploration (epsilon and its schedule), the step size and its
    schedule, the discount, exploring starts, the initial values and the reward maximised."""
    parser.add_argument(
        "--epsilon",
        type=_number,
        help="exploration probability at the start (default: 0 for Monte Carlo ES, 0.1 for mc-on-policy, 0.2 for TD)",
    )
    parser.add_argument("--epsilon-final", type=_number, help="epsilon at the end of the budget (default 0)")
    parser.add_argument(
        "--epsilon-schedule",
        choices=SCHEDULES,
        help="how epsilon moves to --epsilon-final (default: constant for Monte Carlo, linear for TD)",
    )
    parser.add_argument(
        "--alpha",
        help="step size in (0, 1] or '1/n' (sample average); default: 1/n for the Monte Carlo learners but "
        "mc-constant-alpha, 0.001 otherwise",
    )
    parser.add_argument(
        "--alpha-final", type=_number, help="step size at the end of the budget under --alpha-schedule (default 0)"
    )
    parser.add_argument(
        "--alpha-schedule",
        choices=SCHEDULES,
        help="how the step size moves to --alpha-final (default constant; not with --alpha 1/n)",
    )
    parser.add_argument("--gamma", type=_number, help="discount per decision (default 1; mlp: 0.98)")
    parser.add_argument(
        "--explore-steps",
        type=non_negative_int,
        help="random first decisions of every game (exploring starts; Monte Carlo default 2)",
    )
    parser.add_argument("--q-init", type=_number, help="initial action values (default 0)")
    parser.add_argument(
        "--reward",
        choices=("game", "segment"),
        help="what the learners maximise: the game's final reward, or segment rewards "
        "(31: each round's change of the lives potential); default: the game's choice "
        "(mlp: segment rewards where the game has segments)",
    )


def _add_curve_options(parser: argparse.ArgumentParser) -> None:
    """The learning curve: where its points fall and the evaluation matches played at each."""
    parser.add_argument("--eval-every", type=positive_int, metavar="E", help="games between curve points")
    parser.add_argument(
        "--eval-schedule",
        choices=CURVE_SCHEDULES,
        help="where curve points fall: every --eval-every games (linear, the default) or --eval-points "
        "points spaced geometrically from 1,000 games to the budget (log, the studies' shared axis)",
    )
    parser.add_argument(
        "--eval-points", type=positive_int, metavar="N", help=f"curve points of a log schedule (default {LOG_POINTS})"
    )
    parser.add_argument(
        "--eval-games", type=games_count, metavar="G", help="games per evaluation match (default 10000)"
    )
    parser.add_argument(
        "--eval-panel",
        nargs="+",
        metavar="PLAYER",
        help="opponents of the curve (default random; mlp on thirtyone: greedy)",
    )


def _add_planner_and_checkpoint_options(parser: argparse.ArgumentParser) -> None:
    """When value iteration stops and how often the run saves a checkpoint."""
    parser.add_argument("--tolerance", type=_number, help="value iteration stopping tolerance (default 1e-12)")
    parser.add_argument(
        "--checkpoint-seconds",
        type=_number,
        help="save a checkpoint at least this often (default 60; also at every curve point)",
    )


def _add_network_options(parser: argparse.ArgumentParser) -> None:
    """The network learner's own options (``--algo mlp``)."""
    parser.add_argument("--hidden", type=_layers, metavar="N,N,...", help="mlp: hidden layer sizes (default 64,64)")
    parser.add_argument("--learning-rate", type=_number, help="mlp: Adam's step size (default 0.001)")
    parser.add_argument("--epochs", type=positive_int, help="mlp: passes over each batch's decisions (default 1)")


def run(args: argparse.Namespace) -> int:
    from fsmarena.rl.learning_check import not_clearly_better_than_random
    from fsmarena.rl.train import TrainConfig, prepare, train

    confine(args.out)  # nothing in DIR is read back or rewritten through a link (fsmarena.outdir)
    game = game_from_args(args)
    given = {name: getattr(args, name) for name in OPTIONS if getattr(args, name) is not None}
    if args.algo in registry.names("network"):
        from fsmarena.figures.network import plot_metrics  # start-up time: no matplotlib for --help

        learner = resolve(registry.learner(args.algo, "network").target, f"algorithm '{args.algo}'")
        return _run_network(args, game, learner.start(game, given, args.seed, args.out, args.resume, plot_metrics))
    for name in NETWORK_OPTIONS:
        if name in given:
            raise FsmarenaError(f"--{name.replace('_', '-')} is an option of the network learner (--algo mlp)")
    names = [*given, *(["resume"] if args.resume else [])]  # what the algorithm must take
    checkpoint_seconds = given.pop("checkpoint_seconds", 60.0)
    opponent_name, panel_names = given.pop("opponent", None), given.pop("eval_panel", None)
    config = TrainConfig(algo=args.algo, **given).resolved(game, given=names)
    if not checkpoint_seconds > 0:
        raise FsmarenaError("--checkpoint-seconds must be positive")
    opponent = resolve_player(opponent_name, game) if opponent_name else None
    panel = [resolve_player(spec, game) for spec in panel_names] if panel_names else None
    prepare(game, config, args.seed, opponent, panel, args.out, args.resume)
    out = prepare_out(args.out, "train")
    with parallel_backend(args):  # --dask: evaluation chunks run on the cluster
        result = train(
            game,
            config,
            seed=args.seed,
            opponent=opponent,
            panel=panel,
            jobs=args.jobs,
            out=out,
            resume=args.resume,
            checkpoint_seconds=checkpoint_seconds,
        )
    warning = not_clearly_better_than_random(game, result, args.seed, args.jobs)
    summary = {"game": game.name, "out": str(out), **result.summary(), **result.extra, "warning": warning}
    _print_summary(args, summary, result.exact_value)
    if warning:
        print(f"fsmarena train: warning: {warning}", file=sys.stderr)
    return 0


def _run_network(args: argparse.Namespace, game, start) -> int:
    """The network learner: ``start`` has checked everything already."""
    out = prepare_out(args.out, "train")
    summary = {"game": game.name, "out": str(out), **start(args.jobs)}
    _print_summary(args, summary, None)
    return 0


def _print_summary(args: argparse.Namespace, summary: dict, exact_value: float | None) -> None:
    if args.json:
        print_json(summary)
        return
    out = summary["out"]
    print(
        f"{summary['algo']} on {summary['game']}: {summary['games']} games in {summary['seconds']:.1f} s "
        f"-> {out}/policy.json"
    )
    if exact_value is not None:
        print(f"  exact value of the policy: {exact_value:.6f}")
    for row in summary["final"]:
        if row.get("opponent"):
            print(
                f"  vs {row['opponent']}: win {row['win']:.4f} "
                f"[{row['win_ci_low']:.4f}, {row['win_ci_high']:.4f}] over {row['eval_games']} games"
            )
        else:
            print(f"  mean score {row['mean_score']:.4f} over {row['eval_games']} games")
