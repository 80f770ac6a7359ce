"""The network learner's training figure: losses, segment rewards and lengths, training and
evaluation results against games played (``metrics.png`` / ``.pdf`` beside ``metrics.csv``).

Kept apart from the training so that the run's data and its drawing stay separate: the learner
(:func:`fsmarena.rl.network_training.train_network`) writes the data and calls the ``draw``
function it is given at every save, which ``fsmarena train --algo mlp`` makes this one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from fsmarena.figures.style import PAGE_WIDTH, color, plt, save, style


def plot_metrics(
    metrics: list[dict[str, Any]], curve: list[dict[str, Any]], heads: Sequence[str], stem: str | Path
) -> None:
    """Four panels against training games: each head's loss, the mean segment reward, the
    learner's decisions per segment, and the rolling training result with the evaluation
    curve (win rate against each panel player, or mean score in a one-player game)."""
    with style():
        fig, axes = plt.subplots(2, 2, figsize=(PAGE_WIDTH, 4.2), sharex=True)
        games = [m["games"] for m in metrics]
        ax = axes[0, 0]
        for k, head in enumerate(heads):
            ax.plot(games, [m[f"{head}_loss"] for m in metrics], color=color(k), label=f"{head} loss")
        ax.set_ylabel("MSE before update")
        ax.set_yscale("log")
        ax.legend(frameon=False)
        axes[0, 1].plot(games, [m["mean_segment_reward"] for m in metrics], color=color(2))
        axes[0, 1].set_ylabel("mean segment reward")
        axes[1, 0].plot(games, [m["segment_length"] for m in metrics], color=color(3))
        axes[1, 0].set_ylabel("learner decisions per segment")
        _results(axes[1, 1], metrics, curve)
        for ax in axes[1]:
            ax.set_xlabel("training games")
        save(fig, stem)


def _results(ax: Any, metrics: list[dict[str, Any]], curve: list[dict[str, Any]]) -> None:
    games = [m["games"] for m in metrics]
    solo = all(not row["opponent"] for row in curve)
    if solo:  # a one-player game: mean scores
        ax.plot(games, [m["rolling_mean_reward"] for m in metrics], color=color(4), label="training (rolling)")
        ax.plot([c["games"] for c in curve], [c["mean_score"] for c in curve], "o-", color=color(0), ms=3)
        ax.set_ylabel("mean score")
    else:
        ax.plot(games, [m["rolling_win_rate"] for m in metrics], color=color(4), label="training (rolling)")
        for k, opponent in enumerate(sorted({c["opponent"] for c in curve})):
            rows = [c for c in curve if c["opponent"] == opponent]
            x = [c["games"] for c in rows]
            ax.plot(x, [c["win"] for c in rows], "o-", color=color(k), ms=3, label=f"vs {opponent}")
            low, high = [c["win_ci_low"] for c in rows], [c["win_ci_high"] for c in rows]
            ax.fill_between(x, low, high, color=color(k), alpha=0.2, lw=0)
        ax.set_ylabel("win rate")
    ax.legend(frameon=False)
