"""``fsmarena evolve``: evolve table FSMs or binary decision automata with DEAP.

Writes ``DIR/best.json`` (a player file for ``play``, ``tournament`` and ``draw``),
``DIR/logbook.csv`` (one row per generation: fitness statistics, games simulated so far,
seconds, the champion's win rate against random where measured), ``DIR/population.json`` and
``DIR/checkpoint.json``, from which ``--resume`` continues to the result an uninterrupted run
would have given.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from fsmarena.commands._common import (
    add_dask,
    add_game,
    add_json,
    add_seed_jobs,
    game_from_args,
    games_count,
    non_negative_int,
    output_path,
    parallel_backend,
    population_size,
    positive_int,
    prepare_out,
    print_json,
    states_count,
)
from fsmarena.evo import registry  # names only: the protocols themselves are imported when a run starts
from fsmarena.outdir import confine

NAME = "evolve"
HELP = (
    "evolve table FSMs or binary decision automata "
    f"({', '.join(registry.names()[:-1])} or {registry.names()[-1]} fitness)"
)


def unit_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def add_arguments(parser) -> None:
    add_game(parser)
    parser.add_argument(
        "--genome", required=True, choices=("fsm", "bda"), help="table FSM (Mealy machine) or binary decision automaton"
    )
    parser.add_argument(
        "--protocol",
        required=True,
        choices=registry.names(),
        help=registry.help_text(),
    )
    parser.add_argument("--generations", type=positive_int, help="generations (thesis 250, others 50)")
    parser.add_argument("--population", type=population_size, help="population size (thesis 15, others 36)")
    parser.add_argument("--states", type=states_count, help="machine states (BDA 8, FSM 4)")
    parser.add_argument("--inputs", help="FSM inputs, e.g. index, opp_last or index+opp_last (default: the game's)")
    parser.add_argument("--max-tests", type=positive_int, help="BDA tests per decision (6)")
    parser.add_argument(
        "--panel",
        nargs="+",
        metavar="PLAYER",
        help="panel players (builtin names or player files) for --protocol panel",
    )
    parser.add_argument(
        "--panel-weight",
        type=unit_float,
        help="weight of the panel in the fitness; the rest is the round robin (1)",
    )
    parser.add_argument(
        "--games-per-pair",
        type=games_count,
        help="round robin / panel: games per ordered pair (per seating); score: games per individual (20)",
    )
    parser.add_argument(
        "--exact-fitness",
        action="store_true",
        default=None,
        help="score: fitness = exact expected score where the game computes it (421); simulates no game",
    )
    parser.add_argument("--opponents", type=positive_int, help="thesis: fresh random automata (25)")
    parser.add_argument("--games-per-opponent", type=games_count, help="thesis: games each (5)")
    parser.add_argument("--replaced", type=positive_int, help="thesis: individuals replaced (2)")
    parser.add_argument("--tournament", type=positive_int, help="tournament size (thesis 11, others 3)")
    parser.add_argument("--elite", type=non_negative_int, help="round robin / panel: elites kept (2)")
    parser.add_argument(
        "--crossover-rate",
        type=unit_float,
        help="round robin / panel: crossover probability per pair (0.7)",
    )
    parser.add_argument("--mutations", type=non_negative_int, help="point mutations per child (thesis 9, others 2)")
    parser.add_argument("--mutation-rate", type=unit_float, help="instead of --mutations: per-entry probability")
    parser.add_argument("--hall-of-fame", type=positive_int, default=5, help="hall of fame size (5)")
    parser.add_argument("--checkpoint-every", type=positive_int, default=10, help="checkpoint period (10)")
    parser.add_argument(
        "--curve-every",
        type=non_negative_int,
        default=10,
        help="measure the champion against random every K generations (10; 0: only the last)",
    )
    parser.add_argument("--curve-games", type=games_count, default=1000, help="games per curve point (1000)")
    parser.add_argument("--chunk", type=positive_int, default=8192, help="games per parallel task (8192)")
    add_seed_jobs(parser)
    add_dask(parser)
    parser.add_argument("--out", type=output_path, required=True, metavar="DIR", help="output folder")
    parser.add_argument("--resume", action="store_true", help="continue from DIR/checkpoint.json")
    add_json(parser)


def config_from_args(args):
    """The resolved settings of the options given (each :class:`fsmarena.evo.run.EvolveConfig` field is
    the option of its name; one not given keeps the field's default): one the genome or
    protocol does not use (``--max-tests`` with ``--genome fsm``) is refused, even at its
    default value."""
    from fsmarena.evo.run import EvolveConfig

    options = [f.name for f in dataclasses.fields(EvolveConfig) if f.name not in ("genome", "protocol")]
    given = {name: getattr(args, name) for name in options if getattr(args, name) is not None}
    if "panel" in given:
        given["panel"] = tuple(given["panel"])
    return EvolveConfig(genome=args.genome, protocol=args.protocol, **given).resolved(given=given)


def run(args) -> int:
    from fsmarena.evo.run import CHECKPOINT, evolve
    from fsmarena.games.baseline_check import not_clearly_better_than_random

    confine(args.out)  # nothing in DIR is read back or rewritten through a link (fsmarena.outdir)
    game = game_from_args(args)
    config = config_from_args(args)
    config.check_sizes(game)  # fail before any file
    out = prepare_out(args.out, "evolve")
    with parallel_backend(args):  # --dask: fitness chunks run on the cluster
        result = evolve(game, config, args.seed, args.jobs, out, resume=args.resume)
    curve = result.curve()
    scores = result.score_curve()
    summary = {
        "game": game.name,
        "genome": config.genome,
        "protocol": config.protocol,
        "seed": args.seed,
        "generations": result.generation,
        "games": result.games,
        "best_fitness": result.best_fitness,
        "best_label": result.best.label,
        "champion_vs_random": curve[-1][1] if curve else None,
        "champion_score": scores[-1][1] if scores else None,
        "seconds": result.seconds,
        "out": str(out),
        "files": ["best.json", "logbook.csv", "population.json", CHECKPOINT],
    }
    warning = not_clearly_better_than_random(game, result.best, args.seed, args.jobs)
    summary["warning"] = warning
    if args.json:
        print_json(summary)
    else:
        last = result.logbook[-1]
        print(
            f"{config.protocol} evolution of {config.population} {config.genome}s on {game.name}: "
            f"{result.generation} generations, {result.games} games in {result.seconds:.1f} s"
        )
        print(
            f"last generation fitness: mean {last['mean']:.3f}, max {last['max']:.3f}; "
            f"hall of fame best {result.best_fitness:.3f}"
        )
        if curve:
            print(f"champion vs random: win rate {curve[-1][1]:.3f} (first generation {curve[0][1]:.3f})")
        if scores:
            print(f"champion's score: {scores[-1][1]:.4f} (first generation {scores[0][1]:.4f})")
        print(f"written to {out}/")
    if warning:
        print(f"fsmarena evolve: warning: {warning}", file=sys.stderr)
    return 0
