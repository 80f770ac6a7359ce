"""Ablation of the batch size K on divide-the-dollar: the win rate against ``random`` of the
greedy policy learned with K = 1 (the sequential, textbook algorithm) and with batches of K
games (the batched algorithm), several seeds, as a Markdown table.

Run ``python -m games.dtd.ablation [--episodes N] [--seeds S] [--batches 1,1000,...]
[--algos mc,q-learning]``; the table in ``docs/sequential-learning.md`` came from it.  Every
run uses the game's and the algorithm's default settings except K, and is measured with
10,000 evaluation games (the same deals for every run).
"""

from __future__ import annotations

import argparse
import statistics
import time

from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.rl.train import TrainConfig, train


def ablation(algos: list[str], batches: list[int], seeds: int, episodes: int, eval_games: int) -> list[dict]:
    """One row per (algorithm, K): the final win rate against random of every seed."""
    game = DivideTheDollar()
    rows = []
    for algo in algos:
        for batch in batches:
            wins, seconds = [], 0.0
            for seed in range(seeds):
                start = time.perf_counter()
                config = TrainConfig(algo, episodes=episodes, batch=batch, eval_every=episodes, eval_games=eval_games)
                result = train(game, config, seed=seed)
                seconds += time.perf_counter() - start
                wins.append(float(result.curve[-1]["win"]))
            rows.append({"algo": algo, "batch": batch, "wins": wins, "seconds": seconds / seeds})
    return rows


def markdown(rows: list[dict], episodes: int, eval_games: int) -> str:
    """The rows as a Markdown table (mean, standard deviation, every seed, seconds per run)."""
    lines = ["| algorithm | K | mean win vs random | sd | per seed | s per run |", "|---|---:|---:|---:|---|---:|"]
    for row in rows:
        wins = row["wins"]
        sd = statistics.stdev(wins) if len(wins) > 1 else 0.0
        lines.append(
            f"| {row['algo']} | {row['batch']:,} | {statistics.mean(wins):.4f} | {sd:.4f} | "
            f"{', '.join(f'{w:.4f}' for w in wins)} | {row['seconds']:.1f} |"
        )
    lines.append("")
    lines.append(f"{episodes:,} training games per run, {eval_games:,} evaluation games against random.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=2_000_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--eval-games", type=int, default=10_000)
    parser.add_argument("--batches", default="1,1000,10000,50000")
    parser.add_argument("--algos", default="mc,q-learning")
    args = parser.parse_args(argv)
    batches = [int(b) for b in args.batches.split(",")]
    rows = ablation(args.algos.split(","), batches, args.seeds, args.episodes, args.eval_games)
    print(markdown(rows, args.episodes, args.eval_games))


if __name__ == "__main__":
    main()
