"""Whether a player is clearly better than ``random``: the warning of ``fsmarena evolve``.

Settings that do not learn a game at their budget still write a player; the command says so in
one line instead of letting the user take it for a trained one (``fsmarena train`` does the same
from its own last curve point: :mod:`fsmarena.rl.learning_check`).  The player plays
:data:`CHECK_GAMES` games against ``random`` (alone in a one-player game), and ``random`` plays the
same deals in its place (common random numbers).  It is *clearly better* when the low end of
its 95% interval (Wilson's for a win rate, the normal interval of a mean score) lies above what
``random`` reached.
"""

from __future__ import annotations

import math

import numpy as np

from fsmarena.games.base import Game
from fsmarena.games.match import MatchStats, play_match
from fsmarena.games.players import Player, RandomPlayer
from fsmarena.games.stats import Z95, wilson_interval

#: games the player and ``random`` each play on the same deals
CHECK_GAMES = 2000
#: spawn key (under the run's seed) of the check's deals, apart from every stream of a run
CHECK_KEY = 7


def not_clearly_better_than_random(game: Game, player: Player, seed: int, jobs: int = 1) -> str | None:
    """The warning for ``player`` (one line), or None when it is clearly better than ``random``."""
    deals = np.random.SeedSequence(seed, spawn_key=(CHECK_KEY,))
    rival = None if game.n_seats == 1 else RandomPlayer()
    mine = play_match(game, player, rival, CHECK_GAMES, deals, jobs=jobs)
    base = play_match(game, RandomPlayer(), rival, CHECK_GAMES, deals, jobs=jobs)
    if game.n_seats == 1:
        value, low, high = _mean_interval(mine)
        own, shown, measure = base.score / base.games, f"{value:.4f} [{low:.4f}, {high:.4f}]", "mean score"
        baseline = f"{own:.4f}"
    else:
        low, high = wilson_interval(mine.wins, mine.games)
        own, measure = base.win_rate, "win rate against random"
        shown, baseline = f"{mine.win_rate:.1%} [{low:.1%}, {high:.1%}]", f"{own:.1%}"
    if low > own:
        return None
    return (
        f"the player's {measure} is {shown} over {CHECK_GAMES} games, not clearly above the {baseline} "
        f"of random in its place: these settings may not learn {game.name} at this budget"
    )


def _mean_interval(stats: MatchStats) -> tuple[float, float, float]:
    """A match's mean score with its normal 95% interval (from the running sums)."""
    n = stats.games
    mean = stats.score / n
    variance = max(0.0, stats.score_sq / n - mean * mean) * n / max(n - 1, 1)
    half = Z95 * math.sqrt(variance / n)
    return mean, mean - half, mean + half
