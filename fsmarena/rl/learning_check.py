"""Whether a training run ends clearly better than `random`: the warning of ``fsmarena train``.

A run whose settings do not learn the game at its budget (too few games, exploration that never
settles, a self-play opponent that drifts) still writes a policy; the command says so in one
line rather than letting the user take the policy for a trained one.  The measure is the run's
own last curve point against ``random``: the learner's win rate (its mean score in a one-player
game) and its interval, against what ``random`` itself scores in the learner's place on the same
deals (one more match of the curve's size, common random numbers).  The policy is *clearly
better* when the interval's low end lies above that baseline.
"""

from __future__ import annotations

from typing import Any

from fsmarena.games.base import Game
from fsmarena.games.match import play_match
from fsmarena.games.players import RandomPlayer
from fsmarena.rl.evaluation import streams
from fsmarena.rl.results import TrainResult

#: the panel member the check reads (the default opponent and panel of ``fsmarena train``)
BASELINE = "random"


def not_clearly_better_than_random(game: Game, result: TrainResult, seed: int, jobs: int = 1) -> str | None:
    """The warning for ``result`` (a sample-based run of ``game`` with run seed ``seed``), or None
    when its final policy is clearly better than ``random`` or the run did not measure itself
    against ``random`` (module doc)."""
    if not result.config.sample_based:
        return None  # the planners: exact, nothing to warn about
    final = result.summary()["final"]
    wanted = "" if game.n_seats == 1 else BASELINE
    for number, row in enumerate(final):
        if row.get("opponent") == wanted:
            return _compare(game, row, number, seed, jobs)
    return None


def _compare(game: Game, row: dict[str, Any], number: int, seed: int, jobs: int) -> str | None:
    """The warning for one final curve row (the ``number``-th match of the evaluation)."""
    _, eval_seed = streams(seed)
    games = int(row["eval_games"])
    rival = None if game.n_seats == 1 else RandomPlayer()
    baseline = play_match(game, RandomPlayer(), rival, games, eval_seed + number, jobs=jobs)
    if game.n_seats == 1:
        low, own, measure = float(row["score_ci_low"]), baseline.score / baseline.games, "mean score"
        text = f"{float(row['mean_score']):.4f} [{low:.4f}, {float(row['score_ci_high']):.4f}]"
        base = f"{own:.4f}"
    else:
        low, own, measure = float(row["win_ci_low"]), baseline.wins / baseline.games, "win rate against random"
        text = f"{float(row['win']):.1%} [{low:.1%}, {float(row['win_ci_high']):.1%}]"
        base = f"{own:.1%}"
    if low > own:
        return None
    return (
        f"the final policy's {measure} is {text} over {games} games, not clearly above the {base} "
        f"of random in its place: these settings may not learn {game.name} at this budget"
    )
