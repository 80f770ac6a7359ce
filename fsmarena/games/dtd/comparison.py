"""The README's learner comparison on divide-the-dollar, reproducible from the command line::

    python -m games.dtd.comparison --seeds 5 --episodes 2000000 --eval-games 1000000 --jobs 2 --out DIR

Each algorithm (MC-ES as in the thesis, SARSA, Q-learning, with their defaults) trains
against ``random`` for the same budget under seeds 0..S-1; each final greedy policy then
plays ``eval-games`` fresh games against ``random`` with seats swapped (a seed no training
run used).  Writes ``DIR/results.csv`` (one row per run: win rate and its 95% Wilson
interval, draws, training seconds), ``DIR/summary.md`` (mean, standard deviation, min and
max over seeds per algorithm) and every run's ``policy.json`` / ``curve.csv``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from fsmarena.csvfile import csv_text
from fsmarena.fileio import write_text
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.games.match import play_match
from fsmarena.games.players import RandomPlayer
from fsmarena.rl.results import write_outputs
from fsmarena.rl.train import TrainConfig, train

ALGOS = ("mc", "sarsa", "q-learning")
EVAL_SEED = 2_000_000_017  # distinct from every training seed and its derived streams


def run(
    seeds: int, episodes: int, eval_games: int, jobs: int, out: Path, batch: int | None, algos: tuple[str, ...] = ALGOS
) -> list[dict]:
    game = DivideTheDollar()
    rows = []
    for algo in algos:
        for seed in range(seeds):
            folder = out / f"{algo}-seed{seed}"
            config = TrainConfig(
                algo,
                episodes=episodes,
                batch=batch or (50_000 if algo == "mc" else 10_000),
                eval_every=max(1, episodes // 20),
                eval_games=20_000,
            )
            result = train(game, config, seed=seed, jobs=jobs)
            write_outputs(folder, game, result, seed)
            stats = play_match(game, result.policy, RandomPlayer(), eval_games, EVAL_SEED, jobs=jobs)
            summary = stats.to_dict()
            rows.append(
                {
                    "algo": algo,
                    "seed": seed,
                    "episodes": episodes,
                    "batch": config.batch,
                    "eval_games": stats.games,
                    "win": summary["win"],
                    "win_ci_low": summary["win_ci95"][0],
                    "win_ci_high": summary["win_ci95"][1],
                    "draw": summary["draw"],
                    "train_seconds": round(result.seconds, 1),
                }
            )
            print(
                f"{algo:>10} seed {seed}: win {summary['win']:.4f} "
                f"[{summary['win_ci95'][0]:.4f}, {summary['win_ci95'][1]:.4f}] "
                f"trained in {result.seconds:.1f} s",
                flush=True,
            )
    return rows


def summary_markdown(rows: list[dict]) -> str:
    lines = [
        "| algorithm | mean win | sd over seeds | min | max | per-seed win [95% CI] | train s (mean) |",
        "|---|---|---|---|---|---|---|",
    ]
    for algo in dict.fromkeys(r["algo"] for r in rows):
        mine = [r for r in rows if r["algo"] == algo]
        if not mine:
            continue
        wins = [r["win"] for r in mine]
        per_seed = "; ".join(
            f"{r['seed']}: {r['win']:.4f} [{r['win_ci_low']:.4f}, {r['win_ci_high']:.4f}]" for r in mine
        )
        sd = statistics.stdev(wins) if len(wins) > 1 else 0.0
        seconds = statistics.mean(r["train_seconds"] for r in mine)
        lines.append(
            f"| {algo} | {statistics.mean(wins):.4f} | {sd:.4f} | {min(wins):.4f} | {max(wins):.4f} "
            f"| {per_seed} | {seconds:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=2_000_000)
    parser.add_argument("--eval-games", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=None, help="default: 50000 for MC, 10000 for TD")
    parser.add_argument("--algos", nargs="+", default=list(ALGOS))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = run(args.seeds, args.episodes, args.eval_games, args.jobs, args.out, args.batch, tuple(args.algos))
    columns = list(rows[0])
    write_text(args.out / "results.csv", curve_csv_like(rows, columns))
    write_text(args.out / "summary.md", summary_markdown(rows))
    print(summary_markdown(rows))
    print(f"total {time.perf_counter() - start:.0f} s")
    return 0


def curve_csv_like(rows: list[dict], columns: list[str]) -> str:
    return csv_text(columns, rows)


if __name__ == "__main__":
    raise SystemExit(main())
