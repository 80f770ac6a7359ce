"""``fsmarena tournament``: a round robin, written as CSV/JSON tables and a heat map.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import numpy as np

from fsmarena import limits
from fsmarena.commands._common import (
    add_dask,
    add_game,
    add_json,
    add_seed_jobs,
    game_from_args,
    games_count,
    output_path,
    parallel_backend,
    prepare_out,
    print_json,
)
from fsmarena.csvfile import write_csv
from fsmarena.fileio import write_json
from fsmarena.games.players import resolve_player

NAME = "tournament"
HELP = "round robin between players; writes results.csv, matrix.csv, tournament.json and a heat map"

#: the tables a run writes (plus heatmap.*), removed when a re-run starts
OUTPUTS = ("results.csv", "matrix.csv", "tournament.json")
RESULT_FIELDS = [
    "player",
    "opponent",
    "games",
    "win",
    "draw",
    "loss",
    "score",
    "opp_score",
    "win_ci_low",
    "win_ci_high",
]


def add_arguments(parser) -> None:
    add_game(parser)
    parser.add_argument("players", metavar="PLAYER", nargs="+", help="builtin names or player JSON files")
    parser.add_argument("--games", type=games_count, default=10_000, help="games per pair (default 10000)")
    add_seed_jobs(parser)
    parser.add_argument("--out", type=output_path, required=True, help="output folder")
    add_dask(parser)
    add_json(parser)


def run(args) -> int:
    from fsmarena.figures.heatmap import win_rate_heatmap
    from fsmarena.games.match import round_robin

    game = game_from_args(args)
    pairs = len(args.players) * (len(args.players) - 1) // 2 if game.n_seats > 1 else len(args.players)
    limits.check(pairs * args.games, limits.MAX_GAMES, "the tournament's games (pairs x --games)", "MAX_GAMES")
    players = [resolve_player(spec, game) for spec in args.players]
    out = prepare_out(args.out, "tournament")
    for old in [out / name for name in OUTPUTS] + sorted(out.glob("heatmap.*")):
        old.unlink(missing_ok=True)  # a folder holds one run's tables: a failed re-run leaves none, not a mix
    with parallel_backend(args):
        result = round_robin(game, players, args.games, args.seed, args.jobs)
    summary = {"game": game.name, "games_per_pair": args.games, "seed": args.seed, "players": result.labels}
    if result.one_player:
        rows = [
            {"player": result.labels[i], **stats.to_dict(one_player=True)}
            for (i, _), stats in sorted(result.pairs.items())
        ]
        for row in rows:
            row.pop("games_per_second")  # timings vary: result files stay bit-identical
        summary["results"] = rows
        write_csv(out / "results.csv", ["player", "games", "mean_score"], rows)
    else:
        rows = []
        for row in result.rows():
            low, high = row.pop("win_ci95")
            row.pop("score_ci95", None)
            row.pop("games_per_second")  # timings vary: result files stay bit-identical
            rows.append({**row, "win_ci_low": low, "win_ci_high": high})
        matrix = result.win_matrix()
        summary["win_matrix"] = matrix.tolist()
        summary["results"] = rows
        write_csv(out / "results.csv", RESULT_FIELDS, rows)
        write_csv(
            out / "matrix.csv", ["win rate of row vs column", *result.labels], _matrix_rows(result.labels, matrix)
        )
        low, high = _ci_matrices(result.labels, rows)
        win_rate_heatmap(
            matrix,
            result.labels,
            out / "heatmap",
            low,
            high,
            title=f"{game.name}: round robin, {args.games} games per pair",
        )
    write_json(out / "tournament.json", summary)
    if args.json:
        print_json(summary)
    else:
        print(_table(result.labels, result.win_matrix()) if not result.one_player else _scores(rows))
        print(f"written to {out}/")
    return 0


def _matrix_rows(labels, matrix) -> list[list[str]]:
    return [[label] + ["" if np.isnan(v) else f"{v:.6f}" for v in row] for label, row in zip(labels, matrix)]


def _ci_matrices(labels, rows):
    index = {label: i for i, label in enumerate(labels)}
    low = np.full((len(labels),) * 2, np.nan)
    high = low.copy()
    for row in rows:
        i, j = index[row["player"]], index[row["opponent"]]
        low[i, j], high[i, j] = row["win_ci_low"], row["win_ci_high"]
    return low, high


def _table(labels, matrix) -> str:
    width = max(len(label) for label in labels) + 2
    lines = ["win rate (row vs column)".ljust(width) + "".join(label[:10].rjust(11) for label in labels)]
    for label, row in zip(labels, matrix):
        cells = "".join(("—" if np.isnan(v) else f"{100 * v:.1f}%").rjust(11) for v in row)
        lines.append(label.ljust(width) + cells)
    return "\n".join(lines)


def _scores(rows) -> str:
    return "\n".join(f"{row['player']}: mean score {row['mean_score']:.4f}" for row in rows)
