"""``fsmarena play``: player A against player B (seats rotated), or A alone in a one-player game.

``--trace N`` also plays N games move by move and prints them (``--json``: returns them as
``traces``): each seat's observation in the game's words, a machine's state before and after,
the action and the scores (:mod:`fsmarena.evo.transcript`); A takes seat ``k % seats`` in game
``k``.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

from fsmarena.commands._common import (
    add_game,
    add_json,
    add_seed_jobs,
    game_from_args,
    games_count,
    non_negative_int,
    print_json,
)
from fsmarena.errors import FsmarenaError
from fsmarena.games.players import resolve_player

NAME = "play"
HELP = "play A against B (seats swapped in half of the games) and report A's results"
#: games ``--trace`` prints at most (a transcript is a few dozen lines)
MAX_TRACES = 100


def add_arguments(parser) -> None:
    add_game(parser)
    parser.add_argument("a", metavar="A", help="builtin player name or player JSON file")
    parser.add_argument("b", metavar="B", nargs="?", help="opponent (not for one-player games)")
    parser.add_argument("--games", type=games_count, default=10_000, help="number of games (default 10000)")
    parser.add_argument(
        "--trace",
        type=non_negative_int,
        default=0,
        metavar="N",
        help=f"also print N games move by move (at most {MAX_TRACES}; with --json: returned as 'traces')",
    )
    add_seed_jobs(parser)
    add_json(parser)


def run(args) -> int:
    from fsmarena.evo.transcript import rotated_transcripts, transcript_lines
    from fsmarena.games.match import play_match

    game = game_from_args(args)
    a = resolve_player(args.a, game)
    if game.n_seats == 1:
        if args.b is not None:
            raise FsmarenaError(f"{game.name} is a one-player game: give one player")
        b = None
    else:
        if args.b is None:
            raise FsmarenaError(f"{game.name} is a {game.n_seats}-player game: give an opponent B")
        b = resolve_player(args.b, game)
    if args.trace > MAX_TRACES:
        raise FsmarenaError(f"--trace prints at most {MAX_TRACES} games, not {args.trace}")
    stats = play_match(game, a, b, args.games, args.seed, args.jobs, desc="play")
    result = stats.to_dict(one_player=game.n_seats == 1)
    traces = rotated_transcripts(game, a, b, args.trace, args.seed) if args.trace else []
    if args.json:
        if args.trace:
            result["traces"] = [t.to_dict() for t in traces]
        print_json(result)
        return 0
    if game.n_seats == 1:
        low, high = result["score_ci95"]
        print(
            f"{a.label}: mean score {result['mean_score']:.4f} (95% CI {low:.4f} to {high:.4f}) over {stats.games} games"
        )
    else:
        assert b is not None
        low, high = result["win_ci95"]
        print(f"{a.label} vs {b.label} over {stats.games} games (seats rotated):")
        print(
            f"  win {100 * result['win']:.2f}% (95% CI {100 * low:.2f} to {100 * high:.2f})   "
            f"draw {100 * result['draw']:.2f}%   loss {100 * result['loss']:.2f}%"
        )
        print(f"  mean score {result['score']:.4f} vs {result['opp_score']:.4f}")
    if result["games_per_second"]:
        print(f"  {result['games_per_second']:,.0f} games/s")
    for number, transcript in enumerate(traces, 1):
        print("\n".join(transcript_lines(game, transcript, number)))
    return 0
